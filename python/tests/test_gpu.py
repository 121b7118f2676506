"""tilec from PyTorch on a GPU: the GEMM against torch.matmul, the histogram
against torch.bincount, streams, errors, torch.compile through a custom op,
the ring on 2 GPUs through torchrun, and a PyTorch user's first day
(elementwise kernels in every dtype, softmax, attention against
scaled_dot_product_attention, CUDA graph capture, threads, side streams,
cuda:1, and the usual mistakes, each refused with its fix). Every test SKIPs without torch or a
CUDA device. Kernels come from tilec.compile, or from $TILEC_PTX_DIR where
there is no compiler (the GPU machine)."""

import functools
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


def test_a_cluster_of_16_ctas_with_the_opt_in():
    """Clusters above the portable 8 CTAs run with allow_non_portable_cluster
    (the H100/H200 take 16); without it the launch is refused before it runs."""
    kern = sample_module("samples/histogram/histogram.tile", "histogram_c16.ptx",
                         cluster=16).histogram
    assert kern.cluster == (16, 1, 1)
    torch.manual_seed(2)
    nbins, block = 1000, 512
    x = torch.randint(-5, nbins + 5, (1 << 20,), dtype=torch.int32, device="cuda")
    bins = torch.zeros(nbins, dtype=torch.int32, device="cuda")
    shared = (nbins + 15) // 16 * 4
    with pytest.raises(tilec.LaunchValueError, match=r"portable limit of 8 \(pass "
                                                     r"allow_non_portable_cluster=True\)"):
        kern[16](bins, x, x.numel(), nbins, block=block)
    clusters = kern.max_active_clusters(block=block, shared=shared,
                                        allow_non_portable_cluster=True)
    assert clusters >= 1
    kern[clusters * 16](bins, x, x.numel(), nbins, block=block, allow_non_portable_cluster=True)
    ref = torch.bincount(x.clamp(0, nbins - 1).long(), minlength=nbins).int()
    assert torch.equal(bins, ref)


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


# ------------------------------------------------------------------ a PyTorch user's first day

@functools.lru_cache(maxsize=None)
def user():
    return sample_module("python/tests/user.tile", "user.ptx",
                         defines={"T": ["f16", "bf16", "f32", "i32"]})


