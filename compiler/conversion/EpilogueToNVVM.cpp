//===- EpilogueToNVVM.cpp - fragment math, conversions and stores ----------===//
//
// A `!tile.frag<MxNxT>` is an LLVM struct of M*N/128 f32, or of M*N/256 i32
// each holding two 16-bit elements (the low half the lower column), as
// nvvm.wgmma.mma_async takes and returns it. Thread t of the warpgroup
// (warp w = t/32 % 4, lane l = t % 32) holds, per 64-row block b and 8-column
// block j (PTX ISA 9.7.15.5.1, "Matrix fragments for wgmma.mma_async.m64nNk16",
// D; tile::target::wgmmaFragmentCoord): elements 4j..4j+3 of the block =
// row 64b + 16w + l/4, columns 8j + 2(l%4) + {0, 1}, then the same columns of
// row + 8.
//  - Element-wise math is the scalar LLVM float op per element (f32) or per
//    packed pair (<2 x f16|bf16>, which the NVPTX backend selects as
//    add/sub/mul/min/max/fma.rn.{f16x2,bf16x2}); conversions are fptrunc /
//    fpext of pairs (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32).
//  - A 16-bit fragment goes into a shared tile with stmatrix.m8n8.x4 (PTX ISA
//    9.7.14.5.16): its four 8x8 matrices are, per pair of 8-column blocks, the
//    top and bottom 8 rows of block j then of block j+1 — exactly registers
//    4k..4k+3 of the fragment, whose lane l holds row l/4, columns 2(l%4) of
//    each, as stmatrix's fragment layout; lane l gives the address of row
//    l%8 of matrix l/8 through the tile's layout (swizzle, panels).
//  - 32-bit fragments (f32, i32) and stores through a pointer write each
//    thread's pairs with one vector store (st.shared.v2.f32, st.global.v2.f32,
//    st.global.v2.b32, st.b32).
//===----------------------------------------------------------------------===//
#include "FragmentRegisters.h"
#include "TileLayoutOffset.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/FastMath.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;
namespace target = ::tile::target;

namespace {

using namespace fragregs;

LLVM::FastmathFlags contractIf(bool contract) {
  return contract ? LLVM::FastmathFlags::contract : LLVM::FastmathFlags::none;
}

/// The divisor of x / d and x % d that LLVM's sdiv / srem accept: 1 where
/// d = 0 or (x, d) = (MIN, -1), both UB in LLVM (and PTX's div.s32 / rem.s32
/// by zero are unspecified); `byZero` tells the caller which.
Value safeDivisor(OpBuilder &b, Location loc, Value x, Value d, Value &byZero) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  auto c = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, t, v).getResult(); };
  Value minValue = c(APInt::getSignedMinValue(width).getSExtValue());
  byZero = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, d, c(0));
  Value xIsMin = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, x, minValue);
  Value dIsMinusOne = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, d, c(-1));
  Value overflows = LLVM::AndOp::create(b, loc, xIsMin, dIsMinusOne);
  Value unsafe = LLVM::OrOp::create(b, loc, byZero, overflows);
  return LLVM::SelectOp::create(b, loc, unsafe, c(1), d);
}

/// i32 elements with the scalar integer rules (docs/reference/operators.md
/// "Integers"): wrapping + - *; x / 0 = -1, MIN / -1 = MIN (the quotient by
/// the safe divisor 1 is x); x % 0 = x, MIN % -1 = 0 (the remainder by 1);
/// shift amounts read unsigned, `<<` giving 0 and `>>` (arithmetic) the
/// sign fill from 32 on: LLVM's shl / ashr by 32 or more are poison, so
/// shl is chosen away there and ashr's amount clamped to 31 (which is the
/// sign fill); min / max signed.
Value integerArith(OpBuilder &b, Location loc, FragArithKind kind, Value x, Value y) {
  Type t = x.getType();
  auto c = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, t, v).getResult(); };
  Value byZero;
  switch (kind) {
  case FragArithKind::add:
    return LLVM::AddOp::create(b, loc, x, y);
  case FragArithKind::sub:
    return LLVM::SubOp::create(b, loc, x, y);
  case FragArithKind::mul:
    return LLVM::MulOp::create(b, loc, x, y);
  case FragArithKind::div: {
    Value q = LLVM::SDivOp::create(b, loc, x, safeDivisor(b, loc, x, y, byZero));
    return LLVM::SelectOp::create(b, loc, byZero, c(-1), q);
  }
  case FragArithKind::rem: {
    Value r = LLVM::SRemOp::create(b, loc, x, safeDivisor(b, loc, x, y, byZero));
    return LLVM::SelectOp::create(b, loc, byZero, x, r);
  }
  case FragArithKind::shl: {
    Value inRange = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, y, c(32));
    Value zero = c(0); // built before the shift, whichever compiler built tilec
    Value shifted = LLVM::ShlOp::create(b, loc, x, y);
    return LLVM::SelectOp::create(b, loc, inRange, shifted, zero);
  }
  case FragArithKind::shr:
    return LLVM::AShrOp::create(b, loc, x, LLVM::UMinOp::create(b, loc, y, c(31)));
  case FragArithKind::and_:
    return LLVM::AndOp::create(b, loc, x, y);
  case FragArithKind::or_:
    return LLVM::OrOp::create(b, loc, x, y);
  case FragArithKind::xor_:
    return LLVM::XOrOp::create(b, loc, x, y);
  case FragArithKind::min:
    return LLVM::SMinOp::create(b, loc, x, y);
  case FragArithKind::max:
    return LLVM::SMaxOp::create(b, loc, x, y);
  case FragArithKind::pow: // f32 only (the verifier)
  case FragArithKind::atan2:
  case FragArithKind::hypot:
  case FragArithKind::fmod:
    break;
  }
  return x;
}

