//===- CopyEngine.cpp - copy-engine pulls and stream-ordered flags --------===//
//
// Collectives decoupled from the SMs (the copy-engine all-gather of
// samples/ring_gemm, docs/multi-gpu.md): a side stream pulls a peer's part of
// a symmetric buffer (cuMemcpyAsync through the peer's address) and then sets
// a counter of a `semaphore[S]` array (cuStreamWriteValue32) that a running
// kernel waits on. Every CUDA error is a DistributedError naming the call and
// the rank.
//===----------------------------------------------------------------------===//
#include "DistributedState.h"

namespace tile {

void SymmetricAllocation::pullAsync(int rank, size_t offset, size_t bytes, CUstream stream) const {
  const Communicator &c = communicator();
  const std::string call = "SymmetricBuffer::pullAsync";
  if (rank < 0 || rank >= c.size())
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "rank " + std::to_string(rank) + " is not in the communicator of " +
                               std::to_string(c.size()) + " ranks");
  if (rank == c.rank())
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "a pull from this rank itself (the source and the destination are "
                           "the same bytes)");
  if (offset > this->bytes() || bytes > this->bytes() - offset)
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "bytes [" + std::to_string(offset) + ", " +
                               std::to_string(offset + bytes) +
                               ") are not inside the symmetric buffer of " +
                               std::to_string(this->bytes()) + " bytes");
  const CUdeviceptr src = peerPtr(rank) + offset;
  detail::withRank(c.rank(), [&] {
    detail::ScopedContext current(c.context().state().get());
    TILE_CU(cuMemcpyAsync, ptr() + offset, src, bytes, stream);
  });
}

void Semaphores::setAsync(uint32_t index, uint32_t value, CUstream stream) const {
  const Communicator &c = communicator();
  if (index >= count())
    detail::throwRankError("Semaphores::setAsync", CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "counter " + std::to_string(index) + " of a semaphore array of " +
                               std::to_string(count()) +
                               " (counters [S] and [S+1] are the exit protocol's)");
  detail::withRank(c.rank(), [&] {
    detail::ScopedContext current(c.context().state().get());
    // Default flags: a memory fence before the write (the copies queued
    // before it on `stream` are visible before the value is).
    TILE_CU(cuStreamWriteValue32, stream, ptr() + CUdeviceptr(index) * 8, value,
            CU_STREAM_WRITE_VALUE_DEFAULT);
  });
}

} // namespace tile
