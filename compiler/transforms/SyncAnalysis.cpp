//===- SyncAnalysis.cpp - facts the memory-model passes share --------------===//
#include "SyncAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
    else
      return nullptr;
  }
  return nullptr;
}

KernelFacts::KernelFacts(KernelOp kernel) {
  kernel.walk([&](Operation *op) {
    if (auto mapa = dyn_cast<MapaOp>(op))
      if (SharedAllocOp alloc = rootAlloc(mapa.getSource()))
        peerAllocs.insert(alloc);
    Value remoteMBarrier;
    if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
      remoteMBarrier = arrive.getMbar();
    else if (auto store = dyn_cast<StoreAsyncOp>(op))
      remoteMBarrier = store.getMbar();
    if (remoteMBarrier && cast<PtrType>(remoteMBarrier.getType()).getSpace() == AddressSpace::cluster)
      if (SharedAllocOp alloc = rootAlloc(remoteMBarrier))
        remoteMBarriers.insert(alloc);
  });
  genericAccesses(kernel, genericReads, genericWrites);
}

MemKind KernelFacts::kindOf(Value ptr) const {
  switch (cast<PtrType>(ptr.getType()).getSpace()) {
  case AddressSpace::global:
    return kGlobal;
  case AddressSpace::cluster:
    return kPeerSmem;
  case AddressSpace::shared: {
    SharedAllocOp alloc = rootAlloc(ptr);
    return !alloc || peerAllocs.contains(alloc) ? kPeerSmem : kLocalSmem;
  }
  case AddressSpace::local:
    return kNone;
  }
  return kNone;
}

void KernelFacts::genericAccesses(Operation *root, unsigned &reads, unsigned &writes) const {
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op))
      reads |= kindOf(load.getPtr());
    else if (auto store = dyn_cast<StoreOp>(op))
      writes |= kindOf(store.getPtr());
    else if (auto rmw = dyn_cast<AtomicRMWOp>(op)) {
      reads |= kindOf(rmw.getPtr());
      writes |= kindOf(rmw.getPtr());
    } else if (auto cas = dyn_cast<AtomicCASOp>(op)) {
      reads |= kindOf(cas.getPtr());
      writes |= kindOf(cas.getPtr());
    }
  });
}