struct FragArithLowering : ConvertOpToLLVMPattern<FragArithOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragArithOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Operand l = operand(rewriter, loc, op.getLhs(), adaptor.getLhs(), type);
    Operand r = operand(rewriter, loc, op.getRhs(), adaptor.getRhs(), type);
    auto fmf = LLVM::FastmathFlagsAttr::get(getContext(), contractIf(op.getContract()));
    auto none = LLVM::FastmathFlagsAttr::get(getContext(), LLVM::FastmathFlags::none);
    SmallVector<Value> out;
    bool integer = distShape(type)->elem.isInteger(32); // indices, `col - row`
    if (!integer && isIntegerOnly(op.getKind())) // FragArithOp::verify rejects it
      return rewriter.notifyMatchFailure(op, "an integer-only kind on float elements");
    for (int64_t i = 0; i < registers(*distShape(type)); ++i) {
      Value x = l.at(i), y = r.at(i);
      if (integer) {
        out.push_back(integerArith(rewriter, loc, op.getKind(), x, y));
        continue;
      }
      switch (op.getKind()) {
      case FragArithKind::add:
        out.push_back(LLVM::FAddOp::create(rewriter, loc, x, y, fmf));
        break;
      case FragArithKind::sub:
        out.push_back(LLVM::FSubOp::create(rewriter, loc, x, y, fmf));
        break;
      case FragArithKind::mul:
        out.push_back(LLVM::FMulOp::create(rewriter, loc, x, y, fmf));
        break;
      case FragArithKind::div: // never contracted (docs/reference/operators.md "FMA contraction")
        out.push_back(LLVM::FDivOp::create(rewriter, loc, x, y, none));
        break;
      case FragArithKind::min: // as the scalar min: a NaN operand is ignored
        out.push_back(floatMinMax(rewriter, loc, /*isMin=*/true, x, y));
        break;
      case FragArithKind::max:
        out.push_back(floatMinMax(rewriter, loc, /*isMin=*/false, x, y));
        break;
      case FragArithKind::pow: // the scalar pow, atan2, hypot, fmod: libdevice __nv_<kind>f
      case FragArithKind::atan2:
      case FragArithKind::hypot:
      case FragArithKind::fmod: {
        std::string fn = ::tile::target::libdeviceF32Name(stringifyFragArithKind(op.getKind()));
        out.push_back(
            LLVM::CallOp::create(rewriter, loc, libdeviceF32(rewriter, op, fn, 2), ValueRange{x, y})
                .getResult());
        break;
      }
      default: // rem, shl, shr, and, or, xor: i32 only (FragArithOp::verify)
        break;
      }
    }
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragFmaLowering : ConvertOpToLLVMPattern<FragFmaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragFmaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Operand a = operand(rewriter, loc, op.getA(), adaptor.getA(), type);
    Operand b = operand(rewriter, loc, op.getB(), adaptor.getB(), type);
    Operand c = operand(rewriter, loc, op.getC(), adaptor.getC(), type);
    SmallVector<Value> out;
    for (int64_t i = 0; i < registers(*distShape(type)); ++i)
      out.push_back(LLVM::FMAOp::create(rewriter, loc, a.at(i), b.at(i), c.at(i)));
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragNegLowering : ConvertOpToLLVMPattern<FragNegOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragNegOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Operand v = operand(rewriter, loc, op.getValue(), adaptor.getValue(), type);
    SmallVector<Value> out;
    for (Value r : v.regs)
      out.push_back(isa<FloatType>(getElementTypeOrSelf(r.getType()))
                        ? LLVM::FNegOp::create(rewriter, loc, r).getResult()
                        : LLVM::SubOp::create(rewriter, loc, i32Const(rewriter, loc, 0), r)
                              .getResult());
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragColsLowering : ConvertOpToLLVMPattern<FragColsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragColsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto from = cast<FragType>(op.getValue().getType());
    FragType to = op.getType();
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), from.getRegistersPerThread());
    // Per 64-row block, every 8-column block has the same registers, in
    // column-block order.
    int64_t rowBlocks = from.getRows() / target::kWgmmaM;
    int64_t perRowBlock = from.getRegistersPerThread() / rowBlocks;
    int64_t perColBlock = perRowBlock / (from.getCols() / 8);
    int64_t begin = op.getFirst() / 8 * perColBlock;
    int64_t count = to.getCols() / 8 * perColBlock;
    SmallVector<Value> out;
    for (int64_t b = 0; b < rowBlocks; ++b)
      for (int64_t i = 0; i < count; ++i)
        out.push_back(regs[b * perRowBlock + begin + i]);
    replaceWithRegisters(rewriter, op, *getTypeConverter(), to, out);
    return success();
  }
};

