"""tilec.ops.linear's fused activations on a GPU with torch: each activation
in the epilogue of each GEMM variant a linear layer reaches (persistent,
64-row tiles, split-K with and without splits, skinny, skinny with the K
splits in a cluster), tile-multiple and ragged shapes, bf16 and f16,
against torch's F.relu / F.gelu / F.gelu(approximate="tanh") / F.silu of
the f32 linear; the edges (NaN, infinities, signed zeros, large values)
element by element against torch's own activation. SKIPs without torch or a
CUDA device."""

import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("SKIP: no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import tilec  # noqa: E402
import tilec.ops as ops  # noqa: E402

GEN = torch.Generator(device="cuda")
ACTS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "silu": F.silu,
}
# The unit roundoff of the output dtype: the fused result is act(x) of the
# f32 sum x, rounded once.
UNIT = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}


@pytest.fixture(autouse=True, scope="module")
def activation_instances():
    """The ACT != 0 instances are compiled on first use, which needs tilec;
    a GPU host without it runs them from PTX that tools/scripts/ops_ptx.py
    prebuilt (TILEC_OPS_PTX_DIR). With neither, these tests cannot run:
    a skip, or a failure where the run says the instances are there
    (TILEC_OPS_ACTIVATIONS_PREBUILT=1: a GPU bundle's ptx/ops)."""
    x = torch.ones(16, 64, device="cuda", dtype=torch.bfloat16)
    try:
        ops.linear(x, x[:64], activation="relu")
    except tilec.Error as e:
        if "needs the tilec executable" not in str(e) or \
                os.environ.get("TILEC_OPS_ACTIVATIONS_PREBUILT") == "1":
            raise
        pytest.skip("no tilec and no prebuilt activation instances "
                    "(tools/scripts/ops_ptx.py, TILEC_OPS_PTX_DIR)")


def randn(*shape, dtype, seed, scale=1.0):
    GEN.manual_seed(seed)
    return (torch.randn(*shape, device="cuda", generator=GEN) * scale).to(dtype)


def assert_within_one_rounding(y, ref, dtype, what):
    """|y - ref| <= 1.01 u |ref| + 3e-5 max|ref|: one rounding to the
    output dtype (u), plus the f32 sums' different order (ours and cuBLAS's
    f32 GEMM: each adds exact products, in another order)."""
    ref = ref.float()
    err = (y.float() - ref).abs()
    bound = 1.01 * UNIT[dtype] * ref.abs() + 3e-5 * ref.abs().max()
    worst = (err - bound).max().item()
    assert worst <= 0, f"{what}: error above the bound by {worst:.3g} (max error " \
                       f"{err.max().item():.3g})"


# (M, N, K) and the kernel the rule table picks for nn.Linear's weight on 132 SMs.
SHAPES = [
    ((2048, 2048, 1024), "gemm"),            # tile multiples (BN 256, cluster 2)
    ((512, 1024, 512), "gemm_splitk"),       # tile multiples, 2 splits
    ((600, 3000, 512), "gemm"),              # ragged M and N (BN 200, cluster 4)
    ((96, 8192, 512), "gemm_m64"),
    ((16, 4096, 4096), "gemm_skinny"),       # decode: K splits through the workspace
    ((77, 3000, 5000), "gemm_skinny_dsm"),   # the K splits in one cluster
    ((300, 264, 136), "gemm_splitk"),        # ragged everything, one split
    ((136, 256, 14336), "gemm_splitk"),      # splits: the activation after the reduction
]
# f16 at two of them (the instances are compiled per dtype).
CASES = [(torch.bfloat16, s) for s in SHAPES] + [(torch.float16, SHAPES[2]),
                                                 (torch.float16, SHAPES[4])]


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{str(c[0])[6:]}-" +
                         "x".join(map(str, c[1][0])))
