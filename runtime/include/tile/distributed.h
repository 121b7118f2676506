//===- distributed.h - communicators and symmetric buffers ------*- C++ -*-===//
//
// Multi-GPU on one NVLink host, on NCCL (docs/runtime-multi-gpu.md):
//
//  * one process per GPU (how PyTorch and JAX users run): a Communicator from the
//    environment `tilec-run -n N ./prog` (or torchrun-style variables) hands out;
//    NCCL's ncclCommInitRank underneath. libnccl.so.2 is dlopen'ed at first use,
//    like the driver, so nothing links against NCCL.
//  * one process, several GPUs (tests, single-process users): Communicator::local
//    gives one Communicator per device, with CUDA peer access between them.
//
// A SymmetricBuffer<T> is a collective allocation: every rank allocates the same
// size (ncclMemAlloc + ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)), and every
// rank gets every peer's device address of it (through NCCL's public device API,
// ncclGetLsaPointer), usable from kernels as a plain global pointer.
//
// Every failure is a tile::DistributedError (a tile::Error) naming the call, the
// error and the rank.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tile/runtime.h"

namespace tile {

/// A failure of the distributed layer. what() ends with "[rank R]" (R the
/// failing process's rank) for CUDA and NCCL errors; checks across ranks name
/// the ranks involved in the message.
class DistributedError : public Error {
public:
  DistributedError(const Error &e, int rank, int ncclResult = 0);
  int rank() const { return rank_; }             // the rank that detected it (-1: none yet)
  int ncclResult() const { return ncclResult_; } // the ncclResult_t, 0 when not from NCCL

private:
  int rank_;
  int ncclResult_;
};

// ------------------------------------------------------------------ bootstrap

/// What a rank learns from its environment. Variables (first found wins):
///   rank:       TILEC_RANK, RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID
///   world size: TILEC_WORLD_SIZE, WORLD_SIZE, OMPI_COMM_WORLD_SIZE, SLURM_NTASKS
///   local rank: TILEC_LOCAL_RANK, LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
///               SLURM_LOCALID; default: the rank
///   device:     TILEC_DEVICE; default: the local rank
///   unique id:  TILEC_NCCL_UNIQUE_ID (256 hex digits, what tilec-run passes), or
///               TILEC_NCCL_ID_FILE (rank 0 writes a fresh id there; the others
///               wait for it up to TILEC_BOOTSTRAP_TIMEOUT seconds, default 120).
struct Bootstrap {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  int device = 0;
  std::string uniqueIdHex; // 256 hex digits, or ""
  std::string idFile;      // or a file path, or ""
  double timeoutSeconds = 120;
};

using EnvLookup = std::function<const char *(const char *)>;
/// Parses the variables above (getenv by default). Throws tile::Error
/// ("Bootstrap") naming the variable for a missing, malformed or inconsistent
/// value (rank >= world size, neither id variable set, ...).
Bootstrap bootstrapFromEnvironment(const EnvLookup &lookup = {});

/// ncclUniqueId bytes <-> hex (lower case, 2 digits a byte). fromHex throws on a
/// wrong length or a non-hex digit.
std::string uniqueIdToHex(const std::vector<unsigned char> &bytes);
std::vector<unsigned char> uniqueIdFromHex(const std::string &hex);
/// ncclGetUniqueId through the NCCL table (the launcher and rank 0 call it).
std::vector<unsigned char> newNcclUniqueId();

/// tilec-run's command line: `tilec-run -n N [--] prog args...`.
struct LauncherOptions {
  int nprocs = 0;
  std::vector<std::string> command; // program and its arguments
  bool help = false;
};
/// Throws std::invalid_argument with a usage hint on a bad command line.
LauncherOptions parseLauncherArgs(const std::vector<std::string> &args);
/// The variables tilec-run sets for `rank` (on top of the inherited environment):
/// RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, TILEC_NCCL_UNIQUE_ID and
/// NCCL_NVLS_ENABLE=0 (NVLink multicast stays off on shared hosts); an empty
/// value means "unset" (TILEC_RANK, TILEC_WORLD_SIZE, TILEC_LOCAL_RANK,
/// TILEC_DEVICE, TILEC_NCCL_ID_FILE, which would take precedence).
std::vector<std::pair<std::string, std::string>>
launcherEnvironment(const LauncherOptions &opts, int rank, const std::string &uniqueIdHex);

// --------------------------------------------------------------- communicator

namespace detail {
struct CommState;
struct GroupState;
struct SymmetricState;
} // namespace detail

enum class CommMode { Nccl, InProcess };

/// One rank of a group of GPUs that share symmetric buffers. Copies share one state.
class Communicator {
public:
  /// NCCL mode: bootstrapFromEnvironment(), then the device's primary context and
  /// ncclCommInitRank. Sets NCCL_NVLS_ENABLE=0 (NVLink multicast off; opt out
  /// with TILEC_ALLOW_NVLS=1). A CUDA or NCCL failure names the call and the rank.
  static Communicator fromEnvironment();
  static Communicator fromBootstrap(const Bootstrap &b);
  /// In-process mode: one Communicator per device (ranks 0..n-1 in the order
  /// given), peer access enabled between every pair (cuCtxEnablePeerAccess). A
  /// pair without peer access (cuDeviceCanAccessPeer = 0) is an error naming both
  /// ranks.
  static std::vector<Communicator> local(const std::vector<int> &devices);

