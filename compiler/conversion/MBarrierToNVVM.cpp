//===- MBarrierToNVVM.cpp - mbarrier init/arrive/expect_tx/wait -----------===//
//
// PTX ISA 9.7.13.15. init, arrive, arrive.expect_tx and expect_tx are the
// MLIR 22 NVVM ops, which carry the `.relaxed` flag and the `.cta`/`.cluster`
// scope and pick `.shared` or `.shared::cluster` from the pointer's address
// space. The waits are one inline-PTX spin each (PTX builder): NVVM's
// try_wait.parity op is `.acquire.cta` only, and its loop is not the
// one-block spin with the hardware suspend hint that the waits here are.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "ConversionUtils.h"
#include "PTXBuilder.h"
#include "SyncDecisions.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// NVVM's scope enum names the PTX scopes as the tile dialect does.
NVVM::MemScopeKindAttr nvvmScope(MLIRContext *ctx, MemoryScope scope) {
  return NVVM::MemScopeKindAttr::get(ctx,
                                     *NVVM::symbolizeMemScopeKind(stringifyMemoryScope(scope)));
}

/// `mbarrier.init.shared.b64` (`.shared` is `.shared::cta`, PTX ISA 5.1.5).
struct MBarrierInitLowering : ConvertOpToLLVMPattern<MBarrierInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(op, adaptor.getMbar(), adaptor.getCount(),
                                                      /*predicate=*/Value());
    return success();
  }
};

/// `mbarrier.arrive[.expect_tx]{.release,.relaxed}.{cta,cluster}` on this CTA's
/// (`.shared`) or a peer's (`.shared::cluster`) mbarrier. The arrival state is
/// not needed (waits use the phase parity): the op has no result; for a local
/// mbarrier the intrinsic still writes the state to a dead register, which is
/// the `_` sink of PTX ISA 9.7.13.15.13 in effect.
struct MBarrierArriveLowering : ConvertOpToLLVMPattern<MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryOrder> order = requireOrder(op, op.getOrder());
    FailureOr<MemoryScope> scope = requireScope(op, op.getScope());
    if (failed(order) || failed(scope))
      return failure();
    NVVM::MemScopeKindAttr nvvmScopeAttr = nvvmScope(getContext(), *scope);
    BoolAttr relaxed = rewriter.getBoolAttr(*order == MemoryOrder::relaxed);
    if (adaptor.getTxCount())
      rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveExpectTxOp>(
          op, /*res=*/Type(), adaptor.getMbar(), adaptor.getTxCount(), nvvmScopeAttr, relaxed,
          /*predicate=*/Value());
    else
      rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveOp>(op, /*res=*/Type(), adaptor.getMbar(),
                                                          /*count=*/Value(), nvvmScopeAttr,
                                                          relaxed);
    return success();
  }
};

/// `mbarrier.expect_tx.relaxed.{cta,cluster}.shared.b64` (expect_tx is relaxed
/// only, PTX ISA 9.7.13.15.11).
struct MBarrierExpectTxLowering : ConvertOpToLLVMPattern<MBarrierExpectTxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierExpectTxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryScope> scope = requireScope(op, op.getScope());
    if (failed(scope))
      return failure();
    rewriter.replaceOpWithNewOp<NVVM::MBarrierExpectTxOp>(
        op, adaptor.getMbar(), adaptor.getTxCount(), nvvmScope(getContext(), *scope));
    return success();
  }
};

/// `mbarrier.try_wait.parity{.acquire,.relaxed}.{cta,cluster}.shared::cta.b64`.
FailureOr<ptx::Instr> tryWait(Operation *op, std::optional<MemoryOrder> order,
                              std::optional<MemoryScope> scope) {
  FailureOr<MemoryOrder> decidedOrder = requireOrder(op, order);
  FailureOr<MemoryScope> decidedScope = requireScope(op, scope);
  if (failed(decidedOrder) || failed(decidedScope))
    return failure();
  ptx::Instr instr("mbarrier.try_wait");
  instr.qual("parity")
      .sem(*decidedOrder)
      .scope(*decidedScope)
      .space(AddressSpace::shared)
      .type('b', 64);
  return instr;
}

/// The whole spin in one asm block, as hand-written CUDA does: try_wait has a
/// hardware suspend hint, so the loop costs one branch per retry.
struct MBarrierWaitLowering : ConvertOpToLLVMPattern<MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getParity())
      return rewriter.notifyMatchFailure(op, "phase-tracked wait: run tile-mbarrier-phases first");
    FailureOr<ptx::Instr> instr = tryWait(op, op.getOrder(), op.getScope());
    if (failed(instr))
      return failure();
    ptx::Asm as(rewriter, op.getLoc());
    std::string addr = as.address(adaptor.getMbar(), AddressSpace::shared);
    std::string parity = as.operand(adaptor.getParity(), "r");
    as.line("{").line(".reg .pred done;").line("TILE_WAIT:");
    as.line(instr->operands({"done", addr, parity}));
    as.line("@!done bra TILE_WAIT;").line("}");
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

/// One try_wait, its predicate as 0/1 (inline asm cannot return a predicate).
struct MBarrierTryWaitLowering : ConvertOpToLLVMPattern<MBarrierTryWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierTryWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<ptx::Instr> instr = tryWait(op, op.getOrder(), op.getScope());
    if (failed(instr))
      return failure();
    Type i32 = rewriter.getI32Type();
    ptx::Asm as(rewriter, loc);
    std::string done = as.result(i32, "r");
    std::string addr = as.address(adaptor.getMbar(), AddressSpace::shared);
    std::string parity = as.operand(adaptor.getParity(), "r");
    as.line("{").line(".reg .pred done;");
    as.line(instr->operands({"done", addr, parity}));
    as.line(ptx::Instr("selp").type('u', 32).operands({done, "1", "0", "done"})).line("}");
    Value bits = as.emit();
    Value zero = i32Const(rewriter, loc, 0);
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne, bits, zero);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileMBarrierToNVVMPatterns(LLVMTypeConverter &converter,
                                                    RewritePatternSet &patterns) {
  patterns.add<MBarrierInitLowering, MBarrierArriveLowering, MBarrierExpectTxLowering,
               MBarrierWaitLowering, MBarrierTryWaitLowering>(converter);
}
