//===- AddressAlignment.cpp - the alignment pointer parameters must have -===//
#include "AddressAlignment.h"
#include "KnownBits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr unsigned kAllZero = kAllZeroBits;

/// Bytes one access of `op` moves through its pointer.
int64_t accessBytes(MemoryAccessOpInterface access) {
  Type value;
  if (auto load = dyn_cast<LoadOp>(access.getOperation()))
    value = load.getResult().getType();
  else if (auto store = dyn_cast<StoreOp>(access.getOperation()))
    value = store.getValue().getType();
  if (auto vec = dyn_cast_or_null<VectorType>(value))
    return vec.getNumElements() * scalarByteWidth(vec.getElementType());
  if (value && value.isIntOrFloat())
    return scalarByteWidth(value);
  return scalarByteWidth(cast<PtrType>(access.getAccessPtr().getType()).getElementType());
}

/// Per kernel parameter a pointer may hold: the most low bits of the offset
/// added to it on the way that are known to be zero, over the ways it may
/// come (a widest-path problem: each way is a possible execution whose access
/// needs the parameter aligned that far, as each access is assumed to run).
using Sources = llvm::SmallDenseMap<unsigned, unsigned, 2>;

/// Raises `into` to cover `from` (offset zero bits capped at `cap`); true
/// when it changed.
bool join(Sources &into, const Sources &from, unsigned cap = kAllZero) {
  bool changed = false;
  for (auto [param, zeroBits] : from) {
    unsigned z = std::min(zeroBits, cap);
    auto [it, inserted] = into.try_emplace(param, z);
    if (!inserted && it->second < z) {
      it->second = z;
      inserted = true;
    }
    changed |= inserted;
  }
  return changed;
}

/// The parameters each pointer value of a kernel may hold, solved over the
/// whole kernel at once: through `p[i]` (ptr_add), `c ? p : q`, an `if`'s
/// and a loop's results, a loop's carried values and `var`s (a load of a
/// local slot holds what any store to it holds). A pointer loaded from
/// memory or made otherwise holds none: it puts no requirement on them.
class PointerSources {
public:
  explicit PointerSources(KernelOp kernel) {
    for (BlockArgument arg : kernel.getArguments())
      if (isa<PtrType>(arg.getType()))
        values[arg][arg.getArgNumber()] = kAllZero;
    // Each round only raises entries, each at most to kAllZero: a fixed
    // point comes; the round cap keeps a pathological kernel linear (fewer
    // rounds only weaken the requirements).
    for (unsigned round = 0; round < kMaxRounds && sweep(kernel); ++round) {
    }
  }
  const Sources *of(Value ptr) const {
    auto it = values.find(ptr);
    return it == values.end() ? nullptr : &it->second;
  }

private:
  static constexpr unsigned kMaxRounds = 16;

  bool flow(Value to, Value from, unsigned cap = kAllZero) {
    auto it = values.find(from);
    if (it == values.end())
      return false;
    Sources copy = it->second; // `values[to]` may rehash the map
    return join(values[to], copy, cap);
  }
  bool flowSlot(LocalVarOp slot, Value from, bool intoSlot) {
    if (intoSlot) {
      auto it = values.find(from);
      return it != values.end() && join(slots[slot.getOperation()], it->second);
    }
    Sources copy = slots[slot.getOperation()];
    return join(values[from], copy);
  }
  /// The `var` slot `p` points into (p[i] of a local array included).
  static LocalVarOp localSlot(Value p) {
    while (auto add = p.getDefiningOp<PtrAddOp>())
      p = add.getBase();
    return p.getDefiningOp<LocalVarOp>();
  }

  bool sweep(KernelOp kernel) {
    bool changed = false;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto add = dyn_cast<PtrAddOp>(op)) {
        auto [it, inserted] = offsetZeroBits.try_emplace(op, 0);
        if (inserted) {
          int64_t elem = scalarByteWidth(cast<PtrType>(add.getType()).getElementType());
          it->second = std::min(kAllZero, knownZeroBits(add.getOffset()) +
                                              static_cast<unsigned>(llvm::countr_zero(
                                                  static_cast<uint64_t>(elem))));
        }
        changed |= flow(add.getResult(), add.getBase(), it->second);
      } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
        changed |= flow(sel.getResult(), sel.getTrueValue());
        changed |= flow(sel.getResult(), sel.getFalseValue());
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        if (LocalVarOp slot = localSlot(store.getPtr()))
          changed |= flowSlot(slot, store.getValue(), /*intoSlot=*/true);
      } else if (auto load = dyn_cast<LoadOp>(op)) {
        if (LocalVarOp slot = localSlot(load.getPtr()))
          changed |= flowSlot(slot, load.getResult(), /*intoSlot=*/false);
      } else if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        Operation *parent = op->getParentOp();
        if (isa<scf::IfOp, scf::ForOp>(parent))
          for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
            changed |= flow(parent->getResult(i), v);
            if (auto loop = dyn_cast<scf::ForOp>(parent))
              changed |= flow(loop.getRegionIterArgs()[i], v);
          }
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        for (auto [i, init] : llvm::enumerate(loop.getInitArgs())) {
          changed |= flow(loop.getRegionIterArgs()[i], init);
          changed |= flow(loop.getResult(i), init); // no iteration
        }
      }
    });
    return changed;
  }

  llvm::DenseMap<Value, Sources> values;
  llvm::DenseMap<Operation *, Sources> slots;
  llvm::DenseMap<Operation *, unsigned> offsetZeroBits;
};

} // namespace

std::vector<int64_t> mlir::tile::requiredAddressAlignments(KernelOp kernel) {
  std::vector<int64_t> align(kernel.getNumArguments(), 1);
  PointerSources sources(kernel);
  kernel.walk([&](MemoryAccessOpInterface access) {
    Value ptr = access.getAccessPtr();
    const int64_t bytes = accessBytes(access);
    if (!ptr || !isa<PtrType>(ptr.getType()) || bytes <= 0)
      return;
    const Sources *held = sources.of(ptr);
    if (!held)
      return;
    for (auto [param, zeroBits] : *held) {
      // gcd(bytes, 2^zeroBits), bytes a power of two; one ld/st moves at
      // most 16 bytes (.v4.b32, .v2.b64), so a wider value needs no more.
      int64_t need = std::min<int64_t>(std::min<int64_t>(bytes, 16),
                                       zeroBits >= 32 ? bytes : int64_t{1} << zeroBits);
      int64_t &a = align[param];
      a = std::max(a, need);
    }
  });
  return align;
}
