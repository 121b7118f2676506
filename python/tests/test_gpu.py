"""tilec from PyTorch on a GPU: the GEMM against torch.matmul, the histogram
against torch.bincount, streams, errors, torch.compile through a custom op,
and the ring on 2 GPUs through torchrun. Every test SKIPs without torch or a
CUDA device. Kernels come from tilec.compile, or from $TILEC_PTX_DIR where
there is no compiler (the GPU machine)."""

import os
import shutil
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("SKIP: no CUDA device", allow_module_level=True)

import tilec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
sys.path.insert(0, EXAMPLES)
from _samples import sample_module  # noqa: E402


def safety():
    return sample_module("tests/gpu/safety.tile", "safety.ptx")


def test_gemm_matches_torch_matmul():
    from gemm import matmul
    torch.manual_seed(0)
    for m, n, k, bn in [(512, 768, 320, 256), (2048, 2048, 1024, 256), (1024, 384, 512, 128)]:
        a = torch.randn(m, k, dtype=torch.float16, device="cuda")
        b = torch.randn(k, n, dtype=torch.float16, device="cuda")
        c = matmul(a, b.t().contiguous(), bn=bn)
        ref = torch.matmul(a.float(), b.float())
        err = ((c.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (m, n, k, err)


def test_histogram_matches_bincount():
    from histogram import histogram
    torch.manual_seed(1)
    for nbins in (256, 1000):
        x = torch.randint(-5, nbins + 5, (1 << 20,), dtype=torch.int32, device="cuda")
        got = histogram(x, nbins)
        ref = torch.bincount(x.clamp(0, nbins - 1).long(), minlength=nbins).int()
        assert torch.equal(got, ref)


def test_launch_on_the_current_torch_stream_and_an_explicit_one():
    k = safety().touch
    t = torch.zeros(1, dtype=torch.int32, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(20_000_000)  # keeps s busy: a launch on another stream would not wait
        k[1](t, 5)
    s.synchronize()
    assert t.item() == 5
    k[1](t, 6, stream=s)
    s.synchronize()
    assert t.item() == 6


def test_torch_errors():
    k = safety().touch
    with pytest.raises(tilec.LaunchError, match="host memory"):
        k[1](torch.zeros(1, dtype=torch.int32), 1)
    with pytest.raises(tilec.LaunchError, match="torch.float32"):
        k[1](torch.zeros(1, device="cuda"), 1)
    colsum = safety().colsum
    a = torch.zeros(64, 32, dtype=torch.int32, device="cuda")
    out = torch.zeros(32, dtype=torch.int32, device="cuda")
    with pytest.raises(tilec.LaunchError, match="stride"):
        colsum[1](a.t(), out)  # transposed: the inner stride is not 1


def test_tensor_parameter_from_torch_and_dlpack():
    colsum = safety().colsum
    a = torch.arange(64 * 32, dtype=torch.int32, device="cuda").reshape(64, 32)
    out = torch.zeros(64, dtype=torch.int32, device="cuda")
    colsum[2](a, out)  # CTA b sums the columns of rows 32b .. 32b + 31
    torch.cuda.synchronize()
    assert torch.equal(out, a.view(2, 32, 32).sum(1, dtype=torch.int32).flatten())

    class Dl:  # a DLPack-only producer
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    out2 = torch.zeros(64, dtype=torch.int32, device="cuda")
    colsum[2](Dl(a), Dl(out2))
    torch.cuda.synchronize()
    assert torch.equal(out2, out)


def fp8():
    return sample_module("tests/gpu/fp8.tile", "fp8_conversions.ptx")


def test_fp8_from_torch_float8_tensors():
    """torch.float8_e4m3fn / float8_e5m2 tensors are e4m3 / e5m2 data: every
    code decodes on the device as torch decodes it, and f32 data converts as
    torch converts it where both are defined (|x| <= 448: torch makes NaN past
    it, cvt.rn.satfinite the largest finite)."""
    m = fp8()
    codes = torch.arange(256, dtype=torch.int32, device="cuda").to(torch.uint8)
    q4, q5 = codes.view(torch.float8_e4m3fn), codes.view(torch.float8_e5m2)
    f4, f5, v4 = (torch.empty(256, device="cuda") for _ in range(3))
    h4 = torch.empty(256, dtype=torch.float16, device="cuda")
    b5 = torch.empty(256, dtype=torch.bfloat16, device="cuda")
    x45 = torch.empty(256, dtype=torch.float8_e5m2, device="cuda")
    m.from_fp8[2](q4, q5, f4, f5, h4, b5, x45, v4, 256)
    torch.cuda.synchronize()
    for got, want in [(f4, q4.float()), (f5, q5.float()), (v4, q4.float()),
                      (h4.float(), q4.float()), (b5.float(), q5.float()),
                      (x45.float(), q4.float().to(torch.float8_e5m2).float())]:
        assert torch.equal(got.isnan(), want.isnan())
        ok = ~want.isnan()
        assert torch.equal(got[ok], want[ok])
    n = 1 << 16
    gen = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randn(n, device="cuda", generator=gen) * 150
    x[:4] = torch.tensor([448.0, -464.0, 1e6, float("inf")], device="cuda")
    h = x.half()
    b = x.bfloat16()
    q4, hq4, bq4 = (torch.empty(n, dtype=torch.float8_e4m3fn, device="cuda") for _ in range(3))
    q5, hq5 = (torch.empty(n, dtype=torch.float8_e5m2, device="cuda") for _ in range(2))
    m.to_fp8[n // 128](x, h, b, q4, q5, hq4, hq5, bq4, n)
    torch.cuda.synchronize()
    inside = x.abs() <= 448
    for got, src in [(q4, x), (hq4, h), (bq4, b)]:
        assert torch.equal(got.view(torch.uint8)[inside],
                           src[inside].to(torch.float8_e4m3fn).view(torch.uint8))
    assert q4.view(torch.uint8)[:4].tolist() == [0x7E, 0xFE, 0x7E, 0x7E]
    assert torch.equal(q5.view(torch.uint8)[4:], x[4:].to(torch.float8_e5m2).view(torch.uint8))
    assert torch.equal(hq5.view(torch.uint8)[4:], h[4:].to(torch.float8_e5m2).view(torch.uint8))
    with pytest.raises(tilec.LaunchError, match="e5m2"):
        m.from_fp8[2](q5, q5, f4, f5, h4, b5, x45, v4, 256)


def test_custom_op_inside_torch_compile():
    k = safety().touch
    op = tilec.register_op("tilec_test::touch", k, grid=1, mutates_args=("out",))

    def f(x, t):
        op(t, 42)
        return x * 2

    x = torch.ones(4, device="cuda")
    t = torch.zeros(1, dtype=torch.int32, device="cuda")
    y = torch.compile(f)(x, t)
    torch.cuda.synchronize()
    assert t.item() == 42 and torch.equal(y, x * 2)


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="SKIP: the ring needs 2 GPUs")
def test_ring_gemm_on_two_gpus_through_torchrun():
    torchrun = shutil.which("torchrun")
    cmd = ([torchrun] if torchrun else [sys.executable, "-m", "torch.distributed.run"]) + [
        "--nproc-per-node", "2", os.path.join(EXAMPLES, "ring_gemm.py")]
    env = dict(os.environ, NCCL_NVLS_ENABLE="0")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    print(r.stdout[-3000:], r.stderr[-3000:])
    assert r.returncode == 0
    assert r.stdout.count("PASS") == 2
