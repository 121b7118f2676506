//===- runtime.h - the tilec runtime over the CUDA driver -------*- C++ -*-===//
//
// A small C++17 layer over the CUDA driver API. The driver (libcuda.so.1) is
// loaded with dlopen at first use; nothing links against libcuda, so programs run (and report a
// clean tile::Error) on machines without a driver. Only cuda.h types are used from the CUDA
// toolkit.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tile/args.h"
#include "tile/cache.h"
#include "tile/error.h"
#include "tile/kernel_info.h"
#include "tile/launch.h"
#include "tile/tensor_map.h"

namespace tile {

// libcuda.so.1 loadable and cuInit(0) succeeded. Never throws.
bool driverAvailable();
// Number of CUDA devices; 0 when there is no driver or no device. Never throws.
int deviceCount();
// cuDriverGetVersion (e.g. 13000). Throws when there is no driver.
int driverVersion();

namespace detail {
struct ContextState;
struct ModuleState;
struct KernelState;
} // namespace detail

// The reports of --debug-hangs waits that timed out in kernels with mma
// (which write them to host memory instead of printing: tile/hang_record.h),
// each returned once, one line each; "" when there is none. The error of the
// call that reports the failed launch carries them already, and whatever is
// left at exit is printed on stderr: call this after a failure the runtime
// did not see (a cudaDeviceSynchronize of the CUDA runtime API).
std::string takeHangReports();

// A device and its primary context (retained on construction, released when the
// last copy goes away), made current on the calling thread by the constructor.
// Copies share the same state.
class Context {
public:
  explicit Context(int device = 0); // cuInit, cuDevicePrimaryCtxRetain, cuCtxSetCurrent
  int device() const;
  std::string name() const;
  int smCount() const;
  int computeCapability() const; // e.g. 90
  std::string arch() const;      // "sm_90a" for 9.0 ("a" suffix from 9.0 on)
  int driverVersion() const;
  size_t maxSharedPerBlockOptin() const;
  int attribute(CUdevice_attribute attr) const; // any cuDeviceGetAttribute value
  void makeCurrent() const;                     // cuCtxSetCurrent on this thread
  void synchronize();                           // cuCtxSynchronize
  CUcontext raw() const;
  CUdevice rawDevice() const;

  const std::shared_ptr<detail::ContextState> &state() const { return state_; }

private:
  std::shared_ptr<detail::ContextState> state_;
};

struct ModuleOptions {
  // PTX is JIT-compiled as one whole program (cuModuleLoadDataEx). The driver
  // linker (false: cuLinkAddData) compiles PTX as a relocatable unit, which
  // measured 1.4-1.5x slower SGEMMs on an H100 and makes ptxas drop
  // setmaxnreg; only that path returns a cubin for tilec's cache below (the
  // driver's own JIT cache serves the whole-program path). PTX with
  // setmaxnreg always takes the whole-program path.
  bool wholeProgramJit = true;
  bool useCache = true;
  // "" -> $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec.
  // TILEC_NO_CACHE=1 in the environment disables the cache.
  std::string cacheDir;
  int jitOptLevel = 4; // CU_JIT_OPTIMIZATION_LEVEL, 0..4
  // A module loaded without kernel info (fromPtx/fromCubin/fromFile) launches
  // only with this opt-in: without the info the runtime cannot check the
  // arguments' kinds (a float passed for an i32 computes garbage), raw pointer
  // arguments, tensor arguments or the dynamic shared memory. With it, those
  // launches go ahead and Kernel::skippedChecks() lists what was not checked
  // (also written to stderr at a kernel's first launch when
  // reportSkippedChecks is set). Ignored when the module has kernel info.
  bool withoutKernelInfo = false;
  bool reportSkippedChecks = true;
  // Default options with withoutKernelInfo set.
  static ModuleOptions launchWithoutInfo() {
    ModuleOptions o;
    o.withoutKernelInfo = true;
    return o;
  }
};

class Kernel;
class BoundLaunch;

// A loaded module (cuModuleUnload when the last Module/Kernel referring to it goes away).
class Module {
public:
  Module() = default; // empty; only assignable/valid() until given a loaded module (else throws)
  bool valid() const { return state_ != nullptr; }
  // JIT: cuLinkCreate/cuLinkAddData/cuLinkComplete -> cubin (cached on disk), then
  // cuModuleLoadDataEx. A JIT failure's tile::Error carries the JIT error log.
  static Module fromPtx(Context &, const std::string &ptx, const ModuleOptions & = {});
  // A cubin or fatbin image.
  static Module fromCubin(Context &, const std::string &cubin, const ModuleOptions & = {});
  // .ptx or .cubin/fatbin, decided by content (ELF/fatbin magic -> binary, else PTX).
  static Module fromFile(Context &, const std::string &path, const ModuleOptions & = {});
  // A module with its kernel info (tilec --emit=info; tile::compile's
  // CompileResult::kernels): its kernels' launches compute their dynamic shared
  // memory and check their arguments' kinds against it (see Kernel::launch).
  static Module fromPtx(Context &, const std::string &ptx, const ModuleInfo &info,
                        const ModuleOptions & = {});
  // `path` (as fromFile) and the kernel info JSON at `infoPath`; "" means the
  // file beside it: "k.ptx" -> "k.info.json" (where tilec's build rules put it).
  static Module fromFiles(Context &, const std::string &path, const std::string &infoPath = "",
                          const ModuleOptions & = {});

