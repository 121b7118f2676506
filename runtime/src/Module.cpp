//===- Module.cpp - loading modules: PTX through the JIT, cubins ----------===//
#include "PtxFacts.h"
#include "RuntimeState.h"
#include "tile/ptxas_advisory.h"
#include "tile/runtime.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace tile {

namespace detail {

namespace {

std::string cstr(const std::vector<char> &buf) {
  return std::string(buf.data(), strnlen(buf.data(), buf.size()));
}

std::string logs(const std::string &error, const std::string &info) {
  std::string s;
  if (!error.empty())
    s += "JIT error log:\n" + error;
  if (!info.empty())
    s += std::string(s.empty() ? "" : "\n") + "JIT info log:\n" + info;
  return s.empty() ? "no JIT log" : s;
}

// cuModuleLoadDataEx with logs; throws with them on failure.
CUmodule loadImage(const std::string &image) {
  std::vector<char> err(1 << 14, '\0'), info(1 << 14, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {err.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(err.size() - 1)),
                  info.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(info.size() - 1))};
  CUmodule m = nullptr;
  CUresult r = TILE_CU_RAW(cuModuleLoadDataEx, &m, image.data(), 4, opts, vals);
  if (r != CUDA_SUCCESS)
    throw Error("cuModuleLoadDataEx", r, {}, logs(cstr(err), cstr(info)));
  return m;
}

// The JIT target: the arch-specific ("a") target when the PTX asks for it.
bool wantsAcceleratedTarget(const std::string &ptx, int cc) {
  std::string t = ".target sm_" + std::to_string(cc) + "a";
  return cc >= 90 && ptx.find(t) != std::string::npos;
}

// PTX -> cubin through the driver linker, targeting the context's device. Some
// drivers reject an explicit CU_JIT_TARGET in cuLinkCreate, so the arch-specific
// ("sm_90a") target is only passed on a retry, when the default attempt failed.
std::string jitLinkOnce(const std::string &ptx, int cc, int optLevel, bool explicitTarget,
                        std::string &infoLog) {
  std::vector<char> err(1 << 16, '\0'), info(1 << 16, '\0');
  std::vector<CUjit_option> opts = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                    CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                    CU_JIT_LOG_VERBOSE,      CU_JIT_OPTIMIZATION_LEVEL};
  std::vector<void *> vals = {
      err.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(err.size() - 1)),
      info.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(info.size() - 1)),
      reinterpret_cast<void *>(static_cast<uintptr_t>(1)),
      reinterpret_cast<void *>(static_cast<uintptr_t>(optLevel < 0   ? 0
                                                      : optLevel > 4 ? 4
                                                                     : optLevel))};
  if (explicitTarget) {
    opts.push_back(CU_JIT_TARGET);
    vals.push_back(
        reinterpret_cast<void *>(static_cast<uintptr_t>(CU_COMPUTE_ACCELERATED_TARGET_BASE + cc)));
  }
  CUlinkState link = nullptr;
  TILE_CU(cuLinkCreate, static_cast<unsigned>(opts.size()), opts.data(), vals.data(), &link);
  struct Destroy {
    CUlinkState l;
    ~Destroy() {
      if (l && driver().api.cuLinkDestroy)
        driver().api.cuLinkDestroy(l);
    }
  } guard{link};
  CUresult r = TILE_CU_RAW(cuLinkAddData, link, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()),
                           ptx.size() + 1, "tilec.ptx", 0, nullptr, nullptr);
  if (r != CUDA_SUCCESS)
    throw Error("cuLinkAddData", r, {}, logs(cstr(err), cstr(info)));
  void *cubin = nullptr;
  size_t size = 0;
  r = TILE_CU_RAW(cuLinkComplete, link, &cubin, &size);
  if (r != CUDA_SUCCESS)
    throw Error("cuLinkComplete", r, {}, logs(cstr(err), cstr(info)));
  infoLog = cstr(info);
  return std::string(static_cast<const char *>(cubin), size); // copy before cuLinkDestroy
}

