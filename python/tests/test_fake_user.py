"""A PyTorch user's mistakes, without a GPU: each one ends in a right launch
or an exception naming the kernel, the argument and what to do. Runs against
the fake libcuda.so.1 like test_fake_driver.py (ctest python.fakedriver);
arrays are tilec.DeviceArray and __cuda_array_interface__ objects (torch's
own are in test_gpu.py)."""

import os
import threading

import numpy as np
import pytest

import tilec
from tilec import _compile
from test_fake_driver import (CAI, last_arg, last_config, last_kernel, probe,  # noqa: F401
                              record, safety)
from test_fake_driver import fresh_cache  # noqa: F401  (the fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
USER = os.path.join(HERE, "user.tile")
SAFETY_PATH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "gpu", "safety.tile")


def user(**kw):
    return tilec.compile(USER, defines={"T": ["f16", "f32", "i32"]}, **kw)


def i32(b):
    return int.from_bytes(b, "little", signed=True)


# ------------------------------------------------------------------ keywords


def test_arguments_by_keyword():
    k = safety().touch
    a = tilec.empty(4, "i32")
    record(8, 4)
    k[1](out=a, value=7)
    assert int.from_bytes(last_arg(0, 8), "little") == a.ptr and i32(last_arg(1, 4)) == 7
    k[2](a, value=-3, stream=None)  # positional, by name and a launch option
    assert i32(last_arg(1, 4)) == -3 and last_config()["grid"] == (2, 1, 1)
    k.launch(value=5, out=a, grid=3)
    assert i32(last_arg(1, 4)) == 5 and last_config()["grid"] == (3, 1, 1)
    with pytest.raises(TypeError, match=r"kernel 'touch' has no parameter 'valu'.*value: i32"):
        k[1](a, valu=1)
    with pytest.raises(TypeError, match=r"argument 0 \('out'\) is given twice"):
        k[1](a, 1, out=a)
    with pytest.raises(tilec.LaunchError, match=r"kernel 'touch': missing argument 'value'"):
        k[1](out=a)
    with pytest.raises(tilec.LaunchError, match=r"takes 2 arguments .* 3 given positionally"):
        k[1](a, 1, 2, value=1)


# ------------------------------------------------------------------ grid and options


def test_grid_block_and_shared_errors_name_the_kernel():
    k = safety().touch
    a = tilec.empty(4, "i32")
    with pytest.raises(ValueError, match=r"kernel 'touch': grid must be at least 1.*got 0.*skip "
                                         r"the launch"):
        k[0]
    with pytest.raises(ValueError, match=r"kernel 'touch': grid\[1\] must be at least 1"):
        k[(2, 0)]
    with pytest.raises(TypeError, match=r"kernel 'touch': grid must be an int .*float.*//"):
        k[1000 / 256]
    with pytest.raises(ValueError, match=r"below 2\*\*32"):
        k[2 ** 32]
    with pytest.raises(tilec.LaunchError, match=r"kernel 'touch': grid \(2147483648, 1, 1\) "
                                                r"exceeds the device's maximum grid"):
        k[2 ** 31](a, 1)
    with pytest.raises(tilec.LaunchTypeError, match=r"kernel 'touch' is launched with a grid: "
                                                    r"kernel\[grid\]"):
        k(a, 1)
    k[np.int64(3)](a, 1)  # numpy integers are ints
    assert last_config()["grid"] == (3, 1, 1)
    with pytest.raises(ValueError, match=r"kernel 'touch': block must be at least 1"):
        k[1](a, 1, block=0)
    with pytest.raises(ValueError, match=r"kernel 'touch': shared .* got -1"):
        k[1](a, 1, shared=-1)
    with pytest.raises(TypeError, match=r"kernel 'touch': shared .* must be an int"):
        k[1](a, 1, shared=1.5)


