"""The backward passes of tilec.ops.matmul and tilec.ops.linear on a GPU with
torch: gradients against torch's in float32 on random normal data (the
upstream gradient too: never zero), at tile-multiple and ragged shapes (M not
a multiple of 8: the transposed operand padded), both weight / B layouts,
batched and broadcast matmul, every activation, only the inputs that require
grad getting one, torch.library.opcheck, torch.compile(fullgraph=True) of a
training step, and the operations that still refuse a backward. SKIPs without
torch or a CUDA device.

Bounds: each gradient is one GEMM with f32 accumulation rounded once to the
inputs' dtype (dbias: torch's sum, f32 accumulation), so its relative
Frobenius error against float32 autograd on the same (rounded) inputs is that
of a forward GEMM: 2e-3 for float16, 1e-2 for bfloat16. Where a forward
rounding feeds the backward (gelu's z, relu's mask) the bound is twice that."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("SKIP: no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import tilec.ops as ops  # noqa: E402
from tilec import _ops_grad  # noqa: E402
# relu runs fused (an ACT = 1 instance) under autograd too: the activation
# instances, prebuilt or compiled, else a skip (a failure where a bundle
# says they are there).
from test_gpu_activation import activation_instances  # noqa: E402,F401  (autouse)
from test_gpu_linear import randn, rel, tol  # noqa: E402  (normal data; the GEMM bounds)


def grads(f, inputs, dy):
    """f(*inputs) and the gradients of <f(*inputs), dy> for the inputs that
    require grad (None for the others)."""
    y = f(*inputs)
    want = [t for t in inputs if t is not None and t.requires_grad]
    got = iter(torch.autograd.grad(y, want, dy))
    return y, [next(got) if t is not None and t.requires_grad else None for t in inputs]


def f32_leaves(*ts):
    return [None if t is None else t.detach().float().requires_grad_(t.requires_grad)
            for t in ts]


def check_against_f32(f, ref_f, inputs, dy, bound):
    y, gs = grads(f, inputs, dy)
    y_ref, refs = grads(ref_f, f32_leaves(*inputs), dy.float())
    assert y.dtype == inputs[0].dtype and y.shape == y_ref.shape
    assert rel(y, y_ref) < bound
    for t, g, r in zip(inputs, gs, refs):
        if t is None or not t.requires_grad:
            continue
        assert g.shape == t.shape and g.dtype == t.dtype, (g.shape, t.shape)
        assert rel(g, r) < bound, (tuple(t.shape), rel(g, r))
    return gs


# ------------------------------------------------------------------ matmul

MATMUL_SHAPES = [  # M, N, K
    (4096, 4096, 4096),
    (1000, 3000, 512),     # ragged M and N tiles, M a multiple of 8
    (100, 264, 136),       # M not a multiple of 8: the transposed operand padded
    (37, 8, 4096),         # skinny, ragged M
    (1, 64, 64),
]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("b_layout", ["row", "col"])
@pytest.mark.parametrize("shape", MATMUL_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matmul_gradients_match_torch(dtype, b_layout, shape):
    m, n, k = shape
    a = randn(m, k, dtype=dtype, seed=1).requires_grad_()
    b = randn(k, n, dtype=dtype, seed=2)
    if b_layout == "col":
        b = b.t().contiguous().t()
    b.requires_grad_()
    dc = randn(m, n, dtype=dtype, seed=3)
    da, db = check_against_f32(ops.matmul, torch.matmul, [a, b], dc, tol(dtype))
    # dB = (Aᵀ copied) dC is row-major, ((dCᵀ copied) A)ᵀ column-major: the
    # one that moves fewer elements, a K x N re-layout counted where dB's
    # layout is not B's (equal at 4096³: B's layout).
    row = b_layout == "row"
    assert _ops_grad._row_major(db) == (m * k + (0 if row else k * n) <=
                                        m * n + (k * n if row else 0))


BMM_CASES = [  # a shape, b shape
    ((3, 128, 64), (64, 256)),              # folded into M: dB one GEMM over 384 rows
    ((2, 5, 100, 72), (72, 136)),           # two batch dims folded, ragged
    ((4, 100, 72), (4, 72, 136)),           # per matrix, M ragged
    ((2, 1, 64, 64), (1, 3, 64, 128)),      # broadcast batch dims: summed
    ((128, 64), (3, 64, 256)),              # a broadcast over b's batch
    ((3, 37, 64), (1, 64, 128)),            # b one matrix with a batch dim
]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", BMM_CASES, ids=lambda c: "x".join(map(str, c[0])) + "@" +
                         "x".join(map(str, c[1])))
def test_batched_matmul_gradients_match_torch(dtype, case):
    a = randn(*case[0], dtype=dtype, seed=4).requires_grad_()
    b = randn(*case[1], dtype=dtype, seed=5).requires_grad_()
    dc = randn(*torch.broadcast_shapes(case[0][:-2], case[1][:-2]), case[0][-2], case[1][-1],
               dtype=dtype, seed=6)
    check_against_f32(ops.matmul, torch.matmul, [a, b], dc, tol(dtype))
    bt = b.detach().transpose(-1, -2).contiguous().transpose(-1, -2).requires_grad_()
    check_against_f32(ops.matmul, torch.matmul, [a, bt], dc, tol(dtype))


def test_only_inputs_that_require_grad_get_a_gradient(monkeypatch):
    calls = []
    real = _ops_grad._gemm
    monkeypatch.setattr(_ops_grad, "_gemm", lambda a, b: calls.append(1) or real(a, b))
    a, b = randn(256, 128, seed=7), randn(128, 64, seed=8)
    dc = randn(256, 64, seed=9)
    for need_a, need_b in ((True, False), (False, True), (True, True)):
        calls.clear()
        aa, bb = a.clone().requires_grad_(need_a), b.clone().requires_grad_(need_b)
        ops.matmul(aa, bb).backward(dc)
        assert (aa.grad is not None, bb.grad is not None) == (need_a, need_b)
        assert len(calls) == need_a + need_b  # one GEMM per gradient asked for
    x, w, bias = randn(64, 128, seed=10), randn(256, 128, seed=11), randn(256, seed=12)
    calls.clear()
    ops.linear(x, w, bias.requires_grad_()).backward(randn(64, 256, seed=13))
    assert calls == [] and bias.grad is not None and x.grad is None and w.grad is None


# ------------------------------------------------------------------ linear

LINEAR_SHAPES = [  # leading dims of x, N, K
    ((4096,), 4096, 4096),
    ((2, 37), 256, 128),     # flattened leading dims, 74 rows: padded
    ((16,), 4096, 4096),     # decode
    ((300,), 264, 136),      # ragged everything
    ((), 128, 64),           # x a vector
]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("case", LINEAR_SHAPES, ids=lambda c: "x".join(map(str, c[0] + c[1:])))
def test_linear_gradients_match_torch(dtype, activation, case):
    lead, n, k = case
    x = randn(*lead, k, dtype=dtype, seed=14).requires_grad_()
    w = randn(n, k, dtype=dtype, seed=15, scale=k ** -0.5).requires_grad_()
    b = randn(n, dtype=dtype, seed=16).requires_grad_()
    dy = randn(*lead, n, dtype=dtype, seed=17)
    act = {None: lambda t: t, "relu": F.relu, "gelu": F.gelu, "silu": F.silu,
           "gelu_tanh": lambda t: F.gelu(t, approximate="tanh")}[activation]
    bound = tol(dtype) * (1 if activation is None else 2)
    check_against_f32(lambda x, w, b: ops.linear(x, w, b, activation=activation),
                      lambda x, w, b: act(F.linear(x, w, b)), [x, w, b], dy, bound)
    # Without a bias; a column-major weight (dW = ((xᵀ copied) dz)ᵀ, in its
    # layout, the cheaper form at these shapes). relu with a column-major
    # weight runs gemm_bmn's ACT = 1 instances, which a GPU bundle does not
    # prebuild (ops_ptx.py: nn.Linear's row-major weights).
    check_against_f32(lambda x, w: ops.linear(x, w, activation=activation),
                      lambda x, w: act(F.linear(x, w)), [x, w], dy, bound)
    if activation != "relu":
        wt = w.detach().t().contiguous().t().requires_grad_()
        _, dw = check_against_f32(lambda x, w: ops.linear(x, w, activation=activation),
                                  lambda x, w: act(F.linear(x, w)), [x, wt], dy, bound)
        assert not _ops_grad._row_major(dw)


def test_linear_gelu_under_autograd_rounds_the_preactivation_once():
    """Under autograd, gelu is torch's on the GEMM's z (rounded): the result
    is F.gelu(tilec.ops.linear(x, w, b)) exactly; without grad, the fused
    kernel's (one rounding) is within a rounding of it."""
    x, w, b = randn(128, 256, seed=18), randn(512, 256, seed=19), randn(512, seed=20)
    fused = ops.linear(x, w, b, activation="gelu")
    y = ops.linear(x.requires_grad_(), w, b, activation="gelu")
    with torch.no_grad():
        z = ops.linear(x, w, b)
    assert torch.equal(y.detach(), F.gelu(z))
    assert rel(y.detach(), fused) < 2e-3


