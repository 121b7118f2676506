"""tilec from Python: compile .tile kernels, cache them, and launch them on
torch tensors (or any __cuda_array_interface__ / DLPack array).

    import tilec, torch
    mod = tilec.compile("samples/histogram/histogram.tile")
    bins = torch.zeros(256, dtype=torch.int32, device="cuda")
    mod.histogram[16](bins, data, data.numel())   # grid 16, the current torch stream

docs/python.md is the reference.
"""

from ._errors import (CompileError, CompileWarning, CudaError, Error, FieldNotFoundError,
                      KernelNotFoundError, LaunchError, LaunchTypeError, LaunchValueError)
from . import _tilec
from ._compile import Module, cache_dir, compile, find_tilec, load, parse_diagnostics
from ._compile import device_index as _device_index
from ._tilec import DeviceArray, Kernel, Launcher

__all__ = [
    "compile", "load", "Module", "Kernel", "Launcher", "DeviceArray", "Error", "CompileError",
    "CompileWarning", "CudaError", "FieldNotFoundError", "KernelNotFoundError", "LaunchError",
    "LaunchTypeError", "LaunchValueError", "empty",
    "from_numpy", "device_count", "driver_available", "synchronize", "register_op", "cache_dir",
    "find_tilec", "parse_diagnostics",
]

device_count = _tilec.device_count
driver_available = _tilec.driver_available


def synchronize(device=0):
    """Waits for every stream of `device` (an int, a torch.device or 'cuda:N')."""
    _tilec.synchronize(_device_index(device))


_max_active_clusters = Kernel.max_active_clusters


def _kernel_max_active_clusters(self, block=None, cluster=None, shared=None, device=0,
                                allow_non_portable_cluster=False):
    """cuOccupancyMaxActiveClusters: how many clusters of this kernel fit at
    once (the grid of a persistent kernel); device: an int, a torch.device or
    'cuda:N'; a cluster above 8 CTAs needs allow_non_portable_cluster=True."""
    return _max_active_clusters(self, block, cluster, shared, _device_index(device),
                                allow_non_portable_cluster)


Kernel.max_active_clusters = _kernel_max_active_clusters


def _kernel_call(self, *args, **kwargs):
    """A kernel is launched with a grid: kernel[grid](*args)."""
    raise LaunchTypeError(
        f"kernel '{self.name}' is launched with a grid: kernel[grid](...), e.g. "
        f"kernel[(n + 255) // 256](...), or kernel.launch(..., grid=...)",
        call="Kernel::launch", code=1, error_name="CUDA_ERROR_INVALID_VALUE", kernel=self.name,
        description="invalid argument")


Kernel.__call__ = _kernel_call

_launch = Kernel.launch


def _kernel_launch(self, *args, **kwargs):
    """kernel.launch(*args, grid=..., ...): kernel[grid](*args, ...), grid
    also a function of the launch (see tilec._grid)."""
    grid = kwargs.get("grid")
    if callable(grid) and not hasattr(grid, "__index__"):
        del kwargs["grid"]
        return self[grid](*args, **kwargs)
    return _launch(self, *args, **kwargs)


Kernel.launch = _kernel_launch


def empty(shape, dtype, device=0):
    """An uninitialised DeviceArray (device memory through the tilec runtime,
    no torch needed). dtype: a tile name ("f32"), a numpy or torch dtype."""
    if isinstance(shape, int):
        shape = (shape,)
    return DeviceArray(list(shape), dtype, _device_index(device))


def from_numpy(array, device=0):
    """A DeviceArray holding a copy of a numpy array."""
    import numpy as np
    a = np.ascontiguousarray(array)
    out = DeviceArray(list(a.shape), a.dtype, _device_index(device))
    out.copy_from(a)
    return out


def _to_numpy(self):
    """A numpy copy of the array (bf16 comes back as uint16 bits, e4m3 and
    e5m2 as uint8 bits)."""
    import numpy as np
    dt = {"bf16": np.uint16, "e4m3": np.uint8, "e5m2": np.uint8, "i1": np.bool_}.get(self.dtype)
    if dt is None:
        dt = np.dtype({"f16": "float16", "f32": "float32", "f64": "float64"}.get(
            self.dtype, self.dtype.replace("i", "int").replace("u", "uint")))
    out = np.empty(self.shape, dtype=dt)
    self.copy_to(out)
    return out


DeviceArray.numpy = _to_numpy


def __getattr__(name):
    """tilec.ops (attention, matmul, scaled_mm on torch tensors) is imported
    on first use: it imports torch when torch is installed."""
    if name == "ops":
        import importlib
        return importlib.import_module(".ops", __name__)
    from ._errors import did_you_mean, nearest_names
    raise AttributeError(f"module 'tilec' has no attribute '{name}'"
                         f"{did_you_mean(nearest_names(name, __all__ + ['ops']))}")


def register_op(qualname, kernel, grid, *, mutates_args, block=None, cluster=None):
    """Registers `kernel` as a torch custom op (torch.library.custom_op), so it
    can be called inside torch.compile'd code. See tilec._torch.register_op."""
    from ._torch import register_op as _register
    return _register(qualname, kernel, grid, mutates_args=mutates_args, block=block,
                     cluster=cluster)
