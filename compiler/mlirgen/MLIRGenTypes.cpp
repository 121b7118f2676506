//===- MLIRGenTypes.cpp - `?:`, break/continue, unsigned, f64, bit ops -----===//
//
// Conditional expressions, loop exits, unsigned integers, f64 and bit
// operations (docs/reference/operators.md, docs/reference/statements.md).
//
//  - `c ? a : b`: arith.select when both sides are plain arithmetic (Sema's
//    SelectExpr::lazy is false), else scf.if, so a load or a division on the
//    side not chosen never runs.
//  - break/continue: per-thread i1 flags in tile.local_var slots, like the
//    `returned` flag: the rest of the iteration runs under `if !(broke ||
//    continued)`, the loop condition is `!broke && cond`. Control stays
//    structured (scf.while/scf.if), so every pass that reasons about loops
//    (barrier placement, mbarrier phase bits, which live in local slots too)
//    sees an ordinary loop whose condition is a load of the flags' slots:
//    as uniform as the control under which an exit stores them
//    (UniformityAnalysis), so a thread-dependent exit makes the loop's
//    barriers the non-aligned `barrier.sync`. A `for` without
//    break/continue is emitted exactly as before.
//  - Unsigned integers are signless in MLIR; the unsigned forms are chosen
//    here: x / 0 = all ones, x % 0 = x (RISC-V's choice, as the signed ones),
//    `>>` logical with amounts >= width giving 0 (PTX shr.u32 clamps so).
//  - float -> integer conversions of every pair: round toward zero,
//    saturate, NaN -> 0 (PTX cvt.rzi.{s,u}{32,64}.{f32,f64} saturate, PTX
//    ISA 9.7.9.21; NaN is selected to 0 explicitly, since cvt.rzi.s64.f32
//    gives INT64_MIN for it on the H100).
//  - bfind(x) = width - 1 - clz(x) (unsigned), the same of x ^ (x >> (w-1))
//    (signed: the highest bit that differs from the sign), which is -1 when
//    there is none, as PTX bfind's 0xffffffff.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "FloatBits.h"
#include "tilec/Target/NaNBits.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

//===----------------------------------------------------------------------===//
// c ? a : b
//===----------------------------------------------------------------------===//

Value MLIRGenImpl::genSelect(const fe::SelectExpr &e) {
  Location l = loc(e.loc);
  Value cond = genExpr(*e.cond);
  if (!e.lazy) {
    Value a = genExpr(*e.trueValue);
    Value b = genExpr(*e.falseValue);
    return arith::SelectOp::create(builder, l, cond, a, b);
  }
  auto op = scf::IfOp::create(builder, l, valueType(e.type), cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPointToStart(op.thenBlock());
  scf::YieldOp::create(builder, l, genExpr(*e.trueValue));
  builder.setInsertionPointToStart(op.elseBlock());
  scf::YieldOp::create(builder, l, genExpr(*e.falseValue));
  return op.getResult(0);
}

//===----------------------------------------------------------------------===//
// break / continue
//===----------------------------------------------------------------------===//

MLIRGenImpl::LoopExit MLIRGenImpl::newLoopExit(Location l, bool hasBreak, bool hasContinue) {
  LoopExit ex;
  // Cleared each time the loop starts (an inner loop starts again in every
  // iteration of the outer one).
  if (hasBreak) {
    ex.broke = newExitFlag(l);
    storeWeak(l, boolConst(l, false), ex.broke);
  }
  if (hasContinue)
    ex.continued = newExitFlag(l);
  return ex;
}

bool MLIRGenImpl::stmtLeavesIteration(const fe::StmtAST &s) {
  if (s.is<fe::BreakStmt>() || s.is<fe::ContinueStmt>())
    return true;
  if (auto *i = s.as<fe::IfStmt>()) {
    for (const auto &t : i->thenBody)
      if (stmtLeavesIteration(*t))
        return true;
    for (const auto &t : i->elseBody)
      if (stmtLeavesIteration(*t))
        return true;
  }
  return false; // a nested loop keeps its own break/continue
}

Value MLIRGenImpl::notLeftIteration(Location l) {
  const LoopExit &ex = loopExits[currentLoop];
  Value left;
  if (ex.broke)
    left = loadWeak(l, ex.broke);
  if (ex.continued) {
    Value c = loadWeak(l, ex.continued);
    left = left ? Value(arith::OrIOp::create(builder, l, left, c)) : c;
  }
  return arith::XOrIOp::create(builder, l, left, boolConst(l, true));
}

void MLIRGenImpl::genLoopExit(const fe::StmtAST &s) {
  Location l = loc(s.loc);
  if (auto *b = s.as<fe::BreakStmt>())
    storeWeak(l, boolConst(l, true), loopExits[b->loop].broke);
  else
    storeWeak(l, boolConst(l, true), loopExits[s.as<fe::ContinueStmt>()->loop].continued);
}

void MLIRGenImpl::genWhileWithExits(const fe::WhileStmt &s) {
  Location l = loc(s.loc);
  LoopExit ex = newLoopExit(l, s.hasBreak, s.hasContinue);
  loopExits[&s] = ex;
  emitWhile(
      l,
      [&] {
        if (!ex.broke)
          return genExpr(*s.cond);
        // The condition (which may load or call) is not evaluated after a break.
        Value broke = loadWeak(l, ex.broke);
        Value stay = arith::XOrIOp::create(builder, l, broke, boolConst(l, true));
        auto op = scf::IfOp::create(builder, l, builder.getI1Type(), stay, /*withElseRegion=*/true);
        OpBuilder::InsertionGuard g(builder);
        builder.setInsertionPointToStart(op.thenBlock());
        scf::YieldOp::create(builder, l, genExpr(*s.cond));
        builder.setInsertionPointToStart(op.elseBlock());
        scf::YieldOp::create(builder, l, boolConst(l, false));
        return Value(op.getResult(0));
      },
      [&] {
        if (ex.continued)
          storeWeak(l, boolConst(l, false), ex.continued);
        const fe::StmtAST *outer = currentLoop;
        currentLoop = &s;
        genBlock(s.body, 0);
        currentLoop = outer;
      });
}

//===----------------------------------------------------------------------===//
// Unsigned operators
//===----------------------------------------------------------------------===//

static std::optional<APInt> constantIntOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c;
  return std::nullopt;
}

