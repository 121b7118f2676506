"""tilec.ops.linear and batched tilec.ops.matmul without a GPU (ctest
python.fakedriver): the shapes torch.nn.functional.linear and torch.matmul
take, flattened or folded into the GEMM's rows or launched per matrix at
each operand's offset, the fused bias reaching the kernel's (bias, bias_n),
and every refusal naming the argument and both shapes. Arrays are
tilec.DeviceArray and __cuda_array_interface__ objects."""

import pytest

import tilec
import tilec.ops as ops
from tilec import _ops_kernels
from test_fake_driver import CAI, last_arg, last_kernel, probe, record  # noqa: F401
from test_fake_driver import fresh_cache  # noqa: F401  (the fixture)


@pytest.fixture(autouse=True)
def fresh_kernels():
    _ops_kernels._kernels.clear()
    _ops_kernels._modules.clear()
    _ops_kernels._clusters.clear()
    for table in (ops._matmul_calls, ops._linear_calls):
        table.clear()
    yield


def arr(shape, dtype="f16", device=0):
    return tilec.empty(tuple(shape), dtype, device=device)


def launches():
    return probe().probe_launch_count()


def bias_args(kernel):
    """(bias address, bias_n) of the last launch of a persistent (5
    parameters: A, B, C tensors of 128 bytes) or split kernel (8)."""
    persistent = not ("splitk" in kernel or "skinny" in kernel)
    first = 3 if persistent else 6
    return (int.from_bytes(last_arg(first, 8), "little"),
            int.from_bytes(last_arg(first + 1, 4), "little", signed=True))


def recorded(kernel):
    """Record the parameter sizes of `kernel`'s launches (tensor maps 128)."""
    if "splitk" in kernel or "skinny" in kernel:
        record(128, 128, 128, 8, 8, 4, 8, 4)
    else:
        record(128, 128, 128, 8, 4)


# ------------------------------------------------------------------ linear


