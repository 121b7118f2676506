"""tilec.ops: the samples' attention and GEMM kernels as PyTorch functions.

    import tilec.ops
    o = tilec.ops.attention(q, k, v, causal=True)            # q [B, H, Sq, D], k, v [B, Hkv, Sk, D]
    o, lse = tilec.ops.attention(q, k, v, return_lse=True)    # lse [B, H, Sq] f32, natural log
    c = tilec.ops.matmul(a, b)                                # a [M, K] @ b [K, N], f16 / bf16
    y = tilec.ops.linear(x, w, b, activation="gelu")          # F.gelu(F.linear(x, w, b)), one kernel
    c = tilec.ops.scaled_mm(a8, b8, scale_a, scale_b, out_dtype=torch.bfloat16)  # torch._scaled_mm's contract

Each call picks the kernel instance the sample's C++ host picks for the
shape (the rule tables of samples/attention/attention_common.h and
samples/gemm/gemm_choice.h, fp8.h and fp8_small.h, compiled into the
extension: tilec.ops.plan_attention / plan_matmul / plan_scaled_mm show the
choice), launches it on the current torch stream and returns new tensors.
With torch, each operation is a torch.library custom op (tilec::attention,
tilec::matmul, tilec::linear, tilec::scaled_mm), so torch.compile(fullgraph=True)
and CUDA graph capture take it. matmul and linear have backward passes on
tilec's GEMMs (_ops_grad); attention and scaled_mm have none (a clear error
if one is asked for). Without torch the functions take tilec.DeviceArray (or
__cuda_array_interface__) arrays and return DeviceArrays. docs/python.md,
"tilec.ops", is the reference.
"""

import math

from . import _tilec
from ._errors import did_you_mean, fields, nearest_names
# attention and plan_attention are tilec.ops's; _attention_calls and
# _scratch are the tables the tests read as tilec.ops's.
from ._ops_attention import (_attention_args, _attention_calls, _attention_torch,  # noqa: F401
                             attention, plan_attention)
from ._ops_calls import (_allocator, _call_key, _eager, _function_of, _remember,  # noqa: F401
                         _scratch, _scratch_maker, _transposer)
from ._ops_kernels import (Arg, OpArgumentError, OpTypeError, kernel_of,
                           need_contiguous as _need_contiguous, persistent_grid,
                           same_device as _same_device, sm_count)
from ._ops_shapes import (b_major as _b_major, broadcast_bias as _broadcast_bias,
                          gemm_dtypes as _gemm_dtypes, linear_shapes, matmul_shapes, matrix_view,
                          rows_view, torch_activation as _torch_activation)

try:
    import torch
except ImportError:  # tilec.ops without torch: DeviceArrays only
    torch = None
else:
    from ._ops_calls import _is_compiling

__all__ = ["attention", "matmul", "linear", "scaled_mm", "plan_attention", "plan_matmul",
           "plan_linear", "plan_scaled_mm", "OpArgumentError", "OpTypeError"]

# linear's activations: the GEMM kernels' compile-time parameter ACT
# (samples/gemm/gemm.tile), applied in the epilogue.
_ACTIVATIONS = {None: 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}
# Those whose derivative needs the pre-activation: under autograd, applied
# by torch after the GEMM (relu's is read from the output: fused throughout).
_ACTIVATIONS_IN_TORCH = ("gelu", "gelu_tanh", "silu")


# ------------------------------------------------------------------ matmul and linear
# One GEMM call: a [M, K] (row-major) @ b [K, N], plus an optional bias [N]
# that the kernel's epilogue adds before its one rounding (every gemm.tile
# and gemm_skinny.tile kernel ends with (bias, bias_n); bias_n = 0 passes C
# itself as the pointer, never read). matmul's batches and linear's leading
# dims reach it as such calls (_ops_shapes says how).


def _matmul_args(a, b):
    """matmul's arguments read and checked: (aa, ba, shapes, dev), shapes a
    GemmShapes (the 2-D GEMM, the batches, c's shape)."""
    aa, ba = Arg("matmul", "a", a), Arg("matmul", "b", b)
    _gemm_dtypes("matmul", aa, ba)
    sh = matmul_shapes(aa, ba)
    dev = _same_device("matmul", aa, ba)
    return aa, ba, sh, dev


