"""tilec.ops.attention: the attention sample's kernels (FlashAttention-3
style) on [B, H, S, D] arrays; tilec.ops re-exports attention and
plan_attention."""

import math

from . import _tilec
from ._errors import fields
from ._ops_calls import _allocator, _call_key, _eager, _function_of, _remember, _rows_of
from ._ops_kernels import (Arg, OpArgumentError, OpTypeError, kernel_of, need_contiguous,
                           same_device, sm_count)

try:
    import torch
except ImportError:  # tilec.ops without torch: DeviceArrays only
    torch = None
else:
    from ._ops_calls import _is_compiling

_HEAD_DIMS = (64, 128, 256)
_I32 = 2 ** 31




def _attention_args(q, k, v, causal, scale):
    op = "attention"
    qa, ka, va = Arg(op, "q", q), Arg(op, "k", k), Arg(op, "v", v)
    for a in (qa, ka, va):
        if len(a.shape) != 4:
            raise OpArgumentError(
                f"tilec.ops.attention: argument '{a.name}' has shape {list(a.shape)}; q is "
                f"[B, H, Sq, D] and k, v [B, Hkv, Sk, D] (FlashAttention's [B, S, H, D] is "
                f"{a.name}.transpose(1, 2).contiguous())")
        if a.dtype not in ("f16", "bf16"):
            raise OpTypeError(f"tilec.ops.attention: argument '{a.name}' has dtype {a.dtype}; "
                              f"the kernel takes float16 or bfloat16 (.half() / .bfloat16())")
    if not (qa.dtype == ka.dtype == va.dtype):
        raise OpTypeError(f"tilec.ops.attention: q, k and v have dtypes {qa.dtype}, {ka.dtype}, "
                          f"{va.dtype}: they must be one (convert k and v to q's)")
    b, h, sq, d = qa.shape
    bk, hk, sk, dk = ka.shape
    if tuple(va.shape) != tuple(ka.shape):
        raise OpArgumentError(f"tilec.ops.attention: v has shape {list(va.shape)}, k "
                              f"{list(ka.shape)}: they must be equal (the kernel's V head dim "
                              f"is K's)")
    if bk != b or dk != d:
        raise OpArgumentError(f"tilec.ops.attention: k has shape {list(ka.shape)}, q "
                              f"{list(qa.shape)}: batch and head dim must match")
    if d not in _HEAD_DIMS:
        raise OpArgumentError(f"tilec.ops.attention: head dim D = {d} (q's last extent) is not "
                              f"compiled; the kernel takes D = 64, 128 or 256 (pad the head dim "
                              f"with zeros and pass scale=1/sqrt(D) of the original)")
    if hk < 1 or h % hk:
        raise OpArgumentError(f"tilec.ops.attention: q has {h} heads and k, v {hk}: grouped-"
                              f"query attention needs q's heads to be a multiple of k's")
    if b * h * sq >= _I32 or b * hk * sk >= _I32:
        raise OpArgumentError("tilec.ops.attention: more than 2^31 rows of q or k (B * H * S): "
                              "split the batch")
    for a in (qa, ka, va):
        need_contiguous("attention", a, "[B * H * S, D] rows")
    dev = same_device("attention", qa, ka, va)
    if not isinstance(causal, bool):
        raise OpTypeError(f"tilec.ops.attention: causal must be a bool, not {causal!r}")
    if scale is not None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or \
                not math.isfinite(scale):
            raise OpTypeError(f"tilec.ops.attention: scale must be a finite float or None "
                              f"(1/sqrt(D)), not {scale!r}")
    return qa, ka, va, dev


def plan_attention(q, k, v, causal=False, scale=None):
    """The instance tilec.ops.attention runs for these arguments (a dict:
    kernel, compile-time args, grid, block_m, PTX), without running it."""
    qa, ka, va, dev = _attention_args(q, k, v, causal, scale)
    b, h, sq, d = qa.shape
    return fields(_tilec._attention_plan(qa.dtype, d, causal, sq, h, b, sm_count(dev or 0)),
                  "tilec.ops.plan_attention's plan")


