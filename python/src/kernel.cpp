//===- kernel.cpp - the launch path: Python arguments -> tile::Kernel -----===//
#include "kernel.h"
#include "tile/nearest_names.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "arrays.h"

namespace tilec_py {

tile::Context &contextFor(int device) {
  static std::array<std::unique_ptr<tile::Context>, kMaxDevices> contexts;
  if (device < 0 || device >= kMaxDevices)
    throw tile::Error::withMessage("tilec", CUDA_ERROR_INVALID_DEVICE, "",
                                   "device " + std::to_string(device) + " is out of range");
  auto &c = contexts[size_t(device)];
  if (!c)
    c = std::make_unique<tile::Context>(device);
  return *c;
}

tile::Module &ModuleData::on(int device) {
  if (device < 0 || device >= kMaxDevices)
    throw tile::Error::withMessage("Module::fromPtx", CUDA_ERROR_INVALID_DEVICE, "",
                                   "device " + std::to_string(device) + " is out of range");
  auto &m = loaded[size_t(device)];
  if (!m) {
    tile::Context &ctx = contextFor(device);
    ctx.makeCurrent();
    m = tile::Module::fromPtx(ctx, ptx, info, options);
  }
  return *m;
}

namespace {

std::string paramLabel(size_t i, const ParamPlan &p) {
  return "argument " + std::to_string(i) + " ('" + p.name + "', " + p.type + ")";
}

std::string tupleText(const std::vector<int64_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// The torch dtype holding elements of `t` (the hint of a dtype mismatch).
const char *torchDtypeFor(tile::ScalarType t) {
  using S = tile::ScalarType;
  switch (t) {
  case S::I1:
    return "torch.bool";
  case S::I8:
    return "torch.int8";
  case S::I16:
    return "torch.int16";
  case S::I32:
    return "torch.int32";
  case S::I64:
    return "torch.int64";
  case S::U8:
    return "torch.uint8";
  case S::U16:
    return "torch.uint16";
  case S::U32:
    return "torch.uint32";
  case S::U64:
    return "torch.uint64";
  case S::F16:
    return "torch.float16";
  case S::BF16:
    return "torch.bfloat16";
  case S::F32:
    return "torch.float32";
  case S::F64:
    return "torch.float64";
  case S::E4M3:
    return "torch.float8_e4m3fn";
  case S::E5M2:
    return "torch.float8_e5m2";
  }
  return "?";
}

// The values an integer type holds, as text ("-2147483648 .. 2147483647").
std::string integerRange(tile::ScalarType t) {
  const unsigned bits = tile::scalarBits(t);
  if (t == tile::ScalarType::I1)
    return "0 .. 1";
  if (tile::isUnsignedType(t))
    return "0 .. " + std::to_string(bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1);
  if (bits == 64)
    return std::to_string(INT64_MIN) + " .. " + std::to_string(INT64_MAX);
  return std::to_string(-(int64_t(1) << (bits - 1))) + " .. " +
         std::to_string((int64_t(1) << (bits - 1)) - 1);
}

std::string reprOf(PyObject *obj) {
  PyObject *r = PyObject_Repr(obj);
  const char *c = r ? PyUnicode_AsUTF8(r) : nullptr;
  std::string out = c ? c : "the value";
  if (!c)
    PyErr_Clear(); // a repr that raised: the message names the value generically
  Py_XDECREF(r);
  if (out.size() > 60)
    out = out.substr(0, 57) + "...";
  return out;
}

// The Python exception an argument's own methods raised (__index__,
// __float__, data_ptr(), __dlpack__, ...) as a LaunchError naming the kernel
// and the argument, the original as its __cause__.
void wrapPythonError(const std::string &kernel, const std::string &label) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string what = "an error";
  if (value) {
    PyObject *str = PyObject_Str(value);
    const char *c = str ? PyUnicode_AsUTF8(str) : nullptr;
    what = std::string(reinterpret_cast<PyTypeObject *>(type)->tp_name) + ": " + (c ? c : "?");
    if (!c)
      PyErr_Clear();
    Py_XDECREF(str);
  }
  if (tb && value)
    PyException_SetTraceback(value, tb);
  Py_XDECREF(tb);
  Py_XDECREF(type);
  setLaunchError(kernel, "kernel '" + kernel + "': " + label + ": reading it raised " + what);
  if (value) {
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    if (v2)
      PyException_SetCause(v2, value); // steals `value`
    else
      Py_DECREF(value);
    PyErr_Restore(t2, v2, tb2);
  }
}

// A Python scalar as parameter `p`'s bits in `slot`; false with `why` set,
// or with a Python exception set (raised by the object's own conversion).
bool convertScalar(PyObject *obj, tile::ScalarType t, uint64_t &slot, std::string &why,
                   bool &rangeError) {
  using S = tile::ScalarType;
  slot = 0;
  if (tile::isFloatType(t)) {
    if (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyIndex_Check(obj) &&
        !(Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_float)) {
      why = std::string("takes a float, but a ") + Py_TYPE(obj)->tp_name + " is not a number";
      return false;
    }
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred())
      return false;
    // Rounded once from the double, as the device converts (cvt.rn; fp8
    // saturates: cvt.rn.satfinite). A finite value past f16's, bf16's or
    // f32's largest finite is refused, not turned into infinity.
    slot = tile::floatBits(t, v);
    if (!tile::isFp8Type(t) && std::isfinite(v) && !std::isfinite(tile::floatValue(t, slot))) {
      const char *largest = t == S::F16 ? "65504" : t == S::BF16 ? "3.39e38" : "3.40e38";
      why = reprOf(obj) + " is out of the range of " + tile::scalarTypeName(t) +
            " (largest finite " + largest +
            "; it would become infinity: pass float('inf') "
            "for that)";
      rangeError = true;
      return false;
    }
    return true;
  }
  if (PyFloat_Check(obj) ||
      (!PyIndex_Check(obj) && Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_float)) {
    why = "takes an integer, but " + reprOf(obj) + " is a " + Py_TYPE(obj)->tp_name +
          " (convert it with int(), or use // for integer division)";
    return false;
  }
  if (!PyIndex_Check(obj)) {
    why = std::string("takes an integer, but a ") + Py_TYPE(obj)->tp_name + " is not one";
    return false;
  }
  PyObject *idx = PyNumber_Index(obj);
  if (!idx)
    return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
  unsigned long long u = 0;
  bool unsignedBig = false;
  if (overflow > 0) { // above INT64_MAX: only a u64 holds it
    u = PyLong_AsUnsignedLongLong(idx);
    unsignedBig = !PyErr_Occurred();
    PyErr_Clear();
  }
  Py_DECREF(idx);
  if (v == -1 && PyErr_Occurred())
    return false;
  const unsigned bits = tile::scalarBits(t);
  const bool isUnsigned = tile::isUnsignedType(t) || t == S::I1;
  if (unsignedBig && t == S::U64) {
    slot = u;
    return true;
  }
  bool fits = overflow == 0;
  if (fits) {
    if (t == S::I1)
      fits = v == 0 || v == 1;
    else if (isUnsigned)
      fits = v >= 0 && (bits == 64 || uint64_t(v) < (uint64_t(1) << bits));
    else if (bits < 64)
      fits = v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1));
  }
  if (!fits) {
    why = reprOf(obj) + " does not fit " + tile::scalarTypeName(t) + " (" + integerRange(t) + ")";
    rangeError = true;
    return false;
  }
  slot = uint64_t(v);
  if (bits < 64)
    slot &= (uint64_t(1) << (bits == 1 ? 8 : bits)) - 1;
  return true;
}

