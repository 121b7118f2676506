//===- SemaLiterals.cpp - integer literals in their types -----------------===//
//
// An integer literal takes its type from its context (adaptIntLiteral): a
// decimal literal must be a value of that type (`let x: i8 = 200` is an
// error, as in Rust; C warns), a hex or binary one, or the operand of `as`
// itself, may be a bit pattern of its width (`0xff` in i8 is -1).
//
// `x < 300` with x: i8 cannot take 300 as an i8. C compares in int and warns
// that the result is always the same (-Wtautological-constant-out-of-range-
// compare); tile does the same: the comparison is computed in i64, where
// both sides are exact, and a warning says which way it always goes.
//
// `let x: i8 = 100 + 100`: literals that took a signed type and whose + - *
// wraps it (-56) get a warning, as C's -Winteger-overflow.
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

/// Sign-extends the low `bits` bits of v.
int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return (int64_t)v;
  uint64_t m = 1ull << (bits - 1);
  v &= (1ull << bits) - 1;
  return (int64_t)((v ^ m) - m);
}

} // namespace

/// adapt() of an integer literal: its value in `to` (types.md "Literals").
bool Sema::adaptIntLiteral(ExprPtr &ep, const Type &to) {
  ExprAST &e = *ep;
  auto &lit = *e.as<IntLiteralExpr>();
  std::string spelled = (lit.negated ? "-" : "") + std::to_string(lit.magnitude);
  if (!to.isScalar()) {
    error(e.loc, "integer literal cannot be used as " + to.str(),
          to.isPointer() ? "a pointer has no literal (there is no null pointer): choose between "
                           "two pointers, or offset one (`p + i`)"
                         : "only scalars have literals");
    e.type = Type::invalid();
    return false;
  }
  if (to.isBool() && !lit.query.empty()) {
    error(e.loc, lit.query + " is an integer (" + spelled + "), not an i1",
          "compare it: `" + lit.query + " == " + spelled + "`");
    e.type = Type::invalid();
    return false;
  }
  if (to.isBool()) {
    error(e.loc, "integer literal " + spelled + " cannot be used as i1",
          "write `true` or `false`");
    e.type = Type::invalid();
    return false;
  }
  if (isFp8Kind(to.scalar)) {
    error(e.loc, "integer literal " + spelled + " cannot be used as " + to.str(),
          std::string("fp8 has no literals: convert an f32, `") + spelled + ".0 as " +
              scalarName(to.scalar) + "`");
    e.type = Type::invalid();
    return false;
  }
  if (to.isScalar(ScalarKind::F64)) { // the conversion rounds to nearest-even itself
    double v = (double)lit.magnitude;
    auto f = std::make_unique<FloatLiteralExpr>(e.loc, lit.negated ? -v : v);
    f->type = to;
    f->depth = e.depth;
    ep = std::move(f);
    return true;
  }
  if (to.isUnsigned()) {
    unsigned w = bitWidth(to.scalar);
    uint64_t max = w == 64 ? UINT64_MAX : (1ull << w) - 1;
    if (lit.negated && lit.magnitude != 0) {
      error(e.loc, "negative literal " + spelled + " cannot be " + to.str(),
            "unsigned literals range from 0 to " + std::to_string(max) +
                "; for the wrapped value write it (" + std::to_string(max) +
                " is -1) or negate a value: `0 - x`");
      e.type = Type::invalid();
      return false;
    }
    if (lit.magnitude > max) {
      error(e.loc, "integer literal " + spelled + " does not fit in " + to.str(),
            "literals of " + to.str() + " range from 0 to " + std::to_string(max) +
                "; use a wider type");
      e.type = Type::invalid();
      return false;
    }
    lit.value = (int64_t)lit.magnitude; // zero-extended (u64: the bit pattern)
    e.type = to;
    return true;
  }
  if (to.isFloat()) {
    std::optional<double> v = roundToFloatKind(roundToOddFromUnsigned(lit.magnitude), to.scalar);
    if (!v) {
      error(e.loc, "integer literal " + spelled + " is out of range for " + to.str(),
            floatRangeHint(to.scalar));
      e.type = Type::invalid();
      return false;
    }
    auto f = std::make_unique<FloatLiteralExpr>(e.loc, lit.negated ? -*v : *v);
    f->type = to;
    f->depth = e.depth;
    ep = std::move(f);
    return true;
  }
  unsigned w = bitWidth(to.scalar);
  uint64_t maxBits = w == 64 ? UINT64_MAX : (1ull << w) - 1; // the bit patterns
  uint64_t maxNeg = 1ull << (w - 1);
  // A decimal literal is a value: it must be one of the type's (C warns,
  // Rust errors: `let x: i8 = 200` is not -56). A hex or binary literal,
  // and the operand of `as` itself (`200 as i8`, an explicit conversion),
  // may be a bit pattern of the type's width (`0xff` in i8 is -1).
  bool pattern = !lit.negated && (lit.bitPattern || lit.castOperand);
  uint64_t maxPos = pattern ? maxBits : maxNeg - 1;
  if (lit.negated ? lit.magnitude > maxNeg : lit.magnitude > maxPos) {
    // i32 is also the type of a literal with no context (`let x = 4294967296`,
    // `p[4294967296]`): say how to write the wider one.
    bool fitsI64 = lit.negated ? lit.magnitude <= (1ull << 63) : lit.magnitude < (1ull << 63);
    std::string range = to.str() + " holds -" + std::to_string(maxNeg) + " to " +
                        std::to_string(maxNeg - 1);
    std::string hint =
        to.isScalar(ScalarKind::I32) && fitsI64
            ? range + "; use a wider type: `" + spelled + " as i64`, or `let x: i64 = " +
                  spelled + "` (a literal with no other type is i32)"
            : range + "; use a wider type";
    if (!lit.negated && lit.magnitude <= maxBits && !pattern) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)lit.magnitude);
      hint += std::string("; for the bit pattern (") +
              std::to_string(signExtend(lit.magnitude, w)) + " in " + to.str() +
              ") write it in hex, `" + hex + "`";
    } else if (pattern) {
      hint += "; a hex, binary or `as` operand literal may be a bit pattern, 0 to " +
              std::to_string(maxBits);
    }
    std::string what = e.constant ? "constant '" + e.constant->name + "' (" + spelled + ")"
                                  : "integer literal " + spelled;
    error(e.loc, what + " does not fit in " + to.str(), hint);
    e.type = Type::invalid();
    return false;
  }
  lit.value = signExtend(lit.negated ? 0 - lit.magnitude : lit.magnitude, w);
  e.type = to;
  return true;
}

