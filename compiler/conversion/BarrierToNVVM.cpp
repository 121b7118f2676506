//===- BarrierToNVVM.cpp - CTA and cluster barriers -------------------------===//
//
// PTX ISA 9.7.13.1 barrier/bar and 9.7.13.4 barrier.cluster. `.aligned` forms
// (cheaper) only where the sync passes proved every thread of the warp
// executes the barrier together; `nvvm.barrier0` is `bar.sync 0`, which is
// barrier.sync.aligned, so the non-aligned CTA barrier, which MLIR 22 has no
// op for, is composed by the PTX builder. Also nanosleep (PTX ISA
// "nanosleep"), the backoff of a thread that spins on a flag instead.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "SyncDecisions.h"

#include "PTXBuilder.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct BarrierLowering : ConvertOpToLLVMPattern<BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (std::optional<BarrierReduction> kind = op.getReduction()) {
      rewriter.replaceOp(op, ptx::barrierReduction(rewriter, op.getLoc(), adaptor.getPred(), *kind,
                                                   "0", op.getAligned()));
      return success();
    }
    if (op.getAligned()) {
      rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
      return success();
    }
    ptx::Asm as(rewriter, op.getLoc());
    as.line(ptx::Instr("barrier").qual("sync").operands({"0"}));
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

/// The full cluster barrier: arrive (release) then wait (acquire), the
/// defaults of barrier.cluster when no `.sem` is given.
struct ClusterSyncLowering : ConvertOpToLLVMPattern<ClusterSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterSyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), op.getAlignedAttr());
    rewriter.replaceOpWithNewOp<NVVM::ClusterWaitOp>(op, op.getAlignedAttr());
    return success();
  }
};

/// `barrier.cluster.arrive{.relaxed}`: relaxed drops the release half, where
/// the passes proved no cluster-visible access before it needs ordering.
struct ClusterArriveLowering : ConvertOpToLLVMPattern<ClusterArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterArriveOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryOrder> order = requireOrder(op, op.getOrder());
    if (failed(order))
      return failure();
    if (*order == MemoryOrder::relaxed)
      rewriter.replaceOpWithNewOp<NVVM::ClusterArriveRelaxedOp>(op, op.getAlignedAttr());
    else
      rewriter.replaceOpWithNewOp<NVVM::ClusterArriveOp>(op, op.getAlignedAttr());
    return success();
  }
};

struct ClusterWaitLowering : ConvertOpToLLVMPattern<ClusterWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ClusterWaitOp>(op, op.getAlignedAttr());
    return success();
  }
};

/// nanosleep.u32 with the nanoseconds in a register (nvvm.nanosleep: the
/// intrinsic is convergent and has side effects, so LLVM keeps it in place).
struct NanosleepLowering : ConvertOpToLLVMPattern<NanosleepOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(NanosleepOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::NanosleepOp>(op, adaptor.getNs());
    return success();
  }
};

} // namespace

void mlir::tile::populateTileBarrierToNVVMPatterns(LLVMTypeConverter &converter,
                                                   RewritePatternSet &patterns) {
  patterns.add<BarrierLowering, ClusterSyncLowering, ClusterArriveLowering, ClusterWaitLowering,
               NanosleepLowering>(converter);
}
