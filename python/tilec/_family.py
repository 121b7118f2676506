"""A kernel compiled for several element types (a type parameter with
several values, ``defines={"T": ["f16", "bf16"]}``), launched by the
arguments' dtypes: ``module.add[grid](out, a, b, n)`` runs the instance whose
pointer and tensor parameters take the arrays' element types, as a Triton
kernel specialises on its arguments. ``module.kernel("add", T="f16")`` picks
one instance directly (a launch without this lookup)."""

import re

from ._errors import LaunchTypeError

_ELEMENT = re.compile(r"^(?:symmetric )?(?:ptr|tensor)<(\w+)")
_TYPESTR = {"<f2": "f16", "<f4": "f32", "<f8": "f64", "|i1": "i8", "<i2": "i16", "<i4": "i32",
            "<i8": "i64", "|u1": "u8", "<u2": "u16", "<u4": "u32", "<u8": "u64", "|b1": "i1"}
_NAMES = {"float16": "f16", "half": "f16", "bfloat16": "bf16", "float32": "f32", "float": "f32",
          "float64": "f64", "double": "f64", "int8": "i8", "int16": "i16", "int32": "i32",
          "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
          "bool": "i1", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}


_seen = {}  # dtype object (torch.float16, numpy's, a tile name) -> tile name


def _dtype_of(arg):
    """The tile name of an array argument's element type, or None."""
    dt = getattr(arg, "dtype", None)
    if dt is not None:
        try:
            return _seen[dt]
        except (KeyError, TypeError):
            pass
        name = str(dt)
        name = name[6:] if name.startswith("torch.") else name
        name = _NAMES.get(name, name)
        try:
            _seen[dt] = name
        except TypeError:  # unhashable
            pass
        return name
    cai = getattr(arg, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return _TYPESTR.get(cai.get("typestr"))
    return None


def family_signatures(module, instances):
    """{element types of the array parameters: instance name} when the
    instances differ there (each is told apart by its arrays' dtypes), else
    None."""
    table = {}
    positions = None
    for inst in instances:
        k = module[inst]
        arrays = [(i, name, m.group(1)) for i, (name, t) in enumerate(k.params)
                  for m in [_ELEMENT.match(t)] if m]
        where = [(i, name) for i, name, _ in arrays]
        if positions is None:
            positions = where
        elif positions != where:
            return None, None
        key = tuple(e for _, _, e in arrays)
        if key in table:
            return None, None
        table[key] = inst
    return table, positions


class KernelFamily:
    """The instances of kernel ``name`` that differ in the element types of
    their arrays; ``family[grid](*args, **options)`` launches the one the
    arrays' dtypes select."""

    def __init__(self, module, name, table, positions):
        self.module, self.name = module, name
        self._table, self._positions = table, positions
        self._launchers = {}

    @property
    def instances(self):
        return sorted(self._table.values())

    @property
    def params(self):
        return self.module[next(iter(self._table.values()))].params

    def select(self, args, kwargs):
        """The instance (a Kernel) the arrays among ``args`` / ``kwargs`` select."""
        n = len(args)
        key = tuple(_dtype_of(args[i] if i < n else kwargs.get(name))
                    for i, name in self._positions)
        inst = self._table.get(key)
        if inst is None:
            have = "; ".join(f"{self._describe(k)}: {v}" for k, v in sorted(self._table.items()))
            got = ", ".join(f"{name}={d}" for (_, name), d in zip(self._positions, key))
            raise LaunchTypeError(
                f"kernel '{self.name}': no instance takes arrays of these dtypes ({got}); it was "
                f"compiled for {have}: convert the arrays, or compile the instance (defines=)",
                call="Kernel::launch", code=1, error_name="CUDA_ERROR_INVALID_VALUE",
                kernel=self.name, description="invalid argument")
        return self.module[inst]

    def _describe(self, key):
        return ", ".join(f"{name}={e}" for (_, name), e in zip(self._positions, key))

    def __getitem__(self, grid):
        launcher = self._launchers.get(grid) if isinstance(grid, (int, tuple)) else None
        if launcher is None:
            launcher = _FamilyLauncher(self, grid)
            if isinstance(grid, (int, tuple)):
                self._launchers[grid] = launcher
        return launcher

    def launch(self, *args, grid, **kwargs):
        self.select(args, kwargs).launch(*args, grid=grid, **kwargs)

    def __repr__(self):
        return f"<tilec kernel family {self.name}: {', '.join(self.instances)}>"


class _FamilyLauncher:
    __slots__ = ("family", "grid")

    def __init__(self, family, grid):
        self.family, self.grid = family, grid

    def __call__(self, *args, **kwargs):
        return self.family.select(args, kwargs)[self.grid](*args, **kwargs)