def _activation_code(op, activation):
    """The kernels' ACT of an activation name, or a refusal naming the
    nearest one."""
    if activation is not None and not isinstance(activation, str):
        raise OpTypeError(f"tilec.ops.{op}: activation must be None or one of 'relu', 'gelu', "
                          f"'gelu_tanh', 'silu', not {activation!r}")
    code = _ACTIVATIONS.get(activation)
    if code is None:
        names = [a for a in _ACTIVATIONS if a]
        near = nearest_names(activation, names)
        raise OpArgumentError(f"tilec.ops.{op}: unknown activation '{activation}' (the GEMM's "
                              f"epilogue has {', '.join(map(repr, names))}){did_you_mean(near)}")
    return code


def _linear_args(x, w, bias, activation=None):
    op = "linear"
    act = _activation_code(op, activation)
    xa, wa = Arg(op, "input", x), Arg(op, "weight", w)
    ba = None if bias is None else Arg(op, "bias", bias)
    _gemm_dtypes(op, *(a for a in (xa, wa, ba) if a is not None))
    sh = linear_shapes(xa, wa, ba)
    dev = _same_device(op, *(a for a in (xa, wa, ba) if a is not None))
    return xa, wa, ba, sh, dev, act


def _gemm_plan(op, dtype, m, n, k, major, dev, act):
    why = _tilec._gemm_alignment_problem(m, n, k, major == "k")
    if why:
        raise OpArgumentError(f"tilec.ops.{op}: {m}x{n}x{k} rejected: {why}; pad K and N to "
                              f"multiples of 8 with zeros")
    return _tilec._gemm_plan(dtype, m, n, k, major == "k", sm_count(dev), act)


def plan_matmul(a, b):
    """The kernel tilec.ops.matmul runs for a @ b (gemm::ruleChoice's pick),
    for one matrix of a batch; `batches` says how many launches."""
    aa, ba, sh, dev = _matmul_args(a, b)
    major = _b_major("matmul", ba, sh.k, sh.n)
    p = _tilec._gemm_plan(aa.dtype, sh.m, sh.n, sh.k, major == "k", sm_count(dev or 0))
    p["batches"] = sh.launches
    return fields(p, "tilec.ops.plan_matmul's plan")


def _weight_is_k_major(wa, n, k):
    """weight [N, K] row-major (as nn.Linear stores it) is the kernel's B
    K-major; column-major (weight.t() contiguous) is B MN-major."""
    return _b_major("linear", wa, n, k, name="weight") == "mn"


def plan_linear(x, weight, bias=None, activation=None):
    """The kernel tilec.ops.linear runs (the GEMM of x's rows, flattened;
    the activation is its compile-time parameter ACT)."""
    xa, wa, ba, sh, dev, act = _linear_args(x, weight, bias, activation)
    k_major = _weight_is_k_major(wa, sh.n, sh.k)
    p = _tilec._gemm_plan(xa.dtype, sh.m, sh.n, sh.k, k_major, sm_count(dev or 0), act)
    p["batches"] = 1
    p["bias"] = "fused" if ba is not None else None
    p["activation"] = activation
    return fields(p, "tilec.ops.plan_linear's plan")


def _gemm_entry(op, dtype, m, n, k, major, dev, act=0):
    """(kernel, mode, grid, workspace floats, flags, splits) of one GEMM with
    the epilogue's activation `act` (the kernels' ACT)."""
    if m == 0 or n == 0 or k == 0:
        return (None, "empty" if m == 0 or n == 0 else "zero", None, 0, 0, 1)
    plan = _gemm_plan(op, dtype, m, n, k, major, dev, act)
    kern = kernel_of(op, plan, dev)
    if plan["variant"] == "persistent":
        return (kern, "persistent", persistent_grid(kern, plan, dev), 0, 0, 1)
    # W and flags are read only with splits through global memory (not with
    # one split, nor by gemm_skinny_dsm, whose splits meet in the cluster).
    scratch = plan["splits"] > 1 and plan["kernel"] != "gemm_skinny_dsm"
    return (kern, "split", plan["grid"], plan["workspace_floats"] if scratch else 0,
            plan["flags"] if scratch else 0, plan["splits"])


