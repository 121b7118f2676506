//===- FenceToNVVM.cpp - memory and proxy fences ----------------------------===//
//
// PTX ISA 9.7.13.4 fence. fence.proxy.async and fence.mbarrier_init are the
// MLIR 22 NVVM ops (they print exactly `fence.proxy.async.shared::cta` and
// `fence.mbarrier_init.release.cluster`). `fence.{acq_rel,sc}.<scope>` has no
// NVVM op for every scope (only fence.sc.cluster, and membar spells the
// others differently), so the PTX builder composes it.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "ConversionUtils.h"
#include "PTXBuilder.h"
#include "SyncDecisions.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct FenceLowering : ConvertOpToLLVMPattern<FenceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FenceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryOrder> order = requireOrder(op, op.getOrder());
    FailureOr<MemoryScope> scope = requireScope(op, op.getScope());
    if (failed(order) || failed(scope))
      return failure();
    ptx::Asm as(rewriter, op.getLoc());
    as.line(ptx::Instr("fence").sem(*order).scope(*scope).statement());
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

/// Orders this thread's generic-proxy accesses to its CTA's shared memory
/// before later async-proxy accesses (st.async, TMA) to it.
struct FenceProxyAsyncLowering : ConvertOpToLLVMPattern<FenceProxyAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = getContext();
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    return success();
  }
};

/// PTX ISA 9.7.13.15.3 note: makes prior mbarrier.init visible to the cluster
/// (release at cluster scope), before peers arrive on or complete them.
using FenceMBarrierInitLowering = OneToOneLowering<FenceMBarrierInitOp, NVVM::FenceMbarrierInitOp>;

} // namespace

void mlir::tile::populateTileFenceToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<FenceLowering, FenceProxyAsyncLowering, FenceMBarrierInitLowering>(converter);
}