Value MLIRGenImpl::genDivRemU(Location l, bool isRem, Value x, Value d) {
  Type t = x.getType();
  if (auto c = constantIntOf(d); c && !c->isZero())
    return isRem ? Value(arith::RemUIOp::create(builder, l, x, d))
                 : Value(arith::DivUIOp::create(builder, l, x, d));
  // LLVM udiv/urem by 0 is undefined behaviour: divide by 1 instead and
  // select the defined result.
  Value zero = intConst(l, t, 0);
  Value byZero = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, d, zero);
  Value safe = arith::SelectOp::create(builder, l, byZero, intConst(l, t, 1), d);
  Value r = isRem ? Value(arith::RemUIOp::create(builder, l, x, safe))
                  : Value(arith::DivUIOp::create(builder, l, x, safe));
  return arith::SelectOp::create(builder, l, byZero, isRem ? x : intConst(l, t, -1), r);
}

Value MLIRGenImpl::genShrU(Location l, Value x, Value n) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  if (auto c = constantIntOf(n); c && c->ult(width))
    return arith::ShRUIOp::create(builder, l, x, n);
  // As genShift's 64-bit shl: select the shifted value (0 when n >= width)
  // and mask the amount, so no fold can drop the range test (NVPTX's
  // shr.b64 takes a .u32 amount) and no shift is by >= width (poison).
  Value inRange =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, n, intConst(l, t, width));
  Value v = arith::SelectOp::create(builder, l, inRange, x, intConst(l, t, 0));
  Value amount = arith::AndIOp::create(builder, l, n, intConst(l, t, width - 1));
  return arith::ShRUIOp::create(builder, l, v, amount);
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

Value MLIRGenImpl::genFloatToIntAny(Location l, Value v, Type to, bool toUnsigned) {
  if (v.getType().getIntOrFloatBitWidth() < 32) // f16/bf16 -> f32 is exact
    v = arith::ExtFOp::create(builder, l, builder.getF32Type(), v);
  bool fromF64 = v.getType().isF64();
  unsigned width = to.getIntOrFloatBitWidth();
  bool wide = width == 64;
  // llvm.nvvm.{f,d}2{i,ui,ll,ull}.rz are cvt.rzi.{s,u}{32,64}.{f32,f64}.
  std::string name = std::string("llvm.nvvm.") + (fromF64 ? "d2" : "f2") +
                     (wide ? (toUnsigned ? "ull" : "ll") : (toUnsigned ? "ui" : "i")) + ".rz";
  Type resultType = wide ? to : builder.getI32Type();
  Value r = LLVM::CallIntrinsicOp::create(builder, l, resultType, builder.getStringAttr(name),
                                          ValueRange{v})
                .getResult(0);
  Value isNaN = arith::CmpFOp::create(builder, l, arith::CmpFPredicate::UNO, v, v);
  r = arith::SelectOp::create(builder, l, isNaN, intConst(l, resultType, 0), r);
  if (width >= 32)
    return r;
  // u8/u16 (i8/i16): saturate the 32-bit result further to the narrow range.
  Type i32 = builder.getI32Type();
  if (toUnsigned) {
    r = arith::MinUIOp::create(builder, l, r, intConst(l, i32, (int64_t(1) << width) - 1));
  } else {
    int64_t hi = (int64_t(1) << (width - 1)) - 1;
    r = arith::MaxSIOp::create(builder, l, r, intConst(l, i32, -hi - 1));
    r = arith::MinSIOp::create(builder, l, r, intConst(l, i32, hi));
  }
  return arith::TruncIOp::create(builder, l, to, r);
}