def rand(n, dtype, *, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(n, device="cuda", generator=g).to(dtype)
    return torch.randint(-1000, 1000, (n,), device="cuda", generator=g, dtype=dtype)


def add_kernel(t="f32"):
    return user().kernel("add", T=t)


def test_elementwise_add_in_every_dtype_through_the_type_parameter():
    n = 1000
    for dtype, t in [(torch.float16, "f16"), (torch.bfloat16, "bf16"), (torch.float32, "f32"),
                     (torch.int32, "i32")]:
        a, b = rand(n, dtype, seed=1), rand(n, dtype, seed=2)
        out = torch.empty_like(a)
        user().kernel("add", T=t)[(n + 255) // 256](out, a, b, n)
        torch.cuda.synchronize()
        assert torch.equal(out, a + b), t
        out2 = torch.empty_like(a)
        user().add[(n + 255) // 256](out2, a, b, n)  # the instance picked by the dtypes
        torch.cuda.synchronize()
        assert torch.equal(out2, a + b), t
    with pytest.raises(tilec.LaunchTypeError, match="no instance takes arrays of these dtypes"):
        x = torch.zeros(4, dtype=torch.float64, device="cuda")
        user().add[1](x, x, x, 4)


def test_softmax_sample_matches_torch_softmax():
    m = sample_module("samples/kernels/softmax.tile", "softmax.ptx")
    x = torch.randn(64, 1000, device="cuda") * 4
    out = torch.empty_like(x)
    m.softmax[64](out, x, 1000)
    torch.testing.assert_close(out, torch.softmax(x, -1), rtol=1e-4, atol=1e-6)


def test_attention_sample_matches_scaled_dot_product_attention():
    import math
    import torch.nn.functional as F
    m = sample_module("samples/attention/attention.tile", "attention_user_f16.ptx",
                      defines=["attention<f16, 128, false, 2, 176, 0>",
                               "attention<f16, 128, true, 2, 128, 0>"])
    B, H, S, D = 2, 4, 333, 128
    g = torch.Generator(device="cuda").manual_seed(5)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", generator=g).half() for _ in range(3))
    scale = 1 / math.sqrt(D)
    for causal, kb in ((False, 176), (True, 128)):
        kern = m.kernel("attention", T="f16", D=D, CAUSAL=int(causal), WGS=2, KB=kb, ORD=0)
        bm = 128
        mb = (S + bm - 1) // bm
        o = torch.full_like(q, float("nan"))
        lse = torch.empty(B, H, mb * bm, device="cuda")
        kern[(mb, H, B)](q.view(-1, D), k.view(-1, D), v.view(-1, D), o, lse, S, S, H, 1,
                         scale * math.log2(math.e))
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
        err = ((o.float() - ref).norm() / ref.norm()).item()
        assert err < 3e-3, (causal, err)
        s = (q.float() @ k.float().transpose(-1, -2)) * scale
        if causal:
            s = s.masked_fill(torch.ones(S, S, device="cuda", dtype=torch.bool).triu(1),
                              float("-inf"))
        lse_err = (lse[..., :S] - torch.logsumexp(s, -1)).abs().max().item()
        assert lse_err < 2e-3, (causal, lse_err)


def test_launches_inside_cuda_graph_capture_and_no_grad():
    k = add_kernel()
    n = 1 << 16
    a, b = rand(n, torch.float32, seed=3), rand(n, torch.float32, seed=4)
    out = torch.zeros(n, device="cuda")
    k[n // 256](out, a, b, n)  # warm-up outside the capture, as torch asks
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        k[n // 256](out, a, b, n)
    a.copy_(rand(n, torch.float32, seed=5))
    out.zero_()
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, a + b)
    x = torch.randn(n, device="cuda", requires_grad=True)
    with torch.no_grad():
        k[n // 256](out, x, b, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x.detach() + b)


def test_two_threads_on_their_own_streams():
    import threading
    k = add_kernel()
    n = 1 << 14
    data = [(rand(n, torch.float32, seed=10 + i), rand(n, torch.float32, seed=20 + i),
             torch.zeros(n, device="cuda")) for i in range(2)]
    errors = []

    def run(i):
        try:
            a, b, out = data[i]
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                for _ in range(200):
                    k[n // 256](out, a, b, n)
            s.synchronize()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for a, b, out in data:
        assert torch.equal(out, a + b)


def test_a_temporary_freed_while_a_side_stream_kernel_reads_it():
    """tmp is freed right after the launch on stream s, which is still busy:
    the launch records s on it (Tensor.record_stream), so torch's allocator
    does not hand its memory to the next allocation before the kernel ran."""
    k = add_kernel()
    n = 1 << 22
    a, b = rand(n, torch.float32, seed=6), rand(n, torch.float32, seed=7)
    out = torch.zeros(n, device="cuda")
    s = torch.cuda.Stream()
    tmp = a * 2
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)
    k[n // 256](out, tmp, b, n, stream=s)
    del tmp
    junk = torch.full((n,), 7.0, device="cuda")  # would take tmp's block
    s.synchronize()
    torch.cuda.synchronize()
    assert torch.equal(out, a * 2 + b)
    del junk


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="SKIP: needs 2 GPUs")
def test_on_cuda_1_and_across_devices():
    k = add_kernel()
    n = 4096
    a, b = (rand(n, torch.float32, seed=8).to("cuda:1"), rand(n, torch.float32).to("cuda:1"))
    out = torch.empty_like(a)
    k[n // 256](out, a, b, n)
    torch.cuda.synchronize(1)
    assert torch.equal(out, a + b)
    with pytest.raises(tilec.LaunchError, match=r"is on device 0 but argument 0 is on device 1"):
        k[n // 256](out, a, b.to("cuda:0"), n)


def test_a_users_mistakes_with_torch_tensors():
    m = user()
    k = m.kernel("add", T="f32")
    n = 1024
    a, b = rand(n, torch.float32, seed=1), rand(n, torch.float32, seed=2)
    out = torch.empty_like(a)
    L = tilec.LaunchError
    with pytest.raises(L, match=r"kernel 'add\$Tf32': argument 1 \('a', ptr<f32, global>\) is in "
                                r"host memory.*\.cuda\(\)"):
        k[4](out, a.cpu(), b, n)
    with pytest.raises(L, match=r"has dtype torch.float16 .* \.to\(torch.float32\)"):
        k[4](out, a.half(), b, n)
    with pytest.raises(L, match=r"has dtype torch.int64 .* \.to\(torch.int32\)"):
        m.kernel("add", T="i32")[4](out.int(), a.long(), b.int(), n)
    a2 = a.view(32, 32)
    with pytest.raises(L, match=r"argument 1 \('a', ptr<f32, global>\) is not contiguous "
                                r"\(shape \(32, 32\), strides \(1, 32\)"):
        k[4](out, a2.t(), b, n)
    with pytest.raises(L, match="is not contiguous"):
        k[4](out, a2[:, :16], b, n // 2)
    with pytest.raises(L, match="is not contiguous"):
        k[4](out, a[:1].expand(n), b, n)
    o1 = torch.empty(n - 1, device="cuda")
    k[4](o1, a[1:], b[1:], n - 1)  # a storage offset, contiguous: fine
    torch.cuda.synchronize()
    assert torch.equal(o1, a[1:] + b[1:])
    with pytest.raises(L, match=r"argument 3 \('n', i32\) takes a Python int, not a Tensor.*"
                                r"\.item\(\)"):
        k[4](out, a, b, torch.tensor(n))
    z = torch.tensor(1.5, device="cuda")  # 0-d: one element
    o0 = torch.empty((), device="cuda")
    k[1](o0, z, z, 1)
    torch.cuda.synchronize()
    assert o0.item() == 3.0
    e = torch.empty(0, device="cuda")
    with pytest.raises(ValueError, match=r"kernel 'add\$Tf32': grid must be at least 1.*skip"):
        k[(e.numel() + 255) // 256](e, e, e, 0)
    if e.data_ptr() == 0:
        with pytest.raises(L, match="has no memory"):
            k[1](e, e, e, 0)
    with pytest.raises(L, match=r"takes 4 arguments \(out: ptr<f32, global>, a: ptr<f32, "
                                r"global>, b: ptr<f32, global>, n: i32\), 3 given"):
        k[4](out, a, b)
    with pytest.raises(L, match=r"takes an integer, but 1024.0 is a float"):
        k[4](out, a, b, float(n))
    with pytest.raises(L, match=r"2147483648 does not fit i32"):
        k[4](out, a, b, 2 ** 31)
    with pytest.raises(TypeError, match=r"grid must be an int .*//"):
        k[n / 256]
    with pytest.raises(L, match=r"grid \(2147483648, 1, 1\) exceeds the device's maximum"):
        k[2 ** 31](out, a, b, n)
    with pytest.raises(L, match=r"block of 2048 threads|block \(2048, 1, 1\) exceeds"):
        m.scale[1](out, a, 2.0, n, block=2048)
    with pytest.raises(L, match=r"kernel 'reverse_smem': .*shared memory per block exceed"):
        m.reverse_smem[1](torch.empty(1 << 20, dtype=torch.int32, device="cuda"), 1 << 20)
    k[4](out=out, a=a, b=b, n=n)  # by keyword
    half = torch.empty_like(a)
    m.scale[8](half, b, 0.5, n, block=128)  # no threads(...): block= at launch
    r = torch.empty(1000, dtype=torch.int32, device="cuda")
    m.reverse_smem[1](r, 1000)  # 4000 bytes of dynamic shared memory, from the kernel info
    torch.cuda.synchronize()
    assert torch.equal(out, a + b)
    assert torch.equal(half, b * 0.5)
    assert torch.equal(r, torch.arange(999, -1, -1, dtype=torch.int32, device="cuda"))
