//===- Driver.cpp - loading libcuda.so.1 and its entry points -------------===//
#include "Driver.h"

#include <dlfcn.h>

#include <cstdio>

namespace tile::detail {
namespace {

#define TILE_STR(x) #x
#define TILE_XSTR(x) TILE_STR(x)

// The symbol cuda.h maps the un-versioned name to (cuMemAlloc -> cuMemAlloc_v2)
// has exactly the signature this file was compiled against. cuGetProcAddress
// with the header's CUDA_VERSION would instead hand out the newest ABI, which
// can differ: under CUDA 13 "cuCtxSynchronize" resolves to cuCtxSynchronize_v2
// (CUcontext), so calling it as cuCtxSynchronize(void) passes a garbage context.
void resolve(void *handle, const char *name, const char *versioned, void **out) {
  *out = dlsym(handle, versioned);
  if (!*out)
    *out = dlsym(handle, name);
}

Driver load() {
  Driver d;
  const char *lib = "libcuda.so.1";
  d.handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    const char *e = dlerror();
    d.loadError = std::string("dlopen(\"") + lib + "\") failed: " + (e ? e : "unknown error");
    return d;
  }
#define TILE_RESOLVE_FN(fn)                                                                        \
  resolve(d.handle, #fn, TILE_XSTR(fn), reinterpret_cast<void **>(&d.api.fn));
  TILE_DRIVER_FUNCTIONS(TILE_RESOLVE_FN)
#undef TILE_RESOLVE_FN
  // Un-versioned symbols (no cuda.h macro maps them to a _vN name).
#define TILE_RESOLVE_OPTIONAL_FN(fn, type)                                                         \
  resolve(d.handle, #fn, #fn, reinterpret_cast<void **>(&d.api.fn));
  TILE_DRIVER_OPTIONAL_FUNCTIONS(TILE_RESOLVE_OPTIONAL_FN)
#undef TILE_RESOLVE_OPTIONAL_FN
  if (d.api.cuDriverGetVersion)
    d.api.cuDriverGetVersion(&d.version);
  d.initResult = d.api.cuInit ? d.api.cuInit(0) : CUDA_ERROR_NOT_INITIALIZED;
  return d;
}

} // namespace

const Driver &driver() {
  static const Driver d = load();
  return d;
}

Error driverMissingError(const std::string &call) {
  return Error(call, CUDA_ERROR_NOT_INITIALIZED, {},
               "the CUDA driver is missing (" + driver().loadError + ")");
}

std::string hexAddress(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace tile::detail