// Whether data of `have` may be passed for elements of `want`: the same type,
// or integers of the same size (the runtime passes bits as they are, and
// torch has few unsigned types).
bool elementFits(tile::ScalarType have, tile::ScalarType want) {
  if (have == want)
    return true;
  if (tile::isFloatType(have) || tile::isFloatType(want) || have == tile::ScalarType::I1 ||
      want == tile::ScalarType::I1)
    return false;
  return tile::scalarBytes(have) == tile::scalarBytes(want);
}

} // namespace

Kernel::Kernel(std::shared_ptr<ModuleData> module, std::string name)
    : module_(std::move(module)), name_(std::move(name)) {
  info_ = module_->info.find(name_);
  if (!info_) {
    std::string names;
    for (const auto &k : module_->info.kernels)
      names += (names.empty() ? "" : ", ") + k.name;
    throw tile::Error::withMessage("Module::kernel", CUDA_ERROR_NOT_FOUND, name_,
                                   "the module has no kernel '" + name_ + "' (it has " +
                                       (names.empty() ? std::string("none") : names) + ")");
  }
  for (const tile::KernelParamInfo &p : info_->params) {
    if (p.isHidden())
      continue;
    ParamPlan pp;
    pp.name = p.name;
    pp.type = p.typeName();
    pp.scalar = p.scalar;
    pp.info = &p;
    if (p.semaphore)
      pp.kind = ParamPlan::Kind::Semaphore;
    else if (p.tensor)
      pp.kind = p.tensor->symmetric ? ParamPlan::Kind::Symmetric : ParamPlan::Kind::Tensor;
    else if (p.isPointer)
      pp.kind = ParamPlan::Kind::Pointer;
    plan_.push_back(std::move(pp));
  }
  if (info_->threads)
    defaultBlock_ = tile::Dim3((*info_->threads)[0], (*info_->threads)[1], (*info_->threads)[2]);
  const size_t n = plan_.size();
  storage_.resize(n);
}

