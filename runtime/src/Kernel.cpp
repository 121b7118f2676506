//===- Kernel.cpp - kernels: attributes, checks and launches --------------===//
#include "LaunchGuard.h"
#include "RuntimeState.h"
#include "TensorArgs.h"
#include "tile/nearest_names.h"
#include "tile/runtime.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <optional>
#include <vector>

namespace tile {

namespace detail {

namespace {

bool sameShape(const LaunchConfig &a, const LaunchConfig &b) {
  return a.grid == b.grid && a.block == b.block && a.cluster == b.cluster &&
         a.sharedBytes == b.sharedBytes && a.allowNonPortableCluster == b.allowNonPortableCluster;
}

constexpr size_t kCheckedConfigs = 16;

// Whether cfg's checks passed before (KernelState::checked). Caller holds k.mu.
bool checkedBefore(const KernelState &k, const LaunchConfig &cfg) {
  for (auto it = k.checked.rbegin(); it != k.checked.rend(); ++it)
    if (sameShape(*it, cfg))
      return true;
  return false;
}

// Caller holds k.mu. The attributes prepare() sets only grow (the dynamic
// shared memory limit, the non-portable cluster permission), so a config
// checked earlier stays valid after others.
void rememberChecked(KernelState &k, const LaunchConfig &cfg) {
  if (k.checked.size() >= kCheckedConfigs)
    k.checked.erase(k.checked.begin());
  k.checked.push_back(cfg);
}

// Whether the launch passes CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: for a real cluster,
// and for a kernel that must be given one (.explicitcluster) unless its compiled
// cluster (.reqnctapercluster) applies. A compiled cluster with cfg.cluster (1, 1, 1)
// passes none, which the driver reads as "the compiled cluster".
bool passesCluster(const KernelState &k, const LaunchConfig &c) {
  const bool compiled = k.requiredCluster.count() > 0;
  if (c.cluster.count() > 1)
    return true;
  return k.needsCluster && !compiled;
}

// attrStorage must outlive the returned config.
CUlaunchConfig toDriver(const LaunchConfig &c, CUlaunchAttribute *attrStorage, bool withCluster,
                        CUstream stream = nullptr) {
  CUlaunchConfig lc{};
  lc.gridDimX = c.grid.x;
  lc.gridDimY = c.grid.y;
  lc.gridDimZ = c.grid.z;
  lc.blockDimX = c.block.x;
  lc.blockDimY = c.block.y;
  lc.blockDimZ = c.block.z;
  lc.sharedMemBytes = static_cast<unsigned>(c.sharedBytes.value_or(0));
  lc.hStream = stream;
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

// Offset and size of every parameter, through cuFuncGetParamInfo (CUDA 12.4+).
// `declared` is the count the module declares (its PTX `.entry` or its kernel
// info): exactly those indices are queried. Without it the count is found by
// querying until the driver answers CUDA_ERROR_INVALID_VALUE for the first
// index past the last parameter, an API error that compute-sanitizer reports,
// so it is the fallback for cubins without info only. `known` is false when
// the driver lacks the entry point (or reports it unsupported): then launches
// are not argument-checked.
std::vector<KernelParam> queryParams(CUfunction fn, const std::string &kernel, bool &known,
                                     std::optional<size_t> declared) {
  known = false;
  FuncGetParamInfoFn getInfo = driver().api.cuFuncGetParamInfo;
  if (!getInfo)
    return {};
  // PTX limits a kernel's parameters to 32764 bytes (PTX ISA, "Kernel Function
  // Parameters"), so a driver that answers past that is not to be believed.
  constexpr size_t kMaxParams = 32764;
  std::vector<KernelParam> params;
  for (size_t i = 0; !declared || i < *declared; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = getInfo(fn, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) // past the last one (a short count is refused later)
      break;
    if (r == CUDA_ERROR_NOT_SUPPORTED && i == 0)
      return {};
    check(r, "cuFuncGetParamInfo", kernel);
    if (i >= kMaxParams)
      throw Error("cuFuncGetParamInfo", CUDA_ERROR_INVALID_VALUE, kernel,
                  "the driver reports more than " + std::to_string(kMaxParams) + " parameters");
    params.push_back(KernelParam{offset, size, {}});
  }
  known = true;
  return params;
}

std::string dimsText(const std::array<unsigned, 3> &d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

/// The module info's entry for kernel `k`, checked against what the driver
/// reports of the loaded kernel: info that belongs to other PTX would size
/// shared memory and check arguments wrongly, so it is refused at once (a
/// guard against files of different builds: tilec's info and PTX agree by
/// construction, ContractTest.cpp). The parameters take the info's (source)
/// names.
const KernelInfo &checkedInfo(const ModuleInfo &info, KernelState &k) {
  auto refuse = [&](const std::string &why) -> const KernelInfo & {
    throw Error::withMessage("Module::kernel", CUDA_ERROR_INVALID_VALUE, k.name,
                             "kernel '" + k.name + "': " + why +
                                 ": the kernel info does not belong to this module (rebuild both "
                                 "with the same tilec options)");
  };
  const KernelInfo *ki = info.find(k.name);
  if (!ki) {
    std::vector<std::string> names;
    for (const KernelInfo &other : info.kernels)
      names.push_back(other.name);
    return refuse("the kernel info has no kernel of this name (it has " + quotedList(names) + ")" +
                  didYouMean(k.name, names));
  }
  if (k.paramsKnown) {
    if (ki->params.size() != k.params.size())
      return refuse("the kernel info lists " + std::to_string(ki->params.size()) +
                    " parameters but the loaded kernel has " + std::to_string(k.params.size()));
    for (size_t i = 0; i < k.params.size(); ++i)
      if (ki->params[i].size != k.params[i].size)
        return refuse("parameter " + std::to_string(i) + " ('" + ki->params[i].name + "') is " +
                      std::to_string(ki->params[i].size) + " bytes in the kernel info but " +
                      std::to_string(k.params[i].size) + " in the loaded kernel");
  }
  const bool compiled = k.requiredCluster.count() > 0;
  const bool fixed = ki->cluster == KernelInfo::Cluster::Fixed;
  if (compiled != fixed ||
      (fixed &&
       k.requiredCluster != Dim3(ki->clusterDims[0], ki->clusterDims[1], ki->clusterDims[2])))
    return refuse(std::string("the kernel info's cluster is ") +
                  (fixed ? dimsText(ki->clusterDims) : std::string("not fixed")) +
                  " but the loaded kernel's is " +
                  (compiled
                       ? dimsText({k.requiredCluster.x, k.requiredCluster.y, k.requiredCluster.z})
                       : std::string("not fixed")));
  if (k.params.size() == ki->params.size())
    for (size_t i = 0; i < k.params.size(); ++i)
      k.params[i].name = ki->params[i].name;
  return *ki;
}

} // namespace
} // namespace detail

/// The error for a kernel name the module's info does not have: the
/// kernels it has, the instances when `name` is the source name of a kernel
/// with compile-time parameters, and the nearest names.
[[noreturn]] static void throwNoSuchKernel(const ModuleInfo &info, const std::string &name) {
  std::vector<std::string> names, instances;
  for (const KernelInfo &ki : info.kernels) {
    names.push_back(ki.name);
    if (ki.sourceName == name)
      instances.push_back(ki.name);
    else if (!ki.sourceName.empty() && ki.sourceName != ki.name)
      names.push_back(ki.sourceName);
  }
  if (!instances.empty())
    throw Error::withMessage(
        "Module::kernel", CUDA_ERROR_NOT_FOUND, name,
        "kernel '" + name + "' has compile-time parameters: the module has its instances " +
            quotedList(instances) +
            "; name one, or pick it by its arguments: kernel(name, {{\"P\", value}})");
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  throw Error::withMessage("Module::kernel", CUDA_ERROR_NOT_FOUND, name,
                           "the module has no kernel '" + name + "' (it has " + quotedList(names) +
                               ")" + didYouMean(name, names));
}

Kernel Module::kernel(const std::string &name, const TemplateArgs &args) const {
  return kernel(name, args, TypeArgs{});
}

Kernel Module::kernel(const std::string &name, const TemplateArgs &args,
                      const TypeArgs &types) const {
  const detail::ModuleState &m = detail::require(state_, "Module::kernel", "Module");
  if (!m.hasInfo)
    return kernel(mangledKernelName(name, args, types));
  // The instance whose source name is `name` and whose arguments are `args`
  // (and `types`), in any order. Without `types` the type arguments are
  // free: a module compiled for one element type (-D T=bf16) is asked for
  // its instance by the values alone, as long as one instance matches.
  auto same = [](const auto &have, const auto &want) {
    if (have.size() != want.size())
      return false;
    for (const auto &a : want) {
      bool found = false;
      for (const auto &h : have)
        found = found || h == a;
      if (!found)
        return false;
    }
    return true;
  };
  std::string compiled;
  std::vector<const KernelInfo *> matches;
  for (const KernelInfo &ki : m.info.kernels) {
    if (ki.sourceName != name)
      continue;
    if (same(ki.templateArgs, args) && (types.empty() || same(ki.typeArgs, types)))
      matches.push_back(&ki);
    compiled += (compiled.empty() ? "" : ", ") + ki.name;
  }
  if (matches.size() == 1)
    return kernel(matches[0]->name);
  std::string asked;
  for (const auto &[p, t] : types)
    asked += (asked.empty() ? "" : ", ") + p + "=" + t;
  for (const auto &[p, v] : args)
    asked += (asked.empty() ? "" : ", ") + p + "=" + std::to_string(v);
  if (matches.size() > 1) {
    std::string several;
    for (const KernelInfo *ki : matches)
      several += (several.empty() ? "" : ", ") + ki->name;
    throw Error("Module::kernel", CUDA_ERROR_NOT_FOUND, mangledKernelName(name, args, types),
                "kernel '" + name + "' has several instances with " +
                    (asked.empty() ? std::string("no arguments") : asked) + " (" + several +
                    "); name the type arguments too: kernel(name, args, {{\"T\", \"f16\"}})");
  }
  if (compiled.empty() && !m.info.find(name)) // no kernel of this name at all
    throwNoSuchKernel(m.info, name);
  // A parameter name no instance has: the instances' parameters, the nearest.
  std::vector<std::string> params;
  for (const KernelInfo &ki : m.info.kernels)
    if (ki.sourceName == name) {
      for (const auto &a : ki.templateArgs)
        params.push_back(a.first);
      for (const auto &t : ki.typeArgs)
        params.push_back(t.first);
    }
  std::sort(params.begin(), params.end());
  params.erase(std::unique(params.begin(), params.end()), params.end());
  auto checkParam = [&](const std::string &p) {
    if (!std::binary_search(params.begin(), params.end(), p))
      throw Error::withMessage("Module::kernel", CUDA_ERROR_NOT_FOUND, name,
                               "kernel '" + name + "' has no compile-time parameter '" + p +
                                   "' (its parameters: " + quotedList(params) + ")" +
                                   didYouMean(p, params));
  };
  if (!compiled.empty()) { // (a kernel without compile-time parameters: the message below)
    for (const auto &a : args)
      checkParam(a.first);
    for (const auto &t : types)
      checkParam(t.first);
  }
  throw Error("Module::kernel", CUDA_ERROR_NOT_FOUND, mangledKernelName(name, args, types),
              "the module has no instance of kernel '" + name + "' with " +
                  (asked.empty() ? std::string("no arguments") : asked) +
                  (compiled.empty() ? std::string(" (it has no instance of '" + name + "')")
                                    : " (compiled instances: " + compiled + ")") +
                  "; compile it with tilec -D or CompileOptions::defines");
}

Kernel Module::kernel(const std::string &name) const {
  const detail::ModuleState &m = detail::require(state_, "Module::kernel", "Module");
  auto k = std::make_shared<detail::KernelState>();
  k->module = state_;
  k->name = name;
  // The driver's CUDA_ERROR_NOT_FOUND does not say what the module has; its
  // kernel info does. (A kernel the driver has and the info lacks is
  // checkedInfo's: the info belongs to another module.)
  if (m.hasInfo && !m.info.find(name) &&
      TILE_CU_RAW(cuModuleGetFunction, &k->fn, m.mod, name.c_str()) == CUDA_ERROR_NOT_FOUND)
    throwNoSuchKernel(m.info, name);
  TILE_CU_K(name, cuModuleGetFunction, &k->fn, m.mod, name.c_str());
  k->maxThreads = k->attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  k->staticSmem = static_cast<size_t>(k->attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  k->numRegs = k->attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
  k->maxDynamicSmem = k->attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  const int cw = k->attr(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
  const int ch = k->attr(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
  const int cd = k->attr(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
  if (cw > 0 && ch > 0 && cd > 0)
    k->requiredCluster = Dim3(cw, ch, cd); // all 0 or all positive
  k->needsCluster = k->attr(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) != 0;
  std::vector<std::string> names = ptxParamNames(m.ptx, name);
  // The loaded PTX declares the parameters; a cubin's count comes from its
  // kernel info (which checkedInfo below still compares with the driver's).
  std::optional<size_t> declared;
  if (!names.empty())
    declared = names.size();
  else if (const KernelInfo *ki = m.hasInfo ? m.info.find(name) : nullptr)
    declared = ki->params.size();
  k->params = detail::queryParams(k->fn, name, k->paramsKnown, declared);
  if (names.size() == k->params.size()) // else the PTX was not understood: no names
    for (size_t i = 0; i < names.size(); ++i)
      k->params[i].name = names[i];
  if (!m.ptx.empty())
    k->facts = detail::ptxEntryFacts(m.ptx, name);
  if (m.hasInfo)
    k->info = &detail::checkedInfo(m.info, *k);
  return Kernel(k);
}

std::vector<std::string> Kernel::skippedChecks() const {
  return detail::skippedChecksOf(detail::require(state_, "Kernel::skippedChecks", "Kernel"));
}

const std::string &Kernel::name() const {
  return detail::require(state_, "Kernel::name", "Kernel").name;
}
CUfunction Kernel::raw() const { return detail::require(state_, "Kernel::raw", "Kernel").fn; }
int Kernel::maxThreadsPerBlock() const {
  return detail::require(state_, "Kernel::maxThreadsPerBlock", "Kernel").maxThreads;
}
size_t Kernel::staticSharedBytes() const {
  return detail::require(state_, "Kernel::staticSharedBytes", "Kernel").staticSmem;
}
int Kernel::numRegs() const { return detail::require(state_, "Kernel::numRegs", "Kernel").numRegs; }
int Kernel::attribute(CUfunction_attribute a) const {
  return detail::require(state_, "Kernel::attribute", "Kernel").attr(a);
}
bool Kernel::paramsKnown() const {
  return detail::require(state_, "Kernel::paramsKnown", "Kernel").paramsKnown;
}
const std::vector<KernelParam> &Kernel::params() const {
  return detail::require(state_, "Kernel::params", "Kernel").params;
}
const KernelInfo *Kernel::info() const {
  return detail::require(state_, "Kernel::info", "Kernel").info;
}

LaunchLimits Kernel::limits() const {
  const detail::KernelState &k = detail::require(state_, "Kernel::limits", "Kernel");
  const detail::ContextState &c = *k.module->ctx;
  LaunchLimits l;
  l.kernelMaxThreadsPerBlock = k.maxThreads;
  l.kernelStaticSharedBytes = k.staticSmem;
  l.kernelRequiredCluster = k.requiredCluster;
  l.kernelNeedsCluster = k.needsCluster;
  if (k.facts.maxntid)
    l.kernelMaxntid = (*k.facts.maxntid)[0] * (*k.facts.maxntid)[1] * (*k.facts.maxntid)[2];
  // The PTX's .reqntid (bound to the info's threads at load), else the
  // info's (a cubin): so a kernel loaded without info is checked too.
  if (k.facts.reqntid)
    l.kernelRequiredBlock = Dim3((*k.facts.reqntid)[0], (*k.facts.reqntid)[1],
                                 (*k.facts.reqntid)[2]);
  else if (k.info && k.info->threads)
    l.kernelRequiredBlock =
        Dim3((*k.info->threads)[0], (*k.info->threads)[1], (*k.info->threads)[2]);
  l.maxThreadsPerBlock = c.maxThreads;
  l.maxSharedPerBlockOptin = c.smemOptin;
  l.maxBlockDim = c.maxBlock;
  l.maxGridDim = c.maxGrid;
  l.clusterLaunch = c.clusterLaunch;
  return l;
}

int Kernel::queryActiveClusters(const LaunchConfig &cfg) const {
  const detail::KernelState &s = *state_;
  // cuOccupancyMaxActiveClusters takes the cluster from the config, except that for a
  // kernel with a compiled cluster it must be left out or equal it.
  const bool compiled = s.requiredCluster.count() > 0;
  CUlaunchAttribute attr{};
  CUlaunchConfig lc =
      detail::toDriver(cfg, &attr, /*withCluster=*/!compiled || cfg.cluster.count() > 1);
  int n = 0;
  TILE_CU_K(s.name, cuOccupancyMaxActiveClusters, &n, s.fn, &lc);
  return n;
}

// Validates cfg and sets the kernel attributes it needs. Caller holds state_->mu.
void Kernel::prepare(const LaunchConfig &cfg, const LaunchLimits &lim) const {
  detail::KernelState &s = *state_;
  validateLaunch(s.name, cfg, lim);
  const size_t sharedBytes = cfg.sharedBytes.value_or(0);
  if (sharedBytes > static_cast<size_t>(s.maxDynamicSmem)) {
    TILE_CU_K(s.name, cuFuncSetAttribute, s.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(sharedBytes));
    s.maxDynamicSmem = static_cast<int>(sharedBytes);
  }
  if (effectiveCluster(cfg, lim).count() > 1 && cfg.allowNonPortableCluster && !s.nonPortableSet) {
    TILE_CU_K(s.name, cuFuncSetAttribute, s.fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
              1);
    s.nonPortableSet = true;
  }
}

// Validates cfg and raises the attributes it needs first, because the occupancy
// counts against them (dynamic shared memory, non-portable cluster size).
int Kernel::maxActiveClusters(const LaunchConfig &cfg) const {
  detail::KernelState &s = detail::require(state_, "Kernel::maxActiveClusters", "Kernel");
  if (!cfg.sharedBytes && s.info && !s.info->dynamicShared.empty())
    throw Error::withMessage(
        "Kernel::maxActiveClusters", CUDA_ERROR_INVALID_VALUE, s.name,
        "kernel '" + s.name +
            "': its dynamic shared memory depends on the arguments; set cfg.sharedBytes or "
            "pass the arguments: maxActiveClusters(cfg, args...)");
  std::lock_guard<std::mutex> lock(s.mu);
  if (!detail::checkedBefore(s, cfg))
    prepare(cfg, limits());
  return queryActiveClusters(cfg);
}

void Kernel::launchPacked(const LaunchConfig &cfg, void **args, const size_t *argSizes,
                          size_t argCount) {
  detail::KernelState &s = detail::require(state_, "Kernel::launch", "Kernel");
  if (s.info && detail::hasTensorParams(*s.info)) {
    // A packed array is the driver's list: encoded maps (tile::TensorMap) for
    // the tensors and the hidden extents after the declared parameters.
    std::shared_ptr<detail::StreamState> hold;
    const CUstream stream = detail::admitLaunch(s, cfg, hold);
    if (s.paramsKnown)
      validateArguments(s.name, argSizes, argCount, s.params);
    launchNow(cfg, args, stream);
    return;
  }
  // Only the sizes are known: the kinds pass as plain values of those sizes.
  std::vector<ArgDesc> descs(argCount);
  for (size_t i = 0; i < argCount; ++i)
    descs[i].size = argSizes[i];
  launchChecked(cfg, args, argSizes, descs.data(), argCount);
}

namespace detail {

// A kernel that waits on peers' semaphores needs every CTA of its grid resident
// at once: a CTA spinning on a signal that a not-yet-scheduled CTA (of this or
// a peer's grid) would send never returns. The bound is the occupancy of this
// configuration (as for a cooperative launch). `clusters`: the active clusters
// of a clustered launch (cuOccupancyMaxActiveClusters), else unused.
void checkCoResident(const KernelState &s, const LaunchConfig &cfg, int clusters) {
  const uint64_t ctas = uint64_t(cfg.grid.x) * cfg.grid.y * cfg.grid.z;
  uint64_t capacity = 0;
  std::string how;
  if (cfg.cluster.count() > 1) {
    capacity = uint64_t(clusters) * cfg.cluster.count();
    how = std::to_string(clusters) + " clusters of " + std::to_string(cfg.cluster.count()) +
          " CTAs (cuOccupancyMaxActiveClusters)";
  } else {
    int perSm = 0;
    TILE_CU_K(s.name, cuOccupancyMaxActiveBlocksPerMultiprocessor, &perSm, s.fn,
              int(cfg.block.x * cfg.block.y * cfg.block.z), cfg.sharedBytes.value_or(0));
    const int sms = s.module->ctx->sms;
    capacity = uint64_t(perSm) * uint64_t(sms);
    how = std::to_string(perSm) + " CTAs per SM (cuOccupancyMaxActiveBlocksPerMultiprocessor) x " +
          std::to_string(sms) + " SMs";
  }
  if (ctas > capacity)
    throw Error::withMessage(
        "Kernel::launch", CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, s.name,
        "kernel '" + s.name +
            "' waits on semaphores that peers signal, so every CTA of its grid must be "
            "resident at once, but the grid has " +
            std::to_string(ctas) + " CTAs and at most " + std::to_string(capacity) +
            " fit with this block, cluster and shared memory: " + how +
            "; launch at most that many (a persistent grid)");
}

// The first launch of each configuration (and symmetric extents) with
// symmetric arguments checks that every rank launches alike: a rank whose grid
// differs would wait forever on signals its peers' CTAs never send.
void checkPeerLaunch(KernelState &s, const LaunchConfig &cfg, const PeerLaunch &peer) {
  const PeerBinding &g = *peer.group;
  if (g.device != s.module->ctx->ordinal)
    throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, s.name,
                             "kernel '" + s.name + "' is loaded on device " +
                                 std::to_string(s.module->ctx->ordinal) +
                                 " but its symmetric arguments belong to rank " +
                                 std::to_string(g.rank) + " on device " + std::to_string(g.device) +
                                 " (launch each rank's kernel with that rank's buffers)");
  std::vector<uint64_t> key = {
      cfg.grid.x,  cfg.grid.y,    cfg.grid.z,    cfg.block.x,   cfg.block.y,
      cfg.block.z, cfg.cluster.x, cfg.cluster.y, cfg.cluster.z, cfg.sharedBytes.value_or(0)};
  const std::vector<uint64_t> extents = uniformExtents(peer);
  key.insert(key.end(), extents.begin(), extents.end());
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.uniformChecked.count(key))
      return;
  }
  g.checkUniformLaunch(s.name, cfg);
  if (!extents.empty()) {
    std::string names;
    for (const auto &[name, e] : peer.symmetricExtents)
      names += (names.empty() ? "" : ", ") + name;
    g.checkUniform("the extents of the symmetric tensors of kernel '" + s.name + "' (" + names +
                       ": rank, then the extents, of each)",
                   extents);
  }
  std::lock_guard<std::mutex> lock(s.mu);
  s.uniformChecked.insert(key);
}

} // namespace detail

namespace {
[[noreturn]] void throwLaunchError(const std::string &kernel, const std::string &message) {
  throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, kernel, message);
}
} // namespace

void Kernel::launchChecked(const LaunchConfig &cfg, void **args, const size_t *argSizes,
                           const ArgDesc *descs, size_t argCount) {
  detail::KernelState &s = detail::require(state_, "Kernel::launch", "Kernel");
  std::shared_ptr<detail::StreamState> hold;
  const CUstream stream = detail::admitLaunch(s, cfg, hold);
  if (s.info && detail::hasTensorParams(*s.info)) {
    // The user passes the declared parameters; the driver sees maps in place
    // of the tensors and the hidden extents after them.
    std::string msg = checkArgumentKinds(*s.info, descs, argCount);
    if (!msg.empty())
      throwLaunchError(s.name, msg);
    detail::checkPointerArguments(s, cfg, args, argSizes, descs, argCount);
    detail::BoundArguments bound;
    detail::bindTensorArguments(*s.info, args, argSizes, descs, argCount, /*encode=*/true, bound,
                                s.module->ctx.get(), cfg.checkPointers);
    if (s.paramsKnown)
      validateArguments(s.name, bound.sizes.data(), bound.sizes.size(), s.params);
    if (bound.peer.group) {
      LaunchConfig resolved = resolve(cfg, bound.args.data());
      resolved.cluster = effectiveCluster(resolved, limits());
      detail::checkPeerLaunch(s, resolved, bound.peer);
    }
    launchNow(cfg, bound.args.data(), stream);
    detail::commitPeerLaunch(bound.peer);
    return;
  }
  for (size_t i = 0; i < argCount; ++i)
    if (descs[i].kind == ArgDesc::Kind::Tensor)
      throwLaunchError(s.name,
                       "kernel '" + s.name + "': argument " + std::to_string(i) +
                           " is a tile::Tensor but " +
                           (s.info ? std::string("the kernel has no tensor parameter")
                                   : std::string("the kernel has no kernel info to encode its "
                                                 "map from (load the module with "
                                                 "Module::fromFiles or a ModuleInfo, or pass a "
                                                 "tile::TensorMap)")));
  if (s.paramsKnown)
    validateArguments(s.name, argSizes, argCount, s.params);
  if (s.info) {
    std::string msg = checkArgumentKinds(*s.info, descs, argCount);
    if (!msg.empty())
      throwLaunchError(s.name, msg);
  }
  detail::checkPointerArguments(s, cfg, args, argSizes, descs, argCount);
  launchNow(cfg, args, stream);
}

size_t Kernel::dynamicSharedBytesFor(const LaunchConfig &cfg, void **args, const ArgDesc *descs,
                                     size_t argCount) const {
  const detail::KernelState &s = detail::require(state_, "Kernel::dynamicSharedBytes", "Kernel");
  if (!s.info)
    throw Error::withMessage("Kernel::dynamicSharedBytes", CUDA_ERROR_INVALID_VALUE, s.name,
                             "kernel '" + s.name +
                                 "' has no kernel info: load its module with Module::fromFiles "
                                 "(the .info.json of tilec --emit=info) or with a ModuleInfo");
  std::string msg = checkArgumentKinds(*s.info, descs, argCount);
  if (!msg.empty())
    throwLaunchError(s.name, msg);
  if (detail::hasTensorParams(*s.info)) {
    // The layout rule may read hidden extents: bind them (no map is needed).
    std::vector<size_t> sizes(argCount);
    for (size_t i = 0; i < argCount; ++i)
      sizes[i] = descs[i].size;
    detail::BoundArguments bound;
    detail::bindTensorArguments(*s.info, args, sizes.data(), descs, argCount, /*encode=*/false,
                                bound);
    return *resolve(cfg, bound.args.data()).sharedBytes;
  }
  return *resolve(cfg, args).sharedBytes;
}

LaunchConfig Kernel::resolve(const LaunchConfig &cfg, void **args) const {
  const detail::KernelState &s = *state_;
  LaunchConfig resolved = cfg;
  if (!s.info) {
    resolved.sharedBytes = cfg.sharedBytes.value_or(0);
    return resolved;
  }
  size_t needed = 0;
  try {
    needed = s.info->dynamicSharedBytes(args, effectiveCluster(cfg, limits()).count());
    s.info->checkMBarrierCounts(args);
  } catch (const std::invalid_argument &e) {
    throwLaunchError(s.name, e.what());
  }
  if (cfg.sharedBytes && *cfg.sharedBytes < needed)
    throwLaunchError(s.name, "kernel '" + s.name + "': " + std::to_string(*cfg.sharedBytes) +
                                 " bytes of dynamic shared memory given but its dynamic shared "
                                 "arrays need " +
                                 std::to_string(needed) +
                                 " for these arguments (leave LaunchConfig::sharedBytes unset "
                                 "to have it computed)");
  resolved.sharedBytes = cfg.sharedBytes.value_or(needed);
  return resolved;
}

void Kernel::launchDescribed(const LaunchConfig &cfg, void **args, const ArgDesc *descs,
                             size_t argCount) {
  // The sizes the kernel receives, as launch() derives them from ArgTraits.
  constexpr size_t kInline = 32;
  size_t inlineSizes[kInline];
  std::vector<size_t> heapSizes;
  size_t *sizes = inlineSizes;
  if (argCount > kInline) {
    heapSizes.resize(argCount);
    sizes = heapSizes.data();
  }
  for (size_t i = 0; i < argCount; ++i)
    sizes[i] = descs[i].size;
  launchChecked(cfg, args, sizes, descs, argCount);
}

void Kernel::launchUnchecked(const LaunchConfig &cfg, void **args) {
  detail::KernelState &s = detail::require(state_, "Kernel::launch", "Kernel");
  std::shared_ptr<detail::StreamState> hold;
  const CUstream stream = detail::admitLaunch(s, cfg, hold);
  launchNow(cfg, args, stream);
}

// Admitted (LaunchGuard.h) and its arguments checked: the configuration, then
// the launch on `stream`.
void Kernel::launchNow(const LaunchConfig &given, void **args, CUstream stream) {
  detail::KernelState &s = *state_;
  const LaunchConfig cfg = resolve(given, args);
  {
    // The checks and attribute updates run once per distinct shape.
    std::lock_guard<std::mutex> lock(s.mu);
    if (!detail::checkedBefore(s, cfg)) {
      const LaunchLimits lim = limits();
      prepare(cfg, lim);
      LaunchConfig shown = cfg;
      shown.cluster = effectiveCluster(cfg, lim);
      const int clusters = shown.cluster.count() > 1 ? queryActiveClusters(cfg) : 0;
      if (shown.cluster.count() > 1 && clusters == 0)
        throw Error::withMessage("cuOccupancyMaxActiveClusters", CUDA_ERROR_INVALID_VALUE, s.name,
                                 clusterDoesNotFitMessage(s.name, shown, s.staticSmem));
      if (s.info && s.info->spinsOnPeers)
        detail::checkCoResident(s, shown, clusters);
      detail::rememberChecked(s, cfg);
    }
  }
  CUlaunchAttribute attr{};
  CUlaunchConfig lc = detail::toDriver(cfg, &attr, detail::passesCluster(s, cfg), stream);
  CUresult r = TILE_CU_RAW(cuLaunchKernelEx, &lc, s.fn, args, nullptr);
  if (r != CUDA_SUCCESS) {
    // A sticky fault of earlier work is reported here too: name its likely source.
    std::string before = detail::lastKernel(detail::Scope::AnyStream);
    if (detail::isKernelFault(r) && !before.empty())
      throw Error("cuLaunchKernelEx", static_cast<int>(r), s.name,
                  "a fault of earlier work, reported at this launch (the last kernel launched "
                  "before it was '" +
                      before + "')");
    throw Error("cuLaunchKernelEx", static_cast<int>(r), s.name, detail::skippedChecksNote(s));
  }
  detail::noteLaunch(stream, s.name);
}

} // namespace tile