std::string jitLink(const std::string &ptx, int cc, int optLevel, std::string &infoLog) {
  try {
    return jitLinkOnce(ptx, cc, optLevel, /*explicitTarget=*/false, infoLog);
  } catch (const Error &) {
    if (!wantsAcceleratedTarget(ptx, cc))
      throw;
    try {
      return jitLinkOnce(ptx, cc, optLevel, /*explicitTarget=*/true, infoLog);
    } catch (const Error &) {
    }
    throw; // report the default attempt's error and logs
  }
}

// PTX JIT-compiled as one whole program by cuModuleLoadDataEx (the default,
// ModuleOptions::wholeProgramJit). The driver linker (cuLinkAddData) compiles
// PTX as a relocatable unit: ptxas then drops setmaxnreg "to maintain
// compatibility across compilation units" (advisory C7504/C7508), and the
// samples' SGEMMs ran 1.4-1.5x slower (docs/perf/kernels.md). No cubin comes
// back on this path, so the module is not in tilec's cubin cache (the
// driver's own JIT cache still applies). Throws with the logs on failure.
CUmodule loadPtxWholeProgram(const std::string &ptx, int optLevel, std::string &infoLog) {
  std::vector<char> err(1 << 16, '\0'), info(1 << 16, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_LOG_VERBOSE,      CU_JIT_OPTIMIZATION_LEVEL};
  void *vals[] = {err.data(),
                  reinterpret_cast<void *>(static_cast<uintptr_t>(err.size() - 1)),
                  info.data(),
                  reinterpret_cast<void *>(static_cast<uintptr_t>(info.size() - 1)),
                  reinterpret_cast<void *>(static_cast<uintptr_t>(1)),
                  reinterpret_cast<void *>(
                      static_cast<uintptr_t>(optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel))};
  CUmodule m = nullptr;
  CUresult r = TILE_CU_RAW(cuModuleLoadDataEx, &m, ptx.c_str(), 6, opts, vals);
  if (r != CUDA_SUCCESS)
    throw Error("cuModuleLoadDataEx", r, {}, logs(cstr(err), cstr(info)));
  infoLog = cstr(info);
  return m;
}

// A ptxas advisory in the JIT info log that undoes what the kernel was
// written for (dropped setmaxnreg, serialised wgmma: tile/ptxas_advisory.h)
// is an error naming the kernel. Thrown before the cubin is cached, so a
// later load reports it again.
void rejectPtxasAdvisories(const std::string &ptx, const std::string &infoLog) {
  std::vector<PtxasAdvisory> found = findPtxasAdvisories(infoLog);
  if (found.empty())
    return;
  const PtxasAdvisory &a = found.front();
  std::string kernel = a.kernel, which;
  if (kernel.empty()) {
    // C7508 names no kernel: the kernels that use setmaxnreg.
    std::vector<std::string> users = ptxEntriesContaining(ptx, "setmaxnreg");
    for (const std::string &name : users)
      which += (which.empty() ? "'" : ", '") + name + "'";
    if (users.size() == 1)
      kernel = users.front();
  } else {
    which = "'" + kernel + "'";
  }
  std::string message = "JIT: ptxas advisory " + (a.code.empty() ? "" : a.code + " ") +
                        "for kernel " + (which.empty() ? std::string("<unknown>") : which) + ": " +
                        ptxasAdvisoryMeaning(a.kind) + "\n  " + a.text;
  throw Error::withMessage("ptxas (JIT)", CUDA_ERROR_INVALID_PTX, kernel, message);
}

// Refuses PTX the driver could never load, before the JIT: a text cut short
// (the JIT would report a syntax error at its end) or a target the device
// lacks. `call` names the loading function.
void precheckPtx(const std::string &ptx, const ContextState &ctx, const char *call) {
  const std::string cut = ptxTruncation(ptx);
  if (!cut.empty())
    throw Error::withMessage(call, CUDA_ERROR_INVALID_PTX, {},
                             std::string(call) + ": the PTX is truncated: " + cut + " (" +
                                 std::to_string(ptx.size()) +
                                 " bytes); rewrite it (tilec -o) and load the whole file");
  const std::string target = ptxTargetMismatch(ptxHeader(ptx), ctx.cc);
  if (!target.empty())
    throw Error::withMessage(call, CUDA_ERROR_INVALID_PTX, {},
                             std::string(call) + ": " + target + " (device " +
                                 std::to_string(ctx.ordinal) + ", " + ctx.name + ")");
}

