//===- MLIRGenAbstr.cpp - local arrays, unrolled loops, inlined functions ===//
//
// All three are expanded here, in the tile IR, so that the sync
// passes and the local-array check see the code as it runs:
//  - `local<T>[N]`: one tile.local_array in the entry block (an alloca that
//    SROA splits when every index is constant), zeroed where it is declared;
//  - `for ... unroll`: the body once per value of the loop variable, which is
//    a constant in each copy; `unroll(F)`: an scf.for whose body holds F
//    copies, then a remainder loop;
//  - a `fn` call: the body (checked at this call by Sema) with its parameters
//    bound to the argument values, its own "returned" flag and result slot;
//    its ops are located at CallSiteLoc(position in the function,
//    NameLoc(function name, call)).
//
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

namespace {
/// Above this many elements the zeroing is a loop (SROA then leaves the
/// array in local memory anyway, as its indices cannot all be constant).
constexpr int64_t kUnrolledZeroing = 256; // named in the warning of CheckLocalArrays.cpp
} // namespace

void MLIRGenImpl::genLocalArray(const fe::LocalArrayStmt &s) {
  Location l = loc(s.loc);
  Type elem = scalarType(s.elem.type.scalar);
  auto ptrType = PtrType::get(builder.getContext(), elem, AddressSpace::local);
  Value base;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    base = LocalArrayOp::create(builder, l, ptrType, builder.getI64IntegerAttr(s.length),
                                builder.getStringAttr(s.decl->name));
  }
  // Zero-initialised where it is declared (each time the declaration runs):
  // reading an element before writing it is defined. Stores SROA folds away
  // when the element is written first.
  Value zero =
      isa<FloatType>(elem)
          ? Value(arith::ConstantOp::create(builder, l, elem, builder.getFloatAttr(elem, 0)))
          : intConst(l, elem, 0);
  Type i32 = builder.getI32Type();
  if (s.length <= kUnrolledZeroing) {
    for (int64_t i = 0; i < s.length; ++i)
      storeWeak(l, zero, PtrAddOp::create(builder, l, ptrType, base, intConst(l, i32, i)));
  } else {
    Value lower = intConst(l, i32, 0), upper = intConst(l, i32, s.length),
          step = intConst(l, i32, 1);
    auto loop = scf::ForOp::create(builder, l, lower, upper, step);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(loop.getBody()->getTerminator());
    storeWeak(l, zero, PtrAddOp::create(builder, l, ptrType, base, loop.getInductionVar()));
  }
  views[s.decl.get()] = {base, intConst(l, i32, s.length)};
}

Value MLIRGenImpl::genLocalAddress(const fe::IndexExpr &e) {
  Value base = genView(*e.base).ptr;
  Value index = genExpr(*e.index);
  return PtrAddOp::create(builder, loc(e.index->loc), base.getType(), base, index);
}