def _gemm_function(a, b_rows, bias, entry, m, n, dt, out_shape, activation=None):
    """The function of one GEMM's key: (a [M, K] rows, b as the kernel's B,
    bias or None, c or None: a new one of out_shape) -> c, each array like
    the bound one (its address alone is read)."""
    kern, mode, grid, ws_floats, nflags, splits = entry
    new_c = _allocator(a, out_shape, dt, zero=kern is None and mode == "zero")
    if kern is None:  # M, N or K = 0: nothing to launch (K = 0: c = act(bias), or zeros)
        if bias is None or mode == "empty":
            return lambda a, b, bias, c=None: new_c(a)
        return lambda a, b, bias, c=None: _broadcast_bias(new_c(a), bias, m, n, activation)
    c0 = rows_view(new_c(a), m, n)
    bias_n = 0 if bias is None else n
    # Bound with these arrays; a call passes its arrays' addresses (b.t()'s
    # is b's). Without a bias the kernel gets C as its never-read pointer.
    # Each function below is the whole call after the key's lookup: the
    # output's allocation and the launch, no other frame.
    if mode == "persistent":
        launch = kern[grid]._bind(a, b_rows, c0, c0 if bias is None else bias, bias_n)
        if bias is None:
            def run(a, b, bias, c=None):
                if c is None:
                    c = new_c(a)
                launch(a, b, c, c)
                return c
        else:
            def run(a, b, bias, c=None):
                if c is None:
                    c = new_c(a)
                launch(a, b, c, bias)
                return c
        return run
    if not ws_floats:
        # One split (or the K splits reduced in a cluster): the kernel never
        # touches W and flags; one small array per device stands for both
        # (no workspace to look up per call, the same addresses every call).
        unused = _unused_workspace(a)
        launch = kern[grid]._bind(a, b_rows, c0, unused, unused, splits,
                                  c0 if bias is None else bias, bias_n)

        def run(a, b, bias, c=None):
            if c is None:
                c = new_c(a)
            launch(a, b, c, unused, unused, c if bias is None else bias)
            return c
        return run
    scratch = _scratch_maker(a, ws_floats, nflags)
    ws = scratch()
    launch = kern[grid]._bind(a, b_rows, c0, ws[0], ws[1], splits,
                              c0 if bias is None else bias, bias_n)

    def run(a, b, bias, c=None):
        if c is None:
            c = new_c(a)
        ws = scratch()
        launch(a, b, c, ws[0], ws[1], c if bias is None else bias)
        return c
    return run


_unused = {}  # (torch?, device) -> (array, its address): a workspace no launch reads


def _unused_workspace(like):
    """The address of a 16-byte array on the device of `like` (kept for the
    process), passed for the W and flags of a split kernel that reads neither:
    only the address is checked (device memory, aligned for the kernel's
    16-byte accesses), as an int, so no dtype is."""
    is_torch = torch is not None and isinstance(like, torch.Tensor)
    key = (is_torch, getattr(like, "device", 0))
    u = _unused.get(key)
    if u is None:
        array = _allocator(like, (4,), "f32")(like)
        address = array.data_ptr() if is_torch else \
            array.__cuda_array_interface__["data"][0]
        u = _unused[key] = (array, address)
    return u[1]


_matmul_calls = {}


def _matmul_torch(a, b):
    """A call on torch tensors."""
    key = (a.shape, a.stride(), a.dtype, a.device, b.shape, b.stride(), b.dtype, b.device)
    run = _matmul_calls.get(key)
    if run is None:
        run = _remember(_matmul_calls, key, _matmul_launch(a, b))
    return run(a, b, None)


def _matmul_run(a, b):
    """A call on any arrays."""
    return _function_of(_matmul_calls, _call_key((a, b)),
                        lambda: _matmul_launch(a, b))(a, b, None)