// A JIT failure with what the PTX header says against this driver and
// device appended (the JIT's own message is often only "a PTX JIT
// compilation failed" or CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
[[noreturn]] void rethrowExplained(const Error &e, const std::string &ptx,
                                   const ContextState &ctx) {
  const std::string why = ptxHeaderMismatch(ptxHeader(ptx), ctx.cc, ctx.driverVersion);
  if (why.empty())
    throw e;
  throw Error::withMessage(e.call(), e.code(), e.kernel(), std::string(e.what()) + "\n" + why);
}

// The kernel info against the PTX it is loaded with: every fact the PTX pins
// (the thread bounds, the cluster, the parameter layout) compared for every
// kernel the info lists, then the fingerprint (which covers what the PTX
// does not show: the shared-memory layout rule). Refused at load with both
// values, as info from another build would size shared memory and check
// launches against another kernel. A guard against mismatched files only:
// tilec derives the info from the IR it generates the PTX from, and
// tests/unit/runtime/ContractTest.cpp checks that the two agree for every
// compiled sample, so info and PTX of one tilec run always pass.
void bindInfoToPtx(const ModuleInfo &info, const std::string &ptx) {
  auto refuse = [](const std::string &kernel, const std::string &why) {
    throw Error::withMessage("Module::fromPtx", CUDA_ERROR_INVALID_VALUE, kernel,
                             (kernel.empty() ? std::string() : "kernel '" + kernel + "': ") +
                                 why +
                                 ": the kernel info does not belong to this PTX (write both with "
                                 "the same tilec build and options)");
  };
  auto dims = [](const std::array<unsigned, 3> &d) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
           std::to_string(d[2]) + ")";
  };
  for (const KernelInfo &ki : info.kernels) {
    const PtxEntryFacts f = ptxEntryFacts(ptx, ki.name);
    if (!f.found)
      refuse(ki.name, "the kernel info lists it but the PTX has no .entry of this name");
    if (ki.threads != f.reqntid)
      refuse(ki.name, "the kernel info's threads are " +
                          (ki.threads ? dims(*ki.threads) : std::string("not fixed")) +
                          " but the PTX's .reqntid is " +
                          (f.reqntid ? dims(*f.reqntid) : std::string("absent")));
    // max_threads and min_blocks: where the info has one, the PTX has the
    // same (the compiler may add bounds of its own, e.g. .minnctapersm 1 for
    // warp roles, which the info does not list).
    const std::optional<unsigned> maxntid =
        f.maxntid ? std::optional<unsigned>((*f.maxntid)[0] * (*f.maxntid)[1] * (*f.maxntid)[2])
                  : std::nullopt;
    if (ki.maxThreads && ki.maxThreads != maxntid)
      refuse(ki.name, "the kernel info's max_threads is " +
                          (ki.maxThreads ? std::to_string(*ki.maxThreads) : std::string("unset")) +
                          " but the PTX's .maxntid is " +
                          (maxntid ? std::to_string(*maxntid) : std::string("absent")));
    if (ki.minBlocks && ki.minBlocks != f.minnctapersm)
      refuse(ki.name, "the kernel info's min_blocks is " +
                          (ki.minBlocks ? std::to_string(*ki.minBlocks) : std::string("unset")) +
                          " but the PTX's .minnctapersm is " +
                          (f.minnctapersm ? std::to_string(*f.minnctapersm)
                                          : std::string("absent")));
    const std::string infoCluster =
        ki.cluster == KernelInfo::Cluster::Fixed    ? "fixed " + dims(ki.clusterDims)
        : ki.cluster == KernelInfo::Cluster::Launch ? std::string("given at launch")
                                                    : std::string("none");
    // A fixed cluster is .reqnctapercluster (tilec adds .explicitcluster to
    // it); a launch-given one .explicitcluster alone; none, neither.
    const bool clusterAgrees =
        ki.cluster == KernelInfo::Cluster::Fixed
            ? f.reqnctapercluster && *f.reqnctapercluster == ki.clusterDims
            : !f.reqnctapercluster &&
                  f.explicitCluster == (ki.cluster == KernelInfo::Cluster::Launch);
    const std::string ptxCluster =
        f.reqnctapercluster ? "fixed " + dims(*f.reqnctapercluster) + " (.reqnctapercluster)"
        : f.explicitCluster ? std::string("given at launch (.explicitcluster)")
                            : std::string("none");
    if (!clusterAgrees)
      refuse(ki.name, "the kernel info's cluster is " + infoCluster + " but the PTX's is " +
                          ptxCluster);
    if (!f.paramsParsed)
      continue;
    if (f.params.size() != ki.params.size())
      refuse(ki.name, "the kernel info lists " + std::to_string(ki.params.size()) +
                          " parameters but the PTX declares " + std::to_string(f.params.size()));
    for (size_t i = 0; i < f.params.size(); ++i) {
      const KernelParamInfo &p = ki.params[i];
      if (p.size != f.params[i].size || p.align != f.params[i].align)
        refuse(ki.name, "parameter " + std::to_string(i) + " ('" + p.name + "') is " +
                            std::to_string(p.size) + " bytes at alignment " +
                            std::to_string(p.align) + " in the kernel info but " +
                            std::to_string(f.params[i].size) + " bytes at alignment " +
                            std::to_string(f.params[i].align) + " in the PTX ('" +
                            f.params[i].name + "')");
    }
  }
  if (!info.ptxHash.empty() && info.ptxHash != ptxFingerprint(ptx))
    refuse({}, "the kernel info was written for PTX with fingerprint " + info.ptxHash +
                   " but this PTX's fingerprint is " + ptxFingerprint(ptx));
}

