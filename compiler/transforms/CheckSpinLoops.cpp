//===- CheckSpinLoops.cpp - waits on a plain read, flags stored plainly ----===//
//
// A loop whose exit depends on a plain (weak) read of global or shared
// memory at an address the loop does not change, and which does nothing
// another thread could observe or that orders memory (no store to memory,
// atomic, ordered load, barrier, fence, mbarrier operation, copy, ...; a
// nanosleep backoff does none of these), is
// a CUDA port's `while (flag == 0) { }` without `volatile`. A weak load
// promises no ordering and no progress (PTX ISA 8.x memory consistency
// model): the compiler may read it once, so the loop either never runs or
// never ends, and a loop with no effect at all is removed as one that ends
// (MLIR's canonicalizer erases an effect-free scf.while, LLVM a
// `mustprogress` loop; statements.md "Loops and conditions"). It never
// waits for the other thread's store the porter meant it to see. A warning
// at the read, with the ordered load to write instead. Runs first in the
// sync pipeline, on the IR as MLIRGen made it: before the canonicalizer
// would erase the loop, and with every op at its source position (inlined
// functions at CallSiteLoc).
//
// Every `while`, and every loop with `break`/`continue`, is an scf.while;
// a `var` is a tile.local_var slot (its loads and stores are the thread's
// own), and a `break` sets a slot under the condition that takes it, so the
// exit's dependence on the read is followed through slots and through the
// conditions of the scf.ifs that store them.
//
// The other half of a wait, checkFlagStores: a flag the kernel reads with
// an acquire load and writes only with plain stores.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "tile/Dialect/Hint.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKSPINLOOPS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

AddressSpace spaceOf(Value ptr) { return cast<PtrType>(ptr.getType()).getSpace(); }

/// A load or store of the thread's own memory: a `var`'s slot or a local array.
bool isPrivate(Value ptr) { return spaceOf(ptr) == AddressSpace::local; }

/// A plain read of memory other threads may write.
bool isPlainSharedRead(LoadOp load) {
  return load.getOrder() == MemoryOrder::weak && !isPrivate(load.getPtr()) &&
         load.getCache() != CacheOp::nc; // nc: the user's promise that nothing writes it
}

/// Whether op (nested in the loop) does something other threads could see
/// or that orders memory: anything but computation, plain reads and the
/// thread's own slots and local arrays.
bool hasEffect(Operation *op) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || op->hasTrait<OpTrait::IsTerminator>())
    return false; // its nested ops are visited on their own
  if (isa<LocalVarOp, LocalArrayOp>(op))
    return false;
  // A backoff orders nothing: the plain read may still be hoisted past it
  // (LLVM's nanosleep reads no memory), so the loop still waits on nothing.
  if (isa<NanosleepOp>(op))
    return false;
  if (auto store = dyn_cast<StoreOp>(op))
    return !isPrivate(store.getPtr()) || store.getOrder() != MemoryOrder::weak;
  if (auto load = dyn_cast<LoadOp>(op))
    return load.getOrder() != MemoryOrder::weak;
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
      return !isa<MemoryEffects::Read>(e.getEffect());
    });
  }
  return !isMemoryEffectFree(op);
}

struct SpinLoop {
  scf::WhileOp loop;
  llvm::DenseSet<Operation *> storedSlots; // slots the loop stores

