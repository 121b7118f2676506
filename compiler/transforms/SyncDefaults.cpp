//===- SyncDefaults.cpp - scopes and alignment the source left open --------===//
//
// Decisions correctness depends on, made once and in both modes (auto sync
// and --no-auto-sync) so that the two give the same code:
//  - the scope of mbarrier arrive/expect_tx/wait without `scope =`: the
//    acquire of a wait must cover the threads whose arrives (release) and
//    st.async complete-tx it synchronises with (PTX ISA 9.7.13.15.16), so a
//    peer's mbarrier, or one peers or st.async complete, is `.cluster`;
//  - `bar.sync` (= barrier.sync.aligned, PTX ISA 9.7.13.1) only for CTA
//    barriers in warp-uniform control flow; after a divergent `return` or
//    under a thread-dependent condition they stay `barrier.sync`.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESYNCDEFAULTS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

struct SyncDefaultsPass : tile::impl::TileSyncDefaultsBase<SyncDefaultsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    KernelFacts facts(kernel);
    MLIRContext *ctx = kernel.getContext();
    auto scopeAttr = [&](Value mbar) {
      return MemoryScopeAttr::get(ctx, defaultMBarrierScope(mbar, facts));
    };
    kernel.walk([&](Operation *op) {
      if (auto arrive = dyn_cast<MBarrierArriveOp>(op)) {
        if (!arrive.getScope())
          arrive.setScopeAttr(scopeAttr(arrive.getMbar()));
      } else if (auto expect = dyn_cast<MBarrierExpectTxOp>(op)) {
        if (!expect.getScope())
          expect.setScopeAttr(scopeAttr(expect.getMbar()));
      } else if (auto wait = dyn_cast<MBarrierWaitOp>(op)) {
        if (!wait.getScope()) {
          wait.setScopeAttr(scopeAttr(wait.getMbar()));
          if (*wait.getScope() == MemoryScope::cluster)
            setReason(op, "mbarrier wait: acquire.cluster (a peer or st.async completes it)");
        }
      } else if (auto barrier = dyn_cast<BarrierOp>(op)) {
        if (inUniformControlFlow(op))
          barrier.setAligned(true);
        else
          setReason(op, "barrier.sync 0, not bar.sync: threads of a warp may reach it apart");
      }
    });
  }
};

} // namespace
