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
void setLaunchError(const std::string &kernel, const std::string &message);
void setCudaError(const tile::Error &e, bool duringLaunch);

/// Detaches and releases the launcher a Kernel caches (module.cpp).
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
  };
  /// Marshals `args` (a tuple) and launches. Returns false with a Python
  /// exception set.
  bool launch(PyObject *args, const Options &opts);

  // The last grid indexed (kernel[grid]) and its launcher, reused while the
  // grid repeats (a loop over kernel[grid](...) creates no object per call).
  tile::Dim3 cachedGrid{0, 0, 0};
  PyObject *cachedLauncher = nullptr;

private:
  bool marshal(PyObject *args, int &device, bool &sawTorch);

  std::shared_ptr<ModuleData> module_;
  std::string name_;
  const tile::KernelInfo *info_ = nullptr;
  std::vector<ParamPlan> plan_;
  std::optional<tile::Dim3> defaultBlock_;
  std::array<std::optional<tile::Kernel>, kMaxDevices> kernels_;
  // Per-call storage, reused (the GIL serialises calls).
  std::vector<uint64_t> slots_;
  std::vector<std::optional<tile::Tensor>> tensors_;
  std::vector<void *> argPtrs_;
  std::vector<tile::ArgDesc> descs_;
};

/// Returns the tile::Tensor a symmetric tensor or semaphore argument passes,
/// or nullptr when `obj` is none (defined with the distributed bindings).
const tile::Tensor *peerArgument(PyObject *obj, bool semaphore, int &device);

} // namespace tilec_py
