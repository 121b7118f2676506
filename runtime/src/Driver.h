//===- Driver.h - libcuda.so.1 loaded with dlopen (internal) ----*- C++ -*-===//
//
// Entry points are resolved with dlsym of the versioned names cuda.h maps to
// (the ABI compiled against).
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <string>

#include "tile/error.h"

namespace tile::detail {

// X(name): the un-versioned API name; the member type comes from cuda.h's declaration.
// clang-format off
#define TILE_DRIVER_FUNCTIONS(X)                                                       \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)               \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)       \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)         \
  X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuCtxPushCurrent) X(cuCtxPopCurrent)      \
  X(cuLinkCreate) X(cuLinkAddData) X(cuLinkComplete) X(cuLinkDestroy)                 \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction)                      \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernelEx)                     \
  X(cuOccupancyMaxActiveClusters) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)      \
  X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD8)            \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                         \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)           \
  X(cuEventElapsedTime)                                                                \
  X(cuTensorMapEncodeTiled)                                                           \
  X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess)                                    \
  X(cuPointerGetAttributes) X(cuMemGetAddressRange) X(cuStreamGetCtx)                \
  X(cuModuleGetGlobal) X(cuMemHostAlloc) X(cuMemHostGetDevicePointer) X(cuMemFreeHost)  \
  X(cuMemcpyAsync) X(cuMemcpy2DAsync) X(cuStreamWriteValue32) X(cuStreamWaitValue32)
// clang-format on

// Entry points newer drivers have and the runtime can do without (nullptr when the
// installed driver lacks them). Their types are spelled out, so the runtime also
// builds against a cuda.h older than the entry point.
//   cuFuncGetParamInfo (CUDA 12.4): offset and size of each kernel parameter, for
//   the launch argument check; without it arguments are not checked.
using FuncGetParamInfoFn = CUresult (*)(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                        size_t *paramSize);
#define TILE_DRIVER_OPTIONAL_FUNCTIONS(X) X(cuFuncGetParamInfo, FuncGetParamInfoFn)

struct DriverApi {
#define TILE_DECLARE_FN(fn) decltype(&::fn) fn = nullptr;
  TILE_DRIVER_FUNCTIONS(TILE_DECLARE_FN)
#undef TILE_DECLARE_FN
#define TILE_DECLARE_OPTIONAL_FN(fn, type) type fn = nullptr;
  TILE_DRIVER_OPTIONAL_FUNCTIONS(TILE_DECLARE_OPTIONAL_FN)
#undef TILE_DECLARE_OPTIONAL_FN
};

struct Driver {
  void *handle = nullptr;
  std::string loadError; // why dlopen failed
  int version = 0;       // cuDriverGetVersion
  CUresult initResult = CUDA_ERROR_NOT_INITIALIZED;
  DriverApi api;
};

// Loads the driver once (thread-safe); never throws.
const Driver &driver();

// The error thrown when `call` is needed but the driver cannot be loaded.
Error driverMissingError(const std::string &call);

// The entry point, or throws (driver missing / driver lacks the entry point).
template <class F> F driverFn(F DriverApi::*member, const char *call) {
  const Driver &d = driver();
  if (!d.handle)
    throw driverMissingError(call);
  F f = d.api.*member;
  if (!f)
    throw Error(call, CUDA_ERROR_NOT_SUPPORTED, {},
                "the installed CUDA driver does not provide this entry point");
  return f;
}

inline void check(CUresult r, const char *call, const std::string &kernel = {}) {
  if (r != CUDA_SUCCESS)
    throw Error(call, static_cast<int>(r), kernel);
}

/// "0x7f3a00000000": an address in a message.
std::string hexAddress(uint64_t v);

} // namespace tile::detail

// TILE_CU(cuMemAlloc, &p, n): calls the driver entry point and throws tile::Error
// naming the call on failure. TILE_CU_K(kernelName, fn, args...) also names the kernel.
#define TILE_CU(fn, ...)                                                                           \
  ::tile::detail::check(                                                                           \
      ::tile::detail::driverFn(&::tile::detail::DriverApi::fn, #fn)(__VA_ARGS__), #fn)
#define TILE_CU_K(kernel, fn, ...)                                                                 \
  ::tile::detail::check(                                                                           \
      ::tile::detail::driverFn(&::tile::detail::DriverApi::fn, #fn)(__VA_ARGS__), #fn, kernel)
// The raw CUresult, for calls whose failure is handled locally.
#define TILE_CU_RAW(fn, ...)                                                                       \
  (::tile::detail::driverFn(&::tile::detail::DriverApi::fn, #fn)(__VA_ARGS__))