bool isBinaryImage(const std::string &data) {
  static const char kElfMagic[] = {0x7f, 'E', 'L', 'F'};
  if (data.size() >= 4 && std::memcmp(data.data(), kElfMagic, 4) == 0)
    return true;
  if (data.size() >= 4) { // fatbin magic 0xBA55ED50 (little endian)
    uint32_t m;
    std::memcpy(&m, data.data(), 4);
    if (m == 0xBA55ED50u)
      return true;
  }
  return false;
}

} // namespace
} // namespace detail

Module Module::fromPtx(Context &ctx, const std::string &ptx, const ModuleOptions &options) {
  ctx.makeCurrent();
  auto s = std::make_shared<detail::ModuleState>();
  s->ctx = ctx.state();
  s->withoutInfo = options.withoutKernelInfo;
  s->reportSkipped = options.reportSkippedChecks;
  detail::precheckPtx(ptx, *s->ctx, "Module::fromPtx");
  try {
    return fromPtxChecked(ctx, ptx, options, s);
  } catch (const Error &e) {
    detail::rethrowExplained(e, ptx, *s->ctx);
  }
}

Module Module::fromPtxChecked(Context &ctx, const std::string &ptx, const ModuleOptions &options,
                              std::shared_ptr<detail::ModuleState> s) {
  std::string dir =
      cacheEnabled(options.useCache) ? resolveCacheDir(options.cacheDir) : std::string();
  CubinCache cache(dir);
  std::string key = cubinCacheKey(ptx, ctx.arch(), ctx.driverVersion(), options.jitOptLevel);
  const int cc = ctx.computeCapability();
  if (options.wholeProgramJit || ptx.find("setmaxnreg") != std::string::npos) {
    s->mod = detail::loadPtxWholeProgram(ptx, options.jitOptLevel, s->infoLog);
    try {
      detail::rejectPtxasAdvisories(ptx, s->infoLog);
    } catch (...) {
      if (detail::driver().api.cuModuleUnload)
        detail::driver().api.cuModuleUnload(s->mod);
      s->mod = nullptr;
      throw;
    }
    s->ptx = ptx;
    detail::bindHangRecord(*s);
    return Module(s);
  }
  CachedBuild b = buildWithCache(
      cache, key,
      [&] {
        std::string image = detail::jitLink(ptx, cc, options.jitOptLevel, s->infoLog);
        detail::rejectPtxasAdvisories(ptx, s->infoLog);
        return image;
      },
      [&](const std::string &image) { s->mod = detail::loadImage(image); });
  s->image = std::move(b.image);
  s->ptx = ptx;
  s->fromCache = b.fromCache;
  s->cachePath = std::move(b.path);
  detail::bindHangRecord(*s);
  return Module(s);
}