bool KernelFacts::initialisesPeerMemory(Operation *root) const {
  unsigned reads = kNone, writes = kNone;
  genericAccesses(root, reads, writes);
  if (writes & kPeerSmem)
    return true;
  WalkResult r = root->walk([&](MBarrierInitOp init) {
    SharedAllocOp alloc = rootAlloc(init.getMbar());
    return alloc && remoteMBarriers.contains(alloc) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return r.wasInterrupted();
}

bool KernelFacts::touchesOwnPeerMemory(Operation *root) const {
  WalkResult r = root->walk([&](Operation *op) {
    Value ptr;
    if (auto load = dyn_cast<LoadOp>(op))
      ptr = load.getPtr();
    else if (auto store = dyn_cast<StoreOp>(op))
      ptr = store.getPtr();
    else if (auto rmw = dyn_cast<AtomicRMWOp>(op))
      ptr = rmw.getPtr();
    else if (auto cas = dyn_cast<AtomicCASOp>(op))
      ptr = cas.getPtr();
    bool own = ptr && cast<PtrType>(ptr.getType()).getSpace() == AddressSpace::shared &&
               kindOf(ptr) == kPeerSmem;
    return own ? WalkResult::interrupt() : WalkResult::advance();
  });
  return r.wasInterrupted();
}

static bool isClusterPtr(Value v) {
  return cast<PtrType>(v.getType()).getSpace() == AddressSpace::cluster;
}

bool sync::isRemoteAccess(Operation *op) {
  if (auto load = dyn_cast<LoadOp>(op))
    return isClusterPtr(load.getPtr());
  if (auto store = dyn_cast<StoreOp>(op))
    return isClusterPtr(store.getPtr());
  if (auto rmw = dyn_cast<AtomicRMWOp>(op))
    return isClusterPtr(rmw.getPtr());
  if (auto cas = dyn_cast<AtomicCASOp>(op))
    return isClusterPtr(cas.getPtr());
  if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
    return isClusterPtr(arrive.getMbar());
  return isa<StoreAsyncOp>(op);
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
    if (op->getDialect() != op->getContext()->getLoadedDialect<TileDialect>())
      return WalkResult::advance(); // arith, scf: no memory of their own
    if (isa<SRegOp, PtrAddOp, MapaOp, LocalVarOp, SharedAllocOp>(op))
      return WalkResult::advance();
    if (auto load = dyn_cast<LoadOp>(op))
      return cast<PtrType>(load.getPtr().getType()).getSpace() == AddressSpace::local
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (auto store = dyn_cast<StoreOp>(op))
      return cast<PtrType>(store.getPtr().getType()).getSpace() == AddressSpace::local
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

static bool isUniformImpl(Value v, Uniformity over, unsigned depth) {
  if (depth > 32)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<KernelOp>(owner))
      return true; // a kernel parameter
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      return arg == loop.getInductionVar() && isUniformImpl(loop.getLowerBound(), over, depth + 1) &&
             isUniformImpl(loop.getUpperBound(), over, depth + 1) &&
             isUniformImpl(loop.getStep(), over, depth + 1);
    return false;
  }
  Operation *def = v.getDefiningOp();
  if (auto sreg = dyn_cast<SRegOp>(def)) {
    switch (sreg.getReg()) {
    case SpecialReg::tid_x:
    case SpecialReg::tid_y:
    case SpecialReg::tid_z:
    case SpecialReg::laneid:
      return false;
    case SpecialReg::ctaid_x:
    case SpecialReg::ctaid_y:
    case SpecialReg::ctaid_z:
    case SpecialReg::cluster_ctarank:
    case SpecialReg::cluster_ctaid_x:
    case SpecialReg::cluster_ctaid_y:
    case SpecialReg::cluster_ctaid_z:
      return over == Uniformity::Warp; // differ between the CTAs of a cluster
    default:
      return true; // dims, cluster ids: the same over the cluster
    }
  }
  if (def->getDialect() != def->getContext()->getLoadedDialect<arith::ArithDialect>())
    return false; // loads, atomics, region results: assume they differ per thread
  return llvm::all_of(def->getOperands(),
                      [&](Value operand) { return isUniformImpl(operand, over, depth + 1); });
}

bool sync::isUniform(Value v, Uniformity over) { return isUniformImpl(v, over, 0); }

bool sync::regionsRunUniformly(Operation *op, Uniformity over) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return isUniform(ifOp.getCondition(), over);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return isUniform(loop.getLowerBound(), over) && isUniform(loop.getUpperBound(), over) &&
           isUniform(loop.getStep(), over);
  return false; // while loops and anything else: not proven
}

bool sync::inUniformControlFlow(Operation *op, Uniformity over) {
  for (Operation *parent = op->getParentOp(); parent && !isa<KernelOp>(parent);
       parent = parent->getParentOp())
    if (!regionsRunUniformly(parent, over))
      return false;
  return true;
}

MemoryScope sync::defaultMBarrierScope(Value mbar, const KernelFacts &facts) {
  bool remote = cast<PtrType>(mbar.getType()).getSpace() == AddressSpace::cluster;
  SharedAllocOp alloc = rootAlloc(mbar);
  bool peersComplete = alloc && facts.remoteMBarriers.contains(alloc);
  return remote || peersComplete ? MemoryScope::cluster : MemoryScope::cta;
}

void sync::setReason(Operation *op, StringRef reason) {
  op->setAttr(kReasonAttr, StringAttr::get(op->getContext(), reason));
}
