"""tilec.compile and tilec.load: .tile source -> PTX + kernel info -> a Module.

Compilation runs the ``tilec`` executable (the compiler needs MLIR; the
extension does not, so the package also works where only PTX is carried).
Its results are cached twice: in memory (the same Module object for the same
source and options in one process) and on disk, beside the runtime's cubin
cache (``$TILEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilec``, else
``~/.cache/tilec``; ``TILEC_NO_CACHE=1`` turns both off), keyed by the source,
the options and the identity of the tilec executable.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import _tilec
from ._errors import (CompileError, CompileWarning, Error, Fields, KernelNotFoundError,
                      did_you_mean, fields, nearest_names)

try:
    from . import _build_config
except ImportError:  # an installed copy without the build's configuration
    _build_config = None

_memory_cache = {}


def _cache_enabled():
    return os.environ.get("TILEC_NO_CACHE", "") in ("", "0")


def cache_dir():
    """The folder tilec caches compiled modules in (the runtime's cubin cache
    uses the same one)."""
    d = os.environ.get("TILEC_CACHE_DIR")
    if d:
        return d
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "tilec")
    return os.path.join(os.path.expanduser("~"), ".cache", "tilec")


_found_tilec = {}


def find_tilec():
    """The tilec executable compile() runs: $TILEC, else the one of the build
    this package came from, else `tilec` on PATH; None when there is none."""
    env = os.environ.get("TILEC")
    if env:
        return env
    if None not in _found_tilec:
        exe = None
        if _build_config is not None and _build_config.TILEC_EXECUTABLE and \
                os.path.exists(_build_config.TILEC_EXECUTABLE):
            exe = _build_config.TILEC_EXECUTABLE
        _found_tilec[None] = exe or shutil.which("tilec")
    return _found_tilec[None]


_DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note): "
                   r"(?P<msg>.*)$")
_TOOL = re.compile(r"^tilec: (?P<sev>error|warning): (?P<msg>.*)$")


def parse_diagnostics(text, source_name=None):
    """tilec's diagnostics as dicts (file, line, col, severity, message,
    hint, text, notes), in order. A diagnostic's notes (the other places it
    points at: a previous definition, the decision a barrier depends on, the
    call an inlined function came from) are dicts of the same shape in its
    ``notes``, in order; its ``text`` is the whole rendering, notes included.
    ``source_name`` replaces ``<stdin>``."""
    out = []
    current = None  # the diagnostic or note the following lines belong to
    for raw in text.splitlines():
        m = _DIAG.match(raw)
        t = None if m else _TOOL.match(raw)
        if m:
            f = m.group("file")
            if f == "<stdin>" and source_name:
                f = source_name
            d = dict(file=f, line=int(m.group("line")), col=int(m.group("col")),
                     severity=m.group("sev"), message=m.group("msg"), hint=None,
                     text=raw + "\n", notes=[])
            if d["severity"] == "note" and out and out[-1]["severity"] != "note":
                out[-1]["notes"].append(d)
                out[-1]["text"] += raw + "\n"
            else:
                out.append(d)
            current = d
        elif t:
            current = dict(file=None, line=None, col=None, severity=t.group("sev"),
                           message=t.group("msg"), hint=None, text=raw + "\n", notes=[])
            out.append(current)
        elif current is not None:
            if raw.startswith("hint: ") and current["hint"] is None:
                current["hint"] = raw[len("hint: "):]
            current["text"] += raw + "\n"
            if current is not out[-1]:  # a note's lines are its diagnostic's text too
                out[-1]["text"] += raw + "\n"
    return out


def _compile_error(stderr, source_name):
    diags = parse_diagnostics(stderr, source_name)
    errors = [d for d in diags if d["severity"] == "error"]
    text = stderr if source_name is None else stderr.replace("<stdin>", source_name)
    if not errors:
        return CompileError(text or "tilec failed without a diagnostic", [])
    first = errors[0]
    return CompileError(text, errors, first["file"], first["line"], first["col"],
                        first["message"], first["hint"])


def _looks_like_a_path(text):
    """One line without a kernel, a function or a brace, naming a file
    ("kernels/add.tl"): a mistyped path, not source text."""
    t = text.strip()
    return bool(t) and not re.search(r"[{}()=]|\bkernel\b|\bfn\b|\bconst\b", t) and (
        os.sep in t or re.search(r"\.\w+$", t) is not None)


def _dims(value, what):
    if isinstance(value, int):
        return [value]
    dims = list(value)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) for d in dims):
        raise TypeError(f"{what} must be an int or 1 to 3 ints, not {value!r}")
    return dims


def _type_name(v):
    """A type parameter's value as tilec names it: "bf16", or a torch or
    numpy dtype (torch.bfloat16, np.float16) or its name ("float16") as its
    tile type; None when `v` is none of these."""
    from ._family import _NAMES
    if isinstance(v, str):
        # A dtype's name ("float16", "bfloat16", "float8_e4m3fn") as
        # tilec.empty takes it, else the tile name as written.
        return _NAMES.get(v[6:] if v.startswith("torch.") else v, v)
    if isinstance(v, (bool, int)):
        return None
    name = v.__name__ if isinstance(v, type) else str(v)
    name = name[6:] if name.startswith("torch.") else name
    return _NAMES.get(name)


def _define_value(v):
    """An integer, a bool, or a type's name for a type parameter ('bf16', or
    a torch / numpy dtype)."""
    t = _type_name(v)
    if t is not None:
        return t
    # As the source writes them: an i1 takes true/false, an integer no bool.
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "true" if v else "false"
    if isinstance(v, int) or hasattr(v, "__index__"):
        return str(int(v))
    raise TypeError(f"a compile-time value must be an int, a bool, a type's name ('f16') or a "
                    f"torch / numpy dtype, not {v!r}")


def _define_flags(defines):
    """{'BN': [256, 128], 'T': 'bf16', 'gemm.BM': 64} or ['BN=256', 'k<f16, 2>'] -> -D flags."""
    if not defines:
        return []
    if isinstance(defines, dict):
        flags = []
        for name, value in defines.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            flags += ["-D", f"{name}={','.join(_define_value(v) for v in values)}"]
        return flags
    flags = []
    for d in defines:
        flags += ["-D", str(d)]
    return flags


def _tilec_identity(exe, origin):
    """The executable as the cache knows it: a rebuilt tilec is another compiler."""
    try:
        st = os.stat(exe)
    except OSError as e:
        raise Error(f"tilec.compile: the tilec executable '{exe}' ({origin}) cannot be used: "
                    f"{e.strerror}; point $TILEC or tilec= at an existing tilec, or unset "
                    "$TILEC to use the build's (tilec.load() takes PTX compiled elsewhere)"
                    ) from None
    if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
        raise Error(f"tilec.compile: '{exe}' ({origin}) is not an executable file; point $TILEC "
                    "or tilec= at the tilec executable (build/bin/tilec)")
    return [exe, st.st_mtime_ns, st.st_size]


def device_index(device):
    """A CUDA device as its ordinal: an int, a torch.device or "cuda:N"
    ("cuda": torch's current device, else 0); None stays None."""
    if device is None or isinstance(device, int):
        return device
    index = getattr(device, "index", None)
    kind = getattr(device, "type", None)
    if kind is None and isinstance(device, str):
        kind, _, num = device.partition(":")
        index = int(num) if num.isdigit() else None
        if num and index is None:
            kind = None
    if kind != "cuda":
        raise ValueError(f"device must be a CUDA device (an int, a torch.device or 'cuda:N'), "
                         f"not {device!r}")
    return _default_device() if index is None else index


def _default_device():
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                return torch.cuda.current_device()
        except Exception:  # torch without CUDA
            pass
    return 0


def compile(source, defines=None, cluster=None, arch="sm_90a", opt_level=3, options=(),
            device=None, cache=True, tilec=None):
    """Compiles .tile source (a path, or the source text itself) and loads it.

    defines: compile-time parameters, ``{"BN": [256, 128]}`` (tilec -D);
    cluster: every kernel's cluster shape, ``2`` or ``(2, 1, 1)`` (--cluster);
    arch: ``"sm_90a"`` or ``"sm_90"``; opt_level: 0-3; options: more tilec
    flags (``["--fast-math"]``); device: the CUDA device to load on first
    (default: torch's current device, else 0; kernels load on other devices
    when launched there). Returns a Module. Raises CompileError.
    """
    is_path = isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source
        and (source.endswith(".tile") or os.path.isfile(source)
             or _looks_like_a_path(source)))
    exe = tilec or find_tilec()
    if not exe:
        raise Error("tilec.compile needs the tilec executable: set $TILEC, put tilec on PATH, "
                    "or build the package with the compiler (TILEC_ENABLE_COMPILER=ON); "
                    "tilec.load() takes PTX compiled elsewhere")
    # A flag compile's own arguments give (-O, --arch, --cluster when
    # cluster= is given) in options= as well would be tilec's "two values"
    # error about a flag the caller never wrote: said here, by its keyword.
    own = {"O": "opt_level", "arch": "arch"}
    if cluster is not None:
        own["cluster"] = "cluster"
    for o in options:
        name = str(o).lstrip("-").split("=", 1)[0]
        name = "O" if name[:1] == "O" else name
        if str(o).startswith("-") and name in own:
            raise ValueError(f"tilec.compile: options= gives {o!r}, which {own[name]}= gives; "
                             f"pass it as {own[name]}= only")
    flags = [f"--arch={arch}", f"-O{int(opt_level)}"] + _define_flags(defines)
    if cluster is not None:
        flags.append("--cluster=" + ",".join(str(d) for d in _dims(cluster, "cluster")))
    flags += [str(o) for o in options]
    use_cache = cache and _cache_enabled()
    device = device_index(device)
    if device is None:
        device = _default_device()
    origin = ("tilec=" if tilec else "$TILEC" if os.environ.get("TILEC") else
              "the build's tilec" if _build_config is not None and
              exe == _build_config.TILEC_EXECUTABLE else "tilec on PATH")
    identity = _tilec_identity(exe, origin)
    path = os.fspath(source) if is_path else None
    # The in-memory cache: a file by its identity (no read, no hash), text as
    # itself. A file changed within the timestamp's resolution keeps its
    # mtime and perhaps its size (an edit of one digit): while its mtime is
    # recent, the entry also checks the text (below).
    recent = False
    if path is not None:
        try:
            st = os.stat(path)
            mem_key = ("file", os.path.abspath(path), st.st_mtime_ns, st.st_size, st.st_ino,
                       st.st_ctime_ns)
            recent = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < _RECENT_NS
        except OSError:
            mem_key = None
    else:
        mem_key = ("text", str(source))
    if mem_key is not None:
        mem_key = mem_key + (tuple(flags), tuple(identity), device)
        if use_cache and mem_key in _memory_cache:
            module = _memory_cache[mem_key]
            if not recent or _same_text(path, module):
                return module
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise CompileError(f"tilec: error: cannot read '{path}': {e.strerror}\n"
                               "hint: check the path of the .tile file\n",
                               [], path, None, None, f"cannot read '{path}'",
                               "check the path of the .tile file") from None
        except UnicodeDecodeError as e:
            raise CompileError(f"tilec: error: '{path}' is not UTF-8 text ({e.reason} at byte "
                               f"{e.start})\nhint: .tile sources are UTF-8 text\n",
                               [], path, None, None, f"'{path}' is not UTF-8 text",
                               ".tile sources are UTF-8 text") from None
        name = path
    else:
        text, name = str(source), "<string>"
    key = hashlib.sha256(json.dumps([text, name, flags, identity]).encode()).hexdigest()[:32]
    folder = os.path.join(cache_dir(), "modules")
    ptx_path = os.path.join(folder, key + ".ptx")
    info_path = os.path.join(folder, key + ".info.json")
    ptx = info = None
    if use_cache and os.path.exists(ptx_path) and os.path.exists(info_path):
        try:
            with open(ptx_path) as f:
                ptx = f.read()
            with open(info_path) as f:
                info = f.read()
        except OSError:
            ptx = info = None
    compiled = ptx is None
    if compiled:
        ptx, info = _run_tilec(exe, path, text, name, flags)
        if use_cache:
            _store(folder, {ptx_path: ptx, info_path: info})
    module = Module(ptx, info, device=device, path=ptx_path if use_cache else None,
                    source_name=name)
    module.compiled = compiled
    module._source_hash = hashlib.sha256(text.encode()).digest()
    if use_cache and mem_key is not None:
        _memory_cache[mem_key] = module
    return module


