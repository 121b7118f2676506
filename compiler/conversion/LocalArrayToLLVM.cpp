//===- LocalArrayToLLVM.cpp - tile.local_array -> llvm.alloca --------------===//
//
// `local<T>[N]` is one alloca of [N x T] in the kernel's entry block (where
// MLIRGen puts the op). With constant GEP offsets only, LLVM's SROA splits
// it into N scalars and mem2reg puts them in registers; a variable offset
// keeps it in the thread's local memory (`.local` in PTX), which the
// tile-check-local-arrays pass reports before lowering.
//
//===----------------------------------------------------------------------===//
#include "ConversionUtils.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct LocalArrayLowering : ConvertOpToLLVMPattern<LocalArrayOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(LocalArrayOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elem = getTypeConverter()->convertType(cast<PtrType>(op.getType()).getElementType());
    if (!elem)
      return rewriter.notifyMatchFailure(op, "unconvertible local array element type");
    auto array = LLVM::LLVMArrayType::get(elem, op.getCount());
    Value one = i32Const(rewriter, op.getLoc(), 1);
    // 16-byte alignment: the array may be read with vector loads once in
    // local memory (and SROA ignores it when the array is split).
    rewriter.replaceOpWithNewOp<LLVM::AllocaOp>(op, LLVM::LLVMPointerType::get(getContext()), array,
                                                one, /*alignment=*/16);
    return success();
  }
};
} // namespace

void mlir::tile::populateTileLocalArrayToLLVMPatterns(LLVMTypeConverter &converter,
                                                      RewritePatternSet &patterns) {
  patterns.add<LocalArrayLowering>(converter);
}
