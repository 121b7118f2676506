//===- SyncToLLVM.cpp - barriers and special registers to NVVM -------------===//
#include "tilec/Conversion/TileToLLVM.h"
#include "tile/Dialect/TileDialect.h"

#include "PTXAsm.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct BarrierLowering : ConvertOpToLLVMPattern<BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(BarrierOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    // bar.sync is barrier.sync.aligned (PTX ISA 9.7.13.1): only where the whole
    // warp is proven to execute it together; otherwise the non-aligned form.
    if (op.getAligned()) {
      rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
      return success();
    }
    ptxasm::inlinePtx(rewriter, op.getLoc(), Type(), ValueRange{}, "barrier.sync 0;", "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The full cluster barrier: arrive (release by default) then wait (acquire by
/// default), PTX ISA 9.7.13.4 barrier.cluster. `.aligned` (cheaper) only when
/// the passes proved every thread of the warp reaches it together.
struct ClusterSyncLowering : ConvertOpToLLVMPattern<ClusterSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterSyncOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), op.getAlignedAttr());
    rewriter.replaceOpWithNewOp<NVVM::ClusterWaitOp>(op, op.getAlignedAttr());
    return success();
  }
};

struct ClusterArriveLowering : ConvertOpToLLVMPattern<ClusterArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterArriveOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryOrder> order = ptxasm::decidedOrder(op, op.getOrder());
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
  LogicalResult matchAndRewrite(ClusterWaitOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ClusterWaitOp>(op, op.getAlignedAttr());
    return success();
  }
};

struct SRegLowering : ConvertOpToLLVMPattern<SRegOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(SRegOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value v;
    switch (op.getReg()) {
#define TILE_SREG(CASE, NVVM_OP)                                                              \
  case SpecialReg::CASE:                                                                     \
    v = NVVM::NVVM_OP::create(rewriter, loc, i32);                                            \
    break;
      TILE_SREG(tid_x, ThreadIdXOp) TILE_SREG(tid_y, ThreadIdYOp) TILE_SREG(tid_z, ThreadIdZOp)
      TILE_SREG(ntid_x, BlockDimXOp) TILE_SREG(ntid_y, BlockDimYOp) TILE_SREG(ntid_z, BlockDimZOp)
      TILE_SREG(ctaid_x, BlockIdXOp) TILE_SREG(ctaid_y, BlockIdYOp) TILE_SREG(ctaid_z, BlockIdZOp)
      TILE_SREG(nctaid_x, GridDimXOp) TILE_SREG(nctaid_y, GridDimYOp) TILE_SREG(nctaid_z, GridDimZOp)
      TILE_SREG(cluster_ctarank, ClusterId) TILE_SREG(cluster_nctarank, ClusterDim)
      TILE_SREG(clusterid_x, ClusterIdXOp) TILE_SREG(clusterid_y, ClusterIdYOp)
      TILE_SREG(clusterid_z, ClusterIdZOp)
      TILE_SREG(nclusterid_x, ClusterDimXOp) TILE_SREG(nclusterid_y, ClusterDimYOp)
      TILE_SREG(nclusterid_z, ClusterDimZOp)
      TILE_SREG(cluster_ctaid_x, BlockInClusterIdXOp) TILE_SREG(cluster_ctaid_y, BlockInClusterIdYOp)
      TILE_SREG(cluster_ctaid_z, BlockInClusterIdZOp)
      TILE_SREG(cluster_nctaid_x, ClusterDimBlocksXOp) TILE_SREG(cluster_nctaid_y, ClusterDimBlocksYOp)
      TILE_SREG(cluster_nctaid_z, ClusterDimBlocksZOp)
      TILE_SREG(laneid, LaneIdOp)
#undef TILE_SREG
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileSyncToLLVMPatterns(LLVMTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<BarrierLowering, ClusterSyncLowering, ClusterArriveLowering, ClusterWaitLowering,
               SRegLowering>(converter);
}
