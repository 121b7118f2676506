//===- CheckRoleHandoffs.cpp - shared tiles passed between roles ----------===//
//
// The roles of a `warpgroups` block run at the same time, and a role's
// barrier is its own threads' (`bar.sync id, count`): what one role writes
// to a shared tile reaches another role only through a release by the
// writers after their writes and an acquire by the readers before their
// reads, on the same object: an mbarrier (arrive, wait; PTX ISA 9.7.13.15
// mbarrier, "Memory Consistency Model"), or a flag or counter (a store or
// atomic with release order, a load or atomic with acquire order, or the
// fence patterns of either: SyncAnalysis.h). Without that synchronizes-with
// edge the two accesses race and the read may see either value. Two shapes
// of that race, each a warning naming both roles:
//  - a read (generic, or an async-proxy read: TMA store, wgmma operand) of
//    a tile that another role writes with plain generic stores, with no
//    chain of releases and acquires from the writes to the read;
//  - such a handoff inside a loop of the writing role (the tile is written
//    again in the next iteration) with no chain back from the read to the
//    next write: the write may land before the reader has read (a ring's
//    empty barrier; `pipeline` rings make both edges themselves).
// Atomics and ordered (relaxed/acquire/release) accesses synchronise by
// themselves and are not considered; so is everything outside the roles
// (code before the block runs in every thread, ordered by the kernel's
// barriers). Two roles using disjoint parts of one allocation do not race:
// a pair of plain accesses whose element ranges (bounded from the role's
// thread ids, constants and constant-bound loops) do not overlap is not
// reported; where the ranges are not known the pair is, so it is a warning,
// not an error. Runs after the rings are lowered, so their mbarriers are
// ordinary arrives and waits here.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/Hint.h"
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKROLEHANDOFFS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

/// A plain generic access (not an atomic, not an ordered load or store):
/// one that needs another operation to order it.
bool isPlainGeneric(MemoryAccessOpInterface access) {
  if (access.getAccessProxy() != MemoryProxy::generic)
    return false;
  if (isa<AtomicRMWOp, AtomicCASOp>(access.getOperation()))
    return false;
  if (auto load = dyn_cast<LoadOp>(access.getOperation()))
    return load.getOrder() == MemoryOrder::weak;
  if (auto store = dyn_cast<StoreOp>(access.getOperation()))
    return store.getOrder() == MemoryOrder::weak;
  return true;
}

/// Bounds of an integer value, from the arithmetic that computes it: a
/// role's thread ids, constants, constant-bound loop variables.
struct Interval {
  int64_t lo, hi;
};

std::optional<Interval> rangeOf(Value v, int depth = 0) {
  if (depth > 16)
    return std::nullopt;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSignificantBits() <= 62
               ? std::optional(Interval{c.getSExtValue(), c.getSExtValue()})
               : std::nullopt;
  if (auto iv = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp());
    APInt lb, ub;
    if (!loop || iv != loop.getInductionVar() ||
        !matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
        !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) || lb.sge(ub) ||
        lb.getSignificantBits() > 62 || ub.getSignificantBits() > 62)
      return std::nullopt;
    return Interval{lb.getSExtValue(), ub.getSExtValue() - 1};
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (auto sreg = dyn_cast<SRegOp>(op)) {
    auto role = op->getParentOfType<RoleOp>();
    if (sreg.getReg() != SpecialReg::tid_x || !role)
      return std::nullopt;
    int64_t first = role.getFirstWarpgroup() * 128;
    return Interval{first, first + role.getNumThreads() - 1};
  }
  auto operand = [&](unsigned i) { return rangeOf(op->getOperand(i), depth + 1); };
  // Bounds the result's type cannot hold would wrap: not known.
  Type type = getElementTypeOrSelf(v.getType());
  unsigned width = type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 64;
  auto fits = [&](int64_t lo, int64_t hi) -> std::optional<Interval> {
    if (width < 64 && (lo < -(int64_t(1) << (width - 1)) || hi >= (int64_t(1) << (width - 1))))
      return std::nullopt;
    return Interval{lo, hi};
  };
  if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp, arith::ExtUIOp>(op)) {
    std::optional<Interval> a = operand(0);
    if (!a || (isa<arith::ExtUIOp>(op) && a->lo < 0))
      return std::nullopt; // a negative value zero-extends to a large one
    return fits(a->lo, a->hi);
  }
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp,
           arith::RemSIOp, arith::RemUIOp>(op))
    return std::nullopt;
  std::optional<Interval> a = operand(0), b = operand(1);
  if (!a || !b)
    return std::nullopt;
  int64_t lo, hi;
  if (isa<arith::AddIOp>(op)) {
    if (__builtin_add_overflow(a->lo, b->lo, &lo) || __builtin_add_overflow(a->hi, b->hi, &hi))
      return std::nullopt;
    return fits(lo, hi);
  }
  if (isa<arith::SubIOp>(op)) {
    if (__builtin_sub_overflow(a->lo, b->hi, &lo) || __builtin_sub_overflow(a->hi, b->lo, &hi))
      return std::nullopt;
    return fits(lo, hi);
  }
  if (isa<arith::MulIOp>(op)) {
    int64_t p[4];
    if (__builtin_mul_overflow(a->lo, b->lo, &p[0]) ||
        __builtin_mul_overflow(a->lo, b->hi, &p[1]) ||
        __builtin_mul_overflow(a->hi, b->lo, &p[2]) || __builtin_mul_overflow(a->hi, b->hi, &p[3]))
      return std::nullopt;
    return fits(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
  }
  // Division and remainder by a positive constant of a non-negative value.
  if (b->lo != b->hi || b->lo <= 0 || a->lo < 0)
    return std::nullopt;
  if (isa<arith::DivSIOp, arith::DivUIOp>(op))
    return Interval{a->lo / b->lo, a->hi / b->lo};
  return Interval{0, std::min(a->hi, b->lo - 1)};
}

