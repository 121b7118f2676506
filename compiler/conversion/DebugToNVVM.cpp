//===- DebugToNVVM.cpp - hang reports (tilec --debug-hangs) ----------------===//
//
// %globaltimer is nvvm.read.ptx.sreg.globaltimer (an intrinsic that reads
// inaccessible memory, so two reads are never merged or hoisted out of a
// wait loop); the report is vprintf (the CUDA device printf ABI) then `trap`,
// or, in kernels with mma (`host_record`: a call would make ptxas serialise
// every wgmma, C7510), the runtime's hang record (tile/hang_record.h) then
// `trap`.
//===----------------------------------------------------------------------===//
#include "ConversionUtils.h"
#include "PTXBuilder.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "tile/hang_record.h"

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
/// device printf ABI), then `trap` so the launch fails with the report printed;
/// with `host_record`, the runtime's hang record instead of the call.
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
    // No vprintf declaration in a kernel that writes host records.
    LLVM::LLVMFuncOp vprintf;
    const bool hostRecord =
        ctx->getLoadedDialect<TileDialect>()->getHostRecordAttrHelper().isAttrPresent(op);
    if (!hostRecord) {
      vprintf = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf");
      if (!vprintf)
        vprintf = LLVM::LLVMFuncOp::create(rewriter, loc, "vprintf",
                                           LLVM::LLVMFunctionType::get(i32, {ptr, ptr}));
    }
    std::string text = op.getMessage().str();
    text.push_back('\0');
    const unsigned site = counter(module);
    std::string name = std::string(::tile::hang::kMessagePrefix) + std::to_string(site);
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), text.size());
    // A host record's message is read by the runtime (cuModuleGetGlobal), not
    // by the kernel: visible, so that nothing drops it as unused.
    LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/true,
                           hostRecord ? LLVM::Linkage::External : LLVM::Linkage::Internal, name,
                           rewriter.getStringAttr(text), /*alignment=*/1, globalSpace);
    rewriter.restoreInsertionPoint(here);
    if (hostRecord)
      return lowerToHostRecord(op, adaptor, rewriter, site);

    Value format = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, ptr, LLVM::AddressOfOp::create(rewriter, loc, globalPtr, name));
    SmallVector<Type> fields(adaptor.getArgs().getTypes()); // i32, or i64 for %ll*
    Value args = LLVM::ZeroOp::create(rewriter, loc, ptr);
    if (!fields.empty()) {
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
      Value one = i64Const(rewriter, loc, 1);
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
    while (module.lookupSymbol(std::string(::tile::hang::kMessagePrefix) + std::to_string(n)))
      ++n;
    return n;
  }

  /// The module's global of `type` named `name` (created zero-initialised,
  /// in the global state space, on first use).
  static Value globalAddress(ConversionPatternRewriter &rewriter, Location loc, ModuleOp module,
                             StringRef name, Type type, LLVM::Linkage linkage) {
    MLIRContext *ctx = rewriter.getContext();
    unsigned globalSpace = nvptxAddressSpace(static_cast<int>(AddressSpace::global));
    if (!module.lookupSymbol(name)) {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, type, /*isConstant=*/false, linkage, name,
                             rewriter.getIntegerAttr(type, 0), /*alignment=*/8, globalSpace);
    }
    return LLVM::AddressOfOp::create(rewriter, loc, LLVM::LLVMPointerType::get(ctx, globalSpace),
                                     name);
  }

  /// The report without a call (tile/hang_record.h): the first thread to
  /// claim the module's record writes the report's index and arguments into
  /// the host memory the runtime mapped (its address in tile$hang_record),
  /// then the magic word after a fence.sc.sys (PTX ISA, memory consistency
  /// model: the host sees the fields before the word), then traps. A thread
  /// that loses the claim waits for the word before it traps, so no trap
  /// ends the grid before the report is in host memory. Without a runtime
  /// (address 0) every thread just traps.
  LogicalResult lowerToHostRecord(HangTrapOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter, unsigned site) const {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    if (adaptor.getArgs().size() > size_t(::tile::hang::kHangRecordMaxArgs))
      return op.emitOpError() << "a host record holds at most " << ::tile::hang::kHangRecordMaxArgs
                              << " arguments";
    auto i64 = rewriter.getI64Type();
    Value record = globalAddress(rewriter, loc, module, ::tile::hang::kRecordSymbol, i64,
                                 LLVM::Linkage::External);
    Value claim =
        globalAddress(rewriter, loc, module, std::string(kGeneratedSymbolPrefix) + "hang_claim",
                      rewriter.getI32Type(), LLVM::Linkage::Internal);
    ptx::Asm as(rewriter, loc);
    std::string recordAt = as.address(record, AddressSpace::global);
    std::string claimAt = as.address(claim, AddressSpace::global);
    SmallVector<std::string> args;
    for (Value v : adaptor.getArgs())
      args.push_back(as.operand(
          v.getType().isInteger(64) ? v : LLVM::SExtOp::create(rewriter, loc, i64, v), "l"));
    const std::string magic = std::to_string(::tile::hang::kHangRecordMagic);
    as.line("{")
        .line(".reg .pred p;")
        .line(".reg .b64 r, w;")
        .line(".reg .b32 o;")
        .line("ld.volatile.global.u64 r, " + recordAt + ";")
        .line("setp.eq.u64 p, r, 0;")
        .line("@p bra TRAP;")
        .line("atom.global.cas.b32 o, " + claimAt + ", 0, 1;")
        .line("setp.ne.u32 p, o, 0;")
        .line("@p bra OTHER;")
        .line("mov.u64 w, " + std::to_string(site) + ";")
        .line("st.volatile.global.u64 [r+8], w;")
        .line("mov.u64 w, " + std::to_string(args.size()) + ";")
        .line("st.volatile.global.u64 [r+16], w;");
    for (size_t i = 0; i < args.size(); ++i)
      as.line("st.volatile.global.u64 [r+" + std::to_string(24 + 8 * i) + "], " + args[i] + ";");
    as.line("fence.sc.sys;")
        .line("mov.u64 w, " + magic + ";")
        .line("st.volatile.global.u64 [r], w;")
        .line("fence.sc.sys;")
        .line("bra TRAP;")
        .line("OTHER:")
        .line("nanosleep.u32 1000;")
        .line("ld.volatile.global.u64 w, [r];")
        .line("setp.ne.u64 p, w, " + magic + ";")
        .line("@p bra OTHER;")
        .line("TRAP:")
        .line("trap;")
        .line("}");
    as.emit();
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileDebugToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<GlobalTimerLowering, HangTrapLowering>(converter);
}
