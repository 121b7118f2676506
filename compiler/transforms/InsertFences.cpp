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
// "Proxies"; the proxy-fence rule): the fence goes right before the
// nearest barrier preceding the store (every writer runs it; inside a role,
// the role's named barrier), or before the store itself when no barrier
// precedes it or writes of the tile come after that barrier (the writes
// then precede the read directly). When the writes reach the reader through
// a release and an acquire instead (the writers arrive on an mbarrier, or
// set a flag with a release store or atomic, after their writes; the reader
// waits on it, or reads the flag with acquire, before the read: the rules
// of SyncAnalysis.h), the fence goes right before each such release, or
// before the sync_warp()/barrier that precedes a one-lane release; an
// arrive's release order is tile-sync-semantics's decision
// (SyncAnalysis::releasesToAsyncReads). One fence per barrier or release,
// never duplicated.
//
// With `check-only` (tilec --no-auto-sync: insert nothing, what is missing is
// an error) the pass inserts neither fence and reports each one it would
// have inserted, unless the user's own fence is there: a fence_proxy_async()
// between the last generic write of the tile and that barrier (or the read),
// a fence_mbarrier_init() after the inits.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/Hint.h"
#include "tilec/Passes.h"

#include "SyncAnalysis.h"
#include "Uniformity.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

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

/// A sync_warp() of every lane in a kernel whose CTA is one warp at most
/// (threads(N) or max_threads(N), N <= 32): bar.warp.sync orders the memory
/// accesses of the threads it joins (PTX ISA "bar.warp.sync"), here every
/// thread of the CTA, as bar.sync does. The lanes past N are no threads.
bool syncsWholeCta(Operation *op) {
  auto sync = dyn_cast<SyncWarpOp>(op);
  APInt mask;
  if (!sync || !matchPattern(sync.getMask(), m_ConstantInt(&mask)) || !mask.isAllOnes())
    return false;
  auto kernel = op->getParentOfType<KernelOp>();
  std::optional<ArrayRef<int32_t>> dims = kernel.getReqThreads();
  if (!dims)
    dims = kernel.getMaxThreads();
  if (!dims)
    return false;
  int64_t threads = 1;
  for (int32_t d : *dims)
    threads *= d;
  return threads <= 32;
}

/// A barrier that orders the writes of the threads it joins: tile.barrier,
/// a role's named barrier, a cluster barrier (or a split one's arrive), a
/// sync_warp() that joins the whole CTA.
bool isBarrier(Operation *op) {
  return isa<BarrierOp, NamedBarrierOp, ClusterSyncOp, ClusterArriveOp>(op) || syncsWholeCta(op);
}

/// The nearest barrier before op in program order (walkOpsBefore), or
/// nullptr: tile.barrier, inside a role the role's tile.named_barrier (the
/// writers of a tile a role stores are its threads), or a cluster barrier:
/// cluster_sync, or the cluster_arrive of a split one (the writers' release
/// is the arrive: their fence goes before it).
Operation *precedingBarrier(Operation *op) {
  Operation *barrier = nullptr;
  walkOpsBefore(op, [&](Operation *prev, Operation *) {
    barrier = isBarrier(prev) ? prev : nullptr;
    return barrier != nullptr;
  });
  return barrier;
}

/// What the end of a stretch of program order holds for the writes of
/// `allocs`: a fence.proxy.async after the last generic write (Fenced), a
/// generic write with no fence after it (Writes), or neither.
enum class Tail { Fenced, Writes, Neither };

Tail tailOf(Operation *op, const llvm::DenseSet<Operation *> &allocs);

/// Scans `block` backward from `from` (exclusive; nullptr: its end).
Tail tailBefore(Block &block, Operation *from, const llvm::DenseSet<Operation *> &allocs) {
  Operation *prev = from ? from->getPrevNode() : (block.empty() ? nullptr : &block.back());
  for (; prev; prev = prev->getPrevNode())
    if (Tail t = tailOf(prev, allocs); t != Tail::Neither)
      return t;
  return Tail::Neither;
}

