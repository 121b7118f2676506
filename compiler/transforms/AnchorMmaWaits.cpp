//===- AnchorMmaWaits.cpp - where a consume block's closing wgmma wait stays ===//
//
// A turn may leave groups in flight under the rest of its consume block
// (`wait_group n`, n > 0: FlashAttention-3's P V under the softmax); the
// block closes with `wait_group 0`. WARPGROUP.DEPBAR has no operands, so
// ptxas treats it as ready at once and hoists it to the first stall of the
// work before it: the warpgroup then waits for the groups before that work
// instead of under it (PTX ISA 9.7.15.7 only orders the wait against the
// groups, not against the work). The anchor is a value the wait is issued
// after (tile.wgmma_wait `after`, lowered to a NaN-predicated shared store
// of it right before the wait), which keeps the wait below the work that
// computes it:
//   * reduce: the block's first f32 reduction since the in-flight wait (a
//     softmax's row maximum);
//   * last: the f32 value with the longest chain of operations behind it
//     since that wait (through the block's variables: a load carries the
//     depth of the last store to its slot), the latest of equals: the end of
//     the work the groups run under;
//   * none (the default): no anchor.
// A block whose closing wait follows its mmas directly, or that computed
// nothing since the in-flight wait, keeps its wait as it is.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEANCHORMMAWAITS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

enum class Anchor { None, Reduce, Last };

std::optional<Anchor> anchorNamed(StringRef name) {
  if (name == "none")
    return Anchor::None;
  if (name == "reduce")
    return Anchor::Reduce;
  if (name == "last")
    return Anchor::Last;
  return std::nullopt;
}

bool isWgmma(Operation *op) {
  return isa<MmaOp, MmaRegAOp, WgmmaCommitOp, WgmmaWaitOp, WgmmaFenceOp>(op);
}

bool containsWgmma(Operation &op) {
  return op
      .walk([](Operation *inner) {
        return isWgmma(inner) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The anchor of `wait`, the closing wait of its block, or null.
Value anchorOf(WgmmaWaitOp wait, Anchor mode) {
  Block *block = wait->getBlock();
  // The wgmma op before the closing wait: an in-flight wait, or not anchored.
  // A consume nested in this block (of another ring) that ended with groups
  // in flight counts as its last wgmma op; the scan starts after it.
  Operation *from = nullptr;
  WgmmaWaitOp inFlight;
  for (Block::iterator it = wait->getIterator(); it != block->begin();) {
    Operation &op = *--it;
    if (containsWgmma(op)) {
      from = &op;
      Operation *last = &op;
      while (auto consume = dyn_cast_or_null<RingConsumeOp>(last)) {
        last = nullptr;
        for (Operation &inner : llvm::reverse(consume.getBody().front()))
          if (containsWgmma(inner)) {
            last = &inner;
            break;
          }
      }
      inFlight = dyn_cast_or_null<WgmmaWaitOp>(last);
      break;
    }
  }
  if (!inFlight || inFlight.getPending() == 0)
    return {};
  auto isF32 = [](Type t) {
    std::optional<DistShape> dist = distShape(t);
    return (dist ? dist->elem : t).isF32();
  };
  llvm::DenseMap<Value, int64_t> depth; // values, and the slots of the stores
  auto depthOf = [&](Value v) { return depth.lookup(v); };
  Value best;
  int64_t bestDepth = 0;
  for (Block::iterator it = std::next(from->getIterator()); it != wait->getIterator(); ++it) {
    it->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto store = dyn_cast<StoreOp>(op)) {
        depth[store.getPtr()] = depthOf(store.getValue());
        return;
      }
      int64_t d = 0;
      for (Value v : op->getOperands())
        d = std::max(d, depthOf(v));
      for (Value r : op->getResults())
        depth[r] = d + 1;
    });
    if (mode == Anchor::Reduce) {
      if (isa<FragReduceOp>(*it) && isF32(it->getResult(0).getType()))
        return it->getResult(0);
      continue;
    }
    for (Value r : it->getResults())
      if (isF32(r.getType()) && depthOf(r) >= bestDepth) {
        best = r;
        bestDepth = depthOf(r);
      }
  }
  return best;
}

struct AnchorMmaWaitsPass
    : public mlir::tile::impl::TileAnchorMmaWaitsBase<AnchorMmaWaitsPass> {
  using TileAnchorMmaWaitsBase::TileAnchorMmaWaitsBase;

  void runOnOperation() override {
    std::optional<Anchor> mode = anchorNamed(anchor);
    if (!mode) {
      getOperation().emitError("tile-anchor-mma-waits: anchor '")
          << anchor.getValue() << "' is none of none, reduce, last";
      return signalPassFailure();
    }
    getOperation().walk([&](RingConsumeOp consume) {
      // `consume r as s anchor(MODE)`: this block's own anchor.
      // (The verifier admits only the three names.)
      Anchor blockMode = *mode;
      if (std::optional<StringRef> own = consume.getWaitAnchor())
        blockMode = anchorNamed(*own).value_or(Anchor::None);
      if (blockMode == Anchor::None)
        return;
      // With inflight(n > 0) the block's closing wait leaves groups in
      // flight on purpose; only a closing wait_group 0 is anchored.
      if (consume.getInflight() != 0 || consume.getBody().empty())
        return;
      Block &body = consume.getBody().front();
      WgmmaWaitOp wait;
      for (Operation &op : llvm::reverse(body))
        if (containsWgmma(op)) {
          wait = dyn_cast<WgmmaWaitOp>(op);
          break;
        }
      if (!wait || wait.getPending() != 0 || wait.getAfter())
        return;
      Value after = anchorOf(wait, blockMode);
      if (!after)
        return;
      wait.getAfterMutable().assign(after);
      StringAttr why = sync::getReason(wait);
      sync::setReason(wait, (why ? why.str() : std::string()) +
                                "; issued after `after` (tilec --mma-wait-anchor), so that the "
                                "groups left in flight run under the block's work up to it");
    });
  }
};

} // namespace