Module Module::fromCubin(Context &ctx, const std::string &cubin, const ModuleOptions &options) {
  ctx.makeCurrent();
  auto s = std::make_shared<detail::ModuleState>();
  s->ctx = ctx.state();
  s->withoutInfo = options.withoutKernelInfo;
  s->reportSkipped = options.reportSkippedChecks;
  s->mod = detail::loadImage(cubin);
  s->image = cubin;
  detail::bindHangRecord(*s);
  return Module(s);
}

Module Module::fromFile(Context &ctx, const std::string &path, const ModuleOptions &options) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error::withMessage("Module::fromFile", CUDA_ERROR_FILE_NOT_FOUND, {},
                             "Module::fromFile failed: cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string data = ss.str();
  if (detail::isBinaryImage(data))
    return fromCubin(ctx, data, options);
  return fromPtx(ctx, data, options);
}

Module Module::fromPtx(Context &ctx, const std::string &ptx, const ModuleInfo &info,
                       const ModuleOptions &options) {
  ModuleOptions withInfo = options;
  withInfo.withoutKernelInfo = false;
  // Bound before the JIT: info that does not belong to the PTX is refused
  // whether or not the PTX compiles.
  detail::precheckPtx(ptx, *ctx.state(), "Module::fromPtx");
  detail::bindInfoToPtx(info, ptx);
  Module m = fromPtx(ctx, ptx, withInfo);
  m.state_->info = info;
  m.state_->hasInfo = true;
  return m;
}

namespace {
std::string readWhole(const std::string &path, const char *call, const std::string &hint) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error::withMessage(call, CUDA_ERROR_FILE_NOT_FOUND, {},
                             std::string(call) + " failed: cannot open '" + path + "'" + hint);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// "dir/k.ptx" -> "dir/k.info.json" (any extension of the file name is replaced).
std::string infoPathBeside(const std::string &path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash)
                         ? path.substr(0, dot)
                         : path;
  return stem + ".info.json";
}
} // namespace

Module Module::fromFiles(Context &ctx, const std::string &path, const std::string &infoPath,
                         const ModuleOptions &options) {
  const std::string where = infoPath.empty() ? infoPathBeside(path) : infoPath;
  ModuleInfo info;
  try {
    info = moduleInfoFromJson(
        readWhole(where, "Module::fromFiles",
                  " (the kernel info: write it with tilec --emit=info -o " + where + ")"));
  } catch (const std::invalid_argument &e) {
    throw Error::withMessage("Module::fromFiles", CUDA_ERROR_INVALID_VALUE, {},
                             "Module::fromFiles failed: " + where + ": " + e.what());
  }
  std::string data = readWhole(path, "Module::fromFiles", "");
  ModuleOptions withInfo = options;
  withInfo.withoutKernelInfo = false;
  const bool binary = detail::isBinaryImage(data);
  if (!binary) {
    detail::precheckPtx(data, *ctx.state(), "Module::fromFiles");
    try {
      detail::bindInfoToPtx(info, data);
    } catch (const Error &e) {
      throw Error::withMessage("Module::fromFiles", e.code(), e.kernel(),
                               std::string(e.what()) + " (" + path + ", " + where + ")");
    }
  }
  Module m = binary ? fromCubin(ctx, data, withInfo) : fromPtx(ctx, data, withInfo);
  m.state_->info = std::move(info);
  m.state_->hasInfo = true;
  return m;
}

const ModuleInfo *Module::info() const {
  const detail::ModuleState &m = detail::require(state_, "Module::info", "Module");
  return m.hasInfo ? &m.info : nullptr;
}

bool Module::loadedFromCache() const {
  return detail::require(state_, "Module::loadedFromCache", "Module").fromCache;
}
const std::string &Module::jitInfoLog() const {
  return detail::require(state_, "Module::jitInfoLog", "Module").infoLog;
}
const std::string &Module::cubin() const {
  return detail::require(state_, "Module::cubin", "Module").image;
}
const std::string &Module::cachePath() const {
  return detail::require(state_, "Module::cachePath", "Module").cachePath;
}
CUmodule Module::raw() const { return detail::require(state_, "Module::raw", "Module").mod; }

} // namespace tile