Tail tailOf(Operation *op, const llvm::DenseSet<Operation *> &allocs) {
  if (isa<FenceProxyAsyncOp>(op))
    return Tail::Fenced;
  if (auto access = dyn_cast<MemoryAccessOpInterface>(op))
    if (access.getAccessProxy() == MemoryProxy::generic && access.writesMemory())
      if (SharedAllocOp alloc = rootAlloc(access.getAccessPtr()); alloc && allocs.contains(alloc))
        return Tail::Writes;
  if (op->getNumRegions() == 0)
    return Tail::Neither;
  // A path through op that ends its writes unfenced is missing a fence; an
  // if whose every branch ends with a fence is fenced; otherwise (a loop
  // may run zero times, a branch may write nothing) what precedes op decides.
  bool allFenced = isa<scf::IfOp>(op);
  for (Region &region : op->getRegions()) {
    if (region.empty())
      allFenced = false;
    for (Block &block : region) {
      Tail t = tailBefore(block, nullptr, allocs);
      if (t == Tail::Writes)
        return Tail::Writes;
      allFenced &= t == Tail::Fenced;
    }
  }
  return allFenced ? Tail::Fenced : Tail::Neither;
}

/// Whether a user's fence.proxy.async comes after the last generic write of
/// `allocs` before `at` in program order (walkOpsBefore): the writes it
/// follows are ordered with the async proxy (the fence covers every earlier
/// write of the thread).
bool userFencedBefore(Operation *at, const llvm::DenseSet<Operation *> &allocs) {
  Tail tail = Tail::Neither;
  walkOpsBefore(at, [&](Operation *prev, Operation *) {
    tail = tailOf(prev, allocs);
    return tail != Tail::Neither;
  });
  return tail == Tail::Fenced;
}

/// Whether a generic write of `allocs` that no fence follows lies between
/// `barrier` and `op` in program order (walkOpsBefore): then the barrier
/// does not order those writes, and the fence goes right before op, after
/// them.
bool unfencedWritesBetween(Operation *barrier, Operation *op,
                           const llvm::DenseSet<Operation *> &allocs) {
  Tail tail = Tail::Neither;
  walkOpsBefore(op, [&](Operation *prev, Operation *) {
    tail = prev == barrier ? Tail::Neither : tailOf(prev, allocs);
    return prev == barrier || tail != Tail::Neither;
  });
  return tail == Tail::Writes;
}

/// Which acquires order the writers' releases before a read.
enum class AcquireMatch {
  mbarrierWaits, // waits on an mbarrier the writers arrive on
  any,           // every acquire (between roles: the writers are another role's threads)
  flags,         // a flag's acquire and a flag release of the same object (any, untraced)
};

/// Whether `match` takes the acquire at `point` of `object`.
bool takes(AcquireMatch match, Operation *point, Value object) {
  switch (match) {
  case AcquireMatch::mbarrierWaits:
    return waitedMBarrier(point) != nullptr;
  case AcquireMatch::any:
    return true;
  case AcquireMatch::flags:
    return !waitedMBarrier(point);
  }
  return false;
}

