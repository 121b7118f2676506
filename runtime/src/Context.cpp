//===- Context.cpp - the driver, devices and their primary contexts -------===//
#include "RuntimeState.h"
#include "tile/runtime.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>

namespace tile {
namespace detail {
namespace {
/// The Context last constructed or made current on this thread: where a
/// DeviceBuffer allocated without naming a Context belongs.
thread_local std::weak_ptr<ContextState> lastCurrent;
} // namespace

std::shared_ptr<ContextState> currentContext() { return lastCurrent.lock(); }

namespace {
std::mutex registryMu;
std::vector<std::weak_ptr<ContextState>> &contexts() { // every tile::Context's state
  static std::vector<std::weak_ptr<ContextState>> all;
  return all;
}
std::set<std::pair<CUcontext, CUcontext>> &peers() {
  static std::set<std::pair<CUcontext, CUcontext>> all;
  return all;
}
void registerContext(const std::shared_ptr<ContextState> &s) {
  std::lock_guard<std::mutex> lock(registryMu);
  auto &all = contexts();
  all.erase(std::remove_if(all.begin(), all.end(), [](auto &w) { return w.expired(); }),
            all.end());
  all.push_back(s);
}
std::string hexPointer(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}
} // namespace

std::string describeContext(CUcontext c) {
  if (!c)
    return "no context";
  std::lock_guard<std::mutex> lock(registryMu);
  for (const auto &w : contexts())
    if (auto s = w.lock(); s && s->ctx == c)
      return "device " + std::to_string(s->ordinal) + "'s primary context (" + hexPointer(c) + ")";
  return "a context the runtime did not create (" + hexPointer(c) + ")";
}

void notePeerAccess(CUcontext from, CUcontext to) {
  std::lock_guard<std::mutex> lock(registryMu);
  peers().insert({from, to});
}
bool peerAccessEnabled(CUcontext from, CUcontext to) {
  std::lock_guard<std::mutex> lock(registryMu);
  return peers().count({from, to}) > 0;
}
} // namespace detail

bool driverAvailable() {
  const detail::Driver &d = detail::driver();
  return d.handle && d.initResult == CUDA_SUCCESS;
}

int deviceCount() {
  try {
    if (!driverAvailable())
      return 0;
    int n = 0;
    if (TILE_CU_RAW(cuDeviceGetCount, &n) != CUDA_SUCCESS)
      return 0;
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

Context::Context(int device) : state_(std::make_shared<detail::ContextState>()) {
  auto &s = *state_;
  s.ordinal = device;
  TILE_CU(cuInit, 0);
  int count = 0;
  TILE_CU(cuDeviceGetCount, &count);
  if (device < 0 || device >= count)
    throw Error::withMessage("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE, {},
                             "cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101): device " +
                                 std::to_string(device) + " requested but " +
                                 std::to_string(count) + " device(s) present");
  TILE_CU(cuDeviceGet, &s.dev, device);
  TILE_CU(cuDevicePrimaryCtxRetain, &s.ctx, s.dev);
  TILE_CU(cuCtxSetCurrent, s.ctx);
  detail::lastCurrent = state_;
  detail::registerContext(state_);
  char name[256] = {};
  TILE_CU(cuDeviceGetName, name, sizeof name - 1, s.dev);
  s.name = name;
  s.cc = s.attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
         s.attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  s.sms = s.attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  s.smemOptin = static_cast<size_t>(s.attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  s.maxThreads = s.attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  s.clusterLaunch = s.attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  s.maxBlock =
      Dim3(s.attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), s.attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
           s.attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z));
  s.maxGrid =
      Dim3(s.attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), s.attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
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
void Context::makeCurrent() const {
  TILE_CU(cuCtxSetCurrent, state_->ctx);
  detail::lastCurrent = state_;
}
void Context::synchronize() {
  makeCurrent();
  detail::checkAfterKernels(TILE_CU_RAW(cuCtxSynchronize), "cuCtxSynchronize",
                            /*synchronizing=*/true, detail::Scope::AnyStream);
}
CUcontext Context::raw() const { return state_->ctx; }
CUdevice Context::rawDevice() const { return state_->dev; }

namespace detail {

ScopedContext::ScopedContext(const ContextState *ctx) noexcept {
  const Driver &d = driver();
  if (!ctx || !ctx->ctx || !d.api.cuCtxPushCurrent || !d.api.cuCtxPopCurrent)
    return;
  pushed_ = d.api.cuCtxPushCurrent(ctx->ctx) == CUDA_SUCCESS;
}

ScopedContext::~ScopedContext() {
  if (!pushed_)
    return;
  CUcontext popped = nullptr;
  driver().api.cuCtxPopCurrent(&popped);
}

} // namespace detail
} // namespace tile
