//===- arrays.cpp - reading device arrays from Python objects -------------===//
#include "arrays.h"

#include <cstring>
#include <unordered_map>

namespace tilec_py {
namespace {

// DLPack's ABI (dlpack.h, v0.8 / 1.0 unversioned capsule "dltensor"): only
// what a consumer reads.
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *);
};
constexpr int32_t kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;
constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6;
// DLPack 1.0's fp8 codes. Only the two encodings PTX's e4m3 and e5m2 are:
// e4m3fn (no infinities, NaN = S.1111.111) and e5m2 (IEEE-like, with
// infinities); the fnuz variants put NaN at 0x80 and are not the same bits.
constexpr uint8_t kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12;

PyObject *deviceArrayType = nullptr;

// Interned attribute names (created once; the launch path never builds strings).
struct Names {
  PyObject *data_ptr, *get_device, *dtype, *shape, *stride, *cai, *dlpack, *cuda_stream,
      *cuda_stream_protocol, *is_contiguous;
  Names() {
    is_contiguous = PyUnicode_InternFromString("is_contiguous");
    data_ptr = PyUnicode_InternFromString("data_ptr");
    get_device = PyUnicode_InternFromString("get_device");
    dtype = PyUnicode_InternFromString("dtype");
    shape = PyUnicode_InternFromString("shape");
    stride = PyUnicode_InternFromString("stride");
    cai = PyUnicode_InternFromString("__cuda_array_interface__");
    dlpack = PyUnicode_InternFromString("__dlpack__");
    cuda_stream = PyUnicode_InternFromString("cuda_stream");
    cuda_stream_protocol = PyUnicode_InternFromString("__cuda_stream__");
  }
};
const Names &names() {
  static const Names n;
  return n;
}

bool isTorchType(PyTypeObject *t) {
  PyObject *mro = t->tp_mro;
  if (!mro || !PyTuple_Check(mro))
    return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); ++i) {
    auto *base = reinterpret_cast<PyTypeObject *>(PyTuple_GET_ITEM(mro, i));
    const char *n = base->tp_name;
    if (!std::strcmp(n, "torch._C.TensorBase") || !std::strcmp(n, "torch._C._TensorBase"))
      return true;
  }
  return false;
}

bool typeHas(PyTypeObject *t, PyObject *name) {
  PyObject *a = PyObject_GetAttr(reinterpret_cast<PyObject *>(t), name);
  if (!a) {
    PyErr_Clear();
    return false;
  }
  Py_DECREF(a);
  return true;
}

// A tuple (or list) of Python ints -> int64s. False on anything else.
bool intSequence(PyObject *seq, std::vector<int64_t> &out) {
  PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
  if (!fast)
    return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  out.resize(size_t(n));
  PyObject **items = PySequence_Fast_ITEMS(fast);
  for (Py_ssize_t i = 0; i < n; ++i) {
    out[size_t(i)] = PyLong_AsLongLong(items[i]);
    if (out[size_t(i)] == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return false;
    }
  }
  Py_DECREF(fast);
  return true;
}

struct DtypeCacheEntry {
  PyObject *dtype;
  std::optional<tile::ScalarType> scalar;
  std::string name;
};

// torch dtypes are singletons: cache what each one is by identity.
const DtypeCacheEntry *torchDtype(PyObject *dtype) {
  static std::vector<DtypeCacheEntry> cache;
  for (const auto &e : cache)
    if (e.dtype == dtype)
      return &e;
  PyObject *s = PyObject_Str(dtype);
  if (!s)
    return nullptr;
  const char *c = PyUnicode_AsUTF8(s);
  std::string name = c ? c : "?";
  Py_DECREF(s);
  Py_INCREF(dtype);
  cache.push_back({dtype, scalarTypeFromAnyName(name), name});
  return &cache.back();
}

