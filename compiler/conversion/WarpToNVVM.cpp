//===- WarpToNVVM.cpp - shfl.sync, vote.sync, redux.sync, match.sync -------===//
//
// The NVVM ops of MLIR 22 have the PTX semantics exactly; this file only
// forms their operands:
//  - shfl.sync (PTX ISA 9.7.9.6) moves .b32. Narrower values are widened
//    (zero-extended bits) and truncated back; 64-bit values move as two
//    halves. The `c` operand packs the segment mask and the clamp lane:
//    c = ((32 - width) << 8) | (up ? 0 : 31), as CUDA's __shfl_*_sync. A
//    width that is not a compile-time constant is clamped to 1..32 and
//    rounded down to a power of two first, so `c` is always a well-formed
//    segment (docs/reference/warp-and-math.md "Warp-level operations").
//  - match.sync (9.7.13.9) compares .b32/.b64 bits: narrower values are
//    zero-extended, floats compared as their bits. match.all gives {mask,
//    pred}; the mask is 0 when the lanes disagree.
//  - redux.sync (9.7.13.11), vote.sync (9.7.13.7), bar.warp.sync (9.7.13.2)
//    and the %lanemask_* registers (10.14-10.18) map one to one; an f32
//    reduction (no redux.sync .f32 on sm_90) is a butterfly of shfl.sync.bfly.
//===----------------------------------------------------------------------===//
#include "ConversionUtils.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The bits of a scalar as an integer of its width (floats bitcast).
Value asBits(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<IntegerType>(t))
    return v;
  return LLVM::BitcastOp::create(b, loc, b.getIntegerType(t.getIntOrFloatBitWidth()), v);
}

Value fromBits(OpBuilder &b, Location loc, Value bits, Type t) {
  if (bits.getType() == t)
    return bits;
  return LLVM::BitcastOp::create(b, loc, t, bits);
}

/// The bits of a value of at most 32 bits, zero-extended to i32.
Value widen32(OpBuilder &b, Location loc, Value v) {
  Value bits = asBits(b, loc, v);
  if (bits.getType().isInteger(32))
    return bits;
  return LLVM::ZExtOp::create(b, loc, b.getI32Type(), bits);
}