  int rank() const;
  int size() const;
  int device() const; // CUDA ordinal
  CommMode mode() const;
  Context &context() const; // the device's primary context
  void *ncclComm() const;   // the ncclComm_t (NCCL mode), nullptr otherwise

  /// Every rank's earlier work on its device is complete when this returns.
  /// NCCL mode: a collective (an all-gather after synchronizing this device);
  /// in-process mode: synchronizes every device of the group.
  void barrier() const;

  /// Checks that every rank passes the same values (a collective in NCCL mode:
  /// an ncclAllGather; in-process mode compares with the ranks that got there
  /// first). A difference throws naming `what`, both ranks and both values.
  void checkUniform(const std::string &what, const std::vector<uint64_t> &values) const;
  /// checkUniform of a launch's grid, block, cluster and dynamic shared memory:
  /// kernels that spin on peers need every rank launched alike.
  void checkUniformLaunch(const std::string &kernel, const LaunchConfig &cfg) const;

  const std::shared_ptr<detail::CommState> &state() const { return state_; }

private:
  explicit Communicator(std::shared_ptr<detail::CommState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::CommState> state_;
};

// ----------------------------------------------------------- symmetric memory

/// Untyped symmetric allocation (SymmetricBuffer<T> is the typed face).
class SymmetricAllocation {
public:
  /// Collective: every rank of the communicator allocates `bytes` (checked equal
  /// across ranks). NCCL mode: ncclMemAlloc + ncclCommWindowRegister(
  /// NCCL_WIN_COLL_SYMMETRIC), peers' addresses via ncclGetLsaPointer; a null
  /// window or a peer outside NCCL's load/store team is an error naming the rank.
  /// In-process mode: cuMemAlloc on each device; the k-th allocation of every rank
  /// pair up (peer addresses resolved on first use).
  SymmetricAllocation(const Communicator &comm, size_t bytes);
  ~SymmetricAllocation();
  SymmetricAllocation(SymmetricAllocation &&) noexcept;
  SymmetricAllocation &operator=(SymmetricAllocation &&) noexcept;
  SymmetricAllocation(const SymmetricAllocation &) = delete;
  SymmetricAllocation &operator=(const SymmetricAllocation &) = delete;

