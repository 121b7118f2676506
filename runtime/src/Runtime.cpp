#include "tile/runtime.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "Driver.h"

namespace tile {

// ---------------------------------------------------------------- driver queries

bool driverAvailable() {
  const detail::Driver& d = detail::driver();
  return d.handle && d.initResult == CUDA_SUCCESS;
}

int deviceCount() {
  try {
    if (!driverAvailable()) return 0;
    int n = 0;
    if (TILE_CU_RAW(cuDeviceGetCount, &n) != CUDA_SUCCESS) return 0;
    return n;
  } catch (...) {
    return 0;
  }
}

int driverVersion() {
  int v = 0;
  TILE_CU(cuDriverGetVersion, &v);
  return v;
}

// ---------------------------------------------------------------- launch log

namespace detail {
namespace {

// The last kernel launched through the runtime, overall and per stream. A kernel's
// faults are reported asynchronously, by whatever call synchronizes next (or by any
// later call, for the sticky ones), so that error names the kernel most likely at
// fault rather than nothing.
struct LaunchLog {
  std::mutex mu;
  std::string last;
  std::unordered_map<CUstream, std::string> byStream;
};
LaunchLog& launchLog() {
  static LaunchLog* log = new LaunchLog;  // never destroyed: used by destructors at exit
  return *log;
}

void noteLaunch(CUstream stream, const std::string& kernel) {
  LaunchLog& log = launchLog();
  std::lock_guard<std::mutex> lock(log.mu);
  log.last = kernel;
  log.byStream[stream] = kernel;
}

void forgetStream(CUstream stream) {
  LaunchLog& log = launchLog();
  std::lock_guard<std::mutex> lock(log.mu);
  log.byStream.erase(stream);
}

enum class Scope { AnyStream, ThisStream };

// The kernel to blame for `stream` ("" when none was launched).
std::string lastKernel(Scope scope, CUstream stream = nullptr) {
  LaunchLog& log = launchLog();
  std::lock_guard<std::mutex> lock(log.mu);
  if (scope == Scope::AnyStream) return log.last;
  auto it = log.byStream.find(stream);
  return it == log.byStream.end() ? std::string() : it->second;
}

// Errors a kernel raises on the device, reported by a later call (and sticky: every
// call in the context fails with them afterwards).
bool isKernelFault(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_TIMEOUT: case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR: case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE: case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_TENSOR_MEMORY_LEAK:
      return true;
    default:
      return false;
  }
}

// Throws for a failed call that may report earlier kernels' work: a synchronizing
// call (every error) or any call failing with a kernel fault. Names the last kernel
// launched (on `stream` for ThisStream) when the runtime launched one.
void checkAfterKernels(CUresult r, const char* call, bool synchronizing, Scope scope,
                       CUstream stream = nullptr) {
  if (r == CUDA_SUCCESS) return;
  std::string kernel;
  if (synchronizing || isKernelFault(r)) kernel = lastKernel(scope, stream);
  if (kernel.empty()) throw Error(call, static_cast<int>(r));
  throw Error(call, static_cast<int>(r), kernel,
              std::string("the last kernel launched") + (scope == Scope::ThisStream ? " on this stream" : "") +
                  " before this call (a kernel's faults are reported by a later call)");
}

}  // namespace
}  // namespace detail

// ---------------------------------------------------------------- Context

namespace detail {

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
    const Driver& d = driver();
    if (ctx && d.api.cuDevicePrimaryCtxRelease) d.api.cuDevicePrimaryCtxRelease(dev);
  }
  int attr(CUdevice_attribute a) const {
    int v = 0;
    TILE_CU(cuDeviceGetAttribute, &v, a, dev);
    return v;
  }
};

}  // namespace detail