  /// v has the same value in every iteration: defined outside the loop, or
  /// computed inside it from such values and slots the loop never stores.
  bool invariant(Value v, llvm::DenseMap<Value, bool> &memo, int depth = 0) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return !loop->isAncestor(v.getParentBlock()->getParentOp());
    if (!loop->isAncestor(def))
      return true;
    if (depth > 64)
      return false;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    bool result = false;
    if (auto load = dyn_cast<LoadOp>(def)) {
      Operation *slot = load.getPtr().getDefiningOp();
      result = isa_and_nonnull<LocalVarOp>(slot) && !storedSlots.count(slot);
    } else if (def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
      result = llvm::all_of(def->getOperands(),
                            [&](Value x) { return invariant(x, memo, depth + 1); });
    }
    memo[v] = result;
    return result;
  }

  /// The plain read at a loop-invariant address that the loop's exit depends
  /// on, or null. A value depends on the read when it is computed from it
  /// and from invariant values only (`f == 0`, `x & 1`; not `n + x`, whose
  /// `n` the loop advances by itself), or is a conjunction or disjunction
  /// with such a value (a `for` loop's `i < end && !broken`); a slot, when
  /// every store to it in the loop stores such a value, or an invariant one
  /// under a condition that is such a value (a `break` sets its flag so).
  LoadOp exitRead() {
    llvm::DenseMap<Operation *, SmallVector<StoreOp>> slotStores;
    loop->walk([&](StoreOp store) {
      if (Operation *slot = store.getPtr().getDefiningOp(); isa_and_nonnull<LocalVarOp>(slot)) {
        storedSlots.insert(slot);
        slotStores[slot].push_back(store);
      }
    });
    llvm::DenseMap<Value, bool> memo;
    llvm::DenseMap<Value, LoadOp> from;           // dependent value -> the read
    llvm::DenseMap<Operation *, LoadOp> slotFrom; // dependent slot -> the read
    auto taint = [&](Value v, LoadOp read) { return from.try_emplace(v, read).second; };
    auto readOf = [&](Value v) -> LoadOp {
      auto it = from.find(v);
      return it == from.end() ? LoadOp() : it->second;
    };
    // The read an enclosing decision inside the loop (an scf.if's or an
    // inner scf.while's condition) depends on, if any.
    auto controlRead = [&](Operation *op) -> LoadOp {
      for (Operation *p = op->getParentOp(); p && p != loop; p = p->getParentOp()) {
        if (auto i = dyn_cast<scf::IfOp>(p); i && readOf(i.getCondition()))
          return readOf(i.getCondition());
        if (auto w = dyn_cast<scf::WhileOp>(p); w && readOf(w.getConditionOp().getCondition()))
          return readOf(w.getConditionOp().getCondition());
      }
      return {};
    };
    for (bool changed = true; changed;) {
      changed = false;
      loop->walk([&](Operation *op) {
        if (op == loop)
          return;
        if (auto load = dyn_cast<LoadOp>(op)) {
          Operation *slot = load.getPtr().getDefiningOp();
          if (isPlainSharedRead(load) && invariant(load.getPtr(), memo))
            changed |= taint(load.getResult(), load);
          else if (auto it = slotFrom.find(slot); slot && it != slotFrom.end())
            changed |= taint(load.getResult(), it->second);
          return;
        }
        if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
          // A result chosen by the read (`c && x` is `if c { x } else
          // { false }`) or yielding it, from values that depend on it or
          // are invariant.
          for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
            LoadOp read = readOf(ifOp.getCondition());
            bool all = true;
            for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
              if (region->empty())
                continue;
              Value v = region->front().getTerminator()->getOperand(i);
              if (LoadOp r = readOf(v))
                read = read ? read : r;
              else if (!invariant(v, memo))
                all = false;
            }
            if (read && all)
              changed |= taint(ifOp.getResult(i), read);
          }
          return;
        }
        if (op->getNumResults() == 0 || op->getNumRegions() != 0 || !isMemoryEffectFree(op))
          return;
        LoadOp read;
        bool all = true;
        for (Value operand : op->getOperands()) {
          if (LoadOp r = readOf(operand))
            read = read ? read : r;
          else if (!invariant(operand, memo))
            all = false;
        }
        if (read && (all || isa<arith::AndIOp, arith::OrIOp>(op)))
          for (Value r : op->getResults())
            changed |= taint(r, read);
      });
      for (auto &[slot, stores] : slotStores) {
        if (slotFrom.count(slot))
          continue;
        LoadOp read;
        bool all = llvm::all_of(stores, [&](StoreOp store) {
          if (LoadOp r = readOf(store.getValue()))
            return read = read ? read : r, true;
          if (!invariant(store.getValue(), memo))
            return false;
          if (LoadOp r = controlRead(store))
            read = read ? read : r;
          return true;
        });
        if (all && read)
          changed |= slotFrom.try_emplace(slot, read).second;
      }
    }
    return readOf(loop.getConditionOp().getCondition());
  }
};

