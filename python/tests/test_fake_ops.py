"""tilec.ops without a GPU (ctest python.fakedriver): the instance each call
picks is the samples' C++ hosts' choice (the rule tables compiled into the
extension), the launch it makes (kernel, grid, block, cluster) against the
fake libcuda.so.1, and every refusal naming the operation, the argument and
the fix. Arrays are tilec.DeviceArray and __cuda_array_interface__ objects
(torch's own are in test_gpu_ops.py)."""

import ctypes
import os

import pytest

import tilec
import tilec.ops as ops
from tilec import _ops_kernels
from test_fake_driver import CAI, last_config, last_kernel, probe  # noqa: F401
from test_fake_driver import fresh_cache  # noqa: F401  (the fixture)


@pytest.fixture(autouse=True)
def fresh_kernels():
    _ops_kernels._kernels.clear()
    _ops_kernels._modules.clear()
    _ops_kernels._clusters.clear()
    clear_calls()
    yield


def clear_calls():
    for table in (ops._attention_calls, ops._matmul_calls, ops._scaled_calls):
        table.clear()


def arr(shape, dtype, device=0):
    return tilec.empty(tuple(shape), dtype, device=device)


# ------------------------------------------------------------------ the choice


def test_attention_plans_are_the_hosts_choice():
    """attention_common.h's rule (samples/attention/README.md): WGS, the
    kernel, KB and ORD per (D, causal, Sq); the grid of attn::launchTile."""
    p = tilec._tilec._attention_plan
    a = p("f16", 64, True, 2048, 16, 4, 132)  # causal D 64 2k: three warpgroups, CTA order 1
    assert (a["kernel"], dict(a["args"])) == ("attention", dict(D=64, CAUSAL=1, WGS=3, KB=128,
                                                                ORD=1))
    assert a["define"] == "attention<f16, 64, true, 3, 128, 1>"
    assert a["grid"] == (11, 16, 4) and a["block_m"] == 192 and a["ptx"] == "attention_f16.ptx"
    a = p("bf16", 64, True, 1024, 2, 1, 132)  # short causal: two warpgroups
    assert dict(a["args"])["WGS"] == 2 and a["grid"] == (8, 2, 1)
    a = p("f16", 128, True, 4096, 16, 4, 132)  # causal D 128 2k..8k: the persistent kernel
    assert a["kernel"] == "attention_persistent" and a["grid"] == (132, 1, 1)
    assert a["define"] == "attention_persistent<f16, 128, true, 2>"
    a = p("f16", 128, False, 4096, 16, 4, 132)  # D 128 without the mask: 176 keys per stage
    assert dict(a["args"])["KB"] == 176 and not a["persistent"]
    a = p("bf16", 256, False, 333, 3, 2, 132)
    assert dict(a["args"]) == dict(D=256, CAUSAL=0, WGS=2, KB=80, ORD=0)
    assert a["grid"] == (3, 3, 2)


def test_attention_rule_parts_for_forced_instances():
    """samples/attention/bench.py reads the rule's parts here (no copy of it)."""
    r = tilec._tilec._attention_rule
    assert r(64, True, 2048) == dict(wgs=3, persistent=False, keys_per_stage=128, cta_order=1)
    assert r(64, True, 2048, 2)["cta_order"] == 0  # forced to two warpgroups: order 0
    assert r(128, True, 1024)["cta_order"] == 1 and r(128, False, 1024)["keys_per_stage"] == 176
    assert r(64, True, 4096)["persistent"] and r(64, True, 4096)["wgs"] == 2
    assert r(256, False, 100) == dict(wgs=2, persistent=False, keys_per_stage=80, cta_order=0)