Context::Context(int device) : state_(std::make_shared<detail::ContextState>()) {
  auto& s = *state_;
  s.ordinal = device;
  TILE_CU(cuInit, 0);
  int count = 0;
  TILE_CU(cuDeviceGetCount, &count);
  if (device < 0 || device >= count)
    throw Error::withMessage("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE, {},
                             "cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101): device " +
                                 std::to_string(device) + " requested but " + std::to_string(count) +
                                 " device(s) present");
  TILE_CU(cuDeviceGet, &s.dev, device);
  TILE_CU(cuDevicePrimaryCtxRetain, &s.ctx, s.dev);
  TILE_CU(cuCtxSetCurrent, s.ctx);
  char name[256] = {};
  TILE_CU(cuDeviceGetName, name, sizeof name - 1, s.dev);
  s.name = name;
  s.cc = s.attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
         s.attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  s.sms = s.attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  s.smemOptin = static_cast<size_t>(s.attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  s.maxThreads = s.attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  s.clusterLaunch = s.attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  s.maxBlock = Dim3(s.attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), s.attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                    s.attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z));
  s.maxGrid = Dim3(s.attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), s.attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                   s.attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
  TILE_CU(cuDriverGetVersion, &s.driverVersion);
}

int Context::device() const { return state_->ordinal; }
std::string Context::name() const { return state_->name; }
int Context::smCount() const { return state_->sms; }
int Context::computeCapability() const { return state_->cc; }
std::string Context::arch() const {
  return "sm_" + std::to_string(state_->cc) + (state_->cc >= 90 ? "a" : "");
}
int Context::driverVersion() const { return state_->driverVersion; }
size_t Context::maxSharedPerBlockOptin() const { return state_->smemOptin; }
int Context::attribute(CUdevice_attribute a) const { return state_->attr(a); }
void Context::makeCurrent() const { TILE_CU(cuCtxSetCurrent, state_->ctx); }
void Context::synchronize() {
  makeCurrent();
  detail::checkAfterKernels(TILE_CU_RAW(cuCtxSynchronize), "cuCtxSynchronize", /*synchronizing=*/true,
                            detail::Scope::AnyStream);
}
CUcontext Context::raw() const { return state_->ctx; }
CUdevice Context::rawDevice() const { return state_->dev; }

// ---------------------------------------------------------------- Module

namespace detail {

struct ModuleState {
  std::shared_ptr<ContextState> ctx;
  CUmodule mod = nullptr;
  std::string image;
  std::string ptx;  // the PTX text of a PTX module (parameter names), else ""
  std::string infoLog;
  std::string cachePath;
  bool fromCache = false;
  ~ModuleState() {
    const Driver& d = driver();
    if (mod && d.api.cuModuleUnload) d.api.cuModuleUnload(mod);
  }
};

namespace {

std::string cstr(const std::vector<char>& buf) { return std::string(buf.data(), strnlen(buf.data(), buf.size())); }

std::string logs(const std::string& error, const std::string& info) {
  std::string s;
  if (!error.empty()) s += "JIT error log:\n" + error;
  if (!info.empty()) s += std::string(s.empty() ? "" : "\n") + "JIT info log:\n" + info;
  return s.empty() ? "no JIT log" : s;
}

// cuModuleLoadDataEx with logs; throws with them on failure.
CUmodule loadImage(const std::string& image) {
  std::vector<char> err(1 << 14, '\0'), info(1 << 14, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {err.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(err.size() - 1)),
                  info.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(info.size() - 1))};
  CUmodule m = nullptr;
  CUresult r = TILE_CU_RAW(cuModuleLoadDataEx, &m, image.data(), 4, opts, vals);
  if (r != CUDA_SUCCESS) throw Error("cuModuleLoadDataEx", r, {}, logs(cstr(err), cstr(info)));
  return m;
}

// The JIT target: the arch-specific ("a") target when the PTX asks for it.
bool wantsAcceleratedTarget(const std::string& ptx, int cc) {
  std::string t = ".target sm_" + std::to_string(cc) + "a";
  return cc >= 90 && ptx.find(t) != std::string::npos;
}

// PTX -> cubin through the driver linker, targeting the context's device. Some
// drivers reject an explicit CU_JIT_TARGET in cuLinkCreate, so the arch-specific
// ("sm_90a") target is only passed on a retry, when the default attempt failed.
std::string jitLinkOnce(const std::string& ptx, int cc, int optLevel, bool explicitTarget,
                        std::string& infoLog) {
  std::vector<char> err(1 << 16, '\0'), info(1 << 16, '\0');
  std::vector<CUjit_option> opts = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                    CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                    CU_JIT_LOG_VERBOSE, CU_JIT_OPTIMIZATION_LEVEL};
  std::vector<void*> vals = {err.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(err.size() - 1)),
                             info.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(info.size() - 1)),
                             reinterpret_cast<void*>(static_cast<uintptr_t>(1)),
                             reinterpret_cast<void*>(static_cast<uintptr_t>(optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel))};
  if (explicitTarget) {
    opts.push_back(CU_JIT_TARGET);
    vals.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(CU_COMPUTE_ACCELERATED_TARGET_BASE + cc)));
  }
  CUlinkState link = nullptr;
  TILE_CU(cuLinkCreate, static_cast<unsigned>(opts.size()), opts.data(), vals.data(), &link);
  struct Destroy {
    CUlinkState l;
    ~Destroy() {
      if (l && driver().api.cuLinkDestroy) driver().api.cuLinkDestroy(l);
    }
  } guard{link};
  CUresult r = TILE_CU_RAW(cuLinkAddData, link, CU_JIT_INPUT_PTX, const_cast<char*>(ptx.c_str()),
                           ptx.size() + 1, "tilec.ptx", 0, nullptr, nullptr);
  if (r != CUDA_SUCCESS) throw Error("cuLinkAddData", r, {}, logs(cstr(err), cstr(info)));
  void* cubin = nullptr;
  size_t size = 0;
  r = TILE_CU_RAW(cuLinkComplete, link, &cubin, &size);
  if (r != CUDA_SUCCESS) throw Error("cuLinkComplete", r, {}, logs(cstr(err), cstr(info)));
  infoLog = cstr(info);
  return std::string(static_cast<const char*>(cubin), size);  // copy before cuLinkDestroy
}

