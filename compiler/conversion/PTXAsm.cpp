//===- PTXAsm.cpp - inline-PTX building blocks of the tile lowering -------===//
#include "PTXAsm.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace mlir::tile::ptxasm {

/// PTX state-space qualifier of an address.
StringRef ptxSpace(AddressSpace space) {
  switch (space) {
  case AddressSpace::global:
    return ".global";
  case AddressSpace::shared:
    return ".shared::cta";
  case AddressSpace::cluster:
    return ".shared::cluster";
  case AddressSpace::local:
    return "";
  }
  return "";
}

StringRef ptxScope(MemoryScope scope) {
  switch (scope) {
  case MemoryScope::cta:
    return ".cta";
  case MemoryScope::cluster:
    return ".cluster";
  case MemoryScope::gpu:
    return ".gpu";
  case MemoryScope::sys:
    return ".sys";
  }
  return ".sys";
}

/// The address operand of inline PTX: shared and shared::cluster addresses
/// are 32-bit (short pointers, as nvcc emits), global ones 64-bit.
std::pair<Value, StringRef> asmAddress(OpBuilder &b, Location loc, Value ptr, AddressSpace space) {
  bool wide = space == AddressSpace::global || space == AddressSpace::local;
  Type intType = wide ? b.getI64Type() : b.getI32Type();
  return {LLVM::PtrToIntOp::create(b, loc, intType, ptr), wide ? "l" : "r"};
}

/// f16/bf16 travel as their bits in 16-bit registers.
AsmScalar asmScalar(Type type) {
  MLIRContext *ctx = type.getContext();
  if (type.isF32())
    return {"f", type, 32};
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits <= 16)
    return {"h", IntegerType::get(ctx, 16), 16};
  if (bits == 32)
    return {"r", IntegerType::get(ctx, 32), 32};
  return {"l", IntegerType::get(ctx, 64), 64};
}

Value toAsm(OpBuilder &b, Location loc, Value v, const AsmScalar &s) {
  if (v.getType() == s.asmType)
    return v;
  if (isa<FloatType>(v.getType()))
    return LLVM::BitcastOp::create(b, loc, s.asmType, v);
  return LLVM::ZExtOp::create(b, loc, s.asmType, v);
}
Value fromAsm(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (isa<FloatType>(type))
    return LLVM::BitcastOp::create(b, loc, type, v);
  return LLVM::TruncOp::create(b, loc, type, v);
}

Value inlinePtx(OpBuilder &b, Location loc, Type result, ValueRange operands, StringRef text,
                StringRef constraints) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, result, operands, b.getStringAttr(text), b.getStringAttr(constraints),
      /*has_side_effects=*/b.getUnitAttr(), /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::tailcallkind::TailCallKind::None),
      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
  return result ? op.getResult(0) : Value();
}

/// `.sc` has no instruction form: PTX ISA 8.10 realises it as `fence.sc` followed
/// by the strongest single-sided semantics of the access.
std::string scPrefix(MemoryOrder order, MemoryScope scope) {
  return order == MemoryOrder::sc ? ("fence.sc" + ptxScope(scope) + ";\n\t").str() : "";
}

} // namespace mlir::tile::ptxasm

static void reportUndecided(Operation *op, StringRef what) {
  op->emitError() << "internal: no " << what << " decided for " << op->getName()
                  << " (tile-sync-semantics decides every open order and scope; run it before "
                     "lowering)";
}

FailureOr<MemoryOrder> ptxasm::decidedOrder(Operation *op, std::optional<MemoryOrder> order) {
  if (order)
    return *order;
  reportUndecided(op, "order");
  return failure();
}

FailureOr<MemoryScope> ptxasm::decidedScope(Operation *op, std::optional<MemoryScope> scope) {
  if (scope)
    return *scope;
  reportUndecided(op, "scope");
  return failure();
}
