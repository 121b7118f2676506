#include "tile/runtime.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
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
  TILE_CU(cuCtxSynchronize);
}
CUcontext Context::raw() const { return state_->ctx; }
CUdevice Context::rawDevice() const { return state_->dev; }

// ---------------------------------------------------------------- Module

namespace detail {

struct ModuleState {
  std::shared_ptr<ContextState> ctx;
  CUmodule mod = nullptr;
  std::string image;
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

bool Module::loadedFromCache() const { return state_->fromCache; }
const std::string& Module::jitInfoLog() const { return state_->infoLog; }
const std::string& Module::cubin() const { return state_->image; }
const std::string& Module::cachePath() const { return state_->cachePath; }
CUmodule Module::raw() const { return state_->mod; }

// ---------------------------------------------------------------- Kernel

namespace detail {

struct KernelState {
  std::shared_ptr<ModuleState> module;
  CUfunction fn = nullptr;
  std::string name;
  int maxThreads = 0;
  size_t staticSmem = 0;
  int numRegs = 0;

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

}  // namespace
}  // namespace detail

Kernel Module::kernel(const std::string& name) const {
  auto k = std::make_shared<detail::KernelState>();
  k->module = state_;
  k->name = name;
  TILE_CU_K(name, cuModuleGetFunction, &k->fn, state_->mod, name.c_str());
  k->maxThreads = k->attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  k->staticSmem = static_cast<size_t>(k->attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  k->numRegs = k->attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
  k->maxDynamicSmem = k->attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  return Kernel(k);
}

const std::string& Kernel::name() const { return state_->name; }
CUfunction Kernel::raw() const { return state_->fn; }
int Kernel::maxThreadsPerBlock() const { return state_->maxThreads; }
size_t Kernel::staticSharedBytes() const { return state_->staticSmem; }
int Kernel::numRegs() const { return state_->numRegs; }
int Kernel::attribute(CUfunction_attribute a) const { return state_->attr(a); }

LaunchLimits Kernel::limits() const {
  const detail::ContextState& c = *state_->module->ctx;
  LaunchLimits l;
  l.kernelMaxThreadsPerBlock = state_->maxThreads;
  l.kernelStaticSharedBytes = state_->staticSmem;
  l.maxSharedPerBlockOptin = c.smemOptin;
  l.maxBlockDim = c.maxBlock;
  l.maxGridDim = c.maxGrid;
  return l;
}

int Kernel::maxActiveClusters(const LaunchConfig& cfg) const {
  CUlaunchAttribute attr{};
  CUlaunchConfig lc = detail::toDriver(cfg, &attr, /*withCluster=*/true);
  int n = 0;
  TILE_CU_K(state_->name, cuOccupancyMaxActiveClusters, &n, state_->fn, &lc);
  return n;
}

void Kernel::launchPacked(const LaunchConfig& cfg, void** args) {
  detail::KernelState& s = *state_;
  const bool cluster = cfg.cluster.count() > 1;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!(s.lastValid && detail::sameShape(cfg, s.last))) {
      validateLaunch(s.name, cfg, limits());
      if (cfg.sharedBytes > static_cast<size_t>(s.maxDynamicSmem)) {
        TILE_CU_K(s.name, cuFuncSetAttribute, s.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  static_cast<int>(cfg.sharedBytes));
        s.maxDynamicSmem = static_cast<int>(cfg.sharedBytes);
      }
      if (cluster && cfg.allowNonPortableCluster && !s.nonPortableSet) {
        TILE_CU_K(s.name, cuFuncSetAttribute, s.fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        s.nonPortableSet = true;
      }
      if (cluster && maxActiveClusters(cfg) == 0)
        throw Error::withMessage("cuOccupancyMaxActiveClusters", CUDA_ERROR_INVALID_VALUE, s.name,
                                 clusterDoesNotFitMessage(s.name, cfg, s.staticSmem));
      s.last = cfg;
      s.lastValid = true;
    }
  }
  CUlaunchAttribute attr{};
  CUlaunchConfig lc = detail::toDriver(cfg, &attr, cluster);
  TILE_CU_K(s.name, cuLaunchKernelEx, &lc, s.fn, args, nullptr);
}

// ---------------------------------------------------------------- memory

namespace detail {

CUdeviceptr memAlloc(size_t bytes) {
  CUdeviceptr p = 0;
  CUresult r = TILE_CU_RAW(cuMemAlloc, &p, bytes);
  if (r != CUDA_SUCCESS) throw Error("cuMemAlloc", r, {}, std::to_string(bytes) + " bytes");
  return p;
}
void memFree(CUdeviceptr p) noexcept {
  if (!p) return;
  const Driver& d = driver();
  if (d.api.cuMemFree) d.api.cuMemFree(p);
}
void copyHtoD(CUdeviceptr dst, const void* src, size_t bytes) { TILE_CU(cuMemcpyHtoD, dst, src, bytes); }
void copyDtoH(void* dst, CUdeviceptr src, size_t bytes) { TILE_CU(cuMemcpyDtoH, dst, src, bytes); }
void memsetD8(CUdeviceptr dst, unsigned char value, size_t bytes) { TILE_CU(cuMemsetD8, dst, value, bytes); }
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
}
void Stream::synchronize() { TILE_CU(cuStreamSynchronize, s_); }

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
void EventTimer::start(CUstream stream) { TILE_CU(cuEventRecord, start_, stream); }
float EventTimer::stopMs(CUstream stream) {
  TILE_CU(cuEventRecord, stop_, stream);
  TILE_CU(cuEventSynchronize, stop_);
  float ms = 0;
  TILE_CU(cuEventElapsedTime, &ms, start_, stop_);
  return ms;
}

}  // namespace tile