/// The element type a __cuda_array_interface__ typestr names: a byte order
/// ('<', '|', '=' or '>'), a kind and a byte count, nothing after it ("<i4x"
/// names nothing). The byte order is checked by the caller.
std::optional<tile::ScalarType> fromTypestr(const std::string &t) {
  if (t.size() < 3 || std::string_view("<>|=").find(t[0]) == std::string_view::npos)
    return std::nullopt;
  const char kind = t[1];
  int bytes = 0;
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9' || bytes > 16)
      return std::nullopt;
    bytes = bytes * 10 + (t[i] - '0');
  }
  using S = tile::ScalarType;
  switch (kind) {
  case 'f':
    return bytes == 2 ? std::optional<S>(S::F16)
           : bytes == 4 ? std::optional<S>(S::F32)
           : bytes == 8 ? std::optional<S>(S::F64)
                        : std::nullopt;
  case 'i':
    return bytes == 1 ? std::optional<S>(S::I8)
           : bytes == 2 ? std::optional<S>(S::I16)
           : bytes == 4 ? std::optional<S>(S::I32)
           : bytes == 8 ? std::optional<S>(S::I64)
                        : std::nullopt;
  case 'u':
    return bytes == 1 ? std::optional<S>(S::U8)
           : bytes == 2 ? std::optional<S>(S::U16)
           : bytes == 4 ? std::optional<S>(S::U32)
           : bytes == 8 ? std::optional<S>(S::U64)
                        : std::nullopt;
  case 'b':
    return bytes == 1 ? std::optional<S>(S::I1) : std::nullopt;
  default:
    return std::nullopt;
  }
}

std::optional<tile::ScalarType> fromDLPack(DLDataType d) {
  if (d.lanes != 1)
    return std::nullopt;
  using S = tile::ScalarType;
  switch (d.code) {
  case kDLInt:
    return d.bits == 8 ? std::optional<S>(S::I8)
           : d.bits == 16 ? std::optional<S>(S::I16)
           : d.bits == 32 ? std::optional<S>(S::I32)
           : d.bits == 64 ? std::optional<S>(S::I64)
                          : std::nullopt;
  case kDLUInt:
    return d.bits == 8 ? std::optional<S>(S::U8)
           : d.bits == 16 ? std::optional<S>(S::U16)
           : d.bits == 32 ? std::optional<S>(S::U32)
           : d.bits == 64 ? std::optional<S>(S::U64)
                          : std::nullopt;
  case kDLFloat:
    return d.bits == 16 ? std::optional<S>(S::F16)
           : d.bits == 32 ? std::optional<S>(S::F32)
           : d.bits == 64 ? std::optional<S>(S::F64)
                          : std::nullopt;
  case kDLBfloat:
    return d.bits == 16 ? std::optional<S>(S::BF16) : std::nullopt;
  case kDLBool:
    return d.bits == 8 ? std::optional<S>(S::I1) : std::nullopt;
  case kDLFloat8_e4m3fn:
    return d.bits == 8 ? std::optional<S>(S::E4M3) : std::nullopt;
  case kDLFloat8_e5m2:
    return d.bits == 8 ? std::optional<S>(S::E5M2) : std::nullopt;
  default:
    return std::nullopt;
  }
}

bool readTorch(PyObject *obj, bool withShape, ArrayView &out) {
  const Names &n = names();
  out.torch = true;
  PyObject *p = PyObject_CallMethodNoArgs(obj, n.data_ptr);
  if (!p)
    return false;
  out.ptr = PyLong_AsUnsignedLongLong(p);
  Py_DECREF(p);
  if (PyErr_Occurred())
    return false;
  PyObject *d = PyObject_CallMethodNoArgs(obj, n.get_device);
  if (!d)
    return false;
  out.device = int(PyLong_AsLong(d));
  Py_DECREF(d);
  out.onHost = out.device < 0;
  PyObject *dt = PyObject_GetAttr(obj, n.dtype);
  if (!dt)
    return false;
  const DtypeCacheEntry *e = torchDtype(dt);
  Py_DECREF(dt);
  if (!e)
    return false;
  out.dtype = e->scalar;
  out.dtypeName = e->name;
  if (!withShape) {
    // A pointer parameter sees the memory as laid out: only a contiguous
    // tensor means what its indices say.
    PyObject *c = PyObject_CallMethodNoArgs(obj, n.is_contiguous);
    if (!c)
      return false;
    out.contiguous = c == Py_True;
    Py_DECREF(c);
    if (out.contiguous)
      return true;
  }
  {
    PyObject *s = PyObject_GetAttr(obj, n.shape);
    if (!s)
      return false;
    const bool ok = intSequence(s, out.shape);
    Py_DECREF(s);
    if (!ok)
      return false;
    PyObject *st = PyObject_CallMethodNoArgs(obj, n.stride);
    if (!st)
      return false;
    const bool ok2 = intSequence(st, out.strides);
    Py_DECREF(st);
    if (!ok2)
      return false;
  }
  return true;
}

