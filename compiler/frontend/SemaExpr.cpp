//===- SemaExpr.cpp - expression typing and literal adaptation -------------===//
//
// Literals are untyped until their context gives them a type: the other
// operand of a binary op, a declared type, an element type, or the defaults
// i32 / f32. There are no other implicit conversions.
//
//===----------------------------------------------------------------------===//
#include "CudaNames.h"
#include "SemaImpl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tile::frontend {

static bool isIntOnly(BinaryOp op) {
  return op == BinaryOp::Rem || op == BinaryOp::Shl || op == BinaryOp::Shr ||
         op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor;
}

Type Sema::infer(ExprPtr &ep) {
  NestingGuard nesting(nesting_);
  // Names were resolved before the statement was checked (resolveNames):
  // nothing here replaces `ep`, so a caller's pointer to *ep stays valid.
  ExprAST &e = *ep;
  size_t errorsBefore = diags_.numErrors();
  if (e.constant) // a constant's value: its type is the constant's
    return e.type;
  if (auto *m = e.as<MemberExpr>(); m && m->base->is<VarRefExpr>())
    if (Decl *d = lookup(m->base->as<VarRefExpr>()->name);
        d && (d->kind == DeclKind::Ring || d->kind == DeclKind::RingStage))
      return e.type = Type::invalid(); // `s.x` that names no tile: resolveRingMember said so
  Type t;
  switch (e.kind()) {
  case ExprAST::IntLiteral:
    t = Type::untypedInt();
    break;
  case ExprAST::FloatLiteral:
    t = Type::untypedFloat();
    break;
  case ExprAST::BoolLiteral:
    t = Type::i1();
    break;
  case ExprAST::VarRef: {
    auto &v = *e.as<VarRefExpr>();
    if (v.ringStageTile) { // `s.a` (resolveRingMember): the stage's tile, decl set
      // A TMA store's read of the slot is async and awaited by the issuing
      // thread (wait_group.read) before its warp's release, like a wgmma
      // read: neither is a generic read.
      if (ringAccess_ && !ringAccess_->isProduce() && !inferringMmaOperand_ &&
          !inferringTmaStoreTile_)
        for (RingAccessStmt *c = ringAccess_; c; c = c->enclosing) // conservative: each
          c->readsStageGenerically = true;
      t = v.decl->type;
      break;
    }
    if (namesValue(v)) { // every entry point resolves names first (SemaResolve.cpp)
      error(v.loc, "internal error: the name '" + v.name + "' was not resolved before checking",
            "this is a compiler bug; please report it with this input");
      break;
    }
    v.decl = lookup(v.name);
    if (v.decl) {
      readDecls_.insert(v.decl);
      if (!assigningVar_)
        noteRoleVarUse(v.decl, v.loc, /*write=*/false);
    }
    if (!v.decl && v.unknownReported)
      break; // said when a call's named arguments were checked (reportUncheckedNames)
    if (!v.decl) {
      v.unknownReported = true;
      if (builtinFromName(v.name) != Builtin::Unknown)
        error(v.loc, "'" + v.name + "' is a builtin function, not a value",
              "call it: `" + v.name + "(...)`");
      else if (auto cuda = cudaVariable(v.name))
        error(v.loc, cudaNameMessage("name", v.name, *cuda), cuda->hint);
      else if (std::optional<std::string> type = typeWordAsValue(v.name))
        error(v.loc, "'" + v.name + "' is a type, not a value", conversionHint(v.name, *type));
      else if (auto foreign = foreignWord(v.name))
        error(v.loc, foreign->message, foreign->hint);
      else if (attrKernel_ &&
               std::any_of(attrKernel_->params.begin(), attrKernel_->params.end(),
                           [&](const auto &d) { return d->name == v.name; }))
        error(v.loc,
              "'" + v.name + "' is a runtime parameter of kernel '" + attrKernel_->name +
                  "': an attribute is fixed in the PTX",
              "use an integer literal, a file-level constant or a compile-time parameter "
              "(`kernel " + attrKernel_->name + "<" + v.name + ": i32>(...)`, chosen with -D)");
      else if (v.name == "_") // `(x, _) = f()`: `_` discards only in a `let`/`var` list
        error(v.loc, "unknown name '_'",
              "`_` skips a value only in a list of new names, `let (a, _) = f(...)` (or `var`); "
              "to assign some of a call's values, bind them all with `let (a, b) = f(...)`, "
              "then `x = a`");
      else if (std::string near = nearestVisibleName(v.name); !near.empty())
        error(v.loc, "unknown name '" + v.name + "'; did you mean '" + near + "'?",
              "declare it with `let`/`var` before use, or add a kernel parameter");
      else
        error(v.loc, "unknown name '" + v.name + "'",
              "declare it with `let`/`var` before use, or add a kernel parameter");
      break;
    }
    if (v.decl->kind == DeclKind::TypeParam) { // a place (`T = 1`) resolveName left alone
      reportTypeAsValue(v, *v.decl);
      break;
    }
    if (v.decl->type.kind == Type::Semaphore) { // only sem[i] in signal/wait
      error(v.loc, "semaphore '" + v.name + "' is not a value",
            "use its counters in `signal(sem[i], n)`, `signal(peer(sem[i], d), n)` and "
            "`wait(sem[i], v)`");
      break;
    }
    t = v.decl->type;
    break;
  }
  case ExprAST::Unary:
    t = inferUnary(*e.as<UnaryExpr>());
    break;
  case ExprAST::Binary:
    t = inferBinary(*e.as<BinaryExpr>());
    break;
  case ExprAST::Cast:
    t = inferCast(*e.as<CastExpr>());
    break;
  case ExprAST::Index:
    t = inferIndex(*e.as<IndexExpr>(), IndexUse::Load);
    break;
  case ExprAST::Member:
    t = inferMember(*e.as<MemberExpr>());
    break;
  case ExprAST::Call:
    t = inferCall(*e.as<CallExpr>());
    reportUncheckedNames(*e.as<CallExpr>()); // SemaResolve.cpp
    break;
  case ExprAST::Select:
    t = inferSelect(*e.as<SelectExpr>());
    break;
  case ExprAST::Vector:
    t = checkVectorLiteral(*e.as<VectorExpr>(), nullptr);
    break;
  }
  if (t.isInvalid() && diags_.numErrors() == errorsBefore && !uncheckedExpr_)
    uncheckedExpr_ = e.loc;
  ep->type = t;
  checkDistributedThreads(*ep); // SemaMma.cpp: a fragment outside whole warpgroups
  return t;
}

