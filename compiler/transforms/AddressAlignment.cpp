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

} // namespace

std::vector<int64_t> mlir::tile::requiredAddressAlignments(KernelOp kernel) {
  std::vector<int64_t> align(kernel.getNumArguments(), 1);
  kernel.walk([&](MemoryAccessOpInterface access) {
    Value ptr = access.getAccessPtr();
    if (!ptr || !isa<PtrType>(ptr.getType()))
      return;
    // Walk p[i][j]... back to the parameter: the offsets' known zero bits,
    // in bytes of the element each one counts.
    const int64_t bytes = accessBytes(access);
    unsigned zeroBits = kAllZero;
    while (auto add = ptr.getDefiningOp<PtrAddOp>()) {
      int64_t elem = scalarByteWidth(cast<PtrType>(add.getType()).getElementType());
      zeroBits = std::min(
          zeroBits, knownZeroBits(add.getOffset()) +
                        static_cast<unsigned>(llvm::countr_zero(static_cast<uint64_t>(elem))));
      ptr = add.getBase();
    }
    auto arg = dyn_cast<BlockArgument>(ptr);
    if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation() || bytes <= 0)
      return;
    // gcd(bytes, 2^zeroBits), bytes a power of two; one ld/st moves at most
    // 16 bytes (.v4.b32, .v2.b64), so a wider value needs no more.
    int64_t need = std::min<int64_t>(std::min<int64_t>(bytes, 16),
                                     zeroBits >= 32 ? bytes : int64_t{1} << zeroBits);
    int64_t &a = align[arg.getArgNumber()];
    a = std::max(a, need);
  });
  return align;
}
