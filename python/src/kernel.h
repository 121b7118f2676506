//===- kernel.h - modules, kernels and the launch path (internal) -*- C++ -*-===//
//
// A Kernel holds its launch plan, made once from the kernel info: one entry
// per declared parameter saying how a Python argument becomes the value the
// runtime checks and launches (a scalar converted to the parameter's type, a
// device array's address, a tile::Tensor of its extents and strides). A call
// walks the plan over the arguments into storage the Kernel keeps (no
// allocation for scalar and pointer parameters) and hands the result to
// tile::Kernel::launchDescribed, which makes every check a C++ launch makes.
//===----------------------------------------------------------------------===//
#pragma once

#include <Python.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tile/runtime.h"

namespace tilec_py {

constexpr int kMaxDevices = 64;

/// The device's tile::Context (the primary context, which PyTorch shares),
/// created on first use and made current on the calling thread.
tile::Context &contextFor(int device);

/// The PTX, its kernel info and, per device, the module loaded from them.
struct ModuleData {
  std::string ptx;
  tile::ModuleInfo info;
  tile::ModuleOptions options;
  int defaultDevice = 0;
  std::array<std::optional<tile::Module>, kMaxDevices> loaded;
  tile::Module &on(int device); // loads on first use
};

struct ParamPlan {
  enum class Kind { Scalar, Pointer, Tensor, Symmetric, Semaphore } kind = Kind::Scalar;
  std::string name;
  std::string type; // "ptr<f16, global>", as the kernel info names it
  tile::ScalarType scalar = tile::ScalarType::I32;
  const tile::KernelParamInfo *info = nullptr;
};

/// Python-visible errors raised from the launch path (set as the current
/// Python exception; the caller returns nullptr).
/// The class of a refused launch: tilec.LaunchError, or its subclasses that
/// are also TypeError (a wrong kind of argument or option, a wrong count) or
/// ValueError (a value out of range, an array in the wrong place or layout).
enum class ErrorKind { Launch, Type, Value };
void setLaunchError(const std::string &kernel, const std::string &message,
                    ErrorKind kind = ErrorKind::Launch);
void setCudaError(const tile::Error &e, bool duringLaunch);

/// Raises `type` with `message` (a new reference, or nullptr when making it
/// failed and set an exception already).
inline void raiseMessage(PyObject *type, PyObject *message) {
  if (!message)
    return;
  PyErr_SetObject(type, message);
  Py_DECREF(message);
}

/// A new tilec.BoundLaunch (bound.cpp) launching `b` on `device`, on the
/// current torch stream when `torchStream` (else the default stream);
/// nullptr with an exception set.
PyObject *newBoundLaunch(tile::BoundLaunch b, int device, bool torchStream);
extern PyTypeObject boundLaunchType;

/// Detaches and releases the launcher a Kernel caches (launcher.cpp).
void releaseCachedLauncher(PyObject *launcher);

class Kernel {
public:
  Kernel(std::shared_ptr<ModuleData> module, std::string name);
  ~Kernel() {
    if (cachedLauncher)
      releaseCachedLauncher(cachedLauncher);
  }
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  const std::string &name() const { return name_; }
  const tile::KernelInfo &info() const { return *info_; }
  const std::vector<ParamPlan> &plan() const { return plan_; }
  std::optional<tile::Dim3> defaultBlock() const { return defaultBlock_; }
  /// The loaded kernel on `device` (the module is loaded on first use).
  tile::Kernel &on(int device);

  struct Options {
    tile::Dim3 grid;
    std::optional<tile::Dim3> block, cluster;
    std::optional<size_t> sharedBytes;
    PyObject *stream = nullptr; // borrowed; nullptr or None: the default
    bool checkPointers = true;
    bool allowNonPortableCluster = false;
  };
  /// Marshals `args` (a tuple) and launches. Returns false with a Python
  /// exception set. With `bound`, launches nothing: *bound becomes a
  /// tilec.BoundLaunch of these arguments (tile::Kernel::bind).
  bool launch(PyObject *args, const Options &opts, PyObject **bound = nullptr);
  /// `args` with the keyword arguments `byName` (parameter name -> value,
  /// launch options removed) placed by the parameters' names: a new tuple,
  /// or nullptr with a Python exception set (an unknown name, a parameter
  /// given twice or missing).
  PyObject *bindKeywords(PyObject *args, PyObject *byName) const;

  // The last grid indexed (kernel[grid]) and its launcher, reused while the
  // grid repeats (a loop over kernel[grid](...) creates no object per call).
  tile::Dim3 cachedGrid{0, 0, 0};
  PyObject *cachedLauncher = nullptr;

  // What one call marshals into: the scalars' bits, the tensors, the
  // argument pointers and descriptions the runtime reads.
  struct CallStorage {
    std::vector<uint64_t> slots;
    std::vector<std::optional<tile::Tensor>> tensors;
    std::vector<void *> argPtrs;
    std::vector<tile::ArgDesc> descs;
    void resize(size_t n);
  };

private:
  void recordStream(PyObject *args, PyObject *streamObj, uint64_t stream, int device);
  bool marshal(PyObject *args, CallStorage &st, int &device, bool &sawTorch);

  std::shared_ptr<ModuleData> module_;
  std::string name_;
  const tile::KernelInfo *info_ = nullptr;
  std::vector<ParamPlan> plan_;
  std::optional<tile::Dim3> defaultBlock_;
  std::array<std::optional<tile::Kernel>, kMaxDevices> kernels_;
  // Per-call storage, reused by the calls that do not overlap. A call can
  // overlap another on the same kernel: marshalling runs Python code (an
  // argument's __cuda_array_interface__ property, __dlpack__, __index__),
  // where another thread may take the GIL and launch this kernel too; such a
  // call (busy_ set) marshals into storage of its own.
  CallStorage storage_;
  bool busy_ = false;
};

/// Returns the tile::Tensor a symmetric tensor or semaphore argument passes,
/// or nullptr when `obj` is none (defined with the distributed bindings).
const tile::Tensor *peerArgument(PyObject *obj, bool semaphore, int &device);

} // namespace tilec_py
