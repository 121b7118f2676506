//===- KernelToLLVM.cpp - kernels, parameters, allocations, special registers ===//
//
// A kernel is an `llvm.func` with the NVVM attributes that print `.entry`,
// `.reqntid`/`.maxntid`/`.minnctapersm`, `.reqnctapercluster` and
// `.explicitcluster` (PTX ISA 11.4);
// special registers are the NVVM `read.ptx.sreg.*` ops; pointers live in
// NVVM's address spaces (NVVM::NVVMMemorySpace).
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "ConversionUtils.h"
#include "PTXBuilder.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Pads 1-3 dims to the x,y,z triple PTX directives take.
DenseI32ArrayAttr dims3(Builder &b, ArrayRef<int32_t> dims) {
  SmallVector<int32_t, 3> v(dims.begin(), dims.end());
  v.resize(3, 1);
  return b.getDenseI32ArrayAttr(v);
}

/// The launch bounds of the kernel (PTX ISA 11.4): `.reqntid` for an exact
/// block shape (threads(...)): ptxas may then allocate registers for exactly
/// that many threads; `.maxntid` for an upper bound (max_threads(N)), which
/// caps the registers per thread so that N threads fit on an SM; and
/// `.minnctapersm` (min_blocks(N)) to keep N CTAs resident per SM.
void setLaunchBounds(Builder &b, LLVM::LLVMFuncOp func, KernelOp op) {
  if (auto threads = op.getReqThreads())
    func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(), dims3(b, *threads));
  if (auto threads = op.getMaxThreads())
    func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(), dims3(b, *threads));
  if (auto blocks = op.getMinBlocks())
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(*blocks));
}

struct KernelLowering : ConvertOpToLLVMPattern<KernelOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(KernelOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    TypeConverter::SignatureConversion signature(op.getNumArguments());
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes())) {
      Type converted = converter.convertType(type);
      if (!converted)
        return rewriter.notifyMatchFailure(op, "unconvertible argument type");
      signature.addInputs(i, converted);
    }
    auto funcType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(op.getContext()),
                                                signature.getConvertedTypes());
    auto func = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getSymName(), funcType);
    setTensorMapArgAttrs(op, func); // TmaToNVVM.cpp
    // PTX .entry with the launch bounds, .reqnctapercluster + .explicitcluster (PTX ISA 11.4).
    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), rewriter.getUnitAttr());
    setLaunchBounds(rewriter, func, op);
    if (auto cluster = op.getClusterDims())
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(), dims3(rewriter, *cluster));
    setRoleLaunchBounds(op, func); // last: it reads what the others set
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), converter, &signature)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : ConvertOpToLLVMPattern<ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ReturnOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};

constexpr StringLiteral kDynamicSmemSymbol = "tile$dynamic_smem"; // see kGeneratedSymbolPrefix

