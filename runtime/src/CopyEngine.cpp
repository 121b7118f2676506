//===- CopyEngine.cpp - copy-engine pulls and stream-ordered flags --------===//
//
// Collectives decoupled from the SMs (the copy-engine rings of
// samples/ring_gemm and samples/ring_gemm_rs, docs/multi-gpu.md): a side
// stream pulls a peer's part of a symmetric buffer or pushes into it
// (cuMemcpyAsync through the peer's address), sets a counter of a
// `semaphore[S]` array that a running kernel waits on (cuStreamWriteValue32,
// this rank's or a peer's) and waits for one a kernel signals
// (cuStreamWaitValue32). Every CUDA error is a DistributedError naming the
// call and the rank.
//===----------------------------------------------------------------------===//
#include "DistributedState.h"

namespace tile {

namespace {
// `rank` a peer of `c` (not itself), [offset, offset + bytes) inside `size`.
void checkPeerCopy(const Communicator &c, const std::string &call, int rank, size_t offset,
                   size_t bytes, size_t size) {
  if (rank < 0 || rank >= c.size())
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "rank " + std::to_string(rank) + " is not in the communicator of " +
                               std::to_string(c.size()) + " ranks");
  if (rank == c.rank())
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "a copy between this rank and itself (the source and the destination "
                           "are the same bytes)");
  if (offset > size || bytes > size - offset)
    detail::throwRankError(
        call, CUDA_ERROR_INVALID_VALUE, c.rank(),
        "bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
            ") are not inside the symmetric buffer of " + std::to_string(size) + " bytes");
}

void copyAsync(const Communicator &c, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
               CUstream stream) {
  detail::withRank(c.rank(), [&] {
    detail::ScopedContext current(c.context().state().get());
    TILE_CU(cuMemcpyAsync, dst, src, bytes, stream);
  });
}

} // namespace

namespace detail {
void checkCounterIndex(const Communicator &c, const char *call, uint32_t index, uint32_t count) {
  if (index >= count)
    throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                   "counter " + std::to_string(index) + " of a semaphore array of " +
                       std::to_string(count) + " (counters [S] and [S+1] are the exit protocol's)");
}

void streamWriteValue(const Communicator &c, CUdeviceptr addr, uint32_t value, CUstream stream) {
  withRank(c.rank(), [&] {
    ScopedContext current(c.context().state().get());
    // Default flags: a memory fence before the write (the copies queued
    // before it on `stream` are visible before the value is).
    TILE_CU(cuStreamWriteValue32, stream, addr, value, CU_STREAM_WRITE_VALUE_DEFAULT);
  });
}

void streamWaitValue(const Communicator &c, CUdeviceptr addr, uint32_t value, CUstream stream) {
  withRank(c.rank(), [&] {
    ScopedContext current(c.context().state().get());
    TILE_CU(cuStreamWaitValue32, stream, addr, value, CU_STREAM_WAIT_VALUE_GEQ);
  });
}
} // namespace detail

void SymmetricAllocation::pullAsync(int rank, size_t offset, size_t bytes, CUstream stream) const {
  const Communicator &c = communicator();
  checkPeerCopy(c, "SymmetricBuffer::pullAsync", rank, offset, bytes, this->bytes());
  copyAsync(c, ptr() + offset, peerPtr(rank) + offset, bytes, stream);
}

void SymmetricAllocation::pushAsync(int rank, size_t offset, size_t bytes, CUstream stream) const {
  const Communicator &c = communicator();
  checkPeerCopy(c, "SymmetricBuffer::pushAsync", rank, offset, bytes, this->bytes());
  copyAsync(c, peerPtr(rank) + offset, ptr() + offset, bytes, stream);
}

} // namespace tile