void Kernel::CallStorage::resize(size_t n) {
  slots.assign(n, 0);
  tensors.clear();
  tensors.resize(n);
  argPtrs.assign(n + 1, nullptr);
  descs.assign(n + 1, tile::ArgDesc{});
}

tile::Kernel &Kernel::on(int device) {
  auto &k = kernels_[size_t(device)];
  if (!k)
    k = module_->on(device).kernel(name_);
  return *k;
}

bool Kernel::marshal(PyObject *args, CallStorage &st, int &device, bool &sawTorch) {
  const size_t n = size_t(PyTuple_GET_SIZE(args));
  if (n != plan_.size()) {
    std::string sig;
    for (const ParamPlan &p : plan_)
      sig += (sig.empty() ? "" : ", ") + p.name + ": " + p.type;
    setLaunchError(name_,
                   "kernel '" + name_ + "' takes " + std::to_string(plan_.size()) + " argument" +
                       (plan_.size() == 1 ? "" : "s") + " (" + sig + "), " + std::to_string(n) +
                       " given",
                   ErrorKind::Type);
    return false;
  }
  int firstDevice = -1;
  size_t firstIndex = 0;
  auto noteDevice = [&](int d, size_t i) {
    if (d < 0)
      return true;
    if (firstDevice < 0) {
      firstDevice = d;
      firstIndex = i;
      return true;
    }
    if (d == firstDevice)
      return true;
    setLaunchError(name_,
                   "kernel '" + name_ + "': " + paramLabel(i, plan_[i]) + " is on device " +
                       std::to_string(d) + " but argument " + std::to_string(firstIndex) +
                       " is on device " + std::to_string(firstDevice) +
                       " (every array of a launch must be "
                       "on one device: move it there with "
                       ".to(other.device))",
                   ErrorKind::Value);
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    PyObject *obj = PyTuple_GET_ITEM(args, Py_ssize_t(i));
    const ParamPlan &p = plan_[i];
    tile::ArgDesc &d = st.descs[i];
    switch (p.kind) {
    case ParamPlan::Kind::Scalar: {
      const ArgClass cls = classify(obj);
      if (cls == ArgClass::Torch || cls == ArgClass::DeviceArray ||
          cls == ArgClass::CudaArrayInterface) {
        // A tensor's value would be read with a device synchronisation (and
        // not at all inside a CUDA graph capture): the caller says so.
        setLaunchError(name_,
                       "kernel '" + name_ + "': " + paramLabel(i, p) + " takes a Python " +
                           (tile::isFloatType(p.scalar) ? "float" : "int") + ", not a " +
                           Py_TYPE(obj)->tp_name +
                           " (an array for a scalar parameter: check the order of the "
                           "arguments; for a one-element tensor pass t.item())",
                       ErrorKind::Type);
        return false;
      }
      std::string why;
      bool rangeError = false;
      if (!convertScalar(obj, p.scalar, st.slots[i], why, rangeError)) {
        if (PyErr_Occurred())
          wrapPythonError(name_, paramLabel(i, p));
        else
          setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) + " " + why,
                         rangeError ? ErrorKind::Value : ErrorKind::Type);
        return false;
      }
      // float and double pass as themselves; f16, bf16 and fp8 as their bits.
      d = tile::ArgDesc{p.scalar == tile::ScalarType::F32 || p.scalar == tile::ScalarType::F64
                            ? tile::ArgDesc::Kind::Float
                            : tile::ArgDesc::Kind::Integer,
                        tile::scalarBytes(p.scalar), tile::ArgDesc::Kind::Other, 0};
      st.argPtrs[i] = &st.slots[i];
      break;
    }
    case ParamPlan::Kind::Pointer:
    case ParamPlan::Kind::Tensor: {
      const bool tensor = p.kind == ParamPlan::Kind::Tensor;
      const ArgClass cls = classify(obj);
      ArrayView v;
      if (cls == ArgClass::Scalar && !tensor && PyLong_Check(obj)) {
        // A raw device address (an int), as a C++ host passes a CUdeviceptr.
        v.ptr = PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred()) {
          wrapPythonError(name_, paramLabel(i, p) + " (an int is a device address)");
          return false;
        }
      } else {
        if (!readArray(obj, cls, tensor, v)) {
          if (PyErr_Occurred())
            wrapPythonError(name_, paramLabel(i, p));
          else
            setLaunchError(
                name_,
                "kernel '" + name_ + "': " + paramLabel(i, p) + " takes " +
                    (tensor ? "a tensor" : "a device array") +
                    " (a CUDA torch.Tensor, an object with "
                    "__cuda_array_interface__ or __dlpack__), not a " +
                    std::string(Py_TYPE(obj)->tp_name) +
                    (v.error.empty() || cls == ArgClass::Unknown || cls == ArgClass::Scalar
                         ? std::string()
                         : ": " + v.error),
                ErrorKind::Type);
          return false;
        }
        sawTorch = sawTorch || v.torch;
        if (v.onHost) {
          setLaunchError(name_,
                         "kernel '" + name_ + "': " + paramLabel(i, p) +
                             " is in host memory; move it to the GPU first (torch: "
                             ".cuda() or .to(device); numpy: tilec.from_numpy)",
                         ErrorKind::Value);
          return false;
        }
        if (!v.dtype || !elementFits(*v.dtype, p.scalar)) {
          setLaunchError(name_,
                         "kernel '" + name_ + "': " + paramLabel(i, p) + " has dtype " +
                             v.dtypeName + " but the parameter's elements are " +
                             tile::scalarTypeName(p.scalar) + " (convert it: " +
                             (v.torch
                                  ? std::string(".to(") + torchDtypeFor(p.scalar) + ")"
                                  : std::string("an array of ") + tile::scalarTypeName(p.scalar)) +
                             ", or compile an instance for " + v.dtypeName + ")",
                         ErrorKind::Type);
          return false;
        }
        if (!v.contiguous) {
          setLaunchError(name_,
                         "kernel '" + name_ + "': " + paramLabel(i, p) +
                             " is not contiguous (shape " + tupleText(v.shape) + ", strides " +
                             tupleText(v.strides) +
                             " elements): a pointer parameter sees the memory as laid "
                             "out, not as the view's indices; pass .contiguous(), or the "
                             "address itself (.data_ptr()) when the kernel handles the "
                             "strides",
                         ErrorKind::Value);
          return false;
        }
        if (!v.ptr) {
          setLaunchError(name_,
                         "kernel '" + name_ + "': " + paramLabel(i, p) +
                             " has no memory (a null address: an empty array); skip the "
                             "launch when there is no work",
                         ErrorKind::Value);
          return false;
        }
        if (!noteDevice(v.device, i))
          return false;
      }
      if (!tensor) {
        st.slots[i] = v.ptr;
        st.argPtrs[i] = &st.slots[i];
        d = tile::ArgDesc{tile::ArgDesc::Kind::Integer, sizeof(CUdeviceptr),
                          tile::ArgDesc::Kind::Other, 0};
        break;
      }
      const auto element = tile::tensorElementOf(p.scalar);
      if (!element) {
        setLaunchError(name_,
                       "kernel '" + name_ + "': " + paramLabel(i, p) +
                           ": TMA cannot move elements of this type",
                       ErrorKind::Type);
        return false;
      }
      st.tensors[i].emplace(v.ptr, *element, tile::TensorShape(v.shape.begin(), v.shape.end()),
                            tile::TensorShape(v.strides.begin(), v.strides.end()));
      st.argPtrs[i] = &*st.tensors[i];
      d = tile::ArgDesc{tile::ArgDesc::Kind::Tensor, tile::target::kTensorMapBytes,
                        tile::ArgDesc::Kind::Other, 0};
      break;
    }
    case ParamPlan::Kind::Symmetric:
    case ParamPlan::Kind::Semaphore: {
      const bool sem = p.kind == ParamPlan::Kind::Semaphore;
      int dev = -1;
      const tile::Tensor *t = peerArgument(obj, sem, dev);
      if (!t) {
        if (!PyErr_Occurred())
          setLaunchError(name_,
                         "kernel '" + name_ + "': " + paramLabel(i, p) + " takes " +
                             (sem ? "a tilec Semaphores (Communicator.semaphores(S))"
                                  : "a tilec SymmetricTensor "
                                    "(Communicator.symmetric(shape, dtype))") +
                             ", not " + Py_TYPE(obj)->tp_name,
                         ErrorKind::Type);
        return false;
      }
      if (!noteDevice(dev, i))
        return false;
      st.tensors[i].emplace(*t);
      st.argPtrs[i] = &*st.tensors[i];
      d = sem ? tile::ArgDesc{tile::ArgDesc::Kind::Tensor, sizeof(CUdeviceptr),
                              tile::ArgDesc::Kind::Tensor, 0}
              : tile::ArgDesc{tile::ArgDesc::Kind::Tensor, tile::target::kTensorMapBytes,
                              tile::ArgDesc::Kind::Other, 0};
      break;
    }
    }
  }
  device = firstDevice;
  return true;
}

