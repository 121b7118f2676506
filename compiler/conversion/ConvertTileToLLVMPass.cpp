//===- ConvertTileToLLVMPass.cpp - the tile -> LLVM/NVVM pass --------------===//
#include "tilec/Conversion/TileToLLVM.h"
#include "tilec/Passes.h"
#include "tile/Dialect/TileDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct ConvertTileToLLVMPass : tile::impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    tile::addTileTypeConversions(converter);

    RewritePatternSet patterns(ctx);
    tile::populateTileKernelToLLVMPatterns(converter, patterns);
    tile::populateTileMemoryToLLVMPatterns(converter, patterns);
    tile::populateTileSyncToLLVMPatterns(converter, patterns);
    tile::populateTileAsyncToLLVMPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<tile::TileDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
