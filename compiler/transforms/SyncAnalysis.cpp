//===- SyncAnalysis.cpp - facts the memory-model passes share --------------===//
#include "SyncAnalysis.h"


using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

SharedAllocOp sync::rootAlloc(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (auto alloc = dyn_cast<SharedAllocOp>(def))
      return alloc;
    if (auto add = dyn_cast<PtrAddOp>(def))
      ptr = add.getBase();
    else if (auto mapa = dyn_cast<MapaOp>(def))
      ptr = mapa.getSource();
    else if (auto element = dyn_cast<TileElementOp>(def)) // t[i, j] of a tile
      ptr = element.getBase();
    else
      return nullptr;
  }
  return nullptr;
}

static AddressSpace spaceOf(Value ptr) { return cast<PtrType>(ptr.getType()).getSpace(); }

SyncAnalysis::SyncAnalysis(KernelOp kernel) {
  kernel.walk([&](Operation *op) {
    if (auto mapa = dyn_cast<MapaOp>(op))
      if (SharedAllocOp alloc = rootAlloc(mapa.getSource()))
        peerAllocs_.insert(alloc);
    if (auto completion = dyn_cast<MBarrierCompletionOpInterface>(op))
      if (completion.completesRemotely())
        if (SharedAllocOp alloc = rootAlloc(completion.getCompletedMBarrier()))
          peerCompleted_.insert(alloc);
  });
  kernelAccesses_ = accesses(kernel);
}

MemKind SyncAnalysis::kindOf(Value ptr) const {
  switch (spaceOf(ptr)) {
  case AddressSpace::global:
    return kGlobal;
  case AddressSpace::cluster:
    return kPeerSmem;
  case AddressSpace::shared: {
    SharedAllocOp alloc = rootAlloc(ptr);
    return !alloc || peerAllocs_.contains(alloc) ? kPeerSmem : kLocalSmem;
  }
  case AddressSpace::local:
    return kNone;
  }
  return kNone;
}

AccessSummary SyncAnalysis::accesses(Operation *root) const {
  AccessSummary summary;
  root->walk([&](MemoryAccessOpInterface access) {
    unsigned proxy = static_cast<unsigned>(access.getAccessProxy());
    MemKind kind = kindOf(access.getAccessPtr());
    for (Value other : access.getOtherAccessPtrs()) // wgmma's second operand
      kind = static_cast<MemKind>(kind | kindOf(other));
    if (access.readsMemory())
      summary.reads[proxy] |= kind;
    if (access.writesMemory())
      summary.writes[proxy] |= kind;
  });
  return summary;
}

bool SyncAnalysis::isPeerCompleted(Value mbar) const {
  SharedAllocOp alloc = rootAlloc(mbar);
  return alloc && peerCompleted_.contains(alloc);
}

bool SyncAnalysis::initialisesPeerMemory(Operation *root) const {
  if (accesses(root).writesBy(MemoryProxy::generic) & kPeerSmem)
    return true;
  WalkResult r = root->walk([&](MBarrierInitOp init) {
    return isPeerCompleted(init.getMbar()) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return r.wasInterrupted();
}

bool SyncAnalysis::touchesOwnPeerMemory(Operation *root) const {
  WalkResult r = root->walk([&](MemoryAccessOpInterface access) {
    SmallVector<Value, 2> ptrs{access.getAccessPtr()};
    ptrs.append(access.getOtherAccessPtrs());
    bool own = llvm::any_of(ptrs, [&](Value ptr) {
      return spaceOf(ptr) == AddressSpace::shared && kindOf(ptr) == kPeerSmem;
    });
    return own ? WalkResult::interrupt() : WalkResult::advance();
  });
  return r.wasInterrupted();
}

MemoryScope SyncAnalysis::mbarrierScope(Value mbar) const {
  bool remote = spaceOf(mbar) == AddressSpace::cluster;
  return remote || isPeerCompleted(mbar) ? MemoryScope::cluster : MemoryScope::cta;
}

bool sync::isRemoteAccess(Operation *op) {
  if (auto access = dyn_cast<MemoryAccessOpInterface>(op))
    if (access.getAccessSpace() == AddressSpace::cluster)
      return true;
  if (auto completion = dyn_cast<MBarrierCompletionOpInterface>(op))
    return completion.completesRemotely();
  return false;
}

Operation *sync::firstRemoteAccess(Operation *root) {
  Operation *found = nullptr;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isRemoteAccess(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

bool sync::containsRemoteAccess(Operation *op) { return firstRemoteAccess(op) != nullptr; }

bool sync::isClusterBarrier(Operation *op) { return isa<ClusterSyncOp, ClusterWaitOp>(op); }

bool sync::isPureCompute(Operation *root) {
  WalkResult r = root->walk([&](Operation *op) {
    // Memory and mbarriers first, whatever dialect declares them: only
    // thread-local slots are invisible to other threads.
    if (auto access = dyn_cast<MemoryAccessOpInterface>(op))
      return access.getAccessSpace() == AddressSpace::local ? WalkResult::advance()
                                                            : WalkResult::interrupt();
    if (isa<MBarrierCompletionOpInterface>(op))
      return WalkResult::interrupt();
    if (op->getDialect() != op->getContext()->getLoadedDialect<TileDialect>())
      return WalkResult::advance(); // arith, scf: no memory of their own
    if (isa<SRegOp, PtrAddOp, MapaOp, LocalVarOp, LocalArrayOp, SharedAllocOp, WarpgroupIdOp>(op))
      return WalkResult::advance();
    return WalkResult::interrupt(); // barriers, fences, mbarrier ops
  });
  return !r.wasInterrupted();
}
static TileDialect *tileDialect(Operation *op) {
  return op->getContext()->getLoadedDialect<TileDialect>();
}

void sync::setReason(Operation *op, StringRef reason) {
  tileDialect(op)->getSyncAttrHelper().setAttr(op, StringAttr::get(op->getContext(), reason));
}

StringAttr sync::getReason(Operation *op) {
  return tileDialect(op)->getSyncAttrHelper().getAttr(op);
}

void sync::markCompilerInserted(Operation *op) {
  tileDialect(op)->getAutoAttrHelper().setAttr(op, UnitAttr::get(op->getContext()));
}

bool sync::isCompilerInserted(Operation *op) {
  return tileDialect(op)->getAutoAttrHelper().isAttrPresent(op);
}

void sync::clearCompilerInserted(Operation *op) {
  if (isCompilerInserted(op))
    tileDialect(op)->getAutoAttrHelper().removeAttr(op);
}