def _attention_entry(q, k, v, causal, scale):
    """What every call with these shapes, strides, dtypes and options
    repeats: checked once, then (kernel, grid, ...)."""
    qa, ka, va, dev = _attention_args(q, k, v, causal, scale)
    b, h, sq, d = qa.shape
    hk, sk = ka.shape[1], ka.shape[2]
    if b * h * sq == 0:
        return (None, None, False, d, sq, sk, h, 1, b, sq, 0.0, qa.dtype)
    if sk == 0:
        raise OpArgumentError("tilec.ops.attention: k and v have no keys (Sk = 0): every row "
                              "would see no key")
    plan = _tilec._attention_plan(qa.dtype, d, causal, sq, h, b, sm_count(dev))
    kern = kernel_of("attention", plan, dev)
    bm = plan["block_m"]
    sl2 = float(1.0 / math.sqrt(d) if scale is None else scale) * math.log2(math.e)
    return (kern, plan["grid"], plan["persistent"], d, sq, sk, h, h // hk, b,
            (sq + bm - 1) // bm * bm, sl2, qa.dtype)


_attention_calls = {}


def _attention_torch(q, k, v, causal, scale):
    """(o, lse, Sq) of a call on torch tensors."""
    key = (q.shape, q.stride(), q.dtype, q.device, k.shape, k.stride(), k.dtype, k.device,
           v.shape, v.stride(), v.dtype, v.device, causal, scale)
    run = _attention_calls.get(key)
    if run is None:
        run = _remember(_attention_calls, key, _attention_launch(q, k, v, causal, scale))
    return run(q, k, v)


def _attention_run(q, k, v, causal, scale):
    """(o, lse, Sq) of a call on any arrays."""
    return _function_of(_attention_calls, _call_key((q, k, v), causal, scale),
                        lambda: _attention_launch(q, k, v, causal, scale))(q, k, v)


def _attention_launch(q, k, v, causal, scale):
    """The function every call with these shapes, strides, dtypes, devices
    and options runs: (q, k, v) -> (o, lse, Sq)."""
    kern, grid, persistent, d, sq, sk, h, g, b, lse_rows, sl2, dt = _attention_entry(
        q, k, v, causal, scale)
    new_o = _allocator(q, (b, h, sq, d), dt)
    new_lse = _allocator(q, (b, h, lse_rows), "f32")
    if kern is None:
        return lambda q, k, v: (new_o(q), new_lse(q), sq)
    # Bound with these arrays (as [rows, D] views); a call passes its arrays'
    # addresses (a view's is its base's).
    tail = (sq, sk, h, g, b, sl2) if persistent else (sq, sk, h, g, sl2)
    launch = kern[grid]._bind(_rows_of(q, d)(q), _rows_of(k, d)(k), _rows_of(v, d)(v), new_o(q),
                              new_lse(q), *tail)

    def run(q, k, v):
        o, lse = new_o(q), new_lse(q)
        launch(q, k, v, o, lse)
        return o, lse, sq
    return run


def attention(q, k, v, causal=False, scale=None, *, return_lse=False):
    """softmax(scale * q k^T + mask) v, FlashAttention-3 style (the attention
    sample). q [B, H, Sq, D], k and v [B, Hkv, Sk, D] (H a multiple of Hkv:
    grouped-query attention), contiguous, float16 or bfloat16, D = 64, 128 or
    256, any Sq and Sk. causal: query i sees keys j <= i + Sk - Sq (aligned
    bottom-right, FlashAttention's convention; SDPA's is_causal aligns
    top-left, the same when Sq == Sk). scale: default 1/sqrt(D). Returns o
    [B, H, Sq, D] (q's dtype), and with return_lse=True also lse [B, H, Sq]
    (float32, natural log; -inf for a row that sees no key, whose o is 0)."""
    if torch is not None and isinstance(q, torch.Tensor):
        if not isinstance(causal, bool) or (scale is not None and (
                isinstance(scale, bool) or not isinstance(scale, (int, float)))):
            _attention_args(q, k, v, causal, scale)  # raises, naming the argument
        scale = None if scale is None else float(scale)
        if (isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor) and not _is_compiling()
                and not ((q.requires_grad or k.requires_grad or v.requires_grad)
                         and torch.is_grad_enabled())):
            o, lse, sq = _attention_torch(q, k, v, causal, scale)
        elif _eager(q, k, v):
            o, lse, sq = _attention_run(q, k, v, causal, scale)
        else:
            o, lse = torch.ops.tilec.attention(q, k, v, causal, scale)
            return (o, lse) if return_lse else o
        if return_lse and lse.shape[-1] != sq:
            lse = lse[..., :sq].contiguous()
        return (o, lse) if return_lse else o
    o, lse, sq = _attention_run(q, k, v, causal, scale)
    return (o, lse) if return_lse else o