/// The quad exchange that moves fp8 byte pairs from the accumulator layout
/// to wgmma's 8-bit register-A layout. Register j of k32 step s in lane l
/// (q = l % 4) needs columns 32s + 16(j/2) + 4q + 0..3 of row-half j % 2
/// (wgmmaRegisterA8BitCoord). In the accumulator layout (wgmmaFragmentCoord)
/// lane 4(l/4) + q' holds, per 8-column chunk c, the column pair 8c + 2q',
/// +1 of each row-half: so bytes 0-1 come from lane q' = 2(q % 2) and bytes
/// 2-3 from q' = 2(q % 2) + 1, both from chunk c = 4s + 2(j/2) + q/2. Each
/// lane offers the pairs of chunks 4s + 2(j/2) and + 1 in one word, two
/// shfl.sync.idx read it from both source lanes, and q/2 picks the halves.
constexpr bool registerAExchangeHolds() {
  for (int64_t t = 0; t < target::kWarpgroupSize; ++t)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t byte = 0; byte < 4; ++byte) {
        int64_t l = t % target::kWarpSize, q = l % 4;
        int64_t src = t - q + 2 * (q % 2) + byte / 2;
        int64_t chunk = 2 * (j / 2) + q / 2;
        int64_t e = 4 * chunk + 2 * (j % 2) + byte % 2; // in a 32-column fragment
        target::FragmentCoord from = target::wgmmaFragmentCoord(32, e, src);
        target::FragmentCoord want = target::wgmmaRegisterA8BitCoord(j, byte, t);
        if (from.row != want.row || from.col != want.col)
          return false;
      }
  return true;
}
static_assert(registerAExchangeHolds(), "the fp8 register-A exchange misplaces a byte");

