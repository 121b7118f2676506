//===- SemaConst.cpp - constant evaluation and constant undefined operations =//
//
// Every operator has a defined result on every input (docs/reference/operators.md,
// "Every operator is defined on every input"), but the inputs that C
// leaves undefined are almost always mistakes when they are constants:
// `x << 32`, `x / 0`, `INT_MIN / -1`, `3e9 as i32`. Those are errors, with
// the run-time meaning in the hint. "Constant" means any expression of
// literals, operators, casts and min/max/clamp, evaluated here with exactly
// the run-time semantics (wrapping integers, clamped shifts, IEEE floats rounded to
// their format), so `1 << (30 + 2)` and `x / (2 - 2)` are caught too.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace tile::frontend {

namespace {

/// `v` rounded to nearest-even in a binary format with `mant` fraction
/// bits and normal exponents minExp..maxExp (subnormals below, inf above).
double roundToFormat(double v, int mant, int minExp, int maxExp) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  int e = 0;
  std::frexp(v, &e); // |v| = m * 2^e with 0.5 <= m < 1: the leading bit is 2^(e-1)
  int lead = e - 1 < minExp ? minExp : e - 1;
  double quantum = std::ldexp(1.0, lead - mant);
  double r = std::nearbyint(v / quantum) * quantum; // the default mode is to-nearest-even
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -mant), maxExp);
  return std::fabs(r) > maxFinite ? std::copysign(INFINITY, v) : r;
}

/// The fp8 conversions saturate (cvt.rn.satfinite, docs/reference/types.md):
/// beyond the largest finite value, and for +-inf, the largest finite value.
double satfinite(double v, double maxFinite) {
  return std::isnan(v) || std::fabs(v) <= maxFinite ? v : std::copysign(maxFinite, v);
}

double roundTo(ScalarKind k, double v) {
  switch (k) {
  case ScalarKind::F16:
    return roundToFormat(v, 10, -14, 15);
  case ScalarKind::BF16:
    return roundToFormat(v, 7, -126, 127);
  case ScalarKind::E4M3: // S.1111.111 is NaN: the largest finite value is 448
    return satfinite(roundToFormat(v, 3, -6, 8), 448.0);
  case ScalarKind::E5M2:
    return satfinite(roundToFormat(v, 2, -14, 15), 57344.0);
  case ScalarKind::F64:
    return v;
  default:
    return (double)(float)v;
  }
}

double fromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// The NaN the GPU's arithmetic returns in format `k` (docs/reference/
/// operators.md, "NaN bits"; tilec/Target/NaNBits.h): f32, f16, bf16 the
/// positive quiet NaN with every fraction bit set, f64 0xfff8000000000000;
/// not the host's (x86 gives 0/0 the sign bit). Held as the double with
/// those bits leading, which converts to exactly them (MLIRGen) and widens
/// as a shift does (bf16 -> f32 gives 0x7fff0000, as the GPU).
double gpuNaN(ScalarKind k) {
  switch (k) {
  case ScalarKind::F64:
    return fromBits(0xfff8000000000000ull);
  case ScalarKind::F16:
    return fromBits(0x7ffffc0000000000ull); // 10 fraction bits
  case ScalarKind::BF16:
    return fromBits(0x7fffe00000000000ull); // 7
  default:
    return fromBits(0x7fffffffe0000000ull); // 23
  }
}

/// The result `r` of an operation in format `k` on operands `a` and `b`: a
/// NaN result is the GPU's; in f64 a NaN operand passes through (measured).
double gpuResult(ScalarKind k, double r, double a, double b) {
  if (!std::isnan(r))
    return r;
  if (k == ScalarKind::F64 && (std::isnan(a) || std::isnan(b)))
    return std::isnan(a) ? a : b;
  return gpuNaN(k);
}

/// A NaN converted from format `from` to `to` by the GPU's cvt (measured):
/// from f64 the sign is kept and the payload is the default one; a
/// widening that is a shift (bf16 -> f32, f32 -> f64) keeps the bits; the
/// other conversions return the target's NaN.
double convertedNaN(ScalarKind from, ScalarKind to, double v) {
  if (!std::isnan(v))
    return v;
  if (from == ScalarKind::F64)
    return std::copysign(fromBits(0x7ff8000000000000ull), v);
  if ((from == ScalarKind::BF16 && to == ScalarKind::F32) || to == ScalarKind::F64)
    return v;
  return gpuNaN(to);
}

