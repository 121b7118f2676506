//===- SyncAnalysis.cpp - facts the memory-model passes share --------------===//
#include "SyncAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

static std::optional<Value> pointerRootIn(Value ptr, llvm::SmallPtrSetImpl<Operation *> &visiting);

/// The root of what every store into the pointer variable `slot` writes, when
/// they all agree (a variable that holds one array's or parameter's pointers
/// plus offsets: `var f = flags; if c { f = flags + 1 }`); null when they do
/// not, or the variable has a use other than loads and stores into it.
/// nullopt when only stores through a variable being traced were seen
/// (`f = f + 1` in a loop adds nothing the other stores do not say).
static std::optional<Value> slotRoot(LocalVarOp slot,
                                     llvm::SmallPtrSetImpl<Operation *> &visiting) {
  if (!visiting.insert(slot).second)
    return std::nullopt;
  llvm::scope_exit done([&] { visiting.erase(slot); });
  std::optional<Value> root;
  for (Operation *user : slot->getUsers()) {
    if (auto load = dyn_cast<LoadOp>(user); load && load.getPtr() == slot.getResult())
      continue;
    auto store = dyn_cast<StoreOp>(user);
    if (!store || store.getPtr() != slot.getResult())
      return Value();
    std::optional<Value> stored = pointerRootIn(store.getValue(), visiting);
    if (!stored)
      continue;
    if (root && *root != *stored)
      return Value();
    root = stored;
  }
  return root;
}

/// What ptr is derived from through ptr_add, mapa, tile elements, selects of
/// one root and pointer variables: a shared allocation's result, a block
/// argument, or the first other op's result; nullopt only inside slotRoot's
/// cycles.
static std::optional<Value> pointerRootIn(Value ptr, llvm::SmallPtrSetImpl<Operation *> &visiting) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (auto add = dyn_cast<PtrAddOp>(def)) {
      ptr = add.getBase();
    } else if (auto mapa = dyn_cast<MapaOp>(def)) {
      ptr = mapa.getSource();
    } else if (auto element = dyn_cast<TileElementOp>(def)) { // t[i, j] of a tile
      ptr = element.getBase();
    } else if (auto select = dyn_cast<arith::SelectOp>(def)) {
      std::optional<Value> a = pointerRootIn(select.getTrueValue(), visiting);
      std::optional<Value> b = pointerRootIn(select.getFalseValue(), visiting);
      if (!a || !b)
        return a ? a : b;
      return *a == *b ? *a : ptr;
    } else if (auto load = dyn_cast<LoadOp>(def)) {
      auto slot = load.getPtr().getDefiningOp<LocalVarOp>();
      if (!slot)
        return ptr;
      std::optional<Value> root = slotRoot(slot, visiting);
      if (!root)
        return std::nullopt;
      return *root ? *root : ptr;
    } else {
      break;
    }
  }
  return ptr;
}

static Value pointerRoot(Value ptr) {
  llvm::SmallPtrSet<Operation *, 4> visiting;
  return pointerRootIn(ptr, visiting).value_or(ptr);
}

SharedAllocOp sync::rootAlloc(Value ptr) { return pointerRoot(ptr).getDefiningOp<SharedAllocOp>(); }

Value sync::syncObject(Value ptr) {
  Value root = pointerRoot(ptr);
  if (root.getDefiningOp<SharedAllocOp>())
    return root;
  auto param = dyn_cast<BlockArgument>(root);
  return param && isa<KernelOp>(param.getOwner()->getParentOp()) ? root : Value();
}

static AddressSpace spaceOf(Value ptr) { return cast<PtrType>(ptr.getType()).getSpace(); }

/// The shared allocations of an access: its pointer and, for a wgmma, the
/// second operand's.
static SmallVector<SharedAllocOp, 2> allocsOf(MemoryAccessOpInterface access) {
  SmallVector<SharedAllocOp, 2> allocs;
  SmallVector<Value, 2> ptrs{access.getAccessPtr()};
  ptrs.append(access.getOtherAccessPtrs());
  for (Value p : ptrs)
    if (SharedAllocOp alloc = rootAlloc(p))
      allocs.push_back(alloc);
  return allocs;
}