/// The elements of `alloc` a plain load or store touches (ptr_adds on the
/// allocation itself, in its element type), or nullopt.
std::optional<Interval> elementsOf(Operation *access) {
  Value ptr = cast<MemoryAccessOpInterface>(access).getAccessPtr();
  Type value = isa<LoadOp>(access)    ? access->getResult(0).getType()
               : isa<StoreOp>(access) ? access->getOperand(0).getType()
                                      : Type();
  if (!value)
    return std::nullopt;
  auto vector = dyn_cast<VectorType>(value);
  Interval at{0, vector ? vector.getNumElements() - 1 : 0};
  while (auto add = ptr.getDefiningOp<PtrAddOp>()) {
    std::optional<Interval> offset = rangeOf(add.getOffset());
    if (!offset)
      return std::nullopt;
    at = {at.lo + offset->lo, at.hi + offset->hi};
    ptr = add.getBase();
  }
  if (!ptr.getDefiningOp<SharedAllocOp>())
    return std::nullopt;
  return at;
}

/// Two plain accesses of one allocation that provably touch different elements.
bool disjoint(Operation *a, Operation *b) {
  std::optional<Interval> x = elementsOf(a), y = elementsOf(b);
  return x && y && (x->hi < y->lo || y->hi < x->lo);
}

/// A set of synchronisation objects (mbarriers, flags: sync::syncObject):
/// those a chain of releases and acquires reaches from an op (reachAfter),
/// or those a thread acquires before it (acquiredBefore).
struct SyncObjectSet {
  llvm::SmallDenseSet<Value, 8> objects;
  bool any = false; // an object not traced to its root: it may be any
  bool contains(Value object) const {
    return any || (!object ? !objects.empty() : objects.contains(object));
  }
  void insert(Value object) {
    if (!object)
      any = true;
    else
      objects.insert(object);
  }
};

class Handoffs {
public:
  explicit Handoffs(KernelOp kernel) {
    forEachAcquireIn(kernel, [&](Operation *point, Value object) {
      acquires.push_back({point, object});
    });
  }

  /// Every object released after `from` in its thread, then every one
  /// released after an acquire of one of those (in any role), and so on.
  SyncObjectSet reachAfter(Operation *from) const {
    SyncObjectSet reach;
    SmallVector<Operation *> todo{from};
    llvm::SmallPtrSet<Operation *, 8> seen{from};
    while (!todo.empty()) {
      Operation *at = todo.pop_back_val();
      SmallVector<Value> added;
      forEachReleaseAfter(at, [&](Operation *, Value object) {
        if (!object)
          reach.any = true;
        else if (reach.objects.insert(object).second)
          added.push_back(object);
      });
      for (auto [point, object] : acquires) {
        bool reached =
            reach.any || (!object ? !reach.objects.empty() : llvm::is_contained(added, object));
        if (reached && seen.insert(point).second)
          todo.push_back(point);
      }
      if (reach.any)
        break; // every acquire is reached already
    }
    return reach;
  }

  /// The objects the thread running `op` acquires before it.
  static SyncObjectSet acquiredBefore(Operation *op) {
    SyncObjectSet acquired;
    forEachAcquireBefore(op, [&](Operation *, Value object) { acquired.insert(object); });
    return acquired;
  }

  /// Whether an acquire of `acquired` synchronises with a release of `reach`.
  static bool meet(const SyncObjectSet &reach, const SyncObjectSet &acquired) {
    if (reach.objects.empty() && !reach.any)
      return false;
    if (acquired.objects.empty() && !acquired.any)
      return false;
    if (reach.any || acquired.any)
      return true;
    return llvm::any_of(reach.objects, [&](Value m) { return acquired.objects.contains(m); });
  }

  /// Whether `write` runs again after a release of `reach` hands its tile
  /// over: a loop of its role holds both.
  static bool writtenAgainAfterHandoff(Operation *write, const SyncObjectSet &reach) {
    auto role = write->getParentOfType<RoleOp>();
    bool again = false;
    forEachReleaseAfter(write, [&](Operation *point, Value object) {
      if (again || !reach.contains(object))
        return;
      for (Operation *loop = write->getParentOp(); loop && loop != role.getOperation();
           loop = loop->getParentOp())
        if (isa<LoopLikeOpInterface>(loop) && loop->isProperAncestor(point))
          again = true;
    });
    return again;
  }

private:
  SmallVector<std::pair<Operation *, Value>> acquires; // acquire point, object
};

