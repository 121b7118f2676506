//===- DSMEMLifetime.cpp - cluster barriers around DSMEM access ------------===//
//
// Two rules of distributed shared memory (CUDA programming guide, "Distributed
// Shared Memory"; PTX ISA 9.7.13.4 barrier.cluster):
//  - entry: a CTA may touch a peer's shared memory only after the peer has
//    initialised it (and its mbarriers), so every CTA must have passed a
//    cluster barrier that follows those writes;
//  - exit: a CTA's shared memory disappears when it exits, so no CTA may exit
//    (or read what peers wrote into it) before every peer has finished its
//    remote accesses.
// The analysis is over the kernel's top-level statements; a barrier inside a
// loop counts for the exit rule when it follows the loop body's last remote
// access (every iteration, hence the last, passes it).
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"
#include "tile/Dialect/Hint.h"

#include "SyncAnalysis.h"
#include "Uniformity.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDSMEMLIFETIME
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

/// Every remote access in `block` is followed, on every path to the end of the
/// block, by a cluster barrier that every thread of the cluster executes.
/// `uniform`: the block runs for every thread of the cluster alike. A barrier
/// under a condition or in a loop that differs between threads or CTAs (a
/// rank test, a thread test, a while loop over such a value, code after a
/// divergent return: UniformityAnalysis)
/// does not count: the CTAs that skip it may exit while peers still access
/// their shared memory.
bool coveredAtExit(Block &block, bool uniform, const UniformityAnalysis &uniformity) {
  bool sawBarrier = false;
  for (Operation &op : llvm::reverse(block.without_terminator())) {
    if (isClusterBarrier(&op) && uniform) {
      sawBarrier = true;
      continue;
    }
    if (sawBarrier || !containsRemoteAccess(&op))
      continue;
    if (op.getNumRegions() == 0)
      return false;
    // A loop or if whose bodies end their remote accesses with a barrier: an
    // earlier remote access in this block still needs one of its own (the
    // loop may run zero times), so keep scanning with sawBarrier unset.
    bool innerUniform = uniform && uniformity.decisionLevel(&op) <=
                                       ::tile::uniformity::kClusterBarrierMax;
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (!coveredAtExit(inner, innerUniform, uniformity))
          return false;
  }
  return true;
}

struct DSMEMLifetimePass : mlir::tile::impl::TileDSMEMLifetimeBase<DSMEMLifetimePass> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Cluster barriers are not memory accesses: the analysis stays valid.
    markAnalysesPreserved<SyncAnalysis>();
    if (!kernel.hasCluster())
      return;
    Block &body = kernel.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    auto isRemote = [](Operation *op) { return containsRemoteAccess(op); };
    auto first = llvm::find_if(ops, isRemote);
    if (first == ops.end())
      return;
    auto &facts = getAnalysis<SyncAnalysis>();
    // Both checks run so that --no-auto-sync reports every missing barrier.
    bool entryOk = succeeded(entryBarrier(facts, ops, first - ops.begin()));
    bool exitOk = succeeded(exitBarrier(facts, body, ops));
    if (!entryOk || !exitOk)
      signalPassFailure();
  }

  LogicalResult entryBarrier(const SyncAnalysis &facts, ArrayRef<Operation *> ops, size_t first) {
    for (size_t i = 0; i < first; ++i)
      if (isClusterBarrier(ops[i]))
        return success();
    Operation *access = firstRemoteAccess(ops[first]);
    if (checkOnly) {
      InFlightDiagnostic d = access->emitError(
          "DSMEM access is not ordered after the peer CTA initialises its shared memory");
      attachHint(d, "add cluster_sync() between the shared-memory initialisation and the first "
                    "remote access, or drop --no-auto-sync");
      return failure();
    }
    // Arrive right after the last statement that initialises memory peers
    // reach, and after the fence.mbarrier_init that publishes those inits
    // (PTX ISA 9.7.13.4: it orders them before a following relaxed arrive);
    // independent work runs between arrive and wait.
    Operation *arriveAfter = nullptr;
    for (size_t i = 0; i < first; ++i)
      if (facts.initialisesPeerMemory(ops[i]) || (arriveAfter && isa<FenceMBarrierInitOp>(ops[i])))
        arriveAfter = ops[i];
    OpBuilder b(ops[first]);
    if (arriveAfter)
      b.setInsertionPointAfter(arriveAfter);
    Location loc = access->getLoc();
    // The order is left open: tile-sync-semantics decides it.
    auto arrive = ClusterArriveOp::create(b, arriveAfter ? arriveAfter->getLoc() : loc,
                                          /*order=*/nullptr, /*aligned=*/false);
    markCompilerInserted(arrive);
    setReason(arrive, "cluster arrive after this CTA initialises the shared memory peers access");
    b.setInsertionPoint(ops[first]);
    auto wait = ClusterWaitOp::create(b, loc, /*aligned=*/false);
    setReason(wait, "cluster wait before the first access to a peer's shared memory");
    return success();
  }

  LogicalResult exitBarrier(const SyncAnalysis &facts, Block &body, ArrayRef<Operation *> ops) {
    if (coveredAtExit(body, /*uniform=*/true, getAnalysis<UniformityAnalysis>()))
      return success();
    size_t last = ops.size() - 1;
    while (!containsRemoteAccess(ops[last]))
      --last;
    Operation *access = firstRemoteAccess(ops[last]);
    if (checkOnly) {
      InFlightDiagnostic d =
          access->emitError("a CTA may exit while peers still access its shared memory");
      attachHint(d, "add cluster_sync() after the last remote access, or drop --no-auto-sync");
      return failure();
    }
    OpBuilder b(ops[last]->getContext());
    b.setInsertionPointAfter(ops[last]);
    Location loc = access->getLoc();
    auto arrive = ClusterArriveOp::create(b, loc, /*order=*/nullptr, /*aligned=*/false);
    markCompilerInserted(arrive);
    setReason(arrive, "cluster arrive after this CTA's last access to a peer's shared memory");
    // Wait before the first statement that reads or writes what peers wrote
    // into this CTA; otherwise just before the kernel exits.
    Operation *waitBefore = body.getTerminator();
    for (size_t i = last + 1; i < ops.size(); ++i)
      if (facts.touchesOwnPeerMemory(ops[i])) {
        waitBefore = ops[i];
        break;
      }
    b.setInsertionPoint(waitBefore);
    auto wait = ClusterWaitOp::create(
        b, waitBefore == body.getTerminator() ? loc : waitBefore->getLoc(), /*aligned=*/false);
    setReason(wait,
              waitBefore == body.getTerminator()
                  ? "cluster wait before exit: peers may still access this CTA's shared memory"
                  : "cluster wait before reading what peers wrote into this CTA's shared memory");
    return success();
  }
};

} // namespace