static bool accessesAny(Operation *root, MemoryProxy proxy, bool write,
                        const llvm::DenseSet<Operation *> &allocs) {
  if (allocs.empty())
    return false;
  WalkResult r = root->walk([&](MemoryAccessOpInterface access) {
    if (access.getAccessProxy() != proxy || !(write ? access.writesMemory() : access.readsMemory()))
      return WalkResult::advance();
    for (SharedAllocOp alloc : allocsOf(access))
      if (allocs.contains(alloc))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return r.wasInterrupted();
}

Value sync::waitedMBarrier(Operation *op) {
  if (auto wait = dyn_cast<MBarrierWaitOp>(op))
    return wait.getMbar();
  if (auto probe = dyn_cast<MBarrierTryWaitOp>(op))
    return probe.getMbar();
  return nullptr;
}

/// A generic-proxy access that is not weak: only such an access takes part
/// in a release or acquire pattern (PTX ISA "Memory Consistency Model":
/// morally strong operations).
static MemoryAccessOpInterface strongAccess(Operation *op) {
  auto access = dyn_cast<MemoryAccessOpInterface>(op);
  if (!access || access.getAccessProxy() != MemoryProxy::generic ||
      access.getAccessOrder() == MemoryOrder::weak)
    return nullptr;
  return access;
}

std::optional<Value> sync::releasedObject(Operation *op) {
  if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
    return syncObject(arrive.getMbar());
  MemoryAccessOpInterface access = strongAccess(op);
  if (!access || !access.writesMemory())
    return std::nullopt;
  MemoryOrder order = access.getAccessOrder();
  if (order != MemoryOrder::release && order != MemoryOrder::acq_rel && order != MemoryOrder::sc)
    return std::nullopt;
  return syncObject(access.getAccessPtr());
}

std::optional<Value> sync::acquiredObject(Operation *op) {
  if (Value mbar = waitedMBarrier(op))
    return syncObject(mbar);
  MemoryAccessOpInterface access = strongAccess(op);
  if (!access || !access.readsMemory())
    return std::nullopt;
  MemoryOrder order = access.getAccessOrder();
  if (order != MemoryOrder::acquire && order != MemoryOrder::acq_rel && order != MemoryOrder::sc)
    return std::nullopt;
  return syncObject(access.getAccessPtr());
}

/// The objects of the strong writes after `fence` (reads before it): what
/// its release (acquire) pattern synchronises on.
static void forEachPatternObject(Operation *fence, bool release, SyncPointFn fn) {
  auto visit = [&](Operation *op) {
    op->walk([&](Operation *inner) {
      MemoryAccessOpInterface access = strongAccess(inner);
      if (access && (release ? access.writesMemory() : access.readsMemory()))
        fn(fence, syncObject(access.getAccessPtr()));
    });
  };
  if (release)
    forEachOpAfter(fence, visit);
  else
    forEachOpBefore(fence, visit);
}

void sync::forEachReleaseIn(Operation *op, SyncPointFn fn) {
  op->walk([&](Operation *inner) {
    if (std::optional<Value> object = releasedObject(inner))
      fn(inner, *object);
    else if (isa<FenceOp>(inner)) // fence.acq_rel or fence.sc, both release
      forEachPatternObject(inner, /*release=*/true, fn);
  });
}

void sync::forEachAcquireIn(Operation *op, SyncPointFn fn) {
  op->walk([&](Operation *inner) {
    if (std::optional<Value> object = acquiredObject(inner))
      fn(inner, *object);
    else if (isa<FenceOp>(inner))
      forEachPatternObject(inner, /*release=*/false, fn);
  });
}

void sync::forEachReleaseAfter(Operation *at, SyncPointFn fn) {
  forEachOpAfter(at, [&](Operation *op) { forEachReleaseIn(op, fn); });
}

void sync::forEachAcquireBefore(Operation *at, SyncPointFn fn) {
  forEachOpBefore(at, [&](Operation *op) { forEachAcquireIn(op, fn); });
}

bool sync::writesGenerically(Operation *op, const llvm::DenseSet<Operation *> &allocs) {
  return accessesAny(op, MemoryProxy::generic, /*write=*/true, allocs);
}

bool sync::readsAsync(Operation *op, const llvm::DenseSet<Operation *> &allocs) {
  return accessesAny(op, MemoryProxy::async, /*write=*/false, allocs);
}

static void forEachOpAround(Operation *at, bool after, llvm::function_ref<void(Operation *)> fn) {
  for (Operation *op = at; op && !isa<KernelOp>(op); op = op->getParentOp()) {
    if (op != at && isa<LoopLikeOpInterface>(op))
      fn(op); // its other iterations run before and after `at`
    for (Operation *other = after ? op->getNextNode() : op->getPrevNode(); other;
         other = after ? other->getNextNode() : other->getPrevNode())
      // A role's threads do not run the other roles (a thread before every
      // role may run any of them).
      if (!(isa<RoleOp>(op) && isa<RoleOp>(other)))
        fn(other);
  }
}

bool sync::writtenBefore(Operation *at, const llvm::DenseSet<Operation *> &allocs) {
  bool written = false;
  forEachOpBefore(at, [&](Operation *op) { written = written || writesGenerically(op, allocs); });
  return written;
}

void sync::forEachOpBefore(Operation *at, llvm::function_ref<void(Operation *)> fn) {
  forEachOpAround(at, /*after=*/false, fn);
}

void sync::forEachOpAfter(Operation *at, llvm::function_ref<void(Operation *)> fn) {
  forEachOpAround(at, /*after=*/true, fn);
}

bool sync::walkOpsBefore(Operation *at,
                         llvm::function_ref<bool(Operation *op, Operation *from)> fn) {
  auto walkBlock = [&](Operation *from) {
    for (Operation *prev = from->getPrevNode(); prev; prev = prev->getPrevNode())
      if (fn(prev, from))
        return true;
    return false;
  };
  for (Operation *op = at; op && !isa<KernelOp>(op); op = op->getParentOp()) {
    if (walkBlock(op))
      return true;
    if (auto loop = dyn_cast_or_null<scf::WhileOp>(op->getParentOp());
        loop && op->getParentRegion() == &loop.getAfter() && walkBlock(loop.getConditionOp()))
      return true;
  }
  return false;
}

bool sync::mayRunInOneThread(Operation *a, Operation *b) {
  bool found = false;
  auto visit = [&](Operation *op) { found = found || op->isAncestor(b); };
  forEachOpBefore(a, visit);
  forEachOpAfter(a, visit);
  return found;
}

SyncAnalysis::SyncAnalysis(KernelOp kernel) : kernel_(kernel) {
  llvm::DenseSet<Operation *> genericWritten, asyncRead;
  kernel.walk([&](MemoryAccessOpInterface access) {
    for (SharedAllocOp alloc : allocsOf(access)) {
      if (access.getAccessProxy() == MemoryProxy::generic && access.writesMemory())
        genericWritten.insert(alloc);
      if (access.getAccessProxy() == MemoryProxy::async && access.readsMemory())
        asyncRead.insert(alloc);
    }
  });
  for (Operation *alloc : genericWritten)
    if (asyncRead.contains(alloc))
      asyncReadGenericWritten_.insert(alloc);
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

/// Whether a release at `release` of `object` and an acquire at `acquire` of
/// `acquired` may synchronise: an mbarrier's arrive with a wait on it, a
/// flag's release with an acquire of it (an object not traced: any).
static bool mayPair(Operation *release, Value object, Operation *acquire, Value acquired) {
  if (isa<MBarrierArriveOp>(release) != (waitedMBarrier(acquire) != nullptr))
    return false;
  return !object || !acquired || object == acquired;
}

bool SyncAnalysis::releasesToAsyncReads(Operation *arrive) const {
  const llvm::DenseSet<Operation *> &tiles = asyncReadGenericWritten_;
  if (tiles.empty())
    return false;
  auto mbarrierArrive = dyn_cast<MBarrierArriveOp>(arrive);
  if (!mbarrierArrive) {
    // A cluster arrive: its wait comes next in the same threads.
    bool read = false;
    if (writtenBefore(arrive, tiles))
      forEachOpAfter(arrive, [&](Operation *op) { read = read || readsAsync(op, tiles); });
    return read;
  }
  struct Point {
    Operation *op;
    Value object;
  };
  SmallVector<Point> releases, acquires;
  KernelOp kernel = kernel_;
  forEachReleaseIn(kernel, [&](Operation *op, Value object) { releases.push_back({op, object}); });
  forEachAcquireIn(kernel, [&](Operation *op, Value object) { acquires.push_back({op, object}); });
  // Upstream: the writes precede the arrive in its thread, or precede a
  // release that acquire-then-release steps hand on to it (a relay that
  // waits on one mbarrier, then arrives on this one: release patterns are
  // cumulative, PTX ISA "Memory Consistency Model", causality order).
  bool handedOn = false;
  if (!writtenBefore(arrive, tiles)) {
    llvm::SmallPtrSet<Operation *, 8> visited{arrive};
    SmallVector<Operation *> work{arrive};
    while (!work.empty() && !handedOn)
      forEachAcquireBefore(work.pop_back_val(), [&](Operation *acquire, Value acquired) {
        for (Point r : releases)
          if (mayPair(r.op, r.object, acquire, acquired) && visited.insert(r.op).second) {
            handedOn = handedOn || writtenBefore(r.op, tiles);
            work.push_back(r.op);
          }
      });
    if (!handedOn)
      return false;
  }
  // Downstream: an async read of the tiles after an acquire that
  // synchronises with the arrive, or with a release after such an acquire
  // (handed on). Once a step hands on, only the reads of threads that
  // write none of the tiles count: a thread's own writes reach its read in
  // program order (a ring's consumer stores its epilogue tile; its
  // stage release does not carry that tile to itself), and only those of
  // threads other than the arrive's (a storer's release of its staging
  // tile comes back to its own store through the writers' arrive).
  auto writesTiles = [&](Operation *at) {
    bool writes = writtenBefore(at, tiles);
    forEachOpAfter(at, [&](Operation *op) { writes = writes || writesGenerically(op, tiles); });
    return writes;
  };
  llvm::SmallPtrSet<Operation *, 8> visited{arrive};
  SmallVector<std::pair<Point, bool>> work{
      {{arrive, syncObject(mbarrierArrive.getMbar())}, handedOn}};
  while (!work.empty()) {
    auto [release, relayed] = work.pop_back_val();
    for (Point acquire : acquires) {
      if (!mayPair(release.op, release.object, acquire.op, acquire.object))
        continue;
      bool countsReads =
          !relayed || (!writesTiles(acquire.op) && !mayRunInOneThread(arrive, acquire.op));
      bool read = false;
      forEachOpAfter(acquire.op, [&](Operation *op) {
        read = read || (countsReads && readsAsync(op, tiles));
        forEachReleaseIn(op, [&](Operation *next, Value object) {
          if (visited.insert(next).second)
            work.push_back({{next, object}, true});
        });
      });
      if (read)
        return true;
    }
  }
  return false;
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
