//===- MLIRGenFp8.cpp - e4m3 / e5m2 values and their conversions ----------===//
//
// An fp8 value is f8E4M3FN / f8E5M2 in MLIR (PTX .e4m3 has no infinity:
// the "FN" format; .e5m2 is IEEE-like) and an i8 after the LLVM type
// conversion. LLVM has no fp8 arithmetic or fptrunc, so conversions are the
// NVVM intrinsics of PTX's packed cvt forms (PTX ISA "cvt", sm_89+):
//   f32 pair  -> fp8x2: llvm.nvvm.ff.to.{e4m3,e5m2}x2.rn
//                = cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, a, b (a -> high byte)
//   f16x2     -> fp8x2: llvm.nvvm.f16x2.to.{e4m3,e5m2}x2.rn
//                = cvt.rn.satfinite.{e4m3,e5m2}x2.f16x2 (lane i -> byte i)
//   fp8x2     -> f16x2: llvm.nvvm.{e4m3,e5m2}x2.to.f16x2.rn
//                = cvt.rn.f16x2.{e4m3,e5m2}x2 (byte i -> lane i, exact)
// satfinite: a finite value beyond the largest finite fp8 (and, for e5m2,
// an infinity) becomes the largest finite of its sign; NaN stays NaN.
// bf16 goes through f32 both ways (exactly: no bf16x2 -> fp8x2 form on
// sm_90). A scalar uses lane 0 of a pair. Vector element access goes through
// i8 (LLVM vectors of f8 do not exist).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tile::mlirgen {

namespace {
bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t)); }
const char *fp8Name(Type t) {
  return isa<Float8E4M3FNType>(getElementTypeOrSelf(t)) ? "e4m3" : "e5m2";
}
} // namespace

Value MLIRGenImpl::fp8Storage(Location l, Value v) {
  if (!isFp8(v.getType()))
    return v;
  Type i8 = builder.getI8Type();
  Type to = i8;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    to = VectorType::get(vec.getShape(), i8);
  return arith::BitcastOp::create(builder, l, to, v);
}

Value MLIRGenImpl::fp8FromStorage(Location l, Value v, Type fp8) {
  if (v.getType() == fp8)
    return v;
  return arith::BitcastOp::create(builder, l, fp8, v);
}

/// Two f32 values -> one fp8 pair (i16: `lo` in the low byte).
Value MLIRGenImpl::genF32PairToFp8(Location l, Value lo, Value hi, Type fp8) {
  std::string name = std::string("llvm.nvvm.ff.to.") + fp8Name(fp8) + "x2.rn";
  return LLVM::CallIntrinsicOp::create(builder, l, builder.getI16Type(),
                                       builder.getStringAttr(name), ValueRange{hi, lo})
      .getResult(0);
}

/// A vector<2xf16> -> one fp8 pair (i16: lane 0 in the low byte).
Value MLIRGenImpl::genF16PairToFp8(Location l, Value pair, Type fp8) {
  std::string name = std::string("llvm.nvvm.f16x2.to.") + fp8Name(fp8) + "x2.rn";
  return LLVM::CallIntrinsicOp::create(builder, l, builder.getI16Type(),
                                       builder.getStringAttr(name), ValueRange{pair})
      .getResult(0);
}

/// One fp8 pair (i16) -> vector<2xf16>, exactly.
Value MLIRGenImpl::genFp8PairToF16(Location l, Value pair, Type fp8) {
  std::string name = std::string("llvm.nvvm.") + fp8Name(fp8) + "x2.to.f16x2.rn";
  return LLVM::CallIntrinsicOp::create(builder, l, VectorType::get({2}, builder.getF16Type()),
                                       builder.getStringAttr(name), ValueRange{pair})
      .getResult(0);
}

