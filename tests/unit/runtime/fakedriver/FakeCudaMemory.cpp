// The fake driver's memory, copies, streams and events (FakeCuda.cpp: the
// rest). Device memory is host memory; stream operations run at once and are
// recorded in the state the tests read (FakeState::streamOps).
#include "FakeCuda.h"
#include "FakeCudaState.h"

#include <cstdlib>
#include <cstring>
#include <map>

using namespace fakedriver;

extern "C" {

// Live allocations: base -> (bytes, context), for cuPointerGetAttributes.
struct FakeAllocation {
  size_t bytes;
  CUcontext ctx;
};
std::map<CUdeviceptr, FakeAllocation> g_allocations;
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) {
  // As the driver: 256-byte aligned (what per-peer tensor map arrays rely on).
  void *m = std::aligned_alloc(256, (n + 255) / 256 * 256);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  ++g_state.liveAllocs;
  *p = reinterpret_cast<CUdeviceptr>(m);
  g_allocations[*p] = FakeAllocation{n, reinterpret_cast<CUcontext>(g_current)};
  return CUDA_SUCCESS;
}
const std::pair<const CUdeviceptr, FakeAllocation> *findAllocation(CUdeviceptr p) {
  auto it = g_allocations.upper_bound(p);
  if (it == g_allocations.begin())
    return nullptr;
  --it;
  return p < it->first + it->second.bytes ? &*it : nullptr;
}
// As the driver: an address it knows no allocation at is no error, the
// attributes keep zero values.
CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data,
                                CUdeviceptr p) {
  ++g_state.pointerQueries;
  const auto *a = findAllocation(p);
  for (unsigned i = 0; i < n; ++i) {
    switch (attrs[i]) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned *>(data[i]) = a ? CU_MEMORYTYPE_DEVICE : 0;
      break;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext *>(data[i]) = a ? a->second.ctx : nullptr;
      break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<unsigned *>(data[i]) = 0; // 4 bytes, as the driver writes it
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr *>(data[i]) = a ? a->first : 0;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t *>(data[i]) = a ? a->second.bytes : 0;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
  const auto *a = findAllocation(p);
  if (!a)
    return CUDA_ERROR_NOT_FOUND;
  *base = a->first;
  *size = a->second.bytes;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) {
  g_allocations.erase(p);
  --g_state.liveAllocs;
  if (g_state.ctxPushes > g_state.ctxPops)
    ++g_state.freesInPushedContext;
  std::free(reinterpret_cast<void *>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n) {
  std::memcpy(reinterpret_cast<void *>(d), h, n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n) {
  if (g_state.syncResult != CUDA_SUCCESS)
    return g_state.syncResult;
  std::memcpy(h, reinterpret_cast<void *>(d), n);
  return CUDA_SUCCESS;
}
/// Records a stream operation queued on `s` (with whether a context was
/// current) and returns the configured result.
static CUresult recordStreamOp(FakeState::StreamOp op, CUstream s) {
  op.stream = s;
  op.contextPushed = g_state.ctxPushes > g_state.ctxPops;
  g_state.streamOps.push_back(op);
  return g_state.streamOpResult;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  FakeState::StreamOp op;
  op.what = "cuMemcpyAsync";
  op.dst = dst;
  op.src = src;
  op.bytes = n;
  return recordStreamOp(op, s);
}
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *m, CUstream s) {
  FakeState::StreamOp op;
  op.what = "cuMemcpy2DAsync";
  op.dst = m->dstDevice;
  op.src = m->srcDevice;
  op.bytes = m->WidthInBytes;
  op.rows = m->Height;
  op.srcPitch = m->srcPitch;
  op.dstPitch = m->dstPitch;
  op.deviceToDevice =
      m->srcMemoryType == CU_MEMORYTYPE_DEVICE && m->dstMemoryType == CU_MEMORYTYPE_DEVICE;
  return recordStreamOp(op, s);
}
/// A stream-ordered write or wait of a 32-bit value, recorded.
static CUresult recordValueOp(const char *what, CUstream s, CUdeviceptr addr, cuuint32_t value,
                              unsigned int flags) {
  FakeState::StreamOp op;
  op.what = what;
  op.dst = addr;
  op.value = value;
  op.flags = flags;
  return recordStreamOp(op, s);
}
CUresult cuStreamWriteValue32_v2(CUstream s, CUdeviceptr addr, cuuint32_t value,
                                 unsigned int flags) {
  return recordValueOp("cuStreamWriteValue32", s, addr, value, flags);
}
CUresult cuStreamWaitValue32_v2(CUstream s, CUdeviceptr addr, cuuint32_t value,
                                unsigned int flags) {
  return recordValueOp("cuStreamWaitValue32", s, addr, value, flags);
}
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void *>(d), v, n);
  return CUDA_SUCCESS;
}

int g_event;
CUresult cuStreamCreate(CUstream *s, unsigned int) {
  *s = reinterpret_cast<CUstream>(new int(0));
  g_streams[*s] = reinterpret_cast<CUcontext>(g_current);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream s) {
  if (!g_streams.erase(s))
    return CUDA_ERROR_INVALID_HANDLE;
  delete reinterpret_cast<int *>(s);
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream s, CUcontext *c) {
  auto it = g_streams.find(s);
  if (it == g_streams.end())
    return CUDA_ERROR_INVALID_HANDLE;
  *c = it->second;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return g_state.syncResult; }
CUresult cuEventCreate(CUevent *e, unsigned int) {
  *e = reinterpret_cast<CUevent>(&g_event);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return g_state.syncResult; }
CUresult cuEventElapsedTime(float *ms, CUevent, CUevent) {
  *ms = 1.5f;
  return CUDA_SUCCESS;
}

} // extern "C"
