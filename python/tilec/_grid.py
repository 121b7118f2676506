"""kernel[grid] with ``grid`` a function, as Triton takes it."""

from ._errors import LaunchError, LaunchTypeError

# Launch options: keywords that are not the kernel's arguments.
_OPTIONS = frozenset(("stream", "block", "cluster", "shared", "check_pointers",
                      "allow_non_portable_cluster"))


def _refuse(kernel, message):
    return LaunchTypeError(f"kernel '{kernel.name}': {message}", call="Kernel::launch", code=1,
                           error_name="CUDA_ERROR_INVALID_VALUE", kernel=kernel.name,
                           description="invalid argument")


class _Meta(dict):
    """The grid function's view of a launch; a missing name says what there is."""

    __slots__ = ("kernel",)

    def __missing__(self, key):
        raise _refuse(self.kernel, f"the grid function read meta[{key!r}], which is neither a "
                                   f"parameter nor a compile-time parameter of the kernel (meta "
                                   f"has {', '.join(map(repr, self)) or 'nothing'})")


class CallableGridLauncher:
    """``kernel[fn]``: each launch calls ``fn(meta)`` for its grid. ``meta``
    maps the kernel's parameter names to this launch's arguments and its
    compile-time parameters to their values, as Triton's
    ``lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)``."""

    __slots__ = ("kernel", "grid")

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, **kwargs):
        k = self.kernel
        meta = _Meta(k.template_args)
        meta.kernel = k
        meta.update(zip((name for name, _ in k.params), args))
        meta.update((name, v) for name, v in kwargs.items() if name not in _OPTIONS)
        try:
            grid = self.grid(meta)
        except LaunchError:
            raise
        except Exception as e:
            # The user's function failed: say which kernel's grid, as an
            # argument's own conversion error is reported (the original is
            # the __cause__, its traceback the function's line).
            raise LaunchError(f"kernel '{k.name}': the grid function raised "
                              f"{type(e).__name__}: {e}", call="Kernel::launch", code=1,
                              error_name="CUDA_ERROR_INVALID_VALUE", kernel=k.name,
                              description="invalid argument") from e
        if callable(grid):
            raise _refuse(k, f"the grid function returned {grid!r}: it must return an int or "
                             f"a tuple of 1 to 3 ints")
        return k[grid](*args, **kwargs)

    def __repr__(self):
        return f"<tilec launcher {self.kernel.name}[{self.grid!r}]>"
