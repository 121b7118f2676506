//===- PeerArgs.h - symmetric tensors and semaphores bound for a launch -*- C++ -*-===//
//
// Internal. The parts of bindTensorArguments (TensorArgs.cpp) that belong to
// multi-GPU kernels (docs/runtime-multi-gpu.md, "Multi-GPU kernels"): `symmetric tensor`
// and `semaphore[S]` parameters and the hidden parameters the compiler adds
// for them (tile/kernel_info.h, HiddenPeerInfo).
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "PeerBinding.h"
#include "tile/kernel_info.h"
#include "tile/tensor_map.h"

namespace tile::detail {

/// What a launch with peer arguments does besides passing them.
struct PeerLaunch {
  /// The binding of the first symmetric/semaphore argument (its communicator
  /// is every such argument's); null for a launch without one.
  std::shared_ptr<const PeerBinding> group;
  /// Symmetric tensors' extents (parameter name, extents), which every rank
  /// must pass alike: checked with the launch configuration at the first launch.
  std::vector<std::pair<std::string, std::vector<int64_t>>> symmetricExtents;
  /// The exit semaphore's host state: its epoch advances once the launch is made.
  std::shared_ptr<SemaphoreState> exitSemaphore;
};

/// Whether parameter `p` is one the peer binder fills or checks.
bool isPeerParam(const KernelParamInfo &p);

/// Values of the hidden peer parameters that need no tensor map ($peers,
/// sem$peers, sem$epoch, sem$count, $rank, $world), by parameter index (nullopt
/// for the others), each checked against the argument it comes from; fills
/// `launch` (the communicator, checked common to every argument, the exit
/// semaphore). Throws tile::Error naming the kernel, argument and rule.
std::vector<std::optional<uint64_t>> peerHiddenValues(const KernelInfo &k, void **args,
                                                      const ArgDesc *descs, size_t count,
                                                      PeerLaunch &launch);

/// Checks argument i for a semaphore parameter: a tile::Semaphores of the
/// declared count; returns the value the kernel receives (its counters' base).
uint64_t semaphoreArgument(const KernelInfo &k, size_t i, const Tensor &t,
                           const std::vector<std::optional<uint64_t>> &hidden);
/// Checks argument i for a `symmetric tensor` parameter (a symmetricTensor of
/// this rank's part, dense row-major) and records its extents in `launch`.
void checkSymmetricArgument(const KernelInfo &k, size_t i, const Tensor &t, PeerLaunch &launch);
/// The device address of the per-peer map array of parameter `param` whose own
/// map is `own` (encoded and uploaded on first use, then cached).
uint64_t peerMapArray(const KernelInfo &k, size_t param, const Tensor &t, const TensorMapDesc &own);

/// After the launch was made: advances the exit semaphore's epoch.
void commitPeerLaunch(const PeerLaunch &launch);

/// The values every rank must launch alike, beyond the configuration (the
/// symmetric tensors' extents), as checkUniform takes them.
std::vector<uint64_t> uniformExtents(const PeerLaunch &launch);

} // namespace tile::detail
