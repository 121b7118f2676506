//===- module.cpp - the tilec._tilec extension: bindings ------------------===//
//
// pybind11 for everything but the launch itself (launcher.cpp: kernel[grid]
// and its options; kernel.cpp: the marshalling of the arguments).
//===----------------------------------------------------------------------===//
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <stdexcept>

#include "arrays.h"
#include "launcher.h"
#include "tile/nearest_names.h"
#include "tile/runtime.h"
#ifdef TILEC_PY_HAVE_NCCL
#include "tile/distributed.h"
#endif

namespace py = pybind11;

namespace tilec_py {
namespace {

PyObject *errorClass = nullptr, *cudaErrorClass = nullptr, *launchErrorClass = nullptr,
         *launchTypeErrorClass = nullptr, *launchValueErrorClass = nullptr;

void raise(PyObject *cls, const std::string &message, const std::string &call, int code,
           const std::string &errorName, const std::string &kernel, const std::string &description,
           int rank) {
  py::dict kw;
  kw["call"] = call;
  kw["code"] = code;
  kw["error_name"] = errorName;
  kw["kernel"] = kernel;
  kw["description"] = description;
  if (rank >= 0)
    kw["rank"] = rank;
  try {
    py::object e = py::reinterpret_borrow<py::object>(cls)(message, **kw);
    PyErr_SetObject(cls, e.ptr());
  } catch (py::error_already_set &err) {
    err.restore();
  }
}

} // namespace

void setCudaError(const tile::Error &e, bool duringLaunch) {
  int rank = -1;
#ifdef TILEC_PY_HAVE_NCCL
  if (auto *d = dynamic_cast<const tile::DistributedError *>(&e))
    rank = d->rank();
#endif
  PyObject *cls = duringLaunch ? launchErrorClass : cudaErrorClass;
  std::string message = e.what();
  if (duringLaunch && e.call() == "Kernel::launch") {
    // A check of the runtime refused a value (the grid, block, cluster, shared
    // memory, an address): a ValueError too. Its C++ names, in Python's terms.
    cls = launchValueErrorClass;
    const std::pair<const char *, const char *> terms[] = {
        {"leave LaunchConfig::sharedBytes unset", "leave shared= out"},
        {"(set allowNonPortableCluster)", "(pass allow_non_portable_cluster=True)"},
        {"pass device memory, e.g. a live DeviceBuffer", "pass device memory, e.g. a CUDA tensor"}};
    for (const auto &[from, to] : terms)
      for (size_t at = message.find(from); at != std::string::npos; at = message.find(from, at))
        message.replace(at, std::strlen(from), to);
  }
  raise(cls, message, e.call(), e.code(), e.errorName(), e.kernel(), e.description(), rank);
}

void setLaunchError(const std::string &kernel, const std::string &message, ErrorKind kind) {
  raise(kind == ErrorKind::Type    ? launchTypeErrorClass
        : kind == ErrorKind::Value ? launchValueErrorClass
                                   : launchErrorClass,
        message, "Kernel::launch", CUDA_ERROR_INVALID_VALUE,
        tile::errorName(CUDA_ERROR_INVALID_VALUE), kernel,
        tile::errorDescription(CUDA_ERROR_INVALID_VALUE), -1);
}


namespace {

// ---------------------------------------------------------------- DeviceArray
struct DeviceArray {
  std::shared_ptr<tile::DeviceBuffer<uint8_t>> buffer;
  std::vector<int64_t> shape;
  tile::ScalarType dtype = tile::ScalarType::F32;
  int device = 0;
  size_t nbytes() const { return buffer ? buffer->bytes() : 0; }
};

const char *typestrOf(tile::ScalarType t) {
  using S = tile::ScalarType;
  switch (t) {
  case S::I1: return "|b1";
  case S::I8: return "|i1";
  case S::U8: return "|u1";
  case S::I16: return "<i2";
  case S::U16: return "<u2";
  case S::I32: return "<i4";
  case S::U32: return "<u4";
  case S::I64: return "<i8";
  case S::U64: return "<u8";
  case S::F16: return "<f2";
  case S::BF16: return "<V2"; // no typestr names bfloat16: two raw bytes
  case S::F32: return "<f4";
  case S::F64: return "<f8";
  case S::E4M3:
  case S::E5M2: return "|V1"; // no typestr names fp8: one raw byte
  }
  return "|V1";
}

py::dict cudaArrayInterface(uint64_t ptr, const std::vector<int64_t> &shape,
                            tile::ScalarType dtype) {
  py::dict d;
  py::tuple s(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    s[i] = shape[i];
  d["shape"] = s;
  d["typestr"] = typestrOf(dtype);
  d["data"] = py::make_tuple(ptr, false);
  d["strides"] = py::none();
  d["version"] = 3;
  return d;
}

tile::ScalarType dtypeArg(const py::object &dtype) {
  std::string name = py::str(dtype);
  auto t = scalarTypeFromAnyName(name);
  if (!t)
    throw py::value_error("unknown dtype '" + name +
                          "' (tile names: i8..i64, u8..u64, f16, bf16, f32, f64, e4m3, e5m2)" +
                          tile::didYouMean(name.rfind("torch.", 0) == 0 ? name.substr(6) : name,
                                           dtypeNames()));
  return *t;
}

size_t elementCount(const std::vector<int64_t> &shape) {
  size_t n = 1;
  for (int64_t e : shape) {
    if (e < 0)
      throw py::value_error("negative extent in shape");
    n *= size_t(e);
  }
  return n;
}

} // namespace

bool readDeviceArray(PyObject *obj, bool withShape, ArrayView &out) {
  // classify() checked the type; the value is read without pybind11's caster.
  auto *inst = reinterpret_cast<py::detail::instance *>(obj);
  const DeviceArray &a = *inst->get_value_and_holder().value_ptr<DeviceArray>();
  out.ptr = a.buffer ? a.buffer->ptr() : 0;
  out.dtype = a.dtype;
  out.dtypeName = tile::scalarTypeName(a.dtype);
  out.device = a.device;
  if (withShape)
    out.shape = a.shape;
  return true;
}

#ifdef TILEC_PY_HAVE_NCCL
namespace {
struct SymmetricTensor {
  std::shared_ptr<tile::SymmetricAllocation> alloc;
  std::vector<int64_t> shape;
  tile::ScalarType dtype = tile::ScalarType::F16;
  int device = 0;
  std::optional<tile::Tensor> tensor; // the symmetric tensor argument (made once)
};
struct SemaphoresObj {
  std::shared_ptr<tile::Semaphores> sem;
  int device = 0;
  std::optional<tile::Tensor> last;
};
} // namespace

const tile::Tensor *peerArgument(PyObject *obj, bool semaphore, int &device) {
  py::handle h(obj);
  if (semaphore) {
    if (!py::isinstance<SemaphoresObj>(h))
      return nullptr;
    auto &s = h.cast<SemaphoresObj &>();
    device = s.device;
    s.last.emplace(s.sem->argument());
    return &*s.last;
  }
  if (!py::isinstance<SymmetricTensor>(h))
    return nullptr;
  auto &s = h.cast<SymmetricTensor &>();
  device = s.device;
  if (!s.tensor) {
    auto element = tile::tensorElementOf(s.dtype);
    s.tensor.emplace(tile::detail::symmetricTensorChecked(
        *s.alloc, *element, tile::TensorShape(s.shape.begin(), s.shape.end()),
        tile::scalarBytes(s.dtype)));
  }
  return &*s.tensor;
}
#else
const tile::Tensor *peerArgument(PyObject *, bool, int &) { return nullptr; }
#endif

void bindChoices(py::module_ &m); // choice.cpp

} // namespace tilec_py

using namespace tilec_py;

PYBIND11_MODULE(_tilec, m) {
  m.doc() = "tilec runtime bindings (use the tilec package, not this module)";
  py::module_ errors = py::module_::import("tilec._errors");
  errorClass = py::object(errors.attr("Error")).release().ptr();
  cudaErrorClass = py::object(errors.attr("CudaError")).release().ptr();
  launchErrorClass = py::object(errors.attr("LaunchError")).release().ptr();
  launchTypeErrorClass = py::object(errors.attr("LaunchTypeError")).release().ptr();
  launchValueErrorClass = py::object(errors.attr("LaunchValueError")).release().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const tile::Error &e) {
      setCudaError(e, false);
    }
  });
  if (PyType_Ready(&launcherType) < 0)
    throw py::error_already_set();
  Py_INCREF(&launcherType);
  m.add_object("Launcher", reinterpret_cast<PyObject *>(&launcherType));
  if (PyType_Ready(&boundLaunchType) < 0)
    throw py::error_already_set();
  Py_INCREF(&boundLaunchType);
  m.add_object("BoundLaunch", reinterpret_cast<PyObject *>(&boundLaunchType));

  m.def("driver_available", &tile::driverAvailable);
  m.def("device_count", &tile::deviceCount);
  m.def("driver_version", &tile::driverVersion);
  m.def("synchronize", [](int device) {
    tile::Context &c = contextFor(device);
    c.makeCurrent();
    c.synchronize();
  }, py::arg("device") = 0);
  m.def("device_name", [](int device) { return contextFor(device).name(); },
        py::arg("device") = 0);
  m.def("device_arch", [](int device) { return contextFor(device).arch(); },
        py::arg("device") = 0);
  m.def("tensor_map_encodes", &tile::detail::tensorMapEncodeCount,
        "cuTensorMapEncodeTiled calls made so far (the runtime caches encodings)");
  m.def("ptx_fingerprint", &tile::ptxFingerprint);
  m.def("sm_count", [](int device) { return contextFor(device).smCount(); },
        py::arg("device") = 0);
  bindChoices(m);

  py::class_<ModuleData, std::shared_ptr<ModuleData>>(m, "_Module")
      .def(py::init([](const std::string &ptx, const std::string &infoJson, int device,
                       bool useCache) {
             auto d = std::make_shared<ModuleData>();
             d->ptx = ptx;
             try {
               d->info = tile::moduleInfoFromJson(infoJson);
             } catch (const std::invalid_argument &e) {
               PyErr_SetObject(errorClass,
                               py::str(std::string("kernel info: ") + e.what()).ptr());
               throw py::error_already_set();
             }
             d->options.useCache = useCache;
             d->defaultDevice = device;
             return d;
           }),
           py::arg("ptx"), py::arg("info_json"), py::arg("device") = 0,
           py::arg("use_cache") = true)
      .def("load", [](ModuleData &d, int device) {
             tile::Module &mod = d.on(device);
             return mod.loadedFromCache();
           }, py::arg("device"), "Loads (JIT) the module on `device`; True when the cubin came from the cache")
      .def("cache_path", [](ModuleData &d, int device) { return d.on(device).cachePath(); })
      .def_readonly("default_device", &ModuleData::defaultDevice)
      .def_property_readonly("arch", [](const ModuleData &d) { return d.info.arch; })
      .def("kernel_names", [](const ModuleData &d) {
        std::vector<std::string> n;
        for (const auto &k : d.info.kernels)
          n.push_back(k.name);
        return n;
      })
      .def("kernel", [](std::shared_ptr<ModuleData> d, const std::string &name) {
        return std::make_shared<Kernel>(std::move(d), name);
      });

  py::class_<Kernel, std::shared_ptr<Kernel>>(m, "Kernel")
      .def_property_readonly("name", &Kernel::name)
      .def_property_readonly("source_name",
                             [](const Kernel &k) {
                               return k.info().sourceName.empty() ? k.name() : k.info().sourceName;
                             })
      .def_property_readonly("template_args",
                             [](const Kernel &k) {
                               py::dict d;
                               for (const auto &[n, t] : k.info().typeArgs)
                                 d[py::str(n)] = py::str(t); // a type parameter: "bf16"
                               for (const auto &[n, v] : k.info().templateArgs)
                                 d[py::str(n)] = v;
                               return d;
                             })
      .def_property_readonly("params",
                             [](const Kernel &k) {
                               py::list l;
                               for (const ParamPlan &p : k.plan())
                                 l.append(py::make_tuple(p.name, p.type));
                               return l;
                             },
                             "(name, type) of each parameter a launch passes, in order")
      .def_property_readonly("block",
                             [](const Kernel &k) -> py::object {
                               if (!k.defaultBlock())
                                 return py::none();
                               auto b = *k.defaultBlock();
                               return py::make_tuple(b.x, b.y, b.z);
                             })
      .def_property_readonly("cluster",
                             [](const Kernel &k) -> py::object {
                               const auto &i = k.info();
                               if (i.cluster == tile::KernelInfo::Cluster::None)
                                 return py::none();
                               if (i.cluster == tile::KernelInfo::Cluster::Launch)
                                 return py::str("launch");
                               return py::make_tuple(i.clusterDims[0], i.clusterDims[1],
                                                     i.clusterDims[2]);
                             })
      .def_property_readonly("static_shared_bytes",
                             [](const Kernel &k) { return k.info().staticSharedBytes; })
      .def("__getitem__", [](py::object self, py::object grid) {
        Kernel &k = self.cast<Kernel &>();
        return launcherFor(self, k, grid.ptr());
      })
      .def("launch", [](Kernel &k, py::args args, py::kwargs kwargs) {
        Kernel::Options o;
        bool gotGrid = false;
        if (!launchWithKeywords(k, args.ptr(), kwargs.ptr(), o, true, gotGrid))
          throw py::error_already_set();
      })
      .def("max_active_clusters",
           [](Kernel &k, py::object block, py::object cluster, py::object shared, int device,
              bool nonPortable) {
             tile::LaunchConfig cfg;
             cfg.grid = tile::Dim3(1);
             cfg.allowNonPortableCluster = nonPortable;
             if (!block.is_none()) {
               if (!toDim3(block.ptr(), "block", cfg.block))
                 throw py::error_already_set();
             } else if (k.defaultBlock()) {
               cfg.block = *k.defaultBlock();
             } else {
               throw py::type_error("kernel '" + k.name() + "' declares no threads(...): pass block=");
             }
             if (!cluster.is_none() && !toDim3(cluster.ptr(), "cluster", cfg.cluster))
               throw py::error_already_set();
             if (!shared.is_none())
               cfg.sharedBytes = shared.cast<size_t>();
             // One cluster's grid: the given cluster, else the compiled one.
             const auto &info = k.info();
             cfg.grid = cfg.cluster;
             if (cluster.is_none() && info.cluster == tile::KernelInfo::Cluster::Fixed)
               cfg.grid = tile::Dim3(info.clusterDims[0], info.clusterDims[1], info.clusterDims[2]);
             contextFor(device).makeCurrent();
             return k.on(device).maxActiveClusters(cfg);
           },
           py::arg("block") = py::none(), py::arg("cluster") = py::none(),
           py::arg("shared") = py::none(), py::arg("device") = 0,
           py::arg("allow_non_portable_cluster") = false,
           "cuOccupancyMaxActiveClusters: how many clusters of this kernel fit at once "
           "(the grid of a persistent kernel)")
      .def("__repr__", [](const Kernel &k) {
        std::string sig;
        for (const ParamPlan &p : k.plan())
          sig += (sig.empty() ? "" : ", ") + p.name + ": " + p.type;
        return "<tilec kernel " + k.name() + "(" + sig + ")>";
      });

  {
    auto *type = reinterpret_cast<PyTypeObject *>(py::type::of<Kernel>().ptr());
    type->tp_as_mapping->mp_subscript = kernelSubscript;
    PyType_Modified(type);
  }

  py::class_<DeviceArray>(m, "DeviceArray")
      .def(py::init([](std::vector<int64_t> shape, py::object dtype, int device) {
             DeviceArray a;
             a.shape = std::move(shape);
             a.dtype = dtypeArg(dtype);
             a.device = device;
             tile::Context &ctx = contextFor(device);
             ctx.makeCurrent();
             a.buffer = std::make_shared<tile::DeviceBuffer<uint8_t>>(
                 ctx, elementCount(a.shape) * tile::scalarBytes(a.dtype));
             return a;
           }),
           py::arg("shape"), py::arg("dtype"), py::arg("device") = 0)
      .def_property_readonly("shape", [](const DeviceArray &a) {
        py::tuple t(a.shape.size());
        for (size_t i = 0; i < a.shape.size(); ++i)
          t[i] = a.shape[i];
        return t;
      })
      .def_property_readonly("dtype", [](const DeviceArray &a) { return tile::scalarTypeName(a.dtype); })
      .def_readonly("device", &DeviceArray::device)
      .def_property_readonly("nbytes", &DeviceArray::nbytes)
      .def_property_readonly("ptr", [](const DeviceArray &a) -> uint64_t {
        return a.buffer ? a.buffer->ptr() : 0;
      })
      .def("data_ptr", [](const DeviceArray &a) -> uint64_t { return a.buffer ? a.buffer->ptr() : 0; })
      .def_property_readonly("__cuda_array_interface__", [](const DeviceArray &a) {
        return cudaArrayInterface(a.buffer ? a.buffer->ptr() : 0, a.shape, a.dtype);
      })
      .def("copy_from", [](DeviceArray &a, py::buffer b) {
        py::buffer_info info = b.request();
        const size_t bytes = size_t(info.size) * size_t(info.itemsize);
        if (bytes != a.nbytes())
          throw py::value_error("copy_from: " + std::to_string(bytes) + " bytes given for a " +
                                std::to_string(a.nbytes()) + "-byte array");
        contextFor(a.device).makeCurrent();
        a.buffer->copyFrom(static_cast<const uint8_t *>(info.ptr), bytes);
      }, "Copies a C-contiguous host buffer (numpy array) of the same byte size in")
      .def("copy_to", [](const DeviceArray &a, py::buffer b) {
        py::buffer_info info = b.request(true);
        const size_t bytes = size_t(info.size) * size_t(info.itemsize);
        if (bytes != a.nbytes())
          throw py::value_error("copy_to: a " + std::to_string(bytes) + "-byte buffer for a " +
                                std::to_string(a.nbytes()) + "-byte array");
        contextFor(a.device).makeCurrent();
        a.buffer->copyTo(static_cast<uint8_t *>(info.ptr), bytes);
      }, "Copies the array into a writable C-contiguous host buffer of the same byte size")
      .def("fill_bytes", [](DeviceArray &a, int v) {
        contextFor(a.device).makeCurrent();
        a.buffer->fillBytes(static_cast<unsigned char>(v));
      });
  setDeviceArrayType(py::type::of<DeviceArray>().ptr());

