"""tilec.ops on a GPU with torch, as a PyTorch user calls it: attention
against F.scaled_dot_product_attention (f16 and bf16, D 64/128/256, causal
and not, grouped-query, sequences that are no multiple of the block, Sq !=
Sk, a scale, the LSE), matmul against torch.matmul (every variant of the rule
table, both B layouts), scaled_mm against torch._scaled_mm, under
torch.compile(fullgraph=True) and CUDA graph capture, attention's refusal of
a backward, and each refusal naming the argument. SKIPs without torch or a CUDA device.
Kernels from the samples' PTX ($TILEC_OPS_PTX_DIR, $TILEC_PTX_DIR, the
build's) or compiled."""

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("SKIP: no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import tilec.ops as ops  # noqa: E402

GEN = torch.Generator(device="cuda")


def randn(*shape, dtype=torch.float16, seed=0):
    GEN.manual_seed(seed)
    return torch.randn(*shape, device="cuda", generator=GEN).to(dtype)


def rel(x, ref):
    return ((x.float() - ref.float()).norm() / ref.float().norm()).item()


def sdpa_ref(q, k, v, causal, scale):
    """float32 SDPA with FlashAttention's bottom-right causal mask and GQA
    (k and v repeated per query head)."""
    h, hk = q.shape[1], k.shape[1]
    kf = k.float().repeat_interleave(h // hk, 1)
    vf = v.float().repeat_interleave(h // hk, 1)
    sq, sk = q.shape[2], k.shape[2]
    mask = None
    if causal:
        i = torch.arange(sq, device="cuda")[:, None]
        j = torch.arange(sk, device="cuda")[None, :]
        mask = j <= i + sk - sq
    s = (q.float() @ kf.transpose(-1, -2)) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, -1)
    o = F.scaled_dot_product_attention(q.float(), kf, vf, attn_mask=mask, scale=scale)
    seen = torch.isfinite(lse)[..., None]
    return torch.where(seen, o, torch.zeros_like(o)), lse


ATTN_CASES = [  # B, H, Hkv, Sq, Sk, D, causal, scale
    (2, 4, 4, 333, 333, 64, False, None),
    (1, 4, 2, 200, 333, 64, True, None),
    (1, 2, 2, 2048, 2048, 64, True, None),     # three warpgroups, CTA order 1
    (2, 4, 1, 257, 96, 128, True, 0.05),       # Sq > Sk: the first rows see no key
    (1, 2, 2, 2048, 2048, 128, True, None),    # the persistent kernel
    (2, 2, 2, 65, 1000, 128, False, 0.2),
    (1, 4, 2, 300, 300, 256, True, None),
    (1, 2, 2, 1, 77, 256, False, None),
]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", ATTN_CASES, ids=lambda c: "x".join(map(str, c[:6])) +
                         ("c" if c[6] else "") + (f"s{c[7]}" if c[7] else ""))
def test_attention_matches_sdpa(dtype, case):
    b, h, hk, sq, sk, d, causal, scale = case
    q = randn(b, h, sq, d, dtype=dtype, seed=1)
    k = randn(b, hk, sk, d, dtype=dtype, seed=2)
    v = randn(b, hk, sk, d, dtype=dtype, seed=3)
    o, lse = ops.attention(q, k, v, causal=causal, scale=scale, return_lse=True)
    torch.cuda.synchronize()
    ref, ref_lse = sdpa_ref(q, k, v, causal, scale or 1 / math.sqrt(d))
    assert o.shape == q.shape and o.dtype == dtype and lse.shape == (b, h, sq)
    assert torch.isfinite(o).all()
    assert rel(o, ref) < (3e-3 if dtype == torch.float16 else 2e-2), ops.plan_attention(
        q, k, v, causal=causal)
    seen = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), seen)
    assert (lse[seen] - ref_lse[seen]).abs().max().item() < 2e-3
    if sq == sk and hk == h and not causal:  # SDPA itself, as a user calls it
        ref2 = F.scaled_dot_product_attention(q, k, v, scale=scale)
        assert rel(o, ref2) < (3e-3 if dtype == torch.float16 else 2e-2)


