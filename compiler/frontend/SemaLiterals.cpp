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

#include <optional>

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

namespace {
/// The exact value of a tree of integer literals and + - * (unary -
/// included), each literal its value in the type it took; nullopt for any
/// other node (a name, a call, / % << ...) or past 2^100.
std::optional<__int128> exactValue(const ExprAST &e) {
  constexpr __int128 kLimit = (__int128)1 << 100;
  auto bounded = [&](__int128 v) -> std::optional<__int128> {
    return v > kLimit || v < -kLimit ? std::nullopt : std::optional<__int128>(v);
  };
  if (auto *l = e.as<IntLiteralExpr>())
    return (__int128)l->value;
  if (auto *u = e.as<UnaryExpr>()) {
    if (u->op != UnaryOp::Neg)
      return std::nullopt;
    auto v = exactValue(*u->operand);
    return v ? bounded(-*v) : std::nullopt;
  }
  auto *b = e.as<BinaryExpr>();
  if (!b || (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && b->op != BinaryOp::Mul))
    return std::nullopt;
  auto l = exactValue(*b->lhs), r = exactValue(*b->rhs);
  if (!l || !r)
    return std::nullopt;
  if (b->op == BinaryOp::Mul) {
    __int128 p;
    return __builtin_mul_overflow(*l, *r, &p) ? std::nullopt : bounded(p);
  }
  return bounded(b->op == BinaryOp::Add ? *l + *r : *l - *r);
}
} // namespace

void Sema::warnConstantWrap(const ExprAST &e) {
  const Type &t = e.type;
  if (!t.isInteger() || t.isBool() || t.isUnsigned())
    return; // unsigned arithmetic is modular in C too (`0 - 1` as u32 is its maximum)
  __int128 lo, hi;
  rangeOf(t.scalar, false, lo, hi);
  auto outside = [&](const ExprAST &x) {
    auto v = exactValue(x);
    return v && (*v < lo || *v > hi);
  };
  std::optional<__int128> v = exactValue(e);
  if (!v || (*v >= lo && *v <= hi))
    return;
  // Reported once, at the innermost operation that leaves the range.
  if (auto *b = e.as<BinaryExpr>(); b && (outside(*b->lhs) || outside(*b->rhs)))
    return;
  if (auto *u = e.as<UnaryExpr>(); u && outside(*u->operand))
    return;
  unsigned w = bitWidth(t.scalar);
  uint64_t low = (uint64_t)*v; // the low 64 bits, then the type's
  int64_t wrapped =
      w >= 64 ? (int64_t)low
              : (int64_t)(((low & ((1ull << w) - 1)) ^ (1ull << (w - 1))) - (1ull << (w - 1)));
  diags_.warning(e.loc,
                 "constant arithmetic wraps in " + t.str() + ": the exact value " + str128(*v) +
                     " is outside " + str128(lo) + " to " + str128(hi) + ", the result is " +
                     std::to_string(wrapped),
                 "the literals take " + t.str() +
                     " from their context and + - * wrap (operators.md); compute in a wider "
                     "type (`(a * b) as i64` converts the literals first), or write the result "
                     "if the wrap is meant");
}

} // namespace tile::frontend