def _matmul_launch(a, b):
    """The function every call with these shapes, strides, dtypes and
    devices runs: (a, b, None) -> c. A batch folded into M is one GEMM on
    a's rows; other batches launch the GEMM once per matrix (_ops_shapes)."""
    aa, ba, sh, dev = _matmul_args(a, b)
    m, n, k = sh.m, sh.n, sh.k
    launches = m and n and k and sh.launches
    major = _b_major("matmul", ba, k, n) if launches else "mn"
    entry = _gemm_entry("matmul", aa.dtype, m, n, k, major, dev)
    bshape = (n, k) if major == "k" else (k, n)  # the kernel's B: [N, K] rows when K-major
    if not sh.batched or not launches:
        if not launches:
            b_rows, a_rows = b, a
        else:  # b [K, N] or [1, ..., K, N]: its one matrix (offset 0)
            b_rows = (_transposer(b, n, k)(b) if major == "k" else b) if len(ba.shape) == 2 \
                else matrix_view(b, 0, *bshape)
            a_rows = rows_view(a, m, k)
        return _gemm_function(a_rows, b_rows, None, entry, m, n, aa.dtype, sh.c_shape)
    # One launch per matrix of c, each at its operands' offsets (views of
    # the right address: the bound launch reads addresses only).
    gemm = _gemm_function(matrix_view(a, sh.a_offsets[0], m, k),
                          matrix_view(b, sh.b_offsets[0], *bshape), None, entry, m, n,
                          aa.dtype, (m, n))  # bound with one matrix of c; called with each
    new_c = _allocator(a, sh.c_shape, aa.dtype)
    offsets = list(zip(sh.a_offsets, sh.b_offsets, sh.c_offsets))

    def run(a, b, bias):
        c = new_c(a)
        for ao, bo, co in offsets:
            gemm(matrix_view(a, ao, m, k), matrix_view(b, bo, *bshape), None,
                 matrix_view(c, co, m, n))
        return c
    return run


def matmul(a, b):
    """a @ b on the tensor cores (the GEMM sample), torch.matmul's
    semantics for 2-D and batched operands: a [..., M, K] and b [..., K, N]
    (or [K, N], broadcast over a's batch: folded into M), float16 or
    bfloat16 alike, f32 accumulation; N and K multiples of 8 (TMA's 16-byte
    row strides). Returns c [..., M, N] of a's dtype. docs/python.md has
    which layouts run and what is refused."""
    if torch is not None and isinstance(a, torch.Tensor):
        if (isinstance(b, torch.Tensor) and not _is_compiling()
                and not ((a.requires_grad or b.requires_grad) and torch.is_grad_enabled())):
            # _matmul_torch's body, one frame less per call.
            key = (a.shape, a.stride(), a.dtype, a.device, b.shape, b.stride(), b.dtype,
                   b.device)
            run = _matmul_calls.get(key)
            if run is None:
                run = _remember(_matmul_calls, key, _matmul_launch(a, b))
            return run(a, b, None)
        return _matmul_run(a, b) if _eager(a, b) else torch.ops.tilec.matmul(a, b)
    return _matmul_run(a, b)


_linear_calls = {}


def _linear_torch(x, w, bias, activation):
    key = (x.shape, x.stride(), x.dtype, x.device, w.shape, w.stride(), w.dtype, w.device,
           None if bias is None else (bias.shape, bias.stride(), bias.dtype, bias.device),
           activation)
    run = _linear_calls.get(key)
    if run is None:
        run = _remember(_linear_calls, key, _linear_launch(x, w, bias, activation))
    return run(x, w, bias)


def _linear_run(x, w, bias, activation):
    arrays = (x, w) if bias is None else (x, w, bias)
    key = _call_key(arrays, bias is None, _activation_code("linear", activation))
    return _function_of(_linear_calls, key,
                        lambda: _linear_launch(x, w, bias, activation))(x, w, bias)


def _linear_launch(x, w, bias, activation):
    """(x, w, bias) -> y: one GEMM of x's rows (leading dims flattened) by
    w [N, K] (K-major B: w itself), the bias and the activation in the
    epilogue."""
    xa, wa, ba, sh, dev, act = _linear_args(x, w, bias, activation)
    m, n, k = sh.m, sh.n, sh.k
    major = "k" if not (m and n and k) or _weight_is_k_major(wa, n, k) else "mn"
    entry = _gemm_entry("linear", xa.dtype, m, n, k, major, dev, act)
    w_rows = w if major == "k" else _transposer(w, k, n)(w)
    return _gemm_function(rows_view(x, m, k) if m and k else x, w_rows, bias, entry, m, n,
                          xa.dtype, sh.c_shape, activation)