struct ShflLowering : ConvertOpToLLVMPattern<ShflOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  static NVVM::ShflKind nvvmKind(ShflKind k) {
    switch (k) {
    case ShflKind::up:
      return NVVM::ShflKind::up;
    case ShflKind::down:
      return NVVM::ShflKind::down;
    case ShflKind::bfly:
      return NVVM::ShflKind::bfly;
    case ShflKind::idx:
      return NVVM::ShflKind::idx;
    }
    return NVVM::ShflKind::idx;
  }

  /// PTX's `c`: ((32 - width) << 8) | clamp, clamp = 0 for up, 31 otherwise.
  /// `lanesLeft` is set to 32 - width (the lane bits above the segment): a
  /// constant in `leftConst`, else the value computed here.
  static Value segmentOperand(OpBuilder &b, Location loc, Value width, ShflKind kind,
                              std::optional<int64_t> &leftConst, Value &lanesLeft) {
    int clamp = kind == ShflKind::up ? 0 : 31;
    APInt c;
    if (matchPattern(width, m_ConstantInt(&c))) { // Sema checked: a power of two in 1..32
      leftConst = 32 - c.getSExtValue();
      return i32Const(b, loc, ((32 - c.getSExtValue()) << 8) | clamp);
    }
    // Run time: clamp to 1..32, then keep the highest set bit (a power of two).
    Value w = LLVM::SMaxOp::create(b, loc, width, i32Const(b, loc, 1));
    w = LLVM::SMinOp::create(b, loc, w, i32Const(b, loc, 32));
    Value lz =
        LLVM::CountLeadingZerosOp::create(b, loc, b.getI32Type(), w, /*is_zero_poison=*/true);
    Value one = i32Const(b, loc, 1);
    Value log2 = LLVM::SubOp::create(b, loc, i32Const(b, loc, 31), lz);
    Value pow2 = LLVM::ShlOp::create(b, loc, one, log2);
    lanesLeft = LLVM::SubOp::create(b, loc, i32Const(b, loc, 32), pow2);
    Value seg = LLVM::ShlOp::create(b, loc, lanesLeft, i32Const(b, loc, 8));
    return clamp ? Value(LLVM::OrOp::create(b, loc, seg, i32Const(b, loc, clamp))) : seg;
  }

  LogicalResult matchAndRewrite(ShflOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value value = adaptor.getValue();
    Type type = value.getType();
    Type i32 = rewriter.getI32Type();
    std::optional<int64_t> leftConst;
    Value lanesLeft;
    Value c =
        segmentOperand(rewriter, loc, adaptor.getWidth(), op.getKind(), leftConst, lanesLeft);
    Value lane = adaptor.getLane();
    // shfl.bfly reads lane ^ m whenever that is <= the segment's last lane, so
    // an m with a bit at or above the width reads a lower segment's lane.
    // The documents say: own value when lane ^ m leaves the segment, which
    // is when m (mod 32) has such a bit; then m = 0 (own lane). Nothing is
    // emitted for width 32 or a constant m below the width.
    APInt mc;
    bool full = leftConst && *leftConst == 0;
    bool inSegment = leftConst && matchPattern(lane, m_ConstantInt(&mc)) &&
                     (mc.getZExtValue() & *leftConst) == 0;
    if (op.getKind() == ShflKind::bfly && !full && !inSegment) {
      if (leftConst)
        lanesLeft = i32Const(rewriter, loc, *leftConst);
      Value above = LLVM::AndOp::create(rewriter, loc, lane, lanesLeft);
      Value leaves = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, above,
                                          i32Const(rewriter, loc, 0));
      lane = LLVM::SelectOp::create(rewriter, loc, leaves, i32Const(rewriter, loc, 0), lane);
    }
    auto shfl = [&](Value v) -> Value {
      return NVVM::ShflOp::create(rewriter, loc, v.getType(), adaptor.getMask(), v, lane, c,
                                  nvvmKind(op.getKind()), UnitAttr())
          .getResult();
    };
    unsigned bits = type.getIntOrFloatBitWidth();
    Value result;
    if (type.isInteger(32) || type.isF32()) {
      result = shfl(value);
    } else if (bits < 32) {
      Value moved = shfl(widen32(rewriter, loc, value));
      Value narrow = LLVM::TruncOp::create(rewriter, loc, rewriter.getIntegerType(bits), moved);
      result = fromBits(rewriter, loc, narrow, type);
    } else { // 64 bits: the two halves move the same way
      Type i64 = rewriter.getI64Type();
      Value whole = asBits(rewriter, loc, value);
      Value lo = LLVM::TruncOp::create(rewriter, loc, i32, whole);
      Value hi = LLVM::TruncOp::create(
          rewriter, loc, i32,
          LLVM::LShrOp::create(rewriter, loc, whole, i64Const(rewriter, loc, 32)));
      Value newLo = LLVM::ZExtOp::create(rewriter, loc, i64, shfl(lo));
      Value newHi = LLVM::ZExtOp::create(rewriter, loc, i64, shfl(hi));
      Value joined = LLVM::OrOp::create(
          rewriter, loc, newLo,
          LLVM::ShlOp::create(rewriter, loc, newHi, i64Const(rewriter, loc, 32)));
      result = fromBits(rewriter, loc, joined, type);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct VoteLowering : ConvertOpToLLVMPattern<VoteOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(VoteOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::VoteSyncKind kind = op.getKind() == VoteKind::any   ? NVVM::VoteSyncKind::any
                              : op.getKind() == VoteKind::all ? NVVM::VoteSyncKind::all
                                                              : NVVM::VoteSyncKind::ballot;
    rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(op, op.getType(), adaptor.getMask(),
                                                  adaptor.getPred(), kind);
    return success();
  }
};

