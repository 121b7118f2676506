//===- Uniformity.h - over which threads values and control are the same -*- C++ -*-===//
//
// The one uniformity analysis: the rules of tilec/Uniformity.h applied to a
// tile.kernel. Every value gets a Level (how far it may differ between
// threads), every op the Level of the control that reaches it and the
// decision that made it so. The analysis follows what the frontend's `var`s
// become (tile.local_var slots: a load is as divergent as every value
// stored to the slot and the control of each store, the exit flags of
// `return`/`break`/`continue` included), scf.for iteration arguments and
// scf.while's carried values, rising to a fixpoint from "uniform", so
// `var u = first; while u < n { ...; u += step }` is uniform and a value a
// thread-dependent branch feeds back into a loop is not. Slots are private
// to a thread: a store in one role is not seen by a load in another.
//
// Its readers: tile-check-divergence (the diagnostics, worded from the
// decisions), tile-sync-semantics and tile-split-cluster-barriers
// (`.aligned`), tile-dsmem-lifetime (which cluster barriers every CTA
// reaches). One more scope, a parameter rather than a copy: uniformity over
// the CTAs of one multicast group (UniformityScope), which decides whether a
// multicast copy's box origin is one box in all of them.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_UNIFORMITY_H
#define TILEC_TRANSFORMS_UNIFORMITY_H

#include "tile/Dialect/TileDialect.h"
#include "tilec/Uniformity.h"

#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {

using ::tile::uniformity::Level;

/// Over which threads uniformity is taken. By default: every thread of the
/// kernel (levels as tilec/Uniformity.h defines them). With a multicast axis
/// (0-2, 3 = all axes) of a static cluster: the CTAs of one multicast group,
/// which differ only in their position along that axis. Their position along
/// the other axes, `block_id(a) / D` with D a multiple of the cluster's
/// extent along a, and everything uniform are then the same in all of them;
/// a condition on the thread's position in its CTA (`thread_id() == 0`,
/// `elect_one()`: how each copy is issued) picks the same threads in every
/// CTA of the group, so it makes nothing differ between them.
struct UniformityScope {
  int multicastAxis = -1;
  int64_t clusterDims[3] = {1, 1, 1};

  bool overMulticastGroup() const { return multicastAxis >= 0; }
  /// The group's CTAs differ in their position along axis a.
  bool varies(int a) const {
    return (multicastAxis == 3 || multicastAxis == a) && clusterDims[a] > 1;
  }
};

/// Why an op's control is divergent: the decision (an scf.if, a loop, a
/// role, a produce block) and where its deciding value is in the source: the
/// condition, the loop bound, or, for code after a `return`/`break`/
/// `continue` some threads take, the condition under which they took it.
struct Divergence {
  Level level = ::tile::uniformity::Uniform;
  Operation *decision = nullptr;
  LocationAttr where; // null when uniform
};

class UniformityAnalysis {
public:
  explicit UniformityAnalysis(KernelOp kernel) : UniformityAnalysis(kernel, UniformityScope{}) {}
  UniformityAnalysis(KernelOp kernel, const UniformityScope &scope);

  /// How far v may differ between threads (PerThread for values the
  /// analysis has not seen: ops created after it ran).
  Level levelOf(Value v) const;
  /// How far the decision to run op's regions may differ between threads
  /// given that op itself runs: an if's condition, a loop's bounds or
  /// condition; a role is entered by whole warpgroups, a produce block by one
  /// elected thread. PerThread for region ops without a rule.
  Level decisionLevel(Operation *op) const;
  /// The join of decisionLevel over op's ancestors up to the kernel (or up
  /// to, not including, `stopAt`): how far "op runs" may differ.
  Level controlLevel(Operation *op, Operation *stopAt = nullptr) const {
    return controlDivergence(op, stopAt).level;
  }
  /// controlLevel and the decision that makes it so: the outermost ancestor
  /// whose decision reaches that level (an inner one as divergent adds
  /// nothing), with the source position of its deciding value.
  Divergence controlDivergence(Operation *op, Operation *stopAt = nullptr) const;
  /// Where op's decision is made (its condition or bound, or the decision
  /// that set the exit flag it reads).
  LocationAttr decisionLocation(Operation *op) const;
  /// op may be emitted with `.aligned`: the whole warp reaches it together.
  bool runsAligned(Operation *op) const {
    return controlLevel(op) <= ::tile::uniformity::kAlignedMax;
  }
  /// The fixpoint did not settle within its pass limit (every slot was then
  /// taken as per-thread: the conservative answer).
  bool gaveUp() const { return gaveUp_; }
  const UniformityScope &scope() const { return scope_; }

  bool isInvalidated(const AnalysisManager::PreservedAnalyses &preserved) {
    return !preserved.isPreserved<UniformityAnalysis>();
  }

private:
  /// A level and, for a value an exit flag made divergent, the decision
  /// under which the flag was set (null: the value's own position).
  struct Fact {
    Level level = ::tile::uniformity::Uniform;
    LocationAttr why;
  };
  /// What one store puts in its slot: with the control measured from its
  /// role's entry (for loads in the same role) and from the kernel's (for
  /// loads outside the roles).
  struct SlotFacts {
    Fact inRole, absolute;
  };
  /// `store` may run before `load`: it comes first in program order, or a
  /// loop holds both (a later iteration).
  bool mayPrecede(Operation *store, Operation *load) const;

  Fact factOf(Value v) const;
  bool update(Value v, Fact f);
  bool raise(Fact &known, Fact f);
  bool visit(Operation *op);
  Fact transfer(Operation *op, unsigned resultIndex) const;
  Fact loadFact(LoadOp load, Operation *slot) const;
  /// The level of a value deciding control: in a multicast-group scope, the
  /// thread's position in its CTA counts as the same in every CTA.
  Level decidingLevel(Value v) const;
  Level symmetricLevel(Value v, int depth) const;
  std::optional<Level> groupLevel(Operation *op) const;
  Value decidingValue(Operation *op) const;

  UniformityScope scope_;
  llvm::DenseMap<Value, Fact> values_;
  llvm::DenseSet<Operation *> privateSlots_; // tile.local_var slots that stay private
  llvm::DenseSet<Operation *> exitFlags_;    // those marked tile.exit_flag
  llvm::DenseMap<Operation *, llvm::SmallVector<Operation *>> slotStores_; // private slots
  llvm::DenseMap<Operation *, SlotFacts> stores_; // what each store put there
  /// Per private slot that is not an exit flag: the join of its stores'
  /// facts in each role (keyed by the role; null: outside every role, whose
  /// facts are measured from the kernel's entry), and of every store's
  /// absolute fact.
  llvm::DenseMap<std::pair<Operation *, Operation *>, Level> slotJoins_;
  llvm::DenseMap<Operation *, Level> slotAbsoluteJoin_;
  llvm::DenseMap<Operation *, unsigned> order_;   // program order (pre-order walk)
  bool gaveUp_ = false;
  bool oneDimBlock_ = false; // the kernel's bounds prove Y = Z = 1
  bool settled_ = false; // the fixpoint is reached: unseen values are unknown
};

} // namespace mlir::tile

#endif
