"""PyTorch integration that needs torch (imported only when used)."""

import keyword


def _annotation(param_type):
    t = param_type
    if t.startswith(("ptr<", "tensor<", "symmetric tensor<")):
        return "torch.Tensor"
    if t in ("f16", "bf16", "f32", "f64"):
        return "float"
    if t == "i1":
        return "bool"
    return "int"


def register_op(qualname, kernel, grid, *, mutates_args, block=None, cluster=None):
    """torch.library.custom_op for a tilec kernel: ``qualname`` ("mylib::gemm"),
    ``grid`` a launch grid or a function of the op's arguments returning one,
    ``mutates_args`` the names of the tensor parameters the kernel writes.
    The op returns None (the kernel writes its outputs in place); its fake
    (meta) implementation does nothing, so torch.compile traces through it.
    Returns the op (call it like the kernel, without [grid])."""
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
    op = torch.library.custom_op(qualname, mutates_args=mutated, device_types="cuda")(fn)

    @op.register_fake
    def _fake(*args, **kwargs):
        return None

    return op
