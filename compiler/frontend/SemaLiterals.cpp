//===- SemaLiterals.cpp - comparisons with a literal out of range ---------===//
//
// `x < 300` with x: i8 cannot take 300 as an i8 (a decimal literal must be a
// value of its type, adapt in SemaExpr.cpp). C compares in int and warns
// that the result is always the same (-Wtautological-constant-out-of-range-
// compare); tile does the same: the comparison is computed in i64, where
// both sides are exact, and a warning says which way it always goes.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace {
/// The range of integer kind k as 128-bit integers.
void rangeOf(ScalarKind k, bool isUnsigned, __int128 &lo, __int128 &hi) {
  unsigned w = bitWidth(k);
  if (isUnsigned) {
    lo = 0;
    hi = ((__int128)1 << w) - 1;
  } else {
    lo = -((__int128)1 << (w - 1));
    hi = ((__int128)1 << (w - 1)) - 1;
  }
}

std::string str128(__int128 v) {
  if (v < 0)
    return "-" + std::to_string((unsigned long long)(-v));
  return std::to_string((unsigned long long)v);
}
} // namespace

bool Sema::widenOutOfRangeComparison(BinaryExpr &e, const Type &l, const Type &r, Type &t) {
  if (!isComparison(e.op))
    return false;
  bool litLeft = l.isUntyped();
  ExprPtr &litSide = litLeft ? e.lhs : e.rhs;
  ExprPtr &valueSide = litLeft ? e.rhs : e.lhs;
  const Type &vt = litLeft ? r : l;
  auto *lit = litSide->as<IntLiteralExpr>();
  if (!lit || !vt.isInteger() || vt.isBool() || bitWidth(vt.scalar) >= 64)
    return false;
  __int128 v = lit->negated ? -(__int128)lit->magnitude : (__int128)lit->magnitude;
  __int128 lo, hi;
  rangeOf(vt.scalar, vt.isUnsigned(), lo, hi);
  if (v >= lo && v <= hi)
    return false;
  // A hex or binary literal of the type's width is a bit pattern of it
  // (`x == 0xff` with x: i8 is `x == -1`): adapt gives it that meaning.
  if (!vt.isUnsigned() && lit->bitPattern && !lit->negated && v < ((__int128)1 << bitWidth(vt.scalar)))
    return false;
  if (v < INT64_MIN || v > INT64_MAX)
    return false; // adapt reports it
  // Which way it always goes: `x OP v` with v above (below) every x.
  BinaryOp op = e.op;
  if (litLeft) // `v OP x` is `x OP' v`
    op = op == BinaryOp::Lt   ? BinaryOp::Gt
         : op == BinaryOp::Le ? BinaryOp::Ge
         : op == BinaryOp::Gt ? BinaryOp::Lt
         : op == BinaryOp::Ge ? BinaryOp::Le
                              : op;
  bool above = v > hi;
  bool result = op == BinaryOp::Ne                             ? true
                : op == BinaryOp::Eq                           ? false
                : (op == BinaryOp::Lt || op == BinaryOp::Le) ? above
                                                               : !above;
  std::string sp = binaryOpSpelling(e.op);
  std::string spelled = str128(v);
  diags_.warning(e.loc,
          "comparison of " + vt.str() + " with " + spelled + " is always " +
              (result ? "true" : "false"),
          vt.str() + " holds " + str128(lo) + " to " + str128(hi) +
              "; it is compared in i64, so the result is the constant; to silence this, "
              "convert the " + vt.str() + " side with `as i64`, or remove the test");
  // The value side converted to i64 (the source's signedness extends, as
  // every integer `as` does), the literal taken as an i64.
  Type i64 = Type::scalarTy(ScalarKind::I64);
  TypeSyntax target;
  target.loc = valueSide->loc;
  target.type = i64;
  int depth = valueSide->depth + 1;
  Location at = valueSide->loc;
  auto cast = std::make_unique<CastExpr>(at, std::move(valueSide), std::move(target));
  cast->type = i64;
  cast->depth = depth;
  valueSide = std::move(cast);
  t = adapt(litSide, i64) ? i64 : Type::invalid();
  return true;
}

} // namespace tile::frontend
