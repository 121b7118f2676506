//===- Provenance.h - where a pointer argument points (internal) -*- C++ -*-===//
//
// A kernel's `ptr<T, global>` and `tensor<T>[...]` parameters take device
// addresses, which the driver passes on without looking: a null pointer, a
// host pointer, another device's memory or a freed buffer faults after the
// launch (or silently reads whatever now lives there). The runtime asks the
// driver what each address is (cuPointerGetAttributes: memory type, context,
// the allocation's range) before launching.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

#include "tile/tensor_map.h"

namespace tile::detail {

struct ContextState;

/// What the driver knows of an address.
struct PointerFacts {
  unsigned memoryType = 0; // CUmemorytype; 0: no allocation the driver knows
  CUcontext context = nullptr;
  bool managed = false;
  CUdeviceptr rangeStart = 0; // the allocation holding the address
  size_t rangeSize = 0;
};
PointerFacts pointerFacts(CUdeviceptr p);

/// "" when `p` may be read by a kernel of `ctx` as global memory; else the
/// rest of a sentence that starts with the argument's label ("is a null
/// pointer", "is 0x7ffc... , not device memory ..."). `query` false: only the
/// null check (LaunchConfig::checkPointers). `facts` receives the answer.
std::string pointerProblem(const ContextState &ctx, CUdeviceptr p, bool query,
                           PointerFacts *facts = nullptr);

/// The same for a tensor argument, and: its DeviceBuffer still allocated, its
/// extent inside the allocation that holds its address.
std::string tensorMemoryProblem(const ContextState &ctx, const Tensor &t, bool query);

} // namespace tile::detail