Type Sema::checkValue(ExprPtr &e, const Type *expected, const std::string &what,
                      const std::string &hint) {
  if (auto *vec = e->as<VectorExpr>(); vec && expected && expected->isVector())
    return checkVectorLiteral(*vec, expected);
  Type t = infer(e);
  if (t.isInvalid())
    return t;
  if (!expected)
    return t.isUntyped() ? finalize(e) : t;
  if (expected->isInvalid()) {
    abandonUntyped(e);
    return Type::invalid();
  }
  // A scalar of a distributed value's element type stands for every element
  // (`var m: per_row<f32>[128] = -inf`; MLIRGen splats it where it is bound).
  if (expected->isDistributed() && !expected->isMask() && (t.isUntyped() || t.isScalar())) {
    Type elem = Type::scalarTy(expected->scalar);
    if (t.isUntyped())
      return adapt(e, elem) ? *expected : Type::invalid();
    if (t == elem)
      return *expected;
  }
  if (t.isUntyped())
    return adapt(e, *expected) ? *expected : Type::invalid();
  if (std::optional<bool> converted = arrayAsPointer(*e, t, *expected, what))
    return *converted ? *expected : Type::invalid();
  if (t != *expected) {
    std::string h = hint.empty() ? "convert explicitly with `as`" : hint;
    if (expected->isScalar())
      h = nonScalarHint(t, h);
    else if (t.kind == expected->kind && (t.dims != expected->dims || t.lanes != expected->lanes) &&
             (t.isDistributed() || t.isVector()))
      h = std::string("the shapes differ, and `as` converts only the element type") +
          (t.isFragment() && t.dims[0] == expected->dims[0] && t.dims[1] > expected->dims[1]
               ? ": take columns with `cols(f, j, " + std::to_string(expected->dims[1]) + ")`"
               : "");
    error(e->loc, what + " has type " + t.str() + ", expected " + expected->str(), h);
    return Type::invalid();
  }
  return t;
}

Type Sema::finalize(ExprPtr &e) {
  if (!e->type.isUntyped())
    return e->type;
  Type to = Type::scalarTy(e->type.kind == Type::UntypedFloat ? ScalarKind::F32 : ScalarKind::I32);
  return adapt(e, to) ? to : Type::invalid();
}