/// `v` wrapped to a `bits`-wide two's complement integer (i1: 0 or 1).
int64_t wrapTo(uint64_t v, unsigned bits) {
  if (bits == 1)
    return (int64_t)(v & 1);
  if (bits >= 64)
    return (int64_t)v;
  uint64_t sign = 1ull << (bits - 1), mask = (1ull << bits) - 1;
  return (int64_t)(((v & mask) ^ sign) - sign);
}

/// `v` wrapped to the width of integer kind `k`: sign-extended for signed
/// kinds, zero-extended for unsigned ones (u64: the bit pattern).
int64_t wrapToKind(uint64_t v, ScalarKind k) {
  unsigned bits = bitWidth(k);
  if (!isUnsignedKind(k))
    return wrapTo(v, bits);
  return (int64_t)(bits >= 64 ? v : v & ((1ull << bits) - 1));
}

/// The float of kind `k` nearest to the integer `mag` (negated when `neg`):
/// one rounding (f64: the conversion's own; narrower: through round-to-odd).
double intToFloat(uint64_t mag, bool neg, ScalarKind k) {
  double v = k == ScalarKind::F64 ? (double)mag : roundTo(k, roundToOddFromUnsigned(mag));
  return neg ? -v : v;
}

uint64_t umaxOf(unsigned bits) { return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1; }

int64_t minOf(unsigned bits) { return bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1)); }
int64_t maxOf(unsigned bits) { return bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1; }

std::string formatFloat(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  if (v == std::trunc(v) && std::fabs(v) < 1e18) // 3e9 reads 3000000000
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

} // namespace

bool ConstValue::isZero() const { return isFloat ? f == 0 : i == 0; }