Value MLIRGenImpl::genFp8Cast(Location l, Value v, Type to) {
  Type from = v.getType();
  Type f16 = builder.getF16Type(), f32 = builder.getF32Type(), i32 = builder.getI32Type();
  if (isFp8(from) && isFp8(to)) // e4m3 <-> e5m2: through f16 (exact), one rounding
    return genFp8Cast(l, genFp8Cast(l, v, f16), to);
  if (isFp8(to)) {
    Value pair;
    if (from.isF16()) {
      Value h = LLVM::PoisonOp::create(builder, l, VectorType::get({2}, f16));
      h = LLVM::InsertElementOp::create(builder, l, h, v, intConst(l, i32, 0));
      Value zero = arith::ConstantOp::create(builder, l, builder.getF16FloatAttr(0));
      h = LLVM::InsertElementOp::create(builder, l, h, zero, intConst(l, i32, 1));
      pair = genF16PairToFp8(l, h, to);
    } else {
      if (!from.isF32()) // bf16 -> f32 is exact
        v = arith::ExtFOp::create(builder, l, f32, v);
      Value zero = arith::ConstantOp::create(builder, l, builder.getF32FloatAttr(0));
      pair = genF32PairToFp8(l, v, zero, to);
    }
    Value byte = arith::TruncIOp::create(builder, l, builder.getI8Type(), pair);
    return fp8FromStorage(l, byte, to);
  }
  // fp8 -> f16 exactly, then f16 -> f32 exactly, then (bf16) f32 -> bf16
  // exactly: every e4m3/e5m2 value is a bf16 value.
  Value byte = fp8Storage(l, v);
  Value pair = arith::ExtUIOp::create(builder, l, builder.getI16Type(), byte);
  Value halves = genFp8PairToF16(l, pair, from);
  Value h = LLVM::ExtractElementOp::create(builder, l, halves, intConst(l, i32, 0));
  if (to.isF16())
    return h;
  Value f = arith::ExtFOp::create(builder, l, f32, h);
  return to.isF32() ? f : Value(arith::TruncFOp::create(builder, l, to, f));
}

Value MLIRGenImpl::genFp8VectorCast(Location l, Value v, VectorType to) {
  auto from = cast<VectorType>(v.getType());
  int64_t n = from.getNumElements();
  Type i32 = builder.getI32Type(), f16 = builder.getF16Type(), f32 = builder.getF32Type();
  Type fromElem = from.getElementType(), toElem = to.getElementType();
  auto lane = [&](Value x, int64_t i) {
    return LLVM::ExtractElementOp::create(builder, l, x, intConst(l, i32, i)).getResult();
  };
  // to[toLane] = from[fromLane]
  auto moveLane = [&](Value to, int64_t toLane, Value from, int64_t fromLane) {
    Value index = intConst(l, i32, toLane);
    return LLVM::InsertElementOp::create(builder, l, to, lane(from, fromLane), index).getResult();
  };
  if (isFp8(fromElem) && isFp8(toElem))
    return genFp8VectorCast(l, genFp8VectorCast(l, v, VectorType::get({n}, f16)), to);
  if (isFp8(toElem)) {
    if (fromElem.isBF16())
      v = arith::ExtFOp::create(builder, l, VectorType::get({n}, f32), v);
    auto pairType = VectorType::get({2}, builder.getI8Type());
    Value out = LLVM::PoisonOp::create(builder, l, VectorType::get({n}, builder.getI8Type()));
    for (int64_t i = 0; i < n; i += 2) {
      Value pair;
      if (fromElem.isF16()) {
        Value h = LLVM::PoisonOp::create(builder, l, VectorType::get({2}, f16));
        for (int64_t k = 0; k < 2; ++k)
          h = moveLane(h, k, v, i + k);
        pair = genF16PairToFp8(l, h, toElem);
      } else {
        Value hi = lane(v, i + 1);
        pair = genF32PairToFp8(l, lane(v, i), hi, toElem);
      }
      Value bytes = LLVM::BitcastOp::create(builder, l, pairType, pair);
      for (int64_t k = 0; k < 2; ++k)
        out = moveLane(out, i + k, bytes, k);
    }
    return fp8FromStorage(l, out, to);
  }
  // fp8 -> f16 pairs, then widen (f32) or f32 -> bf16, all exact.
  Value bytes = fp8Storage(l, v);
  auto pairType = VectorType::get({2}, builder.getI8Type());
  Value halves = LLVM::PoisonOp::create(builder, l, VectorType::get({n}, f16));
  for (int64_t i = 0; i < n; i += 2) {
    Value p = LLVM::PoisonOp::create(builder, l, pairType);
    for (int64_t k = 0; k < 2; ++k)
      p = moveLane(p, k, bytes, i + k);
    Value h = genFp8PairToF16(l, LLVM::BitcastOp::create(builder, l, builder.getI16Type(), p),
                              fromElem);
    for (int64_t k = 0; k < 2; ++k)
      halves = moveLane(halves, i + k, h, k);
  }
  if (toElem.isF16())
    return halves;
  Value f = arith::ExtFOp::create(builder, l, VectorType::get({n}, f32), halves);
  return toElem.isF32() ? f : Value(arith::TruncFOp::create(builder, l, to, f));
}

} // namespace mlir::tile::mlirgen