std::string floatRangeHint(ScalarKind k) {
  char max[32];
  std::snprintf(max, sizeof max, "%.9g", largestFinite(k));
  return std::string("the largest finite ") + scalarName(k) + " is " + max +
         (k == ScalarKind::F64   ? ""
          : k == ScalarKind::F32 ? "; use f64 for larger values"
                                 : "; use f32 for larger values");
}

bool Sema::adapt(ExprPtr &ep, const Type &to) {
  ExprAST &e = *ep;
  if (!e.type.isUntyped())
    return true;
  // Whether e is an operand of literal arithmetic whose exact value is
  // checked at its root (checkLiteralArithmeticFits): only the whole value
  // must fit, as wrapping + - * << give the exact value whenever it does.
  struct ExactOperand {
    bool &flag;
    bool outer;
    explicit ExactOperand(bool &f) : flag(f), outer(std::exchange(f, false)) {}
    ~ExactOperand() { flag = outer; }
  } exactOperand(adaptingExactOperand_);
  switch (e.kind()) {
  case ExprAST::IntLiteral:
    return adaptIntLiteral(ep, to); // SemaLiterals.cpp
  case ExprAST::FloatLiteral: {
    auto &lit = *e.as<FloatLiteralExpr>();
    if (to.isScalar() && isFp8Kind(to.scalar)) {
      error(e.loc, std::string("float literal cannot be used as ") + to.str(),
            std::string("fp8 has no literals: convert an f32, `1.5 as ") + scalarName(to.scalar) +
                "`");
      e.type = Type::invalid();
      return false;
    }
    if (!to.isFloat()) {
      error(e.loc, "float literal cannot be used as " + to.str(),
            to.isInteger() ? "write an integer literal, or convert with `as`"
                           : "only scalars have literals");
      e.type = Type::invalid();
      return false;
    }
    // The value of `to` nearest to the literal (ties to even); an error
    // only when that rounds past the largest finite value.
    // inf and nan (SemaResolve.cpp) are values of every float type.
    std::optional<double> v = to.isScalar(ScalarKind::F64) ? std::optional<double>(lit.nearest)
                              : !std::isfinite(lit.value) ? std::optional<double>(lit.value)
                                                          : roundToFloatKind(lit.value, to.scalar);
    if (!v) {
      error(e.loc, "float literal is out of range for " + to.str(), floatRangeHint(to.scalar));
      e.type = Type::invalid();
      return false;
    }
    // A nonzero literal below half the smallest subnormal would silently be 0.
    if (*v == 0 && lit.value != 0) {
      // Its value when a double holds it well (not `1e-999`: below every double).
      bool shown = std::fabs(lit.nearest) >= std::ldexp(1.0, -1022);
      char spelled[32], least[32];
      std::snprintf(spelled, sizeof spelled, "%.9g ", lit.nearest);
      int leastExponent = to.isScalar(ScalarKind::F16)    ? -24
                          : to.isScalar(ScalarKind::BF16) ? -133
                          : to.isScalar(ScalarKind::F32)  ? -149
                                                          : -1074;
      std::snprintf(least, sizeof least, "%.9g", std::ldexp(1.0, leastExponent));
      error(e.loc,
            std::string("float literal ") + (shown ? spelled : "") + "rounds to 0 in " + to.str(),
            "the smallest nonzero " + to.str() + " is " + least + "; write 0.0 for zero" +
                (to.isScalar(ScalarKind::F64)   ? std::string()
                 : to.isScalar(ScalarKind::F32) ? ", or use f64"
                                                : ", or use f32"));
      e.type = Type::invalid();
      return false;
    }
    lit.value = *v;
    e.type = to;
    return true;
  }
  case ExprAST::Unary: {
    auto &u = *e.as<UnaryExpr>();
    adaptingExactOperand_ = u.op == UnaryOp::Neg;
    bool adapted = adapt(u.operand, to);
    adaptingExactOperand_ = false;
    if (!adapted) {
      e.type = Type::invalid();
      return false;
    }
    if (u.op == UnaryOp::BitNot && !to.isInteger()) {
      error(e.loc, "'~' needs an integer operand, found " + to.str(),
            "bitwise operators apply to integers");
      e.type = Type::invalid();
      return false;
    }
    e.type = to;
    if (!adaptingCastOperand_ && !exactOperand.outer &&
        !checkLiteralArithmeticFits(e)) { // SemaLiterals.cpp
      e.type = Type::invalid();
      return false;
    }
    return true;
  }
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    bool amount = isShift(b.op) && to.isScalar() && to.isInteger() && !to.isBool();
    bool exact = b.op == BinaryOp::Add || b.op == BinaryOp::Sub || b.op == BinaryOp::Mul ||
                 b.op == BinaryOp::Shl;
    adaptingExactOperand_ = exact;
    bool ok = adapt(b.lhs, to);
    adaptingExactOperand_ = exact && !amount; // a shift amount is a value of its own
    if (!ok) // one error per operator: the first operand that does not fit
      abandonUntyped(b.rhs);
    else
      ok = adapt(b.rhs, amount ? literalShiftAmountType(*b.rhs, to) : to);
    adaptingExactOperand_ = false;
    if (ok)
      ok = checkBinaryOperands(b.op, to, b.loc);
    e.type = ok ? to : Type::invalid();
    if (ok && !adaptingCastOperand_ && !exactOperand.outer &&
        !checkLiteralArithmeticFits(e)) { // SemaLiterals.cpp
      e.type = Type::invalid();
      return false;
    }
    return ok;
  }
  case ExprAST::Select: { // `c ? 1 : 2`: both sides take the type
    auto &sel = *e.as<SelectExpr>();
    bool ok = adapt(sel.trueValue, to);
    if (!ok)
      abandonUntyped(sel.falseValue);
    else
      ok = adapt(sel.falseValue, to);
    e.type = ok ? to : Type::invalid();
    return ok;
  }
  default:
    e.type = to;
    return true;
  }
}

