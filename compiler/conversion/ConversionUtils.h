//===- ConversionUtils.h - helpers every conversion family uses -*- C++ -*-===//
//
// The constants and the one-op pattern shape the tile -> LLVM/NVVM families
// share, defined once (TileToLLVM.h lists the families).
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_CONVERSIONUTILS_H
#define TILEC_CONVERSION_CONVERSIONUTILS_H

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {

/// An `llvm.mlir.constant` of type i32 (`v` truncated to 32 bits).
inline Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr((int32_t)v));
}

/// An `llvm.mlir.constant` of type i64.
inline Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
}

/// Float min/max as PTX min/max compute them: a NaN operand is ignored,
/// signalling ones too (llvm.minimumnum / maximumnum; llvm.minnum selects
/// the same instruction but constant-folds min(sNaN, x) to NaN).
inline Value floatMinMax(OpBuilder &b, Location loc, bool isMin, Value x, Value y) {
  return LLVM::CallIntrinsicOp::create(
             b, loc, x.getType(), b.getStringAttr(isMin ? "llvm.minimumnum" : "llvm.maximumnum"),
             ValueRange{x, y})
      .getResult(0);
}

/// A tile op without operands or results whose PTX is exactly one NVVM op
/// without operands (wgmma.fence, cp.async.bulk.commit_group, ...).
template <typename SourceOp, typename TargetOp>
struct OneToOneLowering : ConvertOpToLLVMPattern<SourceOp> {
  using ConvertOpToLLVMPattern<SourceOp>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<TargetOp>(op);
    return success();
  }
};

} // namespace mlir::tile

#endif // TILEC_CONVERSION_CONVERSIONUTILS_H
