//===- Module.cpp - loading modules: PTX through the JIT, cubins ----------===//
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
  return Module(s);
}

Module Module::fromCubin(Context &ctx, const std::string &cubin) {
  ctx.makeCurrent();
  auto s = std::make_shared<detail::ModuleState>();
  s->ctx = ctx.state();
  s->mod = detail::loadImage(cubin);
  s->image = cubin;
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
    return fromCubin(ctx, data);
  return fromPtx(ctx, data, options);
}

Module Module::fromPtx(Context &ctx, const std::string &ptx, const ModuleInfo &info,
                       const ModuleOptions &options) {
  Module m = fromPtx(ctx, ptx, options);
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
  Module m = detail::isBinaryImage(data) ? fromCubin(ctx, data) : fromPtx(ctx, data, options);
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