def linear(input, weight, bias=None, activation=None):
    """torch.nn.functional.linear on the tensor cores, optionally followed
    by an activation: input [..., K] (any leading dims, flattened into the
    GEMM's rows; contiguous), weight [N, K] (an nn.Linear's weight, as
    stored), bias [N] or None, one dtype of float16 and bfloat16.
    y = act(input @ weight.T + bias) [..., N]: the bias added in f32 and the
    activation computed in f32 in the GEMM's epilogue, before the one
    rounding (no second pass). activation: None, "relu", "gelu" (erf, as
    torch's F.gelu), "gelu_tanh" (F.gelu(approximate="tanh")) or "silu".
    N and K multiples of 8."""
    if activation is not None and (type(activation) is not str
                                   or activation not in _ACTIVATIONS):
        _activation_code("linear", activation)  # raises, naming the nearest
    if torch is not None and isinstance(input, torch.Tensor):
        ts = (input, weight) if bias is None else (input, weight, bias)
        if (all(isinstance(t, torch.Tensor) for t in ts) and not _is_compiling()
                and not (any(t.requires_grad for t in ts) and torch.is_grad_enabled())):
            return _linear_torch(input, weight, bias, activation)
        if _eager(*ts):
            return _linear_run(input, weight, bias, activation)
        if activation in _ACTIVATIONS_IN_TORCH and torch.is_grad_enabled() and any(
                t.requires_grad for t in ts):
            # The backward needs the pre-activation, which the fused kernel
            # does not write: the GEMM (bias fused) writes it, torch applies
            # the activation and differentiates it (_ops_grad's docstring).
            return _torch_activation(torch.ops.tilec.linear(input, weight, bias, None),
                                     activation)
        return torch.ops.tilec.linear(input, weight, bias, activation)
    return _linear_run(input, weight, bias, activation)


# ------------------------------------------------------------------ scaled_mm


def _two_matrices(op, a, b, dtypes, takes, one_dtype):
    """tilec.ops.{op}'s a [M, K] and b [K, N]: 2-D, one dtype of `dtypes`."""
    aa, ba = Arg(op, "a", a), Arg(op, "b", b)
    for x in (aa, ba):
        if len(x.shape) != 2:
            raise OpArgumentError(f"tilec.ops.{op}: argument '{x.name}' has shape "
                                  f"{list(x.shape)}: a is [M, K] and b [K, N] (2-D; for a "
                                  f"batch, call it per matrix)")
        if x.dtype not in dtypes:
            raise OpTypeError(f"tilec.ops.{op}: argument '{x.name}' has dtype {x.dtype}; {takes}")
    if aa.dtype != ba.dtype:
        raise OpTypeError(f"tilec.ops.{op}: a is {aa.dtype} and b {ba.dtype}: {one_dtype}")
    m, k = aa.shape
    k2, n = ba.shape
    if k2 != k:
        raise OpArgumentError(f"tilec.ops.{op}: a is [{m}, {k}] and b [{k2}, {n}]: a's "
                              f"columns must be b's rows")
    return aa, ba, m, n, k