# A file modified this recently may change again without a new mtime (the
# file system's timestamp resolution): its memory-cache entry checks the text.
_RECENT_NS = 2_000_000_000


def _same_text(path, module):
    try:
        with open(path, encoding="utf-8") as f:  # as compile() reads it
            text = f.read()
        return hashlib.sha256(text.encode()).digest() == getattr(module, "_source_hash", None)
    except (OSError, UnicodeDecodeError):
        return False


def _run_tilec(exe, path, text, name, flags):
    src = path if path is not None else "-"
    stdin = None if path is not None else subprocess.PIPE
    # The PTX and the kernel info in two processes at once (--emit=info
    # compiles the PTX too, to record its fingerprint).
    procs = []
    for emit in ("ptx", "info"):
        cmd = [exe, src, f"--emit={emit}", "-o", "-"] + flags
        procs.append(subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = []
    for p in procs:
        out, err = p.communicate(None if path is not None else text)
        outs.append((p.returncode, out, err))
    for rc, out, err in outs:
        if rc != 0:
            raise _compile_error(err, name if path is None else None)
    _warn(outs[0][2], name if path is None else None)
    return outs[0][1], outs[1][1]


def _warn(stderr, source_name):
    """tilec's warnings of a successful compile (a barrier threads may not
    all reach, ...) as Python warnings (tilec.CompileWarning), one per
    diagnostic, with its location, caret and hint."""
    import warnings
    for d in parse_diagnostics(stderr, source_name):
        if d["severity"] == "warning":
            text = d["text"] if source_name is None else d["text"].replace("<stdin>", source_name)
            warnings.warn(CompileWarning(text.rstrip(), d), stacklevel=4)


def _store(folder, files):
    try:
        os.makedirs(folder, exist_ok=True)
        for dest, content in files.items():
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(content)
            os.replace(tmp, dest)
    except OSError:
        pass  # an unwritable cache only costs the next compile


def load(ptx_path, info_path=None, device=None):
    """Loads PTX compiled elsewhere (``tilec k.tile -o k.ptx``) with its kernel
    info (``tilec k.tile --emit=info -o k.info.json``; by default the
    ``.info.json`` beside the PTX). Returns a Module."""
    ptx_path = os.fspath(ptx_path)
    if info_path is None:
        base = ptx_path[:-4] if ptx_path.endswith(".ptx") else ptx_path
        info_path = base + ".info.json"
    for p, what in ((ptx_path, "PTX"), (info_path, "kernel info")):
        if not os.path.exists(p):
            hint = (" (write it with: tilec KERNEL.tile --emit=info -o " + p + ")"
                    if what == "kernel info" else "")
            raise Error(f"tilec.load: no {what} at '{p}'{hint}")
    with open(ptx_path) as f:
        ptx = f.read()
    with open(info_path) as f:
        info = f.read()
    device = device_index(device)
    return Module(ptx, info, device=_default_device() if device is None else device,
                  path=ptx_path, source_name=ptx_path)


def _info_fields(info):
    """The kernel info with every object a Fields: a missing field's lookup
    (``module.info["kernels"][0]["regs"]``) names the fields there are."""
    info = fields(info, "the kernel info")
    for k in info.get("kernels", ()):
        if isinstance(k, Fields):
            k.what = f"the kernel info of {k.get('name', '?')!r}"
    return info


class Module:
    """Compiled kernels. ``module.NAME`` is kernel NAME (a Kernel: launch it
    with ``module.NAME[grid](*args)``); ``module.kernel("gemm", BN=256)`` picks
    an instance of a kernel with compile-time parameters (``T="bf16"`` for a
    type parameter); ``module["gemm$BN256"]`` takes the PTX name."""

    def __init__(self, ptx, info_json, device=0, path=None, source_name=None, use_cache=True):
        self.ptx = ptx
        self.info = _info_fields(json.loads(info_json))
        self.path = path
        self.source_name = source_name
        self.compiled = False
        self.device = device
        self._native = _tilec._Module(ptx, info_json, device, use_cache and _cache_enabled())
        self._kernels = {}
        self.cubin_from_cache = None
        if _tilec.device_count() > device:
            self.cubin_from_cache = self._native.load(device)

    @property
    def names(self):
        """The PTX names of the kernels."""
        return [k["name"] for k in self.info["kernels"]]

    def __getitem__(self, name):
        k = self._kernels.get(name)
        if k is None:
            if name not in self.names:
                raise self._not_found(name, self.names)
            k = self._kernels[name] = self._native.kernel(name)
        return k

    def _not_found(self, name, also=()):
        """KernelNotFoundError for `name`, naming the nearest kernels (PTX
        names and, for instances, the source names `also` adds)."""
        known = list(dict.fromkeys(list(self.names) + list(also)))
        near = nearest_names(name, known)
        return KernelNotFoundError(f"the module has no kernel {name!r} (it has "
                                   f"{', '.join(known) or 'none'}){did_you_mean(near)}",
                                   name=name, available=known, suggestions=near)

    def kernel(self, name, **template_args):
        """Kernel `name`; with compile-time arguments, the instance compiled
        with them (``module.kernel("gemm", BN=256)``, a type parameter by its
        type's name: ``module.kernel("gemm", T="bf16", BN=256)``). Type
        parameters left out are free: the instance is found when one matches."""
        want = {n: _define_value(v) if _type_name(v) is not None else int(v)
                for n, v in template_args.items()}
        matches = []
        for k in self.info["kernels"]:
            src = k.get("sourceName") or k["name"]
            if src != name and k["name"] != name:
                continue
            values = {a["name"]: a["value"] for a in k.get("templateArgs") or []}
            types = {a["name"]: a["type"] for a in k.get("typeArgs") or []}
            have = dict(values, **types)
            ok = (not template_args or
                  (set(values) <= set(want) and set(want) <= set(have) and
                   all(have[n] == v for n, v in want.items())))
            matches.append((k["name"], ok))
        exact = [n for n, ok in matches if ok]
        if len(exact) == 1:
            return self[exact[0]]
        have = ", ".join(n for n, _ in matches) or "none"
        if not matches:
            raise self._not_found(name, [k.get("sourceName") or k["name"]
                                         for k in self.info["kernels"]])
        if len(exact) > 1:
            raise KernelNotFoundError(
                f"kernel '{name}' has several instances ({', '.join(exact)}): pick one with "
                f"module.kernel('{name}', PARAM=VALUE) or module[INSTANCE]", name=name,
                available=exact)
        params = sorted({a["name"] for k in self.info["kernels"]
                         if (k.get("sourceName") or k["name"]) == name
                         for a in (k.get("templateArgs") or []) + (k.get("typeArgs") or [])})
        unknown = [p for p in template_args if p not in params]
        if unknown:
            near = nearest_names(unknown[0], params)
            raise KernelNotFoundError(
                f"kernel '{name}' has no compile-time parameter '{unknown[0]}' (its "
                f"parameters: {', '.join(params) or 'none'}){did_you_mean(near)}", name=name,
                available=params, suggestions=near)
        raise KernelNotFoundError(f"kernel '{name}' has no instance with {template_args} "
                                  f"(compiled: {have}; add it with defines=)", name=name,
                                  available=[n for n, _ in matches])

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            k = self.kernel(name)
        except AttributeError:
            # Several instances told apart by their arrays' element types: a
            # family that picks one by the arguments' dtypes at each launch.
            k = self._family(name)
            if k is None:
                raise
        setattr(self, name, k)  # later lookups are plain attribute reads
        return k

    def _family(self, name):
        from ._family import KernelFamily, family_signatures
        instances = [k["name"] for k in self.info["kernels"]
                     if (k.get("sourceName") or k["name"]) == name]
        if len(instances) < 2:
            return None
        table, positions = family_signatures(self, instances)
        return KernelFamily(self, name, table, positions) if table else None

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k.get("sourceName") or k["name"]
                                                 for k in self.info["kernels"]})

    def __repr__(self):
        return f"<tilec module {self.source_name or ''} kernels: {', '.join(self.names)}>"