bool Sema::checkHasValue(const ExprAST &e, const Type &t, const std::string &what) {
  if (t.kind != Type::Void)
    return true;
  error(e.loc, what + " is a call that returns no value",
        "a call that returns no value is a statement: call it on its own line");
  return false;
}

Type Sema::unify(ExprPtr &lhs, ExprPtr &rhs, const Location &loc, const std::string &what) {
  Type l = infer(lhs), r = infer(rhs);
  // One side a call without a value (both: the caller names the type).
  bool values = (l.kind == Type::Void) == (r.kind == Type::Void) ||
                (checkHasValue(*lhs, l, "one of " + what) && checkHasValue(*rhs, r, "one of " + what));
  if (!values || l.isInvalid() || r.isInvalid()) {
    abandonUntyped(lhs);
    abandonUntyped(rhs);
    return Type::invalid();
  }
  if (l.isUntyped() && r.isUntyped())
    return (l.kind == Type::UntypedFloat || r.kind == Type::UntypedFloat) ? Type::untypedFloat()
                                                                          : Type::untypedInt();
  // A literal beside a fragment, vector or array (`0 .. acc`, `c ? 0 : acc`):
  // the caller reports the other side's kind, which is the mistake.
  if (l.isUntyped() && !r.isScalar() && !r.isPointer()) {
    finalize(lhs);
    return r;
  }
  if (r.isUntyped() && !l.isScalar() && !l.isPointer()) {
    finalize(rhs);
    return l;
  }
  if (l.isUntyped())
    return adapt(lhs, r) ? r : Type::invalid();
  if (r.isUntyped())
    return adapt(rhs, l) ? l : Type::invalid();
  if (l != r) {
    error(loc, "mismatched types " + l.str() + " and " + r.str() + " in " + what,
          "convert one side with `as`, e.g. `... as " +
              std::string(l.isScalar() && r.isScalar() && bitWidth(r.scalar) > bitWidth(l.scalar)
                              ? scalarName(r.scalar)
                          : l.isScalar() ? scalarName(l.scalar)
                                         : "i32") +
              "`");
    return Type::invalid();
  }
  return l;
}