std::string jitLink(const std::string& ptx, int cc, int optLevel, std::string& infoLog) {
  try {
    return jitLinkOnce(ptx, cc, optLevel, /*explicitTarget=*/false, infoLog);
  } catch (const Error&) {
    if (!wantsAcceleratedTarget(ptx, cc)) throw;
    try {
      return jitLinkOnce(ptx, cc, optLevel, /*explicitTarget=*/true, infoLog);
    } catch (const Error&) {
    }
    throw;  // report the default attempt's error and logs
  }
}

bool isBinaryImage(const std::string& data) {
  if (data.size() >= 4 && std::memcmp(data.data(), "\x7f" "ELF", 4) == 0) return true;
  if (data.size() >= 4) {  // fatbin magic 0xBA55ED50 (little endian)
    uint32_t m;
    std::memcpy(&m, data.data(), 4);
    if (m == 0xBA55ED50u) return true;
  }
  return false;
}

}  // namespace
}  // namespace detail

Module Module::fromPtx(Context& ctx, const std::string& ptx, const ModuleOptions& options) {
  ctx.makeCurrent();
  auto s = std::make_shared<detail::ModuleState>();
  s->ctx = ctx.state();
  std::string dir = cacheEnabled(options.useCache) ? resolveCacheDir(options.cacheDir) : std::string();
  CubinCache cache(dir);
  std::string key = cubinCacheKey(ptx, ctx.arch(), ctx.driverVersion(), options.jitOptLevel);
  const int cc = ctx.computeCapability();
  CachedBuild b = buildWithCache(
      cache, key, [&] { return detail::jitLink(ptx, cc, options.jitOptLevel, s->infoLog); },
      [&](const std::string& image) { s->mod = detail::loadImage(image); });
  s->image = std::move(b.image);
  s->ptx = ptx;
  s->fromCache = b.fromCache;
  s->cachePath = std::move(b.path);
  return Module(s);
}

Module Module::fromCubin(Context& ctx, const std::string& cubin) {
  ctx.makeCurrent();
  auto s = std::make_shared<detail::ModuleState>();
  s->ctx = ctx.state();
  s->mod = detail::loadImage(cubin);
  s->image = cubin;
  return Module(s);
}

