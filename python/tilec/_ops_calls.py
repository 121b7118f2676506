"""tilec.ops's call path, shared by its operations: per key (the arrays'
shapes, strides, dtypes, devices and the options), the function made for
it; output allocation, [rows, cols] views and the split kernels' scratch
per stream."""

import math

from . import _tilec
from ._ops_kernels import View

try:
    import torch
except ImportError:  # tilec.ops without torch: DeviceArrays only
    torch = None

# A call's checks, plan and kernel depend only on its arrays' shapes, strides,
# dtypes and devices and its options. Per such key, an operation keeps the
# function made for it (_matmul_calls, ...), which allocates the outputs and
# launches: a repeated call costs reading its key, a dict lookup, the outputs'
# allocation and the launch. On torch tensors the key is read inline (the
# _*_torch functions), eagerly: not under torch.compile and with no input that
# needs grad. The torch custom ops (tilec::attention, ...) are for
# torch.compile and autograd: their dispatch alone costs tens of
# microseconds. Arrays without a key (__cuda_array_interface__ objects, whose
# layout is read per call) make their function per call.

_CACHE_MAX = 1024
_TORCH_DTYPES = {}
_scratch = {}  # (device index, stream) -> (f32 workspace, zeroed i32 tile flags, their sizes)

if torch is not None:
    _is_compiling = torch.compiler.is_compiling
    # torch.cuda.is_current_stream_capturing's own call (one frame less per call).
    _capturing = getattr(torch._C, "_cuda_isCurrentStreamCapturing",
                         torch.cuda.is_current_stream_capturing)
    _raw_stream = torch._C._cuda_getCurrentRawStream  # as the launch reads its stream


def _eager(*tensors):
    if _is_compiling():
        return False
    return not (torch.is_grad_enabled() and any(t.requires_grad for t in tensors
                                                if isinstance(t, torch.Tensor)))


def _array_key(x):
    if torch is not None and isinstance(x, torch.Tensor):
        return (x.shape, x.stride(), x.dtype, x.device)
    if isinstance(x, _tilec.DeviceArray):
        return (x.shape, x.dtype, x.device)
    return None


def _call_key(arrays, *options):
    key = []
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


def _remember(table, key, run):
    if len(table) >= _CACHE_MAX:
        table.clear()
    table[key] = run
    return run


def _function_of(table, key, make):
    """The function of `key` in `table`, made by make() the first time (a
    call that is refused is not remembered); with no key, made anew."""
    if key is None:
        return make()
    run = table.get(key)
    return run if run is not None else _remember(table, key, make())


def _torch_dtype(dtype):
    t = _TORCH_DTYPES.get(dtype)
    if t is None:
        t = _TORCH_DTYPES[dtype] = {"f16": torch.float16, "bf16": torch.bfloat16,
                                    "f32": torch.float32, "i32": torch.int32}[dtype]
    return t


def _allocator(like, shape, dtype, zero=False):
    """A function of an array like `like` making an array of `shape` and tile
    dtype `dtype` on its device (zeroed when `zero`): a torch tensor for a
    torch `like`, else a DeviceArray."""
    if torch is not None and isinstance(like, torch.Tensor):
        make, dt, device = torch.zeros if zero else torch.empty, _torch_dtype(dtype), like.device
        if dt == like.dtype and not zero:
            return lambda x: x.new_empty(shape)  # torch's quickest allocation
        return lambda x: make(shape, dtype=dt, device=device)
    from . import empty
    device = getattr(like, "device", 0)
    if not zero:
        return lambda x: empty(shape, dtype, device=device)

    def zeros(x):
        a = empty(shape, dtype, device=device)
        a.fill_bytes(0)
        return a
    return zeros


def _shape(x):
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else tuple(x.__cuda_array_interface__["shape"])


def _rows_of(x, cols):
    """A function viewing an array like x (contiguous: checked when the
    function was made) as [rows, cols]."""
    rows = math.prod(_shape(x)) // cols
    if torch is not None and isinstance(x, torch.Tensor):
        return lambda t: t.view(rows, cols)
    return lambda a: View(a, (rows, cols))


def _transposer(b, n, k):
    """A function viewing an array like b ([K, N] column-major) as the
    kernel's [N, K] rows."""
    if torch is not None and isinstance(b, torch.Tensor):
        return torch.Tensor.t
    return lambda a: View(a, (n, k))


def _scratch_for(device, index, floats, flags):
    """A split kernel's f32 workspace and zeroed tile flags on torch's current
    stream of `device`: one pair per device and stream, grown to the largest
    call, as cuBLAS keeps a workspace per stream (calls on one stream run in
    order; the kernels reset every flag they use); fresh ones during CUDA
    graph capture (the graph's memory pool keeps them)."""
    if _capturing():
        return (torch.empty(floats, dtype=torch.float32, device=device),
                torch.zeros(flags, dtype=torch.int32, device=device), floats, flags)
    key = (index, _raw_stream(index))
    s = _scratch.get(key)
    if s is None or s[2] < floats or s[3] < flags:
        # Allocated on this stream: torch's allocator hands a replaced buffer
        # only to work queued after it there.
        floats, flags = max(floats, s[2] if s else 1), max(flags, s[3] if s else 4096)
        s = _scratch[key] = (torch.empty(floats, dtype=torch.float32, device=device),
                             torch.zeros(flags, dtype=torch.int32, device=device), floats, flags)
    return s


def _scratch_maker(like, floats, flags):
    """A function giving a split kernel's (workspace, zeroed flags, ...) for
    a call on arrays like `like`: per stream for torch tensors, else new."""
    if torch is not None and isinstance(like, torch.Tensor):
        device = like.device
        return lambda: _scratch_for(device, device.index, floats, flags)
    workspace = _allocator(like, (floats,), "f32")
    zeroed_flags = _allocator(like, (flags,), "i32", zero=True)
    return lambda: (workspace(like), zeroed_flags(like))