/// The location `ptr` names: the kernel parameter or shared array it is an
/// element of (through `remote()`'s mapa too) and its constant element
/// offset; a null root when the offset is not constant.
std::pair<Value, int64_t> locationOf(Value ptr) {
  int64_t offset = 0;
  for (int depth = 0; depth < 64; ++depth) {
    if (auto add = ptr.getDefiningOp<PtrAddOp>()) {
      APInt c;
      if (!matchPattern(add.getOffset(), m_ConstantInt(&c)))
        return {Value(), 0};
      offset += c.getSExtValue();
      ptr = add.getBase();
    } else if (auto mapa = ptr.getDefiningOp<MapaOp>()) {
      ptr = mapa.getSource();
    } else {
      return {ptr, offset};
    }
  }
  return {Value(), 0};
}

/// The other half of a wait: a flag the kernel reads with `order = acquire`
/// (or sc) but writes only with plain stores (CUDA's `data = x; flag = 1`
/// without the __threadfence and volatile store before it). A plain store
/// releases nothing, so the reader may see the flag before the data; with
/// no ordered store or atomic on the flag anywhere in the kernel, the
/// acquire synchronises with nothing. A warning at each such store, with a
/// note at the read. A flag also written by an ordered store or an atomic
/// (a plain initialisation before a release, `flag[0] = 0`) is fine.
void checkFlagStores(KernelOp kernel) {
  llvm::DenseMap<std::pair<Value, int64_t>, LoadOp> acquired;
  llvm::DenseSet<std::pair<Value, int64_t>> orderedWrites;
  SmallVector<std::pair<StoreOp, std::pair<Value, int64_t>>> plain;
  kernel.walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      auto at = locationOf(load.getPtr());
      if (at.first && !isPrivate(load.getPtr()) &&
          (load.getOrder() == MemoryOrder::acquire || load.getOrder() == MemoryOrder::sc))
        acquired.try_emplace(at, load);
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      auto at = locationOf(store.getPtr());
      if (!at.first || isPrivate(store.getPtr()))
        return;
      if (store.getOrder() == MemoryOrder::weak)
        plain.push_back({store, at});
      else
        orderedWrites.insert(at);
    } else if (isa<AtomicRMWOp, AtomicCASOp>(op)) {
      auto rmw = dyn_cast<AtomicRMWOp>(op);
      auto at = locationOf(rmw ? rmw.getPtr() : cast<AtomicCASOp>(op).getPtr());
      if (at.first)
        orderedWrites.insert(at);
    }
  });
  llvm::DenseSet<const void *> reported;
  for (auto &[store, at] : plain) {
    auto read = acquired.find(at);
    if (read == acquired.end() || orderedWrites.count(at) ||
        !reported.insert(store->getLoc().getAsOpaquePointer()).second)
      continue;
    InFlightDiagnostic d =
        store.emitWarning("a plain store to a flag that this kernel reads with an acquire load, "
                          "and never writes otherwise: a plain store releases nothing, so the "
                          "reader may see the flag before what was written before it");
    attachHint(d, "publish with a release store, `store(p[i], v, order = release)` (CUDA's "
                  "__threadfence() and volatile store in one)");
    d.attachNote(read->second.getLoc()) << "the acquire load of the flag";
  }
}

struct CheckSpinLoopsPass : tile::impl::TileCheckSpinLoopsBase<CheckSpinLoopsPass> {
  void runOnOperation() override {
    markAllAnalysesPreserved(); // reports only
    checkFlagStores(getOperation());
    llvm::DenseSet<const void *> reported;
    getOperation().walk([&](scf::WhileOp loop) {
      bool effect = false;
      loop->walk([&](Operation *op) {
        if (op != loop.getOperation() && hasEffect(op))
          effect = true;
      });
      if (effect)
        return;
      LoadOp read = SpinLoop{loop, {}}.exitRead();
      if (!read || !reported.insert(read->getLoc().getAsOpaquePointer()).second)
        return;
      InFlightDiagnostic d =
          read.emitWarning("this loop waits on a plain read that nothing in the loop orders: the "
                           "compiler may read it once, so the loop never sees another thread's "
                           "store (and a loop without effects may be removed)");
      attachHint(d, "read it with an ordered load, `load(p[i], order = acquire)` (acquire also "
                    "makes what the other thread wrote before its release visible after the "
                    "loop; `order = relaxed` for a value that publishes nothing)");
    });
  }
};

} // namespace
