//===- PTXBuilder.cpp - the one inline-PTX builder of the tile lowering ---===//
#include "PTXBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

namespace mlir::tile::ptx {

std::string sem(MemoryOrder order) {
  if (order == MemoryOrder::weak)
    return "";
  return ("." + stringifyMemoryOrder(order)).str();
}

std::string scope(MemoryScope s) { return ("." + stringifyMemoryScope(s)).str(); }

/// PTX ISA 5.1.5: `.shared::cta` is the executing CTA's window, `.shared::cluster`
/// the windows of every CTA of the cluster, named by the scope that sees them.
std::string space(AddressSpace s) {
  switch (s) {
  case AddressSpace::global:
    return ("." + stringifyAddressSpace(s)).str();
  case AddressSpace::shared:
    return ".shared::" + stringifyMemoryScope(MemoryScope::cta).str();
  case AddressSpace::cluster:
    return ".shared::" + stringifyMemoryScope(MemoryScope::cluster).str();
  case AddressSpace::local:
    return "";
  }
  return "";
}

Instr &Instr::qual(StringRef q) {
  text += ("." + q).str();
  return *this;
}
Instr &Instr::sem(MemoryOrder order) {
  text += ptx::sem(order);
  return *this;
}
Instr &Instr::scope(MemoryScope s) {
  text += ptx::scope(s);
  return *this;
}
Instr &Instr::space(AddressSpace s) {
  text += ptx::space(s);
  return *this;
}
Instr &Instr::type(char kind, unsigned bits) {
  text += "." + std::string(1, kind) + std::to_string(bits);
  return *this;
}
std::string Instr::operands(ArrayRef<std::string> list) const {
  return text + " " + llvm::join(list, ", ") + ";";
}

void addScFence(Asm &as, MemoryOrder order, MemoryScope s) {
  if (order == MemoryOrder::sc)
    as.line(Instr("fence").sem(MemoryOrder::sc).scope(s).statement());
}

AsmScalar asmScalar(Type type) {
  MLIRContext *ctx = type.getContext();
  if (type.isF32())
    return {"f", type, 32};
  if (type.isF64())
    return {"d", type, 64};
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

std::string Asm::result(Type type, StringRef constraint) {
  assert(!resultType && inputs.empty() && "the result is $0: add it first");
  resultType = type;
  constraints.push_back(("=" + constraint).str());
  return "$0";
}

SmallVector<std::string> Asm::results(Type type, unsigned count, StringRef constraint) {
  assert(!resultType && inputs.empty() && "the results are $0..: add them first");
  resultType = type;
  SmallVector<std::string> names;
  for (unsigned i = 0; i < count; ++i) {
    constraints.push_back(("=" + constraint).str());
    names.push_back("$" + std::to_string(i));
  }
  return names;
}

std::string Asm::operand(Value v, StringRef constraint) {
  inputs.push_back(v);
  constraints.push_back(constraint.str());
  return "$" + std::to_string(constraints.size() - 1);
}

std::string Asm::scalar(Value v, const AsmScalar &s) {
  return operand(toAsm(b, loc, v, s), s.constraint);
}

std::string Asm::address(Value ptr, AddressSpace space) {
  bool wide = space == AddressSpace::global || space == AddressSpace::local;
  Value bits = LLVM::PtrToIntOp::create(b, loc, wide ? b.getI64Type() : b.getI32Type(), ptr);
  return "[" + operand(bits, wide ? "l" : "r") + "]";
}

Asm &Asm::line(StringRef statement) {
  if (!text.empty())
    text += "\n\t";
  text += statement.str();
  return *this;
}

Value Asm::emit() { return create(/*sideEffects=*/true, /*clobbersMemory=*/true); }
Value Asm::emitPure() { return create(/*sideEffects=*/false, /*clobbersMemory=*/false); }

Value Asm::create(bool sideEffects, bool clobbersMemory) {
  std::string list = llvm::join(constraints, ",");
  if (clobbersMemory)
    list += list.empty() ? "~{memory}" : ",~{memory}";
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType, inputs, b.getStringAttr(text), b.getStringAttr(list),
      /*has_side_effects=*/sideEffects ? b.getUnitAttr() : nullptr, /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::tailcallkind::TailCallKind::None),
      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
  return resultType ? op.getResult(0) : Value();
}

Value barrierReduction(OpBuilder &b, Location loc, Value pred, BarrierReduction kind,
                       StringRef barrier, bool aligned) {
  bool count = kind == BarrierReduction::popc;
  Type i32 = b.getI32Type();
  Asm as(b, loc);
  std::string d = as.result(i32, "r");
  std::string p = as.operand(LLVM::ZExtOp::create(b, loc, i32, pred), "r");
  std::string op = ("barrier.red." + stringifyBarrierReduction(kind) +
                    (aligned ? ".aligned" : "") + (count ? ".u32 " + d : ".pred q"))
                       .str();
  as.line("{").line(".reg .pred p, q;").line("setp.ne.b32 p, " + p + ", 0;");
  as.line(op + ", " + barrier.str() + ", p;");
  if (!count) // the predicate result as 0 / 1
    as.line("selp.u32 " + d + ", 1, 0, q;");
  as.line("}");
  Value r = as.emit(); // a barrier: it orders memory
  if (count)
    return r;
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, r,
                              LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)));
}

} // namespace mlir::tile::ptx
