//===- Provenance.cpp - where a pointer argument points -------------------===//
#include "Provenance.h"

#include "RuntimeState.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace tile::detail {
namespace {

// Bytes from a tensor's address to the end of its last element; 0 when a
// rule of the tensor itself is broken (Tensor::check reports that).
unsigned __int128 tensorSpan(const Tensor &t) {
  TensorMapDesc d;
  d.extents = t.extents();
  d.strides = t.strides();
  if (!d.strides.empty() && d.strides.size() != d.extents.size())
    return 0;
  const std::vector<int64_t> s = d.effectiveStrides();
  unsigned __int128 last = 0;
  for (size_t i = 0; i < d.extents.size(); ++i) {
    if (d.extents[i] < 1 || s[i] < 1)
      return 0;
    last += static_cast<unsigned __int128>(d.extents[i] - 1) * static_cast<uint64_t>(s[i]);
  }
  return (last + 1) * tensorElementBytes(t.element());
}

std::string bytesText(unsigned __int128 v) {
  return v > UINT64_MAX ? std::string("more than 2^64") : std::to_string(uint64_t(v));
}

} // namespace

PointerFacts pointerFacts(CUdeviceptr p) {
  PointerFacts f;
  // Every answer lands in zeroed 8-byte storage: the attributes are 4- or
  // 8-byte values, and an attribute the driver does not know stays 0.
  uint64_t type = 0, ctx = 0, managed = 0, start = 0, size = 0;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *data[] = {&type, &ctx, &managed, &start, &size};
  // Unlike cuPointerGetAttribute, an address the driver does not know is no
  // error: the attributes keep their zero values.
  if (TILE_CU_RAW(cuPointerGetAttributes, 5, attrs, data, p) != CUDA_SUCCESS)
    return f;
  f.memoryType = static_cast<unsigned>(type);
  f.context = reinterpret_cast<CUcontext>(static_cast<uintptr_t>(ctx));
  f.managed = managed != 0;
  f.rangeStart = static_cast<CUdeviceptr>(start);
  f.rangeSize = static_cast<size_t>(size);
  if (f.memoryType && !f.rangeSize) { // a driver without the range attributes
    CUdeviceptr base = 0;
    size_t bytes = 0;
    if (TILE_CU_RAW(cuMemGetAddressRange, &base, &bytes, p) == CUDA_SUCCESS) {
      f.rangeStart = base;
      f.rangeSize = bytes;
    }
  }
  return f;
}

std::string pointerProblem(const ContextState &ctx, CUdeviceptr p, bool query,
                           PointerFacts *out) {
  if (!p)
    return "is a null pointer";
  if (!query)
    return {};
  const PointerFacts f = pointerFacts(p);
  if (out)
    *out = f;
  if (f.managed)
    return {}; // managed memory migrates to whichever device touches it
  if (f.memoryType == 0)
    return "is " + hexAddress(p) +
           ", an address the driver knows no allocation at (a host pointer, or device memory "
           "already freed): pass device memory, e.g. a live DeviceBuffer";
  if (f.memoryType == CU_MEMORYTYPE_HOST)
    return "is " + hexAddress(p) +
           ", host memory (CU_MEMORYTYPE_HOST: page-locked or system memory): the parameter "
           "takes device memory (copy the data into a DeviceBuffer)";
  if (f.memoryType == CU_MEMORYTYPE_ARRAY)
    return "is " + hexAddress(p) + ", a CUDA array, not linear device memory";
  if (f.context && f.context != ctx.ctx && !peerAccessEnabled(ctx.ctx, f.context))
    return "is " + hexAddress(p) + ", memory of " + describeContext(f.context) +
           ", but the kernel runs in " + describeContext(ctx.ctx) +
           ", which has no peer access to it: allocate it in the kernel's context "
           "(DeviceBuffer<T>(ctx, n)) or copy it there";
  return {};
}

std::string tensorMemoryProblem(const ContextState &ctx, const Tensor &t, bool query) {
  if (t.bufferFreed())
    return "is " + t.describe() +
           ", a view of a DeviceBuffer that has been freed (the tensor outlived it): keep the "
           "buffer alive while its tensors are launched with";
  PointerFacts f;
  std::string why = pointerProblem(ctx, t.address(), query, &f);
  if (!why.empty() || !query)
    return why.empty() ? why : why + " (" + t.describe() + ")";
  const unsigned __int128 span = tensorSpan(t);
  if (!span || !f.rangeSize || f.managed)
    return {};
  const unsigned __int128 end = static_cast<unsigned __int128>(t.address()) + span;
  const unsigned __int128 allocEnd = static_cast<unsigned __int128>(f.rangeStart) + f.rangeSize;
  if (t.address() < f.rangeStart || end > allocEnd)
    return "is " + t.describe() + ", which spans " + bytesText(span) + " bytes from " +
           hexAddress(t.address()) + ", but the allocation there is " +
           std::to_string(f.rangeSize) + " bytes from " + hexAddress(f.rangeStart) + " (" +
           bytesText(allocEnd - static_cast<unsigned __int128>(t.address())) +
           " bytes left from the tensor's address): the tensor would read past its allocation";
  return {};
}

} // namespace tile::detail
