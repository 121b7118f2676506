//===- TmaToNVVM.cpp - tensor maps, tile layouts, TMA copies and groups ----===//
//
// The cp.async.bulk.tensor family (PTX ISA 9.7.9.25), bulk groups
// (9.7.9.24), prefetch.tensormap and tensor-map kernel parameters, all
// through MLIR 22's NVVM ops:
//  - a `!tile.tensormap` argument is a byval [128 x i8] at align 64 marked
//    nvvm.grid_constant: PTX `.param .align 64 .b8 P[128]`, whose generic
//    address (cvta.param) the TMA instructions take (PTX ISA 5.1.6.1: only
//    a grid-constant parameter's address may be taken);
//  - tile.tile_element computes the layout's byte offset (panels, then the
//    swizzle XOR on the 16-byte chunk bits), the bytes TMA fills;
//  - tile.tma_load / tile.tma_store issue one copy per panel; a multicast
//    load issues this CTA's 1/C slice with the group's CTA mask.
//===----------------------------------------------------------------------===//
#include "ConversionUtils.h"
#include "TileLayoutOffset.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"
#include "tilec/Target/ClusterGeometry.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace cluster = ::tile::cluster;

namespace {

Value toI32(OpBuilder &b, Location loc, Value v) {
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w == 32)
    return v;
  if (w > 32)
    return LLVM::TruncOp::create(b, loc, b.getI32Type(), v);
  // In-bounds indices are non-negative: zero extension is exact.
  return LLVM::ZExtOp::create(b, loc, b.getI32Type(), v);
}

Value byteGep(OpBuilder &b, Location loc, Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{offset});
}

} // namespace

/// Byte offset of element `indices` in `layout` (TileLayoutAttr's rule).
Value mlir::tile::layoutOffset(OpBuilder &b, Location loc, TileLayoutAttr layout, int64_t elemBytes,
                               ValueRange indices) {
  ArrayRef<int64_t> shape = layout.getShape();
  Value row = i32Const(b, loc, 0);
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    Value scaled = LLVM::MulOp::create(b, loc, row, i32Const(b, loc, shape[d]));
    row = LLVM::AddOp::create(b, loc, scaled, toI32(b, loc, indices[d]));
  }
  Value col = toI32(b, loc, indices.back());
  int64_t panel = layout.getPanel();
  Value off;
  Value inRow = LLVM::MulOp::create(b, loc, row, i32Const(b, loc, panel));
  if (layout.getNumPanels() > 1) {
    Value p = LLVM::UDivOp::create(b, loc, col, i32Const(b, loc, panel));
    Value c = LLVM::URemOp::create(b, loc, col, i32Const(b, loc, panel));
    Value panelBase = LLVM::MulOp::create(b, loc, p, i32Const(b, loc, layout.getRows() * panel));
    off = LLVM::AddOp::create(b, loc, LLVM::AddOp::create(b, loc, panelBase, inRow), c);
  } else {
    off = LLVM::AddOp::create(b, loc, inRow, col);
  }
  off = LLVM::MulOp::create(b, loc, off, i32Const(b, loc, elemBytes));
  if (int64_t sw = layout.getSwizzle()) {
    // CU_TENSOR_MAP_SWIZZLE_{32,64,128}B: 16-byte chunk c of a row of the
    // swizzle span is stored at chunk c ^ (row-within-8 bits), i.e. offset
    // bits [4, 4+k) ^= bits [7, 7+k) with 2^k = span / 16.
    int64_t mask = sw / ::tile::target::kTmaSwizzleChunk - 1;
    Value hi = LLVM::LShrOp::create(b, loc, off, i32Const(b, loc, 3));
    Value bits = LLVM::AndOp::create(b, loc, hi, i32Const(b, loc, mask << 4));
    off = LLVM::XOrOp::create(b, loc, off, bits);
  }
  return off;
}

namespace {

struct TileElementLowering : ConvertOpToLLVMPattern<TileElementOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TileElementOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t elem = scalarByteWidth(cast<PtrType>(op.getBase().getType()).getElementType());
    Value off = layoutOffset(rewriter, op.getLoc(), op.getLayout(), elem, adaptor.getIndices());
    rewriter.replaceOp(op, byteGep(rewriter, op.getLoc(), adaptor.getBase(), off));
    return success();
  }
};