def test_linear_empty_shapes_have_zero_or_empty_gradients():
    w, b = randn(256, 128, seed=21).requires_grad_(), randn(256, seed=22).requires_grad_()
    x = randn(0, 128, seed=23).requires_grad_()
    ops.linear(x, w, b).sum().backward()
    assert x.grad.shape == (0, 128)
    assert torch.equal(w.grad, torch.zeros_like(w)) and torch.equal(b.grad, torch.zeros_like(b))
    x0, w0 = randn(5, 0, seed=24).requires_grad_(), randn(256, 0, seed=25).requires_grad_()
    b.grad = None
    ops.linear(x0, w0, b, activation="relu").backward(randn(5, 256, seed=26))
    assert x0.grad.shape == (5, 0) and w0.grad.shape == (256, 0)
    assert b.grad.shape == (256,)


def test_second_derivative_through_the_backward():
    """create_graph=True: the backward's GEMMs and copies are differentiable
    calls themselves (tilec::matmul, torch's pad and transpose)."""
    def second(f, a, b, x, w, bias, dc, dy):
        da, db = torch.autograd.grad(f[0](a, b), (a, b), dc, create_graph=True)
        dx, dw = torch.autograd.grad(f[1](x, w, bias), (x, w), dy, create_graph=True)
        total = sum(g.float().square().sum() for g in (da, db, dx, dw))
        return torch.autograd.grad(total, (a, b, x, w))

    a, b, dc = randn(100, 128, seed=36), randn(128, 64, seed=37), randn(100, 64, seed=38)
    x, w = randn(40, 64, seed=39), randn(128, 64, seed=40, scale=0.125)
    bias, dy = randn(128, seed=41), randn(40, 128, seed=42)
    ours = second((ops.matmul, lambda x, w, b: ops.linear(x, w, b, activation="relu")),
                  *(t.clone().requires_grad_() for t in (a, b, x, w)), bias, dc, dy)
    ref = second((torch.matmul, lambda x, w, b: F.relu(F.linear(x, w, b))),
                 *(t.float().requires_grad_() for t in (a, b, x, w)), bias.float(),
                 dc.float(), dy.float())
    for g, r in zip(ours, ref):
        assert rel(g, r) < 5e-3