bool Sema::checkBinaryOperands(BinaryOp op, const Type &t, const Location &loc) {
  std::string sp = binaryOpSpelling(op);
  if (t.isInvalid())
    return false;
  if (!checkNotFp8(loc, t, sp))
    return false;
  if (t.kind == Type::UntypedFloat && isIntOnly(op)) {
    error(loc, "'" + sp + "' needs integer operands, found a float literal",
          "bitwise, shift and '%' operators apply to integers");
    return false;
  }
  if (t.isUntyped())
    return true;
  if (!t.isScalar()) {
    error(loc, "'" + sp + "' cannot be applied to " + t.str(),
          t.isPointer() ? "only `pointer + integer` is defined on pointers"
                        : "operators apply to scalars");
    return false;
  }
  if (op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr) {
    if (!t.isBool()) {
      error(loc, "'" + sp + "' needs i1 operands, found " + t.str(),
            "compare explicitly, e.g. `x != 0`");
      return false;
    }
    return true;
  }
  if (op == BinaryOp::Eq || op == BinaryOp::Ne)
    return true;
  if (isIntOnly(op)) {
    if (!t.isInteger()) {
      error(loc, "'" + sp + "' needs integer operands, found " + t.str(),
            "bitwise, shift and '%' operators apply to integers");
      return false;
    }
    if (t.isBool() && (op == BinaryOp::Rem || op == BinaryOp::Shl || op == BinaryOp::Shr)) {
      error(loc, "'" + sp + "' cannot be applied to i1", "convert first: `b as i32`");
      return false;
    }
    return true;
  }
  // Arithmetic and ordering comparisons.
  if (t.isBool()) {
    error(loc, "'" + sp + "' cannot be applied to i1",
          "use && || ! on booleans, or convert: `b as i32`");
    return false;
  }
  return true;
}

Type Sema::inferUnary(UnaryExpr &e) {
  Type t = infer(e.operand);
  if (t.isInvalid())
    return t;
  std::string sp = unaryOpSpelling(e.op);
  if (!checkHasValue(*e.operand, t, "the operand of '" + sp + "'"))
    return Type::invalid();
  switch (e.op) {
  case UnaryOp::Not:
    if (t.isUntyped() || !t.isBool()) {
      abandonUntyped(e.operand);
      error(e.loc,
            "'!' needs an i1 operand, found " + (t.isUntyped() ? std::string("a number") : t.str()),
            "compare explicitly, e.g. `x == 0`; use '~' for bitwise not");
      return Type::invalid();
    }
    return t;
  case UnaryOp::BitNot:
    if (t.kind == Type::UntypedFloat || (!t.isUntyped() && !t.isInteger())) {
      abandonUntyped(e.operand);
      error(e.loc, "'~' needs an integer operand, found " + t.str(),
            "bitwise operators apply to integers");
      return Type::invalid();
    }
    return t;
  case UnaryOp::Neg:
    if (!checkNotFp8(e.loc, t, sp))
      return Type::invalid();
    if (t.isUntyped() || (t.isVector() && isFloatKind(t.scalar)) ||
        (t.isDistributed() && !t.isMask()))
      return t;
    if (!t.isScalar() || t.isBool()) {
      error(e.loc, "'-' cannot be applied to " + t.str(),
            "negation applies to integers and floats");
      return Type::invalid();
    }
    return t;
  }
  return Type::invalid();
}