bool readCudaArrayInterface(PyObject *obj, bool withShape, ArrayView &out) {
  PyObject *cai = PyObject_GetAttr(obj, names().cai);
  if (!cai)
    return false;
  struct Release {
    PyObject *o;
    ~Release() { Py_XDECREF(o); }
  } release{cai};
  if (!PyDict_Check(cai)) {
    out.error = "its __cuda_array_interface__ is not a dict";
    return false;
  }
  PyObject *data = PyDict_GetItemString(cai, "data");
  PyObject *typestr = PyDict_GetItemString(cai, "typestr");
  PyObject *shape = PyDict_GetItemString(cai, "shape");
  if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1 || !typestr ||
      !PyUnicode_Check(typestr) || !shape) {
    out.error = "its __cuda_array_interface__ lacks 'data', 'typestr' or 'shape'";
    return false;
  }
  out.ptr = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
  if (PyErr_Occurred())
    return false;
  const char *ts = PyUnicode_AsUTF8(typestr);
  out.dtypeName = ts ? ts : "?";
  out.dtype = fromTypestr(out.dtypeName);
  // The GPU reads elements little-endian: a big-endian array's values would
  // be read byte-swapped (a one-byte element has no byte order).
  if (out.dtype && out.dtypeName[0] == '>' && tile::scalarBytes(*out.dtype) > 1) {
    out.error = "its typestr '" + out.dtypeName +
                "' is big-endian, but the GPU reads little-endian elements (every value would "
                "be read byte-swapped): convert it to '<" +
                out.dtypeName.substr(1) + "' (numpy: .astype('<" + out.dtypeName.substr(1) +
                "'))";
    return false;
  }
  // A masked array (the protocol's version 3 'mask'): the kernel would read
  // the masked elements as data; the protocol asks a consumer that ignores
  // masks to refuse them.
  PyObject *mask = PyDict_GetItemString(cai, "mask");
  if (mask && mask != Py_None) {
    out.error = "its __cuda_array_interface__ has a 'mask' (a masked array), but a kernel reads "
                "every element, the masked ones too: pass the data without a mask (fill the "
                "masked elements first)";
    return false;
  }
  if (!out.dtype && (out.dtypeName == "<V2" || out.dtypeName == "|V1")) {
    // Raw bytes (no typestr names bfloat16 or the fp8 formats): the
    // object's own `dtype`, when it names one of that size ("bf16",
    // "bfloat16", "e4m3", "float8_e4m3fn", ...), says which.
    if (PyObject *dt = PyObject_GetAttrString(obj, "dtype")) {
      if (PyObject *s = PyObject_Str(dt)) {
        const char *c = PyUnicode_AsUTF8(s);
        auto t = c ? scalarTypeFromAnyName(c) : std::nullopt;
        if (t && int(tile::scalarBytes(*t)) == (out.dtypeName == "<V2" ? 2 : 1)) {
          out.dtype = t;
          out.dtypeName = tile::scalarTypeName(*t);
        }
        Py_DECREF(s);
      }
      Py_DECREF(dt);
    }
    PyErr_Clear();
  }
  PyObject *strides = PyDict_GetItemString(cai, "strides");
  const bool hasStrides = strides && strides != Py_None;
  if (!withShape && !hasStrides)
    return true; // C order by the protocol's definition
  if (!intSequence(shape, out.shape))
    return false;
  if (hasStrides) {
    std::vector<int64_t> bytes;
    if (!intSequence(strides, bytes))
      return false;
    const int64_t size = out.dtype ? int64_t(tile::scalarBytes(*out.dtype)) : 1;
    out.strides.resize(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] % size) {
        out.error = "its stride " + std::to_string(i) + " (" + std::to_string(bytes[i]) +
                    " bytes) is not a whole number of " + std::to_string(size) + "-byte elements";
        return false;
      }
      out.strides[i] = bytes[i] / size;
    }
    if (!withShape)
      out.contiguous = rowMajorContiguous(out.shape, out.strides);
  }
  return true;
}

