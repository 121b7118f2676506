//===- MemoryToLLVM.cpp - pointers, mapa, ld/st/atom/red ------------------===//
//
// A global pointer and its 64-bit address convert both ways as LLVM's
// ptrtoint/inttoptr (a global address is a generic one, PTX ISA 6.4.1).
// Plain (weak) accesses become LLVM loads/stores so the optimiser can work on
// them; mapa is nvvm.mapa. Accesses with a memory order or cache hints are
// composed by LoadStorePTX (the one ld/st builder), every atomic by the PTX
// builder with the exact `.sem` and `.scope` (PTX ISA
// 9.7.9.8 ld, 9.7.9.9 st, 9.7.13.5 atom, 9.7.13.6 red): neither LLVM's
// atomics nor MLIR 22's NVVM ops express `.cluster` scope or `.sc` precisely.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include "LoadStorePTX.h"
#include "PTXBuilder.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::tile;

namespace {

Type llvmPtr(MLIRContext *ctx, AddressSpace space) {
  return LLVM::LLVMPointerType::get(ctx, nvptxAddressSpace(static_cast<int>(space)));
}

struct PtrAddLowering : ConvertOpToLLVMPattern<PtrAddOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(PtrAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<PtrType>(op.getType());
    // The converted element (an fp8 element steps as its i8 bits).
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, llvmPtr(getContext(), type.getSpace()),
                                             getTypeConverter()->convertType(type.getElementType()),
                                             adaptor.getBase(), ValueRange{adaptor.getOffset()});
    return success();
  }
};

struct GlobalAddressLowering : ConvertOpToLLVMPattern<GlobalAddressOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(GlobalAddressOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, rewriter.getI64Type(), adaptor.getPtr());
    return success();
  }
};

struct GlobalPtrLowering : ConvertOpToLLVMPattern<GlobalPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(GlobalPtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(op, llvmPtr(getContext(), AddressSpace::global),
                                                  adaptor.getAddress());
    return success();
  }
};

struct MapaLowering : ConvertOpToLLVMPattern<MapaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MapaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MapaOp>(op, llvmPtr(getContext(), AddressSpace::cluster),
                                              adaptor.getSource(), adaptor.getRank());
    return success();
  }
};

/// The `.sem` of atom/red: PTX has no `.sc` atomic, so sc is fence.sc + acq_rel.
MemoryOrder atomicSem(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::acquire:
  case MemoryOrder::release:
  case MemoryOrder::acq_rel:
    return order;
  case MemoryOrder::sc:
    return MemoryOrder::acq_rel;
  default:
    return MemoryOrder::relaxed;
  }
}

AddressSpace spaceOf(Value ptr) { return cast<PtrType>(ptr.getType()).getSpace(); }

/// The ld/st qualifiers of a tile.load/tile.store (LoadStorePTX.h builds them).
template <class OpT> ptx::LdStForm ldStForm(OpT op, Value policy, bool isLoad) {
  ptx::LdStForm f;
  f.isLoad = isLoad;
  f.order = op.getOrder();
  f.scope = op.getScope();
  f.space = spaceOf(op.getPtr());
  f.cache = op.getCache();
  f.evict = op.getEvict();
  f.policy = policy;
  return f;
}

/// The widest ld/st on sm_90: .v4.b32 / .v2.b64, 16 bytes (PTX ISA 9.7.9.8;
/// .v8 of 32-bit data is sm_100's).
constexpr int64_t kWidestAccessBytes = 16;

/// A 32-byte vector (converted type `type`) in global or shared memory moves
/// as two 16-byte halves in address order, each one ld/st.v4 needing its own
/// 16-byte alignment (the kernel's contract, tile-check-address-alignment's
/// and the runtime's): the low half's lanes first. Null for anything
/// narrower, and in a `var`'s local slot (SROA keeps it in registers).
VectorType halfOfWideVector(Type type, Value ptr) {
  auto vec = dyn_cast<VectorType>(type);
  if (!vec || ptx::accessBytes(vec) <= kWidestAccessBytes ||
      spaceOf(ptr) == AddressSpace::local)
    return nullptr;
  return VectorType::get({vec.getNumElements() / 2}, vec.getElementType());
}

/// The address of the high half: 16 bytes past `ptr`.
Value highHalfAddress(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(), ptr,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(kWidestAccessBytes)});
}