Type Sema::inferBinary(BinaryExpr &e) {
  std::string sp = binaryOpSpelling(e.op);
  if (e.op == BinaryOp::LogicalAnd || e.op == BinaryOp::LogicalOr) {
    Type b = Type::i1();
    Type l = checkValue(e.lhs, &b, "operand of '" + sp + "'", "compare explicitly, e.g. `x != 0`");
    Type r = checkValue(e.rhs, &b, "operand of '" + sp + "'", "compare explicitly, e.g. `x != 0`");
    return l.isInvalid() || r.isInvalid() ? Type::invalid() : b;
  }
  // `v * {2.0, 2.0}`: a vector literal of literals takes the other
  // operand's vector type, as a literal takes a scalar's (f16x2 included).
  if (isLiteralVector(*e.lhs) != isLiteralVector(*e.rhs)) {
    bool litLeft = isLiteralVector(*e.lhs);
    ExprPtr &lit = litLeft ? e.lhs : e.rhs;
    Type o = infer(litLeft ? e.rhs : e.lhs);
    Type v = o.isVector() && o.lanes == (int)lit->as<VectorExpr>()->elems.size()
                 ? checkValue(lit, &o, "")
                 : infer(lit);
    Type l = litLeft ? v : o, r = litLeft ? o : v;
    if (l.isDistributed() || r.isDistributed())
      return checkFragmentBinary(e, l, r);
    return checkVectorBinary(e, l, r);
  }
  // Pointer arithmetic: p + i, p - i.
  Type l = infer(e.lhs);
  if (l.isPointer() && (e.op == BinaryOp::Add || e.op == BinaryOp::Sub)) {
    Type r = infer(e.rhs);
    if (r.isUntyped())
      r = finalize(e.rhs);
    if (r.isInvalid())
      return Type::invalid();
    if (!r.isInteger() || r.isBool()) {
      error(e.rhs->loc, "pointer offset must be an integer, found " + r.str(),
            "write `p + i` with an integer i");
      return Type::invalid();
    }
    return l;
  }
  // infer() is idempotent on names and literals but re-checking a subtree
  // would duplicate diagnostics, so unify works on the already-typed lhs.
  Type r = infer(e.rhs);
  if (l.isDistributed() || r.isDistributed()) // SemaFragment.cpp
    return checkFragmentBinary(e, l, r);
  if (l.isVector() || r.isVector())
    return checkVectorBinary(e, l, r);
  Type t;
  if (l.isInvalid() || r.isInvalid()) {
    abandonUntyped(e.lhs);
    abandonUntyped(e.rhs);
    return Type::invalid();
  }
  if (r.isPointer() && e.op == BinaryOp::Add && (l.isInteger() || l.isUntyped())) {
    error(e.loc, "pointer arithmetic is written `pointer + integer`", "swap the operands: `p + i`");
    return Type::invalid();
  }
  // Arrays, views, mbarriers and pointers (beyond p + i) are no operands:
  // say so before literal adaptation or type unification would report a
  // literal that "cannot be used as shared<i32>[4]".
  for (const Type *side : {&l, &r}) {
    if (side->isScalar() || side->isUntyped())
      continue;
    abandonUntyped(e.lhs);
    abandonUntyped(e.rhs);
    if (!checkHasValue(side == &l ? *e.lhs : *e.rhs, *side, "an operand of '" + sp + "'"))
      return Type::invalid();
    bool barrier = side->kind == Type::MBarrier || side->kind == Type::MBarrierArray;
    bool view = side->kind == Type::SharedArray || side->kind == Type::ArrayView;
    auto *named = e.lhs->as<VarRefExpr>();
    std::string a = named && named->decl ? named->decl->name : "a";
    error(e.loc, "'" + sp + "' cannot be applied to " + side->str(),
          side->isPointer() && isComparison(e.op)
              ? "pointers are not compared: compare their addresses as integers, `p as u64 " +
                    sp + " q as u64`, of two pointers into one address space"
          : side->isPointer()
              ? "only `pointer + integer` and `pointer - integer` are defined on pointers"
          : barrier ? "mbarriers are used only through arrive, wait, expect_tx and remote"
          : view && side == &l && (e.op == BinaryOp::Add || e.op == BinaryOp::Sub)
              ? "index the array first, e.g. `" + a + "[i] + 1`; the pointer to element i is `(" +
                    a + " as ptr<" +
                    scalarName(side->scalar) + ", " +
                    spaceName(side->kind == Type::SharedArray ? AddressSpace::Shared
                                                              : side->space) +
                    ">) + i`"
              : "index the array first, e.g. `a[i] + 1`");
    return Type::invalid();
  }
  if (l.isUntyped() && r.isUntyped())
    t = (l.kind == Type::UntypedFloat || r.kind == Type::UntypedFloat) ? Type::untypedFloat()
                                                                       : Type::untypedInt();
  else if ((l.isUntyped() || r.isUntyped()) && widenOutOfRangeComparison(e, l, r, t))
    ; // SemaLiterals.cpp
  else if (l.kind == Type::UntypedInt && isShift(e.op) && r.isScalar() && r.isInteger() &&
           !r.isBool())
    // `1 << n`: the amount does not type the value. The literal takes the
    // context's type, or i32 without one, as `let x = 1` does (not n's:
    // `1 << n` with `n: u8` would be 0 from n = 8 on).
    return checkBinaryOperands(e.op, r, e.rhs->loc) ? Type::untypedInt() : Type::invalid();
  else if (l.isUntyped())
    t = adapt(e.lhs, r) ? r : Type::invalid();
  else if (r.kind == Type::UntypedInt && isShift(e.op) && l.isScalar() && l.isInteger() &&
           !l.isBool())
    t = adapt(e.rhs, literalShiftAmountType(*e.rhs, l)) ? l : Type::invalid();
  else if (r.isUntyped())
    t = adapt(e.rhs, l) ? l : Type::invalid();
  else if (l != r && isShift(e.op) && l.isScalar() && r.isScalar() && l.isInteger() &&
           r.isInteger())
    // The amount is a count, not a second operand of the value's type: any
    // integer type (read unsigned), the result the value's type.
    t = checkBinaryOperands(e.op, r, e.rhs->loc) ? l : Type::invalid();
  else if (l != r && isShift(e.op) && l.isScalar() && l.isInteger() && !l.isBool()) {
    error(e.rhs->loc, "shift amount must be an integer, found " + r.str(),
          nonScalarHint(r, "convert it with `as`, e.g. `... as u32`"));
    return Type::invalid();
  } else if (l != r) {
    error(e.loc, "mismatched operand types " + l.str() + " and " + r.str() + " for '" + sp + "'",
          l.isScalar() && r.isScalar()
              ? "convert one side with `as`, e.g. `... as " +
                    std::string(scalarName(bitWidth(l.scalar) >= bitWidth(r.scalar) ? l.scalar
                                                                                    : r.scalar)) +
                    "`"
              : "operators apply to scalars of one type");
    return Type::invalid();
  } else
    t = l;
  if (t.isInvalid())
    return t;
  if (isComparison(e.op)) {
    if (t.isUntyped()) {
      t = finalize(e.lhs);
      finalize(e.rhs);
      if (t.isInvalid())
        return t;
    }
    return checkBinaryOperands(e.op, t, e.loc) ? Type::i1() : Type::invalid();
  }
  return checkBinaryOperands(e.op, t, e.loc) ? t : Type::invalid();
}

