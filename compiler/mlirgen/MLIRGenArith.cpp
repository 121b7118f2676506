//===- MLIRGenArith.cpp - operators with defined results on every input ---===//
//
// LLVM (and arith) give poison for `shl`/`ashr` by an amount >= the width,
// and immediate UB for `sdiv`/`srem` by 0 or INT_MIN / -1 and poison for
// `fptosi` of a value out of range; a store of such a value may be deleted.
// The language defines every operator on every input instead
// (docs/reference/operators.md, "Every operator is defined on every input"), so
// these operators are built here from ops that are defined on all inputs:
//
//   x << n   PTX shl.b32 clamps the amount: n (read unsigned) >= width gives 0
//   x >> n   PTX shr.s32 clamps likewise: n >= width gives the sign fill
//   x / 0 = -1, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0 (RISC-V's choice;
//            PTX div.s32 by zero is "unspecified, machine-specific")
//   f as iN  round toward zero, saturate to iN's range, NaN -> 0: PTX
//            cvt.rzi.s32.f32 does exactly this (PTX ISA 9.7.9.21 cvt:
//            float-to-integer conversions saturate); cvt.rzi.s64.f32 gives
//            INT64_MIN for NaN on the H100 (measured), so i64 selects 0
//
// A constant amount/divisor in range keeps the plain op (no selects).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

/// The value of an integer constant operand, if it is one.
static std::optional<APInt> constantInt(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c;
  return std::nullopt;
}

Value MLIRGenImpl::shiftAmountAs(Location l, Value n, Type t) {
  unsigned from = n.getType().getIntOrFloatBitWidth(), to = t.getIntOrFloatBitWidth();
  // The amount is unsigned: a constant keeps its value (clamped to the
  // width, which is out of range as the value itself is), so the shift
  // lowerings still see a constant amount.
  if (auto c = constantInt(n))
    return intConst(l, t, (int64_t)std::min<uint64_t>(c->getZExtValue(), to));
  if (from < to)
    return arith::ExtUIOp::create(builder, l, t, n);
  // Narrowing would drop high bits (2^32 + 1 must not shift by 1): clamp
  // first; `to` itself is out of range, as every larger amount.
  Value clamped = arith::MinUIOp::create(builder, l, n, intConst(l, n.getType(), to));
  return arith::TruncIOp::create(builder, l, t, clamped);
}

Value MLIRGenImpl::genShift(Location l, bool left, Value x, Value n) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  if (auto c = constantInt(n); c && c->ult(width))
    return left ? Value(arith::ShLIOp::create(builder, l, x, n))
                : Value(arith::ShRSIOp::create(builder, l, x, n));
  if (!left) {
    // Shifting right by width-1 is the sign fill, so clamping the amount
    // (unsigned) gives PTX's result for every n.
    Value amount = arith::MinUIOp::create(builder, l, n, intConst(l, t, width - 1));
    return arith::ShRSIOp::create(builder, l, x, amount);
  }
  Value inRange =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, n, intConst(l, t, width));
  if (width == 64) {
    // NVPTX folds `select(n < 64, x << n, 0)` into a bare shl.b64 whose
    // amount operand is .u32 (LLVM 22): an amount of 2^32 or more would be
    // truncated and shift by its low bits. Select the shifted value instead
    // and mask the amount, so no fold can drop the range test.
    Value v = arith::SelectOp::create(builder, l, inRange, x, intConst(l, t, 0));
    Value amount = arith::AndIOp::create(builder, l, n, intConst(l, t, width - 1));
    return arith::ShLIOp::create(builder, l, v, amount);
  }
  // The select never picks the shl when n >= width, so its poison cannot
  // reach the result (LLVM LangRef: select does not propagate poison from
  // the operand it does not choose). For i32 NVPTX emits a bare shl.b32,
  // whose clamping (PTX ISA: amounts > 32 give 0) is exactly this.
  Value shifted = arith::ShLIOp::create(builder, l, x, n);
  return arith::SelectOp::create(builder, l, inRange, shifted, intConst(l, t, 0));
}

Value MLIRGenImpl::genDivRem(Location l, bool isRem, Value x, Value d) {
  Type t = x.getType();
  if (auto c = constantInt(d); c && !c->isZero() && !c->isAllOnes())
    return isRem ? Value(arith::RemSIOp::create(builder, l, x, d))
                 : Value(arith::DivSIOp::create(builder, l, x, d));
  if (auto c = constantInt(d);
      c && c->isAllOnes()) // x / -1 = -x (wraps: MIN / -1 = MIN), x % -1 = 0
    return isRem ? intConst(l, t, 0)
                 : Value(arith::SubIOp::create(builder, l, intConst(l, t, 0), x));
  unsigned width = t.getIntOrFloatBitWidth();
  Value zero = intConst(l, t, 0), one = intConst(l, t, 1), minusOne = intConst(l, t, -1);
  Value byZero = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, d, zero);
  Value minValue = intConst(l, t, APInt::getSignedMinValue(width).getSExtValue());
  Value xIsMin = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, x, minValue);
  Value dIsMinusOne = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, d, minusOne);
  Value overflows = arith::AndIOp::create(builder, l, xIsMin, dIsMinusOne);
  // Dividing by 1 instead gives MIN / -1 = MIN and MIN % -1 = 0 already.
  Value safe = arith::SelectOp::create(builder, l,
                                       arith::OrIOp::create(builder, l, byZero, overflows), one, d);
  Value r = isRem ? Value(arith::RemSIOp::create(builder, l, x, safe))
                  : Value(arith::DivSIOp::create(builder, l, x, safe));
  return arith::SelectOp::create(builder, l, byZero, isRem ? x : minusOne, r);
}

Value MLIRGenImpl::genFloatToInt(Location l, Value v, Type to) {
  Type f32 = builder.getF32Type();
  if (v.getType() != f32) // f16/bf16 -> f32 is exact
    v = arith::ExtFOp::create(builder, l, f32, v);
  unsigned width = to.getIntOrFloatBitWidth();
  // llvm.nvvm.f2i.rz / f2ll.rz are cvt.rzi.s32.f32 / cvt.rzi.s64.f32, which
  // saturate; LLVM constant-folds them the same way.
  // (llvm.fptosi.sat has the same meaning but NVPTX expands it to compares
  // and selects around cvt.)
  if (width == 64) {
    Value r = LLVM::CallIntrinsicOp::create(
                  builder, l, to, builder.getStringAttr("llvm.nvvm.f2ll.rz"), ValueRange{v})
                  .getResult(0);
    // cvt.rzi.s64.f32 turns NaN into INT64_MIN on the hardware (gpu.arith_semantics).
    Value isNaN = arith::CmpFOp::create(builder, l, arith::CmpFPredicate::UNO, v, v);
    return arith::SelectOp::create(builder, l, isNaN, intConst(l, to, 0), r);
  }
  Type i32 = builder.getI32Type();
  Value r = LLVM::CallIntrinsicOp::create(builder, l, i32,
                                          builder.getStringAttr("llvm.nvvm.f2i.rz"), ValueRange{v})
                .getResult(0);
  if (width == 32)
    return r;
  // i8/i16: saturate the (already saturated) i32 further to the narrow range.
  int64_t hi = (int64_t(1) << (width - 1)) - 1;
  r = arith::MaxSIOp::create(builder, l, r, intConst(l, i32, -hi - 1));
  r = arith::MinSIOp::create(builder, l, r, intConst(l, i32, hi));
  return arith::TruncIOp::create(builder, l, to, r);
}