bool readDLPack(PyObject *obj, bool withShape, ArrayView &out) {
  PyObject *capsule = PyObject_CallMethodNoArgs(obj, names().dlpack);
  if (!capsule)
    return false;
  auto *m = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (!m) {
    Py_DECREF(capsule);
    return false;
  }
  // Consumed: the capsule must not call the deleter again. The memory stays
  // owned by `obj`, which the caller holds for the whole launch.
  PyCapsule_SetName(capsule, "used_dltensor");
  const DLTensor &t = m->dl_tensor;
  out.ptr = reinterpret_cast<uint64_t>(t.data) + t.byte_offset;
  out.device = t.device.device_id;
  out.onHost = t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost;
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged && !out.onHost) {
    out.error = "its DLPack device type " + std::to_string(t.device.device_type) +
                " is not CUDA";
  }
  out.dtype = fromDLPack(t.dtype);
  out.dtypeName = "DLPack(code " + std::to_string(t.dtype.code) + ", bits " +
                  std::to_string(t.dtype.bits) + ")";
  if (out.dtype)
    out.dtypeName = tile::scalarTypeName(*out.dtype);
  if (withShape || t.strides) {
    out.shape.assign(t.shape, t.shape + t.ndim);
    if (t.strides)
      out.strides.assign(t.strides, t.strides + t.ndim);
    if (!withShape)
      out.contiguous = rowMajorContiguous(out.shape, out.strides);
  }
  if (m->deleter)
    m->deleter(m);
  Py_DECREF(capsule);
  return out.error.empty();
}

} // namespace

bool rowMajorContiguous(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides) {
  if (strides.empty())
    return true;
  for (int64_t e : shape)
    if (e == 0)
      return true;
  int64_t expect = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1)
      continue;
    if (i >= strides.size() || strides[i] != expect)
      return false;
    expect *= shape[i];
  }
  return true;
}

std::optional<tile::ScalarType> scalarTypeFromAnyName(const std::string &raw) {
  std::string n = raw;
  if (n.rfind("torch.", 0) == 0)
    n = n.substr(6);
  static const std::pair<const char *, tile::ScalarType> table[] = {
      {"float16", tile::ScalarType::F16},  {"half", tile::ScalarType::F16},
      {"bfloat16", tile::ScalarType::BF16}, {"float32", tile::ScalarType::F32},
      {"float", tile::ScalarType::F32},    {"float64", tile::ScalarType::F64},
      {"double", tile::ScalarType::F64},   {"int8", tile::ScalarType::I8},
      {"int16", tile::ScalarType::I16},    {"int32", tile::ScalarType::I32},
      {"int64", tile::ScalarType::I64},    {"uint8", tile::ScalarType::U8},
      {"uint16", tile::ScalarType::U16},   {"uint32", tile::ScalarType::U32},
      {"uint64", tile::ScalarType::U64},   {"bool", tile::ScalarType::I1},
      // torch's (and ml_dtypes') names of the fp8 encodings PTX calls e4m3 and
      // e5m2; float8_e4m3fnuz / float8_e5m2fnuz are other encodings: unknown.
      {"float8_e4m3fn", tile::ScalarType::E4M3}, {"float8_e5m2", tile::ScalarType::E5M2},
  };
  for (const auto &[name, t] : table)
    if (n == name)
      return t;
  return tile::scalarTypeFromName(n);
}

std::vector<std::string> dtypeNames() {
  std::vector<std::string> names = {"float16", "half",   "bfloat16", "float32",      "float",
                                    "float64", "double", "int8",     "int16",        "int32",
                                    "int64",   "uint8",  "uint16",   "uint32",       "uint64",
                                    "bool",    "float8_e4m3fn",      "float8_e5m2"};
  for (int t = int(tile::ScalarType::I1); t <= int(tile::ScalarType::E5M2); ++t)
    names.push_back(tile::scalarTypeName(tile::ScalarType(t)));
  return names;
}