struct FragConvertLowering : ConvertOpToLLVMPattern<FragConvertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  /// f32 pairs (register order of the accumulator layout) -> an fp8
  /// register-A fragment: cvt.rn.satfinite.{e4m3,e5m2}x2.f32 per pair (the
  /// lower column in the low byte), then the exchange above.
  LogicalResult convertToRegisterA(FragConvertOp op, FragType to, ArrayRef<Value> wide,
                                   ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type();
    auto c32 = [&](int64_t v) { return i32Const(rewriter, loc, v); };
    std::string cvt = std::string("llvm.nvvm.ff.to.") +
                      (isa<Float8E4M3FNType>(to.getElementType()) ? "e4m3" : "e5m2") + "x2.rn";
    SmallVector<Value> pairs;
    for (Value p : wide) {
      Value lo = LLVM::ExtractElementOp::create(rewriter, loc, p, c32(0));
      Value hi = LLVM::ExtractElementOp::create(rewriter, loc, p, c32(1));
      Value b = LLVM::CallIntrinsicOp::create(rewriter, loc, i16, rewriter.getStringAttr(cvt),
                                              ValueRange{hi, lo})
                    .getResult(0);
      pairs.push_back(LLVM::ZExtOp::create(rewriter, loc, i32, b));
    }
    Value lane = NVVM::LaneIdOp::create(rewriter, loc, i32);
    Value q = LLVM::AndOp::create(rewriter, loc, lane, c32(3));
    Value quadBase = LLVM::SubOp::create(rewriter, loc, lane, q);
    Value shiftOne = c32(1);
    Value odd = LLVM::AndOp::create(rewriter, loc, q, c32(1));
    Value q2 = LLVM::ShlOp::create(rewriter, loc, odd, shiftOne);
    Value srcLo = LLVM::OrOp::create(rewriter, loc, quadBase, q2);
    Value srcHi = LLVM::OrOp::create(rewriter, loc, srcLo, c32(1));
    Value zero = c32(0);
    Value upperBit = LLVM::AndOp::create(rewriter, loc, q, c32(2));
    Value upper = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, upperBit, zero);
    Value all = c32(-1), clamp = c32(0x1f); // idx: no segment, clamp at lane 31
    auto shfl = [&](Value v, Value from) {
      return NVVM::ShflOp::create(rewriter, loc, i32, all, v, from, clamp, NVVM::ShflKind::idx,
                                  UnitAttr())
          .getResult();
    };
    int64_t steps = to.getCols() / target::kWgmmaK8Bit, blocks = to.getRows() / target::kWgmmaM;
    int64_t pairsPerBlock = to.getCols() / 4; // the f32 source's N/2 elements per block, paired
    SmallVector<Value> out;
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t s = 0; s < steps; ++s)
        for (int64_t j = 0; j < 4; ++j) {
          // Pair (chunk c, row-half h) is pair 2c + h of the block.
          int64_t c0 = 4 * s + 2 * (j / 2), h = j % 2;
          Value x = LLVM::OrOp::create(
              rewriter, loc, pairs[b * pairsPerBlock + 2 * c0 + h],
              LLVM::ShlOp::create(rewriter, loc, pairs[b * pairsPerBlock + 2 * (c0 + 1) + h],
                                  c32(16)));
          Value fromLo = shfl(x, srcLo), fromHi = shfl(x, srcHi);
          Value lowLo = LLVM::AndOp::create(rewriter, loc, fromLo, c32(0xffff));
          Value lowHi = LLVM::ShlOp::create(rewriter, loc, fromHi, c32(16));
          Value low = LLVM::OrOp::create(rewriter, loc, lowLo, lowHi);
          Value highLo = LLVM::LShrOp::create(rewriter, loc, fromLo, c32(16));
          Value highHi = LLVM::AndOp::create(rewriter, loc, fromHi, c32(0xffff0000));
          Value high = LLVM::OrOp::create(rewriter, loc, highLo, highHi);
          out.push_back(LLVM::SelectOp::create(rewriter, loc, upper, high, low));
        }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), to, out);
    return success();
  }
  /// float -> i32 as the scalar cast: cvt.rzi.s32.f32 (llvm.nvvm.f2i.rz),
  /// which saturates and gives 0 for NaN; LLVM's fptosi would be poison
  /// there (LangRef), and constant folding would exploit it.
  static Value floatToI32(OpBuilder &b, Location loc, Value x) {
    if (!x.getType().isF32()) // f16/bf16 -> f32 is exact
      x = LLVM::FPExtOp::create(b, loc, b.getF32Type(), x);
    return LLVM::CallIntrinsicOp::create(b, loc, b.getI32Type(),
                                         b.getStringAttr("llvm.nvvm.f2i.rz"), ValueRange{x})
        .getResult(0);
  }
  /// One scalar conversion per element (i32 -> float cvt.rn, one rounding
  /// even to f16 / bf16; float -> i32 cvt.rzi; f32 <-> f16/bf16 cvt.rn /
  /// exact), of per_row / per_col values and of fragments to or from i32.
  LogicalResult convertElements(FragConvertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    DistShape from = *distShape(op.getValue().getType()), to = *distShape(op.getType());
    SmallVector<Value> out;
    for (Value x : elementsFor(rewriter, loc, op.getValue(), adaptor.getValue(), from)) {
      Value y;
      if (from.elem.isInteger(32))
        y = LLVM::SIToFPOp::create(rewriter, loc, to.elem, x);
      else if (to.elem.isInteger(32)) // the scalar `as i32`: saturating, NaN -> 0
        y = floatToI32(rewriter, loc, x);
      else if (from.elem.getIntOrFloatBitWidth() < to.elem.getIntOrFloatBitWidth())
        y = LLVM::FPExtOp::create(rewriter, loc, to.elem, x);
      else if (from.elem.getIntOrFloatBitWidth() > to.elem.getIntOrFloatBitWidth())
        y = LLVM::FPTruncOp::create(rewriter, loc, to.elem, x);
      else // f16 <-> bf16: through f32, one rounding
        y = LLVM::FPTruncOp::create(
            rewriter, loc, to.elem, LLVM::FPExtOp::create(rewriter, loc, rewriter.getF32Type(), x));
      out.push_back(y);
    }
    if (isPacked(to)) { // two 16-bit elements per register, the lower column low
      SmallVector<Value> pairs;
      for (size_t e = 0; e < out.size(); e += 2)
        pairs.push_back(splatPair(rewriter, loc, to.elem, out[e], out[e + 1]));
      out = std::move(pairs);
    }
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), op.getType(), out));
    return success();
  }
  LogicalResult matchAndRewrite(FragConvertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getValue().getType() == op.getType()) {
      rewriter.replaceOp(op, adaptor.getValue());
      return success();
    }
    // per_row / per_col values, and fragments to or from i32 (one scalar
    // conversion per element, then paired when the result is packed).
    if (!isa<FragType>(op.getType()) || distShape(op.getValue().getType())->elem.isInteger(32) ||
        distShape(op.getType())->elem.isInteger(32))
      return convertElements(op, adaptor, rewriter);
    auto from = cast<FragType>(op.getValue().getType());
    auto to = cast<FragType>(op.getType());
    // Work on pairs of f32: widen a packed source, narrow to a packed result
    // (fptrunc of <2 x f32>: cvt.rn.{f16x2,bf16x2}.f32, one rounding).
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), from.getRegistersPerThread());
    SmallVector<Value> wide; // <2 x f32> per pair
    if (from.isPacked()) {
      for (Value r : regs) {
        Value p = LLVM::BitcastOp::create(rewriter, loc, pairType(from.getElementType()), r);
        wide.push_back(LLVM::FPExtOp::create(rewriter, loc, pairType(f32), p));
      }
    } else {
      for (size_t i = 0; i < regs.size(); i += 2) {
        Value p = LLVM::PoisonOp::create(rewriter, loc, pairType(f32));
        p = LLVM::InsertElementOp::create(rewriter, loc, p, regs[i], i32Const(rewriter, loc, 0));
        p = LLVM::InsertElementOp::create(rewriter, loc, p, regs[i + 1],
                                          i32Const(rewriter, loc, 1));
        wide.push_back(p);
      }
    }
    if (to.isFp8())
      return convertToRegisterA(op, to, wide, rewriter);
    SmallVector<Value> out;
    for (Value p : wide) {
      if (to.isPacked()) {
        Value n = LLVM::FPTruncOp::create(rewriter, loc, pairType(to.getElementType()), p);
        out.push_back(LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), n));
      } else {
        for (int k = 0; k < 2; ++k)
          out.push_back(
              LLVM::ExtractElementOp::create(rewriter, loc, p, i32Const(rewriter, loc, k)));
      }
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), to, out);
    return success();
  }
};