bool Kernel::launch(PyObject *args, const Options &opts, PyObject **bound) {
  int device = -1;
  bool sawTorch = false;
  // The kernel's own storage, unless another call is using it (below).
  CallStorage local;
  const bool overlapping = busy_;
  if (overlapping)
    local.resize(plan_.size());
  CallStorage &st = overlapping ? local : storage_;
  struct Busy {
    bool &flag;
    bool owner;
    ~Busy() {
      if (owner)
        flag = false;
    }
  } busy{busy_, !overlapping};
  busy_ = true;
  if (!marshal(args, st, device, sawTorch))
    return false;
  if (device < 0)
    device = module_->defaultDevice;
  tile::LaunchConfig cfg;
  cfg.grid = opts.grid;
  if (opts.block)
    cfg.block = *opts.block;
  else if (defaultBlock_)
    cfg.block = *defaultBlock_;
  else {
    setLaunchError(name_,
                   "kernel '" + name_ +
                       "' declares no threads(...): pass block=(x, y, z) to the launch",
                   ErrorKind::Type);
    return false;
  }
  if (opts.cluster)
    cfg.cluster = *opts.cluster;
  cfg.sharedBytes = opts.sharedBytes;
  cfg.checkPointers = opts.checkPointers;
  cfg.allowNonPortableCluster = opts.allowNonPortableCluster;
  uint64_t stream = 0;
  if (opts.stream && opts.stream != Py_None) {
    if (!readStream(opts.stream, stream)) {
      if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *str = value ? PyObject_Str(value) : nullptr;
        const char *c = str ? PyUnicode_AsUTF8(str) : nullptr;
        const std::string what = c ? c : "stream= is not a stream";
        Py_XDECREF(str);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_Clear();
        setLaunchError(name_, "kernel '" + name_ + "': " + what, ErrorKind::Type);
      }
      return false;
    }
  } else if (sawTorch && !currentTorchStream(device, stream)) {
    return false;
  }
  cfg.stream = tile::StreamRef(reinterpret_cast<CUstream>(stream));
  try {
    tile::Kernel &k = on(device);
    contextFor(device).makeCurrent();
    if (bound) {
      *bound = newBoundLaunch(k.bind(cfg, st.argPtrs.data(), st.descs.data(), plan_.size()), device,
                              sawTorch);
      return *bound != nullptr;
    }
    k.launchDescribed(cfg, st.argPtrs.data(), st.descs.data(), plan_.size());
  } catch (const tile::Error &e) {
    setCudaError(e, true);
    return false;
  } catch (const std::exception &e) {
    setLaunchError(name_, e.what());
    return false;
  }
  if (sawTorch && opts.stream && opts.stream != Py_None && !PyLong_Check(opts.stream))
    recordStream(args, opts.stream, stream, device);
  return true;
}