def test_gemm_plans_are_the_rule_table():
    """gemm::ruleChoice (samples/gemm/README.md, "Choosing the kernel")."""
    p = tilec._tilec._gemm_plan
    g = p("f16", 4096, 4096, 4096, True, 132)
    assert g["variant"] == "persistent" and g["kernel"] == "gemm" and g["ptx"] == "gemm_f16_mc.ptx"
    assert g["persistent_units"] == 16 * 16
    g = p("bf16", 4096, 4096, 4096, False, 132)  # B [K, N] row-major: gemm_bmn
    assert g["kernel"] == "gemm_bmn" and g["ptx"] == "gemm_bf16_mc.ptx"
    g = p("f16", 256, 4096, 4096, True, 132)  # rule 0: 64-row tiles
    assert g["kernel"] == "gemm_m64" and g["rows"] == 64
    g = p("f16", 77, 3000, 5000, True, 132)  # rule 2: the K splits in one cluster
    assert g["kernel"] == "gemm_skinny_dsm" and g["ptx"] == "gemm_skinny_f16.ptx"
    assert g["define"].startswith("gemm_skinny_dsm<f16, 80, ")
    g = p("f16", 16, 4096, 4096, True, 132)  # rule 5: skinny, splits through the workspace
    assert g["kernel"] == "gemm_skinny" and g["splits"] > 1
    assert g["workspace_floats"] == g["splits"] * g["flags"] * 16 * 128
    assert g["grid"] == (g["flags"], g["splits"], 1)
    g = p("f16", 1000, 3000, 5000, True, 132)
    assert g["variant"] == "persistent" and dict(g["args"])["BN"] in (192, 200, 224)
    assert tilec._tilec._gemm_alignment_problem(64, 64, 100, True).startswith("K = 100")


def test_fp8_plans_are_the_hosts_choice():
    p = tilec._tilec._fp8_plan
    f = p("e4m3", 4096, 4096, 4096, False, 132)
    assert (f["kernel"], dict(f["args"])) == ("gemm_fp8_sw", {"BN": 256})
    assert f["ptx"] == "gemm_fp8.ptx" and f["persistent_units"] == 16 * 16
    f = p("e5m2", 16, 4096, 4096, False, 132)
    assert f["kernel"] == "gemm_fp8_skinny_dsm" and f["T"] == "e5m2"
    assert f["ptx"] == "gemm_fp8_small.ptx" and f["source"].endswith("gemm_fp8_small.tile")
    f = p("e4m3", 200, 4096, 4096, False, 132)
    assert f["kernel"] in ("gemm_fp8_tile", "gemm_fp8_tile_k2", "gemm_fp8_skinny_dsm")
    f = p("e4m3", 4096, 4096, 4096, True, 132)
    assert f["kernel"] == "gemm_fp8_rowcol"


# ------------------------------------------------------------------ launches


def test_attention_launches_the_planned_instance():
    probe()
    q = arr((2, 4, 333, 128), "f16")
    kv = arr((2, 2, 333, 128), "f16")  # grouped-query: 2 query heads per K/V head
    o, lse = ops.attention(q, kv, kv, causal=True, scale=0.1, return_lse=True)
    plan = ops.plan_attention(q, kv, kv, causal=True)
    assert o.shape == (2, 4, 333, 128) and o.dtype == "f16"
    assert lse.shape == (2, 4, 384) and lse.dtype == "f32"  # whole 128-row CTAs
    assert last_kernel() == "attention$Tf16$D128$CAUSAL1$WGS2$KB128$ORD1"
    cfg = last_config()
    assert cfg["grid"] == plan["grid"] == (3, 4, 2) and cfg["block"] == (384, 1, 1)


def test_a_repeated_call_reuses_its_checks_plan_and_kernel(monkeypatch):
    probe()
    plans = []
    real = tilec._tilec._attention_plan
    monkeypatch.setattr(tilec._tilec, "_attention_plan",
                        lambda *a: plans.append(a) or real(*a))
    clear_calls()
    q = arr((1, 2, 100, 64), "f16")
    ops.attention(q, q, q, causal=True)
    ops.attention(q, q, q, causal=True)
    ops.attention(arr((1, 2, 100, 64), "f16"), q, q, causal=True)  # same shapes: a hit
    assert len(plans) == 1
    ops.attention(q, q, q, causal=False)  # another option: another entry
    ops.attention(q, q, q, causal=True, scale=0.5)
    assert len(plans) == 3
    with pytest.raises(ops.OpTypeError):  # a refused call is not remembered
        ops.attention(q, q, q, causal=1)
    with pytest.raises(ops.OpTypeError):
        ops.attention(q, q, q, causal=1)


def encoded_since(first):
    """The addresses of the tensor maps encoded from call `first` on."""
    p = probe()
    p.probe_encode_address.restype = ctypes.c_ulonglong
    return [p.probe_encode_address(i) for i in range(first, p.probe_encode_count())]


