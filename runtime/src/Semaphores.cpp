//===- Semaphores.cpp - semaphore arrays in symmetric memory --------------===//
//
// A `semaphore[S]` parameter is S u64 counters in symmetric memory that
// peers signal (red.release.sys) and this rank waits on (ld.acquire.sys). The
// compiler's exit protocol (docs/lowering.md, "Multi-GPU") uses two more
// counters: [S] counts the CTAs that reached the kernel's end, [S+1] the
// peers' exit signals, which count up across launches; the last CTA resets
// [0, S] and waits for [S+1] >= epoch * (world - 1). The epoch is the host's:
// the number of launches that ran the protocol on this array, passed to the
// kernel as `sem$epoch` (this file keeps it; PeerArgs.cpp passes and advances it).
//===----------------------------------------------------------------------===//
#include <limits>

#include "DistributedState.h"

namespace tile {
namespace detail {

struct SemaphoresImpl {
  SymmetricBuffer<uint64_t> counters;
  std::shared_ptr<SemaphoreState> state = std::make_shared<SemaphoreState>();
  std::shared_ptr<const PeerBinding> binding; // made by argument(), on first use
  SemaphoresImpl(const Communicator &comm, size_t n) : counters(comm, n) {}
};

namespace {
size_t countersFor(const Communicator &comm, uint32_t count) {
  // sem$count is an i32 in the kernel, and [S + 1] must be addressable.
  if (count == 0 || count > uint32_t(std::numeric_limits<int32_t>::max()) - 2)
    throwRankError("Semaphores", CUDA_ERROR_INVALID_VALUE, comm.rank(),
                   "a semaphore array of " + std::to_string(count) +
                       " counters (1 to 2^31 - 3: the kernel receives the count as an i32)");
  return size_t(count) + 2;
}
} // namespace
} // namespace detail

Semaphores::Semaphores(const Communicator &comm, uint32_t count)
    : s_(std::make_unique<detail::SemaphoresImpl>(comm, detail::countersFor(comm, count))) {
  s_->state->count = count;
  // ncclMemAlloc memory is not zeroed. Every rank's zeroing must be complete
  // before any peer's kernel signals into it: the barrier (a collective in
  // NCCL mode; in-process it synchronizes every device of the group).
  s_->counters.fillBytes(0);
  comm.barrier();
}

Semaphores::~Semaphores() = default;
Semaphores::Semaphores(Semaphores &&) noexcept = default;
Semaphores &Semaphores::operator=(Semaphores &&) noexcept = default;

uint32_t Semaphores::count() const { return s_->state->count; }
uint64_t Semaphores::epoch() const {
  std::lock_guard<std::mutex> lock(s_->state->mu);
  return s_->state->epoch;
}
CUdeviceptr Semaphores::ptr() const { return s_->counters.ptr(); }
CUdeviceptr Semaphores::peerTable() const { return s_->counters.peerTable(); }
const Communicator &Semaphores::communicator() const { return s_->counters.communicator(); }
std::vector<uint64_t> Semaphores::toHost() const { return s_->counters.toHost(); }

Tensor Semaphores::argument() const {
  if (!s_->binding) { // in-process: once every rank allocated its array
    auto b =
        detail::newPeerBinding(s_->counters.allocation(), detail::PeerBinding::Kind::Semaphores);
    b->semaphores = s_->state;
    s_->binding = std::move(b);
  }
  Tensor t(s_->counters.ptr(), TensorElement::U64, {int64_t(s_->counters.size())});
  return detail::withPeerBinding(std::move(t), s_->binding);
}

// Stream-ordered counters for producers and consumers that are not kernels
// (a copy engine's transfers: CopyEngine.cpp).
void Semaphores::setAsync(uint32_t index, uint32_t value, CUstream stream) const {
  detail::checkCounterIndex(communicator(), "Semaphores::setAsync", index, count());
  detail::streamWriteValue(communicator(), ptr() + CUdeviceptr(index) * 8, value, stream);
}

void Semaphores::setPeerAsync(int rank, uint32_t index, uint32_t value, CUstream stream) const {
  const Communicator &c = communicator();
  detail::checkCounterIndex(c, "Semaphores::setPeerAsync", index, count());
  if (rank < 0 || rank >= c.size())
    detail::throwRankError("Semaphores::setPeerAsync", CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "rank " + std::to_string(rank) + " is not in the communicator of " +
                               std::to_string(c.size()) + " ranks");
  detail::streamWriteValue(c, s_->counters.peerPtr(rank) + CUdeviceptr(index) * 8, value, stream);
}

void Semaphores::waitAsync(uint32_t index, uint32_t value, CUstream stream) const {
  const Communicator &c = communicator();
  detail::checkCounterIndex(c, "Semaphores::waitAsync", index, count());
  detail::streamWaitValue(c, ptr() + CUdeviceptr(index) * 8, value, stream);
}

} // namespace tile
