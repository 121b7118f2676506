"""tilec.ops.linear and batched tilec.ops.matmul on a GPU with torch, against
torch.nn.functional.linear and torch.matmul on random float16 / bfloat16 data:
every GEMM variant of the rule table that a linear layer reaches (persistent
at each tile width, 64-row tiles, split-K, skinny, skinny with the K splits in
a cluster), the bias fused in each one's epilogue, tile-multiple and ragged
shapes, leading dims, a column-major weight, the batch folded into M and
launched per matrix, torch.compile and CUDA graphs, and the refusals with
torch tensors. SKIPs without torch or a CUDA device."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("SKIP: no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import tilec.ops as ops  # noqa: E402

GEN = torch.Generator(device="cuda")


def randn(*shape, dtype=torch.float16, seed=0, scale=1.0):
    GEN.manual_seed(seed)
    return (torch.randn(*shape, device="cuda", generator=GEN) * scale).to(dtype)


def rel(x, ref):
    return ((x.float() - ref.float()).norm() / ref.float().norm()).item()


def tol(dtype):
    return 2e-3 if dtype == torch.float16 else 1e-2


# (M, N, K) and the kernel the rule table picks for a K-major B on 132 SMs.
LINEAR_SHAPES = [
    ((4096, 4096, 4096), "gemm"),            # BN 256, cluster 2
    ((600, 3000, 512), "gemm"),              # BN 200, cluster 4, ragged M and N
    ((600, 4096, 512), "gemm"),              # BN 192
    ((96, 8192, 512), "gemm_m64"),
    ((16, 4096, 4096), "gemm_skinny"),       # decode: K splits through the workspace
    ((48, 3000, 512), "gemm_skinny"),        # one split, ragged N
    ((77, 3000, 5000), "gemm_skinny_dsm"),   # the K splits in one cluster
    ((320, 3000, 512), "gemm_splitk"),       # one split
    ((136, 3000, 14336), "gemm_splitk"),     # splits, BN 128
    ((136, 256, 14336), "gemm_splitk"),      # splits, BN 64
    ((300, 264, 136), "gemm_splitk"),        # ragged everything
    ((1, 8, 8), "gemm_skinny"),
]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", LINEAR_SHAPES, ids=lambda c: "x".join(map(str, c[0])))
def test_linear_matches_torch_with_the_bias_fused(dtype, case):
    (m, n, k), kernel = case
    x = randn(m, k, dtype=dtype, seed=1)
    w = randn(n, k, dtype=dtype, seed=2)
    # A bias as large as the products (|x w| ~ sqrt(K)): leaving it out, or
    # adding another column's, is an error of order 1.
    b = randn(n, dtype=dtype, seed=3, scale=k ** 0.5)
    plan = ops.plan_linear(x, w, b)
    assert plan["kernel"] == kernel and plan["bias"] == "fused", plan["describe"]
    y = ops.linear(x, w, b)
    ref = F.linear(x.float(), w.float(), b.float())
    assert y.shape == (m, n) and y.dtype == dtype
    assert rel(y, ref) < tol(dtype), plan["describe"]
    assert rel(ops.linear(x, w), x.float() @ w.float().t()) < tol(dtype)
    # Zero input: the result is the bias itself, exactly (0 + bias, rounded
    # once), in every row: each column's bias lands on its own column.
    y0 = ops.linear(torch.zeros_like(x), w, b)
    torch.cuda.synchronize()
    assert torch.equal(y0, b.expand(m, n)), plan["describe"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(1000, 3000, 5000), (16, 4096, 4096), (300, 264, 136)],
                         ids=lambda s: "x".join(map(str, s)))
def test_linear_with_a_column_major_weight(dtype, shape):
    """weight.t() contiguous (a transposed checkpoint): the MN-major kernels
    (gemm_bmn, gemm_splitk_bmn), bias fused there too."""
    m, n, k = shape
    x = randn(m, k, dtype=dtype, seed=4)
    w = randn(k, n, dtype=dtype, seed=5).t()  # [N, K], column-major
    b = randn(n, dtype=dtype, seed=6, scale=k ** 0.5)
    assert ops.plan_linear(x, w, b)["kernel"] in ("gemm_bmn", "gemm_splitk_bmn")
    assert rel(ops.linear(x, w, b), F.linear(x.float(), w.float(), b.float())) < tol(dtype)
    y0 = ops.linear(torch.zeros_like(x), w, b)
    torch.cuda.synchronize()
    assert torch.equal(y0, b.expand(m, n))


def test_linear_leading_dims_vectors_and_empty():
    w, b = randn(256, 128, seed=7), randn(256, seed=8, scale=10)
    x = randn(2, 37, 128, seed=9)
    y = ops.linear(x, w, b)
    assert y.shape == (2, 37, 256)
    assert rel(y, F.linear(x.float(), w.float(), b.float())) < 2e-3
    v = randn(128, seed=10)
    assert rel(ops.linear(v, w, b), F.linear(v.float(), w.float(), b.float())) < 2e-3
    assert ops.linear(randn(0, 128), w, b).shape == (0, 256)
    assert torch.equal(ops.linear(randn(5, 0), randn(256, 0), b), b.expand(5, 256))
    assert torch.equal(ops.linear(randn(5, 0), randn(256, 0)), torch.zeros(5, 256, device="cuda",
                                                                           dtype=torch.float16))


def test_linear_refusals_with_torch_tensors():
    x, w, b = randn(4, 64), randn(128, 64), randn(128)
    with pytest.raises(ops.OpArgumentError, match=r"'bias' is on the cpu device.*bias.cuda\(\)"):
        ops.linear(x, w, b.cpu())
    with pytest.raises(ops.OpTypeError, match="'bias' has dtype f32"):
        ops.linear(x, w, b.float())
    with pytest.raises(ops.OpTypeError, match="input is f16 and bias bf16"):
        ops.linear(x, w, b.bfloat16())
    with pytest.raises(ops.OpArgumentError, match=r"input is \[4, 64\] and weight \[128, 32\]"):
        ops.linear(x, randn(128, 32))
    with pytest.raises(ops.OpArgumentError, match=r"'bias' has shape \[64\] and weight"):
        ops.linear(x, w, randn(64))
    with pytest.raises(ops.OpArgumentError, match=r"'input' .* is not contiguous"):
        ops.linear(randn(64, 8).t(), randn(128, 64))


BMM_CASES = [  # a shape, b shape
    ((3, 128, 64), (64, 256)),              # folded into M
    ((2, 5, 100, 72), (72, 136)),           # two batch dims folded, ragged
    ((4, 100, 72), (4, 72, 136)),           # torch.bmm: per matrix
    ((2, 1, 64, 64), (1, 3, 64, 128)),      # broadcast batch dims
    ((128, 64), (3, 64, 256)),              # a broadcast over b's batch
]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", BMM_CASES, ids=lambda c: "x".join(map(str, c[0])) + "@" +
                         "x".join(map(str, c[1])))
def test_batched_matmul_matches_torch_matmul(dtype, case):
    a = randn(*case[0], dtype=dtype, seed=11)
    b = randn(*case[1], dtype=dtype, seed=12)
    ref = torch.matmul(a.float(), b.float())
    c = ops.matmul(a, b)
    assert c.shape == ref.shape and c.dtype == dtype
    assert rel(c, ref) < tol(dtype)
    bt = b.transpose(-1, -2).contiguous().transpose(-1, -2)  # column-major matrices
    assert rel(ops.matmul(a, bt), ref) < tol(dtype)


def test_batched_matmul_refusal_names_both_shapes():
    with pytest.raises(ops.OpArgumentError, match=r"a is \[2, 64, 64\] and b \[3, 64, 128\]"):
        ops.matmul(randn(2, 64, 64), randn(3, 64, 128))


def test_linear_under_torch_compile_and_cuda_graphs():
    x, w, b = randn(16, 4096, seed=13), randn(4096, 4096, seed=14), randn(4096, seed=15,
                                                                            scale=64)

    def mlp(x, w, b):
        return ops.linear(x, w, b).relu()

    compiled = torch.compile(mlp, fullgraph=True)
    assert rel(compiled(x, w, b), F.linear(x.float(), w.float(), b.float()).relu()) < 2e-3
    ops.linear(x, w, b)  # warm-up outside the capture, as torch asks
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = ops.linear(x, w, b)
    x.copy_(randn(16, 4096, seed=16))
    g.replay()
    torch.cuda.synchronize()
    assert rel(y, F.linear(x.float(), w.float(), b.float())) < 2e-3
    ops.linear(x.requires_grad_(), w, b).float().sum().backward()  # test_gpu_grad.py's
    assert rel(x.grad, w.float().sum(0).expand(16, 4096)) < 2e-3
