//===- SyncAnalysis.h - facts the memory-model passes share -----*- C++ -*-===//
//
// What a kernel reads and writes, classified by who can observe it (global
// memory, this CTA's shared memory that no peer reaches, "peer" shared memory:
// allocations a peer maps with mapa, and every shared::cluster access) and by
// the proxy that performs the access (generic or async). Everything is read
// through the op interfaces of tile/Dialect/TileInterfaces.td: an op joins
// every rule below by implementing MemoryAccessOpInterface and
// MBarrierCompletionOpInterface, never by being named here.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_SYNCANALYSIS_H
#define TILEC_TRANSFORMS_SYNCANALYSIS_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile::sync {

enum MemKind : unsigned { kNone = 0, kGlobal = 1, kLocalSmem = 2, kPeerSmem = 4 };

/// Memory kinds (a MemKind mask) read and written, per proxy.
struct AccessSummary {
  unsigned reads[2] = {kNone, kNone}; // indexed by MemoryProxy
  unsigned writes[2] = {kNone, kNone};
  unsigned readsBy(MemoryProxy proxy) const { return reads[static_cast<unsigned>(proxy)]; }
  unsigned writesBy(MemoryProxy proxy) const { return writes[static_cast<unsigned>(proxy)]; }
};

/// The shared allocation a pointer is derived from (through ptr_add and mapa).
SharedAllocOp rootAlloc(Value ptr);

/// The whole-kernel facts, as an MLIR analysis: passes get it with
/// getAnalysis<SyncAnalysis>() (cached per kernel) and mark it preserved
/// when what they change cannot alter it.
class SyncAnalysis {
public:
  explicit SyncAnalysis(KernelOp kernel);

  /// Who can observe memory addressed by ptr.
  MemKind kindOf(Value ptr) const;
  /// What op (with nested ops) reads and writes, per memory kind and proxy.
  AccessSummary accesses(Operation *op) const;
  /// The same over the whole kernel.
  const AccessSummary &kernelAccesses() const { return kernelAccesses_; }

  /// Whether some op completes (arrives on, or completes transaction bytes
  /// of) the mbarrier `mbar` points into from another CTA.
  bool isPeerCompleted(Value mbar) const;
  bool hasPeerCompletedMBarriers() const { return !peerCompleted_.empty(); }

  /// Whether op (with nested ops) writes memory a peer can read: generic
  /// writes to peer shared memory, or the init of an mbarrier peers complete.
  bool initialisesPeerMemory(Operation *op) const;
  /// Whether op (with nested ops) reads or writes peer shared memory in this
  /// CTA without going through shared::cluster.
  bool touchesOwnPeerMemory(Operation *op) const;
  /// A release is needed when something written generically is read
  /// generically afterwards by another thread: the whole-kernel
  /// approximation of "memory published by the arrive is read after the
  /// wait". Async-proxy writes (st.async) are published by their mbarrier's
  /// complete-tx, not by a barrier.
  bool publishesMemory() const {
    return (kernelAccesses_.readsBy(MemoryProxy::generic) &
            kernelAccesses_.writesBy(MemoryProxy::generic)) != kNone;
  }
  /// Whether generic writes that precede `arrive` (an mbarrier or cluster
  /// arrive) in its thread's program order are read by the async proxy (TMA
  /// store, wgmma operand) after a wait that synchronises with it: the
  /// arrive must then release them (the writers' proxy fence before it is
  /// tile-insert-fences's). For an mbarrier arrive, the waits on the same
  /// mbarrier; for a cluster arrive, what follows it (its wait comes next).
  bool releasesToAsyncReads(Operation *arrive) const;
  /// The shared allocations that generic stores write and the async proxy
  /// reads.
  const llvm::DenseSet<Operation *> &asyncReadGenericWritten() const {
    return asyncReadGenericWritten_;
  }
  /// The scope an mbarrier operation needs when the source left it open:
  /// `.cluster` for a peer's mbarrier or one that peers complete, `.cta`
  /// otherwise.
  MemoryScope mbarrierScope(Value mbar) const;

  bool isInvalidated(const AnalysisManager::PreservedAnalyses &preserved) {
    return !preserved.isPreserved<SyncAnalysis>();
  }

private:
  llvm::DenseSet<Operation *> peerAllocs_;    // allocations some CTA reaches through mapa
  llvm::DenseSet<Operation *> peerCompleted_; // mbarrier allocations peers complete
  llvm::DenseSet<Operation *> asyncReadGenericWritten_;
  KernelOp kernel_;
  AccessSummary kernelAccesses_;
};

/// The ops a thread may run before (or after) `at` in program order: the
/// rest of its block and of its ancestors' blocks up to the kernel, and the
/// whole of every enclosing loop (its other iterations). Other roles' code is
/// not the thread's: sibling role ops are skipped.
void forEachOpBefore(Operation *at, llvm::function_ref<void(Operation *)> fn);
void forEachOpAfter(Operation *at, llvm::function_ref<void(Operation *)> fn);