struct ReduxLowering : ConvertOpToLLVMPattern<ReduxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  /// An f32 add/min/max (the verifier allows no other, over the full warp):
  /// five shfl.sync.bfly steps, xor 16 down to 1, each combining the lane's
  /// value with its partner's. add.f32 and min/max are commutative, so the
  /// two lanes of a step compute the same bits and every lane ends with the
  /// same result. min/max are llvm.minimumnum/maximumnum, as the scalar
  /// builtins (a NaN operand is ignored).
  static Value butterfly(ConversionPatternRewriter &rewriter, ReduxOp op, Value value,
                         Value mask) {
    Location loc = op.getLoc();
    Type f32 = value.getType();
    Value clamp = i32Const(rewriter, loc, 31); // c: one segment of 32 lanes
    auto noFlags = LLVM::FastmathFlagsAttr::get(rewriter.getContext(), LLVM::FastmathFlags::none);
    for (int m = 16; m >= 1; m /= 2) {
      Value partner = NVVM::ShflOp::create(rewriter, loc, f32, mask, value,
                                           i32Const(rewriter, loc, m), clamp,
                                           NVVM::ShflKind::bfly, UnitAttr())
                          .getResult();
      if (op.getKind() == ReduxKind::add) {
        value = LLVM::FAddOp::create(rewriter, loc, value, partner, noFlags);
        continue;
      }
      StringRef name = op.getKind() == ReduxKind::min ? "llvm.minimumnum" : "llvm.maximumnum";
      value = LLVM::CallIntrinsicOp::create(rewriter, loc, f32, rewriter.getStringAttr(name),
                                            ValueRange{value, partner})
                  .getResult(0);
    }
    return value;
  }
  LogicalResult matchAndRewrite(ReduxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getType().isF32()) {
      rewriter.replaceOp(op, butterfly(rewriter, op, adaptor.getValue(), adaptor.getMask()));
      return success();
    }
    NVVM::ReduxKind kind = NVVM::ReduxKind::ADD;
    switch (op.getKind()) {
    case ReduxKind::add:
      kind = NVVM::ReduxKind::ADD;
      break;
    case ReduxKind::min:
      kind = NVVM::ReduxKind::MIN;
      break;
    case ReduxKind::max:
      kind = NVVM::ReduxKind::MAX;
      break;
    case ReduxKind::umin:
      kind = NVVM::ReduxKind::UMIN;
      break;
    case ReduxKind::umax:
      kind = NVVM::ReduxKind::UMAX;
      break;
    case ReduxKind::and_:
      kind = NVVM::ReduxKind::AND;
      break;
    case ReduxKind::or_:
      kind = NVVM::ReduxKind::OR;
      break;
    case ReduxKind::xor_:
      kind = NVVM::ReduxKind::XOR;
      break;
    }
    rewriter.replaceOpWithNewOp<NVVM::ReduxOp>(op, op.getType(), adaptor.getValue(), kind,
                                               adaptor.getMask());
    return success();
  }
};

struct MatchLowering : ConvertOpToLLVMPattern<MatchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MatchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value value = adaptor.getValue();
    value = value.getType().getIntOrFloatBitWidth() == 64 ? asBits(rewriter, loc, value)
                                                          : widen32(rewriter, loc, value);
    Type i32 = rewriter.getI32Type();
    if (op.getKind() == MatchKind::any) {
      rewriter.replaceOpWithNewOp<NVVM::MatchSyncOp>(op, i32, adaptor.getMask(), value,
                                                     NVVM::MatchSyncKind::any);
      return success();
    }
    auto pair = LLVM::LLVMStructType::getLiteral(getContext(), {i32, rewriter.getI1Type()});
    Value both = NVVM::MatchSyncOp::create(rewriter, loc, pair, adaptor.getMask(), value,
                                           NVVM::MatchSyncKind::all);
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, both, ArrayRef<int64_t>{0});
    return success();
  }
};

struct SyncWarpLowering : ConvertOpToLLVMPattern<SyncWarpOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(SyncWarpOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SyncWarpOp>(op, adaptor.getMask());
    return success();
  }
};

struct LaneMaskLowering : ConvertOpToLLVMPattern<LaneMaskOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(LaneMaskOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value v;
    switch (op.getKind()) {
    case LaneMaskKind::lt:
      v = NVVM::LaneMaskLtOp::create(rewriter, loc, i32);
      break;
    case LaneMaskKind::le:
      v = NVVM::LaneMaskLeOp::create(rewriter, loc, i32);
      break;
    case LaneMaskKind::eq:
      v = NVVM::LaneMaskEqOp::create(rewriter, loc, i32);
      break;
    case LaneMaskKind::ge:
      v = NVVM::LaneMaskGeOp::create(rewriter, loc, i32);
      break;
    case LaneMaskKind::gt:
      v = NVVM::LaneMaskGtOp::create(rewriter, loc, i32);
      break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileWarpToNVVMPatterns(LLVMTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ShflLowering, VoteLowering, ReduxLowering, MatchLowering, SyncWarpLowering,
               LaneMaskLowering>(converter);
}