void setDeviceArrayType(PyObject *type) {
  Py_XINCREF(type);
  deviceArrayType = type;
}

ArgClass classify(PyObject *obj) {
  static std::unordered_map<PyTypeObject *, ArgClass> cache;
  PyTypeObject *t = Py_TYPE(obj);
  auto it = cache.find(t);
  if (it != cache.end())
    return it->second;
  ArgClass c = ArgClass::Unknown;
  if (deviceArrayType && PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject *>(deviceArrayType)))
    c = ArgClass::DeviceArray;
  else if (isTorchType(t))
    c = ArgClass::Torch;
  else if (typeHas(t, names().cai) || PyObject_HasAttr(obj, names().cai))
    c = ArgClass::CudaArrayInterface; // a property, or set per instance
  else if (typeHas(t, names().dlpack))
    c = ArgClass::DLPack;
  else if (PyLong_Check(obj) || PyFloat_Check(obj) || PyIndex_Check(obj) ||
           (t->tp_as_number && t->tp_as_number->nb_float))
    c = ArgClass::Scalar;
  Py_INCREF(t); // the cache keys on the type: keep it alive
  cache.emplace(t, c);
  return c;
}

bool readArray(PyObject *obj, ArgClass cls, bool withShape, ArrayView &out) {
  switch (cls) {
  case ArgClass::Torch:
    return readTorch(obj, withShape, out);
  case ArgClass::DeviceArray:
    return readDeviceArray(obj, withShape, out);
  case ArgClass::CudaArrayInterface:
    return readCudaArrayInterface(obj, withShape, out);
  case ArgClass::DLPack:
    return readDLPack(obj, withShape, out);
  default:
    out.error = "it is not a device array";
    return false;
  }
}

bool currentTorchStream(int device, uint64_t &stream) {
  static PyObject *getter = nullptr;
  if (!getter) {
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch)
      return false;
    PyObject *c = PyObject_GetAttrString(torch, "_C");
    Py_DECREF(torch);
    if (!c)
      return false;
    getter = PyObject_GetAttrString(c, "_cuda_getCurrentRawStream");
    Py_DECREF(c);
    if (!getter)
      return false;
  }
  PyObject *d = PyLong_FromLong(device < 0 ? 0 : device);
  PyObject *r = PyObject_CallOneArg(getter, d);
  Py_DECREF(d);
  if (!r)
    return false;
  stream = PyLong_AsUnsignedLongLong(r);
  Py_DECREF(r);
  return !PyErr_Occurred();
}

bool readStream(PyObject *obj, uint64_t &stream) {
  if (obj == Py_None) {
    stream = 0;
    return true;
  }
  if (PyLong_Check(obj)) {
    stream = PyLong_AsUnsignedLongLong(obj);
    return !PyErr_Occurred();
  }
  const Names &n = names();
  if (PyObject_HasAttr(obj, n.cuda_stream_protocol)) {
    PyObject *r = PyObject_CallMethodNoArgs(obj, n.cuda_stream_protocol);
    if (!r)
      return false;
    bool ok = PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2;
    if (ok)
      stream = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(r, 1));
    Py_DECREF(r);
    if (!ok) {
      PyErr_SetString(PyExc_TypeError, "__cuda_stream__() must return (version, handle)");
      return false;
    }
    return !PyErr_Occurred();
  }
  if (PyObject_HasAttr(obj, n.cuda_stream)) {
    PyObject *r = PyObject_GetAttr(obj, n.cuda_stream);
    if (!r)
      return false;
    stream = PyLong_AsUnsignedLongLong(r);
    Py_DECREF(r);
    return !PyErr_Occurred();
  }
  PyErr_Format(PyExc_TypeError,
               "stream= takes None, an int (a CUstream), or an object with .cuda_stream or "
               "__cuda_stream__ (torch.cuda.Stream), not %s",
               Py_TYPE(obj)->tp_name);
  return false;
}

} // namespace tilec_py