def test_attention_refusals_name_the_argument():
    q = randn(1, 2, 64, 64)
    with pytest.raises(ops.OpArgumentError, match="argument 'k' is on the cpu device.*cuda"):
        ops.attention(q, q.cpu(), q)
    bshd = randn(1, 64, 2, 64).transpose(1, 2)  # FlashAttention's layout seen as BHSD
    with pytest.raises(ops.OpArgumentError, match=r"argument 'q' .*not contiguous"):
        ops.attention(bshd, q, q)
    with pytest.raises(ops.OpArgumentError, match="head dim D = 80"):
        x = randn(1, 2, 64, 80)
        ops.attention(x, x, x)
    with pytest.raises(ops.OpTypeError, match="dtype f32"):
        x = q.float()
        ops.attention(x, x, x)
    if torch.cuda.device_count() > 1:
        with pytest.raises(ops.OpArgumentError, match="different devices"):
            ops.attention(q, q.to("cuda:1"), q)


def test_attention_has_no_backward():
    q = randn(1, 2, 128, 64).requires_grad_()
    o = ops.attention(q, q, q)
    with pytest.raises(RuntimeError, match="tilec.ops.attention has no backward pass"):
        o.float().sum().backward()
    with torch.no_grad():
        ops.attention(q, q, q)


MM_SHAPES = [(512, 768, 320), (77, 3000, 5000), (16, 4096, 4096), (256, 4096, 4096),
             (1000, 3000, 5000), (130, 520, 72)]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", MM_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matmul_matches_torch(dtype, shape):
    m, n, k = shape
    a = randn(m, k, dtype=dtype, seed=4)
    w = randn(n, k, dtype=dtype, seed=5)  # an nn.Linear weight: b = w.t(), K-major
    ref = a.float() @ w.float().t()
    tol = 2e-3 if dtype == torch.float16 else 1e-2
    for b in (w.t(), w.t().contiguous()):  # column-major, then row-major [K, N]
        c = ops.matmul(a, b)
        torch.cuda.synchronize()
        assert c.shape == (m, n) and c.dtype == dtype
        assert rel(c, ref) < tol, (shape, ops.plan_matmul(a, b)["describe"])


def test_matmul_refusals():
    a = randn(64, 100)
    with pytest.raises(ops.OpArgumentError, match="K = 100"):
        ops.matmul(a, randn(100, 64))
    with pytest.raises(ops.OpArgumentError, match="argument 'b' .*neither"):
        ops.matmul(randn(64, 64), randn(64, 128)[:, ::2])


def _fp8(x, fmt):
    amax = x.abs().max().float()
    scale = (amax / torch.finfo(fmt).max).reshape(())
    return (x / scale).to(fmt), scale.to(torch.float32)


@pytest.mark.parametrize("fmt", [torch.float8_e4m3fn, torch.float8_e5m2])
@pytest.mark.parametrize("shape", [(16, 4096, 4096), (77, 3072, 5120), (200, 2048, 4096),
                                   (1024, 1024, 2048)], ids=lambda s: "x".join(map(str, s)))
def test_scaled_mm_matches_torch_scaled_mm(fmt, shape):
    m, n, k = shape
    a, sa = _fp8(randn(m, k, dtype=torch.float32, seed=6), fmt)
    w, sb = _fp8(randn(n, k, dtype=torch.float32, seed=7), fmt)
    b = w.t()  # column-major, as torch._scaled_mm asks
    c = ops.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    ref = (a.float() * sa) @ (b.float() * sb)
    torch.cuda.synchronize()
    assert c.dtype == torch.bfloat16 and rel(c, ref) < 1e-2, ops.plan_scaled_mm(
        a, b, sa, sb)["describe"]
    if fmt == torch.float8_e4m3fn:
        ref2 = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        assert rel(c, ref2) < 1e-2


def test_scaled_mm_rowwise():
    m, n, k = 300, 1024, 1024
    x, wf = randn(m, k, dtype=torch.float32, seed=8), randn(n, k, dtype=torch.float32, seed=9)
    fmax = torch.finfo(torch.float8_e4m3fn).max
    sa = x.abs().amax(1, keepdim=True) / fmax
    sb = wf.abs().amax(1, keepdim=True).t() / fmax
    a = (x / sa).to(torch.float8_e4m3fn)
    b = (wf / sb.t()).to(torch.float8_e4m3fn).t()
    c = ops.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    ref = (a.float() * sa) @ (b.float() * sb)
    torch.cuda.synchronize()
    assert rel(c, ref) < 1e-2
    with pytest.raises(ops.OpTypeError, match="out_dtype torch.float16"):
        ops.scaled_mm(a, b, sa, sb, out_dtype=torch.float16)