Type Sema::inferCast(CastExpr &e) {
  if (!resolveTypeExtents(e.target)) {
    resolveOnly(e.operand);
    return Type::invalid();
  }
  Type to = e.target.type;
  if (std::optional<Type> lit = checkLiteralVectorCast(e, to))
    return lit->isInvalid() ? *lit : checkVectorCast(e, *lit, to);
  Type from = infer(e.operand);
  // The operand's error was reported: the cast of it is no value either
  // (as the target type, a cast of a failed fragment would read as a
  // scalar to the store or mma that takes it, a second error).
  if (from.isInvalid())
    return Type::invalid();
  if (from.isDistributed() || to.isDistributed()) // SemaFragment.cpp
    return checkFragmentCast(e, from, to);
  if (from.isVector() || to.isVector()) {
    if (from.isUntyped())
      finalize(e.operand);
    return checkVectorCast(e, from, to);
  }
  if (from.isPointer() || to.isPointer())
    return checkPointerCast(e, from, to);
  if (!to.isScalar()) {
    error(e.target.loc, "cannot cast to " + to.str(), "casts convert between scalar types");
    return Type::invalid();
  }
  if (from.isUntyped()) {
    // A float literal cast to a float type takes that type itself: one
    // rounding (`0.1 as f64` is the nearest double, not the nearest f32
    // widened; `1.000488281251 as f16` the nearest f16, not 1.0 through the
    // f32 tie), and out of range is an error as in `let h: f16 = 70000.0`.
    Type lit =
        (from.kind == Type::UntypedFloat && to.isFloat() && !isFp8Kind(to.scalar)) ? to
        : (from.kind == Type::UntypedFloat || to.isBool() || isFp8Kind(to.scalar))
            ? Type::scalarTy(from.kind == Type::UntypedInt && !isFp8Kind(to.scalar)
                                 ? ScalarKind::I32
                                 : ScalarKind::F32)
            : to;
    // `(1 << n) as f64`: a shift's value is an integer, the i32 that a
    // context-free `1 << n` is, converted.
    if (auto *b = e.operand->as<BinaryExpr>();
        b && isShift(b->op) && !b->rhs->type.isUntyped() && !lit.isInteger())
      lit = Type::i32();
    if (auto *l = e.operand->as<IntLiteralExpr>())
      l->castOperand = true; // `200 as i8`: explicit, may wrap (adapt)
    bool wasCast = adaptingCastOperand_;
    adaptingCastOperand_ = true; // `(100 + 100) as i8` wraps as C's cast would: no error
    bool adapted = adapt(e.operand, lit);
    adaptingCastOperand_ = wasCast;
    if (!adapted)
      return Type::invalid();
    from = lit;
  }
  if (!checkHasValue(*e.operand, from, "the operand of `as`"))
    return Type::invalid();
  if (!from.isScalar()) {
    error(e.loc, "cannot cast " + from.str() + " to " + to.str(),
          "casts convert between scalar types");
    return Type::invalid();
  }
  if (to.isBool() && !from.isBool()) {
    error(e.loc, "cannot cast " + from.str() + " to i1", "compare instead, e.g. `x != 0`");
    return Type::invalid();
  }
  if (from.isBool() && to.isFloat()) {
    error(e.loc, "cannot cast i1 to " + to.str(),
          "convert through an integer: `(b as i32) as f32`");
    return Type::invalid();
  }
  if (!checkFp8Cast(e.loc, from.scalar, to.scalar))
    return Type::invalid();
  return to;
}