struct FragCoordLowering : ConvertOpToLLVMPattern<FragCoordOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragCoordOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DistShape shape = *distShape(op.getType());
    auto [row, col] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    SmallVector<Value> out;
    for (int64_t e = 0; e < shape.elements(); ++e) {
      // per_row element 2b + h: row 64b + 8h; per_col element 2j + k: column 8j + k.
      int64_t off = shape.kind == DistShape::Row ? ::tile::target::kWgmmaM * (e / 2) + 8 * (e % 2)
                                                 : 8 * (e / 2) + e % 2;
      out.push_back(LLVM::AddOp::create(rewriter, loc, shape.kind == DistShape::Row ? row : col,
                                        i32Const(rewriter, loc, off)));
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), op.getType(), out);
    return success();
  }
};

/// load_per_col / load_per_row: one plain load per column (row) the thread
/// holds, at the offsets FragCoordLowering gives them.
template <class Op> struct LoadDistributedLowering : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename Op::Adaptor;
  LogicalResult matchAndRewrite(Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    constexpr bool row = std::is_same_v<Op, LoadPerRowOp>;
    Type elem = type.getElementType();
    unsigned align = elem.getIntOrFloatBitWidth() / 8;
    auto origin = fragmentOrigin(rewriter, loc, adaptor.getThread());
    Value first = row ? origin.first : origin.second;
    // per_col element 2j + k: column 8j + k from col0 (every row shares it);
    // per_row element 2b + h: row 64b + 8h from row0 (every column shares it).
    // `rows = n` / `cols = n`: each row (column) past n is not read.
    Value limit;
    if constexpr (row)
      limit = adaptor.getRows();
    else
      limit = adaptor.getCols();
    SmallVector<Value> out;
    for (int64_t e = 0; e < type.getElementsPerThread(); ++e) {
      int64_t off = row ? ::tile::target::kWgmmaM * (e / 2) + 8 * (e % 2) : 8 * (e / 2) + e % 2;
      Value idx = LLVM::AddOp::create(rewriter, loc, first, i32Const(rewriter, loc, off));
      out.push_back(loadIfBelow(rewriter, loc, limit, idx, [&] {
                      Value p = LLVM::GEPOp::create(rewriter, loc, adaptor.getPtr().getType(), elem,
                                                    adaptor.getPtr(), ValueRange{idx});
                      return SmallVector<Value>{
                          LLVM::LoadOp::create(rewriter, loc, elem, p, align)};
                    }).front());
    }
    replaceWithRegisters(rewriter, op, *this->getTypeConverter(), type, out);
    return success();
  }
};
using LoadPerColLowering = LoadDistributedLowering<LoadPerColOp>;
using LoadPerRowLowering = LoadDistributedLowering<LoadPerRowOp>;

/// The value one store of a pair writes: <2 x f32> (f32), <2 x i32> (i32)
/// or the packed i32 of a 16-bit pair.
Value pairValue(OpBuilder &b, Location loc, FragType type, ArrayRef<Value> regs, int64_t reg) {
  if (type.isPacked())
    return regs[reg];
  Value v = LLVM::PoisonOp::create(b, loc, pairType(type.getElementType()));
  v = LLVM::InsertElementOp::create(b, loc, v, regs[reg], i32Const(b, loc, 0));
  return LLVM::InsertElementOp::create(b, loc, v, regs[reg + 1], i32Const(b, loc, 1));
}

/// The registers of pair p from the value one load of it gave (pairValue's
/// inverse): the packed i32 of a 16-bit pair, else its two elements.
void setPairRegisters(OpBuilder &b, Location loc, FragType type, const Pair &p, Value v,
                      MutableArrayRef<Value> regs) {
  if (type.isPacked()) {
    regs[p.reg] = v;
    return;
  }
  for (int k = 0; k < 2; ++k)
    regs[p.reg + k] = LLVM::ExtractElementOp::create(b, loc, v, i32Const(b, loc, k));
}