/// Static arrays become internal `.shared` variables; dynamic ones are carved,
/// in program order and 16-byte aligned, out of one `.extern .shared` array.
struct SharedAllocLowering : ConvertOpToLLVMPattern<SharedAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(SharedAllocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    auto ptrType = cast<PtrType>(op.getType());
    Type elemType = ptrType.getElementType();
    Location loc = op.getLoc();
    auto llvmPtr = LLVM::LLVMPointerType::get(getContext(), ::tile::target::kSharedAddressSpace);
    OpBuilder::InsertPoint kernelPoint = rewriter.saveInsertionPoint();

    if (auto count = op.getStaticCount()) {
      // The kernel may already be an llvm.func: name it through the interface.
      auto kernel = op->getParentOfType<FunctionOpInterface>();
      std::string name = (Twine(kGeneratedSymbolPrefix) + "smem$" + kernel.getName() + "$" +
                          Twine(staticIndex(op)))
                             .str();
      // The converted element: an fp8 array is an array of its i8 bits.
      auto arrayType = LLVM::LLVMArrayType::get(getTypeConverter()->convertType(elemType),
                                                std::max<int64_t>(*count, 1));
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/false,
                             LLVM::Linkage::Internal, name, Attribute(),
                             /*alignment=*/op.getAlignment().value_or(16),
                             ::tile::target::kSharedAddressSpace);
      rewriter.restoreInsertionPoint(kernelPoint);
      rewriter.replaceOp(op,
                         registerAddress(rewriter, loc,
                                         LLVM::AddressOfOp::create(rewriter, loc, llvmPtr, name),
                                         std::max<int64_t>(op.getAlignment().value_or(16), 16)));
      return success();
    }

    if (!module.lookupSymbol(kDynamicSmemSymbol)) {
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, LLVM::LLVMArrayType::get(rewriter.getI8Type(), 0),
                             /*isConstant=*/false, LLVM::Linkage::External, kDynamicSmemSymbol,
                             Attribute(), /*alignment=*/16, ::tile::target::kSharedAddressSpace);
      rewriter.restoreInsertionPoint(kernelPoint);
    }
    Value base = registerAddress(
        rewriter, loc, LLVM::AddressOfOp::create(rewriter, loc, llvmPtr, kDynamicSmemSymbol), 16);
    Value offset = i64Const(rewriter, loc, 0);
    for (Operation *prev = op->getBlock()->empty() ? nullptr : &op->getBlock()->front();
         prev && prev != op.getOperation(); prev = prev->getNextNode()) {
      auto earlier = dyn_cast<SharedAllocOp>(prev);
      if (!earlier || !earlier.getCount())
        continue;
      Value bytes = byteCount(rewriter, loc, rewriter.getRemappedValue(earlier.getCount()),
                              cast<PtrType>(earlier.getType()).getElementType());
      offset = LLVM::AddOp::create(rewriter, loc, offset, bytes);
    }
    Value addr =
        LLVM::GEPOp::create(rewriter, loc, llvmPtr, rewriter.getI8Type(), base, ValueRange{offset});
    rewriter.replaceOp(op, addr);
    return success();
  }

  /// The shared address in a register. Folded into `ld.shared [symbol]`
  /// addressing, ptxas rematerialises the CTA's shared-window base
  /// (S2R SR_CgaCtaId) at every use in cluster kernels; an opaque (pure) mov
  /// keeps one register, as nvcc's cvta.to.shared does.
  ///
  /// The opaque mov hides the variable's alignment from LLVM, and the
  /// LoadStoreVectorizer only merges neighbouring accesses into ld/st.v2/.v4
  /// when the first one is known aligned to the vector's bytes (PTX ISA
  /// 5.4.5: vector accesses must be naturally aligned). An `llvm.assume`
  /// "align" bundle does not carry that: InstCombine drops it before the loop
  /// unroller turns `As[row * 32 + d]` into base + constant offsets, so
  /// InferAlignment later finds nothing to work with. The alignment is
  /// restated as `and` with -alignment instead: its known zero low bits
  /// survive every pass, and the one `and.b32` per array per kernel is the
  /// price of 4x fewer shared loads in unrolled loops.
  static Value registerAddress(OpBuilder &b, Location loc, Value symbolAddress, int64_t alignment) {
    Type i32 = b.getI32Type();
    ptx::Asm mov(b, loc);
    std::string dst = mov.result(i32, "r");
    std::string src = mov.operand(LLVM::PtrToIntOp::create(b, loc, i32, symbolAddress), "r");
    mov.line(ptx::Instr("mov").type('b', 32).operands({dst, src}));
    Value mask = i32Const(b, loc, -alignment);
    Value aligned = LLVM::AndOp::create(b, loc, mov.emitPure(), mask);
    return LLVM::IntToPtrOp::create(b, loc, symbolAddress.getType(), aligned);
  }

  static unsigned staticIndex(SharedAllocOp op) {
    unsigned index = 0;
    for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
      if (auto alloc = dyn_cast<SharedAllocOp>(prev); alloc && alloc.getStaticCount())
        ++index;
    return index;
  }

  /// count * sizeof(elem), rounded up to 16 bytes.
  static Value byteCount(OpBuilder &b, Location loc, Value count, Type elemType) {
    auto i64 = b.getI64Type();
    if (count.getType() != i64)
      count = count.getType().getIntOrFloatBitWidth() < 64
                  ? LLVM::SExtOp::create(b, loc, i64, count).getResult()
                  : count;
    Value bytes = LLVM::MulOp::create(b, loc, count, i64Const(b, loc, scalarByteWidth(elemType)));
    Value rounded = LLVM::AddOp::create(b, loc, bytes, i64Const(b, loc, 15));
    return LLVM::AndOp::create(b, loc, rounded, i64Const(b, loc, ~int64_t(15)));
  }
};