std::optional<ConstValue> Sema::evalConstant(const ExprAST &e) {
  const Type &t = e.type;
  if (!t.isScalar())
    return std::nullopt;
  bool isFloat = t.isFloat();
  unsigned bits = bitWidth(t.scalar);
  auto intValue = [&](uint64_t v) { return ConstValue{false, wrapToKind(v, t.scalar), 0}; };
  auto floatValue = [&](double v) { return ConstValue{true, 0, roundTo(t.scalar, v)}; };
  switch (e.kind()) {
  case ExprAST::IntLiteral: {
    auto &lit = *e.as<IntLiteralExpr>();
    return isFloat ? floatValue(intToFloat(lit.magnitude, lit.negated, t.scalar))
                   : intValue((uint64_t)lit.value);
  }
  case ExprAST::Select: {
    auto &sel = *e.as<SelectExpr>();
    auto c = evalConstant(*sel.cond);
    if (!c)
      return std::nullopt;
    return evalConstant(c->i ? *sel.trueValue : *sel.falseValue);
  }
  case ExprAST::FloatLiteral:
    return isFloat ? std::optional<ConstValue>(floatValue(e.as<FloatLiteralExpr>()->value))
                   : std::nullopt;
  case ExprAST::BoolLiteral:
    return intValue(e.as<BoolLiteralExpr>()->value ? 1 : 0);
  case ExprAST::Unary: {
    auto &u = *e.as<UnaryExpr>();
    auto v = evalConstant(*u.operand);
    if (!v)
      return std::nullopt;
    switch (u.op) {
    case UnaryOp::Neg: // of a NaN: the GPU's NaN, the operand itself in f64 (measured)
      if (isFloat && std::isnan(v->f))
        return floatValue(t.scalar == ScalarKind::F64 ? v->f : gpuNaN(t.scalar));
      return isFloat ? floatValue(-v->f) : intValue(0 - (uint64_t)v->i);
    case UnaryOp::Not:
    case UnaryOp::BitNot:
      return intValue(~(uint64_t)v->i);
    }
    return std::nullopt;
  }
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    if (!b.lhs->type.isScalar() || b.lhs->type != b.rhs->type)
      return std::nullopt; // pointer arithmetic
    auto l = evalConstant(*b.lhs), r = evalConstant(*b.rhs);
    if (!l || !r)
      return std::nullopt;
    return applyBinary(b.op, b.lhs->type, *l, *r, b.rhs->type);
  }
  case ExprAST::Cast: {
    auto &c = *e.as<CastExpr>();
    auto v = evalConstant(*c.operand);
    if (!v)
      return std::nullopt;
    if (!v->isFloat) {
      // i1 and unsigned values are held zero-extended, signed ones
      // sign-extended: this is C's conversion, then wrapping to the target.
      bool neg = !c.operand->type.isUnsigned() && v->i < 0;
      uint64_t mag = neg ? 0 - (uint64_t)v->i : (uint64_t)v->i;
      return isFloat ? ConstValue{true, 0, intToFloat(mag, neg, t.scalar)}
                     : intValue((uint64_t)v->i);
    }
    if (isFloat)
      return floatValue(convertedNaN(c.operand->type.scalar, t.scalar, v->f));
    // Toward zero, saturating, NaN -> 0 (PTX cvt.rzi).
    if (std::isnan(v->f))
      return intValue(0);
    double tr = std::trunc(v->f);
    if (t.isUnsigned()) {
      if (tr <= 0)
        return intValue(0);
      if (tr >= std::ldexp(1.0, (int)bits))
        return intValue(umaxOf(bits));
      return intValue((uint64_t)tr);
    }
    if (tr < std::ldexp(-1.0, (int)bits - 1))
      return intValue((uint64_t)minOf(bits));
    if (tr >= std::ldexp(1.0, (int)bits - 1))
      return intValue((uint64_t)maxOf(bits));
    return intValue((uint64_t)(int64_t)tr);
  }
  case ExprAST::Call: { // min, max, clamp of constants
    auto &call = *e.as<CallExpr>();
    bool isMin = call.builtin == Builtin::Min, isMax = call.builtin == Builtin::Max;
    if (!isMin && !isMax && call.builtin != Builtin::Clamp)
      return std::nullopt;
    std::vector<ConstValue> args;
    for (const ExprPtr &a : call.args) {
      auto v = a->type == t ? evalConstant(*a) : std::nullopt;
      if (!v)
        return std::nullopt;
      args.push_back(*v);
    }
    // Signed integers; floats are IEEE minNum/maxNum (a NaN operand is ignored).
    auto pick = [&](bool wantMin, const ConstValue &a, const ConstValue &b) {
      if (!isFloat && t.isUnsigned())
        return ((uint64_t)a.i < (uint64_t)b.i) == wantMin ? a : b;
      if (!isFloat)
        return (a.i < b.i) == wantMin ? a : b;
      if (std::isnan(a.f) && std::isnan(b.f)) // PTX min/max (measured)
        return ConstValue{true, 0, t.scalar == ScalarKind::F64 ? b.f : gpuNaN(t.scalar)};
      if (std::isnan(a.f))
        return b;
      if (std::isnan(b.f))
        return a;
      return (a.f < b.f) == wantMin ? a : b;
    };
    if (args.size() == 2 && (isMin || isMax))
      return pick(isMin, args[0], args[1]);
    if (args.size() == 3)
      return pick(true, pick(false, args[0], args[1]), args[2]);
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

std::optional<ConstValue> Sema::applyBinary(BinaryOp op, const Type &operandType,
                                            const ConstValue &l, const ConstValue &r,
                                            const Type &amountType) {
  unsigned bits = bitWidth(operandType.scalar);
  auto boolean = [](bool v) { return ConstValue{false, v ? 1 : 0, 0}; };
  if (operandType.isFloat()) {
    auto f = [&](double v) {
      return ConstValue{true, 0, roundTo(operandType.scalar, gpuResult(operandType.scalar, v, l.f, r.f))};
    };
    switch (op) {
    case BinaryOp::Add:
      return f(l.f + r.f);
    case BinaryOp::Sub:
      return f(l.f - r.f);
    case BinaryOp::Mul:
      return f(l.f * r.f);
    case BinaryOp::Div:
      return f(l.f / r.f);
    case BinaryOp::Eq:
      return boolean(l.f == r.f);
    case BinaryOp::Ne:
      return boolean(l.f != r.f);
    case BinaryOp::Lt:
      return boolean(l.f < r.f);
    case BinaryOp::Le:
      return boolean(l.f <= r.f);
    case BinaryOp::Gt:
      return boolean(l.f > r.f);
    case BinaryOp::Ge:
      return boolean(l.f >= r.f);
    default:
      return std::nullopt;
    }
  }
  uint64_t a = (uint64_t)l.i, b = (uint64_t)r.i;
  auto n = [&](uint64_t v) { return ConstValue{false, wrapToKind(v, operandType.scalar), 0}; };
  // A shift amount is read unsigned in its own width (the value's, unless
  // the amount has another integer type).
  unsigned amountBits = amountType.isScalar() && amountType.isInteger() ? bitWidth(amountType.scalar)
                                                                         : bits;
  uint64_t amount = amountBits >= 64 ? b : b & ((1ull << amountBits) - 1);
  if (operandType.isUnsigned()) {
    // Held zero-extended, so the uint64_t operations are the unsigned ones.
    switch (op) {
    case BinaryOp::Div:
      return n(b == 0 ? ~0ull : a / b); // x / 0 = all ones (RISC-V)
    case BinaryOp::Rem:
      return n(b == 0 ? a : a % b); // x % 0 = x
    case BinaryOp::Shr:
      return n(amount >= bits ? 0 : a >> amount); // logical; >= width: 0
    case BinaryOp::Lt:
      return boolean(a < b);
    case BinaryOp::Le:
      return boolean(a <= b);
    case BinaryOp::Gt:
      return boolean(a > b);
    case BinaryOp::Ge:
      return boolean(a >= b);
    default:
      break; // + - * << & | ^ == != are the same bits as the signed ones
    }
  }
  switch (op) {
  case BinaryOp::Add:
    return n(a + b);
  case BinaryOp::Sub:
    return n(a - b);
  case BinaryOp::Mul:
    return n(a * b);
  case BinaryOp::Div:
  case BinaryOp::Rem: {
    bool isRem = op == BinaryOp::Rem;
    if (r.i == 0)
      return n(isRem ? a : ~0ull);
    if (r.i == -1) // x / -1 = -x (MIN / -1 wraps to MIN), x % -1 = 0
      return n(isRem ? 0 : 0 - a);
    return n((uint64_t)(isRem ? l.i % r.i : l.i / r.i));
  }
  case BinaryOp::Shl:
    return n(amount >= bits ? 0 : a << amount);
  case BinaryOp::Shr:
    return n((uint64_t)(l.i >> (amount >= bits ? bits - 1 : amount)));
  case BinaryOp::BitAnd:
  case BinaryOp::LogicalAnd:
    return n(a & b);
  case BinaryOp::BitOr:
  case BinaryOp::LogicalOr:
    return n(a | b);
  case BinaryOp::BitXor:
    return n(a ^ b);
  case BinaryOp::Eq:
    return boolean(l.i == r.i);
  case BinaryOp::Ne:
    return boolean(l.i != r.i);
  case BinaryOp::Lt:
    return boolean(l.i < r.i);
  case BinaryOp::Le:
    return boolean(l.i <= r.i);
  case BinaryOp::Gt:
    return boolean(l.i > r.i);
  case BinaryOp::Ge:
    return boolean(l.i >= r.i);
  }
  return std::nullopt;
}

/// The type in which a constant divisor or shift amount is checked: the
/// scalar operation's, or the element type of row/column indices, which
/// divide element-wise with the scalar rules (their dividend is never a
/// constant). Null when the operation has no such check.
static const Type *constantOperationType(BinaryOp op, const Type &l, const Type &r) {
  if (l.isScalar() && (l == r || (isShift(op) && l.isInteger() && r.isScalar() && r.isInteger())))
    return &l;
  if (l.isDistributed() && isIntegerKind(l.scalar) && r == Type::scalarTy(l.scalar))
    return &r;
  return nullptr;
}

bool Sema::checkConstantOperation(BinaryOp op, const Type &t, const ExprAST *lhs,
                                  const ExprAST &rhs, const Location &loc) {
  if (!t.isInteger() || t.isBool())
    return true;
  bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
  if (!shift && op != BinaryOp::Div && op != BinaryOp::Rem)
    return true;
  auto r = evalConstant(rhs);
  if (!r)
    return true;
  unsigned bits = bitWidth(t.scalar);
  std::string ty = t.str(), sp = binaryOpSpelling(op);
  bool u = t.isUnsigned();
  // The divisor or amount in its own type (a shift amount may have another).
  bool rightUnsigned = rhs.type.isScalar() ? rhs.type.isUnsigned() : u;
  std::string amountText = rightUnsigned ? std::to_string((uint64_t)r->i) : std::to_string(r->i);
  if (shift) {
    if (r->i >= 0 && r->i < (int64_t)bits)
      return true;
    // `x << n` with n of another type (a literal amount is a count, as written)
    if (rhs.type.isScalar() && rhs.type != t && !rhs.is<IntLiteralExpr>())
      amountText += " (" + rhs.type.str() + ")";
    error(loc,
          "shift amount " + amountText + " is out of range for " + ty + " (0 to " +
              std::to_string(bits - 1) + ")",
          op == BinaryOp::Shl ? "at run time an amount >= " + std::to_string(bits) +
                                    " (read unsigned) gives 0; write 0, or "
                                    "mask a run-time amount: x << (n & " +
                                    std::to_string(bits - 1) + ")"
          : u ? "at run time an amount >= " + std::to_string(bits) +
                    " gives 0 (`>>` is logical on " + ty +
                    "); write 0, or mask a run-time amount: x >> (n & " + std::to_string(bits - 1) +
                    ")"
              : "at run time an amount >= " + std::to_string(bits) +
                    " (read unsigned) gives the sign fill "
                    "(x >> " +
                    std::to_string(bits - 1) +
                    "); write that, or mask a run-time amount: x >> (n & " +
                    std::to_string(bits - 1) + ")");
    return false;
  }
  bool isRem = op == BinaryOp::Rem;
  if (r->i == 0) {
    error(loc, std::string(isRem ? "remainder" : "division") + " by zero",
          isRem ? "a run-time x % 0 gives x; test the divisor before dividing"
          : u   ? "a run-time x / 0 gives all ones (" + std::to_string(umaxOf(bits)) +
                    "); test the divisor before dividing"
              : "a run-time x / 0 gives -1; test the divisor before dividing");
    return false;
  }
  if (r->i == -1 && lhs && !u) {
    auto l = evalConstant(*lhs);
    if (l && l->i == minOf(bits)) {
      error(loc, std::to_string(l->i) + " " + sp + " -1 overflows " + ty,
            isRem ? "the remainder is 0 (as at run time); write 0"
                  : "the quotient wraps to " + std::to_string(l->i) +
                        " (as at run time); write that, or "
                        "use a wider type: `x as i64`");
      return false;
    }
  }
  return true;
}

bool Sema::checkConstantOps(const ExprAST &e) {
  if (!constChecked_.insert(&e).second)
    return true;
  bool ok = true;
  switch (e.kind()) {
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    ok = checkConstantOps(*b.lhs);
    ok = checkConstantOps(*b.rhs) && ok;
    if (const Type *t = ok ? constantOperationType(b.op, b.lhs->type, b.rhs->type) : nullptr)
      ok = checkConstantOperation(b.op, *t, t == &b.lhs->type ? b.lhs.get() : nullptr, *b.rhs,
                                  b.loc);
    return ok;
  }
  case ExprAST::Cast: {
    auto &c = *e.as<CastExpr>();
    if (!checkConstantOps(*c.operand))
      return false;
    if (!c.operand->type.isFloat() || !e.type.isInteger())
      return true;
    auto v = evalConstant(*c.operand);
    if (!v)
      return true;
    unsigned bits = bitWidth(e.type.scalar);
    bool u = e.type.isUnsigned();
    double tr = std::trunc(v->f);
    bool inRange = !std::isnan(v->f) && tr >= (u ? 0.0 : std::ldexp(-1.0, (int)bits - 1)) &&
                   tr < std::ldexp(1.0, u ? (int)bits : (int)bits - 1);
    if (inRange)
      return true;
    if (std::isnan(v->f)) {
      error(e.loc, "cast of NaN to " + e.type.str() + ": NaN has no integer value",
            "at run time NaN converts to 0; write 0, or test `v != v` first");
      return false;
    }
    auto saturated = evalConstant(e);
    error(e.loc,
          "cast of " + formatFloat(v->f) + " to " + e.type.str() + " is out of range (" +
              (u ? "0" : std::to_string(minOf(bits))) + " to " +
              (u ? std::to_string(umaxOf(bits)) : std::to_string(maxOf(bits))) + ")",
          "at run time float-to-integer conversion saturates (here to " +
              (u ? std::to_string((uint64_t)(saturated ? saturated->i : 0))
                 : std::to_string(saturated ? saturated->i : 0)) +
              "); write the integer you mean, or clamp first");
    return false;
  }
  case ExprAST::Select: { // a constant condition: the other side never runs
    auto &sel = *e.as<SelectExpr>();
    if (!checkConstantOps(*sel.cond))
      return false;
    auto c = evalConstant(*sel.cond);
    if (c)
      return checkConstantOps(c->i ? *sel.trueValue : *sel.falseValue);
    ok = checkConstantOps(*sel.trueValue);
    return checkConstantOps(*sel.falseValue) && ok;
  }
  default: // every operand: all indices, a call's named arguments too
    forEachOperand(e, [&](const ExprAST &x) { ok = checkConstantOps(x) && ok; });
    return ok;
  }
}

void Sema::checkConstantOpsInStmt(StmtAST &s) {
  auto check = [&](const ExprPtr &e) {
    if (e)
      checkConstantOps(*e);
  };
  switch (s.kind()) {
  case StmtAST::Let:
    check(s.as<LetStmt>()->init);
    break;
  case StmtAST::SharedArray:
    check(s.as<SharedArrayStmt>()->count);
    break;
  case StmtAST::MBarrier:
    check(s.as<MBarrierStmt>()->count);
    break;
  case StmtAST::Assign: {
    auto &a = *s.as<AssignStmt>();
    check(a.target);
    check(a.value);
    auto op = assignBinaryOp(a.op);
    if (op && a.value && a.target && a.target->type.isScalar() &&
        (a.target->type == a.value->type ||
         (isShift(*op) && a.target->type.isInteger() && a.value->type.isInteger())))
      checkConstantOperation(*op, a.target->type, nullptr, *a.value, a.loc);
    break;
  }
  case StmtAST::For: {
    auto &f = *s.as<ForStmt>();
    check(f.start);
    check(f.end);
    check(f.step);
    break;
  }
  case StmtAST::If:
    check(s.as<IfStmt>()->cond);
    break;
  case StmtAST::While:
    check(s.as<WhileStmt>()->cond);
    break;
  case StmtAST::ExprStmt:
    check(s.as<ExprStmtAST>()->expr);
    break;
  case StmtAST::Return:
    check(s.as<ReturnStmt>()->value);
    for (const ExprPtr &v : s.as<ReturnStmt>()->values)
      check(v);
    break;
  case StmtAST::Warpgroups: // role arguments are checked by checkWarpgroups
  case StmtAST::Ring:       // member dimensions are checked by checkRing
  case StmtAST::Produce:
  case StmtAST::Consume:
  case StmtAST::Break:
  case StmtAST::Continue:
    break;
  case StmtAST::Const:
    check(s.as<ConstStmt>()->init);
    break;
  case StmtAST::LocalArray:
    check(s.as<LocalArrayStmt>()->count);
    break;
  }
}

/// static_assert(COND): what a kernel or function requires of its
/// compile-time parameters (`static_assert(ACT >= 0 && ACT <= 4)`), checked
/// in each instance; an instance that breaks it is an error at the call
/// (with the instance's note) instead of code that silently does something
/// else. It emits nothing.
Type Sema::checkStaticAssert(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 1, 1))
    return Type::invalid();
  Type b = Type::i1();
  // An error inside the condition (`1 / 0`, a shift out of range) is the
  // error: its folded value (run-time semantics) is no failure to report.
  size_t errorsBefore = diags_.numErrors();
  if (checkValue(e.args[0], &b, "condition of 'static_assert'",
                 "compare explicitly, e.g. `N % 64 == 0`")
              .isInvalid() ||
      diags_.numErrors() != errorsBefore || !checkConstantOps(*e.args[0]) ||
      reportUndefinedConstantStep(*e.args[0]))
    return Type::invalid();
  // As `if const`'s condition: also a `let` of a constant, a function's
  // parameter whose argument is one (calls are inlined), and an unrolled
  // loop's variable, where every copy must hold.
  std::optional<ConstValue> c = evalConstant(*e.args[0]);
  bool overflow = false;
  std::optional<std::vector<int64_t>> every =
      c ? std::nullopt : foldEveryCopy(*e.args[0], overflow);
  if (!c && (!every || overflow)) {
    error(e.args[0]->loc, "the condition of 'static_assert' is not a compile-time constant",
          "build it from literals, constants, compile-time parameters and type queries "
          "(`BN % 64 == 0`, `size_of(T) == 2`); check a run-time value with `if`");
    return Type::invalid();
  }
  bool holds = c ? c->i != 0
                 : std::all_of(every->begin(), every->end(), [](int64_t v) { return v != 0; });
  if (!holds) {
    error(e.loc, "static_assert failed: the condition is false",
          "the compile-time values this code was given do not meet its requirement: change them "
          "(the note names the instance), or the condition");
    return Type::invalid();
  }
  return Type::voidTy();
}

} // namespace tile::frontend