/// Any constant index (`4`, `2 + 2`, `1 << 2`), not only a literal, into an
/// array of constant length must be in bounds; a negative one always is wrong.
bool Sema::checkConstantIndex(IndexExpr &e, const Type &base) {
  if (base.isPointer())
    return true; // pointers carry no length; p[-1] may be meaningful
  bool overflow = false;
  std::optional<int64_t> i = foldConstant(*e.index, overflow);
  if (overflow) {
    error(e.index->loc, "index overflows", "use an index inside the array");
    return false;
  }
  if (!i || (*i >= 0 && (!base.staticLength || *i < *base.staticLength)))
    return true;
  error(e.index->loc, "index " + std::to_string(*i) + " is out of bounds for " + base.str(),
        base.staticLength ? "valid indices are 0 .. " + std::to_string(*base.staticLength - 1)
                          : std::string("indices start at 0"));
  return false;
}

Type Sema::inferIndex(IndexExpr &e, IndexUse use) {
  e.use = use;
  if (isTensorElement(e)) // SemaPeer.cpp: A[i, j] / peer(A, d)[i, j], A symmetric
    return checkTensorElement(e);
  Type base = infer(e.base);
  if (!e.laneName.empty() && !base.isInvalid() && !checkLaneTarget(e, base))
    return Type::invalid();
  if (!e.moreIndices.empty() || (base.dims.size() > 1 && !base.isDistributed()) || base.isTensor())
    return inferIndexNd(e, base);
  Type idx = infer(e.index);
  if (idx.isUntyped())
    idx = finalize(e.index);
  if (base.isInvalid())
    return Type::invalid();
  if (base.isVector())
    return inferVectorLane(e, base, idx);
  if (base.kind == Type::MBarrierArray) {
    // `slots[i]` names one mbarrier: only its address is ever used.
    e.use = IndexUse::Address;
    e.space = AddressSpace::Shared;
    if (idx.isInvalid())
      return Type::invalid();
    if (!idx.isInteger() || idx.isBool()) {
      error(e.index->loc, "index must be an integer, found " + idx.str(),
            nonScalarHint(idx, "convert it with `as i32` or `as i64`"));
      return Type::invalid();
    }
    if (!checkConstantIndex(e, base))
      return Type::invalid();
    return Type::mbarrier(AddressSpace::Shared);
  }
  if (!base.isIndexable()) {
    auto *inner = e.base->as<IndexExpr>();
    error(e.loc, "cannot index a value of type " + base.str(),
          inner && inner->moreIndices.empty() && base.isScalar()
              ? "C's `t[i][j]` is `t[i, j]`: one index list for every dimension of an array"
              : elementAccessHint(
                    base, "only pointers, shared arrays, views and dshared arrays can be indexed"));
    return Type::invalid();
  }
  if (!idx.isInvalid() && (!idx.isInteger() || idx.isBool())) {
    error(e.index->loc, "index must be an integer, found " + idx.str(),
          nonScalarHint(idx, "convert it with `as i32` or `as i64`"));
    return Type::invalid();
  }
  switch (base.kind) {
  case Type::Pointer:
    e.space = base.space;
    break;
  case Type::SharedArray:
    e.space = AddressSpace::Shared;
    break;
  case Type::ArrayView:
    e.space = base.space;
    break;
  case Type::LocalArray:
    e.space = AddressSpace::Local;
    break;
  default:
    e.space = AddressSpace::Cluster;
    break; // DistArray
  }
  if (e.space == AddressSpace::Cluster && !requireCluster(e.loc, "access to cluster shared memory"))
    return Type::invalid();
  if (idx.isInvalid())
    return Type::invalid();
  if (!checkConstantIndex(e, base))
    return Type::invalid();
  return Type::scalarTy(base.scalar);
}

} // namespace tile::frontend
