//===- bound.cpp - tilec.BoundLaunch: a launch bound once, called per address -===//
//
// launcher._bind(*args) checks a launch as a call does and binds it
// (tile::Kernel::bind) without launching; calling the result with one array
// per pointer and tensor parameter launches it with those arrays' addresses,
// everything else as bound. Only the addresses are read (a torch tensor's
// data_ptr()), so the caller guarantees the arrays have the bound dtypes,
// shapes, strides and device: tilec.ops calls it for arguments whose key
// (shapes, strides, dtypes, devices) matched the bound ones. A view with the
// address of its base (b.t(), q.view(rows, D)) may be passed as the base.
//===----------------------------------------------------------------------===//
#include <vector>

#include "arrays.h"
#include "kernel.h"

namespace tilec_py {
namespace {

struct BoundLaunchObject {
  PyObject_HEAD tile::BoundLaunch *bound;
  int device;
  bool torchStream;
};

void boundDealloc(PyObject *self) {
  delete reinterpret_cast<BoundLaunchObject *>(self)->bound;
  Py_TYPE(self)->tp_free(self);
}

// The device address `obj` holds: a torch tensor's data_ptr(), a DeviceArray's
// or another array's (as a launch reads it), a raw int. False with an
// exception set.
bool addressOf(PyObject *obj, CUdeviceptr &out) {
  static PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  const ArgClass cls = classify(obj);
  if (cls == ArgClass::Torch) {
    PyObject *p = PyObject_CallMethodNoArgs(obj, dataPtr);
    if (!p)
      return false;
    out = PyLong_AsUnsignedLongLong(p);
    Py_DECREF(p);
    return !PyErr_Occurred();
  }
  if (cls == ArgClass::Scalar && PyLong_Check(obj)) {
    out = PyLong_AsUnsignedLongLong(obj);
    return !PyErr_Occurred();
  }
  ArrayView v;
  if (!readArray(obj, cls, false, v)) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "a bound launch takes arrays, not a %s", Py_TYPE(obj)->tp_name);
    return false;
  }
  out = v.ptr;
  return true;
}

PyObject *boundCall(PyObject *self, PyObject *args, PyObject *kwargs) {
  auto *b = reinterpret_cast<BoundLaunchObject *>(self);
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "a bound launch takes its arrays positionally");
    return nullptr;
  }
  const size_t n = size_t(PyTuple_GET_SIZE(args));
  std::vector<CUdeviceptr> addresses(n);
  for (size_t i = 0; i < n; ++i)
    if (!addressOf(PyTuple_GET_ITEM(args, Py_ssize_t(i)), addresses[i]))
      return nullptr;
  uint64_t stream = 0;
  if (b->torchStream && !currentTorchStream(b->device, stream))
    return nullptr;
  try {
    contextFor(b->device).makeCurrent();
    b->bound->launch(addresses.data(), n, tile::StreamRef(reinterpret_cast<CUstream>(stream)));
  } catch (const tile::Error &e) {
    setCudaError(e, true);
    return nullptr;
  }
  Py_RETURN_NONE;
}

} // namespace

PyTypeObject boundLaunchType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "tilec.BoundLaunch";
  t.tp_basicsize = sizeof(BoundLaunchObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = boundDealloc;
  t.tp_call = boundCall;
  t.tp_doc = "launcher._bind(*args): call it with one array per pointer and tensor parameter "
             "(the bound dtypes, shapes and strides) to launch";
  return t;
}();

PyObject *newBoundLaunch(tile::BoundLaunch b, int device, bool torchStream) {
  auto *o = PyObject_New(BoundLaunchObject, &boundLaunchType);
  if (!o)
    return nullptr;
  o->bound = new tile::BoundLaunch(std::move(b));
  o->device = device;
  o->torchStream = torchStream;
  return reinterpret_cast<PyObject *>(o);
}

} // namespace tilec_py