struct RoleAccesses {
  SmallVector<Operation *> writes, reads; // in roles; plain generic writes, any reads
};

StringRef roleName(Operation *op) { return op->getParentOfType<RoleOp>().getRoleName(); }

struct CheckRoleHandoffsPass : mlir::tile::impl::TileCheckRoleHandoffsBase<CheckRoleHandoffsPass> {
  void runOnOperation() override {
    markAllAnalysesPreserved(); // reports only
    KernelOp kernel = getOperation();
    llvm::MapVector<Operation *, RoleAccesses> byAlloc;
    kernel.walk([&](MemoryAccessOpInterface access) {
      if (!access->getParentOfType<RoleOp>())
        return;
      bool plainGeneric = isPlainGeneric(access);
      bool asyncRead = access.getAccessProxy() == MemoryProxy::async && access.readsMemory();
      if (!plainGeneric && !asyncRead)
        return;
      SmallVector<Value, 2> ptrs{access.getAccessPtr()};
      ptrs.append(access.getOtherAccessPtrs());
      for (Value ptr : ptrs) {
        SharedAllocOp alloc = rootAlloc(ptr);
        if (!alloc)
          continue;
        RoleAccesses &entry = byAlloc[alloc];
        if (plainGeneric && access.writesMemory() && ptr == access.getAccessPtr())
          entry.writes.push_back(access);
        if (access.readsMemory())
          entry.reads.push_back(access);
      }
    });
    Handoffs handoffs(kernel);
    for (auto &[alloc, entry] : byAlloc)
      checkAlloc(alloc, entry, handoffs);
  }

  /// What the pass needs of one access, computed once.
  struct Facts {
    SyncObjectSet after;  // objects a chain reaches from what follows it
    SyncObjectSet before; // objects its thread acquires before it
  };

  void checkAlloc(Operation *alloc, const RoleAccesses &entry, const Handoffs &handoffs) {
    llvm::DenseMap<Operation *, Facts> facts;
    auto factsOf = [&](Operation *op) -> const Facts & {
      auto [it, inserted] = facts.try_emplace(op);
      if (inserted) {
        it->second.after = handoffs.reachAfter(op);
        it->second.before = Handoffs::acquiredBefore(op);
      }
      return it->second;
    };
    // One report per pair of roles.
    llvm::DenseSet<std::pair<Operation *, Operation *>> reported;
    for (Operation *write : entry.writes) {
      auto writer = write->getParentOfType<RoleOp>();
      bool again = false, againKnown = false;
      for (Operation *read : entry.reads) {
        auto reader = read->getParentOfType<RoleOp>();
        if (reader == writer || reported.contains({writer, reader}) || disjoint(write, read))
          continue;
        const SyncObjectSet &released = factsOf(write).after;
        if (!Handoffs::meet(released, factsOf(read).before)) {
          reported.insert({writer, reader});
          reportUnordered(alloc, write, read);
          continue;
        }
        if (!againKnown) {
          again = Handoffs::writtenAgainAfterHandoff(write, released);
          againKnown = true;
        }
        if (!again || Handoffs::meet(factsOf(read).after, factsOf(write).before))
          continue;
        reported.insert({writer, reader});
        reportOverwrite(alloc, write, read);
      }
    }
  }

  static void reportUnordered(Operation *alloc, Operation *write, Operation *read) {
    InFlightDiagnostic d = read->emitWarning()
                           << "role '" << roleName(read) << "' reads a shared tile that role '"
                           << roleName(write)
                           << "' writes, with no mbarrier or release/acquire flag between the "
                              "writes and this read: the "
                              "roles run at the same time, so it may read the tile before the "
                              "writes reach it";
    d.attachNote(write->getLoc()) << "written here in role '" << roleName(write) << "'";
    d.attachNote(alloc->getLoc()) << "the tile is declared here";
    attachHint(d, "arrive(bar) in '" + roleName(write) + "' after the writes and wait(bar) in '" +
                      roleName(read) +
                      "' before the read (an mbarrier declared before the warpgroups block; "
                      "a role's sync_threads() orders only its own threads)");
  }

  static void reportOverwrite(Operation *alloc, Operation *write, Operation *read) {
    InFlightDiagnostic d = write->emitWarning()
                           << "role '" << roleName(write)
                           << "' writes this shared tile again in its next iteration with no "
                              "mbarrier or flag after role '"
                           << roleName(read) << "' reads it: the write may land before the read";
    d.attachNote(read->getLoc()) << "read here in role '" << roleName(read) << "'";
    d.attachNote(alloc->getLoc()) << "the tile is declared here";
    attachHint(d, "arrive on a second mbarrier in '" + roleName(read) +
                      "' after the read and wait on it in '" + roleName(write) +
                      "' before the write, or pass the tile through a `pipeline` ring, whose "
                      "stages carry both mbarriers");
  }
};

} // namespace
