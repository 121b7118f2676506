//===- KnownBits.cpp - what the low bits of an integer value are known to be ===//
#include "KnownBits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr unsigned kMaxDepth = 24;

// Each query memoises per value, so a value used many times in the
// expression (`a1 = a0 + a0; a2 = a1 + a1; ...`) is visited once, not once
// per path. A value first met past the depth cap keeps its cut (weaker)
// answer: still true, only less precise.
using ZeroMemo = llvm::DenseMap<Value, unsigned>;
using LowMemo = llvm::DenseMap<Value, std::optional<uint64_t>>;

unsigned zeroBitsOf(Value v, unsigned depth, ZeroMemo &memo);

unsigned zeroBits(Value v, unsigned depth, ZeroMemo &memo) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  unsigned z = zeroBitsOf(v, depth, memo);
  memo[v] = z;
  return z;
}

unsigned zeroBitsOf(Value v, unsigned depth, ZeroMemo &memo) {
  if (depth > kMaxDepth)
    return 0;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? kAllZeroBits : c.countr_zero();
  auto rec = [&](Value x) { return zeroBits(x, depth + 1, memo); };
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
    return std::min(kAllZeroBits, rec(op->getOperand(0)) + rec(op->getOperand(1)));
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
      return std::min<unsigned>(kAllZeroBits, rec(op->getOperand(0)) + amount.getZExtValue());
  }
  return 0;
}

std::optional<uint64_t> lowBitsOf(Value v, unsigned bits, unsigned depth, ZeroMemo &zeros,
                                  LowMemo &memo);

std::optional<uint64_t> lowBits(Value v, unsigned bits, unsigned depth, ZeroMemo &zeros,
                                LowMemo &memo) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  std::optional<uint64_t> r = lowBitsOf(v, bits, depth, zeros, memo);
  memo[v] = r;
  return r;
}

std::optional<uint64_t> lowBitsOf(Value v, unsigned bits, unsigned depth, ZeroMemo &zeros,
                                  LowMemo &memo) {
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  if (zeroBits(v, depth, zeros) >= bits)
    return 0;
  if (depth > kMaxDepth)
    return std::nullopt;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getZExtValue() & mask; // two's complement: a negative value's low bits
  auto rec = [&](Value x) { return lowBits(x, bits, depth + 1, zeros, memo); };
  // scf.for's induction variable lb + k * step has lb's low bits when the
  // step's are zero.
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar() &&
        zeroBits(loop.getStep(), depth + 1, zeros) >= bits)
      return rec(loop.getLowerBound());
    return std::nullopt;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto both = [&](auto combine) -> std::optional<uint64_t> {
    std::optional<uint64_t> a = rec(op->getOperand(0)), b = rec(op->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    return combine(*a, *b) & mask;
  };
  if (isa<arith::AddIOp>(op))
    return both([](uint64_t a, uint64_t b) { return a + b; });
  if (isa<arith::SubIOp>(op))
    return both([](uint64_t a, uint64_t b) { return a - b; });
  if (isa<arith::MulIOp>(op))
    return both([](uint64_t a, uint64_t b) { return a * b; });
  if (isa<arith::OrIOp>(op))
    return both([](uint64_t a, uint64_t b) { return a | b; });
  if (isa<arith::XOrIOp>(op))
    return both([](uint64_t a, uint64_t b) { return a ^ b; });
  if (isa<arith::AndIOp>(op))
    return both([](uint64_t a, uint64_t b) { return a & b; });
  if (isa<arith::SelectOp>(op)) {
    std::optional<uint64_t> a = rec(op->getOperand(1)), b = rec(op->getOperand(2));
    return a && b && *a == *b ? a : std::nullopt;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return rec(op->getOperand(0));
  if (isa<arith::TruncIOp>(op) && bits <= op->getResult(0).getType().getIntOrFloatBitWidth())
    return rec(op->getOperand(0));
  return std::nullopt;
}

} // namespace

unsigned mlir::tile::knownZeroBits(Value v) {
  ZeroMemo memo;
  return zeroBits(v, 0, memo);
}

std::optional<uint64_t> mlir::tile::knownLowBits(Value v, unsigned bits) {
  ZeroMemo zeros;
  LowMemo memo;
  return lowBits(v, bits, 0, zeros, memo);
}