/// The releases (mbarrier arrives, release stores and atomics, the fences of
/// release patterns: SyncAnalysis.h) that follow generic writes of a set of
/// tiles in their thread's program order: an acquire of their object is
/// where the writes reach the acquiring threads (the writers' proxy fence
/// goes before such a release; tile-sync-semantics makes an arrive a
/// release). An acquire of another object (an mbarrier only TMA completes,
/// say) orders none of those writes.
///
/// With `relays`, also the releases that hand those writes on: a thread that
/// acquires a released object and then releases another passes on what it
/// acquired (release patterns are cumulative, PTX ISA "Memory Consistency
/// Model": causality order), so an acquire of the second object orders the
/// writes too (a relay's wait on one mbarrier then arrive on another, a
/// flag set after a wait). Such a release carries no fence: the writers'
/// fence precedes the first release of the chain.
struct Releases {
  Releases(KernelOp kernel, const llvm::DenseSet<Operation *> &tiles,
           const UniformityAnalysis &uniformity, bool relays) {
    SmallVector<Releasing> handOns;
    forEachReleaseIn(kernel, [&](Operation *point, Value object) {
      if (!writtenBefore(point, tiles)) {
        if (relays)
          handOns.push_back({point, object, point, /*writes=*/false});
        return;
      }
      // A release that one thread makes (`if thread_id() == 0`) releases
      // its own writes, and its warp's or CTA's when a sync_warp() or a
      // barrier orders them before it (every writer fences before that
      // sync); not the others'.
      Operation *sync = uniformity.runsAligned(point) ? nullptr : syncBefore(point, tiles);
      releases.push_back({point, object, sync ? sync : point, /*writes=*/true});
      addObject(object, uniformity.runsAligned(point) || sync);
    });
    // Hand-ons, until no release is added: one whose thread acquires a
    // released object before it (a whole warp's writes stay whole).
    for (bool grew = !releases.empty(); grew;) {
      grew = false;
      for (Releasing &r : handOns) {
        if (!r.point)
          continue;
        bool acquired = false, wholeWarps = false;
        forEachAcquireBefore(r.point, [&](Operation *, Value object) {
          acquired = acquired || releasedBy(object, /*wholeWarps=*/false);
          wholeWarps = wholeWarps || releasedBy(object, /*wholeWarps=*/true);
        });
        if (!acquired)
          continue;
        releases.push_back(r);
        addObject(r.object, wholeWarps);
        r.point = nullptr;
        grew = true;
      }
    }
  }
  /// Whether an acquire of `object` synchronises with one of the releases
  /// (with wholeWarps: with the writes of every thread of the writers' warps).
  bool releasedBy(Value object, bool wholeWarps) const {
    const llvm::DenseSet<Value> &set = wholeWarps ? warpObjects : objects;
    if (wholeWarps ? anyWarpObject : anyObject)
      return true;
    return !set.empty() && (!object || set.contains(object));
  }
  /// Whether op (nested ops included) acquires what one of the releases
  /// released, by an acquire that `match` takes.
  bool acquiredIn(Operation *op, bool wholeWarps, AcquireMatch match) const {
    bool acquired = false;
    forEachAcquireIn(op, [&](Operation *point, Value object) {
      if (!takes(match, point, object))
        return;
      acquired =
          acquired ||
          (match == AcquireMatch::flags
               ? llvm::any_of(releases, [&](const Releasing &r) { return r.releasesFlag(object); })
               : releasedBy(object, wholeWarps));
    });
    return acquired;
  }
  struct Releasing {
    Operation *point;       // the arrive, release store or atomic, or a pattern's fence
    Value object;           // what it releases (null: any)
    Operation *fenceBefore; // the point, or the sync that orders its writers before it
    bool writes;            // its thread writes the tiles before it (else it hands them on)
    /// Whether this is a flag's release that an acquire of `flag` (null: a
    /// pointer not traced to its array or parameter) may synchronise with.
    bool releasesFlag(Value flag) const {
      return !isa<MBarrierArriveOp>(point) && (!object || !flag || object == flag);
    }
  };
  SmallVector<Releasing> releases;

private:
  /// The op holding a sync_warp() or barrier between the last generic write
  /// of the tiles before `point` and the point (walkOpsBefore), or null.
  static Operation *syncBefore(Operation *point, const llvm::DenseSet<Operation *> &tiles) {
    Operation *sync = nullptr;
    walkOpsBefore(point, [&](Operation *prev, Operation *) {
      WalkResult synced = prev->walk([](Operation *op) {
        return isa<SyncWarpOp, BarrierOp, NamedBarrierOp>(op) ? WalkResult::interrupt()
                                                              : WalkResult::advance();
      });
      sync = synced.wasInterrupted() ? prev : nullptr;
      return sync || writesGenerically(prev, tiles);
    });
    return sync;
  }
  void addObject(Value object, bool wholeWarps) {
    if (object) {
      objects.insert(object);
      if (wholeWarps)
        warpObjects.insert(object);
    } else {
      anyObject = true; // not traced to its root: it may be any
      anyWarpObject |= wholeWarps;
    }
  }
  llvm::DenseSet<Value> objects, warpObjects;
  bool anyObject = false, anyWarpObject = false;
};

