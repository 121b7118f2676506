//===- LoadStorePTX.cpp - ld/st with orders, vectors and cache hints ------===//
//
// Register shapes: a scalar travels in its inline-PTX register class
// (PTXBuilder's asmScalar). A vector of 32- or 64-bit elements is `.vN.bW`
// with one register per element; a vector of 8- or 16-bit elements is moved
// as 32-bit words (`.b32`, `.v2.b32`, `.v4.b32`), which is how nvcc moves
// half2 / char4 and keeps every form inside the `.v2`/`.v4` PTX allows.
// Weak accesses with hints are still weak: the asm is volatile with a memory
// clobber only so that no pass moves it across a barrier or merges two of them.
//===----------------------------------------------------------------------===//
#include "LoadStorePTX.h"
#include "ConversionUtils.h"
#include "PTXBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace mlir::tile::ptx {

int64_t accessBytes(Type type) {
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.getNumElements() * scalarByteWidth(vec.getElementType());
  return scalarByteWidth(type);
}

namespace {

/// How a value is split into inline-PTX registers.
struct RegShape {
  unsigned count = 1; // registers (1: no .vN)
  unsigned bits = 32; // access width of each: the .bW of the instruction
  AsmScalar reg;      // register class of each
  bool words = false; // a vector of sub-32-bit elements moved as 32-bit words
};

RegShape regShape(Type type) {
  MLIRContext *ctx = type.getContext();
  RegShape s;
  auto vec = dyn_cast<VectorType>(type);
  if (!vec) {
    s.bits = static_cast<unsigned>(8 * scalarByteWidth(type));
    s.reg = asmScalar(type);
    return s;
  }
  unsigned elemBits = vec.getElementType().getIntOrFloatBitWidth();
  if (elemBits >= 32) {
    s.count = static_cast<unsigned>(vec.getNumElements());
    s.bits = elemBits;
  } else {
    s.count = static_cast<unsigned>(accessBytes(type) / 4);
    s.bits = 32;
    s.words = true;
  }
  s.reg = asmScalar(IntegerType::get(ctx, s.bits));
  return s;
}

/// The instruction text up to (not including) the operands.
Instr instruction(const LdStForm &f, const RegShape &shape) {
  Instr in(f.isLoad ? "ld" : "st");
  if (f.order != MemoryOrder::weak) {
    // sc is a fence.sc (added by the caller) plus the strongest one-sided .sem.
    MemoryOrder sem = f.order == MemoryOrder::relaxed ? MemoryOrder::relaxed
                      : f.isLoad                      ? MemoryOrder::acquire
                                                      : MemoryOrder::release;
    in.sem(sem).scope(f.scope);
  }
  in.space(f.space);
  if (f.cache) {
    // ld.global.nc is its own instruction: `.nc` follows the state space.
    in.qual(stringifyCacheOp(*f.cache));
  }
  if (f.evict)
    in.qual(("L1::" + stringifyEvictionPriority(*f.evict)).str());
  if (f.policy)
    in.qual("L2::cache_hint");
  if (f.prefetch)
    in.qual("L2::" + std::to_string(*f.prefetch) + "B");
  if (shape.count > 1)
    in.qual("v" + std::to_string(shape.count));
  return in.type('b', shape.bits);
}

std::string braced(ArrayRef<std::string> regs) {
  if (regs.size() == 1)
    return regs[0];
  std::string s = "{";
  for (size_t i = 0; i < regs.size(); ++i)
    s += (i ? ", " : "") + regs[i];
  return s + "}";
}

} // namespace

Value emitLoad(OpBuilder &b, Location loc, const LdStForm &form, Value ptr, Type type) {
  RegShape shape = regShape(type);
  Asm as(b, loc);
  SmallVector<std::string> dst;
  Type regType = shape.reg.asmType;
  if (shape.count == 1) {
    dst.push_back(as.result(regType, shape.reg.constraint));
  } else {
    SmallVector<Type> fields(shape.count, regType);
    auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
    for (std::string &r : as.results(structType, shape.count, shape.reg.constraint))
      dst.push_back(r);
  }
  std::string addr = as.address(ptr, form.space);
  std::vector<std::string> ops = {braced(dst), addr};
  if (form.policy)
    ops.push_back(as.operand(form.policy, "l"));
  addScFence(as, form.order, form.scope);
  as.line(instruction(form, shape).operands(ops));
  Value raw = as.emit();
  if (shape.count == 1) {
    if (shape.words) // 4 bytes of 8/16-bit lanes in one .b32
      return LLVM::BitcastOp::create(b, loc, type, raw);
    return fromAsm(b, loc, raw, type);
  }
  // Reassemble the registers as a vector of words, then as the vector type.
  auto wordsType = VectorType::get({static_cast<int64_t>(shape.count)}, regType);
  Value v = LLVM::PoisonOp::create(b, loc, wordsType);
  for (unsigned i = 0; i < shape.count; ++i) {
    Value part = LLVM::ExtractValueOp::create(b, loc, raw, ArrayRef<int64_t>{i});
    Value idx = i32Const(b, loc, i);
    v = LLVM::InsertElementOp::create(b, loc, v, part, idx);
  }
  return LLVM::BitcastOp::create(b, loc, type, v);
}

void emitStore(OpBuilder &b, Location loc, const LdStForm &form, Value ptr, Value value) {
  Type type = value.getType();
  RegShape shape = regShape(type);
  Asm as(b, loc);
  std::string addr = as.address(ptr, form.space);
  SmallVector<std::string> src;
  if (shape.count == 1) {
    Value v = shape.words ? LLVM::BitcastOp::create(b, loc, shape.reg.asmType, value) : value;
    src.push_back(as.scalar(v, shape.reg));
  } else {
    auto wordsType = VectorType::get({static_cast<int64_t>(shape.count)}, shape.reg.asmType);
    Value words = LLVM::BitcastOp::create(b, loc, wordsType, value);
    for (unsigned i = 0; i < shape.count; ++i) {
      Value idx = i32Const(b, loc, i);
      Value part = LLVM::ExtractElementOp::create(b, loc, words, idx);
      src.push_back(as.operand(part, shape.reg.constraint));
    }
  }
  std::vector<std::string> ops = {addr, braced(src)};
  if (form.policy)
    ops.push_back(as.operand(form.policy, "l"));
  addScFence(as, form.order, form.scope);
  as.line(instruction(form, shape).operands(ops));
  as.emit();
}

} // namespace mlir::tile::ptx