@pytest.mark.parametrize("m", [4096, 16])  # the persistent GEMM; the skinny one (decode)
def test_linear_fuses_the_bias_into_the_gemm_it_launches(m):
    probe()
    x, w, b = arr((2, m // 2, 256)), arr((512, 256)), arr((512,))
    kernel = ops.plan_linear(x, w, b)["kernel"]
    assert ops.plan_linear(x, w, b)["bias"] == "fused"
    recorded(kernel)
    n0 = launches()
    y = ops.linear(x, w, b)
    assert launches() == n0 + 1  # one launch: no second pass for the bias
    assert y.shape == (2, m // 2, 512) and y.dtype == "f16"
    assert last_kernel().startswith(kernel + "$Tf16")
    assert bias_args(kernel) == (b.ptr, 512)
    y = ops.linear(x, w)  # no bias: bias_n 0, the pointer is C's (never read)
    assert bias_args(kernel) == (y.ptr, 0)


def test_linear_flattens_every_leading_dim_and_takes_a_vector():
    probe()
    w = arr((128, 64))
    assert ops.linear(arr((2, 3, 4, 64)), w).shape == (2, 3, 4, 128)
    assert ops.plan_linear(arr((2, 3, 4, 64)), w)["kernel"] == \
        ops.plan_matmul(arr((24, 64)), CAI(w.ptr, (64, 128), "<f2", strides=(2, 128)))["kernel"]
    assert ops.linear(arr((64,)), w).shape == (128,)  # input [K]: y [N]
    assert ops.linear(arr((0, 64)), w, arr((128,))).shape == (0, 128)


def test_linear_refusals_name_the_argument_and_both_shapes():
    x, w = arr((4, 64)), arr((128, 64))
    with pytest.raises(ops.OpArgumentError, match=r"'weight' has shape \[128\]: it is \[N, K\]"):
        ops.linear(x, arr((128,)))
    with pytest.raises(ops.OpArgumentError, match=r"input is \[4, 32\] and weight \[128, 64\]: "
                                                  r"input's last dim must be .*K = 64"):
        ops.linear(arr((4, 32)), w)
    with pytest.raises(ops.OpArgumentError, match=r"'bias' has shape \[64\] and weight "
                                                  r"\[128, 64\]: bias is \[N\] = \[128\]"):
        ops.linear(x, w, arr((64,)))
    with pytest.raises(ops.OpArgumentError, match=r"'bias' has shape \[1, 128\]"):
        ops.linear(x, w, arr((1, 128)))
    with pytest.raises(ops.OpTypeError, match=r"'bias' has dtype f32; .*float16 or bfloat16"):
        ops.linear(x, w, arr((128,), "f32"))
    with pytest.raises(ops.OpTypeError, match=r"input is f16 and bias bf16: they must be one "
                                              r"dtype \(convert bias to input's\)"):
        ops.linear(x, w, arr((128,), "bf16"))
    with pytest.raises(ops.OpTypeError, match=r"input is f16 and weight bf16"):
        ops.linear(x, arr((128, 64), "bf16"))
    with pytest.raises(ops.OpTypeError, match=r"'input' has dtype f32; .*float16 or bfloat16"):
        ops.linear(arr((4, 64), "f32"), arr((128, 64), "f32"))
    base = arr((4, 128))
    strided = CAI(base.ptr, (4, 64), "<f2", strides=(256, 2))  # x[:, :64]
    with pytest.raises(ops.OpArgumentError, match=r"'input' \(shape \[4, 64\], strides "
                                                  r"\[128, 1\]\) is not contiguous.*"
                                                  r"input.contiguous\(\)"):
        ops.linear(strided, w)
    bias_base = arr((256,))
    with pytest.raises(ops.OpArgumentError, match=r"'bias' \(strides \[2\]\) is not contiguous"):
        ops.linear(x, w, CAI(bias_base.ptr, (128,), "<f2", strides=(4,)))
    with pytest.raises(ops.OpArgumentError, match=r"'weight' \(shape \[128, 64\], strides "
                                                  r"\[256, 4\]\) is neither row-major"):
        ops.linear(x, CAI(arr((128, 128)).ptr, (128, 64), "<f2", strides=(512, 8)))
    with pytest.raises(ops.OpArgumentError, match=r"4x128x100 rejected: K = 100"):
        ops.linear(arr((4, 100)), arr((128, 100)))
    probe().probe_set_device_count(2)
    try:
        with pytest.raises(ops.OpArgumentError, match=r"different devices \('input' on cuda:0, "
                                                      r"'weight' on cuda:0, 'bias' on cuda:1\)"):
            ops.linear(x, w, arr((128,), device=1))
    finally:
        probe().probe_set_device_count(1)


def test_linear_keeps_its_function_per_key():
    probe()
    x, w, b = arr((300, 64)), arr((128, 64)), arr((128,))
    ops.linear(x, w, b)
    ops.linear(arr((300, 64)), w, arr((128,)))
    ops.linear(x, w)  # without the bias: another function
    assert len(ops._linear_calls) == 2
    b2 = arr((128,))
    ops.linear(x, w, b2)  # the bias at another address: the same function, its address
    kernel = ops.plan_linear(x, w, b)["kernel"]
    recorded(kernel)
    ops.linear(x, w, b2)
    assert len(ops._linear_calls) == 2 and bias_args(kernel) == (b2.ptr, 128)


# ------------------------------------------------------------------ batched matmul


def test_a_batch_over_one_b_folds_into_m():
    """a [B, M, K] @ b [K, N] (and b [1, K, N]): one GEMM of B * M rows."""
    probe()
    a, b = arr((3, 100, 64)), arr((64, 128))
    n0 = launches()
    c = ops.matmul(a, b)
    assert launches() == n0 + 1 and c.shape == (3, 100, 128)
    assert ops.plan_matmul(a, b)["batches"] == 1
    assert ops.plan_matmul(a, b)["define"] == ops.plan_matmul(arr((300, 64)), b)["define"]
    c = ops.matmul(a, arr((1, 64, 128)))
    assert launches() == n0 + 2 and c.shape == (3, 100, 128)
    assert ops.matmul(arr((2, 1, 100, 64)), arr((1, 64, 128))).shape == (2, 1, 100, 128)


def test_a_batch_of_both_launches_per_matrix_at_each_offset():
    """torch.bmm / torch.matmul with a batched b: one launch of the same
    GEMM per matrix of c, at each operand's offset (0 along a broadcast dim)."""
    p = probe()
    a, b = arr((3, 128, 64)), arr((3, 64, 256))
    first = p.probe_encode_count()
    n0 = launches()
    c = ops.matmul(a, b)
    assert launches() == n0 + 3 and c.shape == (3, 128, 256)
    assert ops.plan_matmul(a, b)["batches"] == 3
    maps = {p.probe_encode_address(i) for i in range(first, p.probe_encode_count())}
    for i in range(3):  # each matrix's address mapped (A, B, C)
        assert {a.ptr + i * 128 * 64 * 2, b.ptr + i * 64 * 256 * 2,
                c.ptr + i * 128 * 256 * 2} <= maps
    # a [M, K] broadcast over b's batch; [2, 1] x [1, 3] batch dims broadcast to [2, 3].
    n0 = launches()
    assert ops.matmul(arr((128, 64)), b).shape == (3, 128, 256)
    assert ops.matmul(arr((2, 1, 128, 64)), arr((1, 3, 64, 256))).shape == (2, 3, 128, 256)
    assert launches() == n0 + 3 + 6
    # b's matrices column-major (b.transpose(-1, -2) contiguous): the K-major kernel.
    w = arr((3, 256, 64))
    bt = CAI(w.ptr, (3, 64, 256), "<f2", strides=(256 * 64 * 2, 2, 64 * 2))
    assert ops.matmul(a, bt).shape == (3, 128, 256)
    assert last_kernel().startswith(ops.plan_matmul(a, bt)["kernel"] + "$")
    assert ops.plan_matmul(a, bt)["kernel"] in ("gemm", "gemm_m64", "gemm_splitk", "gemm_skinny",
                                                 "gemm_skinny2d", "gemm_skinny_dsm")
    # A non-contiguous batch of row-major matrices: per matrix, not refused.
    base = arr((3, 2, 128, 64))
    every_other = CAI(base.ptr, (3, 128, 64), "<f2", strides=(2 * 128 * 64 * 2, 64 * 2, 2))
    n0 = launches()
    assert ops.matmul(every_other, arr((64, 256))).shape == (3, 128, 256)
    assert launches() == n0 + 3


def test_batched_matmul_refusals_name_both_shapes():
    with pytest.raises(ops.OpArgumentError, match=r"a is \[2, 64, 64\] and b \[3, 64, 128\]: "
                                                  r"their batch dims \[2\] and \[3\] do not "
                                                  r"broadcast"):
        ops.matmul(arr((2, 64, 64)), arr((3, 64, 128)))
    with pytest.raises(ops.OpArgumentError, match=r"a is \[2, 64, 32\] and b \[2, 64, 128\]: "
                                                  r"a's columns \(K = 32\) must be b's rows"):
        ops.matmul(arr((2, 64, 32)), arr((2, 64, 128)))
    with pytest.raises(ops.OpArgumentError, match=r"'b' has shape \[64\].*b.unsqueeze\(-1\)"):
        ops.matmul(arr((2, 64, 64)), arr((64,)))
    base = arr((2, 64, 128))
    cols = CAI(base.ptr, (2, 64, 64), "<f2", strides=(64 * 128 * 2, 2, 64 * 2 * 2))
    with pytest.raises(ops.OpArgumentError, match=r"'a' \(shape \[2, 64, 64\], strides "
                                                  r"\[8192, 1, 128\]\): each matrix must be "
                                                  r"row-major"):
        ops.matmul(cols, arr((2, 64, 64)))
    assert ops.matmul(arr((0, 64, 64)), arr((64, 64))).shape == (0, 64, 64)
    assert ops.matmul(arr((2, 0, 64)), arr((2, 64, 64))).shape == (2, 0, 64)


# ------------------------------------------------------------------ fields by name


def test_kernel_info_and_plan_fields_by_name_name_the_nearest():
    """A field lookup that misses (the kernel info of a Module, a tilec.ops
    plan) is tilec.FieldNotFoundError, a KeyError naming the fields there
    are and the nearest."""
    m = tilec.compile("kernel k(out: ptr<i32, global>) threads(32) {\n  out[0] = 1\n}\n")
    with pytest.raises(tilec.FieldNotFoundError, match=r"the kernel info of 'k' has no field "
                                                       r"'thread' \(its fields: name, .*\); did "
                                                       r"you mean 'threads'") as e:
        m.info["kernels"][0]["thread"]
    assert isinstance(e.value, KeyError) and "threads" in e.value.available
    assert e.value.suggestions[0] == "threads"
    with pytest.raises(KeyError, match=r"the kernel info has no field 'kernel'.*'kernels'"):
        m.info["kernel"]
    assert m.info["kernels"][0]["params"][0]["name"] == "out"
    assert m.info.get("regs") is None  # .get keeps its default
    plan = ops.plan_linear(arr((16, 64)), arr((128, 64)))
    with pytest.raises(tilec.FieldNotFoundError, match=r"tilec.ops.plan_linear's plan has no "
                                                       r"field 'kernal'.*did you mean 'kernel'"):
        plan["kernal"]
    with pytest.raises(KeyError, match=r"plan_matmul's plan has no field 'split'.*'splits'"):
        ops.plan_matmul(arr((16, 64)), arr((64, 128)))["split"]


def test_a_column_major_weight_runs_and_plans_the_mn_major_kernel():
    probe()
    x = arr((1000, 512))
    wt = arr((512, 3000))  # weight = wt.t(): [N, K] column-major
    w = CAI(wt.ptr, (3000, 512), "<f2", strides=(2, 3000 * 2))
    plan = ops.plan_linear(x, w, arr((3000,)))
    assert plan["kernel"] == "gemm_bmn"
    ops.linear(x, w, arr((3000,)))
    assert last_kernel().startswith("gemm_bmn$Tf16")


def test_a_repeated_call_asks_the_driver_only_about_new_addresses():
    """A key's bound launch checks an address's memory (cuPointerGetAttributes)
    the first time it sees it at a parameter: calls on the same operands ask
    only about their new outputs, a new operand is asked about once."""
    p = probe()
    x, w, b = arr((300, 64)), arr((128, 64)), arr((128,))
    outputs = [ops.linear(x, w, b)]  # bound: every argument checked
    q = p.probe_pointer_queries()
    outputs += [ops.linear(x, w, b) for _ in range(3)]  # kept: each at a new address
    assert p.probe_pointer_queries() == q + 3
    x2 = arr((300, 64))
    outputs.append(ops.linear(x2, w, b))
    assert p.probe_pointer_queries() == q + 3 + 2  # x2 and the output
    outputs.append(ops.linear(x, w, b))  # x again: still among its last two
    assert p.probe_pointer_queries() == q + 3 + 2 + 1
