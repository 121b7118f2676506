"""tilec.ops: the samples' attention and GEMM kernels as PyTorch functions.

    import tilec.ops
    o = tilec.ops.attention(q, k, v, causal=True)            # q [B, H, Sq, D], k, v [B, Hkv, Sk, D]
    o, lse = tilec.ops.attention(q, k, v, return_lse=True)    # lse [B, H, Sq] f32, natural log
    c = tilec.ops.matmul(a, b)                                # a [M, K] @ b [K, N], f16 / bf16
    c = tilec.ops.scaled_mm(a8, b8, scale_a, scale_b, out_dtype=torch.bfloat16)  # torch._scaled_mm's contract

Each call picks the kernel instance the sample's C++ host picks for the
shape (the rule tables of samples/attention/attention_common.h and
samples/gemm/gemm_choice.h, fp8.h and fp8_small.h, compiled into the
extension: tilec.ops.plan_attention / plan_matmul / plan_scaled_mm show the
choice), launches it on the current torch stream and returns new tensors.
With torch, each operation is a torch.library custom op (tilec::attention,
tilec::matmul, tilec::scaled_mm), so torch.compile(fullgraph=True) and CUDA
graph capture take it; none has a backward (a clear error if one is asked
for). Without torch the functions take tilec.DeviceArray (or
__cuda_array_interface__) arrays and return DeviceArrays. docs/python.md,
"tilec.ops", is the reference.
"""

import math

from . import _tilec
from ._ops_kernels import (Arg, OpArgumentError, OpTypeError, View, is_torch, kernel_of,
                           persistent_grid, sm_count, zeros_i32)

try:
    import torch
except ImportError:  # tilec.ops without torch: DeviceArrays only
    torch = None

__all__ = ["attention", "matmul", "scaled_mm", "plan_attention", "plan_matmul",
           "plan_scaled_mm", "OpArgumentError", "OpTypeError"]

_HEAD_DIMS = (64, 128, 256)
_I32 = 2 ** 31


def _same_device(op, *args):
    devs = {a.device for a in args}
    if len(devs) > 1:
        names = ", ".join(f"'{a.name}' on cuda:{a.device}" for a in args)
        raise OpArgumentError(f"tilec.ops.{op}: the arguments are on different devices "
                              f"({names}): move them to one (.to(device))")
    return args[0].device


def _need_contiguous(op, a, what):
    if not a.contiguous():
        raise OpArgumentError(
            f"tilec.ops.{op}: argument '{a.name}' (shape {list(a.shape)}, strides "
            f"{list(a.strides)}) is not contiguous: the kernel reads {what} through a TMA tensor "
            f"map of whole rows, which these strides cannot describe; pass "
            f"{a.name}.contiguous()")


# ------------------------------------------------------------------ the call path
# A call's checks, plan and kernel depend only on its arrays' shapes, strides,
# dtypes and devices and its options: they are made once per such key and
# reused (a dict lookup), so a repeated call costs the outputs' allocation and
# the launch. Eagerly (not under torch.compile, no input that needs grad) the
# functions run the launch directly; the torch custom ops (tilec::attention,
# ...) are for torch.compile and autograd's error, and their dispatch alone
# costs tens of microseconds.

_CACHE_MAX = 1024
_calls = {}
_TORCH_DTYPES = {}
_flag_buffers = {}  # (device, stream) -> zeroed i32 tile flags (the kernels leave them zero)


def _eager(*tensors):
    if torch.compiler.is_compiling():
        return False
    return not (torch.is_grad_enabled() and any(t.requires_grad for t in tensors
                                                if isinstance(t, torch.Tensor)))


def _array_key(x):
    if torch is not None and isinstance(x, torch.Tensor):
        return (x.shape, x.stride(), x.dtype, x.device)
    if isinstance(x, _tilec.DeviceArray):
        return (x.shape, x.dtype, x.device)
    return None


def _call_key(op, arrays, *options):
    key = [op]
    for x in arrays:
        k = _array_key(x)
        if k is None:
            return None
        key.append(k)
    for o in options:
        if o is not None and type(o) not in (bool, int, float):
            return None  # checked (and refused) by the call itself
        key.append((type(o), o))
    return tuple(key)


def _cached(key, make):
    if key is None:
        return make()
    e = _calls.get(key)
    if e is None:
        e = make()
        if len(_calls) >= _CACHE_MAX:
            _calls.clear()
        _calls[key] = e
    return e