Module Module::fromFile(Context& ctx, const std::string& path, const ModuleOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error::withMessage("Module::fromFile", CUDA_ERROR_FILE_NOT_FOUND, {},
                             "Module::fromFile failed: cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string data = ss.str();
  if (detail::isBinaryImage(data)) return fromCubin(ctx, data);
  return fromPtx(ctx, data, options);
}

namespace detail {
namespace {

// The state behind a Module/Kernel handle; a default-constructed (empty) handle
// throws instead of dereferencing null.
template <class State>
State& require(const std::shared_ptr<State>& state, const char* call, const char* type) {
  if (!state)
    throw Error::withMessage(call, CUDA_ERROR_INVALID_HANDLE, {},
                             std::string(call) + ": this tile::" + type +
                                 " is empty (default-constructed); assign it from " +
                                 (std::string(type) == "Kernel" ? "Module::kernel(name)" : "Module::fromPtx/fromCubin/fromFile") +
                                 " first");
  return *state;
}

}  // namespace
}  // namespace detail

bool Module::loadedFromCache() const { return detail::require(state_, "Module::loadedFromCache", "Module").fromCache; }
const std::string& Module::jitInfoLog() const { return detail::require(state_, "Module::jitInfoLog", "Module").infoLog; }
const std::string& Module::cubin() const { return detail::require(state_, "Module::cubin", "Module").image; }
const std::string& Module::cachePath() const { return detail::require(state_, "Module::cachePath", "Module").cachePath; }
CUmodule Module::raw() const { return detail::require(state_, "Module::raw", "Module").mod; }

// ---------------------------------------------------------------- Kernel

namespace detail {

struct KernelState {
  std::shared_ptr<ModuleState> module;
  CUfunction fn = nullptr;
  std::string name;
  int maxThreads = 0;
  size_t staticSmem = 0;
  int numRegs = 0;
  Dim3 requiredCluster{0, 0, 0};  // .reqnctapercluster, (0, 0, 0) when none
  bool needsCluster = false;      // .explicitcluster
  bool paramsKnown = false;       // the driver has cuFuncGetParamInfo
  std::vector<KernelParam> params;

  std::mutex mu;  // guards the attribute/validation cache below
  int maxDynamicSmem = 0;
  bool nonPortableSet = false;
  bool lastValid = false;
  LaunchConfig last;

  int attr(CUfunction_attribute a) const {
    int v = 0;
    TILE_CU_K(name, cuFuncGetAttribute, &v, a, fn);
    return v;
  }
};

namespace {

bool sameShape(const LaunchConfig& a, const LaunchConfig& b) {
  return a.grid == b.grid && a.block == b.block && a.cluster == b.cluster &&
         a.sharedBytes == b.sharedBytes && a.allowNonPortableCluster == b.allowNonPortableCluster;
}

// Whether the launch passes CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: for a real cluster,
// and for a kernel that must be given one (.explicitcluster) unless its compiled
// cluster (.reqnctapercluster) applies. A compiled cluster with cfg.cluster (1, 1, 1)
// passes none, which the driver reads as "the compiled cluster".
bool passesCluster(const KernelState& k, const LaunchConfig& c) {
  const bool compiled = k.requiredCluster.count() > 0;
  if (c.cluster.count() > 1) return true;
  return k.needsCluster && !compiled;
}

// attrStorage must outlive the returned config.
CUlaunchConfig toDriver(const LaunchConfig& c, CUlaunchAttribute* attrStorage, bool withCluster) {
  CUlaunchConfig lc{};
  lc.gridDimX = c.grid.x; lc.gridDimY = c.grid.y; lc.gridDimZ = c.grid.z;
  lc.blockDimX = c.block.x; lc.blockDimY = c.block.y; lc.blockDimZ = c.block.z;
  lc.sharedMemBytes = static_cast<unsigned>(c.sharedBytes);
  lc.hStream = c.stream;
  if (withCluster) {
    attrStorage->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrStorage->value.clusterDim.x = c.cluster.x;
    attrStorage->value.clusterDim.y = c.cluster.y;
    attrStorage->value.clusterDim.z = c.cluster.z;
    lc.attrs = attrStorage;
    lc.numAttrs = 1;
  }
  return lc;
}

// Offset and size of every parameter, through cuFuncGetParamInfo (CUDA 12.4+), which
// answers CUDA_ERROR_INVALID_VALUE for the first index past the last parameter.
// `known` is false when the driver lacks the entry point (or reports it unsupported):
// then launches are not argument-checked.
std::vector<KernelParam> queryParams(CUfunction fn, const std::string& kernel, bool& known) {
  known = false;
  FuncGetParamInfoFn getInfo = driver().api.cuFuncGetParamInfo;
  if (!getInfo) return {};
  // PTX limits a kernel's parameters to 32764 bytes (PTX ISA, "Kernel Function
  // Parameters"), so a driver that answers past that is not to be believed.
  constexpr size_t kMaxParams = 32764;
  std::vector<KernelParam> params;
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = getInfo(fn, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;
    if (r == CUDA_ERROR_NOT_SUPPORTED && i == 0) return {};
    check(r, "cuFuncGetParamInfo", kernel);
    if (i >= kMaxParams)
      throw Error("cuFuncGetParamInfo", CUDA_ERROR_INVALID_VALUE, kernel,
                  "the driver reports more than " + std::to_string(kMaxParams) + " parameters");
    params.push_back(KernelParam{offset, size, {}});
  }
  known = true;
  return params;
}

}  // namespace
}  // namespace detail

Kernel Module::kernel(const std::string& name) const {
  const detail::ModuleState& m = detail::require(state_, "Module::kernel", "Module");
  auto k = std::make_shared<detail::KernelState>();
  k->module = state_;
  k->name = name;
  TILE_CU_K(name, cuModuleGetFunction, &k->fn, m.mod, name.c_str());
  k->maxThreads = k->attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  k->staticSmem = static_cast<size_t>(k->attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  k->numRegs = k->attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
  k->maxDynamicSmem = k->attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  const int cw = k->attr(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
  const int ch = k->attr(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
  const int cd = k->attr(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
  if (cw > 0 && ch > 0 && cd > 0) k->requiredCluster = Dim3(cw, ch, cd);  // all 0 or all positive
  k->needsCluster = k->attr(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) != 0;
  k->params = detail::queryParams(k->fn, name, k->paramsKnown);
  std::vector<std::string> names = ptxParamNames(m.ptx, name);
  if (names.size() == k->params.size())  // else the PTX was not understood: no names
    for (size_t i = 0; i < names.size(); ++i) k->params[i].name = names[i];
  return Kernel(k);
}

const std::string& Kernel::name() const { return detail::require(state_, "Kernel::name", "Kernel").name; }
CUfunction Kernel::raw() const { return detail::require(state_, "Kernel::raw", "Kernel").fn; }
int Kernel::maxThreadsPerBlock() const { return detail::require(state_, "Kernel::maxThreadsPerBlock", "Kernel").maxThreads; }
size_t Kernel::staticSharedBytes() const { return detail::require(state_, "Kernel::staticSharedBytes", "Kernel").staticSmem; }
int Kernel::numRegs() const { return detail::require(state_, "Kernel::numRegs", "Kernel").numRegs; }
int Kernel::attribute(CUfunction_attribute a) const { return detail::require(state_, "Kernel::attribute", "Kernel").attr(a); }
bool Kernel::paramsKnown() const { return detail::require(state_, "Kernel::paramsKnown", "Kernel").paramsKnown; }
const std::vector<KernelParam>& Kernel::params() const { return detail::require(state_, "Kernel::params", "Kernel").params; }

LaunchLimits Kernel::limits() const {
  const detail::KernelState& k = detail::require(state_, "Kernel::limits", "Kernel");
  const detail::ContextState& c = *k.module->ctx;
  LaunchLimits l;
  l.kernelMaxThreadsPerBlock = k.maxThreads;
  l.kernelStaticSharedBytes = k.staticSmem;
  l.kernelRequiredCluster = k.requiredCluster;
  l.kernelNeedsCluster = k.needsCluster;
  l.maxThreadsPerBlock = c.maxThreads;
  l.maxSharedPerBlockOptin = c.smemOptin;
  l.maxBlockDim = c.maxBlock;
  l.maxGridDim = c.maxGrid;
  l.clusterLaunch = c.clusterLaunch;
  return l;
}

int Kernel::queryActiveClusters(const LaunchConfig& cfg) const {
  const detail::KernelState& s = *state_;
  // cuOccupancyMaxActiveClusters takes the cluster from the config, except that for a
  // kernel with a compiled cluster it must be left out or equal it.
  const bool compiled = s.requiredCluster.count() > 0;
  CUlaunchAttribute attr{};
  CUlaunchConfig lc = detail::toDriver(cfg, &attr, /*withCluster=*/!compiled || cfg.cluster.count() > 1);
  int n = 0;
  TILE_CU_K(s.name, cuOccupancyMaxActiveClusters, &n, s.fn, &lc);
  return n;
}

// Validates cfg and sets the kernel attributes it needs. Caller holds state_->mu.
void Kernel::prepare(const LaunchConfig& cfg, const LaunchLimits& lim) const {
  detail::KernelState& s = *state_;
  validateLaunch(s.name, cfg, lim);
  if (cfg.sharedBytes > static_cast<size_t>(s.maxDynamicSmem)) {
    TILE_CU_K(s.name, cuFuncSetAttribute, s.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(cfg.sharedBytes));
    s.maxDynamicSmem = static_cast<int>(cfg.sharedBytes);
  }
  if (effectiveCluster(cfg, lim).count() > 1 && cfg.allowNonPortableCluster && !s.nonPortableSet) {
    TILE_CU_K(s.name, cuFuncSetAttribute, s.fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    s.nonPortableSet = true;
  }
}

// Validates cfg and raises the attributes it needs first, because the occupancy
// counts against them (dynamic shared memory, non-portable cluster size).
int Kernel::maxActiveClusters(const LaunchConfig& cfg) const {
  detail::KernelState& s = detail::require(state_, "Kernel::maxActiveClusters", "Kernel");
  std::lock_guard<std::mutex> lock(s.mu);
  if (!(s.lastValid && detail::sameShape(cfg, s.last))) prepare(cfg, limits());
  return queryActiveClusters(cfg);
}

void Kernel::launchPacked(const LaunchConfig& cfg, void** args, const size_t* argSizes, size_t argCount) {
  detail::KernelState& s = detail::require(state_, "Kernel::launch", "Kernel");
  if (s.paramsKnown) validateArguments(s.name, argSizes, argCount, s.params);
  launchUnchecked(cfg, args);
}

void Kernel::launchUnchecked(const LaunchConfig& cfg, void** args) {
  detail::KernelState& s = detail::require(state_, "Kernel::launch", "Kernel");
  {
    // The checks and attribute updates run once per distinct shape.
    std::lock_guard<std::mutex> lock(s.mu);
    if (!(s.lastValid && detail::sameShape(cfg, s.last))) {
      const LaunchLimits lim = limits();
      prepare(cfg, lim);
      LaunchConfig shown = cfg;
      shown.cluster = effectiveCluster(cfg, lim);
      if (shown.cluster.count() > 1 && queryActiveClusters(cfg) == 0)
        throw Error::withMessage("cuOccupancyMaxActiveClusters", CUDA_ERROR_INVALID_VALUE, s.name,
                                 clusterDoesNotFitMessage(s.name, shown, s.staticSmem));
      s.last = cfg;
      s.lastValid = true;
    }
  }
  CUlaunchAttribute attr{};
  CUlaunchConfig lc = detail::toDriver(cfg, &attr, detail::passesCluster(s, cfg));
  CUresult r = TILE_CU_RAW(cuLaunchKernelEx, &lc, s.fn, args, nullptr);
  if (r != CUDA_SUCCESS) {
    // A sticky fault of earlier work is reported here too: name its likely source.
    std::string before = detail::lastKernel(detail::Scope::AnyStream);
    if (detail::isKernelFault(r) && !before.empty())
      throw Error("cuLaunchKernelEx", static_cast<int>(r), s.name,
                  "a fault of earlier work, reported at this launch (the last kernel launched before it was '" +
                      before + "')");
    throw Error("cuLaunchKernelEx", static_cast<int>(r), s.name);
  }
  detail::noteLaunch(cfg.stream, s.name);
}

// ---------------------------------------------------------------- memory

namespace detail {

CUdeviceptr memAlloc(size_t bytes) {
  CUdeviceptr p = 0;
  CUresult r = TILE_CU_RAW(cuMemAlloc, &p, bytes);
  if (isKernelFault(r)) checkAfterKernels(r, "cuMemAlloc", false, Scope::AnyStream);
  if (r != CUDA_SUCCESS) throw Error("cuMemAlloc", r, {}, std::to_string(bytes) + " bytes");
  return p;
}
void memFree(CUdeviceptr p) noexcept {
  if (!p) return;
  const Driver& d = driver();
  if (d.api.cuMemFree) d.api.cuMemFree(p);
}
// The synchronous copies and memset run after earlier work in the context, so they
// report a kernel's faults: checkAfterKernels names the last kernel then.
void copyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  checkAfterKernels(TILE_CU_RAW(cuMemcpyHtoD, dst, src, bytes), "cuMemcpyHtoD", false, Scope::AnyStream);
}
void copyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  checkAfterKernels(TILE_CU_RAW(cuMemcpyDtoH, dst, src, bytes), "cuMemcpyDtoH", false, Scope::AnyStream);
}
void memsetD8(CUdeviceptr dst, unsigned char value, size_t bytes) {
  checkAfterKernels(TILE_CU_RAW(cuMemsetD8, dst, value, bytes), "cuMemsetD8", false, Scope::AnyStream);
}
void throwAllocationOverflow(size_t count, size_t elementSize) {
  throw Error::withMessage("DeviceBuffer", CUDA_ERROR_INVALID_VALUE, {},
                           "DeviceBuffer: " + std::to_string(count) + " elements of " + std::to_string(elementSize) +
                               " bytes overflow size_t");
}
void throwBufferOverflow(const char* what, size_t n, size_t size) {
  throw Error::withMessage(what, CUDA_ERROR_INVALID_VALUE, {},
                           std::string(what) + ": " + std::to_string(n) +
                               " elements requested but the buffer holds " + std::to_string(size));
}

}  // namespace detail

// ---------------------------------------------------------------- streams, events

Stream::Stream(unsigned flags) { TILE_CU(cuStreamCreate, &s_, flags); }
Stream::~Stream() {
  const detail::Driver& d = detail::driver();
  if (s_ && d.api.cuStreamDestroy) d.api.cuStreamDestroy(s_);
  if (s_) detail::forgetStream(s_);
}
void Stream::synchronize() {
  detail::checkAfterKernels(TILE_CU_RAW(cuStreamSynchronize, s_), "cuStreamSynchronize", true,
                            detail::Scope::ThisStream, s_);
}

EventTimer::EventTimer() {
  TILE_CU(cuEventCreate, &start_, CU_EVENT_DEFAULT);
  try {
    TILE_CU(cuEventCreate, &stop_, CU_EVENT_DEFAULT);
  } catch (...) {
    TILE_CU_RAW(cuEventDestroy, start_);
    throw;
  }
}
EventTimer::~EventTimer() {
  const detail::Driver& d = detail::driver();
  if (!d.api.cuEventDestroy) return;
  if (start_) d.api.cuEventDestroy(start_);
  if (stop_) d.api.cuEventDestroy(stop_);
}
void EventTimer::start(CUstream stream) {
  detail::checkAfterKernels(TILE_CU_RAW(cuEventRecord, start_, stream), "cuEventRecord", false,
                            detail::Scope::ThisStream, stream);
}
float EventTimer::stopMs(CUstream stream) {
  detail::checkAfterKernels(TILE_CU_RAW(cuEventRecord, stop_, stream), "cuEventRecord", false,
                            detail::Scope::ThisStream, stream);
  detail::checkAfterKernels(TILE_CU_RAW(cuEventSynchronize, stop_), "cuEventSynchronize", true,
                            detail::Scope::ThisStream, stream);
  float ms = 0;
  TILE_CU(cuEventElapsedTime, &ms, start_, stop_);
  return ms;
}

}  // namespace tile
