//===- TensorArgs.h - tensor arguments bound for a launch (internal) -*- C++ -*-===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "PeerArgs.h"
#include "tile/kernel_info.h"
#include "tile/tensor_map.h"

namespace tile::detail {

struct ContextState;

/// A launch's arguments as the kernel receives them: each tile::Tensor
/// replaced by its encoded 128-byte map, and every hidden extent parameter
/// appended with its value. The pointers in `args` point into this object,
/// which is neither copied nor moved.
struct BoundArguments {
  std::vector<void *> args;
  std::vector<size_t> sizes;
  std::vector<TensorMap> maps; // one per tensor parameter (64-byte aligned storage)
  std::vector<int32_t> hidden; // one per hidden parameter (and i32 peer parameter)
  std::vector<uint64_t> wide;  // one per semaphore and u64 peer parameter
  PeerLaunch peer;             // what a launch with symmetric arguments does besides
  BoundArguments() = default;
  BoundArguments(const BoundArguments &) = delete;
  BoundArguments &operator=(const BoundArguments &) = delete;
};

/// "tensor argument i ('name', type)": how a refusal names tensor parameter i.
std::string argLabel(const KernelInfo &k, size_t i);

/// The map tensor `t` of `element`s gets for tensor parameter `ti` (its box,
/// swizzle, L2 promotion and out-of-bounds fill).
TensorMapDesc tensorMapDescOf(const TensorParamInfo &ti, TensorElement element, const Tensor &t);

/// Whether launches of `kernel` go through bindTensorArguments (tensor,
/// symmetric tensor and semaphore parameters, hidden parameters).
bool hasTensorParams(const KernelInfo &kernel);

/// Binds `count` user arguments (kinds already checked: descs[i].kind is
/// Tensor exactly for the tensor parameters, args[i] then points at the
/// tile::Tensor) into `out`. Checks each tensor against its parameter
/// (element, rank, literal extents, shared extent names, every tensor-map
/// rule) and throws tile::Error ("Kernel::launch", CUDA_ERROR_INVALID_VALUE)
/// naming the kernel, the argument and the rule; encodes the maps (through
/// the cache) unless `encode` is false (then the maps stay zero: for sizing
/// dynamic shared memory, which reads only scalars and hidden extents).
/// With `ctx`, each plain (not symmetric) tensor's memory is checked too, after
/// its own rules (Provenance.h: its DeviceBuffer alive; with `query`, device
/// memory of `ctx` holding the whole extent).
void bindTensorArguments(const KernelInfo &kernel, void **args, const size_t *sizes,
                         const ArgDesc *descs, size_t count, bool encode, BoundArguments &out,
                         const ContextState *ctx = nullptr, bool query = true);

} // namespace tile::detail