  size_t bytes() const;
  CUdeviceptr ptr() const;                   // this rank's part
  CUdeviceptr peerPtr(int rank) const;       // `rank`'s part as this device addresses it
  std::vector<CUdeviceptr> peerPtrs() const; // every rank's, indexed by rank
  /// The peer-pointer table on this device (size() entries of 8 bytes), for
  /// kernels that take one pointer and index it by rank.
  CUdeviceptr peerTable() const;
  void *window() const; // the ncclWindow_t (NCCL mode), nullptr otherwise
  const Communicator &communicator() const;
  /// A copy-engine pull, queued on `stream` (a stream of this rank's device):
  /// bytes [offset, offset + bytes) of `rank`'s part into the same bytes of
  /// this rank's part (cuMemcpyAsync through the peer's address: no SM takes
  /// part). The copy is complete, in stream order, before the stream's next
  /// operation: a Semaphores::setAsync after it publishes it to a kernel.
  /// `rank` must be a peer (not this rank) and the range inside the buffer.
  void pullAsync(int rank, size_t offset, size_t bytes, CUstream stream) const;
  /// The other direction: bytes [offset, offset + bytes) of this rank's part
  /// into the same bytes of `rank`'s part (a copy engine of this device
  /// writes through the peer's address).
  void pushAsync(int rank, size_t offset, size_t bytes, CUstream stream) const;
  /// A strided push: `rows` rows of `rowBytes` bytes, `pitch` bytes apart,
  /// the first at `offset`, of this rank's part into the same bytes of
  /// `rank`'s part (one cuMemcpy2DAsync: a column range of a row-major
  /// matrix, e.g. the part of a block of running sums that is complete).
  /// rowBytes <= pitch; every row inside the buffer.
  void pushRowsAsync(int rank, size_t offset, size_t rowBytes, size_t rows, size_t pitch,
                     CUstream stream) const;
  /// Every rank's address, the peer table and the per-peer tensor-map cache, as
  /// a symmetric tensor argument carries them (made on first use: in-process,
  /// after every rank allocated).
  std::shared_ptr<const detail::PeerBinding> peerBinding() const;

private:
  std::unique_ptr<detail::SymmetricState> s_;
};

namespace detail {
Tensor symmetricTensorChecked(const SymmetricAllocation &a, TensorElement element,
                              TensorShape extents, size_t bufferElementBytes);
Tensor peerTensorChecked(const SymmetricAllocation &a, int rank, TensorElement element,
                         TensorShape extents, TensorShape strides);
void symmetricCopyHtoD(const SymmetricAllocation &a, const void *src, size_t bytes);
void symmetricCopyDtoH(const SymmetricAllocation &a, void *dst, size_t bytes);
void symmetricMemset(const SymmetricAllocation &a, unsigned char value);
} // namespace detail

template <class T> class SymmetricBuffer {
public:
  SymmetricBuffer(const Communicator &comm, size_t count)
      : count_(count), alloc_(comm, checkedBytes(count)) {}
  size_t size() const { return count_; }
  size_t bytes() const { return alloc_.bytes(); }
  CUdeviceptr ptr() const { return alloc_.ptr(); }
  CUdeviceptr peerPtr(int rank) const { return alloc_.peerPtr(rank); }
  std::vector<CUdeviceptr> peerPtrs() const { return alloc_.peerPtrs(); }
  CUdeviceptr peerTable() const { return alloc_.peerTable(); }
  void *window() const { return alloc_.window(); }
  const Communicator &communicator() const { return alloc_.communicator(); }
  const SymmetricAllocation &allocation() const { return alloc_; }
  /// Elements [first, first + count) of `rank`'s part into the same elements
  /// of this rank's part, by a copy engine on `stream` (SymmetricAllocation::
  /// pullAsync).
  void pullAsync(int rank, size_t first, size_t count, CUstream stream) const {
    if (first > count_ || count > count_ - first)
      detail::throwBufferOverflow("SymmetricBuffer::pullAsync", first + count, count_);
    alloc_.pullAsync(rank, first * sizeof(T), count * sizeof(T), stream);
  }
  /// Elements [first, first + count) of this rank's part into the same
  /// elements of `rank`'s part (SymmetricAllocation::pushAsync).
  void pushAsync(int rank, size_t first, size_t count, CUstream stream) const {
    if (first > count_ || count > count_ - first)
      detail::throwBufferOverflow("SymmetricBuffer::pushAsync", first + count, count_);
    alloc_.pushAsync(rank, first * sizeof(T), count * sizeof(T), stream);
  }
  /// Elements [first + i * pitch, first + i * pitch + count) for i in
  /// [0, rows) of this rank's part into the same elements of `rank`'s part
  /// (SymmetricAllocation::pushRowsAsync).
  void pushRowsAsync(int rank, size_t first, size_t count, size_t rows, size_t pitch,
                     CUstream stream) const {
    // The ranges are checked in bytes by the allocation (its message names them).
    alloc_.pushRowsAsync(rank, first * sizeof(T), count * sizeof(T), rows, pitch * sizeof(T),
                         stream);
  }

  /// `rank`'s part as a tensor argument (for a kernel's tensor<...> parameter: the
  /// runtime encodes a tensor map of the peer's memory). Extents outermost first;
  /// they must fit in the buffer.
  Tensor peerTensor(int rank, TensorShape extents, TensorShape strides = {}) const {
    return peerTensor(rank, Tensor::elementFor<T>(), std::move(extents), std::move(strides));
  }
  Tensor peerTensor(int rank, TensorElement element, TensorShape extents,
                    TensorShape strides = {}) const {
    return detail::peerTensorChecked(alloc_, rank, element, std::move(extents), std::move(strides));
  }
  Tensor tensor(TensorShape extents, TensorShape strides = {}) const {
    return peerTensor(communicator().rank(), std::move(extents), std::move(strides));
  }
  /// This rank's part as a dense row-major tensor that carries the allocation's
  /// peers: the argument of a kernel's `symmetric tensor<T>[...]` parameter
  /// (the runtime fills its peer table and per-peer tensor maps; every rank
  /// passes the same extents, checked at the first launch). Also binds to a
  /// plain `tensor<T>[...]` parameter (then only this rank's part is used).
  Tensor symmetricTensor(TensorShape extents) const {
    return symmetricTensor(Tensor::elementFor<T>(), std::move(extents));
  }
  /// With an explicit element (f16/bf16 bits in a SymmetricBuffer<uint16_t>),
  /// of sizeof(T) bytes.
  Tensor symmetricTensor(TensorElement element, TensorShape extents) const {
    return detail::symmetricTensorChecked(alloc_, element, std::move(extents), sizeof(T));
  }

  // This rank's part, synchronously (its device's context pushed).
  void copyFrom(const std::vector<T> &host) const {
    if (host.size() > count_)
      detail::throwBufferOverflow("SymmetricBuffer::copyFrom", host.size(), count_);
    detail::symmetricCopyHtoD(alloc_, host.data(), host.size() * sizeof(T));
  }
  std::vector<T> toHost() const {
    std::vector<T> v(count_);
    detail::symmetricCopyDtoH(alloc_, v.data(), v.size() * sizeof(T));
    return v;
  }
  void fillBytes(unsigned char value) const { detail::symmetricMemset(alloc_, value); }

private:
  static size_t checkedBytes(size_t count) {
    if (count > SIZE_MAX / sizeof(T))
      detail::throwAllocationOverflow(count, sizeof(T));
    return count * sizeof(T);
  }

  size_t count_;
  SymmetricAllocation alloc_;
};

// ----------------------------------------------------------------- semaphores

namespace detail {
struct SemaphoresImpl;
}

/// The launch argument of a kernel's `semaphore[S]` parameter: S u64 counters
/// in symmetric memory, plus two the compiler's exit protocol uses ([S]: CTAs
/// arrived at the kernel's end, [S+1]: peers' exit signals, counting up across
/// launches). Collective (every rank, same count); zeroed once here (and every
/// rank's zeroing is complete before the constructor returns: a barrier),
/// after which every launch leaves counters [0, S] at 0 for the next one. The
/// host keeps the epoch, the number of launches that ran the exit protocol on
/// this array; each such launch passes epoch + 1. Launches that bind one
/// Semaphores must be ordered (one stream, or synchronized), and every rank
/// must make the same sequence of them.
class Semaphores {
public:
  Semaphores(const Communicator &comm, uint32_t count);
  ~Semaphores();
  Semaphores(Semaphores &&) noexcept;
  Semaphores &operator=(Semaphores &&) noexcept;

