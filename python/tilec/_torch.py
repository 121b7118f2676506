"""PyTorch integration that needs torch (imported only when used)."""

import inspect
import keyword


def _annotation(param_type):
    t = param_type
    if t.startswith(("ptr<", "tensor<", "symmetric tensor<")):
        return "torch.Tensor"
    if t in ("f16", "bf16", "f32", "f64", "e4m3", "e5m2"):  # fp8 scalars take a float too
        return "float"
    if t == "i1":
        return "bool"
    return "int"


def _check_op_arguments(qualname, kernel, grid, mutates_args):
    """register_op's own checks, before torch sees the arguments: each
    mistake names the op, the kernel and what to write."""
    name = getattr(kernel, "name", "?")
    params = list(kernel.params)
    arrays = [p for p, t in params if t.startswith(("ptr<", "tensor<", "symmetric tensor<"))]
    where = f"register_op('{qualname}', kernel '{name}')"
    if isinstance(mutates_args, str):
        raise TypeError(f"{where}: mutates_args is the string {mutates_args!r}, which would be "
                        f"read letter by letter: write a tuple, mutates_args=({mutates_args!r},)")
    try:
        given = list(mutates_args)
    except TypeError:
        raise TypeError(f"{where}: mutates_args must be a tuple of parameter names, got "
                        f"{type(mutates_args).__name__}: write e.g. mutates_args=('out',)") from None
    types = dict(params)
    for m in given:
        if not isinstance(m, str) or m not in types:
            raise ValueError(f"{where}: mutates_args names {m!r}, which is no parameter of the "
                             f"kernel; its pointer and tensor parameters are "
                             f"{', '.join(arrays) or '(none)'}")
        if m not in arrays:
            raise ValueError(f"{where}: mutates_args names {m!r}, a {types[m]} scalar: a kernel "
                             f"writes only through pointer and tensor parameters "
                             f"({', '.join(arrays) or 'none'})")
    if callable(grid):
        try:
            inspect.signature(grid).bind(*range(len(params)))
        except TypeError:
            call = ", ".join(p for p, _ in params)
            raise TypeError(
                f"{where}: the grid function is called with the op's {len(params)} arguments "
                f"({call}), as the op is; write grid=lambda {call}: ... (a kernel's own "
                f"kernel[grid] takes a function of one `meta` dict instead)") from None
        except ValueError:  # a builtin without a signature: left to the call
            pass


def register_op(qualname, kernel, grid, *, mutates_args, block=None, cluster=None):
    """torch.library.custom_op for a tilec kernel: ``qualname`` ("mylib::gemm"),
    ``grid`` a launch grid or a function of the op's arguments returning one,
    ``mutates_args`` the names of the tensor parameters the kernel writes.
    The op returns None (the kernel writes its outputs in place); its fake
    (meta) implementation does nothing, so torch.compile traces through it.
    Returns the op (call it like the kernel, without [grid])."""
    _check_op_arguments(qualname, kernel, grid, mutates_args)
    import torch

    names = []
    for name, _ in kernel.params:
        names.append(name + "_" if keyword.iskeyword(name) else name)
    sig = ", ".join(f"{n}: {_annotation(t)}" for n, (_, t) in zip(names, kernel.params))
    call = ", ".join(names)
    src = (f"def {qualname.split('::')[-1]}({sig}) -> None:\n"
           f"    _launch({call})\n")

    def _launch(*args):
        g = grid(*args) if callable(grid) else grid
        kernel[g](*args, block=block, cluster=cluster)

    scope = {"torch": torch, "_launch": _launch}
    exec(src, scope)
    fn = scope[qualname.split("::")[-1]]
    mutated = tuple(n + "_" if keyword.iskeyword(n) else n for n in mutates_args)
    # Every device type: a host tensor reaches the launch, whose error names
    # the kernel, the argument and the fix (`.cuda()`), not torch's "could not
    # run ... with arguments from the 'CPU' backend".
    op = torch.library.custom_op(qualname, mutates_args=mutated)(fn)

    @op.register_fake
    def _fake(*args, **kwargs):
        return None

    return op