/// Lanes [first, first + n) of `v`, or the concatenation of v and w when
/// w is given (shufflevector).
Value lanes(OpBuilder &b, Location loc, Value v, Value w, int64_t first, int64_t n) {
  SmallVector<int32_t> mask;
  for (int64_t i = 0; i < n; ++i)
    mask.push_back(static_cast<int32_t>(first + i));
  return LLVM::ShuffleVectorOp::create(b, loc, v, w ? w : v, mask);
}

struct LoadLowering : ConvertOpToLLVMPattern<LoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The converted type: an fp8 value is its i8 bits (f16/bf16 stay as they are).
    Type type = getTypeConverter()->convertType(op.getType());
    Location loc = op.getLoc();
    // A plain load (a vector one included, aligned to its bytes so that it
    // is one ld.vN) stays an LLVM load for the optimiser.
    const bool plain = op.getOrder() == MemoryOrder::weak && !op.hasCacheHints();
    ptx::LdStForm form = ldStForm(op, adaptor.getPolicy(), /*isLoad=*/true);
    form.prefetch = op.getPrefetch();
    auto load = [&](Type t, Value ptr, int64_t align) -> Value {
      if (plain)
        return LLVM::LoadOp::create(rewriter, loc, t, ptr, align);
      return ptx::emitLoad(rewriter, loc, form, ptr, t);
    };
    VectorType half = halfOfWideVector(type, op.getPtr());
    if (!half) {
      rewriter.replaceOp(op, load(type, adaptor.getPtr(), ptx::accessBytes(op.getType())));
      return success();
    }
    Value low = load(half, adaptor.getPtr(), kWidestAccessBytes);
    Value highPtr = highHalfAddress(rewriter, loc, adaptor.getPtr());
    Value high = load(half, highPtr, kWidestAccessBytes);
    rewriter.replaceOp(op, lanes(rewriter, loc, low, high, 0, 2 * half.getNumElements()));
    return success();
  }
};

struct StoreLowering : ConvertOpToLLVMPattern<StoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const bool plain = op.getOrder() == MemoryOrder::weak && !op.hasCacheHints();
    ptx::LdStForm form = ldStForm(op, adaptor.getPolicy(), /*isLoad=*/false);
    auto store = [&](Value v, Value ptr, int64_t align) {
      if (plain)
        LLVM::StoreOp::create(rewriter, loc, v, ptr, align);
      else
        ptx::emitStore(rewriter, loc, form, ptr, v);
    };
    Value value = adaptor.getValue();
    VectorType half = halfOfWideVector(value.getType(), op.getPtr());
    if (!half) {
      store(value, adaptor.getPtr(), ptx::accessBytes(op.getValue().getType()));
    } else {
      const int64_t n = half.getNumElements();
      Value low = lanes(rewriter, loc, value, nullptr, 0, n);
      store(low, adaptor.getPtr(), kWidestAccessBytes);
      Value high = lanes(rewriter, loc, value, nullptr, n, n);
      Value highPtr = highHalfAddress(rewriter, loc, adaptor.getPtr());
      store(high, highPtr, kWidestAccessBytes);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// createpolicy.fractional.L2::<primary>.b64 (PTX ISA 9.7.9.17); the fraction
/// is written as the exact f32 bit pattern (0fXXXXXXXX). Pure: two equal
/// policies are one register, and an unused one goes.
struct CreatePolicyLowering : ConvertOpToLLVMPattern<CreatePolicyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CreatePolicyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ptx::Asm as(rewriter, op.getLoc());
    std::string dst = as.result(rewriter.getI64Type(), "l");
    char bits[16];
    std::snprintf(bits, sizeof bits, "0f%08X",
                  static_cast<unsigned>(op.getFraction().bitcastToAPInt().getZExtValue()));
    as.line(ptx::Instr("createpolicy")
                .qual("fractional")
                .qual(("L2::" + stringifyEvictionPriority(op.getPrimary())).str())
                .type('b', 64)
                .operands({dst, bits}));
    rewriter.replaceOp(op, as.emitPure());
    return success();
  }
};