def test_a_calls_function_is_kept_per_shapes_dtypes_and_devices(monkeypatch):
    """The function a call makes (checks, plan, kernel, grid, outputs) is kept
    per shapes, strides, dtypes and devices: arrays at other addresses reuse
    it and launch with their own addresses; another shape, dtype, layout or
    device makes another."""
    p = probe()
    made = []
    real = ops._gemm_entry
    monkeypatch.setattr(ops, "_gemm_entry", lambda *a: made.append(1) or real(*a))
    def ran(a, b, dtype):  # the last launch is the plan's kernel for these arrays
        return last_kernel().startswith(ops.plan_matmul(a, b)["kernel"] + "$T" + dtype)

    a, b = arr((256, 128), "f16"), arr((128, 512), "f16")
    c = ops.matmul(a, b)
    assert len(made) == 1 and ran(a, b, "f16")
    first = p.probe_encode_count()
    a2 = arr((256, 128), "f16")
    c2 = ops.matmul(a2, b)
    assert len(made) == 1 and c2.ptr != c.ptr
    assert {a2.ptr, c2.ptr} <= set(encoded_since(first))  # the new addresses, mapped
    ops.matmul(arr((320, 128), "f16"), b)  # another M
    assert len(made) == 2
    a16, b16 = arr((256, 128), "bf16"), arr((128, 512), "bf16")
    ops.matmul(a16, b16)  # another dtype
    assert len(made) == 3 and ran(a16, b16, "bf16")
    # b column-major (other strides, the same shape): the K-major kernel. An
    # array without a key (__cuda_array_interface__) makes its function per call.
    w = arr((512, 128), "f16")
    bt = CAI(w.ptr, (128, 512), "<f2", strides=(2, 128 * 2))
    ops.matmul(a, bt)
    ops.matmul(a, bt)
    assert len(made) == 5 and ran(a, bt, "f16") and not ran(a, b, "f16")
    ops.matmul(a, b)
    assert len(made) == 5 and ran(a, b, "f16")
    loads = p.probe_module_loads()
    p.probe_set_device_count(2)
    try:
        c1 = ops.matmul(arr((256, 128), "f16", device=1), arr((128, 512), "f16", device=1))
        assert len(made) == 6 and c1.device == 1
        assert p.probe_module_loads() == loads + 1  # the kernel, loaded on device 1
        ops.matmul(a, b)
        assert len(made) == 6
    finally:
        p.probe_set_device_count(1)


def test_attention_compiles_the_instance_when_no_ptx_has_it(monkeypatch, tmp_path):
    probe()
    monkeypatch.setenv("TILEC_OPS_PTX_DIR", str(tmp_path))
    monkeypatch.delenv("TILEC_PTX_DIR", raising=False)
    from tilec import _build_config
    monkeypatch.setattr(_build_config, "SAMPLE_PTX_DIR", str(tmp_path), raising=False)
    q = arr((1, 2, 100, 64), "bf16")
    ops.attention(q, q, q)
    assert last_kernel() == "attention$Tbf16$D64$CAUSAL0$WGS3$KB128$ORD0"
    assert last_config()["block"] == (512, 1, 1)
    monkeypatch.setenv("TILEC", str(tmp_path / "no-tilec"))
    _ops_kernels._kernels.clear()
    with pytest.raises(tilec.Error, match=r"tilec.ops.attention: kernel attention<bf16, 64, "
                                          r"true, 2, 128, 0> is in no prebuilt PTX.*sample_ptx"):
        ops.attention(q, q, q, causal=True)


