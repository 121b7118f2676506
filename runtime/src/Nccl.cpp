//===- Nccl.cpp - loading libnccl.so.2 and its entry points ---------------===//
#include "Nccl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace tile::detail {

std::vector<std::string> ncclCandidates() {
  std::vector<std::string> c;
  if (const char *p = std::getenv("TILEC_NCCL_LIBRARY"); p && *p)
    c.push_back(p);
  c.push_back("libnccl.so.2");
#ifdef TILEC_TOOLKIT_NCCL_LIBRARY
  // The toolkit ships NCCL in <cuda>/lib, which is on no loader path by default.
  c.push_back(TILEC_TOOLKIT_NCCL_LIBRARY);
#endif
  return c;
}

Nccl loadNccl(const std::vector<std::string> &candidates) {
  Nccl n;
  for (const std::string &lib : candidates) {
    n.handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (n.handle) {
      n.path = lib;
      break;
    }
    const char *e = dlerror();
    if (!n.loadError.empty())
      n.loadError += "; ";
    n.loadError += "dlopen(\"" + lib + "\") failed: " + (e ? e : "unknown error");
  }
  if (!n.handle)
    return n;
  n.loadError.clear();
#define TILE_RESOLVE_NCCL_FN(fn)                                                                   \
  n.api.fn = reinterpret_cast<decltype(n.api.fn)>(dlsym(n.handle, #fn));                           \
  if (!n.api.fn)                                                                                   \
    n.missing += std::string(n.missing.empty() ? "" : ", ") + #fn;
  TILE_NCCL_FUNCTIONS(TILE_RESOLVE_NCCL_FN)
#define TILE_RESOLVE_TYPED_NCCL_FN(fn, type) TILE_RESOLVE_NCCL_FN(fn)
  TILE_NCCL_TYPED_FUNCTIONS(TILE_RESOLVE_TYPED_NCCL_FN)
#undef TILE_RESOLVE_TYPED_NCCL_FN
#undef TILE_RESOLVE_NCCL_FN
  if (n.api.ncclGetVersion)
    n.api.ncclGetVersion(&n.version);
  return n;
}

const Nccl &nccl() {
  static const Nccl n = loadNccl(ncclCandidates());
  return n;
}

std::string ncclResultName(int result) {
  static const char *const names[] = {
      "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
      "ncclInvalidArgument", "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress"};
  if (result >= 0 && result < int(sizeof names / sizeof names[0]))
    return names[result];
  return "ncclResult " + std::to_string(result);
}

void throwNccl(const char *call, ncclResult_t r, int rank, ncclComm_t comm) {
  const Nccl &n = nccl();
  std::string m =
      std::string(call) + " failed: " + ncclResultName(r) + " (" + std::to_string(int(r)) + ")";
  if (n.api.ncclGetErrorString)
    if (const char *s = n.api.ncclGetErrorString(r); s && *s)
      m += ": " + std::string(s);
  if (n.api.ncclGetLastError)
    if (const char *s = n.api.ncclGetLastError(comm); s && *s)
      m += ": " + std::string(s);
  m += rankSuffix(rank);
  // code(): CUDA_ERROR_UNKNOWN (an NCCL failure has no CUresult); ncclResult() has it.
  throw DistributedError(Error::withMessage(call, CUDA_ERROR_UNKNOWN, {}, m), rank, int(r));
}

} // namespace tile::detail
