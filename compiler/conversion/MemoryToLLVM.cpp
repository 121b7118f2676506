//===- MemoryToLLVM.cpp - pointers, mapa, loads, stores, atomics ----------===//
//
// Plain (weak) accesses become LLVM loads/stores so the optimiser can work on
// them. Accesses with a memory order, and every atomic, become inline PTX that
// spells the exact `.sem` and `.scope` (PTX ISA 9.7.3.x ld/st, 9.7.13.5 atom,
// 9.7.13.6 red): LLVM's atomics do not express `.cluster` semantics precisely.
//===----------------------------------------------------------------------===//
#include "tilec/Conversion/TileToLLVM.h"
#include "tile/Dialect/TileDialect.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringExtras.h"

#include "PTXAsm.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::ptxasm;

namespace {

Type llvmPtr(MLIRContext *ctx, AddressSpace space) {
  return LLVM::LLVMPointerType::get(ctx, nvptxAddressSpace(static_cast<int>(space)));
}


struct PtrAddLowering : ConvertOpToLLVMPattern<PtrAddOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(PtrAddOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    auto type = cast<PtrType>(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, llvmPtr(getContext(), type.getSpace()),
                                             type.getElementType(), adaptor.getBase(),
                                             ValueRange{adaptor.getOffset()});
    return success();
  }
};

struct MapaLowering : ConvertOpToLLVMPattern<MapaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MapaOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MapaOp>(op, llvmPtr(getContext(), AddressSpace::cluster),
                                              adaptor.getSource(), adaptor.getRank());
    return success();
  }
};

struct LoadLowering : ConvertOpToLLVMPattern<LoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    unsigned align = scalarByteWidth(type);
    if (op.getOrder() == MemoryOrder::weak) {
      rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, getTypeConverter()->convertType(type),
                                                adaptor.getPtr(), align);
      return success();
    }
    auto space = cast<PtrType>(op.getPtr().getType()).getSpace();
    AsmScalar s = asmScalar(type);
    auto [addr, addrConstraint] = asmAddress(rewriter, loc, adaptor.getPtr(), space);
    StringRef sem = op.getOrder() == MemoryOrder::relaxed ? ".relaxed" : ".acquire";
    // The access width is the element's: an i8 travels in a 16-bit register
    // but a .b16 access would touch the neighbouring byte.
    std::string text = scPrefix(op.getOrder(), op.getScope()) + "ld" + sem.str() +
                       ptxScope(op.getScope()).str() + ptxSpace(space).str() + ".b" +
                       std::to_string(8 * scalarByteWidth(type)) + " $0, [$1];";
    Value v = inlinePtx(rewriter, loc, s.asmType, addr, text,
                        ("=" + s.constraint + "," + addrConstraint + ",~{memory}").str());
    rewriter.replaceOp(op, fromAsm(rewriter, loc, v, type));
    return success();
  }
};

struct StoreLowering : ConvertOpToLLVMPattern<StoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(StoreOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    if (op.getOrder() == MemoryOrder::weak) {
      rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(), adaptor.getPtr(),
                                                 scalarByteWidth(type));
      return success();
    }
    auto space = cast<PtrType>(op.getPtr().getType()).getSpace();
    AsmScalar s = asmScalar(type);
    auto [addr, addrConstraint] = asmAddress(rewriter, loc, adaptor.getPtr(), space);
    // sc: fence.sc then the store's strongest single-sided semantics, release
    // (the PTX mapping of a seq_cst store, as for loads: fence.sc + ld.acquire).
    StringRef sem = op.getOrder() == MemoryOrder::relaxed ? ".relaxed" : ".release";
    std::string text = scPrefix(op.getOrder(), op.getScope()) + "st" + sem.str() +
                       ptxScope(op.getScope()).str() + ptxSpace(space).str() + ".b" +
                       std::to_string(8 * scalarByteWidth(type)) + " [$0], $1;";
    inlinePtx(rewriter, loc, Type(), ValueRange{addr, toAsm(rewriter, loc, adaptor.getValue(), s)},
              text, (addrConstraint + "," + s.constraint + ",~{memory}").str());
    rewriter.eraseOp(op);
    return success();
  }
};

StringRef atomSem(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::acquire:
    return ".acquire";
  case MemoryOrder::release:
    return ".release";
  case MemoryOrder::acq_rel:
  case MemoryOrder::sc:
    return ".acq_rel";
  default:
    return ".relaxed";
  }
}

