//===- InsertFences.cpp - fences the PTX memory model requires -------------===//
//
// mbarrier.init is a generic-proxy write that other CTAs (remote arrive) and
// the async proxy (st.async complete_tx) must observe before they touch the
// mbarrier: PTX ISA 9.7.13.15.3 requires fence.mbarrier_init.release.cluster
// between the init and the cluster barrier that publishes it. The fence is
// placed once after the last such init of each block (the init thread runs
// it) and never duplicated.
//
// A TMA store or a wgmma (async-proxy reads) of a tile that generic stores write
// needs fence.proxy.async.shared::cta by the writers after their writes and
// before the barrier that orders them before the store (PTX ISA 8.6
// "Proxies"; ASYNC-DESIGN.md rule 5): the fence goes right before the
// nearest barrier preceding the store (every writer runs it; inside a role,
// the role's named barrier), or before the
// store itself when no barrier precedes it (the issuing thread wrote it). One
// fence per barrier, never duplicated.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTFENCES
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

/// A fence.mbarrier_init follows `init` in its block, or follows an op that
/// encloses it (the init under `if thread_id() == 0`, the user's
/// fence_mbarrier_init() after that `if`): the thread that ran the init
/// runs that fence afterwards, so another one would be a duplicate.
bool fencedAfter(Operation *init) {
  for (Operation *at = init; at && !isa<KernelOp>(at); at = at->getParentOp())
    for (Operation *op = at->getNextNode(); op; op = op->getNextNode())
      if (isa<FenceMBarrierInitOp>(op))
        return true;
  return false;
}

/// The nearest barrier before op in program order (its block, then its
/// ancestors' blocks), or nullptr: tile.barrier, or inside a role the role's
/// tile.named_barrier (the writers of a tile a role stores are its threads).
Operation *precedingBarrier(Operation *op) {
  for (Operation *at = op; at && !isa<KernelOp>(at); at = at->getParentOp())
    for (Operation *prev = at->getPrevNode(); prev; prev = prev->getPrevNode())
      if (isa<BarrierOp, NamedBarrierOp>(prev))
        return prev;
  return nullptr;
}

/// fence.proxy.async before async-proxy reads of tiles written generically.
void fenceAsyncReads(KernelOp kernel) {
  llvm::DenseSet<Operation *> writtenGenerically;
  kernel.walk([&](MemoryAccessOpInterface access) {
    if (access.getAccessProxy() == MemoryProxy::generic && access.writesMemory())
      if (SharedAllocOp alloc = rootAlloc(access.getAccessPtr()))
        writtenGenerically.insert(alloc);
  });
  kernel.walk([&](MemoryAccessOpInterface access) {
    if (access.getAccessProxy() != MemoryProxy::async || !access.readsMemory())
      return;
    SmallVector<Value, 2> ptrs{access.getAccessPtr()};
    ptrs.append(access.getOtherAccessPtrs()); // wgmma: both operand tiles
    if (llvm::none_of(ptrs, [&](Value p) {
          SharedAllocOp alloc = rootAlloc(p);
          return alloc && writtenGenerically.contains(alloc);
        }))
      return;
    Operation *at = precedingBarrier(access);
    if (!at)
      at = access;
    if (isa_and_nonnull<FenceProxyAsyncOp>(at->getPrevNode()))
      return;
    OpBuilder b(at);
    auto fence = FenceProxyAsyncOp::create(b, at->getLoc());
    setReason(fence, "fence.proxy.async.shared::cta: generic writes of a tile before the barrier "
                     "that orders them before an async-proxy read of it (TMA store, wgmma)");
  });
}

struct InsertFencesPass : tile::impl::TileInsertFencesBase<InsertFencesPass> {
  void runOnOperation() override {
    auto &facts = getAnalysis<SyncAnalysis>();
    // A fence is not a memory access: the analysis stays valid.
    markAnalysesPreserved<SyncAnalysis>();
    fenceAsyncReads(getOperation());
    if (!facts.hasPeerCompletedMBarriers())
      return;
    // Blocks that initialise a peer-completed mbarrier, and their last init:
    // one fence after it covers every earlier init of the thread.
    llvm::MapVector<Block *, MBarrierInitOp> lastInit;
    llvm::DenseSet<Block *> needsFence;
    getOperation().walk([&](MBarrierInitOp init) {
      lastInit[init->getBlock()] = init;
      if (!rootAlloc(init.getMbar()) || facts.isPeerCompleted(init.getMbar()))
        needsFence.insert(init->getBlock());
    });
    for (auto &[block, init] : lastInit) {
      if (!needsFence.contains(block))
        continue;
      if (fencedAfter(init))
        continue;
      OpBuilder b(init->getContext());
      b.setInsertionPointAfter(init);
      auto fence = FenceMBarrierInitOp::create(b, init.getLoc());
      setReason(fence, "fence.mbarrier_init.release.cluster: a peer or st.async completes this "
                       "mbarrier");
    }
  }
};

} // namespace