/// Visits the ops before `at` in its thread's program order within one
/// iteration of each enclosing loop, nearest first, until `fn` returns true:
/// the rest of `at`'s block backward, then each ancestor's block backward
/// from that ancestor. Leaving the `after` region (the body) of an
/// scf.while, its `before` region (the condition, which runs before each
/// run of the body) comes first, then the while's earlier siblings. `fn`
/// gets each op and the op the scan started from in that block (`at` or
/// its ancestor; the condition's terminator in a `before` block). Returns
/// whether `fn` stopped the walk. Loop back edges are the caller's.
bool walkOpsBefore(Operation *at, llvm::function_ref<bool(Operation *op, Operation *from)> fn);

/// Whether a thread that runs `a` may also run `b`: b lies before or after a
/// in that thread's program order (forEachOpBefore, forEachOpAfter).
bool mayRunInOneThread(Operation *a, Operation *b);

/// The mbarrier a wait or try_wait waits on; null for any other op.
Value waitedMBarrier(Operation *op);

/// Synchronisation between threads through memory: one thread releases an
/// object (arrives on an mbarrier, writes a flag or counter with release
/// order), another acquires it (waits on the mbarrier, reads the flag with
/// acquire order); what the first wrote before the release is then visible
/// to what the second does after the acquire (PTX ISA "Memory Consistency
/// Model": release and acquire patterns, synchronizes-with). A fence
/// (fence.acq_rel/sc) followed by a strong write is a release pattern, a
/// strong read followed by a fence an acquire pattern: the fence is then
/// the release (acquire) point.
///
/// The object is the root of the operation's pointer, the same for every
/// operation on one mbarrier, flag or counter: a shared allocation or a
/// kernel parameter. Null when the pointer is not traced to one (it may be
/// any object).
Value syncObject(Value ptr);
/// The object op releases (acquires) by itself, or nullopt when it is no
/// release (acquire) operation: an mbarrier arrive (wait, test); a store or
/// read-modify-write with release, acq_rel or sc order (a load or
/// read-modify-write with acquire, acq_rel or sc order).
std::optional<Value> releasedObject(Operation *op);
std::optional<Value> acquiredObject(Operation *op);
/// fn(point, object) for each release (acquire) inside op, nested ops
/// included: release operations and the fences of release patterns (acquire
/// operations and the fences of acquire patterns, with each strong read
/// before the fence).
using SyncPointFn = llvm::function_ref<void(Operation *point, Value object)>;
void forEachReleaseIn(Operation *op, SyncPointFn fn);
void forEachAcquireIn(Operation *op, SyncPointFn fn);
/// The releases after `at` in its thread's program order (forEachOpAfter),
/// and the acquires before it (forEachOpBefore).
void forEachReleaseAfter(Operation *at, SyncPointFn fn);
void forEachAcquireBefore(Operation *at, SyncPointFn fn);

/// The generic writes and async-proxy reads of op (nested ops included),
/// each with the shared allocations it accesses.
bool writesGenerically(Operation *op, const llvm::DenseSet<Operation *> &allocs);
bool readsAsync(Operation *op, const llvm::DenseSet<Operation *> &allocs);
/// Whether a thread writes one of `allocs` generically before `at`
/// (forEachOpBefore).
bool writtenBefore(Operation *at, const llvm::DenseSet<Operation *> &allocs);

/// op accesses a peer CTA's shared memory: a memory access through a
/// shared::cluster pointer, or the completion of a peer's mbarrier.
bool isRemoteAccess(Operation *op);
bool containsRemoteAccess(Operation *op);
/// The first remote access inside op (op itself when it is one), for locations.
Operation *firstRemoteAccess(Operation *op);
/// After this op, every CTA of the cluster has arrived: cluster_sync or cluster_wait.
bool isClusterBarrier(Operation *op);
/// op (with nested ops) only computes: no memory beyond thread-local slots, no
/// synchronisation. Barriers may move across such ops.
bool isPureCompute(Operation *op);

// Over which threads a value or a control-flow decision is the same: the
// uniformity analysis, Uniformity.h.

/// The discardable attributes of the tile dialect (TileBase.td).
/// `tile.sync`: why a pass inserted or changed op (tilec --explain-sync).
void setReason(Operation *op, llvm::StringRef reason);
StringAttr getReason(Operation *op);
/// `tile.auto`: a cluster arrive the compiler inserted (its order is the
/// compiler's to choose).
void markCompilerInserted(Operation *op);
bool isCompilerInserted(Operation *op);
void clearCompilerInserted(Operation *op);

} // namespace mlir::tile::sync

#endif
