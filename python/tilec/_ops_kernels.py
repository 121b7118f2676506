"""What tilec.ops shares between its operations: reading an argument (torch
tensor, tilec.DeviceArray or __cuda_array_interface__ array) into its shape,
strides, dtype and device, with each refusal naming the operation, the
argument and the fix; and the kernels of a
plan (the samples' choice, computed by the extension from the C++ hosts'
rule tables: python/src/choice.cpp), loaded from prebuilt PTX or compiled."""

import os
import sys
import threading
import warnings

from . import _tilec
from ._errors import CompileWarning, Error
from ._family import _dtype_of

# ------------------------------------------------------------------ arguments


class OpArgumentError(ValueError):
    """A tilec.ops call refused before anything runs (the argument, the
    operation and the fix are in the message)."""


class OpTypeError(TypeError):
    """A tilec.ops argument of the wrong kind or dtype."""


def _torch_mod():
    return sys.modules.get("torch")


def is_torch(x):
    t = _torch_mod()
    return t is not None and isinstance(x, t.Tensor)


class Arg:
    """One array argument: name, shape, strides (elements), tile dtype name,
    device index (None: host memory), and the object."""

    __slots__ = ("name", "obj", "shape", "strides", "dtype", "device", "torch")

    def __init__(self, op, name, obj):
        self.name, self.obj = name, obj
        self.torch = is_torch(obj)
        if self.torch:
            self.shape = tuple(obj.shape)
            self.strides = tuple(obj.stride())
            self.device = obj.device.index if obj.device.type == "cuda" else None
            if obj.device.type == "cuda" and self.device is None:
                self.device = _torch_mod().cuda.current_device()
            if obj.device.type not in ("cuda", "meta"):
                raise OpArgumentError(
                    f"tilec.ops.{op}: argument '{name}' is on the {obj.device.type} device; "
                    f"tilec runs on CUDA devices: pass {name}.cuda()")
        elif isinstance(obj, _tilec.DeviceArray):
            self.shape = tuple(obj.shape)
            self.strides = contiguous_strides(self.shape)
            self.device = obj.device
        else:
            cai = getattr(obj, "__cuda_array_interface__", None)
            if not isinstance(cai, dict):
                raise OpTypeError(
                    f"tilec.ops.{op}: argument '{name}' is a {type(obj).__name__}, not an "
                    f"array: pass a torch.Tensor on a CUDA device (or a tilec.DeviceArray)")
            self.shape = tuple(cai["shape"])
            dt = _dtype_of(obj)
            size = {"f16": 2, "bf16": 2, "f32": 4, "e4m3": 1, "e5m2": 1}.get(dt, 1)
            st = cai.get("strides")
            self.strides = (tuple(s // size for s in st) if st
                            else contiguous_strides(self.shape))
            self.device = 0
        self.dtype = _dtype_of(obj)
        if self.dtype is None:  # unknown: its typestr ("<V2": raw bytes) for the message
            cai = getattr(obj, "__cuda_array_interface__", None)
            self.dtype = cai.get("typestr") if isinstance(cai, dict) else "unknown"

    def contiguous(self):
        return all(st == want for d, st, want in
                   zip(self.shape, self.strides, contiguous_strides(self.shape)) if d != 1)

    def rows_view(self, cols):
        """The array as a 2-D [rows, cols] view (no copy; contiguous only)."""
        rows = 1
        for d in self.shape:
            rows *= d
        rows //= cols
        if self.torch:
            return self.obj.view(rows, cols)
        return View(self.obj, (rows, cols))


def contiguous_strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(out))


class View:
    """A reshaped view of a non-torch array (its __cuda_array_interface__
    with another shape), for the kernels' 2-D tensor parameters."""

    def __init__(self, base, shape, offset=0):
        cai = dict(base.__cuda_array_interface__)
        cai["shape"] = tuple(shape)
        cai["strides"] = None
        if offset:  # `offset` elements into base (a matrix of a batch)
            from ._family import _dtype_of
            size = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4}.get(_dtype_of(base), 1)
            cai["data"] = (cai["data"][0] + offset * size, cai["data"][1])
        self.__cuda_array_interface__ = cai
        self.dtype = getattr(base, "dtype", None)
        self.device = getattr(base, "device", 0)
        self._base = base


def same_device(op, *args):
    devs = {a.device for a in args}
    if len(devs) > 1:
        names = ", ".join(f"'{a.name}' on cuda:{a.device}" for a in args)
        raise OpArgumentError(f"tilec.ops.{op}: the arguments are on different devices "
                              f"({names}): move them to one (.to(device))")
    return args[0].device