def _empty(like, shape, dtype):
    if torch is not None and isinstance(like, torch.Tensor):
        t = _TORCH_DTYPES.get(dtype)
        if t is None:
            t = _TORCH_DTYPES[dtype] = {"f16": torch.float16, "bf16": torch.bfloat16,
                                        "f32": torch.float32, "i32": torch.int32}[dtype]
        return torch.empty(shape, dtype=t, device=like.device)
    from . import empty
    return empty(tuple(shape), dtype, device=getattr(like, "device", 0))


def _shape(x):
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else tuple(x.__cuda_array_interface__["shape"])


def _rows(x, cols):
    """x as [rows, cols] (contiguous x: checked when the call's entry was made)."""
    if torch is not None and isinstance(x, torch.Tensor):
        return x.view(-1, cols)
    return View(x, (math.prod(_shape(x)) // cols, cols))


def _transposed(b, n, k):
    """b [K, N] column-major as the kernel's [N, K] rows."""
    if torch is not None and isinstance(b, torch.Tensor):
        return b.t()
    return View(b, (n, k))


def _flags(like, n):
    """Tile flags, zero: one buffer per device and stream, made once (the
    split kernels reset every flag they use); fresh during graph capture."""
    if not (torch is not None and isinstance(like, torch.Tensor)):
        return zeros_i32(Arg("flags", "like", like), n)
    if torch.cuda.is_current_stream_capturing():
        return torch.zeros(n, dtype=torch.int32, device=like.device)
    key = (like.device, torch.cuda.current_stream(like.device).cuda_stream)
    f = _flag_buffers.get(key)
    if f is None or f.numel() < n:
        f = _flag_buffers[key] = torch.zeros(max(n, 4096), dtype=torch.int32, device=like.device)
    return f


# ------------------------------------------------------------------ attention


def _attention_args(q, k, v, causal, scale):
    op = "attention"
    qa, ka, va = Arg(op, "q", q), Arg(op, "k", k), Arg(op, "v", v)
    for a in (qa, ka, va):
        if len(a.shape) != 4:
            raise OpArgumentError(
                f"tilec.ops.attention: argument '{a.name}' has shape {list(a.shape)}; q is "
                f"[B, H, Sq, D] and k, v [B, Hkv, Sk, D] (FlashAttention's [B, S, H, D] is "
                f"{a.name}.transpose(1, 2).contiguous())")
        if a.dtype not in ("f16", "bf16"):
            raise OpTypeError(f"tilec.ops.attention: argument '{a.name}' has dtype {a.dtype}; "
                              f"the kernel takes float16 or bfloat16 (.half() / .bfloat16())")
    if not (qa.dtype == ka.dtype == va.dtype):
        raise OpTypeError(f"tilec.ops.attention: q, k and v have dtypes {qa.dtype}, {ka.dtype}, "
                          f"{va.dtype}: they must be one (convert k and v to q's)")
    b, h, sq, d = qa.shape
    bk, hk, sk, dk = ka.shape
    if tuple(va.shape) != tuple(ka.shape):
        raise OpArgumentError(f"tilec.ops.attention: v has shape {list(va.shape)}, k "
                              f"{list(ka.shape)}: they must be equal (the kernel's V head dim "
                              f"is K's)")
    if bk != b or dk != d:
        raise OpArgumentError(f"tilec.ops.attention: k has shape {list(ka.shape)}, q "
                              f"{list(qa.shape)}: batch and head dim must match")
    if d not in _HEAD_DIMS:
        raise OpArgumentError(f"tilec.ops.attention: head dim D = {d} (q's last extent) is not "
                              f"compiled; the kernel takes D = 64, 128 or 256 (pad the head dim "
                              f"with zeros and pass scale=1/sqrt(D) of the original)")
    if hk < 1 or h % hk:
        raise OpArgumentError(f"tilec.ops.attention: q has {h} heads and k, v {hk}: grouped-"
                              f"query attention needs q's heads to be a multiple of k's")
    if b * h * sq >= _I32 or b * hk * sk >= _I32:
        raise OpArgumentError("tilec.ops.attention: more than 2^31 rows of q or k (B * H * S): "
                              "split the batch")
    for a in (qa, ka, va):
        _need_contiguous("attention", a, "[B * H * S, D] rows")
    dev = _same_device("attention", qa, ka, va)
    if not isinstance(causal, bool):
        raise OpTypeError(f"tilec.ops.attention: causal must be a bool, not {causal!r}")
    if scale is not None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or \
                not math.isfinite(scale):
            raise OpTypeError(f"tilec.ops.attention: scale must be a finite float or None "
                              f"(1/sqrt(D)), not {scale!r}")
    return qa, ka, va, dev


def plan_attention(q, k, v, causal=False, scale=None):
    """The instance tilec.ops.attention runs for these arguments (a dict:
    kernel, compile-time args, grid, block_m, PTX), without running it."""
    qa, ka, va, dev = _attention_args(q, k, v, causal, scale)
    b, h, sq, d = qa.shape
    return _tilec._attention_plan(qa.dtype, d, causal, sq, h, b, sm_count(dev or 0))


def _attention_entry(q, k, v, causal, scale):
    """What every call with these shapes, strides, dtypes and options
    repeats: checked once, then (kernel, grid, ...)."""
    qa, ka, va, dev = _attention_args(q, k, v, causal, scale)
    b, h, sq, d = qa.shape
    hk, sk = ka.shape[1], ka.shape[2]
    if b * h * sq == 0:
        return (None, None, False, d, sq, sk, h, 1, b, sq, 0.0, qa.dtype)
    if sk == 0:
        raise OpArgumentError("tilec.ops.attention: k and v have no keys (Sk = 0): every row "
                              "would see no key")
    plan = _tilec._attention_plan(qa.dtype, d, causal, sq, h, b, sm_count(dev))
    kern = kernel_of("attention", plan, dev)
    bm = plan["block_m"]
    sl2 = float(1.0 / math.sqrt(d) if scale is None else scale) * math.log2(math.e)
    return (kern, plan["grid"], plan["persistent"], d, sq, sk, h, h // hk, b,
            (sq + bm - 1) // bm * bm, sl2, qa.dtype)


def _attention_run(q, k, v, causal, scale):
    key = _call_key("attention", (q, k, v), causal, scale)
    e = _cached(key, lambda: _attention_entry(q, k, v, causal, scale))
    kern, grid, persistent, d, sq, sk, h, g, b, lse_rows, sl2, dt = e
    o = _empty(q, (b, h, sq, d), dt)
    lse = _empty(q, (b, h, lse_rows), "f32")
    if kern is None:
        return o, lse, sq
    q2, k2, v2 = _rows(q, d), _rows(k, d), _rows(v, d)
    if persistent:
        kern[grid](q2, k2, v2, o, lse, sq, sk, h, g, b, sl2)
    else:
        kern[grid](q2, k2, v2, o, lse, sq, sk, h, g, sl2)
    return o, lse, sq


def attention(q, k, v, causal=False, scale=None, *, return_lse=False):
    """softmax(scale * q k^T + mask) v, FlashAttention-3 style (the attention
    sample). q [B, H, Sq, D], k and v [B, Hkv, Sk, D] (H a multiple of Hkv:
    grouped-query attention), contiguous, float16 or bfloat16, D = 64, 128 or
    256, any Sq and Sk. causal: query i sees keys j <= i + Sk - Sq (aligned
    bottom-right, FlashAttention's convention; SDPA's is_causal aligns
    top-left, the same when Sq == Sk). scale: default 1/sqrt(D). Returns o
    [B, H, Sq, D] (q's dtype), and with return_lse=True also lse [B, H, Sq]
    (float32, natural log; -inf for a row that sees no key, whose o is 0)."""
    if torch is not None and isinstance(q, torch.Tensor):
        if not isinstance(causal, bool) or (scale is not None and (
                isinstance(scale, bool) or not isinstance(scale, (int, float)))):
            _attention_args(q, k, v, causal, scale)  # raises, naming the argument
        scale = None if scale is None else float(scale)
        if _eager(q, k, v):
            o, lse, sq = _attention_run(q, k, v, causal, scale)
            if return_lse and lse.shape[-1] != sq:
                lse = lse[..., :sq].contiguous()
        else:
            o, lse = torch.ops.tilec.attention(q, k, v, causal, scale)
        return (o, lse) if return_lse else o
    o, lse, sq = _attention_run(q, k, v, causal, scale)
    return (o, lse) if return_lse else o


# ------------------------------------------------------------------ matmul


def _b_major(op, ba, k, n):
    """'k' when b [K, N] is column-major (b.t() contiguous: [N, K] rows, an
    nn.Linear weight's .t()), 'mn' when row-major, else a refusal."""
    ks, ns = ba.strides
    if ns == 1 and (ks == n or k == 1):
        return "mn"
    if ks == 1 and (ns == k or n == 1):
        return "k"
    raise OpArgumentError(
        f"tilec.ops.{op}: argument 'b' (shape {list(ba.shape)}, strides {list(ba.strides)}) "
        f"is neither row-major [K, N] nor column-major (b.t() contiguous): pass b.contiguous()")


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


def _matmul_args(a, b):
    aa, ba, m, n, k = _two_matrices(
        "matmul", a, b, ("f16", "bf16"),
        "the kernel takes float16 or bfloat16 (fp8: tilec.ops.scaled_mm)", "they must be one dtype")
    if m and k and not aa.contiguous():
        raise OpArgumentError(f"tilec.ops.matmul: argument 'a' (strides {list(aa.strides)}) is "
                              f"not row-major: the kernel reads A's rows by TMA; pass "
                              f"a.contiguous()")
    dev = _same_device("matmul", aa, ba)
    return aa, ba, m, n, k, dev


def plan_matmul(a, b):
    """The kernel tilec.ops.matmul runs for a @ b (gemm::ruleChoice's pick)."""
    aa, ba, m, n, k, dev = _matmul_args(a, b)
    major = _b_major("matmul", ba, k, n)
    return _tilec._gemm_plan(aa.dtype, m, n, k, major == "k", sm_count(dev or 0))


def _matmul_entry(a, b):
    aa, ba, m, n, k, dev = _matmul_args(a, b)
    if m == 0 or n == 0 or k == 0:
        return (None, "empty" if m == 0 or n == 0 else "zero", None, 0, 0, 1, None, m, n, k,
                aa.dtype)
    major = _b_major("matmul", ba, k, n)
    why = _tilec._gemm_alignment_problem(m, n, k, major == "k")
    if why:
        raise OpArgumentError(f"tilec.ops.matmul: {m}x{n}x{k} rejected: {why}; pad K and N to "
                              f"multiples of 8 with zeros")
    plan = _tilec._gemm_plan(aa.dtype, m, n, k, major == "k", sm_count(dev))
    kern = kernel_of("matmul", plan, dev)
    persistent = plan["variant"] == "persistent"
    grid = persistent_grid(kern, plan, dev) if persistent else plan["grid"]
    return (kern, "persistent" if persistent else "split", grid, plan["workspace_floats"],
            plan["flags"], plan["splits"], major, m, n, k, aa.dtype)


def _matmul_run(a, b):
    e = _cached(_call_key("matmul", (a, b)), lambda: _matmul_entry(a, b))
    kern, mode, grid, ws_floats, nflags, splits, major, m, n, k, dt = e
    c = _empty(a, (m, n), dt)
    if kern is None:
        return c if mode == "empty" else _zero(c)
    B = _transposed(b, n, k) if major == "k" else b
    if mode == "persistent":
        kern[grid](a, B, c)
    else:
        kern[grid](a, B, c, _empty(a, (ws_floats,), "f32"), _flags(a, nflags), splits)
    return c


def _zero(c):
    if is_torch(c):
        return c.zero_()
    c.fill_bytes(0)
    return c


def matmul(a, b):
    """a @ b on the tensor cores (the GEMM sample): a [M, K] row-major, b
    [K, N] row-major or column-major (b.t() contiguous, as an nn.Linear
    weight's .t()), both float16 or both bfloat16, f32 accumulation; any M,
    N and K multiples of 8 (TMA's 16-byte row strides). Returns c [M, N] of
    a's dtype."""
    if torch is not None and isinstance(a, torch.Tensor):
        return _matmul_run(a, b) if _eager(a, b) else torch.ops.tilec.matmul(a, b)
    return _matmul_run(a, b)


# ------------------------------------------------------------------ scaled_mm


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
    return _tilec._fp8_plan(aa.dtype, m, n, k, rowcol, sm_count(dev or 0))


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


def _scaled_run(a, b, scale_a, scale_b):
    e = _cached(_call_key("scaled_mm", (a, b, scale_a, scale_b)),
                lambda: _scaled_entry(a, b, scale_a, scale_b))
    kern, mode, grid, rowcol, m, n, k = e
    c = _empty(a, (m, n), "bf16")
    if kern is None:
        return c if mode == "empty" else _zero(c)
    SA, SB = scale_a, scale_b
    if rowcol:
        SA, SB = _padded(scale_a, (m + 255) // 256 * 256), _padded(scale_b, (n + 255) // 256 * 256)
    kern[grid](a, _transposed(b, n, k), c, SA, SB)
    return c


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
        if _eager(a, b, scale_a, scale_b):
            return _scaled_run(a, b, scale_a, scale_b)
        return torch.ops.tilec.scaled_mm(a, b, scale_a, scale_b)
    _scaled_args(a, b, scale_a, scale_b, bias, scale_result, out_dtype)
    return _scaled_run(a, b, scale_a, scale_b)


if torch is not None:
    from ._ops_torch import register as _register
    _register(torch, _attention_run, _attention_args, _matmul_run, _matmul_args, _scaled_run,
              _scaled_args)