/// The operation and type of atom/red: add is typed (.u32/.u64/.f32/.f64,
/// PTX ISA 9.7.13.5: atom.add.f64 needs sm_60; .noftz.f16 sm_70, .noftz.bf16
/// sm_90: the 16-bit float adds keep subnormals, as the other float adds), min/max signed (.s32) or,
/// as umin/umax, unsigned (.u32), the bitwise ones, exch and cas untyped (.bN).
ptx::Instr &atomOperation(ptx::Instr &instr, StringRef operation, Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  char kind = 'b';
  if (operation == stringifyAtomicKind(AtomicKind::add) && isa<FloatType>(type) && bits == 16)
    return instr.qual("add").qual("noftz").qual(type.isBF16() ? "bf16" : "f16"); // sm_70 / sm_90
  if (operation == stringifyAtomicKind(AtomicKind::add))
    kind = isa<FloatType>(type) ? 'f' : 'u';
  else if (operation == stringifyAtomicKind(AtomicKind::min) ||
           operation == stringifyAtomicKind(AtomicKind::max))
    kind = 's';
  else if (operation == stringifyAtomicKind(AtomicKind::umin))
    return instr.qual("min").type('u', bits);
  else if (operation == stringifyAtomicKind(AtomicKind::umax))
    return instr.qual("max").type('u', bits);
  return instr.qual(operation).type(kind, bits);
}

struct AtomicRMWLowering : ConvertOpToLLVMPattern<AtomicRMWOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    AddressSpace space = spaceOf(op.getPtr());
    MemoryOrder order = op.getOrder();
    AtomicKind kind = op.getKind();
    // exch on f32 moves bits; everything else is typed by atomOperation.
    Type opType = (kind == AtomicKind::exch && type.isF32()) ? rewriter.getI32Type() : type;
    ptx::AsmScalar s = ptx::asmScalar(opType);
    Value value = ptx::toAsm(rewriter, loc, adaptor.getValue(), s);
    // red: the result is unused and the semantics fit red's (.relaxed/.release).
    bool useRed = op.use_empty() && kind != AtomicKind::exch &&
                  (order == MemoryOrder::relaxed || order == MemoryOrder::release);
    ptx::Asm as(rewriter, loc);
    std::string old = useRed ? "" : as.result(s.asmType, s.constraint);
    std::string addr = as.address(adaptor.getPtr(), space);
    std::string operand = as.operand(value, s.constraint);
    ptx::Instr instr(useRed ? "red" : "atom");
    instr.sem(atomicSem(order)).scope(op.getScope()).space(space);
    atomOperation(instr, stringifyAtomicKind(kind), opType);
    ptx::addScFence(as, order, op.getScope());
    if (useRed) {
      as.line(instr.operands({addr, operand}));
      as.emit();
      rewriter.eraseOp(op);
      return success();
    }
    as.line(instr.operands({old, addr, operand}));
    rewriter.replaceOp(op, ptx::fromAsm(rewriter, loc, as.emit(), type));
    return success();
  }
};

struct AtomicCASLowering : ConvertOpToLLVMPattern<AtomicCASOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    Type bitsType = rewriter.getIntegerType(type.getIntOrFloatBitWidth());
    ptx::AsmScalar s = ptx::asmScalar(bitsType);
    AddressSpace space = spaceOf(op.getPtr());
    ptx::Asm as(rewriter, loc);
    std::string old = as.result(s.asmType, s.constraint);
    std::string addr = as.address(adaptor.getPtr(), space);
    std::string compare = as.scalar(adaptor.getCompare(), s);
    std::string value = as.scalar(adaptor.getValue(), s);
    ptx::Instr instr("atom");
    instr.sem(atomicSem(op.getOrder())).scope(op.getScope()).space(space);
    atomOperation(instr, "cas", bitsType);
    ptx::addScFence(as, op.getOrder(), op.getScope());
    as.line(instr.operands({old, addr, compare, value}));
    rewriter.replaceOp(op, ptx::fromAsm(rewriter, loc, as.emit(), type));
    return success();
  }
};

} // namespace

void mlir::tile::populateTileMemoryToLLVMPatterns(LLVMTypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  patterns.add<PtrAddLowering, GlobalAddressLowering, GlobalPtrLowering, MapaLowering, LoadLowering,
               StoreLowering, AtomicRMWLowering, AtomicCASLowering, CreatePolicyLowering>(
      converter);
}