Value byteGep(OpBuilder &b, Location loc, Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{offset});
}

/// The 8x8-matrix instructions over a 16-bit fragment in rows row0.. of a
/// tile (stmatrix / ldmatrix, PTX ISA 9.7.9.16 and 9.7.16.5.15: .x4, .x2
/// for an odd last 8-column block): `each(address, firstRegister, count)`
/// once per instruction. Lane l gives the address of row l % 8 of matrix
/// l / 8: matrix m is the top (m even) or bottom 8 rows of 8-column block
/// 2k + m / 2, so register k of the instruction is the thread's pair of
/// matrix k, as the wgmma accumulator holds it.
void forEachMatrixGroup(OpBuilder &b, Location loc, FragType type, Value thread, Value row0,
                        function_ref<Value(Value, Value)> address,
                        function_ref<void(Value, int64_t, int64_t)> each) {
  auto at = [&](Value v, int64_t c) { return LLVM::AddOp::create(b, loc, v, i32Const(b, loc, c)); };
  auto [lane, warp] = laneAndWarp(b, loc, thread);
  Value two = i32Const(b, loc, 2), eight = i32Const(b, loc, 8);
  Value m = LLVM::UDivOp::create(b, loc, lane, eight);
  Value r8 = LLVM::URemOp::create(b, loc, lane, eight);
  Value mOdd = LLVM::URemOp::create(b, loc, m, two);
  Value half = LLVM::MulOp::create(b, loc, mOdd, eight);
  Value warpRow = LLVM::MulOp::create(b, loc, warp, i32Const(b, loc, 16));
  Value rowIn = LLVM::AddOp::create(b, loc, warpRow, half);
  rowIn = LLVM::AddOp::create(b, loc, rowIn, r8);
  rowIn = LLVM::AddOp::create(b, loc, rowIn, row0);
  Value mHalf = LLVM::UDivOp::create(b, loc, m, two);
  Value colX4 = LLVM::MulOp::create(b, loc, mHalf, eight);
  int64_t blocks = type.getCols() / 8,
          perBlock64 = type.getRegistersPerThread() / (type.getRows() / target::kWgmmaM);
  for (int64_t r = 0; r < type.getRows() / target::kWgmmaM; ++r) {
    Value row = at(rowIn, target::kWgmmaM * r);
    for (int64_t j = 0; j < blocks; j += 2) {
      bool x4 = j + 1 < blocks;
      Value col = x4 ? at(colX4, 8 * j) : i32Const(b, loc, 8 * j);
      each(address(row, col), r * perBlock64 + 2 * j, x4 ? 4 : 2);
    }
  }
}

struct FragStoreTileLowering : ConvertOpToLLVMPattern<FragStoreTileOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragStoreTileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<FragType>(op.getValue().getType());
    TileLayoutAttr layout = op.getLayout();
    int64_t elemBytes = scalarByteWidth(type.getElementType());
    Value base = adaptor.getTile();
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), type.getRegistersPerThread());
    auto address = [&](Value row, Value col) {
      Value off = layoutOffset(rewriter, loc, layout, elemBytes, ValueRange{row, col});
      return byteGep(rewriter, loc, base, off);
    };
    if (op.usesStMatrix()) {
      auto shape = NVVM::LdStMatrixShapeAttr::get(getContext(), 8, 8);
      forEachMatrixGroup(rewriter, loc, type, adaptor.getThread(), adaptor.getRow0(), address,
                         [&](Value ptr, int64_t reg, int64_t count) {
                           SmallVector<Value> src(regs.begin() + reg, regs.begin() + reg + count);
                           NVVM::StMatrixOp::create(rewriter, loc, ptr, src, NVVM::MMALayout::row,
                                                    shape, NVVM::LdStMatrixEltType::B16);
                         });
      rewriter.eraseOp(op);
      return success();
    }
    auto [row0, col0] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    row0 = LLVM::AddOp::create(rewriter, loc, row0, adaptor.getRow0());
    for (const Pair &p : fragmentPairs(type)) {
      Value row = LLVM::AddOp::create(rewriter, loc, row0, i32Const(rewriter, loc, p.row));
      Value col = LLVM::AddOp::create(rewriter, loc, col0, i32Const(rewriter, loc, p.col));
      Value ptr = address(row, col);
      LLVM::StoreOp::create(rewriter, loc, pairValue(rewriter, loc, type, regs, p.reg), ptr,
                            2 * elemBytes);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The inverse of FragStoreTileLowering, with the same addresses: ldmatrix
/// where stmatrix applies, else each pair with one ld.shared (a pair of
/// adjacent columns never leaves its 16-byte swizzle chunk: the verifier
/// keeps panels even).
struct FragLoadTileLowering : ConvertOpToLLVMPattern<FragLoadTileOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragLoadTileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<FragType>(op.getType());
    int64_t elemBytes = scalarByteWidth(type.getElementType());
    auto address = [&](Value row, Value col) {
      Value off = layoutOffset(rewriter, loc, op.getLayout(), elemBytes, ValueRange{row, col});
      return byteGep(rewriter, loc, adaptor.getTile(), off);
    };
    SmallVector<Value> out(type.getRegistersPerThread());
    if (op.usesLdMatrix()) {
      auto shape = NVVM::LdStMatrixShapeAttr::get(getContext(), 8, 8);
      Type i32 = rewriter.getI32Type();
      forEachMatrixGroup(
          rewriter, loc, type, adaptor.getThread(), adaptor.getRow0(), address,
          [&](Value ptr, int64_t reg, int64_t count) {
            auto result = LLVM::LLVMStructType::getLiteral(getContext(),
                                                           SmallVector<Type>(count, i32));
            Value v = NVVM::LdMatrixOp::create(rewriter, loc, result, ptr, count,
                                               NVVM::MMALayout::row, shape,
                                               NVVM::LdStMatrixEltType::B16);
            for (int64_t k = 0; k < count; ++k)
              out[reg + k] = LLVM::ExtractValueOp::create(rewriter, loc, v, k);
          });
      replaceWithRegisters(rewriter, op, *getTypeConverter(), type, out);
      return success();
    }
    Type pair = type.isPacked() ? Type(rewriter.getI32Type()) : pairType(type.getElementType());
    auto [row0, col0] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    Value firstRow = LLVM::AddOp::create(rewriter, loc, row0, adaptor.getRow0());
    for (const Pair &p : fragmentPairs(type)) {
      Value row = LLVM::AddOp::create(rewriter, loc, firstRow, i32Const(rewriter, loc, p.row));
      Value col = LLVM::AddOp::create(rewriter, loc, col0, i32Const(rewriter, loc, p.col));
      Value v = LLVM::LoadOp::create(rewriter, loc, pair, address(row, col), 2 * elemBytes);
      setPairRegisters(rewriter, loc, type, p, v, out);
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), type, out);
    return success();
  }
};

