//===- Memory.cpp - device allocations and synchronous copies -------------===//
#include "RuntimeState.h"
#include "tile/runtime.h"

namespace tile {

namespace detail {

CUdeviceptr memAlloc(const std::shared_ptr<ContextState> &ctx, size_t bytes) {
  ScopedContext current(ctx.get());
  CUdeviceptr p = 0;
  CUresult r = TILE_CU_RAW(cuMemAlloc, &p, bytes);
  if (isKernelFault(r))
    checkAfterKernels(r, "cuMemAlloc", false, Scope::AnyStream);
  if (r != CUDA_SUCCESS)
    throw Error("cuMemAlloc", r, {}, std::to_string(bytes) + " bytes");
  return p;
}
// Runs from destructors: pushes the buffer's own context, since the thread's
// current one may be another device's (or none).
void memFree(const std::shared_ptr<ContextState> &ctx, CUdeviceptr p) noexcept {
  if (!p)
    return;
  const Driver &d = driver();
  if (!d.api.cuMemFree)
    return;
  ScopedContext current(ctx.get());
  d.api.cuMemFree(p);
}
// The synchronous copies and memset run after earlier work in the context, so they
// report a kernel's faults: checkAfterKernels names the last kernel then.
void copyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  checkAfterKernels(TILE_CU_RAW(cuMemcpyHtoD, dst, src, bytes), "cuMemcpyHtoD", false,
                    Scope::AnyStream);
}
void copyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  checkAfterKernels(TILE_CU_RAW(cuMemcpyDtoH, dst, src, bytes), "cuMemcpyDtoH", false,
                    Scope::AnyStream);
}
void memsetD8(CUdeviceptr dst, unsigned char value, size_t bytes) {
  checkAfterKernels(TILE_CU_RAW(cuMemsetD8, dst, value, bytes), "cuMemsetD8", false,
                    Scope::AnyStream);
}
void throwAllocationOverflow(size_t count, size_t elementSize) {
  throw Error::withMessage("DeviceBuffer", CUDA_ERROR_INVALID_VALUE, {},
                           "DeviceBuffer: " + std::to_string(count) + " elements of " +
                               std::to_string(elementSize) + " bytes overflow size_t");
}
void throwBufferOverflow(const char *what, size_t n, size_t size) {
  throw Error::withMessage(what, CUDA_ERROR_INVALID_VALUE, {},
                           std::string(what) + ": " + std::to_string(n) +
                               " elements requested but the buffer holds " + std::to_string(size));
}

} // namespace detail

} // namespace tile
