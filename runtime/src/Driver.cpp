#include "Driver.h"

#include <dlfcn.h>

#include <algorithm>

namespace tile::detail {
namespace {

#define TILE_STR(x) #x
#define TILE_XSTR(x) TILE_STR(x)

using GetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult*);

void resolve(void* handle, GetProcAddressFn getProc, int cudaVersion, const char* name,
             const char* versioned, void** out) {
  *out = nullptr;
  if (getProc) {
    CUdriverProcAddressQueryResult status{};
    void* p = nullptr;
    if (getProc(name, &p, cudaVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS &&
        status == CU_GET_PROC_ADDRESS_SUCCESS && p) {
      *out = p;
      return;
    }
  }
  *out = dlsym(handle, versioned);
  if (!*out) *out = dlsym(handle, name);
}

Driver load() {
  Driver d;
  const char* lib = "libcuda.so.1";
  d.handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    const char* e = dlerror();
    d.loadError = std::string("dlopen(\"") + lib + "\") failed: " + (e ? e : "unknown error");
    return d;
  }
  auto getVersion =
      reinterpret_cast<decltype(&::cuDriverGetVersion)>(dlsym(d.handle, "cuDriverGetVersion"));
  if (getVersion) getVersion(&d.version);
  // Ask for the ABI of the headers we were compiled with (or the driver's, if older).
  int cudaVersion = d.version > 0 ? std::min(d.version, CUDA_VERSION) : CUDA_VERSION;
  auto getProc = reinterpret_cast<GetProcAddressFn>(dlsym(d.handle, "cuGetProcAddress_v2"));
#define TILE_RESOLVE_FN(fn) \
  resolve(d.handle, getProc, cudaVersion, #fn, TILE_XSTR(fn), reinterpret_cast<void**>(&d.api.fn));
  TILE_DRIVER_FUNCTIONS(TILE_RESOLVE_FN)
#undef TILE_RESOLVE_FN
  d.initResult = d.api.cuInit ? d.api.cuInit(0) : CUDA_ERROR_NOT_INITIALIZED;
  return d;
}

}  // namespace

const Driver& driver() {
  static const Driver d = load();
  return d;
}

Error driverMissingError(const std::string& call) {
  return Error(call, CUDA_ERROR_NOT_INITIALIZED, {},
               "the CUDA driver is missing (" + driver().loadError + ")");
}

}  // namespace tile::detail