// `x8 << 200` is an amount out of range for i8, not a literal that does not
// fit in i8: a literal amount takes the value's type (operators.md), and one
// that type cannot hold is out of range whatever the type, so it takes the
// 64-bit type that holds it and the range check names it.
Type literalShiftAmountType(const ExprAST &amount, const Type &value) {
  auto *lit = amount.as<IntLiteralExpr>();
  if (!lit)
    return value;
  __int128 lo, hi;
  rangeOf(value.scalar, value.isUnsigned(), lo, hi);
  __int128 v = lit->negated ? -(__int128)lit->magnitude : (__int128)lit->magnitude;
  if (v >= lo && v <= hi)
    return value;
  return lit->negated || lit->magnitude <= (uint64_t)INT64_MAX ? Type::scalarTy(ScalarKind::I64)
                                                               : Type::scalarTy(ScalarKind::U64);
}

// The operand's literals take no type: the defaults i32/f32 are a guess the
// program never made, and their range check would be a second error that a
// fixed first one could make wrong (`min(nope, 5000000000)` with nope an
// i64). One error per failed operator or call, at its first failed operand.
void Sema::abandonUntyped(ExprPtr &e) {
  if (!e->type.isUntyped())
    return;
  e->type = Type::invalid();
  if (auto *u = e->as<UnaryExpr>()) {
    abandonUntyped(u->operand);
  } else if (auto *b = e->as<BinaryExpr>()) {
    abandonUntyped(b->lhs);
    abandonUntyped(b->rhs);
  } else if (auto *sel = e->as<SelectExpr>()) {
    abandonUntyped(sel->trueValue);
    abandonUntyped(sel->falseValue);
  }
}

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
/// The exact value of a tree of integer literals and + - * << (unary -
/// included), each literal its value in the type it took; nullopt for any
/// other node (a name, a call, / % >> ...: they never leave the range of
/// in-range operands, except `MIN / -1`, which is its own error) or past
/// 2^100.
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
  if (!b || (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && b->op != BinaryOp::Mul &&
             b->op != BinaryOp::Shl))
    return std::nullopt;
  auto l = exactValue(*b->lhs), r = exactValue(*b->rhs);
  if (!l || !r)
    return std::nullopt;
  if (b->op == BinaryOp::Shl) { // x << n is x * 2^n; an amount out of range is its own error
    bool inRange = b->type.isInteger() && *r >= 0 && *r < (__int128)bitWidth(b->type.scalar);
    return inRange ? bounded(*l * ((__int128)1 << (int)*r)) : std::nullopt;
  }
  if (b->op == BinaryOp::Mul) {
    __int128 p;
    return __builtin_mul_overflow(*l, *r, &p) ? std::nullopt : bounded(p);
  }
  return bounded(b->op == BinaryOp::Add ? *l + *r : *l - *r);
}
} // namespace

bool Sema::checkLiteralArithmeticFits(const ExprAST &e) {
  const Type &t = e.type;
  if (!t.isInteger() || t.isBool() || t.isUnsigned())
    return true; // unsigned arithmetic is modular in C too (`0 - 1` as u32 is its maximum)
  __int128 lo, hi;
  rangeOf(t.scalar, false, lo, hi);
  std::optional<__int128> v = exactValue(e);
  if (!v || (*v >= lo && *v <= hi))
    return true;
  unsigned w = bitWidth(t.scalar);
  uint64_t low = (uint64_t)*v; // the low 64 bits, then the type's
  int64_t wrapped =
      w >= 64 ? (int64_t)low
              : (int64_t)(((low & ((1ull << w) - 1)) ^ (1ull << (w - 1))) - (1ull << (w - 1)));
  // A constant is a value of the type it took, as a literal is (`let b: i8
  // = 200` is an error): one whose exact value that type cannot hold would
  // silently become another number.
  error(e.loc,
        "constant arithmetic overflows " + t.str() + ": the exact value " + str128(*v) +
            " is outside " + str128(lo) + " to " + str128(hi),
        "the literals take " + t.str() + " from their context; write the value meant, compute " +
            "in a wider type (`(1 as i64) << 40`), or convert explicitly, `(...) as " + t.str() +
            "`, if the wrapped value (" + std::to_string(wrapped) + ") is meant");
  return false;
}

} // namespace tile::frontend