void Kernel::recordStream(PyObject *args, PyObject *streamObj, uint64_t stream, int device) {
  // torch's caching allocator reuses a freed tensor's memory on the stream it
  // was allocated on, without waiting for other streams: a kernel launched on
  // another stream could still be reading it. Tensor.record_stream(s) makes
  // the allocator wait for s, as torch asks of work on side streams.
  uint64_t current = 0;
  if (!currentTorchStream(device, current)) {
    PyErr_Clear();
    return;
  }
  if (current == stream)
    return;
  static PyObject *name = PyUnicode_InternFromString("record_stream");
  for (size_t i = 0; i < plan_.size(); ++i) {
    if (plan_[i].kind != ParamPlan::Kind::Pointer && plan_[i].kind != ParamPlan::Kind::Tensor)
      continue;
    PyObject *obj = PyTuple_GET_ITEM(args, Py_ssize_t(i));
    if (classify(obj) != ArgClass::Torch)
      continue;
    PyObject *r = PyObject_CallMethodOneArg(obj, name, streamObj);
    if (!r) { // not a torch.cuda.Stream (a stream of another library): nothing to record
      PyErr_Clear();
      return;
    }
    Py_DECREF(r);
  }
}

PyObject *Kernel::bindKeywords(PyObject *args, PyObject *byName) const {
  const size_t n = plan_.size();
  const size_t given = size_t(PyTuple_GET_SIZE(args));
  auto signature = [&] {
    std::string sig;
    for (const ParamPlan &p : plan_)
      sig += (sig.empty() ? "" : ", ") + p.name + ": " + p.type;
    return sig;
  };
  if (given > n) {
    setLaunchError(name_,
                   "kernel '" + name_ + "' takes " + std::to_string(n) + " argument" +
                       (n == 1 ? "" : "s") + " (" + signature() + "), " + std::to_string(given) +
                       " given positionally",
                   ErrorKind::Type);
    return nullptr;
  }
  std::vector<PyObject *> slots(n, nullptr);
  for (size_t i = 0; i < given; ++i)
    slots[i] = PyTuple_GET_ITEM(args, Py_ssize_t(i));
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(byName, &pos, &key, &value)) {
    const char *k = PyUnicode_AsUTF8(key);
    if (!k)
      return nullptr;
    size_t at = n;
    for (size_t i = 0; i < n; ++i)
      if (plan_[i].name == k)
        at = i;
    if (at == n) {
      std::vector<std::string> known = {"stream", "block", "cluster", "shared", "check_pointers",
                                        "allow_non_portable_cluster"};
      for (const ParamPlan &p : plan_)
        known.push_back(p.name);
      setLaunchError(name_,
                     "kernel '" + name_ + "' has no parameter '" + k +
                         "' (its parameters: " + signature() +
                         "; the launch options: stream=, block=, cluster=, shared=, "
                         "check_pointers=, allow_non_portable_cluster=)" +
                         tile::didYouMean(k, known),
                     ErrorKind::Type);
      return nullptr;
    }
    if (slots[at]) {
      setLaunchError(name_,
                     "kernel '" + name_ + "': argument " + std::to_string(at) + " ('" + k +
                         "') is given twice (positionally and as " + k + "=)",
                     ErrorKind::Type);
      return nullptr;
    }
    slots[at] = value;
  }
  std::string missing;
  for (size_t i = 0; i < n; ++i)
    if (!slots[i])
      missing += (missing.empty() ? "'" : ", '") + plan_[i].name + "'";
  if (!missing.empty()) {
    setLaunchError(name_,
                   "kernel '" + name_ + "': missing argument" +
                       (missing.find(',') != std::string::npos ? "s " : " ") + missing +
                       " (its parameters: " + signature() + ")",
                   ErrorKind::Type);
    return nullptr;
  }
  PyObject *out = PyTuple_New(Py_ssize_t(n));
  if (!out)
    return nullptr;
  for (size_t i = 0; i < n; ++i) {
    Py_INCREF(slots[i]);
    PyTuple_SET_ITEM(out, Py_ssize_t(i), slots[i]);
  }
  return out;
}

} // namespace tilec_py