/// The static cluster shape of the kernel around op (1,1,1 without one).
std::array<int64_t, 3> clusterShape(Operation *op) {
  std::array<int64_t, 3> dims{1, 1, 1};
  Operation *fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  if (!fn)
    fn = op->getParentOfType<KernelOp>();
  if (!fn)
    return dims;
  Attribute a = fn->getAttr(NVVM::NVVMDialect::getClusterDimAttrName());
  if (!a)
    if (auto k = dyn_cast<KernelOp>(fn); k && k.getClusterDims())
      a = k.getClusterDimsAttr();
  if (auto d = dyn_cast_or_null<DenseI32ArrayAttr>(a))
    for (int64_t i = 0; i < d.size() && i < 3; ++i)
      dims[i] = d[i];
  return dims;
}

/// One copy per panel (and this CTA's slice of a multicast): `emit(dst,
/// coordsInnermostFirst)`.
void forEachBox(OpBuilder &b, Location loc, Value tile, TileLayoutAttr layout, int64_t elemBytes,
                ValueRange coords, Value slicePos, int64_t sliceDim0,
                llvm::function_ref<void(Value, SmallVector<Value>)> emit) {
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t panel = layout.getPanel();
  int64_t panelBytes = layout.getRows() * panel * elemBytes;
  int64_t midRows = layout.getRows() / shape[0]; // rows per index of dim 0
  for (int64_t p = 0; p < layout.getNumPanels(); ++p) {
    SmallVector<Value> c(coords.begin(), coords.end()); // outermost first
    Value dst = tile;
    if (p > 0) {
      c.back() = LLVM::AddOp::create(b, loc, c.back(), i32Const(b, loc, p * panel));
      dst = byteGep(b, loc, dst, i32Const(b, loc, p * panelBytes));
    }
    if (slicePos) {
      // The slices split the tile's first dimension, which is the tensor's
      // dimension rank - tile rank (a lower-rank tile's box has leading
      // extents 1).
      Value &first = c[c.size() - shape.size()];
      Value rows = LLVM::MulOp::create(b, loc, slicePos, i32Const(b, loc, sliceDim0));
      first = LLVM::AddOp::create(b, loc, first, rows);
      Value bytes =
          LLVM::MulOp::create(b, loc, rows, i32Const(b, loc, midRows * panel * elemBytes));
      dst = byteGep(b, loc, dst, bytes);
    }
    std::reverse(c.begin(), c.end()); // PTX: innermost coordinate first
    emit(dst, c);
  }
}