#ifdef TILEC_PY_HAVE_NCCL
  m.attr("has_nccl") = true;
  m.def("new_unique_id", [] { return tile::uniqueIdToHex(tile::newNcclUniqueId()); },
        "A fresh NCCL unique id as 256 hex digits (rank 0 makes it, every rank uses it)");
  py::class_<tile::Communicator>(m, "Communicator")
      .def_static("from_bootstrap",
                  [](int rank, int worldSize, int localRank, int device, const std::string &id) {
                    tile::Bootstrap b;
                    b.rank = rank;
                    b.worldSize = worldSize;
                    b.localRank = localRank;
                    b.device = device;
                    b.uniqueIdHex = id;
                    return tile::Communicator::fromBootstrap(b);
                  },
                  py::arg("rank"), py::arg("world_size"), py::arg("local_rank"),
                  py::arg("device"), py::arg("unique_id"))
      .def_static("from_environment", &tile::Communicator::fromEnvironment)
      .def_static("local", &tile::Communicator::local, py::arg("devices"))
      .def_property_readonly("rank", &tile::Communicator::rank)
      .def_property_readonly("size", &tile::Communicator::size)
      .def_property_readonly("device", &tile::Communicator::device)
      .def("barrier", &tile::Communicator::barrier)
      .def("symmetric",
           [](const tile::Communicator &c, std::vector<int64_t> shape, py::object dtype) {
             SymmetricTensor s;
             s.shape = std::move(shape);
             s.dtype = dtypeArg(dtype);
             if (!tile::tensorElementOf(s.dtype))
               throw py::value_error("a symmetric tensor cannot hold " +
                                     std::string(tile::scalarTypeName(s.dtype)));
             s.device = c.device();
             s.alloc = std::make_shared<tile::SymmetricAllocation>(
                 c, elementCount(s.shape) * tile::scalarBytes(s.dtype));
             return s;
           },
           py::arg("shape"), py::arg("dtype"),
           "Collective: this rank's part of a symmetric allocation, for a kernel's "
           "`symmetric tensor<T>[...]` parameter")
      .def("semaphores",
           [](const tile::Communicator &c, uint32_t count) {
             SemaphoresObj s;
             s.sem = std::make_shared<tile::Semaphores>(c, count);
             s.device = c.device();
             return s;
           },
           py::arg("count"), "Collective: the argument of a kernel's `semaphore[S]` parameter");
  py::class_<SymmetricTensor>(m, "SymmetricTensor")
      .def_property_readonly("shape", [](const SymmetricTensor &s) { return py::tuple(py::cast(s.shape)); })
      .def_property_readonly("dtype", [](const SymmetricTensor &s) { return tile::scalarTypeName(s.dtype); })
      .def_readonly("device", &SymmetricTensor::device)
      .def_property_readonly("ptr", [](const SymmetricTensor &s) -> uint64_t { return s.alloc->ptr(); })
      .def("peer_ptr", [](const SymmetricTensor &s, int rank) -> uint64_t { return s.alloc->peerPtr(rank); })
      .def_property_readonly("__cuda_array_interface__", [](const SymmetricTensor &s) {
        return cudaArrayInterface(s.alloc->ptr(), s.shape, s.dtype);
      });
  py::class_<SemaphoresObj>(m, "Semaphores")
      .def_property_readonly("count", [](const SemaphoresObj &s) { return s.sem->count(); })
      .def_property_readonly("epoch", [](const SemaphoresObj &s) { return s.sem->epoch(); })
      .def_readonly("device", &SemaphoresObj::device)
      .def("to_host", [](const SemaphoresObj &s) { return s.sem->toHost(); });
#else
  m.attr("has_nccl") = false;
#endif
}
