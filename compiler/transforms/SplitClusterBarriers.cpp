//===- SplitClusterBarriers.cpp - arrive/wait splitting and relaxation -----===//
//
// barrier.cluster.arrive and barrier.cluster.wait are separate instructions
// (PTX ISA 9.7.13.4): work between them overlaps the barrier's latency. The
// arrive's default .release orders every prior write before it; .relaxed
// drops that and is much cheaper (ANCHORS: 37 vs 411 ns per barrier), so it
// is used when no memory written before the arrive is read after the wait.
// The same rule picks relaxed vs release for mbarrier arrives the source left
// open; waits stay acquire (the data they guard must be visible), at cluster
// scope when a peer or st.async completes the mbarrier. Cluster barriers in
// uniform control flow get `.aligned`.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITCLUSTERBARRIERS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

struct SplitClusterBarriersPass
    : tile::impl::TileSplitClusterBarriersBase<SplitClusterBarriersPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    KernelFacts facts(kernel);
    bool publishes = facts.publishesMemory();

    SmallVector<ClusterSyncOp> syncs;
    kernel.walk([&](ClusterSyncOp op) { syncs.push_back(op); });
    for (ClusterSyncOp sync : syncs)
      split(sync);

    kernel.walk([&](ClusterArriveOp arrive) {
      if (!arrive->hasAttr(kAutoAttr))
        return;
      arrive->removeAttr(kAutoAttr);
      arrive.setRelaxed(!publishes);
      std::string why = publishes
                            ? " (release: memory written before it is read after the wait)"
                            : " (relaxed: nothing written before it is read after the wait)";
      auto reason = arrive->getAttrOfType<StringAttr>(kReasonAttr);
      setReason(arrive, (reason ? reason.getValue().str() : "cluster arrive") + why);
    });

    kernel.walk([&](Operation *op) { chooseMBarrierSemantics(op, publishes); });

    // .aligned barriers are cheaper; they need the whole warp to execute them.
    kernel.walk([&](Operation *op) {
      if (!isa<ClusterArriveOp, ClusterWaitOp>(op) || !inUniformControlFlow(op))
        return;
      op->setAttr("aligned", UnitAttr::get(op->getContext()));
    });
  }

  /// cluster_sync -> arrive + wait, moved apart across pure computation.
  static void split(ClusterSyncOp sync) {
    OpBuilder b(sync);
    auto arrive = ClusterArriveOp::create(b, sync.getLoc(), /*relaxed=*/false, /*aligned=*/false);
    arrive->setAttr(kAutoAttr, b.getUnitAttr());
    setReason(arrive, "cluster_sync() split: arrive");
    auto wait = ClusterWaitOp::create(b, sync.getLoc(), /*aligned=*/false);
    setReason(wait, "cluster_sync() split: wait");
    sync.erase();
    while (Operation *prev = arrive->getPrevNode()) {
      if (!isPureCompute(prev))
        break;
      arrive->moveBefore(prev);
    }
    while (Operation *next = wait->getNextNode()) {
      if (next->hasTrait<OpTrait::IsTerminator>() || !isPureCompute(next))
        break;
      wait->moveAfter(next);
    }
  }

  /// Orders the source left open (scopes: tile-sync-defaults, which runs in
  /// both modes): relaxed or release arrives, acquire waits.
  static void chooseMBarrierSemantics(Operation *op, bool publishes) {
    MLIRContext *ctx = op->getContext();
    if (auto arrive = dyn_cast<MBarrierArriveOp>(op)) {
      if (!arrive.getOrder()) {
        arrive.setOrderAttr(MemoryOrderAttr::get(
            ctx, publishes ? MemoryOrder::release : MemoryOrder::relaxed));
        setReason(op, publishes ? "mbarrier arrive: release (memory written before it is read "
                                  "after the wait)"
                                : "mbarrier arrive: relaxed (nothing written before it is read "
                                  "after the wait)");
      }
    } else if (auto wait = dyn_cast<MBarrierWaitOp>(op)) {
      if (!wait.getOrder())
        wait.setOrderAttr(MemoryOrderAttr::get(ctx, MemoryOrder::acquire));
    }
  }
};

} // namespace