struct TmaLoadLowering : ConvertOpToLLVMPattern<TmaLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileLayoutAttr layout = op.getLayout();
    int64_t elem = scalarByteWidth(cast<PtrType>(op.getTile().getType()).getElementType());
    Value pos, mask;
    int64_t sliceDim0 = 0;
    if (auto axis = op.getMulticastAxis()) {
      // The group: the CTAs that differ from this one only along `axis`
      // (every CTA for 3). Its ranks are shift + i*stride, i < C
      // (ClusterGeometry.h): mask = P << shift with P the group's mask at
      // rank 0 and shift = r - pos*stride (r = %cluster_ctarank).
      std::array<int64_t, 3> cd = clusterShape(op);
      int64_t c = cluster::groupSize(cd, *axis);
      if (c < 2 || !cluster::isLegalSize(c) || layout.getShape()[0] % c != 0)
        return rewriter.notifyMatchFailure(op, "multicast group does not split the tile");
      Type i32 = rewriter.getI32Type();
      Value rank = NVVM::ClusterId::create(rewriter, loc, i32);
      pos = *axis == 3   ? rank
            : *axis == 0 ? NVVM::BlockInClusterIdXOp::create(rewriter, loc, i32).getResult()
            : *axis == 1 ? NVVM::BlockInClusterIdYOp::create(rewriter, loc, i32).getResult()
                         : NVVM::BlockInClusterIdZOp::create(rewriter, loc, i32).getResult();
      int64_t stride = cluster::groupStride(cd, *axis);
      int64_t pattern = cluster::groupMaskAtRankZero(cd, *axis);
      Value shift = LLVM::SubOp::create(
          rewriter, loc, rank,
          LLVM::MulOp::create(rewriter, loc, pos, i32Const(rewriter, loc, stride)));
      Value m = LLVM::ShlOp::create(rewriter, loc, i32Const(rewriter, loc, pattern), shift);
      mask = LLVM::TruncOp::create(rewriter, loc, rewriter.getI16Type(), m);
      sliceDim0 = layout.getShape()[0] / c;
    }
    forEachBox(rewriter, loc, adaptor.getTile(), layout, elem, adaptor.getCoords(), pos, sliceDim0,
               [&](Value dst, SmallVector<Value> coords) {
                 // The .shared::cluster form (PTX ISA 8.0): this CTA's
                 // address in the cluster window is its shared address
                 // (PTX ISA "Shared State Space": the .shared::cta window
                 // lies in the .shared::cluster window and names the
                 // executing CTA's memory there). So the 32-bit shared
                 // address is reused as is, as CUDA C++ does; an
                 // addrspacecast would go through the generic window
                 // (cvta.shared + cvta.to.shared::cluster + 2 cvt) on
                 // every produce of a ring.
                 Type i32 = rewriter.getI32Type();
                 Value addr = LLVM::PtrToIntOp::create(rewriter, loc, i32, dst);
                 dst = LLVM::IntToPtrOp::create(
                     rewriter, loc,
                     LLVM::LLVMPointerType::get(rewriter.getContext(),
                                                ::tile::target::kSharedClusterAddressSpace),
                     addr);
                 NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                     rewriter, loc, dst, adaptor.getMap(), coords, adaptor.getMbar(),
                     /*im2colOffsets=*/ValueRange{}, mask, /*l2CacheHint=*/Value(),
                     NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, /*group=*/nullptr,
                     /*predicate=*/Value());
               });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreLowering : ConvertOpToLLVMPattern<TmaStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t elem = scalarByteWidth(cast<PtrType>(op.getTile().getType()).getElementType());
    forEachBox(rewriter, loc, adaptor.getTile(), op.getLayout(), elem, adaptor.getCoords(), Value(),
               0, [&](Value src, SmallVector<Value> coords) {
                 NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                     rewriter, loc, adaptor.getMap(), src, coords, /*l2CacheHint=*/Value(),
                     NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
               });
    rewriter.eraseOp(op);
    return success();
  }
};

using BulkCommitLowering = OneToOneLowering<BulkCommitOp, NVVM::CpAsyncBulkCommitGroupOp>;

struct BulkWaitLowering : ConvertOpToLLVMPattern<BulkWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(BulkWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPending(), op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

struct TmaPrefetchLowering : ConvertOpToLLVMPattern<TmaPrefetchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TmaPrefetchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> coords(adaptor.getCoords().begin(), adaptor.getCoords().end());
    std::reverse(coords.begin(), coords.end());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorPrefetchOp>(
        op, adaptor.getMap(), coords, /*im2colOffsets=*/ValueRange{}, NVVM::TMALoadMode::TILE,
        /*l2CacheHint=*/Value());
    return success();
  }
};

struct TensorMapPrefetchLowering : ConvertOpToLLVMPattern<TensorMapPrefetchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TensorMapPrefetchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::PrefetchOp>(op, NVVM::PrefetchCacheLevelAttr(),
                                                  NVVM::CacheEvictionPriorityAttr(),
                                                  adaptor.getMap(), /*predicate=*/Value(),
                                                  /*tensormap=*/true);
    return success();
  }
};

} // namespace

void mlir::tile::addTensorMapTypeConversion(LLVMTypeConverter &converter) {
  converter.addConversion([](TensorMapType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), ::tile::target::kGenericAddressSpace);
  });
}

void mlir::tile::setTensorMapArgAttrs(KernelOp kernel, LLVM::LLVMFuncOp func) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    if (!isa<TensorMapType>(type))
      continue;
    auto bytes =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), ::tile::target::kTensorMapBytes);
    func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(bytes));
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(::tile::target::kTensorMapAlign));
    func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
  }
}

void mlir::tile::populateTileTmaToNVVMPatterns(LLVMTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<TileElementLowering, TmaLoadLowering, TmaStoreLowering, BulkCommitLowering,
               BulkWaitLowering, TmaPrefetchLowering, TensorMapPrefetchLowering>(converter);
}