def _scaled_args(a, b, scale_a, scale_b, bias, scale_result, out_dtype):
    op = "scaled_mm"
    if bias is not None:
        raise OpArgumentError("tilec.ops.scaled_mm: bias is not supported (the kernels have no "
                              "bias epilogue): add it to the result")
    if scale_result is not None:
        raise OpArgumentError("tilec.ops.scaled_mm: scale_result is not supported (the output "
                              "is bfloat16, not fp8)")
    od = _dtype_name(out_dtype)
    if od != "bf16":
        raise OpTypeError(f"tilec.ops.scaled_mm: out_dtype {out_dtype} is not supported: the "
                          f"kernels write bfloat16 (pass out_dtype=torch.bfloat16)")
    aa, ba, m, n, k = _two_matrices(
        op, a, b, ("e4m3", "e5m2"),
        "it takes torch.float8_e4m3fn or torch.float8_e5m2 (f16/bf16: tilec.ops.matmul)",
        "the kernels take one fp8 format for both")
    if not aa.contiguous():
        raise OpArgumentError(f"tilec.ops.scaled_mm: argument 'a' (strides {list(aa.strides)}) "
                              f"must be row-major, as torch._scaled_mm asks: a.contiguous()")
    if not (ba.strides[0] == 1 and (ba.strides[1] == k or n == 1)):
        raise OpArgumentError(f"tilec.ops.scaled_mm: argument 'b' (strides "
                              f"{list(ba.strides)}) must be column-major, as torch._scaled_mm "
                              f"asks (fp8 wgmma reads B K-major): b.t().contiguous().t()")
    if k % 16 or n % 8:
        raise OpArgumentError(f"tilec.ops.scaled_mm: {m}x{n}x{k} rejected: K must be a multiple "
                              f"of 16 and N of 8 (TMA's 16-byte row strides of A, B and the "
                              f"bf16 C); pad with zeros")
    sa, sb = Arg(op, "scale_a", scale_a), Arg(op, "scale_b", scale_b)
    for s in (sa, sb):
        if s.dtype != "f32":
            raise OpTypeError(f"tilec.ops.scaled_mm: argument '{s.name}' has dtype {s.dtype}; "
                              f"scales are float32 tensors")
    numel = lambda s: math.prod(s.shape)  # noqa: E731
    if numel(sa) == 1 and numel(sb) == 1:
        rowcol = False
    elif tuple(sa.shape) == (m, 1) and tuple(sb.shape) == (1, n):
        rowcol = True
    else:
        raise OpArgumentError(f"tilec.ops.scaled_mm: scale_a {list(sa.shape)} and scale_b "
                              f"{list(sb.shape)}: per tensor both have one element; per row "
                              f"and column scale_a is [M, 1] = [{m}, 1] and scale_b [1, N] = "
                              f"[1, {n}]")
    for s in (sa, sb):
        _need_contiguous("scaled_mm", s, "the scales")
    dev = _same_device("scaled_mm", aa, ba, sa, sb)
    return aa, ba, sa, sb, m, n, k, rowcol, dev


def _dtype_name(dt):
    if dt is None:
        return None
    from ._family import _NAMES
    s = str(dt)
    s = s[6:] if s.startswith("torch.") else s
    return _NAMES.get(s, s)


def plan_scaled_mm(a, b, scale_a, scale_b, out_dtype=None):
    """The kernel tilec.ops.scaled_mm runs (fp8.h / fp8_small.h's choice)."""
    aa, ba, sa, sb, m, n, k, rowcol, dev = _scaled_args(a, b, scale_a, scale_b, None, None,
                                                        out_dtype if out_dtype else "bf16")
    return fields(_tilec._fp8_plan(aa.dtype, m, n, k, rowcol, sm_count(dev or 0)),
                  "tilec.ops.plan_scaled_mm's plan")


def _padded(s, length):
    """A per-row/column scale vector padded with ones to `length` (the
    kernel reads whole 256-row units)."""
    if torch is not None and isinstance(s, torch.Tensor):
        out = torch.ones(length, dtype=torch.float32, device=s.device)
        out[:s.numel()].copy_(s.reshape(-1))
        return out
    raise OpArgumentError("tilec.ops.scaled_mm: per-row/column scales need torch tensors")


def _scaled_entry(a, b, scale_a, scale_b):
    aa, ba, sa, sb, m, n, k, rowcol, dev = _scaled_args(a, b, scale_a, scale_b, None, None,
                                                        "bf16")
    if m == 0 or n == 0 or k == 0:
        return (None, "empty" if m == 0 or n == 0 else "zero", None, rowcol, m, n, k)
    plan = _tilec._fp8_plan(aa.dtype, m, n, k, rowcol, sm_count(dev))
    kern = kernel_of("scaled_mm", plan, dev)
    grid = persistent_grid(kern, plan, dev) if plan["variant"] == "persistent" else plan["grid"]
    return (kern, plan["variant"], grid, rowcol, m, n, k)


