//===- TestUniformity.cpp - the uniformity analysis, as remarks ------------===//
//
// tile-opt --tile-test-uniformity: what UniformityAnalysis concludes, for
// lit tests of the analysis itself (the passes' decisions are tested through
// the pipeline).
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "Uniformity.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETESTUNIFORMITY
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using ::tile::uniformity::levelName;

namespace {
struct TestUniformityPass : mlir::tile::impl::TileTestUniformityBase<TestUniformityPass> {
  void runOnOperation() override {
    markAllAnalysesPreserved();
    auto &uniformity = getAnalysis<UniformityAnalysis>();
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<BarrierOp, NamedBarrierOp, ClusterSyncOp, ClusterArriveOp, ClusterWaitOp>(op)) {
        Level control = uniformity.controlLevel(op);
        op->emitRemark() << "control " << levelName(control)
                         << (uniformity.runsAligned(op) ? ", aligned" : ", not aligned");
      } else if (isa<scf::IfOp, scf::ForOp, scf::WhileOp, RoleOp>(op)) {
        op->emitRemark() << "decides " << levelName(uniformity.decisionLevel(op));
      } else if (auto load = dyn_cast<LoadOp>(op)) {
        if (load.getPtr().getDefiningOp<LocalVarOp>())
          op->emitRemark() << "slot " << levelName(uniformity.levelOf(load.getResult()));
      }
    });
  }
};
} // namespace