  uint32_t count() const;  // S
  uint64_t epoch() const;  // launches so far that ran the exit protocol on it
  CUdeviceptr ptr() const; // this rank's counters (S + 2 u64)
  CUdeviceptr peerTable() const;
  const Communicator &communicator() const;
  /// This rank's counters, [0, S + 2) (synchronous; for tests and debugging).
  std::vector<uint64_t> toHost() const;
  /// Sets this rank's counter `index` (< count()) to `value` in the order of
  /// `stream` (a stream of this rank's device), for a producer that is not a
  /// kernel: a copy engine's transfer queued before it on the same stream.
  /// cuStreamWriteValue32 on the counter's low 32 bits (the high half is 0:
  /// the exit protocol resets counters [0, S] to 0 at the end of every
  /// launch), with its default flags, which put a memory fence before the
  /// write (__threadfence_system's order, scoped to the stream): the
  /// stream's earlier writes are visible to whoever reads the value, and a
  /// kernel's `wait(sem[index], v)` (ld.acquire.sys, then
  /// fence.proxy.async.global) lets its TMA loads see them. The launch that
  /// waits on it must already run, or be queued, when the value lands after
  /// the previous launch's exit protocol: queue it behind the previous
  /// launch (e.g. an event recorded before the kernel's launch).
  void setAsync(uint32_t index, uint32_t value, CUstream stream) const;
  /// The same on `rank`'s counter `index`, through the peer's address: the
  /// flag a copy engine's push into that rank publishes.
  void setPeerAsync(int rank, uint32_t index, uint32_t value, CUstream stream) const;
  /// Holds `stream` until this rank's counter `index` (< count()) reaches
  /// `value` (cuStreamWaitValue32, CU_STREAM_WAIT_VALUE_GEQ on the low 32
  /// bits): what the stream does next (a copy of data a kernel published with
  /// `signal(sem[index], n)`, a release after its stores completed) follows
  /// the kernel's writes. The value must be reached within the launch that
  /// signals it, before its exit protocol resets the counter: the kernel
  /// must wait, before it ends, for something the stream does after this
  /// wait (e.g. a setAsync the kernel waits for).
  void waitAsync(uint32_t index, uint32_t value, CUstream stream) const;
  /// What Kernel::launch passes for it (a tile::Tensor of the S + 2 counters
  /// carrying the array's peers and epoch); passing the Semaphores does this.
  Tensor argument() const;

private:
  std::unique_ptr<detail::SemaphoresImpl> s_;
};

namespace detail {
// A Semaphores is passed as its argument(): the binder fills the parameter
// (this rank's counters), its peer table, its epoch and its count. Its kind is
// a Tensor's (the binder tells them apart by what the tensor carries), marked
// with elementKind Tensor so that kind errors name it.
template <> struct ArgTraits<Semaphores> {
  using type = Tensor;
  static Tensor convert(const Semaphores &s) { return s.argument(); }
  static constexpr ArgDesc desc() {
    return {ArgDesc::Kind::Tensor, sizeof(CUdeviceptr), ArgDesc::Kind::Tensor, 0};
  }
};
} // namespace detail

} // namespace tile