  Kernel kernel(const std::string &name) const; // cuModuleGetFunction
  // An instance of a kernel with compile-time parameters (`kernel k<BM: i32,
  // BN: i32>`, compiled with -D): kernel("k", {{"BM", 128}, {"BN", 64}}). With
  // kernel info the arguments may come in any order and a missing instance is
  // an error listing the compiled ones; without it they must be in parameter
  // order (the PTX name is mangledKernelName(name, args): kernel("k$BM128$BN64")
  // finds the same kernel).
  Kernel kernel(const std::string &name, const TemplateArgs &args) const;
  // The same for a kernel with type parameters (`kernel k<T: type, BN: i32>`):
  // kernel("k", {{"BN", 256}}, {{"T", "bf16"}}). The two-argument form leaves
  // the type arguments free and finds the instance when exactly one has these
  // values (a module compiled for one element type).
  Kernel kernel(const std::string &name, const TemplateArgs &args, const TypeArgs &types) const;
  bool loadedFromCache() const;
  const std::string &jitInfoLog() const; // CU_JIT_INFO_LOG_BUFFER of the JIT ("" if cached)
  const std::string &cubin() const;      // the loaded image (cubin for PTX modules; "" for
                                         // PTX with setmaxnreg, JIT-loaded as a whole program)
  const std::string &cachePath() const;  // cache file used/written, "" when none
  const ModuleInfo *info() const;        // the kernel info, nullptr when loaded without
  CUmodule raw() const;

private:
  explicit Module(std::shared_ptr<detail::ModuleState> s) : state_(std::move(s)) {}
  static Module fromPtxChecked(Context &, const std::string &ptx, const ModuleOptions &,
                               std::shared_ptr<detail::ModuleState> s);
  std::shared_ptr<detail::ModuleState> state_;
};

class Kernel {
public:
  Kernel() = default; // empty; only assignable/valid() until given a kernel (else throws)
  bool valid() const { return state_ != nullptr; }
  // Args: scalars/trivially copyable structs by value, DeviceBuffer<T> -> its
  // CUdeviceptr, raw CUdeviceptr, tile::Tensor for a tensor<T>[...] parameter
  // (its map encoded from the kernel info, the hidden extents filled: the
  // caller passes the declared parameters only; tile/tensor_map.h). Checks the arguments' number and byte sizes
  // against the kernel's parameters (cuFuncGetParamInfo, when the driver has it),
  // with kernel info also their kinds (a float for an i32, a DeviceBuffer<float>
  // for a ptr<i32>), and the configuration (see tile/launch.h) before launching;
  // an unset cfg.sharedBytes comes from the kernel info's layout rule for these
  // arguments. Raises the dynamic shared memory and non-portable cluster
  // attributes as needed, and for clusters checks cuOccupancyMaxActiveClusters.
  template <class... Args> void launch(const LaunchConfig &cfg, const Args &...args) {
    ArgPack<Args...> pack(args...);
    const auto sizes = ArgPack<Args...>::sizes();
    const auto descs = ArgPack<Args...>::descriptors();
    launchChecked(cfg, pack.data(), sizes.data(), descs.data(), pack.size());
  }
  // A ready argument array: args[i] points at argSizes[i] bytes for parameter i
  // (for a kernel with tensor parameters: every parameter the driver sees,
  // encoded maps and hidden extents included, checked by size only).
  void launchPacked(const LaunchConfig &cfg, void **args, const size_t *argSizes, size_t argCount);
  // As launchPacked, without the argument check (the sizes behind args are unknown):
  // the array must match the kernel's parameters exactly.
  void launchUnchecked(const LaunchConfig &cfg, void **args);
  // Arguments whose C++ types are known only at run time (a language binding:
  // the Python package): args[i] points at the value of declared parameter i
  // as descs[i] describes it (a tile::Tensor for Kind::Tensor, as
  // ArgTraits<Tensor> and ArgTraits<Semaphores> pass them; a CUdeviceptr as an
  // 8-byte Integer for a pointer). Checked exactly as launch(cfg, args...)
  // checks C++ arguments of those descriptions.
  void launchDescribed(const LaunchConfig &cfg, void **args, const ArgDesc *descs,
                       size_t argCount);
  // A launch bound once for many that differ only in their addresses (a
  // binding's repeated call: tilec.ops): cfg and arguments as launchDescribed
  // takes them, checked as it checks them, the tensor maps encoded; nothing
  // is launched. BoundLaunch::launch then takes the new addresses. A kernel
  // with symmetric tensor or semaphore parameters is refused.
  BoundLaunch bind(const LaunchConfig &cfg, void **args, const ArgDesc *descs, size_t argCount);
  // cuOccupancyMaxActiveClusters for a valid cfg, after raising the attributes cfg
  // needs (as launch does), since the answer counts against them. A kernel with
  // dynamic shared arrays needs cfg.sharedBytes, or the arguments (the overload).
  int maxActiveClusters(const LaunchConfig &cfg) const;
  template <class... Args>
  int maxActiveClusters(const LaunchConfig &cfg, const Args &...args) const {
    LaunchConfig resolved = cfg;
    resolved.sharedBytes = dynamicSharedBytes(cfg, args...);
    return maxActiveClusters(resolved);
  }
  // The dynamic shared memory a launch of cfg with these arguments needs, from
  // the kernel info's layout rule (the cluster: cfg's, else the compiled one).
  // Throws when the kernel has no info.
  template <class... Args>
  size_t dynamicSharedBytes(const LaunchConfig &cfg, const Args &...args) const {
    ArgPack<Args...> pack(args...);
    const auto descs = ArgPack<Args...>::descriptors();
    return dynamicSharedBytesFor(cfg, pack.data(), descs.data(), pack.size());
  }
  // The kernel info (nullptr when the module was loaded without it).
  const KernelInfo *info() const;
  // The launch checks this kernel cannot make, one sentence each: empty with
  // kernel info; without it (ModuleOptions::withoutKernelInfo) the checks
  // that need the info.
  std::vector<std::string> skippedChecks() const;

