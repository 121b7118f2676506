//===- RuntimeState.h - the state behind the runtime's handles -*- C++ -*-===//
//
// Internal. Context, Module and Kernel are handles onto shared states: a Kernel
// keeps its Module's state alive, a Module (and every DeviceBuffer) its
// Context's, so that the driver objects are released in the right order
// whatever order the handles go in. Each concern lives in its own file:
// Context.cpp, Module.cpp (loading and the JIT), Kernel.cpp (launches),
// Memory.cpp, Stream.cpp (streams and events), LaunchLog.cpp (which kernel to
// blame for an asynchronous fault).
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "Driver.h"
#include "PtxFacts.h"
#include "tile/kernel_info.h"
#include "tile/launch.h"
#include "tile/target.h"

namespace tile::detail {

struct ContextState {
  int ordinal = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  std::string name;
  int cc = 0;
  int sms = 0;
  int driverVersion = 0;
  size_t smemOptin = 0;
  int maxThreads = target::kMaxThreadsPerBlock;
  bool clusterLaunch = false;
  Dim3 maxBlock, maxGrid;

  ~ContextState() {
    const Driver &d = driver();
    if (ctx && d.api.cuDevicePrimaryCtxRelease)
      d.api.cuDevicePrimaryCtxRelease(dev);
  }
  int attr(CUdevice_attribute a) const {
    int v = 0;
    TILE_CU(cuDeviceGetAttribute, &v, a, dev);
    return v;
  }
};

/// "device 0's primary context" for a context a tile::Context retained, else
/// "a context the runtime did not create (0x...)"; "no context" for null.
std::string describeContext(CUcontext c);
/// Peer access the runtime enabled (Communicator): kernels of `from` may read
/// memory of `to`.
void notePeerAccess(CUcontext from, CUcontext to);
bool peerAccessEnabled(CUcontext from, CUcontext to);

/// A tile::Stream: destroyed (with its context pushed) when the last owner goes.
struct StreamState {
  CUstream stream = nullptr;
  std::shared_ptr<ContextState> ctx; // null when no tile::Context was alive
  ~StreamState();
};

/// The host memory a module's --debug-hangs reports go to (HangRecord.cpp).
struct HangRecordSlot;

struct ModuleState {
  std::shared_ptr<ContextState> ctx;
  bool withoutInfo = false;   // ModuleOptions::withoutKernelInfo
  bool reportSkipped = true;  // ModuleOptions::reportSkippedChecks
  CUmodule mod = nullptr;
  std::string image;
  std::string ptx; // the PTX text of a PTX module (parameter names), else ""
  std::string infoLog;
  std::string cachePath;
  bool fromCache = false;
  bool hasInfo = false; // `info` came with the module (tilec --emit=info)
  ModuleInfo info;
  // Set by bindHangRecord for a module with a hang record; released after
  // the module is unloaded (members go after the destructor's body).
  std::shared_ptr<HangRecordSlot> hangRecord;
  ~ModuleState() {
    const Driver &d = driver();
    if (mod && d.api.cuModuleUnload)
      d.api.cuModuleUnload(mod);
  }
};

struct KernelState {
  std::shared_ptr<ModuleState> module;
  CUfunction fn = nullptr;
  std::string name;
  int maxThreads = 0;
  size_t staticSmem = 0;
  int numRegs = 0;
  Dim3 requiredCluster{0, 0, 0}; // .reqnctapercluster, (0, 0, 0) when none
  bool needsCluster = false;     // .explicitcluster
  bool paramsKnown = false;      // the driver has cuFuncGetParamInfo
  std::vector<KernelParam> params;
  const KernelInfo *info = nullptr; // in module->info, when the module has info
  PtxEntryFacts facts;              // from the module's PTX (not found for a cubin)
  bool skippedReported = false;     // the no-info note was written

  std::mutex mu; // guards the attribute/validation cache below
  int maxDynamicSmem = 0;
  bool nonPortableSet = false;
  // Configurations whose checks passed (validated, attributes set, occupancy
  // checked), the most recent last: a launch of one of them skips the checks.
  // Several, so that calls alternating shapes on one kernel (a persistent
  // grid and a split grid, two layers' M) do not query the occupancy each
  // time; bounded, the oldest dropped first.
  std::vector<LaunchConfig> checked;
  // Launches with symmetric arguments whose uniformity across ranks was
  // checked: (grid, block, cluster, shared bytes, symmetric extents).
  std::set<std::vector<uint64_t>> uniformChecked;

  int attr(CUfunction_attribute a) const {
    int v = 0;
    TILE_CU_K(name, cuFuncGetAttribute, &v, a, fn);
    return v;
  }
};

/// The state behind a Module/Kernel handle; a default-constructed (empty)
/// handle throws instead of dereferencing null.
template <class State>
State &require(const std::shared_ptr<State> &state, const char *call, const char *type) {
  if (!state)
    throw Error::withMessage(call, CUDA_ERROR_INVALID_HANDLE, {},
                             std::string(call) + ": this tile::" + type +
                                 " is empty (default-constructed); assign it from " +
                                 (std::string(type) == "Kernel"
                                      ? "Module::kernel(name)"
                                      : "Module::fromPtx/fromCubin/fromFile/fromFiles") +
                                 " first");
  return *state;
}

//===----------------------------------------------------------------------===//
// Launch log (LaunchLog.cpp)
//===----------------------------------------------------------------------===//

/// Records `kernel` as the last one launched, overall and on `stream`.
void noteLaunch(CUstream stream, const std::string &kernel);
/// Drops a destroyed stream from the log.
void forgetStream(CUstream stream);

enum class Scope { AnyStream, ThisStream };

/// The kernel to blame for `stream` ("" when none was launched).
std::string lastKernel(Scope scope, CUstream stream = nullptr);

/// Errors a kernel raises on the device, reported by a later call (and sticky:
/// every call in the context fails with them afterwards).
bool isKernelFault(CUresult r);

/// A module tilec gave a hang record (tile/hang_record.h): maps host memory
/// for it, writes its device address into the module and reads the report
/// formats. Nothing for other modules. HangRecord.cpp.
void bindHangRecord(ModuleState &s);
/// A record's report: `format` (%d %i %u %x, %ll*, %%) filled from `args`
/// (each sign-extended to 64 bits by the kernel).
std::string formatHangRecord(const std::string &format, const std::vector<uint64_t> &args);

/// Throws for a failed call that may report earlier kernels' work: a
/// synchronizing call (every error) or any call failing with a kernel fault.
/// Names the last kernel launched (on `stream` for ThisStream) when the runtime
/// launched one.
void checkAfterKernels(CUresult r, const char *call, bool synchronizing, Scope scope,
                       CUstream stream = nullptr);

/// Makes `ctx` current on this thread for the life of the guard (cuCtxPushCurrent
/// / cuCtxPopCurrent), so that a call made from a destructor reaches the context
/// its object belongs to whatever is current. Never throws: without the entry
/// points (or a context) it does nothing.
class ScopedContext {
public:
  explicit ScopedContext(const ContextState *ctx) noexcept;
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  bool pushed_ = false;
};

} // namespace tile::detail
