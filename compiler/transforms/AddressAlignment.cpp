//===- AddressAlignment.cpp - the alignment pointer parameters must have -===//
#include "AddressAlignment.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr unsigned kMaxDepth = 24;
constexpr unsigned kAllZero = 63; // the value is 0: a multiple of everything

/// How many low bits of the integer `v` are known to be zero.
unsigned knownZeroBits(Value v, unsigned depth = 0) {
  if (depth > kMaxDepth)
    return 0;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? kAllZero : c.countr_zero();
  auto rec = [&](Value x) { return knownZeroBits(x, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // scf.for's induction variable: lb + k * step.
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (arg == loop.getInductionVar())
        return std::min(rec(loop.getLowerBound()), rec(loop.getStep()));
    return 0;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return 0;
  if (isa<arith::MulIOp>(op))
    return std::min(kAllZero, rec(op->getOperand(0)) + rec(op->getOperand(1)));
  if (isa<arith::AddIOp, arith::SubIOp, arith::OrIOp, arith::XOrIOp>(op))
    return std::min(rec(op->getOperand(0)), rec(op->getOperand(1)));
  if (isa<arith::AndIOp>(op))
    return std::max(rec(op->getOperand(0)), rec(op->getOperand(1)));
  if (isa<arith::SelectOp>(op))
    return std::min(rec(op->getOperand(1)), rec(op->getOperand(2)));
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return rec(op->getOperand(0));
  if (isa<arith::TruncIOp>(op)) // the low bits are kept
    return std::min<unsigned>(rec(op->getOperand(0)),
                              op->getResult(0).getType().getIntOrFloatBitWidth());
  if (isa<arith::ShLIOp>(op)) {
    APInt amount;
    if (matchPattern(op->getOperand(1), m_ConstantInt(&amount)) &&
        amount.ult(op->getResult(0).getType().getIntOrFloatBitWidth()))
      return std::min<unsigned>(kAllZero, rec(op->getOperand(0)) + amount.getZExtValue());
  }
  return 0;
}

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

/// The kernel parameters a pointer value may hold, each with the known zero
/// low bits (in bytes) of the offset added to it on the way: through
/// `p[i]` (ptr_add), `c ? p : q`, an `if`'s or a loop's result, a loop's
/// carried value and a `var` (every value stored to its local slot). A
/// pointer this cannot trace (loaded from memory, a cast) gives nothing.
class PointerSources {
public:
  using Found = llvm::function_ref<void(BlockArgument param, unsigned zeroBits)>;
  PointerSources(KernelOp kernel) : kernel(kernel) {}

  void operator()(Value ptr, Found found) {
    visited.clear();
    trace(ptr, kAllZero, found);
  }

private:
  static constexpr size_t kMaxVisits = 4096;

  void trace(Value ptr, unsigned zeroBits, Found found) {
    if (!visited.insert({ptr, zeroBits}).second || visited.size() > kMaxVisits)
      return; // a loop's carried value: its entry paths are traced already
    auto rec = [&](Value v, unsigned z = ~0u) { trace(v, z == ~0u ? zeroBits : z, found); };
    if (auto add = ptr.getDefiningOp<PtrAddOp>()) {
      int64_t elem = scalarByteWidth(cast<PtrType>(add.getType()).getElementType());
      return rec(add.getBase(),
                 std::min(zeroBits, knownZeroBits(add.getOffset()) +
                                        static_cast<unsigned>(
                                            llvm::countr_zero(static_cast<uint64_t>(elem)))));
    }
    if (auto sel = ptr.getDefiningOp<arith::SelectOp>()) {
      rec(sel.getTrueValue());
      return rec(sel.getFalseValue());
    }
    if (auto load = ptr.getDefiningOp<LoadOp>()) {
      if (LocalVarOp slot = localSlot(load.getPtr()))
        for (StoreOp store : storesTo(slot))
          rec(store.getValue());
      return;
    }
    if (auto result = dyn_cast<OpResult>(ptr)) {
      Operation *op = result.getOwner();
      unsigned n = result.getResultNumber();
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
          if (!r->empty())
            rec(cast<scf::YieldOp>(r->front().getTerminator()).getOperand(n));
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        rec(loop.getInitArgs()[n]);
        rec(loop.getYieldedValues()[n]);
      }
      return;
    }
    auto arg = cast<BlockArgument>(ptr);
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == kernel.getOperation())
      return found(arg, zeroBits);
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      if (OpOperand *init = loop.getTiedLoopInit(arg)) {
        rec(init->get());
        rec(loop.getTiedLoopYieldedValue(arg)->get());
      }
  }

  /// The `var` slot `p` points into (p[i] of a local array included).
  static LocalVarOp localSlot(Value p) {
    while (auto add = p.getDefiningOp<PtrAddOp>())
      p = add.getBase();
    return p.getDefiningOp<LocalVarOp>();
  }
  ArrayRef<StoreOp> storesTo(LocalVarOp slot) {
    auto [it, inserted] = stores.try_emplace(slot.getOperation());
    if (inserted)
      kernel.walk([&](StoreOp s) {
        if (localSlot(s.getPtr()) == slot)
          it->second.push_back(s);
      });
    return it->second;
  }

  KernelOp kernel;
  llvm::DenseSet<std::pair<Value, unsigned>> visited;
  llvm::DenseMap<Operation *, SmallVector<StoreOp, 2>> stores;
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
    sources(ptr, [&](BlockArgument param, unsigned zeroBits) {
      // gcd(bytes, 2^zeroBits), bytes a power of two; one ld/st moves at
      // most 16 bytes (.v4.b32, .v2.b64), so a wider value needs no more.
      int64_t need = std::min<int64_t>(std::min<int64_t>(bytes, 16),
                                       zeroBits >= 32 ? bytes : int64_t{1} << zeroBits);
      int64_t &a = align[param.getArgNumber()];
      a = std::max(a, need);
    });
  });
  return align;
}
