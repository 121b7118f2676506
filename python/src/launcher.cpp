//===- launcher.cpp - kernel[grid] and the options of a launch ------------===//
//
// A Launcher (what `kernel[grid]` returns) is a plain CPython type whose
// tp_call receives the argument tuple and keyword dict as they are, so a
// launch from Python pays for no argument conversion layer (kernel.cpp does
// the marshalling); the grid, block and cluster extents and the keyword
// options are read here.
//===----------------------------------------------------------------------===//
#include <pybind11/pybind11.h>

#include <cstring>

#include "launcher.h"

namespace py = pybind11;

namespace tilec_py {

namespace {

// ---------------------------------------------------------------- dims
// "kernel 'k': " before a message about kernel k's launch ("" for none).
std::string kernelPrefix(const Kernel *k) {
  return k ? "kernel '" + k->name() + "': " : std::string();
}

// A refused option of kernel k's launch (a tilec.LaunchError that is also a
// TypeError or ValueError); a plain TypeError or ValueError without a kernel.
void raiseFor(const Kernel *k, ErrorKind kind, PyObject *message) {
  if (!message)
    return;
  if (k) {
    const char *m = PyUnicode_AsUTF8(message);
    setLaunchError(k->name(), m ? m : "?", kind);
  } else {
    PyErr_SetObject(kind == ErrorKind::Type ? PyExc_TypeError : PyExc_ValueError, message);
  }
  Py_DECREF(message);
}

// An integer (anything with __index__) as a long long; `overflow` is 1 or -1
// past its range. False with an exception set.
bool indexValue(PyObject *obj, long long &x, int &overflow) {
  PyObject *idx = PyNumber_Index(obj);
  if (!idx)
    return false;
  x = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  return !(x == -1 && PyErr_Occurred());
}

// One extent of a grid, block or cluster: an int (or anything with
// __index__: numpy and torch integers) in 1 .. 2^32 - 1.
bool dimValue(PyObject *item, const std::string &what, const Kernel *k, unsigned &out) {
  if (PyFloat_Check(item) || !PyIndex_Check(item)) {
    raiseFor(k, ErrorKind::Type,
             PyUnicode_FromFormat(
                 "%s%s must be an int, not %R%s", kernelPrefix(k).c_str(), what.c_str(), item,
                 PyFloat_Check(item) ? " (use integer division: (n + 255) // 256)" : ""));
    return false;
  }
  long long x = 0;
  int overflow = 0;
  if (!indexValue(item, x, overflow))
    return false;
  if (overflow || x < 1 || x > 0xffffffffll) {
    raiseFor(k, ErrorKind::Value,
             PyUnicode_FromFormat("%s%s must be at least 1 (and below 2**32), got %R%s",
                                  kernelPrefix(k).c_str(), what.c_str(), item,
                                  what.rfind("grid", 0) == 0 && !overflow && x == 0
                                      ? ": nothing to launch; skip the launch when "
                                        "there is no work (an empty tensor)"
                                      : ""));
    return false;
  }
  out = unsigned(x);
  return true;
}

} // namespace

bool toDim3(PyObject *obj, const char *what, tile::Dim3 &out, const Kernel *k) {
  unsigned v[3] = {1, 1, 1};
  if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
    if (!PyIndex_Check(obj) || PyFloat_Check(obj)) {
      raiseFor(k, ErrorKind::Type,
               PyUnicode_FromFormat("%s%s must be an int or a tuple of 1 to 3 ints, not "
                                    "%s%s",
                                    kernelPrefix(k).c_str(), what, Py_TYPE(obj)->tp_name,
                                    PyFloat_Check(obj) ? " (use integer division: (n + 255) // 256)"
                                                       : ""));
      return false;
    }
    if (!dimValue(obj, what, k, v[0]))
      return false;
    out = tile::Dim3(v[0]);
    return true;
  }
  const Py_ssize_t n = PySequence_Size(obj);
  if (n < 1 || n > 3) {
    raiseFor(k, ErrorKind::Value,
             PyUnicode_FromFormat("%s%s must have 1 to 3 dimensions, got %zd",
                                  kernelPrefix(k).c_str(), what, n));
    return false;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_GetItem(obj, i);
    if (!item)
      return false;
    const bool ok = dimValue(item, std::string(what) + "[" + std::to_string(i) + "]", k, v[i]);
    Py_DECREF(item);
    if (!ok)
      return false;
  }
  out = tile::Dim3(v[0], v[1], v[2]);
  return true;
}

