//===- PlaceBulkWaits.cpp - bulk-group waits after TMA stores ------------===//
//
// A TMA store reads its shared tile and writes global memory asynchronously
// after the instruction issues (PTX ISA 9.7.9.25.4 cp.async.bulk.wait_group;
// the bulk-group wait rule):
//   * the tile may be rewritten only once the issuing thread's
//     `cp.async.bulk.wait_group.read` says the sources were read;
//   * the global writes are visible to others only once the issuing thread's
//     `cp.async.bulk.wait_group` (without .read) says the group completed,
//     before a release that publishes them.
// Waiting right after the store would stall the issuing thread (in a
// warpgroup: the whole warpgroup at its next aligned instruction) for the
// whole copy. So the pass follows each thread's possible paths from a TMA
// store and waits only where needed:
//   * before the thread next synchronises with other threads (bar.sync, a
//     role's named barrier, bar.warp.sync, a cluster barrier arrive, an
//     mbarrier arrive, a release atomic or fence): `wait_group 0`, after
//     which others may read the global data and rewrite the tile; a
//     compiler-owned synchronisation that publishes shared memory only
//     (tile.shared_only: a ring slot's release, the role barrier after a
//     role's TMA store) only needs `wait_group.read 0` there;
//   * before the thread itself writes (either proxy) a tile it stored:
//     `wait_group.read 0`.
// Threads with no bulk group pending pass a wait at once. The walk is a
// forward dataflow over the structured control flow (scf.if: the union of
// the branches; loops: iterated until the pending state is stable), so a
// store in one iteration is waited for before the next iteration's barrier.
// A wait already there (or `wait_group 0` before exit, from MLIRGen) ends
// what it covers; waits are never duplicated.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLACEBULKWAITS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

/// What may still be pending in this thread on a path: the shared tiles
/// (allocations) whose TMA-store read may not be done, and whether some
/// store's global writes may not be complete.
struct Pending {
  llvm::SmallPtrSet<Operation *, 4> reads;
  bool writes = false;
  bool empty() const { return reads.empty() && !writes; }
  void join(const Pending &o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes |= o.writes;
  }
  bool operator==(const Pending &o) const {
    return writes == o.writes && reads.size() == o.reads.size() &&
           llvm::all_of(reads, [&](Operation *a) { return o.reads.contains(a); });
  }
};

/// Whether op lets other threads continue after it knowing this thread got
/// there: what they do afterwards (read the stored data, rewrite the tile)
/// must follow the copy.
bool synchronisesThreads(Operation *op) {
  if (isa<BarrierOp, NamedBarrierOp, SyncWarpOp, ClusterSyncOp, ClusterArriveOp, MBarrierArriveOp,
          FenceOp>(op))
    return true;
  if (auto access = dyn_cast<MemoryAccessOpInterface>(op)) {
    MemoryOrder o = access.getAccessOrder();
    return o == MemoryOrder::release || o == MemoryOrder::acq_rel || o == MemoryOrder::sc;
  }
  return false;
}

class Placer {
public:
  explicit Placer(TileDialect *dialect) : dialect(dialect) {}

  /// Walks block with `pending` on entry; returns the state at its end.
  Pending walk(Block &block, Pending pending) {
    for (Operation &op : llvm::make_early_inc_range(block))
      pending = step(op, std::move(pending));
    return pending;
  }

private:
  TileDialect *dialect;

  Pending step(Operation &op, Pending pending) {
    if (auto wait = dyn_cast<BulkWaitOp>(op)) {
      if (wait.getPending() == 0) {
        pending.reads.clear();
        if (!wait.getRead())
          pending.writes = false;
      }
      return pending;
    }
    if (auto store = dyn_cast<TmaStoreOp>(op)) {
      if (SharedAllocOp alloc = rootAlloc(store.getTile()))
        pending.reads.insert(alloc);
      pending.writes = true;
      return pending;
    }
    if (!pending.empty()) {
      bool sharedOnly = dialect->getSharedOnlyAttrHelper().isAttrPresent(&op);
      if (synchronisesThreads(&op) && pending.writes && !sharedOnly) {
        waitBefore(op, /*read=*/false);
        pending = Pending();
      } else if (!pending.reads.empty() &&
                 (synchronisesThreads(&op) || writesPending(op, pending))) {
        waitBefore(op, /*read=*/true);
        pending.reads.clear();
      }
      // A region op may store again inside (a loop whose first statement
      // writes the tile): walk on with what is left.
    }
    if (op.getNumRegions() == 0)
      return pending;
    if (isa<scf::ForOp, scf::WhileOp>(op))
      return loop(op, std::move(pending));
    // scf.if / others: each region from the entry state; the result joins
    // them (a region may be skipped: join the entry too).
    Pending out = pending;
    for (Region &r : op.getRegions())
      for (Block &b : r)
        out.join(walk(b, pending));
    return out;
  }

  /// A loop body runs zero or more times: iterate until the entry state
  /// holds what the end of the body may leave pending.
  Pending loop(Operation &op, Pending entry) {
    for (;;) {
      Pending end = entry;
      for (Region &r : op.getRegions())
        for (Block &b : r)
          end.join(walk(b, entry));
      if (end == entry)
        return end;
      entry = std::move(end);
    }
  }

  /// Whether op (with nested ops) writes one of the tiles whose read may
  /// be pending.
  static bool writesPending(Operation &op, const Pending &pending) {
    bool hit = false;
    op.walk([&](MemoryAccessOpInterface access) {
      if (!access.writesMemory())
        return WalkResult::advance();
      if (SharedAllocOp alloc = rootAlloc(access.getAccessPtr()))
        if (pending.reads.contains(alloc)) {
          hit = true;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return hit;
  }

  static void waitBefore(Operation &op, bool read) {
    if (auto prev = dyn_cast_or_null<BulkWaitOp>(op.getPrevNode()))
      if (prev.getPending() == 0 && (read || !prev.getRead()))
        return;
    OpBuilder b(&op);
    auto wait = BulkWaitOp::create(b, op.getLoc(), /*pending=*/0, read);
    setReason(wait, read ? "cp.async.bulk.wait_group.read 0: a TMA store's tile is read before "
                           "this thread synchronises with (or itself does) the tile's next write"
                         : "cp.async.bulk.wait_group 0: a TMA store's global writes complete "
                           "before this thread synchronises with threads that may read them");
  }
};

struct PlaceBulkWaitsPass : tile::impl::TilePlaceBulkWaitsBase<PlaceBulkWaitsPass> {
  void runOnOperation() override {
    bool stores = false;
    getOperation().walk([&](TmaStoreOp) { stores = true; });
    if (!stores)
      return markAllAnalysesPreserved();
    Placer placer(getContext().getLoadedDialect<TileDialect>());
    for (Region &r : getOperation()->getRegions())
      for (Block &b : r)
        placer.walk(b, {});
    // A wait is not a memory access: the analysis stays valid.
    markAnalysesPreserved<SyncAnalysis>();
  }
};

} // namespace
