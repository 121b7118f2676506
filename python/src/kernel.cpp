//===- kernel.cpp - the launch path: Python arguments -> tile::Kernel -----===//
#include "kernel.h"

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

// A Python scalar as parameter `p`'s bits in `slot`; false with `why` set.
bool convertScalar(PyObject *obj, tile::ScalarType t, uint64_t &slot, std::string &why) {
  using S = tile::ScalarType;
  slot = 0;
  if (tile::isFloatType(t)) {
    if (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyIndex_Check(obj) &&
        !(Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_float)) {
      why = std::string("a ") + Py_TYPE(obj)->tp_name + " is not a number";
      return false;
    }
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred())
      return false;
    // Rounded once from the double, as the device converts (cvt.rn; fp8
    // saturates: cvt.rn.satfinite).
    slot = tile::floatBits(t, v);
    return true;
  }
  if (PyFloat_Check(obj)) {
    why = "a float is passed for an integer parameter (convert it with int())";
    return false;
  }
  if (!PyIndex_Check(obj)) {
    why = std::string("a ") + Py_TYPE(obj)->tp_name + " is not an integer";
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
    PyObject *r = PyObject_Repr(obj);
    why = std::string(r ? PyUnicode_AsUTF8(r) : "the value") + " does not fit " +
          tile::scalarTypeName(t);
    Py_XDECREF(r);
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
  slots_.assign(n, 0);
  tensors_.resize(n);
  argPtrs_.assign(n + 1, nullptr);
  descs_.assign(n + 1, tile::ArgDesc{});
}

tile::Kernel &Kernel::on(int device) {
  auto &k = kernels_[size_t(device)];
  if (!k)
    k = module_->on(device).kernel(name_);
  return *k;
}

bool Kernel::marshal(PyObject *args, int &device, bool &sawTorch) {
  const size_t n = size_t(PyTuple_GET_SIZE(args));
  if (n != plan_.size()) {
    std::string sig;
    for (const ParamPlan &p : plan_)
      sig += (sig.empty() ? "" : ", ") + p.name + ": " + p.type;
    setLaunchError(name_, "kernel '" + name_ + "' takes " + std::to_string(plan_.size()) +
                              " argument" + (plan_.size() == 1 ? "" : "s") + " (" + sig +
                              "), " + std::to_string(n) + " given");
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
    setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, plan_[i]) +
                              " is on device " + std::to_string(d) + " but argument " +
                              std::to_string(firstIndex) + " is on device " +
                              std::to_string(firstDevice) + " (every array of a launch must be "
                                                            "on one device)");
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    PyObject *obj = PyTuple_GET_ITEM(args, Py_ssize_t(i));
    const ParamPlan &p = plan_[i];
    tile::ArgDesc &d = descs_[i];
    switch (p.kind) {
    case ParamPlan::Kind::Scalar: {
      std::string why;
      if (!convertScalar(obj, p.scalar, slots_[i], why)) {
        if (!PyErr_Occurred())
          setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) + ": " + why);
        return false;
      }
      // float and double pass as themselves; f16, bf16 and fp8 as their bits.
      d = tile::ArgDesc{p.scalar == tile::ScalarType::F32 || p.scalar == tile::ScalarType::F64
                            ? tile::ArgDesc::Kind::Float
                            : tile::ArgDesc::Kind::Integer,
                        tile::scalarBytes(p.scalar), tile::ArgDesc::Kind::Other, 0};
      argPtrs_[i] = &slots_[i];
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
        if (PyErr_Occurred())
          return false;
      } else {
        if (!readArray(obj, cls, tensor, v)) {
          if (!PyErr_Occurred())
            setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) + " takes " +
                                      (tensor ? "a tensor" : "a device array") +
                                      " (a torch.Tensor, an object with "
                                      "__cuda_array_interface__ or __dlpack__), but " +
                                      std::string(Py_TYPE(obj)->tp_name) + " " +
                                      (v.error.empty() ? "is none" : v.error));
          return false;
        }
        sawTorch = sawTorch || v.torch;
        if (v.onHost) {
          setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) +
                                    " is in host memory; move it to the GPU first (.cuda())");
          return false;
        }
        if (!v.dtype || !elementFits(*v.dtype, p.scalar)) {
          setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) + " has dtype " +
                                    v.dtypeName + " but the parameter's elements are " +
                                    tile::scalarTypeName(p.scalar));
          return false;
        }
        if (!noteDevice(v.device, i))
          return false;
      }
      if (!tensor) {
        slots_[i] = v.ptr;
        argPtrs_[i] = &slots_[i];
        d = tile::ArgDesc{tile::ArgDesc::Kind::Integer, sizeof(CUdeviceptr),
                          tile::ArgDesc::Kind::Other, 0};
        break;
      }
      const auto element = tile::tensorElementOf(p.scalar);
      if (!element) {
        setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) +
                                  ": TMA cannot move elements of this type");
        return false;
      }
      tensors_[i].emplace(v.ptr, *element, tile::TensorShape(v.shape.begin(), v.shape.end()),
                          tile::TensorShape(v.strides.begin(), v.strides.end()));
      argPtrs_[i] = &*tensors_[i];
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
          setLaunchError(name_, "kernel '" + name_ + "': " + paramLabel(i, p) + " takes " +
                                    (sem ? "a tilec Semaphores (Communicator.semaphores(S))"
                                         : "a tilec SymmetricTensor "
                                           "(Communicator.symmetric(shape, dtype))") +
                                    ", not " + Py_TYPE(obj)->tp_name);
        return false;
      }
      if (!noteDevice(dev, i))
        return false;
      tensors_[i].emplace(*t);
      argPtrs_[i] = &*tensors_[i];
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

bool Kernel::launch(PyObject *args, const Options &opts) {
  int device = -1;
  bool sawTorch = false;
  if (!marshal(args, device, sawTorch))
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
    setLaunchError(name_, "kernel '" + name_ +
                              "' declares no threads(...): pass block=(x, y, z) to the launch");
    return false;
  }
  if (opts.cluster)
    cfg.cluster = *opts.cluster;
  cfg.sharedBytes = opts.sharedBytes;
  cfg.checkPointers = opts.checkPointers;
  uint64_t stream = 0;
  if (opts.stream && opts.stream != Py_None) {
    if (!readStream(opts.stream, stream))
      return false;
  } else if (sawTorch && !currentTorchStream(device, stream)) {
    return false;
  }
  cfg.stream = tile::StreamRef(reinterpret_cast<CUstream>(stream));
  try {
    tile::Kernel &k = on(device);
    contextFor(device).makeCurrent();
    k.launchDescribed(cfg, argPtrs_.data(), descs_.data(), plan_.size());
  } catch (const tile::Error &e) {
    setCudaError(e, true);
    return false;
  } catch (const std::exception &e) {
    setLaunchError(name_, e.what());
    return false;
  }
  return true;
}

} // namespace tilec_py