namespace {

// Keyword options of a launch (stream, block, cluster, shared,
// check_pointers, allow_non_portable_cluster); `grid` too when allowed. Any other keyword is an argument
// by its parameter's name, collected in *byName (a new dict, made when the
// first one comes). False with an exception set.
bool readOptions(PyObject *kwargs, Kernel::Options &o, bool allowGrid, bool &gotGrid,
                 const Kernel *kernel, PyObject **byName) {
  gotGrid = false;
  if (!kwargs)
    return true;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    const char *k = PyUnicode_AsUTF8(key);
    if (!k)
      return false;
    if (!std::strcmp(k, "stream")) {
      o.stream = value;
    } else if (!std::strcmp(k, "block")) {
      if (value != Py_None) {
        tile::Dim3 d;
        if (!toDim3(value, "block", d, kernel))
          return false;
        o.block = d;
      }
    } else if (!std::strcmp(k, "cluster")) {
      if (value != Py_None) {
        tile::Dim3 d;
        if (!toDim3(value, "cluster", d, kernel))
          return false;
        o.cluster = d;
      }
    } else if (!std::strcmp(k, "shared")) {
      if (value != Py_None) {
        if (PyFloat_Check(value) || !PyIndex_Check(value)) {
          raiseFor(kernel, ErrorKind::Type,
                   PyUnicode_FromFormat("%sshared (dynamic shared memory bytes) must be an "
                                        "int, not %R",
                                        kernelPrefix(kernel).c_str(), value));
          return false;
        }
        long long b = 0;
        int overflow = 0;
        if (!indexValue(value, b, overflow))
          return false;
        if (overflow || b < 0) {
          raiseFor(kernel, ErrorKind::Value,
                   PyUnicode_FromFormat("%sshared (dynamic shared memory bytes) must be "
                                        "from 0 to the device's limit, got %R",
                                        kernelPrefix(kernel).c_str(), value));
          return false;
        }
        o.sharedBytes = size_t(b);
      }
    } else if (!std::strcmp(k, "check_pointers") ||
               !std::strcmp(k, "allow_non_portable_cluster")) {
      const int t = PyObject_IsTrue(value);
      if (t < 0)
        return false;
      (k[0] == 'c' ? o.checkPointers : o.allowNonPortableCluster) = t != 0;
    } else if (allowGrid && !std::strcmp(k, "grid")) {
      if (!toDim3(value, "grid", o.grid, kernel))
        return false;
      gotGrid = true;
    } else if (byName) {
      if (!*byName && !(*byName = PyDict_New()))
        return false;
      if (PyDict_SetItem(*byName, key, value) < 0)
        return false;
    } else {
      PyErr_Format(PyExc_TypeError,
                   "unexpected keyword '%s' (a launch takes stream=, block=, cluster=, shared=, "
                   "check_pointers=, allow_non_portable_cluster=%s)",
                   k, allowGrid ? ", grid=" : "");
      return false;
    }
  }
  return true;
}

} // namespace

// Launches `k` with `args` and the keyword arguments: launch options, and
// arguments by their parameters' names.
bool launchWithKeywords(Kernel &k, PyObject *args, PyObject *kwargs, Kernel::Options &o,
                        bool allowGrid, bool &gotGrid) {
  PyObject *byName = nullptr;
  if (!readOptions(kwargs, o, allowGrid, gotGrid, &k, &byName)) {
    Py_XDECREF(byName);
    return false;
  }
  if (allowGrid && !gotGrid) {
    Py_XDECREF(byName);
    PyErr_SetString(
        PyExc_TypeError,
        ("kernel '" + k.name() + "': launch() needs grid= (or use kernel[grid](...))").c_str());
    return false;
  }
  if (!byName)
    return k.launch(args, o);
  PyObject *all = k.bindKeywords(args, byName);
  Py_DECREF(byName);
  if (!all)
    return false;
  const bool ok = k.launch(all, o);
  Py_DECREF(all);
  return ok;
}

// ---------------------------------------------------------------- Launcher
namespace {

struct LauncherObject {
  PyObject_HEAD PyObject *kernelObj; // the pybind11 Kernel (kept alive)
  Kernel *kernel;
  tile::Dim3 grid;
};

void launcherDealloc(PyObject *self) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  Py_XDECREF(l->kernelObj);
  Py_TYPE(self)->tp_free(self);
}