def test_torch_compile_fullgraph():
    q, k, v = (randn(2, 4, 300, 128, seed=s) for s in (10, 11, 12))
    w = randn(512, 128, seed=13)

    def block(q, k, v, w):
        o = ops.attention(q, k, v, causal=True)
        return ops.matmul(o.reshape(-1, 128), w.t()).relu()

    compiled = torch.compile(block, fullgraph=True)
    got = compiled(q, k, v, w)
    torch.cuda.synchronize()
    ref = block(q, k, v, w)
    assert rel(got, ref) < 1e-3
    with pytest.raises(Exception, match="head dim D = 96"):  # reported while compiling
        x = randn(1, 2, 64, 96)
        torch.compile(lambda x: ops.attention(x, x, x), fullgraph=True)(x)


def test_cuda_graph_capture():
    q, k, v = (randn(1, 4, 500, 64, seed=s) for s in (14, 15, 16))
    a, w = randn(16, 4096, seed=17), randn(4096, 4096, seed=18)  # split-K skinny: a workspace
    ops.attention(q, k, v)
    ops.matmul(a, w.t())  # warm-up outside the capture, as torch asks
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        o = ops.attention(q, k, v)
        c = ops.matmul(a, w.t())
    q.copy_(randn(1, 4, 500, 64, seed=19))
    a.copy_(randn(16, 4096, seed=20))
    g.replay()
    torch.cuda.synchronize()
    assert rel(o, sdpa_ref(q, k, v, False, 1 / 8)[0]) < 3e-3
    assert rel(c, a.float() @ w.float().t()) < 2e-3


def test_split_kernels_reuse_their_flags_per_stream():
    """Skinny and split-K kernels count on zeroed tile flags, which they
    reset: one buffer per device and stream serves every call."""
    a, w = randn(16, 4096, seed=21), randn(4096, 4096, seed=22)
    assert ops.plan_matmul(a, w.t())["splits"] > 1
    ref = a.float() @ w.float().t()
    c1, c2 = ops.matmul(a, w.t()), ops.matmul(a, w.t())
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c3 = ops.matmul(a, w.t())
    torch.cuda.synchronize()
    assert rel(c1, ref) < 2e-3 and torch.equal(c1, c2) and torch.equal(c1, c3)


def test_repeated_calls_follow_their_arguments():
    """A call's checks, plan and launch are kept per shapes, strides, dtypes
    and devices: new tensors at other addresses, b's other layout (the same
    shape), another dtype and a side stream each get their own exact result,
    and an address TMA cannot take is refused after calls of that shape."""
    import tilec

    m, n, k = 77, 3072, 1024  # a skinny split: the workspace and tile flags too
    assert ops.plan_matmul(randn(m, k), randn(n, k).t())["splits"] > 1
    for dtype in (torch.float16, torch.bfloat16, torch.float16):
        for seed in range(2):
            a, w = randn(m, k, dtype=dtype, seed=30 + seed), randn(n, k, dtype=dtype, seed=40 + seed)
            ref = a.float() @ w.float().t()
            for b in (w.t(), w.t().contiguous(), w.t()):
                c = ops.matmul(a, b)
                torch.cuda.synchronize()
                assert c.dtype == dtype and rel(c, ref) < 1e-2, (dtype, seed, b.stride())
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = ops.matmul(a, w.t())
    side.synchronize()
    assert rel(c, ref) < 1e-2
    # The side stream's own workspace, when the plan has one (gemm_skinny_dsm's
    # splits meet in the cluster: it reads none).
    plan = ops.plan_matmul(a, w.t())
    assert ((a.device.index, side.cuda_stream) in ops._scratch) == \
        (plan["kernel"] != "gemm_skinny_dsm"), plan
    # One element past a 16-byte boundary: the runtime's tensor-map check,
    # at every call (the kept function holds no address).
    base = randn(m * k + 8, dtype=dtype, seed=50)
    ops.matmul(base[8:].view(m, k), w.t())
    with pytest.raises(tilec.LaunchError, match="align"):
        ops.matmul(base[1:1 + m * k].view(m, k), w.t())
    q = randn(1, 2, 128, 64, seed=51)
    o1 = ops.attention(q, q, q)
    q2 = randn(1, 2, 128, 64, seed=52)
    o2 = ops.attention(q2, q2, q2)
    torch.cuda.synchronize()
    assert rel(o1, sdpa_ref(q, q, q, False, 1 / 8)[0]) < 3e-3
    assert rel(o2, sdpa_ref(q2, q2, q2, False, 1 / 8)[0]) < 3e-3
    if torch.cuda.device_count() > 1:
        a1, w1 = a.to("cuda:1"), w.to("cuda:1")
        c1 = ops.matmul(a1, w1.t())
        assert c1.device == a1.device and rel(c1.to(a.device), ref) < 1e-2
