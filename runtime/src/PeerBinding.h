//===- PeerBinding.h - what a symmetric argument carries (internal) -*- C++ -*-===//
//
// A tile::Tensor made by SymmetricBuffer::symmetricTensor or by a
// tile::Semaphores carries a PeerBinding: what the launch binder needs to fill
// the hidden parameters of a `symmetric tensor` or `semaphore[S]` parameter
// (every rank's address of the allocation, its device table, the per-peer
// tensor maps, the semaphore epoch) and the communicator's rank, size and
// uniform-launch check. The binder (TensorArgs.cpp, PeerArgs.cpp) is built with
// or without NCCL, so the communicator is reached through callbacks here, not
// through tile::Communicator.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tile/launch.h"
#include "tile/tensor_map.h"

namespace tile::detail {

struct ContextState;

/// Per-peer tensor map arrays of one symmetric allocation, in device memory on
/// the rank's device: one array of size() 128-byte CUtensorMaps per distinct
/// map of the rank's own part (box, swizzle, extents, ...), encoded and uploaded
/// the first time a launch needs it, freed with the allocation.
class PeerMapCache {
public:
  explicit PeerMapCache(std::shared_ptr<ContextState> ctx) : ctx_(std::move(ctx)) {}
  ~PeerMapCache();
  PeerMapCache(const PeerMapCache &) = delete;
  PeerMapCache &operator=(const PeerMapCache &) = delete;
  /// The device array whose entry r is `own` re-addressed to peers[r]'s part
  /// (same offset into the part as `own` has into this rank's part).
  CUdeviceptr arrayFor(const TensorMapDesc &own, const std::vector<CUdeviceptr> &peers, int rank,
                       const std::string &kernel);
  size_t uploads() const; // arrays made so far (for tests)

private:
  std::shared_ptr<ContextState> ctx_;
  mutable std::mutex mu_;
  std::map<TensorMapDesc, CUdeviceptr> arrays_;
};

/// The host-side state of a tile::Semaphores, shared by its argument tensors.
struct SemaphoreState {
  std::mutex mu;
  uint32_t count = 0; // S: counters [0, S) are the kernel's; [S], [S+1] the exit protocol's
  uint64_t epoch = 0; // launches so far that ran the exit protocol on this array
};

struct PeerBinding {
  enum class Kind { SymmetricTensor, Semaphores } kind = Kind::SymmetricTensor;
  // The communicator: its state's address names it (arguments of one launch
  // must come from one communicator).
  const void *group = nullptr;
  std::shared_ptr<const void> keepGroup; // keeps that state alive
  int rank = 0, world = 1;
  int device = 0; // the rank's CUDA ordinal
  std::function<void(const std::string &kernel, const LaunchConfig &cfg)> checkUniformLaunch;
  std::function<void(const std::string &what, const std::vector<uint64_t> &values)> checkUniform;
  std::vector<CUdeviceptr> peers;             // every rank's part, by rank
  CUdeviceptr peerTable = 0;                  // the same in device memory (u64 by rank)
  size_t bytes = 0;                           // of every rank's part
  std::shared_ptr<PeerMapCache> maps;         // SymmetricTensor
  std::shared_ptr<SemaphoreState> semaphores; // Semaphores
};

/// The binding of `t` (null for a plain tensor).
inline const PeerBinding *peerBindingOf(const Tensor &t) { return t.peerBinding().get(); }

} // namespace tile::detail