// The launcher's kernel, with its grid in `o`; nullptr with an exception set.
Kernel *kernelOf(PyObject *self, Kernel::Options &o) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  if (!l->kernel)
    PyErr_SetString(PyExc_RuntimeError, "the kernel of this launcher was freed");
  o.grid = l->grid;
  return l->kernel;
}

PyObject *launcherCall(PyObject *self, PyObject *args, PyObject *kwargs) {
  Kernel::Options o;
  Kernel *k = kernelOf(self, o);
  bool gotGrid = false;
  if (!k || !launchWithKeywords(*k, args, kwargs, o, false, gotGrid))
    return nullptr;
  Py_RETURN_NONE;
}

// launcher._bind(*args): the launch checked and bound (tilec.BoundLaunch), not made.
PyObject *launcherBind(PyObject *self, PyObject *args) {
  Kernel::Options o;
  Kernel *k = kernelOf(self, o);
  PyObject *bound = nullptr;
  if (!k || !k->launch(args, o, &bound))
    return nullptr;
  return bound;
}

PyMethodDef launcherMethods[] = {
    {"_bind", launcherBind, METH_VARARGS,
     "The launch with these arguments checked and bound, not made: a tilec.BoundLaunch"},
    {nullptr, nullptr, 0, nullptr}};

PyObject *launcherRepr(PyObject *self) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  return PyUnicode_FromFormat("<tilec launcher %s[(%u, %u, %u)]>",
                              l->kernel ? l->kernel->name().c_str() : "(freed)",
                              l->grid.x, l->grid.y, l->grid.z);
}

} // namespace

PyTypeObject launcherType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "tilec.Launcher";
  t.tp_basicsize = sizeof(LauncherObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = launcherDealloc;
  t.tp_call = launcherCall;
  t.tp_repr = launcherRepr;
  t.tp_methods = launcherMethods;
  t.tp_doc = "kernel[grid]: call it with the kernel's arguments to launch";
  return t;
}();

py::object launcherFor(py::object kernelObj, Kernel &k, PyObject *gridObj) {
  // A function of the launch's arguments, as Triton takes: tilec._grid.
  if (PyCallable_Check(gridObj) && !PyIndex_Check(gridObj))
    return py::module_::import("tilec._grid")
        .attr("CallableGridLauncher")(kernelObj, py::reinterpret_borrow<py::object>(gridObj));
  tile::Dim3 grid;
  if (!toDim3(gridObj, "grid", grid, &k))
    throw py::error_already_set();
  if (k.cachedLauncher && k.cachedGrid == grid)
    return py::reinterpret_borrow<py::object>(k.cachedLauncher);
  auto *l = PyObject_New(LauncherObject, &launcherType);
  if (!l)
    throw py::error_already_set();
  // The cached launcher refers to its kernel without a reference (the kernel
  // holds it: a reference back would be a cycle); ~Kernel detaches it. A
  // launcher leaving the cache takes a reference to the kernel instead.
  l->kernelObj = nullptr;
  l->kernel = &k;
  l->grid = grid;
  if (k.cachedLauncher) {
    auto *old = reinterpret_cast<LauncherObject *>(k.cachedLauncher);
    old->kernelObj = kernelObj.inc_ref().ptr();
    Py_DECREF(k.cachedLauncher);
  }
  k.cachedGrid = grid;
  k.cachedLauncher = reinterpret_cast<PyObject *>(l); // the cache's reference
  return py::reinterpret_borrow<py::object>(k.cachedLauncher);
}

// kernel[grid] at the C level: the pybind11 dispatcher costs about a
// microsecond per call, more than the rest of a launch's Python side.
PyObject *kernelSubscript(PyObject *self, PyObject *grid) {
  auto *inst = reinterpret_cast<py::detail::instance *>(self);
  Kernel *k = inst->get_value_and_holder().value_ptr<Kernel>();
  int overflow = 0;
  if (k->cachedLauncher && PyLong_CheckExact(grid) &&
      PyLong_AsLongLongAndOverflow(grid, &overflow) == (long long)k->cachedGrid.x &&
      k->cachedGrid.y == 1 && k->cachedGrid.z == 1) {
    Py_INCREF(k->cachedLauncher);
    return k->cachedLauncher;
  }
  try {
    return launcherFor(py::reinterpret_borrow<py::object>(self), *k, grid).release().ptr();
  } catch (py::error_already_set &e) {
    e.restore();
    return nullptr;
  }
}

void releaseCachedLauncher(PyObject *launcher) {
  reinterpret_cast<LauncherObject *>(launcher)->kernel = nullptr;
  Py_DECREF(launcher);
}

} // namespace tilec_py
