"""The exceptions tilec raises. Every compiler diagnostic and runtime error
reaches Python as one of these, with the parts a program may want to look at
as attributes (the message is what tilec prints)."""


class Error(Exception):
    """Base of every tilec error."""


class CompileError(Error):
    """tilec rejected the source: ``file``, ``line``, ``col`` (1-based), the
    ``message``, the ``hint`` and the full rendered ``diagnostics`` (every
    error, with the source line and caret). ``errors`` lists each error as a
    dict with the same keys, its ``notes`` (each with its own location) as
    dicts of that shape."""

    def __init__(self, diagnostics, errors=None, file=None, line=None, col=None,
                 message=None, hint=None):
        super().__init__(diagnostics.rstrip())
        self.diagnostics = diagnostics
        self.errors = errors or []
        self.file, self.line, self.col = file, line, col
        self.message, self.hint = message, hint


class CudaError(Error):
    """A CUDA driver error or a runtime check: ``call`` (the driver call or
    the runtime entry that failed, e.g. ``cuLaunchKernelEx``,
    ``Kernel::launch``), ``code`` (the CUresult), ``error_name``
    (``CUDA_ERROR_INVALID_VALUE``), ``kernel`` (``""`` when none),
    ``description`` and, for multi-GPU errors, ``rank``."""

    def __init__(self, message, call="", code=0, error_name="", kernel="",
                 description="", rank=None):
        super().__init__(message)
        self.call, self.code, self.error_name = call, code, error_name
        self.kernel, self.description, self.rank = kernel, description, rank


class LaunchError(CudaError):
    """A launch was refused (arguments, configuration, memory) or failed."""


class LaunchTypeError(LaunchError, TypeError):
    """A launch refused for the kind of an argument or option: a float for an
    integer parameter, an array for a scalar one, a wrong dtype, a wrong
    number of arguments, an unknown keyword. Both a LaunchError and a
    TypeError."""


class LaunchValueError(LaunchError, ValueError):
    """A launch refused for a value: out of the parameter's range, a grid of
    0, a non-contiguous, empty or host array, arrays on two devices. Both a
    LaunchError and a ValueError."""


class KernelNotFoundError(Error, KeyError, AttributeError):
    """No kernel of that name in the module (``module["nope"]``,
    ``module.kernel("nope")``, ``module.nope``), or no instance with the
    compile-time arguments asked for: ``name``, the module's kernel names in
    ``available`` and the nearest of them in ``suggestions``. Both a KeyError
    (a lookup by name) and an AttributeError (so that ``hasattr(module,
    name)`` is False)."""

    def __init__(self, message, name="", available=(), suggestions=()):
        super().__init__(message)
        self.name, self.available, self.suggestions = name, list(available), list(suggestions)

    # KeyError's str() is the repr of its argument (a quoted, escaped message).
    __str__ = Error.__str__


class FieldNotFoundError(Error, KeyError):
    """A field that a kernel info or plan dict (``module.info``,
    ``module.info["kernels"][0]``, ``tilec.ops.plan_matmul(...)``) does not
    have: ``name``, the fields it has in ``available`` and the nearest in
    ``suggestions``."""

    def __init__(self, message, name="", available=(), suggestions=()):
        super().__init__(message)
        self.name, self.available, self.suggestions = name, list(available), list(suggestions)

    __str__ = Error.__str__


class Fields(dict):
    """A dict of named fields (the kernel info's JSON objects, a tilec.ops
    plan) whose failed lookup names the fields there are and the nearest:
    FieldNotFoundError, a KeyError. `what` says whose fields they are."""

    __slots__ = ("what",)

    def __init__(self, items=(), what="kernel info"):
        super().__init__(items)
        self.what = what

    def __missing__(self, name):
        known = [str(k) for k in self]
        near = nearest_names(name, known)
        raise FieldNotFoundError(f"{self.what} has no field {name!r} (its fields: "
                                 f"{', '.join(known)}){did_you_mean(near)}", name, known, near)


def fields(obj, what):
    """obj (parsed JSON: dicts, lists, values) with every dict a Fields."""
    if isinstance(obj, dict):
        return Fields(((k, fields(v, what)) for k, v in obj.items()), what)
    if isinstance(obj, list):
        return [fields(v, what) for v in obj]
    return obj


class CompileWarning(UserWarning):
    """A warning of tilec on source it compiled (``warnings.warn``d once, when
    tilec runs: a cached module does not repeat it): the rendered text (with
    the source line, caret, hint and notes) is the message; ``file``,
    ``line``, ``col``, ``message`` and ``hint`` as for CompileError."""

    def __init__(self, text, diagnostic=None):
        super().__init__(text)
        d = diagnostic or {}
        self.file, self.line, self.col = d.get("file"), d.get("line"), d.get("col")
        self.message, self.hint = d.get("message"), d.get("hint")


def nearest_names(name, known, n=3):
    """The names of `known` nearest to `name` (difflib's ratio, case
    ignored), nearest first: what a failed lookup by name suggests."""
    import difflib
    by_lower = {}
    for k in known:
        by_lower.setdefault(str(k).lower(), []).append(k)
    near = difflib.get_close_matches(str(name).lower(), list(by_lower), n=n, cutoff=0.5)
    return [k for low in near for k in by_lower[low] if k != name][:n]


def did_you_mean(near):
    """"; did you mean 'a' or 'b'?" for the names `near`, "" for none."""
    if not near:
        return ""
    names = [repr(str(n)) for n in near]
    return "; did you mean " + (", ".join(names[:-1]) + " or " if len(names) > 1 else "") + \
        names[-1] + "?"

