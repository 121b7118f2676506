"""The tilec package without a GPU: compile, cache, load, argument checks and
errors, launched through the runtime against the fake libcuda.so.1 of
tests/unit/runtime/fakedriver (ctest python.fakedriver sets LD_LIBRARY_PATH
to it and TILEC_FAKE_PROBE to a small C face of its state). No torch: arrays
are tilec.DeviceArray, objects with __cuda_array_interface__, numpy's
DLPack, or raw addresses."""

import ctypes
import os
import re

import numpy as np
import pytest

import tilec
from tilec import _compile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAFETY = os.path.join(ROOT, "tests", "gpu", "safety.tile")
PEER = os.path.join(ROOT, "tests", "gpu", "peer.tile")

_probe = None


def probe():
    global _probe
    if _probe is None:
        path = os.environ.get("TILEC_FAKE_PROBE")
        if not path:
            pytest.skip("TILEC_FAKE_PROBE is not set: run through ctest (python.fakedriver)")
        _probe = ctypes.CDLL(path)
        _probe.probe_last_arg.restype = ctypes.c_long
    tilec.driver_available()  # the runtime dlopens libcuda.so.1 at first use
    if not _probe.probe_is_fake():
        pytest.skip("libcuda.so.1 is not the fake driver")
    return _probe


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    """Each test compiles into its own cache folder, with an empty memory cache."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    _compile._memory_cache.clear()
    yield
    if _probe is not None:  # no recording past this test's kernels' parameters
        _probe.probe_record_args(None, 0)
        _probe.probe_clear_launches()


def last_config():
    out = (ctypes.c_uint * 11)()
    stream = ctypes.c_uint64()
    assert probe().probe_last_config(out, ctypes.byref(stream))
    return dict(grid=tuple(out[0:3]), block=tuple(out[3:6]), cluster=tuple(out[6:9]),
                shared=out[9], has_cluster=bool(out[10]), stream=stream.value)


def last_kernel():
    buf = ctypes.create_string_buffer(256)
    assert probe().probe_last_kernel(buf, 256)
    return buf.value.decode()


def record(*sizes):
    arr = (ctypes.c_size_t * len(sizes))(*sizes)
    probe().probe_record_args(arr, len(sizes))


def last_arg(i, size):
    buf = (ctypes.c_ubyte * size)()
    n = probe().probe_last_arg(i, buf, size)
    assert n == size
    return bytes(buf)


def safety():
    return tilec.compile(SAFETY)


# ------------------------------------------------------------------ compile


def test_fake_driver_is_loaded():
    probe()
    assert tilec.driver_available()
    assert tilec.device_count() == 1


def test_compile_lists_kernels_and_signatures():
    m = safety()
    assert m.names == ["fill1024", "colsum", "touch"]
    assert m.touch.params == [("out", "ptr<i32, global>"), ("value", "i32")]
    assert m.touch.block == (32, 1, 1)
    assert m.colsum.params == [("A", "tensor<i32>[M, 32]"), ("out", "ptr<i32, global>")]
    assert m.info["arch"] == "sm_90a"


def test_compile_cache_memory_and_disk(tmp_path):
    m = safety()
    assert m.compiled  # a miss: tilec ran
    assert tilec.compile(SAFETY) is m  # the same source and options: the same module
    _compile._memory_cache.clear()  # as a new process: the disk cache answers
    m2 = tilec.compile(SAFETY)
    assert m2 is not m and not m2.compiled
    assert m2.ptx == m.ptx
    files = os.listdir(os.path.join(str(tmp_path / "cache"), "modules"))
    assert sorted(f.split(".", 1)[1] for f in files) == ["info.json", "ptx"]
    # Other options are another entry.
    m3 = tilec.compile(SAFETY, opt_level=2)
    assert m3.compiled


def test_compile_cache_off(monkeypatch):
    monkeypatch.setenv("TILEC_NO_CACHE", "1")
    m = safety()
    assert tilec.compile(SAFETY) is not m
    assert tilec.compile(SAFETY).compiled


def test_compile_source_text_and_defines():
    src = ("kernel k<N: i32>(out: ptr<i32, global>) threads(32) {\n"
           "  out[0] = N\n"
           "}\n")
    m = tilec.compile(src, defines={"N": [1, 2]})
    assert sorted(m.names) == ["k$N1", "k$N2"]
    assert m.kernel("k", N=2).name == "k$N2"
    assert m["k$N1"].template_args == {"N": 1}
    with pytest.raises(AttributeError, match="several instances"):
        m.k
    with pytest.raises(AttributeError, match="no instance"):
        m.kernel("k", N=3)
    with pytest.raises(AttributeError, match="no kernel 'nope'"):
        m.nope
    assert not hasattr(m, "nope")


def test_lookups_by_name_say_what_exists_and_what_is_nearest():
    """Every lookup by name that fails is the package's error, naming what
    there is and the nearest: instances, compile-time parameters, launch
    keywords, dtypes."""
    m = tilec.compile("kernel k<N: i32>(out: ptr<i32, global>) threads(32) {\n"
                      "  out[0] = N\n}\n", defines={"N": [1, 2]})
    with pytest.raises(tilec.KernelNotFoundError,
                       match=r"kernel 'k' has several instances \(k\$N1, k\$N2\)") as e:
        m.kernel("k")
    assert e.value.available == ["k$N1", "k$N2"]
    with pytest.raises(tilec.KernelNotFoundError,
                       match=r"kernel 'k' has no compile-time parameter 'n' \(its parameters: "
                             r"N\); did you mean 'N'\?") as e:
        m.kernel("k", n=1)
    assert e.value.suggestions == ["N"]
    k = safety().touch
    a = tilec.empty(4, "i32")
    with pytest.raises(TypeError, match=r"has no parameter 'vlaue'.*; did you mean 'value'\?"):
        k[1](a, vlaue=1)
    with pytest.raises(TypeError, match=r"has no parameter 'steam'.*; did you mean 'stream'\?"):
        k[1](a, 1, steam=None)
    with pytest.raises(AttributeError, match=r"no attribute 'complie'; did you mean 'compile'"):
        tilec.complie
    with pytest.raises(ValueError, match=r"unknown dtype 'flaot32'.*; did you mean 'float32'"):
        tilec.empty(4, "flaot32")
    with pytest.raises(ValueError, match=r"unknown dtype 'torch.bfloat61'.*did you mean 'bfloat16'"):
        tilec.empty(4, "torch.bfloat61")


def test_unknown_kernel_is_a_key_error():
    """module["nope"] / module.kernel("nope") is a lookup that failed (a
    KeyError naming the nearest kernels), not a CUDA error."""
    m = tilec.compile("kernel fill(p: ptr<i32, global>) threads(32) {\n  p[0] = 1\n}\n"
                      "kernel fold(p: ptr<i32, global>) threads(32) {\n  p[0] = 2\n}\n")
    for lookup in (lambda: m["fil"], lambda: m.kernel("fil"), lambda: m.fil):
        with pytest.raises(KeyError) as e:
            lookup()
        assert isinstance(e.value, tilec.KernelNotFoundError)
        assert not isinstance(e.value, tilec.CudaError)
        assert str(e.value).startswith("the module has no kernel 'fil' (it has fill, fold)")
        assert "did you mean 'fill'" in str(e.value)
        assert e.value.suggestions[0] == "fill" and e.value.available == ["fill", "fold"]
    with pytest.raises(KeyError, match="no kernel 'zzz'.*it has fill, fold\\)$"):
        m["zzz"]  # nothing near: no suggestion


def test_options_do_not_repeat_the_keywords():
    """-O, --arch and --cluster in options= would repeat what opt_level=,
    arch= and cluster= pass to tilec (which refuses two values of a flag)."""
    for opts, keyword in ((["-O0"], "opt_level"), (["--arch=sm_90"], "arch"),
                          (["--O=2"], "opt_level")):
        with pytest.raises(ValueError, match=f"which {keyword}= gives"):
            tilec.compile(SAFETY, options=opts)
    with pytest.raises(ValueError, match="which cluster= gives"):
        tilec.compile(SAFETY, cluster=2, options=["--cluster=4"])


def test_bool_defines_are_true_false():
    """A Python bool defines an i1 parameter as true/false (an integer is no
    i1, and a bool no integer, as in the source)."""
    src = ("kernel k<B: i1, N: i32>(out: ptr<i32, global>) threads(32) {\n"
           "  if const B { out[0] = N }\n"
           "}\n")
    m = tilec.compile(src, defines={"B": [True, False], "N": 3})
    assert sorted(m.names) == ["k$B0$N3", "k$B1$N3"]
    assert m.kernel("k", B=True, N=3).name == "k$B1$N3"
    with pytest.raises(tilec.CompileError, match="'true' is an i1 value, not i32"):
        tilec.compile(src, defines={"B": True, "N": True})


def test_compile_type_parameters():
    src = ("kernel k<T: type, N: i32>(out: ptr<T, global>) threads(32) {\n"
           "  out[0] = N as T\n"
           "}\n")
    m = tilec.compile(src, defines={"T": ["f16", "f32"], "N": 1})
    assert sorted(m.names) == ["k$Tf16$N1", "k$Tf32$N1"]
    assert m.kernel("k", T="f32", N=1).name == "k$Tf32$N1"
    assert m["k$Tf16$N1"].template_args == {"T": "f16", "N": 1}
    with pytest.raises(AttributeError, match="several instances"):
        m.kernel("k", N=1)  # the type left free: two instances match
    one = tilec.compile(src, defines=["T=bf16", "N=1"])
    assert one.kernel("k", N=1).name == "k$Tbf16$N1"  # the only one: found by N
    with pytest.raises(AttributeError, match="no instance"):
        one.kernel("k", T="f16", N=1)


def test_compile_error_carries_location_and_hint():
    src = ("kernel k(out: ptr<i32, global>) threads(32) {\n"
           "  out[0] = foo\n"
           "}\n")
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(src)
    err = e.value
    assert (err.file, err.line, err.col) == ("<string>", 2, 12)
    assert err.message == "unknown name 'foo'"
    assert err.hint.startswith("declare it")
    assert "^" in err.diagnostics and "<stdin>" not in str(err)


def test_parse_diagnostics_keeps_notes_with_their_diagnostic():
    text = ("a.tile:2:5: error: redefinition of 'x'\n"
            "let x = 2\n"
            "    ^\n"
            "hint: rename one\n"
            "a.tile:1:5: note: previous definition of 'x' is here\n"
            "let x = 1\n"
            "    ^\n"
            "a.tile:3:1: warning: w\n")
    d = tilec.parse_diagnostics(text)
    assert [x["severity"] for x in d] == ["error", "warning"]
    assert d[0]["hint"] == "rename one"
    (note,) = d[0]["notes"]
    assert (note["file"], note["line"], note["col"]) == ("a.tile", 1, 5)
    assert note["message"] == "previous definition of 'x' is here"
    assert note["text"].endswith("    ^\n") and d[0]["text"].endswith(note["text"])
    assert d[1]["notes"] == []


def test_compile_error_in_a_file_names_the_file(tmp_path):
    p = tmp_path / "bad.tile"
    p.write_text("kernel k(out: ptr<i32, global>) threads(32) {\n  out[0] = 1 +\n}\n")
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(str(p))
    assert e.value.file == str(p) and e.value.line >= 2 and e.value.hint


def test_compile_option_errors():
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(SAFETY, cluster=99)
    assert e.value.file is None and "--cluster" in e.value.message and e.value.hint
    with pytest.raises(tilec.CompileError, match="cannot read"):
        tilec.compile("/no/such/file.tile")
    with pytest.raises(TypeError):
        tilec.compile(SAFETY, cluster=(1, 2, 3, 4))


def test_load_ptx_and_info(tmp_path):
    m = safety()
    ptx = tmp_path / "s.ptx"
    ptx.write_text(m.ptx)
    with pytest.raises(tilec.Error, match="--emit=info"):
        tilec.load(str(ptx))
    (tmp_path / "s.info.json").write_text(open(m.path[:-4] + ".info.json").read())
    loaded = tilec.load(str(ptx))
    assert loaded.names == m.names
    # Info from other PTX is refused (the runtime checks the fingerprint).
    (tmp_path / "t.ptx").write_text(m.ptx.replace("touch", "tuoch"))
    (tmp_path / "t.info.json").write_text(open(m.path[:-4] + ".info.json").read())
    with pytest.raises(tilec.CudaError):
        tilec.load(str(tmp_path / "t.ptx"))
    (tmp_path / "u.ptx").write_text(m.ptx)
    (tmp_path / "u.info.json").write_text("{}")
    with pytest.raises(tilec.Error, match="kernel info"):
        tilec.load(str(tmp_path / "u.ptx"))


# ------------------------------------------------------------------ launch


def test_launch_passes_scalars_pointers_grid_and_block():
    k = safety().touch
    a = tilec.empty(4, "i32")
    record(8, 4)
    n0 = probe().probe_launch_count()
    k[3](a, 7)
    assert probe().probe_launch_count() == n0 + 1
    assert last_kernel() == "touch"
    cfg = last_config()
    assert cfg["grid"] == (3, 1, 1) and cfg["block"] == (32, 1, 1) and cfg["stream"] == 0
    assert int.from_bytes(last_arg(0, 8), "little") == a.ptr
    assert int.from_bytes(last_arg(1, 4), "little", signed=True) == 7
    k[(2, 2)](a.ptr, -5)  # a raw device address passes for a pointer
    assert last_config()["grid"] == (2, 2, 1)
    assert int.from_bytes(last_arg(1, 4), "little", signed=True) == -5
    k.launch(a, 1, grid=(5,))
    assert last_config()["grid"] == (5, 1, 1)


def test_launcher_is_reused_per_grid():
    k = safety().touch
    assert k[4] is k[4]
    first = k[4]
    assert k[(4, 2)] is not first
    a = tilec.empty(4, "i32")
    first(a, 1)  # a launcher that left the cache still launches
    assert last_config()["grid"] == (4, 1, 1)


def test_scalar_conversion_and_errors():
    src = ("kernel s(out: ptr<f32, global>, a: i8, b: u16, c: f32, d: f64, e: i64, h: f16,"
           " g: bf16) threads(32) {\n  out[0] = c\n}\n")
    k = tilec.compile(src).s
    out = tilec.empty(1, "f32")
    record(8, 1, 2, 4, 8, 8, 2, 2)
    k[1](out, -3, 65535, 1.5, 2.25, -(2 ** 40), 1.0, 1.0)
    assert last_arg(1, 1) == (-3).to_bytes(1, "little", signed=True)
    assert last_arg(2, 2) == (65535).to_bytes(2, "little")
    assert np.frombuffer(last_arg(3, 4), np.float32)[0] == 1.5
    assert np.frombuffer(last_arg(4, 8), np.float64)[0] == 2.25
    assert int.from_bytes(last_arg(5, 8), "little", signed=True) == -(2 ** 40)
    assert last_arg(6, 2) == np.float16(1.0).tobytes()
    assert last_arg(7, 2) == b"\x80\x3f"  # bf16 1.0
    k[1](out, np.int8(1), 2, np.float32(0.5), 3, 4, 0.1, -2.5)  # numpy scalars and ints
    assert last_arg(6, 2) == np.float16(0.1).tobytes()
    for bad, match in [((out, 128, 0, 0.0, 0.0, 0, 0.0, 0.0), "does not fit i8"),
                       ((out, 0, -1, 0.0, 0.0, 0, 0.0, 0.0), "does not fit u16"),
                       ((out, 1.0, 0, 0.0, 0.0, 0, 0.0, 0.0), "takes an integer, but 1.0 is a float"),
                       ((out, 0, 0, "x", 0.0, 0, 0.0, 0.0), "not a number"),
                       ((out, 0, 0, 0.0, 0.0, 2 ** 63, 0.0, 0.0), "does not fit i64")]:
        with pytest.raises(tilec.LaunchError, match=match) as e:
            k[1](*bad)
        assert e.value.kernel == "s" and e.value.call == "Kernel::launch"
        assert e.value.error_name == "CUDA_ERROR_INVALID_VALUE"


def test_fp8_scalars_and_dtype_names():
    """e4m3/e5m2 parameters get the value's bits as cvt.rn.satfinite makes
    them (nearest even; past the largest finite, and infinities, saturate;
    NaN is 0x7f), not an integer's or bf16's; torch's fp8 dtype names mean
    the tile types, and the fnuz encodings (other bits) are refused."""
    src = ("kernel q(out: ptr<e4m3, global>, a: e4m3, b: e5m2) threads(32) {\n"
           "  out[0] = a\n}\n")
    k = tilec.compile(src).q
    out = tilec.empty(4, "float8_e4m3fn")
    assert out.dtype == "e4m3" and out.nbytes == 4
    record(8, 1, 1)
    for a, b, want_a, want_b in [(1.0, 1.0, 0x38, 0x3c), (1, 2, 0x38, 0x40),
                                 (-448.0, 57344.0, 0xfe, 0x7b),
                                 (1e6, float("inf"), 0x7e, 0x7b),  # satfinite
                                 (27.0, -1e9, 0x5e, 0xfb),        # a tie: 28 (even)
                                 (float("nan"), 2.0 ** -16, 0x7f, 0x01)]:
        k[1](out, a, b)
        assert last_arg(1, 1)[0] == want_a, (a, hex(last_arg(1, 1)[0]))
        assert last_arg(2, 1)[0] == want_b, (b, hex(last_arg(2, 1)[0]))
    with pytest.raises(tilec.LaunchError, match="dtype e5m2"):
        k[1](tilec.empty(4, "torch.float8_e5m2"), 1.0, 1.0)
    with pytest.raises(tilec.LaunchError, match="dtype u8"):
        k[1](tilec.empty(4, "u8"), 1.0, 1.0)  # fp8 data is typed, as f16 is
    with pytest.raises(ValueError, match="unknown dtype"):
        tilec.empty(4, "float8_e4m3fnuz")
    bits = np.array([0x38, 0xfe, 0x7f, 0x01], np.uint8)
    out.copy_from(bits)
    assert np.array_equal(out.numpy(), bits)  # fp8 comes back as its bits
    assert out.__cuda_array_interface__["typestr"] == "|V1"


def test_argument_count_and_kind_errors():
    k = safety().touch
    a = tilec.empty(4, "i32")
    with pytest.raises(tilec.LaunchError, match=r"takes 2 arguments \(out: ptr<i32, global>, "
                                                r"value: i32\), 1 given"):
        k[1](a)
    with pytest.raises(tilec.LaunchError, match="has dtype f32 but the parameter's elements are "
                                                "i32"):
        k[1](tilec.empty(4, "f32"), 1)
    k[1](tilec.empty(4, "u32"), 1)  # integers of the same size pass (bits as they are)
    with pytest.raises(tilec.LaunchError, match="takes a device array"):
        k[1]("not an array", 1)
    with pytest.raises(tilec.LaunchError, match="host memory"):
        k[1](np.zeros(4, np.int32), 1)  # numpy's DLPack says CPU
    with pytest.raises(TypeError, match="kernel 'touch' has no parameter 'bogus'"):
        k[1](a, 1, bogus=1)
    with pytest.raises(ValueError, match="grid must be at least 1"):
        k[0]
    with pytest.raises(TypeError, match="grid must be"):
        k["x"]


def test_launch_checks_of_the_runtime_become_launch_errors():
    k = safety().touch
    a = tilec.empty(4, "i32")
    with pytest.raises(tilec.LaunchError, match="block") as e:
        k[1](a, 1, block=64)  # threads(32) is exact
    assert e.value.kernel == "touch"
    with pytest.raises(tilec.LaunchError):
        k[1](0, 1)  # a null pointer
    with pytest.raises(tilec.LaunchError, match="not device memory|device memory"):
        k[1](12345678, 1)  # no allocation of the context holds it


def test_driver_error_names_call_error_and_kernel():
    k = safety().touch
    a = tilec.empty(4, "i32")
    probe().probe_set_launch_result(700)  # CUDA_ERROR_ILLEGAL_ADDRESS
    try:
        with pytest.raises(tilec.CudaError) as e:
            k[1](a, 1)
    finally:
        probe().probe_set_launch_result(0)
    err = e.value
    assert isinstance(err, tilec.LaunchError)
    assert err.call == "cuLaunchKernelEx" and err.code == 700
    assert err.error_name == "CUDA_ERROR_ILLEGAL_ADDRESS" and err.kernel == "touch"
    assert "cuLaunchKernelEx failed: CUDA_ERROR_ILLEGAL_ADDRESS" in str(err)


class CAI:
    """A minimal __cuda_array_interface__ producer over device memory."""

    def __init__(self, ptr, shape, typestr, strides=None):
        self.__cuda_array_interface__ = dict(data=(ptr, False), shape=tuple(shape),
                                             typestr=typestr, strides=strides, version=3)


def test_cuda_array_interface_arguments():
    m = safety()
    a = tilec.empty((64, 32), "i32")
    out = tilec.empty(32, "i32")
    record(8, 4)
    m.touch[1](CAI(out.ptr, (32,), "<i4"), 3)
    assert int.from_bytes(last_arg(0, 8), "little") == out.ptr
    with pytest.raises(tilec.LaunchError, match="has dtype <f4"):
        m.touch[1](CAI(out.ptr, (32,), "<f4"), 3)
    record(128, 8, 4)
    m.colsum[1](CAI(a.ptr, (64, 32), "<i4"), out)
    assert int.from_bytes(last_arg(2, 4), "little") == 64  # the hidden extent M
    # Strides in bytes (a transposed view): TMA needs the inner stride 1.
    with pytest.raises(tilec.LaunchError, match="stride"):
        m.colsum[1](CAI(a.ptr, (64, 32), "<i4", strides=(4, 256)), out)


def test_cuda_array_interface_byte_order_typestr_and_mask():
    """What the interface says about the bytes is read whole: a big-endian
    array would be read byte-swapped, a typestr with more after its size
    names no element type, a masked array's masked elements would be read as
    data; each is refused for pointer and tensor parameters alike."""
    m = safety()
    a = tilec.empty((64, 32), "i32")
    out = tilec.empty(32, "i32")
    record(8, 4)
    for order in "<|=":  # little-endian, "not applicable", native (x86-64, aarch64)
        m.touch[1](CAI(out.ptr, (32,), order + "i4"), 3)
    with pytest.raises(tilec.LaunchTypeError,
                       match=r"argument 0 \('out', ptr<i32, global>\).*its typestr '>i4' is "
                             r"big-endian.*byte-swapped.*astype\('<i4'\)"):
        m.touch[1](CAI(out.ptr, (32,), ">i4"), 3)
    with pytest.raises(tilec.LaunchTypeError, match="big-endian"):
        m.colsum[1](CAI(a.ptr, (64, 32), ">i4"), out)
    for junk in ("<i4x", "<i4 ", "i4", "<i", "?i4"):
        with pytest.raises(tilec.LaunchTypeError, match="has dtype " + re.escape(junk) + " but"):
            m.touch[1](CAI(out.ptr, (32,), junk), 3)
    masked = CAI(out.ptr, (32,), "<i4")
    masked.__cuda_array_interface__["mask"] = CAI(out.ptr, (32,), "|b1")
    with pytest.raises(tilec.LaunchTypeError, match=r"has a 'mask' \(a masked array\)"):
        m.touch[1](masked, 3)
    masked.__cuda_array_interface__["mask"] = None  # version 3's "no mask"
    m.touch[1](masked, 3)


def test_tensor_arguments_encode_once_and_check_extents():
    m = safety()
    a = tilec.empty((64, 32), "i32")
    out = tilec.empty(32, "i32")
    # The cache is keyed by address, shape and strides: an earlier test's map
    # for an array freed at this same address with this shape is a valid hit,
    # so the first launch encodes at most once.
    before = tilec._tilec.tensor_map_encodes()
    m.colsum[1](a, out)
    first = tilec._tilec.tensor_map_encodes()
    assert first - before <= 1
    m.colsum[1](a, out)
    assert tilec._tilec.tensor_map_encodes() == first  # the map is cached
    b = tilec.empty((128, 32), "i32")
    m.colsum[1](b, out)
    assert tilec._tilec.tensor_map_encodes() == first + 1
    with pytest.raises(tilec.LaunchError, match="32"):
        m.colsum[1](tilec.empty((64, 16), "i32"), out)  # the literal extent 32
    with pytest.raises(tilec.LaunchError, match="rank|dimension"):
        m.colsum[1](tilec.empty(64, "i32"), out)
    with pytest.raises(tilec.LaunchError, match="dtype f32"):
        m.colsum[1](tilec.empty((64, 32), "f32"), out)


def test_a_bound_launch_takes_new_addresses_and_checks_them():
    """launcher._bind(*args) checks a launch and binds it without launching
    (tilec.ops binds each call's launch once): called with arrays of the
    bound layout it launches with their addresses, and still refuses what an
    address decides: TMA's 16-byte aligned start, a null or freed pointer."""
    p = probe()
    m = safety()
    a, out = tilec.empty((64, 32), "i32"), tilec.empty(32, "i32")
    launches = p.probe_launch_count()
    bound = m.colsum[1]._bind(a, out)
    assert isinstance(bound, tilec._tilec.BoundLaunch)
    assert p.probe_launch_count() == launches
    record(128, 8, 4)
    a2, out2 = tilec.empty((64, 32), "i32"), tilec.empty(32, "i32")
    encodes = p.probe_encode_count()
    bound(a2, out2)
    assert p.probe_launch_count() == launches + 1 and last_kernel() == "colsum"
    assert int.from_bytes(last_arg(1, 8), "little") == out2.ptr
    assert int.from_bytes(last_arg(2, 4), "little") == 64  # the bound hidden extent M
    p.probe_encode_address.restype = ctypes.c_ulonglong
    encoded = [p.probe_encode_address(i) for i in range(p.probe_encode_count())]
    # A map for a2's address: encoded now, or taken from the map cache when an
    # earlier array of this process had the same address and layout.
    assert encoded[encodes:] in ([a2.ptr], []) and a2.ptr in encoded
    bound(a2, out2)  # the same address: no new map
    assert p.probe_encode_count() == len(encoded)
    with pytest.raises(tilec.LaunchError, match="16 bytes"):
        bound(a2.ptr + 4, out2)  # one element in: TMA cannot start there
    with pytest.raises(tilec.LaunchError, match="null pointer"):
        bound(a2, 0)
    with pytest.raises(tilec.LaunchError, match="1 addresses given to a bound launch of 2"):
        bound(a2)
    freed = tilec.empty((64, 32), "i32")
    address = freed.ptr
    del freed
    with pytest.raises(tilec.LaunchError, match="knows no allocation"):
        bound(address, out2)
    assert p.probe_launch_count() == launches + 2
    with pytest.raises(tilec.LaunchError, match="extent 1 is 16 but the kernel declares 32"):
        m.colsum[1]._bind(tilec.empty((64, 16), "i32"), out)


def test_device_array_round_trip():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = tilec.from_numpy(x)
    assert d.shape == (3, 4) and d.dtype == "f32" and d.nbytes == 48
    assert np.array_equal(d.numpy(), x)
    cai = d.__cuda_array_interface__
    assert cai["typestr"] == "<f4" and cai["shape"] == (3, 4) and cai["data"][0] == d.ptr
    with pytest.raises(ValueError):
        d.copy_from(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="unknown dtype"):
        tilec.empty(3, "f7")


def test_stream_argument():
    k = safety().touch
    a = tilec.empty(4, "i32")

    class S:
        cuda_stream = 0

    k[1](a, 1, stream=S())
    k[1](a, 1, stream=None)
    with pytest.raises(TypeError, match="stream="):
        k[1](a, 1, stream="s")
    with pytest.raises(tilec.CudaError):
        k[1](a, 1, stream=0xdead)  # not a stream of this context


@pytest.mark.skipif(not getattr(tilec._tilec, "has_nccl", False), reason="built without NCCL")
def test_symmetric_parameters_take_tilec_objects():
    m = tilec.compile(PEER)
    k = next(m[n] for n in m.names
             if any(t.startswith("symmetric") for _, t in m[n].params))
    args = []
    for name, t in k.params:
        args.append(tilec.empty(16, "f32") if t.startswith(("ptr", "tensor", "symmetric"))
                    else 1)
    with pytest.raises(tilec.LaunchError, match="SymmetricTensor"):
        k[2](*args)
