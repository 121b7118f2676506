//===- SyncSemantics.cpp - the one owner of open orders and scopes ---------===//
//
// Every order and scope of an mbarrier operation, fence or cluster arrive
// that the source left open is decided here, and nowhere else: the frontend
// records only what the user wrote, the other passes insert ops with their
// order open, and the lowering rejects an op that reaches it undecided. The
// pass runs with and without --no-auto-sync (that flag stops insertions, not
// the correctness of what the user wrote), so both modes give the same code.
//
//  - scope of mbarrier arrive/expect_tx/wait/try_wait: the acquire of a wait
//    must cover the threads whose arrives (release) and complete-tx it
//    synchronises with (PTX ISA 9.7.13.15.16), so a peer's mbarrier, or one
//    that some op completes from another CTA (MBarrierCompletionOpInterface),
//    is `.cluster`; `.cta` otherwise;
//  - order of mbarrier arrives and of compiler-inserted cluster arrives:
//    `.release` when memory written before them is read after the wait
//    (by the generic proxy anywhere in the kernel, or by the async proxy
//    after a wait that synchronises with the arrive), `.relaxed` otherwise
//    (PTX ISA 9.7.13.4, 9.7.13.15.13: only a release orders prior writes;
//    relaxed is much cheaper, measured 37 vs 411 ns);
//  - order of waits: `.acquire` (the data they guard must be visible);
//  - a cluster_arrive() the user wrote without an order: `.release`, the
//    language's default (docs/reference/sync.md);
//  - fence without order/scope: `.acq_rel`, `.gpu` (the language's default);
//  - `bar.sync` (= barrier.sync.aligned, PTX ISA 9.7.13.1) only for CTA
//    barriers and a role's named barriers in warp-uniform control flow
//    (UniformityAnalysis: loop-carried `var`s and iteration values
//    included).
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"
#include "Uniformity.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESYNCSEMANTICS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

struct SyncSemanticsPass : mlir::tile::impl::TileSyncSemanticsBase<SyncSemanticsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    facts = &getAnalysis<SyncAnalysis>();
    uniformity = &getAnalysis<UniformityAnalysis>();
    publishes = facts->publishesMemory();
    kernel.walk([&](Operation *op) { decide(op); });
    // Only attributes change: no access, completion or value appears or goes.
    markAnalysesPreserved<SyncAnalysis, UniformityAnalysis>();
  }

  void decide(Operation *op) {
    if (auto arrive = dyn_cast<MBarrierArriveOp>(op)) {
      if (!arrive.getScope())
        arrive.setScopeAttr(scopeFor(arrive.getMbar()));
      if (!arrive.getOrder()) {
        bool release = releases(op);
        arrive.setOrderAttr(orderFor(op, release));
        setReason(op, std::string("mbarrier arrive: ") + (release ? "release" : "relaxed") + " (" +
                          whyReleaseOrRelaxed(op) + ")");
      }
    } else if (auto expect = dyn_cast<MBarrierExpectTxOp>(op)) {
      if (!expect.getScope()) // the order is always .relaxed: the only one PTX has
        expect.setScopeAttr(scopeFor(expect.getMbar()));
    } else if (auto wait = dyn_cast<MBarrierWaitOp>(op)) {
      decideWait(
          op, wait.getMbar(), wait.getOrderAttr(), wait.getScopeAttr(),
          [&](MemoryOrderAttr o) { wait.setOrderAttr(o); },
          [&](MemoryScopeAttr s) { wait.setScopeAttr(s); });
    } else if (auto probe = dyn_cast<MBarrierTryWaitOp>(op)) {
      decideWait(
          op, probe.getMbar(), probe.getOrderAttr(), probe.getScopeAttr(),
          [&](MemoryOrderAttr o) { probe.setOrderAttr(o); },
          [&](MemoryScopeAttr s) { probe.setScopeAttr(s); });
    } else if (auto arrive = dyn_cast<ClusterArriveOp>(op)) {
      if (isCompilerInserted(op)) {
        clearCompilerInserted(op);
        if (!arrive.getOrder()) {
          bool release = releases(op);
          arrive.setOrderAttr(orderFor(op, release));
          StringAttr reason = getReason(op);
          setReason(op, (reason ? reason.getValue().str() : std::string("cluster arrive")) + " (" +
                            (release ? "release: " : "relaxed: ") + whyReleaseOrRelaxed(op) + ")");
        }
      } else if (!arrive.getOrder()) {
        arrive.setOrderAttr(MemoryOrderAttr::get(op->getContext(), MemoryOrder::release));
      }
    } else if (auto fence = dyn_cast<FenceOp>(op)) {
      if (!fence.getOrder())
        fence.setOrderAttr(MemoryOrderAttr::get(op->getContext(), MemoryOrder::acq_rel));
      if (!fence.getScope())
        fence.setScopeAttr(MemoryScopeAttr::get(op->getContext(), MemoryScope::gpu));
    } else if (auto barrier = dyn_cast<BarrierOp>(op)) {
      if (uniformity->runsAligned(op))
        barrier.setAligned(true);
      else
        setReason(op, "barrier.sync 0, not bar.sync: threads of a warp may reach it apart");
    } else if (auto named = dyn_cast<NamedBarrierOp>(op)) {
      if (uniformity->runsAligned(op))
        named.setAligned(true);
      else
        setReason(op, "barrier.sync, not bar.sync: threads of a warp may reach it apart");
    }
  }

  template <typename SetOrder, typename SetScope>
  void decideWait(Operation *op, Value mbar, MemoryOrderAttr order, MemoryScopeAttr scope,
                  SetOrder setOrder, SetScope setScope) {
    if (!order)
      setOrder(MemoryOrderAttr::get(op->getContext(), MemoryOrder::acquire));
    if (scope)
      return;
    MemoryScopeAttr decided = scopeFor(mbar);
    setScope(decided);
    if (decided.getValue() == MemoryScope::cluster)
      setReason(op, "mbarrier wait: acquire.cluster (a peer or st.async completes it)");
  }

  MemoryScopeAttr scopeFor(Value mbar) {
    return MemoryScopeAttr::get(mbar.getContext(), facts->mbarrierScope(mbar));
  }
  /// An arrive releases when memory written generically is read generically
  /// by another thread (the whole-kernel approximation), or when generic
  /// writes before it are read by the async proxy after the wait (the
  /// writers' proxy fence orders them with the async proxy only within the
  /// thread; the release carries them to the waiting thread).
  bool releases(Operation *op) const { return publishes || facts->releasesToAsyncReads(op); }
  static MemoryOrderAttr orderFor(Operation *op, bool release) {
    return MemoryOrderAttr::get(op->getContext(),
                                release ? MemoryOrder::release : MemoryOrder::relaxed);
  }
  const char *whyReleaseOrRelaxed(Operation *op) const {
    if (publishes)
      return "memory written before it is read after the wait";
    return facts->releasesToAsyncReads(op)
               ? "a tile written before it is read by the async proxy after the wait"
               : "nothing written before it is read after the wait";
  }

  const SyncAnalysis *facts = nullptr;
  const UniformityAnalysis *uniformity = nullptr;
  bool publishes = false;
};

} // namespace