/// The address of pair p of a fragment in a row-major matrix at `base`
/// (element [r, c] at base[r * stride + c]) from the thread's origin
/// (row64, col64). 64-bit offsets: r * stride may pass 2^31.
Value pairAddress(OpBuilder &b, Location loc, Value base, Type elem, Value row64, Value col64,
                  Value stride, const Pair &p) {
  Value r = LLVM::AddOp::create(b, loc, row64, i64Const(b, loc, p.row));
  Value rowOff = LLVM::MulOp::create(b, loc, r, stride);
  Value col = LLVM::AddOp::create(b, loc, col64, i64Const(b, loc, p.col));
  Value off = LLVM::AddOp::create(b, loc, rowOff, col);
  return LLVM::GEPOp::create(b, loc, base.getType(), elem, base, ValueRange{off});
}

/// The column guards of a pair under `cols = n` (signed): the whole pair
/// where its second column is below n, its first element alone where only
/// the first is (the pair straddles the end), nothing past it.
struct PairColumns {
  Value whole, firstOnly;
};

PairColumns pairColumns(OpBuilder &b, Location loc, Value cols, Value col0, const Pair &p) {
  Value col = LLVM::AddOp::create(b, loc, col0, i32Const(b, loc, p.col));
  Value next = LLVM::AddOp::create(b, loc, col, i32Const(b, loc, 1));
  Value whole = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, next, cols);
  Value firstOnly = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, next, cols);
  return {whole, firstOnly};
}

/// The first element of a pair's value: an f32 or i32, or the low half (the
/// lower column, PTX's packing of cvt.rn.f16x2.f32) as i16.
Value pairFirst(OpBuilder &b, Location loc, FragType type, ArrayRef<Value> regs, int64_t reg) {
  if (!type.isPacked())
    return regs[reg];
  return LLVM::TruncOp::create(b, loc, b.getI16Type(), regs[reg]);
}