_scaled_calls = {}


def _scaled_torch(a, b, scale_a, scale_b):
    """A call on torch tensors."""
    sa, sb = scale_a, scale_b
    key = (a.shape, a.stride(), a.dtype, a.device, b.shape, b.stride(), b.dtype, b.device,
           sa.shape, sa.stride(), sa.dtype, sa.device, sb.shape, sb.stride(), sb.dtype, sb.device)
    run = _scaled_calls.get(key)
    if run is None:
        run = _remember(_scaled_calls, key, _scaled_launch(a, b, sa, sb))
    return run(a, b, sa, sb)


def _scaled_run(a, b, scale_a, scale_b):
    """A call on any arrays."""
    return _function_of(_scaled_calls, _call_key((a, b, scale_a, scale_b)),
                        lambda: _scaled_launch(a, b, scale_a, scale_b))(a, b, scale_a, scale_b)


def _scaled_launch(a, b, scale_a, scale_b):
    """The function every call with these shapes, strides, dtypes and
    devices runs: (a, b, scale_a, scale_b) -> c."""
    kern, mode, grid, rowcol, m, n, k = _scaled_entry(a, b, scale_a, scale_b)
    if kern is None:  # M, N or K = 0: nothing to launch
        new_c = _allocator(a, (m, n), "bf16", zero=mode == "zero")
        return lambda a, b, sa, sb: new_c(a)
    new_c = _allocator(a, (m, n), "bf16")
    scales = (lambda s, length: s) if not rowcol else _padded
    rows, cols = (m + 255) // 256 * 256, (n + 255) // 256 * 256
    # Bound with these arrays (b as the kernel's [N, K] rows); a call passes
    # its arrays' addresses (b.t()'s is b's).
    launch = kern[grid]._bind(a, _transposer(b, n, k)(b), new_c(a), scales(scale_a, rows),
                              scales(scale_b, cols))
    if rowcol:
        def run(a, b, sa, sb):
            c = new_c(a)
            launch(a, b, c, _padded(sa, rows), _padded(sb, cols))
            return c
    else:
        def run(a, b, sa, sb):
            c = new_c(a)
            launch(a, b, c, sa, sb)
            return c
    return run


def scaled_mm(a, b, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
              use_fast_accum=False):
    """torch._scaled_mm's contract on tilec's fp8 GEMMs: a [M, K] row-major
    and b [K, N] column-major (b.t() contiguous), both float8_e4m3fn or both
    float8_e5m2; scale_a and scale_b float32, one element each (per tensor)
    or [M, 1] and [1, N] (per row / column); out_dtype must be
    torch.bfloat16; c = (a * scale_a) @ (b * scale_b) in f32, rounded to
    bf16. K a multiple of 16, N of 8. bias and scale_result are refused;
    use_fast_accum is accepted and changes nothing (the kernels accumulate K
    in the wgmma's f32 accumulator)."""
    if torch is not None and isinstance(a, torch.Tensor):
        if bias is not None or scale_result is not None or out_dtype != torch.bfloat16:
            _scaled_args(a, b, scale_a, scale_b, bias, scale_result, out_dtype)  # raises
        if (isinstance(b, torch.Tensor) and isinstance(scale_a, torch.Tensor)
                and isinstance(scale_b, torch.Tensor) and not _is_compiling()
                and not ((a.requires_grad or b.requires_grad or scale_a.requires_grad
                          or scale_b.requires_grad) and torch.is_grad_enabled())):
            return _scaled_torch(a, b, scale_a, scale_b)
        if _eager(a, b, scale_a, scale_b):
            return _scaled_run(a, b, scale_a, scale_b)
        return torch.ops.tilec.scaled_mm(a, b, scale_a, scale_b)
    _scaled_args(a, b, scale_a, scale_b, bias, scale_result, out_dtype)
    return _scaled_run(a, b, scale_a, scale_b)


if torch is not None:
    from ._ops_torch import register as _register
    _register(torch, _attention_torch, _attention_args, _matmul_torch, _matmul_args,
              _linear_torch, _linear_args, _scaled_torch, _scaled_args)
