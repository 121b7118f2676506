//===- Uniformity.h - over which threads values and control are the same -*- C++ -*-===//
//
// The IR's uniformity analysis: the rules of tilec/Uniformity.h applied to a
// tile.kernel. Every value gets a Level (how far it may differ between
// threads), every op the Level of the control that reaches it. The analysis
// follows what the frontend's `var`s become (tile.local_var slots: a load
// is as divergent as every value stored to the slot and the control of each
// store, the `returned`/break flags included), scf.for iteration arguments
// and scf.while's carried values, rising to a fixpoint from "uniform", so
// `var u = first; while u < n { ...; u += step }` is uniform and a value a
// thread-dependent branch feeds back into a loop is not. The passes that
// decide synchronisation read it: tile-sync-semantics and
// tile-split-cluster-barriers (`.aligned`), tile-dsmem-lifetime (which
// cluster barriers every CTA reaches).
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_UNIFORMITY_H
#define TILEC_TRANSFORMS_UNIFORMITY_H

#include "tile/Dialect/TileDialect.h"
#include "tilec/Uniformity.h"

#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tile {

using ::tile::uniformity::Level;

class UniformityAnalysis {
public:
  explicit UniformityAnalysis(KernelOp kernel);

  /// How far v may differ between threads (PerThread for values the
  /// analysis has not seen: ops created after it ran).
  Level levelOf(Value v) const;
  /// How far the decision to run op's regions may differ between threads
  /// given that op itself runs: an if's condition, a loop's bounds or
  /// condition; a role is entered by whole warpgroups. PerThread for region
  /// ops without a rule.
  Level decisionLevel(Operation *op) const;
  /// The join of decisionLevel over op's ancestors up to the kernel (or up
  /// to, not including, `stopAt`): how far "op runs" may differ.
  Level controlLevel(Operation *op, Operation *stopAt = nullptr) const;
  /// op may be emitted with `.aligned`: the whole warp reaches it together.
  bool runsAligned(Operation *op) const {
    return controlLevel(op) <= ::tile::uniformity::kAlignedMax;
  }
  /// The fixpoint did not settle within its pass limit (every slot was then
  /// taken as per-thread: the conservative answer).
  bool gaveUp() const { return gaveUp_; }

  bool isInvalidated(const AnalysisManager::PreservedAnalyses &preserved) {
    return !preserved.isPreserved<UniformityAnalysis>();
  }

private:
  bool update(Value v, Level l);
  bool visit(Operation *op);
  Level transfer(Operation *op, unsigned resultIndex) const;

  llvm::DenseMap<Value, Level> values_;
  llvm::DenseMap<Operation *, Level> slots_; // tile.local_var slots that stay private
  bool gaveUp_ = false;
  bool oneDimBlock_ = false; // the kernel's bounds prove Y = Z = 1
  bool settled_ = false; // the fixpoint is reached: unseen values are unknown
};

} // namespace mlir::tile

#endif