  const std::string &name() const;
  CUfunction raw() const;
  int maxThreadsPerBlock() const;
  size_t staticSharedBytes() const;
  int numRegs() const;
  int attribute(CUfunction_attribute attr) const; // any cuFuncGetAttribute value
  LaunchLimits limits() const;                    // what launch checks against
  // The parameters as the driver lays them out (names from the PTX of a PTX module);
  // paramsKnown() is false when the driver lacks cuFuncGetParamInfo (before CUDA
  // 12.4): then arguments are not checked.
  bool paramsKnown() const;
  const std::vector<KernelParam> &params() const;

private:
  friend class Module;
  friend class BoundLaunch;
  explicit Kernel(std::shared_ptr<detail::KernelState> s) : state_(std::move(s)) {}
  void launchChecked(const LaunchConfig &cfg, void **args, const size_t *argSizes,
                     const ArgDesc *descs, size_t argCount);
  size_t dynamicSharedBytesFor(const LaunchConfig &cfg, void **args, const ArgDesc *descs,
                               size_t argCount) const;
  // cfg with sharedBytes from the kernel info (checked against it when given).
  LaunchConfig resolve(const LaunchConfig &cfg, void **args) const;
  void prepare(const LaunchConfig &cfg, const LaunchLimits &limits) const;
  void launchNow(const LaunchConfig &cfg, void **args, CUstream stream);
  int queryActiveClusters(const LaunchConfig &cfg) const;
  std::shared_ptr<detail::KernelState> state_;
};

// Kernel::bind's launch: the configuration, the scalars, the arguments'
// kinds, dtypes, extents and strides as bound; the addresses given per launch.
class BoundLaunch {
public:
  BoundLaunch() = default; // empty until assigned from Kernel::bind
  bool valid() const { return state_ != nullptr; }
  // The declared parameters that take an address (pointers and tensors).
  size_t addressCount() const;
  // Launches on `stream` with addresses[i] for the i-th pointer or tensor
  // parameter. What depends on an address is checked at every launch as
  // launchDescribed checks it: not null, a pointer's alignment, a tensor
  // map's address rule; with the bound cfg.checkPointers, the memory (device
  // memory of the kernel's context holding a tensor's whole extent), asked
  // of the driver only for an address that is not among the last two this
  // parameter launched with (the caller keeps the memory of the addresses it
  // passes alive); a map is encoded again (through the cache) only for a new
  // address.
  void launch(const CUdeviceptr *addresses, size_t count, StreamRef stream = {});
  struct State;

private:
  friend class Kernel;
  std::shared_ptr<State> state_;
};

namespace detail {
// The ContextState of the Context last constructed or made current on this
// thread (null when none is alive): a DeviceBuffer's context unless given one.
std::shared_ptr<ContextState> currentContext();
// What a DeviceBuffer's memory is while it is allocated: tile::Tensor views
// over the buffer hold it weakly, so a launch can tell that the buffer behind
// a tensor was freed (the address may already belong to another allocation).
struct AllocationToken {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
};
// cuMemAlloc / cuMemFree with `ctx` current for the call (when not null).
CUdeviceptr memAlloc(const std::shared_ptr<ContextState> &ctx, size_t bytes);
void memFree(const std::shared_ptr<ContextState> &ctx, CUdeviceptr p) noexcept;
void copyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
void copyDtoH(void *dst, CUdeviceptr src, size_t bytes);
void memsetD8(CUdeviceptr dst, unsigned char value, size_t bytes);
[[noreturn]] void throwBufferOverflow(const char *what, size_t n, size_t size);
[[noreturn]] void throwAllocationOverflow(size_t count, size_t elementSize);
// count * elementSize, or throws when that overflows size_t (it would allocate a
// wrapped, too small buffer).
inline size_t allocationBytes(size_t count, size_t elementSize) {
  if (elementSize && count > static_cast<size_t>(-1) / elementSize)
    throwAllocationOverflow(count, elementSize);
  return count * elementSize;
}
} // namespace detail

// RAII device allocation of `count` elements of T. The buffer keeps its context:
// it holds the context's state (so the primary context stays retained while the
// buffer lives, even after every Context handle is gone) and frees the memory
// with that context current, whatever context the thread has then.
template <class T> class DeviceBuffer {
public:
  // In the Context last constructed or made current on this thread.
  explicit DeviceBuffer(size_t count) : DeviceBuffer(detail::currentContext(), count) {}
  DeviceBuffer(const Context &ctx, size_t count) : DeviceBuffer(ctx.state(), count) {}
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  // The memory (and the tensors viewing it) moves with the buffer; the
  // moved-from buffer is empty (ptr() 0, refused as a launch argument).
  DeviceBuffer(DeviceBuffer &&o) noexcept
      : ctx_(std::move(o.ctx_)), size_(o.size_), ptr_(o.ptr_), token_(std::move(o.token_)) {
    o.size_ = 0;
    o.ptr_ = 0;
  }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    if (this != &o) {
      release();
      ctx_ = std::move(o.ctx_);
      size_ = o.size_;
      ptr_ = o.ptr_;
      token_ = std::move(o.token_);
      o.size_ = 0;
      o.ptr_ = 0;
    }
    return *this;
  }

  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }
  CUdeviceptr ptr() const { return ptr_; }
  // The context the memory belongs to (null when none was alive at allocation).
  const std::shared_ptr<detail::ContextState> &context() const { return ctx_; }
  // Alive exactly while this memory is allocated (null for an empty buffer).
  std::weak_ptr<const detail::AllocationToken> token() const { return token_; }

  void copyFrom(const T *host, size_t n) {
    if (n > size_)
      detail::throwBufferOverflow("DeviceBuffer::copyFrom", n, size_);
    if (n)
      detail::copyHtoD(ptr_, host, n * sizeof(T));
  }
  void copyFrom(const std::vector<T> &host) { copyFrom(host.data(), host.size()); }
  void copyTo(T *host, size_t n) const {
    if (n > size_)
      detail::throwBufferOverflow("DeviceBuffer::copyTo", n, size_);
    if (n)
      detail::copyDtoH(host, ptr_, n * sizeof(T));
  }
  std::vector<T> toHost() const {
    std::vector<T> v(size_);
    copyTo(v.data(), size_);
    return v;
  }
  void fillBytes(unsigned char b) {
    if (size_)
      detail::memsetD8(ptr_, b, bytes());
  }