//===----------------------------------------------------------------------===//
// bitcast, popc, clz, ctz, brev, bfind
//===----------------------------------------------------------------------===//

Value mlir::tile::mlirgen::pinFloatBits(OpBuilder &builder, Location l, Value x) {
  return LLVM::CallIntrinsicOp::create(builder, l, x.getType(),
                                       builder.getStringAttr("llvm.arithmetic.fence"), ValueRange{x})
      .getResult(0);
}

Value mlir::tile::mlirgen::readFloatBits(OpBuilder &builder, ModuleOp module, Location l,
                                         Value x) {
  Type t = x.getType();
  std::string name = ::tile::target::kFloatBitsFunctionPrefix;
  llvm::raw_string_ostream(name) << t;
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    fn = LLVM::LLVMFuncOp::create(builder, builder.getUnknownLoc(), name,
                                  LLVM::LLVMFunctionType::get(t, {t}));
    auto none = LLVM::ModRefInfo::NoModRef;
    fn.setMemoryEffectsAttr(
        LLVM::MemoryEffectsAttr::get(builder.getContext(), none, none, none, none, none, none));
    fn.setNoUnwind(true);
    fn.setWillReturn(true);
  }
  return LLVM::CallOp::create(builder, l, fn, ValueRange{x}).getResult();
}

Value MLIRGenImpl::genBitCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  Value x = genExpr(*e.args[0]);
  Type t = x.getType();
  Type i32 = builder.getI32Type();
  switch (e.builtin) {
  case fe::Builtin::Bitcast: {
    Type to = scalarType(e.type.scalar);
    if (to == t)
      return x;
    if (isa<FloatType>(t))
      x = readFloatBits(builder, *module, l, x);
    Value r = arith::BitcastOp::create(builder, l, to, x);
    // Bits the program spelled as a float.
    return isa<FloatType>(to) ? pinFloatBits(builder, l, r) : r;
  }
  case fe::Builtin::Popc:
    return castInt(l, LLVM::CtPopOp::create(builder, l, t, x), i32);
  case fe::Builtin::Clz: // clz(0) = width: defined, not poison
    return castInt(l, LLVM::CountLeadingZerosOp::create(builder, l, t, x, false), i32);
  // ctz(0) = width: defined, not poison. PTX has no ctz: NVPTX emits
  // popc(~x & (x - 1)) with the zero case apart (LLVM folds clz(brev(x))
  // back into this cttz).
  case fe::Builtin::Ctz:
    return castInt(l, LLVM::CountTrailingZerosOp::create(builder, l, t, x, false), i32);
  case fe::Builtin::Brev:
    return LLVM::BitReverseOp::create(builder, l, t, x);
  case fe::Builtin::MulHi: { // mul.hi.{s,u}{16,32,64}: the high half of the 2N-bit product
    Value y = genExpr(*e.args[1]);
    if (e.type.isUnsigned())
      return arith::MulUIExtendedOp::create(builder, l, x, y).getHigh();
    return arith::MulSIExtendedOp::create(builder, l, x, y).getHigh();
  }
  case fe::Builtin::Bfind: {
    unsigned width = t.getIntOrFloatBitWidth();
    Value y = x;
    if (!e.args[0]->type.isUnsigned()) // the highest bit that differs from the sign
      y = arith::XOrIOp::create(builder, l, x,
                                arith::ShRSIOp::create(builder, l, x, intConst(l, t, width - 1)));
    Value clz = LLVM::CountLeadingZerosOp::create(builder, l, t, y, false);
    Value index = arith::SubIOp::create(builder, l, intConst(l, t, width - 1), clz);
    return castInt(l, index, i32); // -1 .. 63 fits; -1 is 0xffffffff for u32 too
  }
  default:
    return nullptr;
  }
}
