//===- SCFToCFInReverse.cpp - scf to cf, each block from its last op up ---===//
//
// scf-to-cf's patterns split an op's block after the op and move the rest of
// the block into the new one (RewriterBase::splitBlock), so lowering a block
// of n structured ops from its first op down moves O(n^2) ops. Here each
// block's structured ops are lowered from the last up, so every split moves
// only the ops up to the split before it. A structured op is lowered before
// the ones in its regions: the patterns expect a while's or an if's regions
// to be single blocks, as the structured op requires.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESCFTOCFINREVERSE
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
/// The structured ops of `region`'s blocks in the order they are lowered:
/// per block from its last op up, each before the ops in its own regions.
void lowerOrder(Region &region, SmallVectorImpl<Operation *> &order) {
  for (Block &block : region)
    for (Operation &op : llvm::reverse(block)) {
      if (isa<scf::SCFDialect>(op.getDialect()) && op.getNumRegions() > 0)
        order.push_back(&op);
      for (Region &inner : op.getRegions())
        lowerOrder(inner, order);
    }
}

struct SCFToCFInReverse : tile::impl::TileSCFToCFInReverseBase<SCFToCFInReverse> {
  void runOnOperation() override {
    SmallVector<Operation *> order;
    for (Region &region : getOperation()->getRegions())
      lowerOrder(region, order);
    if (order.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateSCFToControlFlowConversionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    PatternApplicator applicator(frozen);
    applicator.applyDefaultCostModel();
    PatternRewriter rewriter(&getContext());
    // Lowering an op moves the ops of its regions (never erases them), so
    // every op of `order` is still there when its turn comes. One the
    // patterns do not lower, or make (scf.forall -> scf.parallel), is left
    // for convert-scf-to-cf.
    for (Operation *op : order) {
      rewriter.setInsertionPoint(op);
      (void)applicator.matchAndRewrite(op, rewriter);
    }
  }
};
} // namespace
