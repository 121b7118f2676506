//===- PlaceBulkReadWaits.cpp - wait_group.read before a TMA store's tile is rewritten -===//
//
// A TMA store reads its shared tile asynchronously after the instruction
// issues; the tile may be rewritten only once the issuing thread's
// `cp.async.bulk.wait_group.read` says the bulk group's sources were read
// (PTX ISA 9.7.9.25.4 cp.async.bulk.wait_group; ASYNC-DESIGN.md rule 6).
// Waiting right after the store would stall the issuing thread (in a
// warpgroup: the whole warpgroup at its next aligned instruction) for the
// whole read; the wait is needed only before the tile's next write. So the
// pass follows each thread's possible paths from a TMA store and puts one
// `bulk_wait.read 0` where the thread
//   * next synchronises with other threads (bar.sync, a role's named
//     barrier, bar.warp.sync, a cluster barrier arrive, an mbarrier arrive):
//     those threads may write the tile after it, and only a wait before the
//     synchronisation orders the async read before their writes;
//   * itself writes (generic or async proxy) a tile it stored.
// Threads with no bulk group pending pass the wait at once. The walk is a
// forward dataflow over the structured control flow (scf.if: the union of
// the branches; loops: iterated until the set of possibly-pending tiles is
// stable), so a store in one iteration is waited for before the next
// iteration's barrier. A wait already there (or `wait_group 0` at exit) ends
// the pending set and is never duplicated.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLACEBULKREADWAITS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

/// The shared tiles (allocations) whose TMA-store read may still be pending.
using Pending = llvm::SmallPtrSet<Operation *, 4>;

/// Whether op lets other threads continue after it knowing this thread got
/// there: what they do afterwards (write the tile) must follow the read.
bool synchronisesThreads(Operation *op) {
  return isa<BarrierOp, NamedBarrierOp, SyncWarpOp, ClusterSyncOp, ClusterArriveOp,
             MBarrierArriveOp>(op);
}

class Placer {
public:
  /// Walks block with `pending` on entry; returns the set at its end.
  Pending walk(Block &block, Pending pending) {
    for (Operation &op : llvm::make_early_inc_range(block))
      pending = step(op, std::move(pending));
    return pending;
  }

private:
  Pending step(Operation &op, Pending pending) {
    if (auto wait = dyn_cast<BulkWaitOp>(op)) {
      if (wait.getPending() == 0)
        pending.clear();
      return pending;
    }
    if (auto store = dyn_cast<TmaStoreOp>(op)) {
      if (SharedAllocOp alloc = rootAlloc(store.getTile()))
        pending.insert(alloc);
      return pending;
    }
    if (!pending.empty() && (synchronisesThreads(&op) || writesPending(op, pending))) {
      waitBefore(op);
      pending.clear();
      // The op itself may be a region op that stores again (a loop whose
      // first statement writes the tile): walk on with the empty set.
    }
    if (op.getNumRegions() == 0)
      return pending;
    if (isa<scf::ForOp, scf::WhileOp>(op))
      return loop(op, std::move(pending));
    // scf.if / scf.execute_region / others: each region from the entry set;
    // the result joins them (a region may be skipped: join the entry too).
    Pending out = pending;
    for (Region &r : op.getRegions())
      for (Block &b : r)
        for (Operation *a : walk(b, pending))
          out.insert(a);
    return out;
  }

  /// A loop body runs zero or more times: iterate until the entry set holds
  /// what the end of the body may leave pending.
  Pending loop(Operation &op, Pending entry) {
    for (;;) {
      Pending end = entry;
      for (Region &r : op.getRegions())
        for (Block &b : r)
          for (Operation *a : walk(b, entry))
            end.insert(a);
      if (end.size() == entry.size())
        return end;
      entry = std::move(end);
    }
  }

  /// Whether op (with nested ops) writes one of the pending tiles.
  static bool writesPending(Operation &op, const Pending &pending) {
    bool hit = false;
    op.walk([&](MemoryAccessOpInterface access) {
      if (!access.writesMemory())
        return WalkResult::advance();
      if (SharedAllocOp alloc = rootAlloc(access.getAccessPtr()))
        if (pending.contains(alloc)) {
          hit = true;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return hit;
  }

  void waitBefore(Operation &op) {
    if (auto prev = dyn_cast_or_null<BulkWaitOp>(op.getPrevNode()))
      if (prev.getPending() == 0)
        return;
    OpBuilder b(&op);
    auto wait = BulkWaitOp::create(b, op.getLoc(), /*pending=*/0, /*read=*/true);
    setReason(wait, "cp.async.bulk.wait_group.read 0: a TMA store's tile is read before this "
                    "thread synchronises with (or itself does) the tile's next write");
  }
};

struct PlaceBulkReadWaitsPass
    : tile::impl::TilePlaceBulkReadWaitsBase<PlaceBulkReadWaitsPass> {
  void runOnOperation() override {
    bool stores = false;
    getOperation().walk([&](TmaStoreOp) { stores = true; });
    if (!stores)
      return markAllAnalysesPreserved();
    Placer placer;
    for (Region &r : getOperation()->getRegions())
      for (Block &b : r)
        placer.walk(b, {});
    // A wait is not a memory access: the analysis stays valid.
    markAnalysesPreserved<SyncAnalysis>();
  }
};

} // namespace