def test_linear_activation_matches_torch(act, case):
    dtype, ((m, n, k), kernel) = case
    x = randn(m, k, dtype=dtype, seed=1)
    w = randn(n, k, dtype=dtype, seed=2)
    # A bias as large as the products, so that each sign of the
    # activation's input occurs: leaving it out changes the result.
    b = randn(n, dtype=dtype, seed=3, scale=k ** 0.5)
    plan = ops.plan_linear(x, w, b, activation=act)
    assert plan["kernel"] == kernel and plan["activation"] == act, plan["describe"]
    y = ops.linear(x, w, b, activation=act)
    assert y.shape == (m, n) and y.dtype == dtype
    ref = ACTS[act](F.linear(x.float(), w.float(), b.float()))
    assert_within_one_rounding(y, ref, dtype, f"{act} {plan['describe']}")
    # Without a bias, the activation of the product alone.
    assert_within_one_rounding(ops.linear(x, w, activation=act),
                               ACTS[act](x.float() @ w.float().t()), dtype, f"{act}, no bias")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("m", [16, 300])  # skinny and split-K (one split) epilogues
def test_activation_edges_match_torch_element_by_element(dtype, m):
    """Row i of x holds v_i in column 0 and w is the identity's first 8
    columns: column 0 of y is act(v_i + bias_0) exactly as the epilogue
    computes it (the products are exact), and torch's activation of the
    same f32 value, rounded once, must agree: NaN for NaN, inf for inf,
    gelu(-inf) = -inf * 0 = NaN as torch computes it, signed zeros."""
    special = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -1e-30,
                            0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 5.5, -5.5, 10.0, -10.0, 88.0, -88.0,
                            100.0, -100.0, 3e4, -3e4], device="cuda")
    k, n = 64, 64
    v = special.repeat((m + special.numel() - 1) // special.numel())[:m]
    x = torch.zeros(m, k, device="cuda", dtype=dtype)
    x[:, 0] = v.to(dtype)
    w = torch.zeros(n, k, device="cuda", dtype=dtype)
    w[:, 0] = 1.0  # every column of y is x[:, 0]
    for act, f in ACTS.items():
        y = ops.linear(x, w, activation=act)
        want = f(x[:, :1].float().expand(m, n)).to(dtype)
        # One unit in the last place: libdevice's erff / tanhf / expf are
        # CUDA's, but gelu_tanh's polynomial is written in another order
        # (and one step of float16's subnormals, 2^-24, for gelu's far left).
        atol = 2.0 ** -24 if dtype == torch.float16 else 0.0
        torch.testing.assert_close(y, want, rtol=2 * UNIT[dtype], atol=atol, equal_nan=True,
                                   msg=lambda s: f"{act}: {s}")
        assert torch.equal(y.isnan(), want.isnan()), act


def test_activation_k0_is_the_activation_of_the_bias():
    x, w = torch.zeros(5, 0, device="cuda", dtype=torch.bfloat16), \
        torch.zeros(64, 0, device="cuda", dtype=torch.bfloat16)
    b = randn(64, dtype=torch.bfloat16, seed=4, scale=3)
    for act, f in ACTS.items():
        assert torch.equal(ops.linear(x, w, b, activation=act),
                           f(b.float()).to(torch.bfloat16).expand(5, 64)), act


def test_activation_under_torch_compile_and_refusals_with_torch_tensors():
    x = randn(16, 512, dtype=torch.bfloat16, seed=5)
    w = randn(256, 512, dtype=torch.bfloat16, seed=6)
    b = randn(256, dtype=torch.bfloat16, seed=7, scale=8)

    def mlp(x, w, b):
        return ops.linear(x, w, b, activation="gelu_tanh")

    compiled = torch.compile(mlp, fullgraph=True)
    assert_within_one_rounding(compiled(x, w, b), F.gelu(F.linear(x.float(), w.float(), b.float()),
                                                         approximate="tanh"),
                               torch.bfloat16, "torch.compile")
    with pytest.raises(ops.OpArgumentError, match=r"unknown activation 'gelu_erf'.*did you mean "
                                                  r"'gelu'"):
        ops.linear(x, w, b, activation="gelu_erf")
    with pytest.raises(ops.OpTypeError, match="activation must be None or one of"):
        ops.linear(x, w, b, activation=torch.nn.GELU())