def test_opcheck_of_the_custom_ops():
    a, b = randn(64, 128, seed=27), randn(128, 64, seed=28).requires_grad_()
    torch.library.opcheck(torch.ops.tilec.matmul.default, (a.requires_grad_(), b),
                          test_utils=("test_schema", "test_autograd_registration",
                                      "test_faketensor", "test_aot_dispatch_static"))
    x, w, bias = randn(32, 64, seed=29), randn(128, 64, seed=30), randn(128, seed=31)
    torch.library.opcheck(torch.ops.tilec.linear.default,
                          (x.requires_grad_(), w.requires_grad_(), bias, "relu"),
                          test_utils=("test_schema", "test_autograd_registration",
                                      "test_faketensor", "test_aot_dispatch_static"))


def test_training_step_under_torch_compile_fullgraph():
    x = randn(256, 512, seed=32)
    w1, b1 = randn(1024, 512, seed=33, scale=512 ** -0.5), randn(1024, seed=34)
    w2 = randn(512, 1024, seed=35, scale=1024 ** -0.5)

    def loss_fn(x, w1, b1, w2):
        h = ops.linear(x, w1, b1, activation="gelu")
        return ops.matmul(h, w2.t()).float().square().mean()

    params = [t.clone().requires_grad_() for t in (w1, b1, w2)]
    eager_grads = torch.autograd.grad(loss_fn(x, *params), params)
    compiled = torch.compile(loss_fn, fullgraph=True)
    compiled_grads = torch.autograd.grad(compiled(x, *params), params)
    ref_params = [t.float().requires_grad_() for t in (w1, b1, w2)]

    def ref_fn(x, w1, b1, w2):
        return (F.gelu(F.linear(x, w1, b1)) @ w2.t()).square().mean()
    ref_grads = torch.autograd.grad(ref_fn(x.float(), *ref_params), ref_params)
    for e, c, r in zip(eager_grads, compiled_grads, ref_grads):
        # The same GEMMs; inductor's own gelu and gelu backward may round
        # differently from eager's.
        assert rel(c, e) < 2e-3
        assert rel(e, r) < 1e-2


def test_scaled_mm_has_no_backward():
    """(attention's refusal: test_gpu_ops.py.)"""
    a8 = randn(64, 64).float().to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda").requires_grad_()
    with pytest.raises(RuntimeError, match="tilec.ops.scaled_mm has no backward pass"):
        ops.scaled_mm(a8, a8.t(), one, one, out_dtype=torch.bfloat16).float().sum().backward()