def test_attention_refusals_name_the_argument():
    q = arr((1, 2, 64, 64), "f16")
    with pytest.raises(ops.OpArgumentError, match=r"argument 'k' has shape \[2, 64, 64\]"):
        ops.attention(q, arr((2, 64, 64), "f16"), q)
    with pytest.raises(ops.OpTypeError, match=r"argument 'q' has dtype f32.*\.half\(\)"):
        f = arr((1, 2, 64, 64), "f32")
        ops.attention(f, f, f)
    with pytest.raises(ops.OpTypeError, match="q, k and v have dtypes f16, bf16, f16"):
        ops.attention(q, arr((1, 2, 64, 64), "bf16"), q)
    with pytest.raises(ops.OpArgumentError, match="head dim D = 96 .* 64, 128 or 256"):
        x = arr((1, 2, 64, 96), "f16")
        ops.attention(x, x, x)
    with pytest.raises(ops.OpArgumentError, match="q has 3 heads and k, v 2"):
        ops.attention(arr((1, 3, 64, 64), "f16"), q, q)
    with pytest.raises(ops.OpArgumentError, match=r"v has shape .*must be equal"):
        ops.attention(q, q, arr((1, 2, 32, 64), "f16"))
    # [B, S, H, D] memory seen as [B, H, S, D] (a transpose): TMA rows cannot describe it.
    base = arr((1, 64, 2, 64), "f16")
    bshd = CAI(base.ptr, (1, 2, 64, 64), "<f2", strides=(2 * 64 * 2 * 64, 2 * 64, 2 * 2 * 64, 2))
    with pytest.raises(ops.OpArgumentError, match=r"argument 'q' .* is not contiguous.*"
                                                  r"q.contiguous\(\)"):
        ops.attention(bshd, q, q)
    with pytest.raises(ops.OpTypeError, match="causal must be a bool"):
        ops.attention(q, q, q, causal="yes")
    with pytest.raises(ops.OpTypeError, match="scale must be a finite float"):
        ops.attention(q, q, q, scale=float("nan"))
    with pytest.raises(ops.OpTypeError, match="argument 'q' is a list"):
        ops.attention([1], q, q)


def test_matmul_launches_each_variant():
    probe()
    a, b = arr((2048, 320), "f16"), arr((320, 2048), "f16")  # b row-major [K, N]: gemm_bmn
    c = ops.matmul(a, b)
    assert c.shape == (2048, 2048) and last_kernel().startswith("gemm_bmn$Tf16$BN")
    plan = ops.plan_matmul(a, b)
    assert plan["variant"] == "persistent"
    # The persistent grid: whole clusters of 2 CTAs, at most one per work unit.
    grid = last_config()["grid"]
    assert grid[0] % 2 == 0 and 2 <= grid[0] <= 2 * plan["persistent_units"] and grid[1:] == (1, 1)
    a, b = arr((512, 320), "f16"), arr((320, 768), "f16")  # few tiles: split-K
    ops.matmul(a, b)
    plan = ops.plan_matmul(a, b)
    assert plan["variant"] == "splitk" and last_kernel() == "gemm_splitk_bmn$Tf16$BN128$ACT0"
    assert last_config()["grid"] == plan["grid"] == (plan["flags"], plan["splits"], 1)
    # b column-major (b.t() of an [N, K] weight): K-major, the skinny kernel for M = 16.
    w = arr((4096, 1024), "bf16")
    bt = CAI(w.ptr, (1024, 4096), "<V2", strides=(2, 1024 * 2))
    bt.dtype = "bf16"
    x = arr((16, 1024), "bf16")
    c = ops.matmul(x, bt)
    plan = ops.plan_matmul(x, bt)
    assert plan["kernel"].startswith("gemm_skinny") and c.shape == (16, 4096)
    assert last_kernel().startswith(plan["kernel"] + "$Tbf16$MT")
    assert last_config()["grid"] == plan["grid"]


def test_matmul_refusals_name_the_argument():
    a = arr((64, 100), "f16")
    with pytest.raises(ops.OpArgumentError, match=r"64x64x100 rejected: K = 100.*multiples of 8"):
        ops.matmul(a, arr((100, 64), "f16"))
    with pytest.raises(ops.OpArgumentError, match=r"a is \[64, 100\] and b \[64, 64\]"):
        ops.matmul(a, arr((64, 64), "f16"))
    with pytest.raises(ops.OpTypeError, match=r"argument 'a' has dtype e4m3.*scaled_mm"):
        ops.matmul(arr((64, 64), "e4m3"), arr((64, 64), "e4m3"))
    with pytest.raises(ops.OpTypeError, match="a is f16 and b bf16"):
        ops.matmul(arr((64, 64), "f16"), arr((64, 64), "bf16"))
    with pytest.raises(ops.OpArgumentError, match=r"argument 'a' has shape \[64\]: .*"
                                                  r"matrices and batches of them"):
        ops.matmul(arr((64,), "f16"), arr((64, 64), "f16"))
    base = arr((64, 128), "f16")
    with pytest.raises(ops.OpArgumentError, match=r"argument 'b' .*neither row-major"):
        ops.matmul(arr((64, 64), "f16"), CAI(base.ptr, (64, 64), "<f2", strides=(256, 4)))
    assert ops.matmul(arr((0, 64), "f16"), arr((64, 64), "f16")).shape == (0, 64)