/// Whether `op` is or contains a barrier (a CTA's, a role's, the cluster's, a
/// sync_warp() of a one-warp CTA)
/// or a wait on an mbarrier the writers arrive on: what orders other
/// threads' earlier writes before what follows it. A flag's acquire is not
/// taken for one here: the release it meets may come after the read (a
/// semaphore the reading thread itself releases later), and outside the
/// roles which thread releases is not known.
bool ordersOtherThreads(Operation *op, const Releases &released) {
  WalkResult r = op->walk([](Operation *inner) {
    return isa<BarrierOp, NamedBarrierOp, ClusterSyncOp, ClusterWaitOp>(inner) ||
                   syncsWholeCta(inner)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return r.wasInterrupted() ||
         released.acquiredIn(op, /*wholeWarps=*/true, AcquireMatch::mbarrierWaits);
}

/// The last generic write of `allocs` in op (nested ops included), or null.
Operation *lastGenericWrite(Operation *op, const llvm::DenseSet<Operation *> &allocs) {
  Operation *write = nullptr;
  op->walk([&](MemoryAccessOpInterface access) {
    if (access.getAccessProxy() == MemoryProxy::generic && access.writesMemory())
      if (SharedAllocOp alloc = rootAlloc(access.getAccessPtr()); alloc && allocs.contains(alloc))
        write = access;
  });
  return write;
}

/// The generic write of `allocs` nearest before `op` in program order
/// (walkOpsBefore) with nothing between them that orders other threads'
/// writes (scanning back from op, a region op holding a barrier or such a
/// wait stops the scan), or nullptr.
Operation *writeSinceBarrier(Operation *op, const llvm::DenseSet<Operation *> &allocs,
                             const Releases &released) {
  Operation *write = nullptr;
  walkOpsBefore(op, [&](Operation *prev, Operation *from) {
    if (isa<RoleOp>(from) && isa<RoleOp>(prev))
      return false; // another role's threads: tile-check-role-handoffs
    if (ordersOtherThreads(prev, released))
      return true;
    write = lastGenericWrite(prev, allocs);
    return write != nullptr;
  });
  return write;
}

/// An async-proxy read (TMA store, wgmma operand) of a tile that a whole warp
/// or more wrote generically with no barrier since: the read may run before
/// the other threads' writes (a fence orders only the fencing thread's own
/// writes, PTX ISA "Memory Consistency Model": proxy fences are per thread,
/// a barrier orders threads). An error at the read, with a note at the
/// write. A write under a per-thread decision (`if thread_id() == 0`) may be
/// the reader's own: not reported.
bool checkUnorderedWriters(MemoryAccessOpInterface access,
                           const llvm::DenseSet<Operation *> &written, const Releases &released,
                           const UniformityAnalysis &uniformity) {
  Operation *write = writeSinceBarrier(access, written, released);
  if (!write || uniformity.controlLevel(write) > ::tile::uniformity::kAlignedMax)
    return true;
  const bool wgmma = isa<MmaOp, MmaRegAOp>(access.getOperation());
  InFlightDiagnostic d = access->emitError(
      Twine("this ") + (wgmma ? "mma reads an operand tile" : "TMA store reads a tile") +
      " that several threads write with no barrier since: it may read the tile before the "
      "other threads' writes reach it");
  d.attachNote(write->getLoc()) << "written here by every thread that reaches it";
  attachHint(d, "add sync_threads() between the writes and the " + Twine(wgmma ? "mma" : "store") +
                    " (the compiler puts the proxy fence the async read needs before it)");
  return false;
}

/// The op nearest before `access` in program order, and after `barrier`
/// (its nearest barrier, or null), that holds an acquire of what the writers
/// of the tiles released, by an acquire that `match` takes; or null.
Operation *precedingReleasedWait(Operation *access, Operation *barrier, const Releases &released,
                                 AcquireMatch match) {
  if (released.releases.empty())
    return nullptr;
  Operation *acquire = nullptr;
  walkOpsBefore(access, [&](Operation *prev, Operation *from) {
    if (prev == barrier)
      return true;
    if (isa<RoleOp>(from) && isa<RoleOp>(prev))
      return false; // another role's threads
    acquire = released.acquiredIn(prev, /*wholeWarps=*/false, match) ? prev : nullptr;
    return acquire != nullptr;
  });
  return acquire;
}

/// Whether a role other than the one `op` runs in writes one of `allocs`
/// generically: its threads are ordered before op only by a release and an acquire (the
/// roles run at the same time; a role's barrier is its own threads').
bool writtenInAnotherRole(Operation *op, const llvm::DenseSet<Operation *> &allocs) {
  auto role = op->getParentOfType<RoleOp>();
  if (!role)
    return false;
  for (Operation &other : *role->getBlock())
    if (isa<RoleOp>(other) && &other != role.getOperation() && writesGenerically(&other, allocs))
      return true;
  return false;
}

/// What a release point is, for messages.
StringRef releaseNoun(Operation *point) {
  if (isa<MBarrierArriveOp>(point))
    return "arrive";
  if (isa<FenceOp>(point))
    return "fence";
  return isa<StoreOp>(point) ? "release store" : "release atomic";
}

/// fence.proxy.async before each release of the writes of `written` whose
/// object `acquire` (an op holding acquires) acquires by an acquire that
/// `match` takes: the writers' fence must precede their release (the
/// proxy-fence rule), the reader's own fence after its acquire would order
/// only its own writes. With checkOnly, an error for each one missing.
/// Returns false after an error.
bool fenceReleases(Operation *acquire, AcquireMatch match, const Releases &released,
                   const llvm::DenseSet<Operation *> &written, bool checkOnly,
                   MemoryAccessOpInterface access) {
  llvm::DenseSet<Value> acquired;
  bool anyAcquired = false, byWait = false;
  forEachAcquireIn(acquire, [&](Operation *point, Value object) {
    if (!takes(match, point, object))
      return;
    byWait = byWait || waitedMBarrier(point);
    if (object)
      acquired.insert(object);
    else
      anyAcquired = true;
  });
  // The releases the acquire synchronises with (a wait's are arrives, a
  // flag's are the flags' releases), each with whether a hand-on lies
  // between it and the acquire.
  llvm::DenseMap<Operation *, bool> matched;
  SmallVector<std::pair<const Releases::Releasing *, bool>> chain;
  auto take = [&](const Releases::Releasing &r, bool handedOn) {
    auto [it, added] = matched.try_emplace(r.point, handedOn);
    if (!added && !(it->second && !handedOn))
      return;
    it->second = handedOn;
    chain.push_back({&r, handedOn});
  };
  for (const Releases::Releasing &r : released.releases) {
    if (match == AcquireMatch::mbarrierWaits && !isa<MBarrierArriveOp>(r.point))
      continue;
    if (match == AcquireMatch::flags && isa<MBarrierArriveOp>(r.point))
      continue;
    if (!r.object || anyAcquired || acquired.contains(r.object))
      take(r, /*handedOn=*/false);
  }
  // And the releases before them in a chain: a thread that acquires an
  // object and then releases passes on what that object's releases released
  // (the PTX memory model's release patterns are cumulative), so their
  // writers fence too: a counter each writer adds to with release order,
  // then the last one's release store of a flag; a relay's wait, then its
  // arrive.
  while (!chain.empty()) {
    auto [r, handedOn] = chain.pop_back_val();
    llvm::DenseSet<Value> chained;
    bool anyChained = false;
    forEachAcquireBefore(r->point, [&](Operation *, Value object) {
      if (object)
        chained.insert(object);
      else
        anyChained = true;
    });
    for (const Releases::Releasing &next : released.releases)
      if (!next.object || anyChained || chained.contains(next.object))
        take(next, handedOn || !r->writes);
  }
  // A writer's release reached only through a hand-on, in code a thread of a
  // writer's release reached without one also runs (a ring's consumer: its
  // stage release reaches its own epilogue store through the producer's
  // stage fill): that thread's writes precede the other release in its
  // program order, fenced there.
  auto coveredByDirect = [&](Operation *point) {
    return llvm::any_of(released.releases, [&](const Releases::Releasing &r) {
      auto it = matched.find(r.point);
      return r.writes && it != matched.end() && !it->second && mayRunInOneThread(point, r.point);
    });
  };
  bool ok = true;
  llvm::SmallPtrSet<Operation *, 4> reported;
  for (auto [point, object, at, writes] : released.releases) {
    auto it = matched.find(point);
    if (!writes || it == matched.end() || (it->second && coveredByDirect(point)))
      continue;
    if (isa_and_nonnull<FenceProxyAsyncOp>(at->getPrevNode()) || userFencedBefore(at, written))
      continue;
    if (checkOnly) {
      if (!reported.insert(point).second)
        continue;
      StringRef noun = releaseNoun(point);
      InFlightDiagnostic d = point->emitError(
          "generic-proxy writes of a tile that an async-proxy read (" +
          Twine(isa<MmaOp, MmaRegAOp>(access.getOperation()) ? "wgmma operand" : "TMA store") +
          ") takes after the " + (byWait ? "wait" : "acquire") + " are not fenced before this " +
          noun + ": fence.proxy.async.shared::cta is missing");
      d.attachNote(access->getLoc()) << "the async-proxy read is here";
      attachHint(d, at == point ? "add fence_proxy_async() after the writes, before this " + noun +
                                      ", or drop --no-auto-sync"
                                : "add fence_proxy_async() after the writes, before the "
                                  "sync_warp() or barrier that orders them before this " +
                                      noun + ", or drop --no-auto-sync");
      ok = false;
      continue;
    }
    OpBuilder b(at);
    auto fence = FenceProxyAsyncOp::create(b, at->getLoc());
    setReason(fence,
              ("fence.proxy.async.shared::cta: generic writes of a tile before the " +
               releaseNoun(point) + " that releases them to an async-proxy read after the acquire")
                  .str());
  }
  return ok;
}

/// How writes of a tile that follow an async-proxy read in an enclosing
/// loop's body reach the read's next iteration through the back edge, for
/// each loop whose body has no barrier before the read (precedingBarrier
/// leaves that loop; one before the read orders them and is fenced as
/// usual). On the path from the writes to the next iteration's read (the
/// rest of the body, then a while's condition), nearest the writes wins:
/// - a barrier: it orders them; the writers fence before the last one;
/// - an acquire of what the writers release after the writes (a wait on an
///   mbarrier they arrive on, a flag's acquire): the writers fence before
///   that release (fenceReleases), as for a read after such a wait;
/// - neither: the writes reach the read only in the writing thread's
///   program order; the fence goes before the read, and writes of several
///   threads are an error (nothing orders the others' writes before it).
/// Writes already fenced after their last one need nothing.
struct BackEdge {
  Operation *point;   // the barrier, the op holding the acquire, or the read
  AcquireMatch match; // which acquire, when point holds one
  bool byAcquire;
  Operation *write; // the last write, when point is the read
};

SmallVector<BackEdge, 2> backEdges(Operation *read, const llvm::DenseSet<Operation *> &allocs,
                                   const Releases &released) {
  SmallVector<BackEdge, 2> edges;
  Operation *barrier = precedingBarrier(read);
  for (Operation *at = read; at && !isa<KernelOp>(at); at = at->getParentOp()) {
    Operation *loop = at->getParentOp();
    if (!isa_and_nonnull<scf::ForOp, scf::WhileOp>(loop) || (barrier && loop->isAncestor(barrier)))
      continue;
    // The path back from the next iteration's read: a while's condition
    // (the body's next run follows it), then the body from its end.
    SmallVector<Operation *> path;
    auto whileLoop = dyn_cast<scf::WhileOp>(loop);
    if (whileLoop && at->getParentRegion() == &whileLoop.getAfter())
      for (Operation *op = whileLoop.getConditionOp()->getPrevNode(); op; op = op->getPrevNode())
        path.push_back(op);
    for (Operation *op = &at->getBlock()->back(); op != at; op = op->getPrevNode())
      path.push_back(op);
    Operation *latest = nullptr, *acquire = nullptr;
    AcquireMatch match = AcquireMatch::mbarrierWaits;
    for (Operation *op : path) {
      if (isBarrier(op)) {
        latest = latest ? latest : op;
        continue;
      }
      Tail t = tailOf(op, allocs);
      if (t == Tail::Fenced)
        break;
      if (t == Tail::Writes) {
        if (latest)
          edges.push_back({latest, match, false, nullptr});
        else if (acquire)
          edges.push_back({acquire, match, true, nullptr});
        else
          edges.push_back({read, match, false, lastGenericWrite(op, allocs)});
        break;
      }
      if (latest || acquire)
        continue;
      for (AcquireMatch m : {AcquireMatch::mbarrierWaits, AcquireMatch::flags})
        if (!acquire && released.acquiredIn(op, /*wholeWarps=*/false, m)) {
          acquire = op;
          match = m;
        }
    }
  }
  return edges;
}

/// fence.proxy.async before async-proxy reads of tiles written generically;
/// with checkOnly, an error for each one missing. Fails after an error.
LogicalResult fenceAsyncReads(KernelOp kernel, bool checkOnly,
                              const UniformityAnalysis &uniformity) {
  llvm::DenseMap<Operation *, Operation *> firstGenericWrite; // alloc -> write
  kernel.walk([&](MemoryAccessOpInterface access) {
    if (access.getAccessProxy() == MemoryProxy::generic && access.writesMemory())
      if (SharedAllocOp alloc = rootAlloc(access.getAccessPtr()))
        firstGenericWrite.try_emplace(alloc, access);
  });
  llvm::DenseSet<Operation *> reported;
  bool ok = true;
  kernel.walk([&](MemoryAccessOpInterface access) {
    if (access.getAccessProxy() != MemoryProxy::async || !access.readsMemory())
      return;
    SmallVector<Value, 2> ptrs{access.getAccessPtr()};
    ptrs.append(access.getOtherAccessPtrs()); // wgmma: both operand tiles
    llvm::DenseSet<Operation *> written;
    for (Value p : ptrs)
      if (SharedAllocOp alloc = rootAlloc(p); alloc && firstGenericWrite.count(alloc))
        written.insert(alloc);
    if (written.empty())
      return;
    // Writes of the reader's own threads reach its read in program order
    // (the barrier before it orders them): hand-ons are taken only for a
    // reader that writes none of the tiles, else a ring's consumer would
    // fence before each stage's release for its own epilogue tile.
    Releases released(kernel, written, uniformity, /*relays=*/!writtenBefore(access, written));
    if (!checkUnorderedWriters(access, written, released, uniformity)) {
      ok = false;
      return;
    }
    for (BackEdge edge : backEdges(access, written, released)) {
      if (edge.byAcquire) {
        if (!fenceReleases(edge.point, edge.match, released, written, checkOnly, access))
          ok = false;
        continue;
      }
      Operation *point = edge.point;
      if (edge.write && uniformity.controlLevel(edge.write) <= ::tile::uniformity::kAlignedMax) {
        ok = false;
        const bool wgmma = isa<MmaOp, MmaRegAOp>(access.getOperation());
        InFlightDiagnostic d = access->emitError(
            Twine("this ") + (wgmma ? "mma reads an operand tile" : "TMA store reads a tile") +
            " that several threads write later in the loop body, with no barrier or wait before "
            "the next iteration: it may read the tile before the other threads' writes reach it");
        d.attachNote(edge.write->getLoc()) << "written here by every thread that reaches it";
        attachHint(d, "add sync_threads() between this read and the writes, and after the writes "
                      "(the compiler puts the bulk wait and the proxy fence these need before "
                      "them)");
        continue;
      }
      if (isa_and_nonnull<FenceProxyAsyncOp>(point->getPrevNode()))
        continue;
      if (checkOnly) {
        if (!reported.insert(point).second)
          continue;
        ok = false;
        InFlightDiagnostic d = point->emitError(
            "generic-proxy writes of a tile that an async-proxy read (" +
            Twine(isa<MmaOp, MmaRegAOp>(access.getOperation()) ? "wgmma operand" : "TMA store") +
            ") takes in the loop's next iteration are not fenced before this " +
            (isBarrier(point) ? "barrier" : "read") + ": fence.proxy.async.shared::cta is missing");
        d.attachNote(access->getLoc()) << "the async-proxy read is here";
        attachHint(d, "add fence_proxy_async() after the writes at the end of the loop body, or "
                      "drop --no-auto-sync");
        continue;
      }
      OpBuilder b(point);
      auto fence = FenceProxyAsyncOp::create(b, point->getLoc());
      setReason(fence, "fence.proxy.async.shared::cta: generic writes of a tile late in a loop "
                       "body, which an async-proxy read (TMA store, wgmma) takes in the next "
                       "iteration");
    }
    // Through a wait on an mbarrier the writers arrive on, the writes reach
    // the reader by the arrives' release: each writer fences before its
    // arrive.
    Operation *at = precedingBarrier(access);
    if (Operation *wait =
            precedingReleasedWait(access, at, released, AcquireMatch::mbarrierWaits)) {
      if (!fenceReleases(wait, AcquireMatch::mbarrierWaits, released, written, checkOnly, access))
        ok = false;
      at = wait;
    } else if (writtenInAnotherRole(access, written)) {
      // The reader's role barrier orders only its own role's threads: writes
      // of another role reach it through the acquire before it (an
      // mbarrier's wait or a flag's).
      if (Operation *wait = precedingReleasedWait(access, nullptr, released, AcquireMatch::any))
        if (!fenceReleases(wait, AcquireMatch::any, released, written, checkOnly, access))
          ok = false;
      if (!writtenBefore(access, written))
        return; // no write of the reader's own threads to fence
    } else if (Operation *acquire =
                   precedingReleasedWait(access, at, released, AcquireMatch::flags)) {
      // A flag the writers release after their writes and the reader
      // acquires before the read (after the barrier, which orders what
      // comes before it): the writers fence before their release, as for an
      // mbarrier. Whether that release is what ordered these writes is not
      // known (a semaphore the reader itself releases after the read, a
      // loop's previous iteration), so the barrier's fence below stays too.
      // A flag whose pointer is not traced to its array or parameter may be
      // any flag: its acquire matches every flag's release, and its release
      // every flag's acquire.
      if (!fenceReleases(acquire, AcquireMatch::flags, released, written, checkOnly, access))
        ok = false;
    }
    // The nearest barrier before the read orders the writes only when they
    // come before it; writes after it (no barrier between them and the read)
    // are fenced right before the read.
    if (!at || unfencedWritesBetween(at, access, written))
      at = access;
    else if (!isBarrier(at))
      return; // the releases carry the fence
    if (isa_and_nonnull<FenceProxyAsyncOp>(at->getPrevNode()))
      return;
    if (checkOnly) {
      if (userFencedBefore(at, written) || !reported.insert(access).second)
        return;
      ok = false;
      InFlightDiagnostic d = access->emitError(
          "generic-proxy writes of this tile are not ordered before this async-proxy read (" +
          Twine(isa<MmaOp, MmaRegAOp>(access.getOperation()) ? "wgmma operand" : "TMA store") +
          "): fence.proxy.async.shared::cta is missing");
      d.attachNote(firstGenericWrite.lookup(*written.begin())->getLoc())
          << "a generic write of the tile is here";
      attachHint(d, at == access.getOperation()
                        ? "add fence_proxy_async() after the writes, before this read, or drop "
                          "--no-auto-sync"
                        : "add fence_proxy_async() after the writes, before the barrier that "
                          "orders them before this read, or drop --no-auto-sync");
      return;
    }
    OpBuilder b(at);
    auto fence = FenceProxyAsyncOp::create(b, at->getLoc());
    setReason(fence, "fence.proxy.async.shared::cta: generic writes of a tile before the barrier "
                     "that orders them before an async-proxy read of it (TMA store, wgmma)");
  });
  return success(ok);
}

struct InsertFencesPass : mlir::tile::impl::TileInsertFencesBase<InsertFencesPass> {
  using Base::Base;

  void runOnOperation() override {
    auto &facts = getAnalysis<SyncAnalysis>();
    // A fence is not a memory access: the analysis stays valid.
    markAnalysesPreserved<SyncAnalysis>();
    // Both checks run so that --no-auto-sync reports every missing fence.
    bool ok =
        succeeded(fenceAsyncReads(getOperation(), checkOnly, getAnalysis<UniformityAnalysis>()));
    if (facts.hasPeerCompletedMBarriers())
      ok = succeeded(fenceMBarrierInits(facts)) && ok;
    if (!ok)
      signalPassFailure();
  }

  LogicalResult fenceMBarrierInits(const SyncAnalysis &facts) {
    // Blocks that initialise a peer-completed mbarrier, and their last init:
    // one fence after it covers every earlier init of the thread.
    llvm::MapVector<Block *, MBarrierInitOp> lastInit;
    llvm::DenseSet<Block *> needsFence;
    bool ok = true;
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
      if (checkOnly) {
        InFlightDiagnostic d = init->emitError(
            "this mbarrier's initialisation is not published to the cluster before a peer or "
            "st.async completes it: fence.mbarrier_init is missing");
        attachHint(d, "add fence_mbarrier_init() after the mbarrier declarations, before the "
                      "cluster_sync() that publishes them, or drop --no-auto-sync");
        ok = false;
        continue;
      }
      OpBuilder b(init->getContext());
      b.setInsertionPointAfter(init);
      auto fence = FenceMBarrierInitOp::create(b, init.getLoc());
      setReason(fence, "fence.mbarrier_init.release.cluster: a peer or st.async completes this "
                       "mbarrier");
    }
    return success(ok);
  }
};

} // namespace
