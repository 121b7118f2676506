//===- ConvertTileToLLVMPass.cpp - the tile -> LLVM/NVVM pass --------------===//
#include "FragmentPins.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"
#include "tilec/Passes.h"

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
    tile::pinFragmentsLiveAcrossWgmma(getOperation());
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    tile::addTileTypeConversions(converter);
    tile::addTensorMapTypeConversion(converter);
    tile::addFragTypeConversion(converter);

    RewritePatternSet patterns(ctx);
    tile::populateTileKernelToLLVMPatterns(converter, patterns);
    tile::populateTileMemoryToLLVMPatterns(converter, patterns);
    tile::populateTileMBarrierToNVVMPatterns(converter, patterns);
    tile::populateTileBarrierToNVVMPatterns(converter, patterns);
    tile::populateTileFenceToNVVMPatterns(converter, patterns);
    tile::populateTileAsyncToNVVMPatterns(converter, patterns);
    tile::populateTileDebugToNVVMPatterns(converter, patterns);
    tile::populateTilePeerToNVVMPatterns(converter, patterns);
    tile::populateTileRoleToNVVMPatterns(converter, patterns);
    tile::populateTileTmaToNVVMPatterns(converter, patterns);
    tile::populateTileWarpToNVVMPatterns(converter, patterns);
    tile::populateTileLocalArrayToLLVMPatterns(converter, patterns);
    tile::populateTileMmaToNVVMPatterns(converter, patterns);
    tile::populateTileEpilogueToNVVMPatterns(converter, patterns);
    tile::populateTileFragmentToNVVMPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<tile::TileDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))) ||
        failed(checkTypesConverted(getOperation())))
      signalPassFailure();
  }

  /// The conversion framework legalises ops by their operand and result types
  /// only; a type held in an attribute (an alloca's or GEP's element type, a
  /// global's type) that a pattern forgot to convert would reach LLVM IR
  /// translation, which reads it as an LLVM type and crashes. Report it here
  /// instead, at the op's source location.
  static LogicalResult checkTypesConverted(ModuleOp module) {
    auto isLLVM = [](Type t) {
      return LLVM::isCompatibleType(t) || isa<LLVM::LLVMFunctionType>(t);
    };
    WalkResult result = module.walk([&](Operation *op) {
      if (isa<UnrealizedConversionCastOp>(op)) // removed by reconcile-unrealized-casts
        return WalkResult::advance();
      for (NamedAttribute attr : op->getAttrs()) {
        auto typeAttr = dyn_cast<TypeAttr>(attr.getValue());
        if (typeAttr && !isLLVM(typeAttr.getValue())) {
          op->emitError() << "internal error: '" << op->getName() << "' keeps the unconverted type "
                          << typeAttr.getValue() << " in '" << attr.getName().getValue() << "'";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};
} // namespace
