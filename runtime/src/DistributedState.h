//===- DistributedState.h - states behind Communicator and buffers -*- C++ -*-===//
//
// Internal. A SymmetricState keeps its CommState alive (a communicator is
// destroyed after its buffers); in-process ranks share a GroupState that
// records every rank's allocations and uniformity checks, so that rank r's
// k-th allocation finds rank p's k-th as its peer.
//===----------------------------------------------------------------------===//
#pragma once

#include <nccl.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "PeerBinding.h"
#include "RuntimeState.h"
#include "tile/distributed.h"

namespace tile::detail {

struct GroupAlloc {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  bool alive = false;
};

struct GroupState {
  std::mutex mu;
  int size = 0;
  std::vector<int> devices;
  std::vector<std::weak_ptr<ContextState>> contexts; // by rank
  std::vector<std::vector<GroupAlloc>> allocs;       // [rank][k]
  // [rank][k]: the k-th checkUniform of each rank (what, values)
  std::vector<std::vector<std::pair<std::string, std::vector<uint64_t>>>> uniform;
};

struct CommState {
  CommMode mode = CommMode::Nccl;
  int rank = 0, size = 1, device = 0;
  std::optional<Context> ctx;
  ncclComm_t comm = nullptr;
  std::shared_ptr<GroupState> group; // in-process mode
  int allocations = 0;               // SymmetricAllocations made (their sequence number)
  // The ncclGetLsaPointer helper, loaded on first use (NCCL mode).
  Module helper;
  Kernel lsaKernel;
  ~CommState();
};

struct SymmetricState {
  Communicator comm;
  size_t bytes = 0;
  int index = 0; // k: the k-th allocation of this rank
  CUdeviceptr ptr = 0;
  ncclWindow_t window = nullptr;
  std::vector<CUdeviceptr> peers; // by rank (resolved lazily in-process)
  std::optional<DeviceBuffer<uint64_t>> table;
  std::shared_ptr<const PeerBinding> binding; // made by peerBinding()
  explicit SymmetricState(Communicator c) : comm(std::move(c)) {}
  ~SymmetricState();
};

// A binding of allocation `a` (every rank's address, the table, the
// communicator's checks) of `kind`, without maps or semaphore state.
std::shared_ptr<PeerBinding> newPeerBinding(const SymmetricAllocation &a, PeerBinding::Kind kind);

// A DistributedError from `message`, naming the rank; call() is `call`.
[[noreturn]] void throwRankError(const std::string &call, int code, int rank,
                                 const std::string &message);
// Stream-ordered counter operations (CopyEngine.cpp): the index check (not the
// exit protocol's counters), cuStreamWriteValue32 with its default fence, and
// cuStreamWaitValue32 (>=), each a DistributedError naming the call and rank.
void checkCounterIndex(const Communicator &c, const char *call, uint32_t index, uint32_t count);
void streamWriteValue(const Communicator &c, CUdeviceptr addr, uint32_t value, CUstream stream);
void streamWaitValue(const Communicator &c, CUdeviceptr addr, uint32_t value, CUstream stream);

// Runs f; a tile::Error it throws (a CUDA call's) comes back as a
// DistributedError naming the rank.
template <class F> auto withRank(int rank, F &&f) -> decltype(f()) {
  try {
    return f();
  } catch (const DistributedError &) {
    throw;
  } catch (const Error &e) {
    throw DistributedError(
        Error::withMessage(e.call(), e.code(), e.kernel(),
                           std::string(e.what()) + " [rank " + std::to_string(rank) + "]"),
        rank);
  }
}

} // namespace tile::detail
