//===- SplitClusterBarriers.cpp - arrive/wait splitting ---------------------===//
//
// barrier.cluster.arrive and barrier.cluster.wait are separate instructions
// (PTX ISA 9.7.13.4): work between them overlaps the barrier's latency.
// cluster_sync becomes the two halves, moved apart across pure computation;
// the arrive's order (relaxed or release) is a sync decision and belongs to
// tile-sync-semantics, which runs after this pass. Cluster barriers in
// uniform control flow get `.aligned`.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"
#include "Uniformity.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITCLUSTERBARRIERS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

struct SplitClusterBarriersPass
    : mlir::tile::impl::TileSplitClusterBarriersBase<SplitClusterBarriersPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Moving barriers across pure computation changes no memory access.
    markAnalysesPreserved<SyncAnalysis, UniformityAnalysis>();

    SmallVector<ClusterSyncOp> syncs;
    kernel.walk([&](ClusterSyncOp op) { syncs.push_back(op); });
    for (ClusterSyncOp sync : syncs)
      split(sync);

    // .aligned barriers are cheaper; they need the whole warp to execute them.
    // The split moved barriers within their blocks only: the uniformity of
    // values and of control is the one before it.
    auto &uniformity = getAnalysis<UniformityAnalysis>();
    kernel.walk([&](Operation *op) {
      if (!isa<ClusterArriveOp, ClusterWaitOp>(op) || !uniformity.runsAligned(op))
        return;
      if (auto arrive = dyn_cast<ClusterArriveOp>(op))
        arrive.setAligned(true);
      else
        cast<ClusterWaitOp>(op).setAligned(true);
    });
  }

  /// cluster_sync -> arrive + wait, moved apart across pure computation. The
  /// arrive's order is left open for tile-sync-semantics.
  static void split(ClusterSyncOp sync) {
    OpBuilder b(sync);
    auto arrive = ClusterArriveOp::create(b, sync.getLoc(), /*order=*/nullptr, /*aligned=*/false);
    markCompilerInserted(arrive);
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
};

} // namespace
