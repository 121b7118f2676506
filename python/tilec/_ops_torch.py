"""tilec.ops as torch.library custom ops (tilec::attention, tilec::matmul,
tilec::linear, tilec::scaled_mm): torch.compile traces them through their fake
implementations (which check the arguments as a call does, so a mistake is
reported while compiling) and CUDA graphs capture their launches. matmul and
linear have backward passes through tilec's GEMMs (_ops_grad); attention and
scaled_mm give autograd a clear error."""

from typing import Optional, Tuple


def _no_backward(name, fix):
    def setup_context(ctx, inputs, output):
        pass

    def backward(ctx, *grads):
        raise RuntimeError(
            f"tilec.ops.{name} has no backward pass (tilec's kernel is forward only): {fix}")

    return setup_context, backward


def register(torch, attention_run, attention_args, matmul_run, matmul_args, linear_run,
             linear_args, scaled_run, scaled_args):
    from torch.library import custom_op, register_autograd

    from ._ops_grad import linear_backward, linear_setup, matmul_backward, matmul_setup

    Tensor = torch.Tensor

    @custom_op("tilec::attention", mutates_args=())
    def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool,
                  scale: Optional[float]) -> Tuple[Tensor, Tensor]:
        o, lse, sq = attention_run(q, k, v, causal, scale)
        if lse.shape[-1] != sq:  # the kernel writes whole CTAs of rows
            lse = lse[..., :sq].contiguous()
        return o, lse

    @attention.register_fake
    def _(q, k, v, causal, scale):
        attention_args(q, k, v, causal, scale)
        b, h, sq, d = q.shape
        return q.new_empty((b, h, sq, d)), q.new_empty((b, h, sq), dtype=torch.float32)

    register_autograd("tilec::attention", _no_backward(
        "attention", "train with torch.nn.functional.scaled_dot_product_attention, or run "
        "tilec's under torch.no_grad() / with inputs that do not require grad")[1],
        setup_context=_no_backward("attention", "")[0])

    @custom_op("tilec::matmul", mutates_args=())
    def matmul(a: Tensor, b: Tensor) -> Tensor:
        return matmul_run(a, b)

    @matmul.register_fake
    def _(a, b):
        return a.new_empty(matmul_args(a, b)[2].c_shape)

    register_autograd("tilec::matmul", matmul_backward, setup_context=matmul_setup)

    @custom_op("tilec::linear", mutates_args=())
    def linear(x: Tensor, w: Tensor, bias: Optional[Tensor],
               activation: Optional[str] = None) -> Tensor:
        return linear_run(x, w, bias, activation)

    @linear.register_fake
    def _(x, w, bias, activation=None):
        return x.new_empty(linear_args(x, w, bias, activation)[3].c_shape)

    register_autograd("tilec::linear", linear_backward, setup_context=linear_setup)

    @custom_op("tilec::scaled_mm", mutates_args=())
    def scaled_mm(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor) -> Tensor:
        return scaled_run(a, b, scale_a, scale_b)

    @scaled_mm.register_fake
    def _(a, b, scale_a, scale_b):
        scaled_args(a, b, scale_a, scale_b, None, None, torch.bfloat16)
        return a.new_empty((a.shape[0], b.shape[1]), dtype=torch.bfloat16)

    register_autograd("tilec::scaled_mm", _no_backward(
        "scaled_mm", "fp8 GEMMs here are for inference")[1],
        setup_context=_no_backward("scaled_mm", "")[0])
