//===- KernelToLLVM.cpp - kernels and allocations to LLVM/NVVM -------------===//
#include "tilec/Conversion/TileToLLVM.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/target.h"

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

struct KernelLowering : ConvertOpToLLVMPattern<KernelOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(KernelOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
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
    // PTX .entry with .maxntid / .reqnctapercluster + .explicitcluster (PTX ISA 11.4).
    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), rewriter.getUnitAttr());
    if (auto threads = op.getMaxThreads())
      func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(), dims3(rewriter, *threads));
    if (auto cluster = op.getClusterDims())
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(), dims3(rewriter, *cluster));
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), converter, &signature)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : ConvertOpToLLVMPattern<ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ReturnOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
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
    auto i64 = rewriter.getI64Type();
    OpBuilder::InsertPoint kernelPoint = rewriter.saveInsertionPoint();

    if (auto count = op.getStaticCount()) {
      // The kernel may already be an llvm.func: name it through the interface.
      auto kernel = op->getParentOfType<FunctionOpInterface>();
      std::string name = (Twine(kGeneratedSymbolPrefix) + "smem$" + kernel.getName() + "$" +
                          Twine(staticIndex(op)))
                             .str();
      auto arrayType = LLVM::LLVMArrayType::get(elemType, std::max<int64_t>(*count, 1));
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/false,
                             LLVM::Linkage::Internal, name, Attribute(), /*alignment=*/16,
                             ::tile::target::kSharedAddressSpace);
      rewriter.restoreInsertionPoint(kernelPoint);
      rewriter.replaceOp(op, registerAddress(rewriter, loc,
                                             LLVM::AddressOfOp::create(rewriter, loc, llvmPtr, name)));
      return success();
    }

    if (!module.lookupSymbol(kDynamicSmemSymbol)) {
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, LLVM::LLVMArrayType::get(rewriter.getI8Type(), 0),
                             /*isConstant=*/false, LLVM::Linkage::External,
                             kDynamicSmemSymbol, Attribute(), /*alignment=*/16,
                             ::tile::target::kSharedAddressSpace);
      rewriter.restoreInsertionPoint(kernelPoint);
    }
    Value base = registerAddress(
        rewriter, loc, LLVM::AddressOfOp::create(rewriter, loc, llvmPtr, kDynamicSmemSymbol));
    Value offset = LLVM::ConstantOp::create(rewriter, loc, i64, rewriter.getI64IntegerAttr(0));
    for (Operation *prev = op->getBlock()->empty() ? nullptr : &op->getBlock()->front();
         prev && prev != op.getOperation(); prev = prev->getNextNode()) {
      auto earlier = dyn_cast<SharedAllocOp>(prev);
      if (!earlier || !earlier.getCount())
        continue;
      Value bytes = byteCount(rewriter, loc, rewriter.getRemappedValue(earlier.getCount()),
                              cast<PtrType>(earlier.getType()).getElementType());
      offset = LLVM::AddOp::create(rewriter, loc, offset, bytes);
    }
    Value addr = LLVM::GEPOp::create(rewriter, loc, llvmPtr, rewriter.getI8Type(), base,
                                     ValueRange{offset});
    rewriter.replaceOp(op, addr);
    return success();
  }

  /// The shared address in a register. Folded into `ld.shared [symbol]`
  /// addressing, ptxas rematerialises the CTA's shared-window base
  /// (S2R SR_CgaCtaId) at every use in cluster kernels; an opaque (pure) mov
  /// keeps one register, as nvcc's cvta.to.shared does. The 16-byte alignment
  /// of the variable is restated so that accesses still vectorise.
  static Value registerAddress(OpBuilder &b, Location loc, Value symbolAddress) {
    Type i32 = b.getI32Type();
    Value bits = LLVM::PtrToIntOp::create(b, loc, i32, symbolAddress);
    auto mov = LLVM::InlineAsmOp::create(
        b, loc, i32, ValueRange{bits}, b.getStringAttr("mov.b32 $0, $1;"), b.getStringAttr("=r,r"),
        /*has_side_effects=*/nullptr, /*is_align_stack=*/nullptr,
        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::tailcallkind::TailCallKind::None),
        /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
    Value ptr = LLVM::IntToPtrOp::create(b, loc, symbolAddress.getType(), mov.getResult(0));
    Value yes = LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
    Value sixteen = LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(16));
    LLVM::AssumeOp::create(b, loc, yes, LLVM::AssumeAlignTag{}, ptr, sixteen);
    return ptr;
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
    auto c = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v)); };
    Value bytes = LLVM::MulOp::create(b, loc, count, c(scalarByteWidth(elemType)));
    Value rounded = LLVM::AddOp::create(b, loc, bytes, c(15));
    return LLVM::AndOp::create(b, loc, rounded, c(~int64_t(15)));
  }
};

/// A mutable thread-private scalar or pointer: an alloca that LLVM's SROA
/// promotes to a register. The slot's element type goes through the type
/// converter like every other type: a `var` holding a `ptr<T, space>` would
/// otherwise leave a tile type in the alloca, which LLVM IR translation
/// cannot represent.
struct LocalVarLowering : ConvertOpToLLVMPattern<LocalVarOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(LocalVarOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Type slotType = cast<PtrType>(op.getType()).getElementType();
    Type elemType = getTypeConverter()->convertType(slotType);
    if (!elemType)
      return rewriter.notifyMatchFailure(op, "unconvertible local variable type");
    Value one = LLVM::ConstantOp::create(rewriter, op.getLoc(), rewriter.getI32Type(),
                                         rewriter.getI32IntegerAttr(1));
    rewriter.replaceOpWithNewOp<LLVM::AllocaOp>(
        op, LLVM::LLVMPointerType::get(getContext()), elemType, one,
        static_cast<unsigned>(scalarByteWidth(slotType)));
    return success();
  }
};

} // namespace

// The numbers come from tile/target.h; NVVM's ops must agree with them.
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
  patterns.add<KernelLowering, ReturnLowering, SharedAllocLowering, LocalVarLowering>(converter);
}