def need_contiguous(op, a, what):
    if not a.contiguous():
        raise OpArgumentError(
            f"tilec.ops.{op}: argument '{a.name}' (shape {list(a.shape)}, strides "
            f"{list(a.strides)}) is not contiguous: the kernel reads {what} through a TMA tensor "
            f"map of whole rows, which these strides cannot describe; pass "
            f"{a.name}.contiguous()")


# ------------------------------------------------------------------ kernels

_lock = threading.RLock()
_kernels = {}   # (define, cluster option, device) -> Kernel
_modules = {}   # (PTX path, device) -> Module
_sms = {}       # device -> SM count
_clusters = {}  # (kernel entry, device) -> max active clusters


def sm_count(device):
    n = _sms.get(device)
    if n is None:
        n = _sms[device] = _tilec.sm_count(device)
    return n


def ptx_dirs():
    """Where prebuilt PTX of the samples is looked for, in order:
    $TILEC_OPS_PTX_DIR (a folder, or several separated by os.pathsep: a
    bundle's activation instances before its samples' PTX),
    $TILEC_PTX_DIR, the build's sample PTX folder."""
    dirs = (os.environ.get("TILEC_OPS_PTX_DIR") or "").split(os.pathsep)
    dirs.append(os.environ.get("TILEC_PTX_DIR"))
    try:
        from . import _build_config
        dirs.append(getattr(_build_config, "SAMPLE_PTX_DIR", ""))
    except ImportError:
        pass
    return [d for d in dirs if d]


def source_root():
    root = os.environ.get("TILEC_SOURCE_DIR")
    if root:
        return root
    try:
        from . import _build_config
        root = getattr(_build_config, "SOURCE_DIR", "")
    except ImportError:
        root = ""
    return root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def kernel_of(op, plan, device):
    """The kernel instance of `plan` on `device`: from the first prebuilt PTX
    (ptx_dirs()) that has it, else compiled from the sample's source (that
    instance alone; tilec.compile's caches keep it)."""
    key = (plan["define"], plan["cluster_option"], device)
    k = _kernels.get(key)
    if k is not None:
        return k
    with _lock:
        k = _kernels.get(key)
        if k is not None:
            return k
        want = dict(plan["args"])
        tried = []
        for d in ptx_dirs():
            path = os.path.join(d, plan["ptx"])
            if not os.path.exists(path):
                continue
            tried.append(path)
            mod = _modules.get((path, device))
            if mod is None:
                from ._compile import load
                mod = _modules[(path, device)] = load(path, device=device)
            try:
                k = mod.kernel(plan["kernel"], T=plan["T"], **want)
                break
            except AttributeError:
                k = None
        if k is None:
            src = os.path.join(source_root(), plan["source"])
            from ._compile import compile as compile_source
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", CompileWarning)
                    mod = compile_source(src, defines=[plan["define"]],
                                         cluster=plan["cluster_option"], device=device)
                k = mod.kernel(plan["kernel"], T=plan["T"], **want)
            except Error as e:
                where = ", ".join(tried) if tried else "none of " + (
                    ", ".join(ptx_dirs()) or "(no folder: $TILEC_OPS_PTX_DIR unset)")
                raise Error(
                    f"tilec.ops.{op}: kernel {plan['define']} is in no prebuilt PTX "
                    f"({plan['ptx']}: {where}) and could not be compiled from {src}: {e}. "
                    f"Build the samples' PTX (ninja -C build sample_ptx) and set "
                    f"TILEC_OPS_PTX_DIR to its folder, or make tilec available "
                    f"($TILEC)") from e
        _kernels[key] = k
        return k


def persistent_grid(kernel, plan, device, *args):
    """A persistent kernel's grid: as many clusters as are resident at once
    (cuOccupancyMaxActiveClusters, asked once per kernel and device), at
    most one per work unit; in CTAs."""
    cluster = kernel.cluster[0] if kernel.cluster else 1
    key = (kernel.name, device)
    n = _clusters.get(key)
    if n is None:
        n = kernel.max_active_clusters(device=device)
        if n < 1:
            raise Error(f"kernel {kernel.name}: no cluster fits on device {device} "
                        f"(occupancy 0)")
        _clusters[key] = n
    return max(1, min(n, plan["persistent_units"])) * cluster