struct FragStoreLowering : ConvertOpToLLVMPattern<FragStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<FragType>(op.getValue().getType());
    Type elem = type.getElementType();
    int64_t elemBytes = scalarByteWidth(elem);
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), type.getRegistersPerThread());
    auto [row0, col0Binding] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    Value col0 = col0Binding; // captured below (C++17 lambdas cannot capture a binding)
    Type i64 = rewriter.getI64Type();
    Value row64 = LLVM::ZExtOp::create(rewriter, loc, i64, row0);
    Value col64 = LLVM::ZExtOp::create(rewriter, loc, i64, col0);
    // Element offsets in 64 bits: r * row_stride may pass 2^31.
    Value stride = adaptor.getRowStride();
    Value cols = adaptor.getCols();
    auto storePair = [&](const Pair &p) {
      Value ptr = pairAddress(rewriter, loc, adaptor.getPtr(), elem, row64, col64, stride, p);
      if (!cols) {
        LLVM::StoreOp::create(rewriter, loc, pairValue(rewriter, loc, type, regs, p.reg), ptr,
                              2 * elemBytes);
        return;
      }
      PairColumns in = pairColumns(rewriter, loc, cols, col0, p);
      ifTrue(rewriter, loc, in.whole, [&] {
        LLVM::StoreOp::create(rewriter, loc, pairValue(rewriter, loc, type, regs, p.reg), ptr,
                              2 * elemBytes);
      });
      ifTrue(rewriter, loc, in.firstOnly, [&] {
        LLVM::StoreOp::create(rewriter, loc, pairFirst(rewriter, loc, type, regs, p.reg), ptr,
                              elemBytes);
      });
    };
    // `rows = n`: the pairs of one row under one guard (two rows per 64-row
    // block and thread); `cols = n`: each pair under its column's.
    for (const auto &group : fragmentPairsByRow(type)) {
      Value row = LLVM::AddOp::create(rewriter, loc, row0, i32Const(rewriter, loc, group.first));
      ifRowBelow(rewriter, loc, adaptor.getRows(), row, [&] {
        for (const Pair &p : group.second)
          storePair(p);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// frag_load: the inverse of FragStoreLowering, one vector load per pair
/// (<2 x f32>, or the packed i32 of an f16x2 / bf16x2 pair).
struct FragLoadLowering : ConvertOpToLLVMPattern<FragLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<FragType>(op.getType());
    Type elem = type.getElementType();
    int64_t elemBytes = scalarByteWidth(elem);
    auto [row0, col0Binding] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    Value col0 = col0Binding; // captured below (C++17 lambdas cannot capture a binding)
    Type i64 = rewriter.getI64Type();
    Value row64 = LLVM::ZExtOp::create(rewriter, loc, i64, row0);
    Value col64 = LLVM::ZExtOp::create(rewriter, loc, i64, col0);
    Value stride = adaptor.getRowStride();
    Value cols = adaptor.getCols();
    Type pair = type.isPacked() ? Type(rewriter.getI32Type()) : pairType(elem);
    Type first = type.isPacked() ? Type(rewriter.getI16Type()) : elem;
    // A pair's value: the vector load, or under `cols = n` the vector where
    // the whole pair is below n, its first element alone (the second 0)
    // where the pair straddles n, else 0.
    auto loadPair = [&](const Pair &p) -> Value {
      Value ptr = pairAddress(rewriter, loc, adaptor.getPtr(), elem, row64, col64, stride, p);
      auto vector = [&] {
        return SmallVector<Value>{LLVM::LoadOp::create(rewriter, loc, pair, ptr, 2 * elemBytes)};
      };
      if (!cols)
        return vector().front();
      PairColumns in = pairColumns(rewriter, loc, cols, col0, p);
      Value v = loadIf(rewriter, loc, in.whole, vector).front();
      Value f =
          loadIf(rewriter, loc, in.firstOnly, [&] {
            return SmallVector<Value>{LLVM::LoadOp::create(rewriter, loc, first, ptr, elemBytes)};
          }).front();
      if (type.isPacked()) {
        Value low = LLVM::ZExtOp::create(rewriter, loc, rewriter.getI32Type(), f);
        return LLVM::SelectOp::create(rewriter, loc, in.firstOnly, low, v);
      }
      Value zero = i32Const(rewriter, loc, 0);
      Value e0 = LLVM::ExtractElementOp::create(rewriter, loc, v, zero);
      e0 = LLVM::SelectOp::create(rewriter, loc, in.firstOnly, f, e0);
      return LLVM::InsertElementOp::create(rewriter, loc, v, e0, zero);
    };
    SmallVector<Value> out(type.getRegistersPerThread());
    // The pairs of one row under one guard with `rows = n` (rows past n are
    // not read and hold 0), as FragStoreLowering guards its stores.
    for (const auto &group : fragmentPairsByRow(type)) {
      const SmallVector<Pair> &pairs = group.second;
      Value row = LLVM::AddOp::create(rewriter, loc, row0, i32Const(rewriter, loc, group.first));
      SmallVector<Value> loaded = loadIfBelow(rewriter, loc, adaptor.getRows(), row, [&] {
        SmallVector<Value> vs;
        for (const Pair &p : pairs)
          vs.push_back(loadPair(p));
        return vs;
      });
      for (auto [p, v] : llvm::zip_equal(pairs, loaded))
        setPairRegisters(rewriter, loc, type, p, v, out);
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), type, out);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileEpilogueToNVVMPatterns(LLVMTypeConverter &converter,
                                                    RewritePatternSet &patterns) {
  patterns.add<FragArithLowering, FragFmaLowering, FragNegLowering, FragConvertLowering,
               FragColsLowering, FragCoordLowering, LoadPerColLowering, LoadPerRowLowering, FragStoreTileLowering,
               FragStoreLowering, FragLoadLowering, FragLoadTileLowering>(converter);
}