def test_scaled_mm_follows_torch_scaled_mm():
    probe()
    a = arr((4096, 256), "e4m3")
    w = arr((1024, 256), "e4m3")  # b = w.t(): [K, N] column-major, as torch._scaled_mm asks
    b = CAI(w.ptr, (256, 1024), "|V1", strides=(1, 256))
    b.dtype = "e4m3"
    s = arr((1,), "f32")
    c = ops.scaled_mm(a, b, s, s, out_dtype="bf16")
    assert c.shape == (4096, 1024) and c.dtype == "bf16"
    assert last_kernel() == "gemm_fp8_sw$Te4m3$BN256"
    with pytest.raises(ops.OpTypeError, match="out_dtype None is not supported.*bfloat16"):
        ops.scaled_mm(a, b, s, s)
    with pytest.raises(ops.OpArgumentError, match="bias is not supported"):
        ops.scaled_mm(a, b, s, s, bias=s, out_dtype="bf16")
    with pytest.raises(ops.OpArgumentError, match=r"argument 'b' .*must be column-major.*"
                                                  r"b.t\(\).contiguous\(\).t\(\)"):
        ops.scaled_mm(a, arr((256, 1024), "e4m3"), s, s, out_dtype="bf16")
    with pytest.raises(ops.OpTypeError, match="a is e4m3 and b e5m2"):
        b5 = CAI(w.ptr, (256, 1024), "|V1", strides=(1, 256))
        b5.dtype = "e5m2"
        ops.scaled_mm(a, b5, s, s, out_dtype="bf16")
    with pytest.raises(ops.OpArgumentError, match=r"scale_a \[2\] and scale_b \[1\]"):
        ops.scaled_mm(a, b, arr((2,), "f32"), s, out_dtype="bf16")
    with pytest.raises(ops.OpTypeError, match="argument 'scale_b' has dtype f16"):
        ops.scaled_mm(a, b, s, arr((1,), "f16"), out_dtype="bf16")
    with pytest.raises(ops.OpTypeError, match=r"argument 'a' has dtype f16.*float8_e4m3fn"):
        ops.scaled_mm(arr((64, 256), "f16"), b, s, s, out_dtype="bf16")


def test_tilec_ops_is_an_attribute_of_the_package():
    assert tilec.ops is ops
    assert os.path.basename(ops.__file__) == "ops.py"
    # Its sections live in modules of their own (_ops_attention, _ops_calls):
    # every public name is still tilec.ops's, and so are the call tables.
    names = {}
    exec("from tilec.ops import *", names)
    assert set(ops.__all__) <= set(names)
    assert names["attention"] is ops.attention and names["plan_attention"] is ops.plan_attention
    from tilec import _ops_attention, _ops_calls
    assert ops._attention_calls is _ops_attention._attention_calls
    assert ops._scratch is _ops_calls._scratch


def test_raw_byte_arrays_take_their_type_from_a_dtype_attribute():
    """No __cuda_array_interface__ typestr names bfloat16 or fp8 ("<V2", "|V1"
    are raw bytes): an array whose `dtype` names one is taken as that type,
    one without is refused with its typestr (by a kernel and by tilec.ops)."""
    probe()
    user = os.path.join(os.path.dirname(os.path.abspath(__file__)), "user.tile")
    add = tilec.compile(user, defines={"T": ["bf16"]}).kernel("add", T="bf16")
    a = arr((256,), "bf16")
    raw = CAI(a.ptr, (256,), "<V2")
    with pytest.raises(tilec.LaunchTypeError, match="<V2"):
        add[1](raw, a, a, 256)
    with pytest.raises(ops.OpTypeError, match="argument 'b' has dtype <V2"):
        ops.matmul(arr((64, 256), "bf16"), CAI(a.ptr, (256, 1), "<V2"))
    raw.dtype = "bfloat16"
    add[1](raw, a, a, 256)
    assert last_kernel() == "add$Tbf16"
    q = CAI(arr((1,), "e4m3").ptr, (1,), "|V1")
    q.dtype = "e5m2"
    with pytest.raises(tilec.LaunchTypeError, match="e5m2"):
        add[1](q, a, a, 1)