def test_grid_as_a_function_of_the_launch_as_triton_takes_it():
    """kernel[fn]: fn(meta) gives the grid at each launch; meta holds the
    arguments by parameter name and the instance's compile-time parameters."""
    k = safety().touch
    a = tilec.empty(4, "i32")
    record(8, 4)
    k[lambda meta: (meta["value"] + 1, 2)](a, 2)
    assert last_config()["grid"] == (3, 2, 1) and i32(last_arg(1, 4)) == 2
    k[lambda meta: meta["value"]](out=a, value=5, stream=None)  # keywords, an option
    assert last_config()["grid"] == (5, 1, 1)
    k.launch(a, 4, grid=lambda meta: meta["value"] * 2)
    assert last_config()["grid"] == (8, 1, 1)
    seen = []
    m = user()
    x = tilec.empty(300, "f32")
    m.add[lambda meta: seen.append(dict(meta)) or (meta["n"] + 255) // 256](x, x, x, 300)
    assert last_config()["grid"] == (2, 1, 1) and seen[0]["T"] == "f32" and seen[0]["n"] == 300
    with pytest.raises(tilec.LaunchTypeError, match=r"kernel 'touch': the grid function read "
                                                    r"meta\['BLOCK'\], which is neither.*"
                                                    r"'out', 'value'"):
        k[lambda meta: meta["BLOCK"]](a, 1)
    with pytest.raises(tilec.LaunchTypeError, match=r"kernel 'touch': grid must be an int .*"
                                                    r"float.*//"):
        k[lambda meta: meta["value"] / 2](a, 3)
    with pytest.raises(tilec.LaunchTypeError, match=r"the grid function returned .*: it must "
                                                    r"return an int"):
        k[lambda meta: (lambda: 1)](a, 1)
    with pytest.raises(ValueError, match=r"kernel 'touch': grid must be at least 1.*skip"):
        k[lambda meta: meta["value"]](a, 0)


def test_a_cluster_over_8_ctas_is_opted_into():
    k = tilec.compile(SAFETY_PATH, cluster=16).touch
    a = tilec.empty(16, "i32")
    with pytest.raises(tilec.LaunchValueError, match=r"kernel 'touch': cluster of 16 CTAs exceeds "
                                                     r"the portable limit of 8 \(pass "
                                                     r"allow_non_portable_cluster=True\)"):
        k[16](a, 1)
    record(8, 4)
    k[16](a, 1, allow_non_portable_cluster=True)
    assert last_kernel() == "touch" and last_config()["grid"] == (16, 1, 1)


def test_refusals_are_launch_errors_and_type_or_value_errors():
    """A refused launch is a tilec.LaunchError naming the kernel, and also a
    TypeError (the kind of an argument or option) or a ValueError (a value)."""
    k = safety().touch
    a = tilec.empty(4, "i32")
    for call, cls in [(lambda: k[0], tilec.LaunchValueError),
                      (lambda: k[1.5], tilec.LaunchTypeError),
                      (lambda: k[1](a, 1, block=0), tilec.LaunchValueError),
                      (lambda: k[1](a), tilec.LaunchTypeError),
                      (lambda: k[1](a, 1.0), tilec.LaunchTypeError),
                      (lambda: k[1](a, 2 ** 40), tilec.LaunchValueError),
                      (lambda: k[1](tilec.empty(4, "f32"), 1), tilec.LaunchTypeError),
                      (lambda: k[1](np.zeros(4, np.int32), 1), tilec.LaunchValueError),
                      (lambda: k[1](a, 1, nope=2), tilec.LaunchTypeError),
                      (lambda: k[1](a, 1, stream="s"), tilec.LaunchTypeError),
                      (lambda: k[2 ** 31](a, 1), tilec.LaunchValueError),  # the runtime's checks
                      (lambda: k[1](a, 1, block=64), tilec.LaunchValueError)]:
        with pytest.raises(cls) as e:
            call()
        assert isinstance(e.value, tilec.LaunchError) and e.value.kernel == "touch"
        assert isinstance(e.value, TypeError if cls is tilec.LaunchTypeError else ValueError)


def test_block_over_1024_and_dynamic_shared_memory_over_the_limit():
    m = user()
    x = tilec.empty(1024, "f32")
    with pytest.raises(tilec.LaunchError, match=r"kernel 'scale': block \(2048, 1, 1\) exceeds "):
        m.scale[1](x, x, 2.0, 1024, block=2048)
    with pytest.raises(tilec.LaunchError, match="declares no threads"):
        m.scale[1](x, x, 2.0, 1024)
    out = tilec.empty(1 << 20, "i32")
    with pytest.raises(tilec.LaunchError, match=r"kernel 'reverse_smem': .*shared memory per "
                                                r"block exceed the device limit"):
        m.reverse_smem[1](out, 1 << 20)  # n i32s of dynamic shared memory
    with pytest.raises(tilec.LaunchValueError, match=r"dynamic shared arrays need 4096 .*\(leave "
                                                     r"shared= out to have it computed\)"):
        m.reverse_smem[1](out, 1024, shared=16)  # the runtime's check, in Python's terms
    record(8, 4)
    m.reverse_smem[1](out, 1024)
    assert last_config()["shared"] == 4096


# ------------------------------------------------------------------ scalars


def test_scalar_mistakes():
    k = safety().touch
    a = tilec.empty(4, "i32")
    with pytest.raises(tilec.LaunchError, match=r"kernel 'touch': argument 1 \('value', i32\) "
                                                r"2147483648 does not fit i32 \(-2147483648 \.\. "
                                                r"2147483647\)"):
        k[1](a, 2 ** 31)
    with pytest.raises(tilec.LaunchError, match=r"takes an integer, but 2.5 is a float "
                                                r"\(convert it with int\(\)"):
        k[1](a, 2.5)
    with pytest.raises(tilec.LaunchError, match=r"argument 1 \('value', i32\) takes a Python int, "
                                                r"not a tilec.*DeviceArray .*t.item\(\)"):
        k[1](a, tilec.empty(1, "i32"))
    with pytest.raises(tilec.LaunchError, match=r"takes a Python int, not a CAI"):
        k[1](a, CAI(a.ptr, (1,), "<i4"))

    class Bad:
        def __index__(self):
            raise RuntimeError("no value yet")

    with pytest.raises(tilec.LaunchError, match=r"argument 1 \('value', i32\): reading it raised "
                                                r"RuntimeError: no value yet") as e:
        k[1](a, Bad())
    assert isinstance(e.value.__cause__, RuntimeError) and e.value.kernel == "touch"
    src = ("kernel u(out: ptr<f32, global>, a: u32, h: f16, f: f32) threads(32) {\n"
           "  out[0] = f\n}\n")
    u = tilec.compile(src).u
    out = tilec.empty(1, "f32")
    with pytest.raises(tilec.LaunchError, match=r"-1 does not fit u32 \(0 \.\. 4294967295\)"):
        u[1](out, -1, 0.0, 0.0)
    with pytest.raises(tilec.LaunchError, match=r"100000.0 is out of the range of f16 \(largest "
                                                r"finite 65504"):
        u[1](out, 0, 1e5, 0.0)
    with pytest.raises(tilec.LaunchError, match=r"argument 3 \('f', f32\): reading it raised "
                                                r"OverflowError"):
        u[1](out, 0, 0.0, 2 ** 1100)
    with pytest.raises(tilec.LaunchError, match="out of the range of f32"):
        u[1](out, 0, 0.0, 1e39)
    record(8, 4, 2, 4)
    u[1](out, 4294967295, float("inf"), float("-inf"))  # infinities are values
    assert last_arg(2, 2) == np.float16(np.inf).tobytes()
    assert last_arg(3, 4) == np.float32(-np.inf).tobytes()


# ------------------------------------------------------------------ arrays


def test_array_mistakes():
    k = safety().touch
    a = tilec.empty((4, 8), "i32")
    with pytest.raises(tilec.LaunchError, match=r"argument 0 \('out', ptr<i32, global>\) is not "
                                                r"contiguous \(shape \(8, 4\), strides \(1, 8\) "
                                                r"elements\).*\.contiguous\(\)"):
        k[1](CAI(a.ptr, (8, 4), "<i4", strides=(4, 32)), 1)  # a transposed view
    with pytest.raises(tilec.LaunchError, match="not contiguous"):
        k[1](CAI(a.ptr, (4, 4), "<i4", strides=(32, 4)), 1)  # every other row
    with pytest.raises(tilec.LaunchError, match="not contiguous"):
        k[1](CAI(a.ptr, (4, 8), "<i4", strides=(0, 4)), 1)  # broadcast (expand)
    record(8, 4)
    k[1](CAI(a.ptr + 32, (3, 8), "<i4", strides=(32, 4)), 1)  # rows 1..3: contiguous
    assert int.from_bytes(last_arg(0, 8), "little") == a.ptr + 32
    k[1](CAI(a.ptr, (1, 8), "<i4", strides=(996, 4)), 1)  # extent 1: any stride
    k[1](a.ptr + 4, 1)  # the address itself: the kernel's own business
    with pytest.raises(tilec.LaunchError, match=r"has no memory \(a null address: an empty "
                                                r"array\); skip the launch"):
        k[1](CAI(0, (0,), "<i4"), 1)
    with pytest.raises(tilec.LaunchError, match=r"has dtype <i8 but the parameter's elements are "
                                                r"i32 \(convert it: an array of i32"):
        k[1](CAI(a.ptr, (4,), "<i8"), 1)
    with pytest.raises(tilec.LaunchError, match="host memory"):
        k[1](np.zeros(4, np.int32), 1)

    class Broken:
        @property
        def __cuda_array_interface__(self):
            raise KeyError("data")

    with pytest.raises(tilec.LaunchError, match=r"argument 0 \('out', ptr<i32, global>\): "
                                                r"reading it raised KeyError"):
        k[1](Broken(), 1)


def test_a_slice_the_kernels_vector_accesses_cannot_take():
    k = user().double4
    a = tilec.empty(256, "f32")
    record(8, 8)
    k[1](a, CAI(a.ptr + 64, (128,), "<f4"))  # x[16:]: 16-byte aligned
    assert int.from_bytes(last_arg(1, 8), "little") == a.ptr + 64
    with pytest.raises(tilec.LaunchValueError,
                       match=r"kernel 'double4': argument 1 \('x', ptr<f32, global>\) is 0x[0-9a-f]+, "
                             r"not a multiple of 16 bytes: .* a multiple of 4\)"):
        k[1](a, CAI(a.ptr + 4, (128,), "<f4"))  # x[1:]: would trap in ld.global.v4
    with pytest.raises(tilec.LaunchValueError, match="not a multiple of 16 bytes"):
        k[1](a.ptr + 8, a)  # a raw address is checked too


def test_type_parameters_pick_the_instance_of_a_dtype():
    m = user()
    for t, n in (("f16", 2), ("f32", 4), ("i32", 4)):
        x = tilec.empty(300, t)
        k = m.kernel("add", T=t)
        record(8, 8, 8, 4)
        k[2](x, x, x, 300)
        assert last_config()["grid"] == (2, 1, 1)
    with pytest.raises(tilec.LaunchError, match=r"has dtype f32 but the parameter's elements "
                                                r"are f16"):
        m.kernel("add", T="f16")[2](tilec.empty(300, "f32"), x, x, 300)
    fam = m.add  # several instances told apart by the arrays' dtypes: picked at each launch
    assert fam.instances == ["add$Tf16", "add$Tf32", "add$Ti32"]
    for t in ("f16", "f32", "i32"):
        x = tilec.empty(300, t)
        record(8, 8, 8, 4)
        fam[2](x, x, x, 300)
        assert last_config()["grid"] == (2, 1, 1) and last_kernel() == "add$T" + t
    fam[3](out=x, a=x, b=x, n=300)  # by keyword too
    assert last_kernel() == "add$Ti32"
    with pytest.raises(tilec.LaunchTypeError, match=r"kernel 'add': no instance takes arrays of "
                                                    r"these dtypes \(out=f64, a=f64, b=f64\); "
                                                    r"it was compiled for .*out=f16.*add\$Tf16"):
        y = tilec.empty(4, "f64")
        fam[1](y, y, y, 4)


def test_type_parameters_given_as_numpy_or_torch_dtypes():
    class TorchDtype:  # str(torch.bfloat16)
        def __str__(self):
            return "torch.bfloat16"

    m = tilec.compile(USER, defines={"T": [np.float16, TorchDtype(), np.dtype("int32")]})
    assert sorted(m.names)[:3] == ["add$Tbf16", "add$Tf16", "add$Ti32"]
    assert m.kernel("add", T=np.float16).name == "add$Tf16"
    assert m.kernel("add", T=TorchDtype()).name == "add$Tbf16"
    with pytest.raises(TypeError, match="compile-time value must be"):
        tilec.compile(USER, defines={"T": [object()]})


# ------------------------------------------------------------------ overlapping calls


def test_a_launch_inside_an_arguments_conversion_keeps_both_calls_arguments():
    """Marshalling runs Python code (__index__, a __cuda_array_interface__
    property); another launch of the same kernel there (another thread taking the GIL,
    or this one) must not overwrite the first call's arguments."""
    k = safety().touch
    a = tilec.empty(4, "i32")
    b = tilec.empty(4, "i32")

    class Nested:
        def __index__(self):
            k[1](b, 222)  # launched while the outer call marshals, after its argument 0
            return 111

    record(8, 4)
    n0 = probe().probe_launch_count()
    k[1](a, Nested())
    assert probe().probe_launch_count() == n0 + 2
    assert int.from_bytes(last_arg(0, 8), "little") == a.ptr and i32(last_arg(1, 4)) == 111


def test_two_threads_launch_one_kernel():
    k = safety().touch
    arrays = [tilec.empty(4, "i32") for _ in range(2)]
    errors = []

    class Slow:  # a Python-level property: the GIL may switch inside it
        def __init__(self, arr):
            self.arr = arr

        @property
        def __cuda_array_interface__(self):
            return self.arr.__cuda_array_interface__

    def run(i):
        try:
            for _ in range(300):
                k[1](Slow(arrays[i]), i)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ------------------------------------------------------------------ compile


def test_cache_after_editing_the_source(tmp_path):
    p = tmp_path / "k.tile"
    src = "kernel k(out: ptr<i32, global>) threads(32) {\n  out[0] = 1\n}\n"
    p.write_text(src)
    m1 = tilec.compile(str(p))
    st = os.stat(p)
    p.write_text(src.replace("= 1", "= 2"))  # the same size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime
    m2 = tilec.compile(str(p))
    assert m2 is not m1 and m2.ptx != m1.ptx
    assert tilec.compile(str(p)) is m2


def test_missing_or_wrong_tilec_executable(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC", str(tmp_path / "no-tilec"))
    with pytest.raises(tilec.Error, match=r"the tilec executable '.*no-tilec' \(\$TILEC\) cannot "
                                          r"be used.*point \$TILEC or tilec="):
        tilec.compile(USER)
    monkeypatch.delenv("TILEC")
    with pytest.raises(tilec.Error, match=r"\(tilec=\) is not an executable file"):
        tilec.compile(USER, tilec=USER)
    _compile._found_tilec.clear()
    monkeypatch.setattr(_compile, "_build_config", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    try:
        with pytest.raises(tilec.Error, match="needs the tilec executable"):
            tilec.compile(USER)
    finally:
        _compile._found_tilec.clear()


def test_a_mistyped_path_is_not_compiled_as_source(tmp_path):
    with pytest.raises(tilec.CompileError, match="cannot read 'kernels/add.tl'"):
        tilec.compile("kernels/add.tl")
    bad = tmp_path / "latin1.tile"
    bad.write_bytes(b"// caf\xe9\n")
    with pytest.raises(tilec.CompileError, match="not UTF-8"):
        tilec.compile(str(bad))


def test_compile_error_reaches_python_with_location_caret_and_hint(tmp_path):
    p = tmp_path / "bad.tile"
    p.write_text("kernel k(out: ptr<f32, global>, n: i32) threads(32) {\n"
                 "  out[0] = n\n}\n")  # an i32 stored into f32: no implicit conversion
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(str(p))
    err = e.value
    assert err.file == str(p) and err.line == 2 and err.col >= 3
    assert "^" in str(err) and err.hint and f"{p}:2:" in str(err)


def test_compile_warnings_reach_python():
    src = ("kernel k(out: ptr<i32, global>) threads(32) {\n"
           "  if thread_id() < 5 {\n    sync_threads()\n  }\n  out[0] = 1\n}\n")
    with pytest.warns(tilec.CompileWarning) as w:
        m = tilec.compile(src)
    (warning,) = [x.message for x in w if isinstance(x.message, tilec.CompileWarning)]
    assert (warning.file, warning.line, warning.col) == ("<string>", 3, 5)
    assert "sync_threads()" in warning.message and warning.hint and "^" in str(warning)
    assert "<stdin>" not in str(warning) and m.names == ["k"]


def test_devices_as_torch_names():
    from tilec._compile import device_index
    class Dev:  # a torch.device's face
        type, index = "cuda", 0
    assert device_index(Dev()) == 0 and device_index("cuda:0") == 0 and device_index(0) == 0
    assert device_index("cuda") == 0
    for bad in ("cpu", "cuda:x", "mps:0"):
        with pytest.raises(ValueError, match="must be a CUDA device"):
            device_index(bad)
    m = tilec.compile(SAFETY_PATH, device="cuda:0")
    assert m.touch.max_active_clusters(device="cuda:0") >= 1
    assert tilec.empty(4, "i32", device=Dev()).device == 0
    tilec.synchronize("cuda:0")


# ------------------------------------------------------------------ register_op


def test_register_op_checks_its_arguments_before_torch():
    """register_op's mistakes name the op, the kernel and what to write; they
    are found before torch is imported (so these run without torch)."""
    k = safety().touch
    with pytest.raises(TypeError, match=r"register_op\('t::touch', kernel 'touch'\): mutates_args "
                                        r"is the string 'out'.*mutates_args=\('out',\)"):
        tilec.register_op("t::touch", k, grid=1, mutates_args="out")
    with pytest.raises(ValueError, match=r"mutates_args names 'ou', which is no parameter of the "
                                         r"kernel; its pointer and tensor parameters are out"):
        tilec.register_op("t::touch", k, grid=1, mutates_args=("ou",))
    with pytest.raises(ValueError, match=r"mutates_args names 'value', a i32 scalar: a kernel "
                                         r"writes only through pointer and tensor parameters"):
        tilec.register_op("t::touch", k, grid=1, mutates_args=("value",))
    with pytest.raises(TypeError, match=r"the grid function is called with the op's 2 arguments "
                                        r"\(out, value\).*grid=lambda out, value: \.\.\..*meta"):
        tilec.register_op("t::touch", k, grid=lambda meta: (1,), mutates_args=("out",))


def test_register_op_signature_takes_floats_for_fp8_scalars():
    from tilec._torch import _annotation
    assert _annotation("e4m3") == "float" and _annotation("e5m2") == "float"
    assert _annotation("f16") == "float" and _annotation("u8") == "int"
    assert _annotation("ptr<e4m3, global>") == "torch.Tensor"


def test_a_grid_function_that_raises_names_the_kernel():
    k = safety().touch
    a = tilec.empty(4, "i32")
    with pytest.raises(tilec.LaunchError, match=r"kernel 'touch': the grid function raised "
                                                r"ZeroDivisionError") as info:
        k[lambda meta: meta["value"] // 0](a, 1)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_a_type_parameter_by_a_dtype_name_as_tilec_empty_takes_it():
    """defines= and module.kernel(T=...) take "float16" / "float8_e4m3fn" as
    tilec.empty does, not only "f16" / "e4m3" and dtype objects."""
    m = tilec.compile(USER, defines={"T": ["float16", "bfloat16"]})
    assert sorted(n for n in m.names if n.startswith("add$")) == ["add$Tbf16", "add$Tf16"]
    assert m.kernel("add", T="float16").name == "add$Tf16"
    assert m.kernel("add", T="torch.bfloat16").name == "add$Tbf16"
    assert m.kernel("add", T="bf16").name == "add$Tbf16"