/// Operation and type suffix of atom/red: add is typed (.u32/.u64/.f32),
/// min/max signed, the bitwise ones and exch/cas untyped (.bN).
std::string atomOpSuffix(StringRef op, Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  std::string width = std::to_string(bits);
  if (op == "add")
    return type.isF32() ? ".add.f32" : ".add.u" + width;
  if (op == "min" || op == "max")
    return "." + op.str() + ".s" + width;
  return "." + op.str() + ".b" + width;
}

StringRef atomicKindName(AtomicKind kind) {
  switch (kind) {
  case AtomicKind::add: return "add";
  case AtomicKind::min: return "min";
  case AtomicKind::max: return "max";
  case AtomicKind::exch: return "exch";
  case AtomicKind::and_: return "and";
  case AtomicKind::or_: return "or";
  case AtomicKind::xor_: return "xor";
  }
  return "add";
}

struct AtomicRMWLowering : ConvertOpToLLVMPattern<AtomicRMWOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    auto space = cast<PtrType>(op.getPtr().getType()).getSpace();
    StringRef kind = atomicKindName(op.getKind());
    // exch on f32 moves bits; everything else is typed by atomOpSuffix.
    Type opType = (kind == "exch" && type.isF32()) ? rewriter.getI32Type() : type;
    AsmScalar s = asmScalar(opType);
    Value value = toAsm(rewriter, loc, adaptor.getValue(), s);
    auto [addr, addrConstraint] = asmAddress(rewriter, loc, adaptor.getPtr(), space);
    std::string where = ptxScope(op.getScope()).str() + ptxSpace(space).str() +
                        atomOpSuffix(kind, opType);
    std::string prefix = scPrefix(op.getOrder(), op.getScope());
    // red: the result is unused and the semantics fit red's (.relaxed/.release).
    bool useRed = op.use_empty() && kind != "exch" &&
                  (op.getOrder() == MemoryOrder::relaxed || op.getOrder() == MemoryOrder::release);
    if (useRed) {
      inlinePtx(rewriter, loc, Type(), ValueRange{addr, value},
                prefix + "red" + atomSem(op.getOrder()).str() + where + " [$0], $1;",
                (addrConstraint + "," + s.constraint + ",~{memory}").str());
      rewriter.eraseOp(op);
      return success();
    }
    Value old = inlinePtx(rewriter, loc, s.asmType, ValueRange{addr, value},
                          prefix + "atom" + atomSem(op.getOrder()).str() + where + " $0, [$1], $2;",
                          ("=" + s.constraint + "," + addrConstraint + "," + s.constraint +
                           ",~{memory}").str());
    rewriter.replaceOp(op, fromAsm(rewriter, loc, old, type));
    return success();
  }
};

struct AtomicCASLowering : ConvertOpToLLVMPattern<AtomicCASOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    Type bitsType = rewriter.getIntegerType(type.getIntOrFloatBitWidth());
    AsmScalar s = asmScalar(bitsType);
    auto space = cast<PtrType>(op.getPtr().getType()).getSpace();
    auto [addr, addrConstraint] = asmAddress(rewriter, loc, adaptor.getPtr(), space);
    std::string text = scPrefix(op.getOrder(), op.getScope()) + "atom" +
                       atomSem(op.getOrder()).str() + ptxScope(op.getScope()).str() +
                       ptxSpace(space).str() + atomOpSuffix("cas", bitsType) +
                       " $0, [$1], $2, $3;";
    Value old = inlinePtx(
        rewriter, loc, s.asmType,
        ValueRange{addr, toAsm(rewriter, loc, adaptor.getCompare(), s),
                   toAsm(rewriter, loc, adaptor.getValue(), s)},
        text, ("=" + s.constraint + "," + addrConstraint + "," + s.constraint + "," +
               s.constraint + ",~{memory}").str());
    rewriter.replaceOp(op, fromAsm(rewriter, loc, old, type));
    return success();
  }
};

} // namespace

void mlir::tile::populateTileMemoryToLLVMPatterns(LLVMTypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  patterns.add<PtrAddLowering, MapaLowering, LoadLowering, StoreLowering, AtomicRMWLowering,
               AtomicCASLowering>(converter);
}