/// A mutable thread-private scalar or pointer: an alloca that LLVM's SROA
/// promotes to a register. The slot's element type goes through the type
/// converter like every other type: a `var` holding a `ptr<T, space>` would
/// otherwise leave a tile type in the alloca, which LLVM IR translation
/// cannot represent.
struct LocalVarLowering : ConvertOpToLLVMPattern<LocalVarOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(LocalVarOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type slotType = cast<PtrType>(op.getType()).getElementType();
    Type elemType = getTypeConverter()->convertType(slotType);
    if (!elemType)
      return rewriter.notifyMatchFailure(op, "unconvertible local variable type");
    Value one = i32Const(rewriter, op.getLoc(), 1);
    rewriter.replaceOpWithNewOp<LLVM::AllocaOp>(op, LLVM::LLVMPointerType::get(getContext()),
                                                elemType, one,
                                                static_cast<unsigned>(scalarByteWidth(slotType)));
    return success();
  }
};

struct SRegLowering : ConvertOpToLLVMPattern<SRegOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(SRegOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value v;
    switch (op.getReg()) {
#define TILE_SREG(CASE, NVVM_OP)                                                                   \
  case SpecialReg::CASE:                                                                           \
    v = NVVM::NVVM_OP::create(rewriter, loc, i32);                                                 \
    break;
      TILE_SREG(tid_x, ThreadIdXOp)
      TILE_SREG(tid_y, ThreadIdYOp) TILE_SREG(tid_z, ThreadIdZOp) TILE_SREG(
          ntid_x, BlockDimXOp) TILE_SREG(ntid_y, BlockDimYOp) TILE_SREG(ntid_z, BlockDimZOp)
          TILE_SREG(ctaid_x, BlockIdXOp) TILE_SREG(ctaid_y, BlockIdYOp) TILE_SREG(
              ctaid_z, BlockIdZOp) TILE_SREG(nctaid_x, GridDimXOp) TILE_SREG(nctaid_y, GridDimYOp)
              TILE_SREG(nctaid_z, GridDimZOp) TILE_SREG(cluster_ctarank, ClusterId) TILE_SREG(
                  cluster_nctarank, ClusterDim) TILE_SREG(clusterid_x, ClusterIdXOp)
                  TILE_SREG(clusterid_y, ClusterIdYOp) TILE_SREG(clusterid_z, ClusterIdZOp)
                      TILE_SREG(nclusterid_x, ClusterDimXOp) TILE_SREG(nclusterid_y, ClusterDimYOp)
                          TILE_SREG(nclusterid_z, ClusterDimZOp)
                              TILE_SREG(cluster_ctaid_x, BlockInClusterIdXOp)
                                  TILE_SREG(cluster_ctaid_y, BlockInClusterIdYOp)
                                      TILE_SREG(cluster_ctaid_z, BlockInClusterIdZOp)
                                          TILE_SREG(cluster_nctaid_x, ClusterDimBlocksXOp)
                                              TILE_SREG(cluster_nctaid_y, ClusterDimBlocksYOp)
                                                  TILE_SREG(cluster_nctaid_z, ClusterDimBlocksZOp)
                                                      TILE_SREG(laneid, LaneIdOp)
#undef TILE_SREG
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

} // namespace

// The numbers come from tilec/Target/TargetFacts.h; NVVM's ops must agree with them.
static_assert(::tile::target::kGlobalAddressSpace ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
static_assert(::tile::target::kSharedAddressSpace ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
static_assert(::tile::target::kSharedClusterAddressSpace ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
static_assert(::tile::target::kGenericAddressSpace ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Generic));

unsigned mlir::tile::nvptxAddressSpace(int space) {
  switch (static_cast<AddressSpace>(space)) {
  case AddressSpace::global:
    return ::tile::target::kGlobalAddressSpace;
  case AddressSpace::shared:
    return ::tile::target::kSharedAddressSpace;
  case AddressSpace::cluster:
    return ::tile::target::kSharedClusterAddressSpace;
  case AddressSpace::local:
    // Allocas live in the generic space until NVPTX lowers them.
    return ::tile::target::kGenericAddressSpace;
  }
  return ::tile::target::kGenericAddressSpace;
}

void mlir::tile::addTileTypeConversions(LLVMTypeConverter &converter) {
  converter.addConversion([](PtrType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(),
                                      nvptxAddressSpace(static_cast<int>(type.getSpace())));
  });
}

void mlir::tile::populateTileKernelToLLVMPatterns(LLVMTypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  patterns.add<KernelLowering, ReturnLowering, SharedAllocLowering, LocalVarLowering, SRegLowering>(
      converter);
}
