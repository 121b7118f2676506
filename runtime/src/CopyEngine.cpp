//===- CopyEngine.cpp - copy-engine pulls and stream-ordered flags --------===//
//
// Collectives decoupled from the SMs (the copy-engine rings of
// samples/ring_gemm and samples/ring_gemm_rs, docs/multi-gpu.md): a side
// stream pulls a peer's part of a symmetric buffer or pushes into it
// (cuMemcpyAsync through the peer's address; cuMemcpy2DAsync for a column
// range of rows), sets a counter of a
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

// A strided copy (cuMemcpy2DAsync): `rows` rows of `rowBytes`, `pitch` apart
// on both sides.
void copyRowsAsync(const Communicator &c, CUdeviceptr dst, CUdeviceptr src, size_t rowBytes,
                   size_t rows, size_t pitch, CUstream stream) {
  CUDA_MEMCPY2D m{};
  m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  m.srcDevice = src;
  m.srcPitch = pitch;
  m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.dstDevice = dst;
  m.dstPitch = pitch;
  m.WidthInBytes = rowBytes;
  m.Height = rows;
  detail::withRank(c.rank(), [&] {
    detail::ScopedContext current(c.context().state().get());
    TILE_CU(cuMemcpy2DAsync, &m, stream);
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

void SymmetricAllocation::pushRowsAsync(int rank, size_t offset, size_t rowBytes, size_t rows,
                                        size_t pitch, CUstream stream) const {
  const Communicator &c = communicator();
  const char *call = "SymmetricBuffer::pushRowsAsync";
  if (rowBytes > pitch)
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           "rows of " + std::to_string(rowBytes) + " bytes overlap at a pitch of " +
                               std::to_string(pitch) + " bytes");
  const size_t size = this->bytes();
  if (rows == 0 || rowBytes == 0) { // nothing to copy; the rank and the start still checked
    checkPeerCopy(c, call, rank, offset, 0, size);
    return;
  }
  // The last row's end, checked without overflow: offset + (rows - 1) * pitch + rowBytes.
  if (offset > size || rows - 1 > (size - offset) / pitch)
    detail::throwRankError(call, CUDA_ERROR_INVALID_VALUE, c.rank(),
                           std::to_string(rows) + " rows " + std::to_string(pitch) +
                               " bytes apart from byte " + std::to_string(offset) +
                               " are not inside the symmetric buffer of " + std::to_string(size) +
                               " bytes");
  checkPeerCopy(c, call, rank, offset + (rows - 1) * pitch, rowBytes, size);
  copyRowsAsync(c, peerPtr(rank) + offset, ptr() + offset, rowBytes, rows, pitch, stream);
}

} // namespace tile
