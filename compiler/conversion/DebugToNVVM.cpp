//===- DebugToNVVM.cpp - hang reports (tilec --debug-hangs) ----------------===//
//
// %globaltimer is nvvm.read.ptx.sreg.globaltimer (an intrinsic that reads
// inaccessible memory, so two reads are never merged or hoisted out of a
// wait loop); the report is vprintf (the CUDA device printf ABI) then `trap`.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct GlobalTimerLowering : ConvertOpToLLVMPattern<GlobalTimerOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(GlobalTimerOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::GlobalTimerOp>(op, rewriter.getI64Type());
    return success();
  }
};

/// vprintf(format, args) with the i32 args packed in a local struct (the CUDA
/// device printf ABI), then `trap` so the launch fails with the report printed.
struct HangTrapLowering : ConvertOpToLLVMPattern<HangTrapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(HangTrapOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    unsigned globalSpace = nvptxAddressSpace(static_cast<int>(AddressSpace::global));
    auto globalPtr = LLVM::LLVMPointerType::get(ctx, globalSpace);
    auto i32 = rewriter.getI32Type();
    OpBuilder::InsertPoint here = rewriter.saveInsertionPoint();
    rewriter.setInsertionPointToStart(module.getBody());
    auto vprintf = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf");
    if (!vprintf)
      vprintf = LLVM::LLVMFuncOp::create(rewriter, loc, "vprintf",
                                         LLVM::LLVMFunctionType::get(i32, {ptr, ptr}));
    std::string text = op.getMessage().str();
    text.push_back('\0');
    std::string name =
        std::string(kGeneratedSymbolPrefix) + "hang_msg$" + std::to_string(counter(module));
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), text.size());
    LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/true, LLVM::Linkage::Internal,
                           name, rewriter.getStringAttr(text), /*alignment=*/1, globalSpace);
    rewriter.restoreInsertionPoint(here);

    Value format = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, ptr, LLVM::AddressOfOp::create(rewriter, loc, globalPtr, name));
    SmallVector<Type> fields(adaptor.getArgs().getTypes()); // i32, or i64 for %ll*
    Value args = LLVM::ZeroOp::create(rewriter, loc, ptr);
    if (!fields.empty()) {
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
      Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), 1);
      args = LLVM::AllocaOp::create(rewriter, loc, ptr, structType, one, /*alignment=*/8);
      for (auto [i, v] : llvm::enumerate(adaptor.getArgs())) {
        Value field = LLVM::GEPOp::create(rewriter, loc, ptr, structType, args,
                                          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        LLVM::StoreOp::create(rewriter, loc, v, field);
      }
    }
    LLVM::CallOp::create(rewriter, loc, vprintf, ValueRange{format, args});
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }

  static unsigned counter(ModuleOp module) {
    unsigned n = 0;
    while (
        module.lookupSymbol(std::string(kGeneratedSymbolPrefix) + "hang_msg$" + std::to_string(n)))
      ++n;
    return n;
  }
};

} // namespace

void mlir::tile::populateTileDebugToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<GlobalTimerLowering, HangTrapLowering>(converter);
}