private:
  DeviceBuffer(std::shared_ptr<detail::ContextState> ctx, size_t count)
      : ctx_(std::move(ctx)), size_(count),
        ptr_(count ? detail::memAlloc(ctx_, detail::allocationBytes(count, sizeof(T))) : 0) {
    if (ptr_)
      token_ = std::make_shared<detail::AllocationToken>(detail::AllocationToken{ptr_, bytes()});
  }
  void release() noexcept {
    token_.reset(); // tensors over the buffer see it gone before the address is reused
    detail::memFree(ctx_, ptr_);
  }
  std::shared_ptr<detail::ContextState> ctx_;
  size_t size_ = 0;
  CUdeviceptr ptr_ = 0;
  std::shared_ptr<const detail::AllocationToken> token_;
};

// RAII stream (cuStreamCreate with CU_STREAM_NON_BLOCKING by default) in a
// context it keeps: the Context last constructed or made current on this
// thread, or the one named. LaunchConfig::stream takes it as a StreamRef
// (tile/launch.h), a view that knows whether the stream still exists, so a
// launch on a destroyed or moved-from stream is an error, not a crash. Only
// an lvalue converts: `cfg.stream = tile::Stream();` does not compile.
class Stream {
public:
  explicit Stream(unsigned flags = CU_STREAM_NON_BLOCKING);
  Stream(const Context &ctx, unsigned flags = CU_STREAM_NON_BLOCKING);
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  Stream(Stream &&o) noexcept = default; // o is left empty (launching on it is an error)
  Stream &operator=(Stream &&o) noexcept = default;
  CUstream raw() const; // nullptr when empty (moved from)
  operator CUstream() const & { return raw(); }
  operator CUstream() const && = delete; // a temporary's handle would dangle at once
  void synchronize();
  const std::shared_ptr<detail::StreamState> &state() const { return s_; }

private:
  std::shared_ptr<detail::StreamState> s_;
};

// An lvalue tile::Stream as a LaunchConfig::stream (declared in tile/launch.h).
inline StreamRef::StreamRef(const Stream &s) : raw_(s.raw()), owner_(s.state()), owned_(true) {}


// GPU time between start() and stopMs() on a stream, through two CUDA events.
struct EventTimer {
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  void start(CUstream stream = nullptr);
  float stopMs(CUstream stream = nullptr); // records stop, waits for it, returns ms

private:
  CUevent start_ = nullptr, stop_ = nullptr;
};

} // namespace tile