void MLIRGenImpl::genUnrolledCopies(const fe::ForStmt &s, size_t from) {
  Location l = loc(s.loc);
  Type varType = scalarType(s.loopVar->type.scalar);
  bool mayReturn = returnedFlag && blockMayReturn(s.body);
  // A triangular loop: its values in this copy of the enclosing unrolled
  // loops, whose variables are constants here (Sema found each copy's).
  std::vector<int64_t> outer;
  for (const fe::Decl *d : s.unrollDeps) {
    APInt v;
    bool constant = matchPattern(values.lookup(d), m_ConstantInt(&v));
    assert(constant && "an enclosing unrolled loop's variable is a constant");
    (void)constant;
    outer.push_back(d->type.isUnsigned() ? int64_t(v.getZExtValue()) : v.getSExtValue());
  }
  const std::vector<int64_t> &copies = s.unrolledValuesFor(outer);
  for (size_t k = from; k < copies.size(); ++k) {
    values[s.loopVar.get()] = intConst(l, varType, copies[k]);
    genBlock(s.body, 0);
    if (mayReturn && k + 1 < copies.size()) {
      // Later copies run only while the thread has not returned.
      auto guard = scf::IfOp::create(builder, l, notReturned(l), /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPoint(guard.thenBlock()->getTerminator());
      genUnrolledCopies(s, k + 1);
      return;
    }
  }
}

void MLIRGenImpl::genUnrolledFor(const fe::ForStmt &s) {
  if (s.unrollFull)
    return genUnrolledCopies(s, 0);
  // unroll(F): the iteration space of loopBounds (step 1, from `lower` while
  // below `upper`) as n = upper - lower iterations, counted unsigned from 0:
  // a main loop over the first n - n % F by F (F copies of the body each),
  // then the remaining n % F one at a time. Every count stays within
  // 0 .. n, so nothing wraps; the loop variable of iteration k is
  // loopVar(lower + k), exact in the type's arithmetic.
  Location l = loc(s.loc);
  LoopBounds bounds = loopBounds(s);
  const fe::Decl *var = s.loopVar.get();
  Type t = bounds.lower.getType();
  Value zero = intConst(l, t, 0);
  Value below = arith::CmpIOp::create(
      builder, l, bounds.isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      bounds.lower, bounds.upper);
  Value distance = arith::SubIOp::create(builder, l, bounds.upper, bounds.lower);
  Value n = arith::SelectOp::create(builder, l, below, distance, zero);
  Value factor = intConst(l, t, s.unrollFactorValue);
  Value rest = arith::RemUIOp::create(builder, l, n, factor);
  Value mainEnd = arith::SubIOp::create(builder, l, n, rest);
  auto iteration = [&](Value k) {
    values[var] = bounds.loopVar(arith::AddIOp::create(builder, l, bounds.lower, k));
    genBlock(s.body, 0);
  };
  {
    auto loop = scf::ForOp::create(builder, l, zero, mainEnd, factor, ValueRange{}, nullptr,
                                   /*unsignedCmp=*/true);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(loop.getBody()->getTerminator());
    for (int64_t j = 0; j < s.unrollFactorValue; ++j) {
      Value k = loop.getInductionVar();
      if (j)
        k = arith::AddIOp::create(builder, l, k, intConst(l, t, j));
      iteration(k);
    }
  }
  auto tail = scf::ForOp::create(builder, l, mainEnd, n, intConst(l, t, 1), ValueRange{}, nullptr,
                                 /*unsignedCmp=*/true);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(tail.getBody()->getTerminator());
  iteration(tail.getInductionVar());
}

Value MLIRGenImpl::genInlinedCall(const fe::CallExpr &e) {
  SmallVector<Value> values = genInlinedCallValues(e);
  return e.inlined->results.empty() && !values.empty() ? values[0] : Value();
}

SmallVector<Value> MLIRGenImpl::genInlinedCallValues(const fe::CallExpr &e) {
  const fe::InlinedCall &in = *e.inlined;
  Location callLoc = loc(e.loc);
  // Arguments in order, in the caller's context.
  for (size_t i = 0; i < in.params.size(); ++i) {
    const fe::Decl *p = in.params[i].get();
    if (p->type.isPassedByValue())
      values[p] = bindValue(callLoc, genExpr(*e.args[i]), p->type);
    else
      views[p] = genView(*e.args[i]);
  }
  Value outerFlag = returnedFlag;
  SmallVector<Value> outerResults = std::move(resultSlots);
  std::optional<Location> outerSite = callSite;
  // The call site carries the function's name (a NameLoc around it): a
  // diagnostic in the body names the call as "the call of 'f'".
  callSite = NameLoc::get(builder.getStringAttr(in.fn->name), callLoc);
  returnedFlag = nullptr;
  resultSlots.clear();
  Location l = loc(in.fn->loc);
  if (blockMayReturn(in.body)) {
    returnedFlag = newExitFlag(l);
    storeWeak(l, boolConst(l, false), returnedFlag);
  }
  // One slot per result, as for a single one: `return` stores, the end of
  // the inlined body loads (SROA keeps them in registers).
  if (in.result.isPassedByValue())
    resultSlots.push_back(newSlot(l, valueType(in.result)));
  for (const fe::Type &t : in.results)
    resultSlots.push_back(newSlot(l, valueType(t)));
  genBlock(in.body, 0);
  SmallVector<Value> results;
  for (Value slot : resultSlots)
    results.push_back(loadWeak(callLoc, slot));
  returnedFlag = outerFlag;
  resultSlots = std::move(outerResults);
  callSite = outerSite;
  return results;
}

void MLIRGenImpl::genReturn(const fe::ReturnStmt &s) {
  Location l = loc(s.loc);
  SmallVector<Value> returned;
  if (!s.values.empty()) {
    for (const fe::ExprPtr &v : s.values)
      returned.push_back(genExpr(*v));
  } else if (auto *call = s.value ? s.value->as<fe::CallExpr>() : nullptr;
             call && call->inlined && !call->inlined->results.empty()) {
    returned = genInlinedCallValues(*call); // `return g(...)` of g's several values
  } else if (s.value && !resultSlots.empty()) {
    returned.push_back(genExpr(*s.value));
  }
  for (size_t i = 0; i < returned.size() && i < resultSlots.size(); ++i) {
    Value v = returned[i];
    Type want = cast<PtrType>(resultSlots[i].getType()).getElementType();
    if (isa<FragType, PerRowType, PerColType>(want) && v.getType() != want)
      v = FragSplatOp::create(builder, l, want, v); // a scalar returned as a distributed value
    storeWeak(l, v, resultSlots[i]);
  }
  storeWeak(l, boolConst(l, true), returnedFlag);
}

void MLIRGenImpl::genTupleLet(const fe::LetStmt &s) {
  SmallVector<Value> results = genInlinedCallValues(*s.init->as<fe::CallExpr>());
  for (size_t i = 0; i < s.tupleDecls.size() && i < results.size(); ++i) {
    const fe::Decl *d = s.tupleDecls[i].get();
    if (d->name != "_")
      bindLetDecl(d, results[i], loc(d->loc));
  }
}
