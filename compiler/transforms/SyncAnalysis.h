//===- SyncAnalysis.h - facts the memory-model passes share -----*- C++ -*-===//
//
// What a kernel reads and writes, classified by who can observe it: global
// memory, this CTA's shared memory that no peer reaches, and "peer" shared
// memory (allocations a peer maps with mapa, and every shared::cluster access).
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_SYNCANALYSIS_H
#define TILEC_TRANSFORMS_SYNCANALYSIS_H

#include "tile/Dialect/TileDialect.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile::sync {

/// Attribute naming why a pass inserted or changed an op (tilec --explain-sync).
constexpr llvm::StringLiteral kReasonAttr = "tile.sync";
/// Marks a cluster arrive whose semantics the compiler chooses.
constexpr llvm::StringLiteral kAutoAttr = "tile.auto";

enum MemKind : unsigned { kNone = 0, kGlobal = 1, kLocalSmem = 2, kPeerSmem = 4 };

/// The shared allocation a pointer is derived from (through ptr_add and mapa).
SharedAllocOp rootAlloc(Value ptr);

struct KernelFacts {
  llvm::DenseSet<Operation *> peerAllocs;       // allocations some CTA reaches through mapa
  llvm::DenseSet<Operation *> remoteMBarriers;  // mbarrier allocations peers/st.async complete
  unsigned genericReads = kNone, genericWrites = kNone; // over the whole kernel

  explicit KernelFacts(KernelOp kernel);
  MemKind kindOf(Value ptr) const;
  /// Kinds op (with nested ops) reads and writes with generic-proxy accesses.
  void genericAccesses(Operation *op, unsigned &reads, unsigned &writes) const;
  /// Whether op (with nested ops) writes memory a peer can read: generic
  /// writes to peer shared memory, or the init of an mbarrier peers complete.
  bool initialisesPeerMemory(Operation *op) const;
  /// Whether op (with nested ops) reads or writes peer shared memory in this
  /// CTA without going through shared::cluster.
  bool touchesOwnPeerMemory(Operation *op) const;
  /// A release is needed when something written generically is read
  /// generically afterwards by another thread: the whole-kernel
  /// approximation of "memory published by the arrive is read after the wait".
  bool publishesMemory() const { return (genericReads & genericWrites) != kNone; }
};

/// op accesses a peer CTA's shared memory (any shared::cluster address).
bool isRemoteAccess(Operation *op);
bool containsRemoteAccess(Operation *op);
/// The first remote access inside op (op itself when it is one), for locations.
Operation *firstRemoteAccess(Operation *op);
/// After this op, every CTA of the cluster has arrived: cluster_sync or cluster_wait.
bool isClusterBarrier(Operation *op);
/// op (with nested ops) only computes: no memory beyond thread-local slots, no
/// synchronisation. Barriers may move across such ops.
bool isPureCompute(Operation *op);

/// Over which threads a value or a control-flow decision is the same.
enum class Uniformity {
  Warp,    // every thread of a warp: PTX `.aligned` needs this
  Cluster, // every thread of every CTA of the cluster: a cluster barrier
           // counts for the DSMEM lifetime rule only then
};
/// Every thread of the group evaluates v to the same value: built from
/// constants, kernel parameters, the special registers that are the same over
/// the group (Warp: all but %tid/%laneid; Cluster: also not %ctaid,
/// %cluster_ctarank, %cluster_ctaid) and loop counters with such bounds.
/// Loads (`var`s, the `returned` flag), atomics and region results are not.
bool isUniform(Value v, Uniformity over = Uniformity::Warp);
/// op runs in uniform control flow: every enclosing if/for decides uniformly
/// over the group (while loops never do), so the whole group reaches it
/// together. A divergent `return` puts the rest of the kernel under `if
/// !returned`, a load, so nothing after it is uniform.
bool inUniformControlFlow(Operation *op, Uniformity over = Uniformity::Warp);
/// Whether op's regions run uniformly given that op itself does: an if with
/// a uniform condition, a for with uniform bounds.
bool regionsRunUniformly(Operation *op, Uniformity over);

/// The one owner of the default scope of an mbarrier operation whose source
/// left it open: `.cluster` for a peer's mbarrier or one that peers or
/// st.async complete, `.cta` otherwise.
MemoryScope defaultMBarrierScope(Value mbar, const KernelFacts &facts);

void setReason(Operation *op, llvm::StringRef reason);

} // namespace mlir::tile::sync

#endif
