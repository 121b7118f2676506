//===- SemaMath.cpp - math functions and fma -------------------------------===//
//
// fma(a, b, c), the two-argument copysign, pow, atan2, hypot, fmod and the
// one-argument functions take floats of one type (literals adapt; f32 by
// default); abs takes integers too. The
// transcendental functions take `approx = true|false` (default: false, or
// true under `tilec --fast-math`); functions without a fast form reject it.
// The accurate exp/exp2/log/log2/sin/cos/tanh and every libdevice-only function
// (erf, pow, log1p, ..., fmod: isLibdeviceOnlyMath) come from libdevice, which
// must be found (CheckOptions::libdeviceFound).
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace {
/// The functions with a fast approximate PTX form (docs/reference/warp-and-math.md, "Math").
bool hasApproxForm(Builtin b) {
  switch (b) {
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Exp:
  case Builtin::Exp2:
  case Builtin::Log:
  case Builtin::Log2:
  case Builtin::Sin:
  case Builtin::Cos:
  case Builtin::Tanh:
    return true;
  default:
    return false;
  }
}
} // namespace

bool mathNeedsLibdevice(Builtin b, bool approx) {
  if (isLibdeviceOnlyMath(b))
    return true;
  switch (b) {
  case Builtin::Exp:
  case Builtin::Exp2:
  case Builtin::Log:
  case Builtin::Log2:
  case Builtin::Sin:
  case Builtin::Cos:
  case Builtin::Tanh:
    return !approx;
  default:
    return false;
  }
}

bool isTwoArgumentMath(Builtin b) {
  return b == Builtin::Copysign || b == Builtin::Pow || b == Builtin::Atan2 ||
         b == Builtin::Hypot || b == Builtin::Fmod;
}

namespace {
/// The functions MLIRGenMath lowers through f32 (ext to f32, f32 op, trunc).
bool mathComputesInF32(Builtin b, bool approx) {
  switch (b) {
  case Builtin::Rsqrt:
  case Builtin::Exp:
  case Builtin::Exp2:
  case Builtin::Log:
  case Builtin::Log2:
  case Builtin::Sin:
  case Builtin::Cos:
  case Builtin::Tanh:
    return true;
  case Builtin::Sqrt:
    return approx;
  default:
    return isLibdeviceOnlyMath(b);
  }
}
} // namespace

Type Sema::checkMathCall(CallExpr &e) {
  Builtin b = e.builtin;
  bool ok = true;
  std::optional<bool> approx;
  for (NamedArg &na : e.namedArgs) {
    if (na.name != "approx") {
      error(na.loc, "'" + e.callee + "' takes no '" + na.name + "' argument",
            hasApproxForm(b) ? "'" + e.callee + "' takes only `approx = true|false`"
                             : "'" + e.callee + "' takes no named arguments");
      ok = false;
    } else if (!hasApproxForm(b)) {
      error(na.loc, "'" + e.callee + "' has no approximate form",
            b == Builtin::Pow
                ? "pow is always the accurate libdevice powf; for x > 0, `exp2(y * log2(x, "
                  "approx = true), approx = true)` is the fast form"
            : isLibdeviceOnlyMath(b)
                ? e.callee + " is always the accurate libdevice " + e.callee +
                      "f: PTX has no approximate instruction for it; remove `approx =`"
                : "'" + e.callee + "' is exact already; remove `approx =`");
      ok = false;
    } else if (na.value != "true" && na.value != "false" && !na.expr->is<BoolLiteralExpr>()) {
      error(na.valueLoc, "approx takes `true` or `false`",
            "write `approx = true` for the fast PTX form");
      ok = false;
    } else {
      auto *lit = na.expr->as<BoolLiteralExpr>();
      approx = lit ? lit->value : na.value == "true";
      if (lit)
        lit->type = Type::i1();
    }
  }
  e.approx = approx.value_or(opts_.fastMath && hasApproxForm(b));

  size_t n = b == Builtin::Fma ? 3 : isTwoArgumentMath(b) ? 2 : 1;
  if (!checkArgCount(e, n, n))
    return Type::invalid();
  // The first typed argument fixes the type; literals adapt (f32 by default).
  Type t = Type::untypedFloat();
  size_t typedArg = 0; // the argument that fixed t: where a wrong type is reported
  for (size_t i = 0; i < e.args.size(); ++i) {
    Type at = infer(e.args[i]);
    if (at.isInvalid()) {
      ok = false;
    } else if (!at.isUntyped() && t.isUntyped()) {
      t = at;
      typedArg = i;
    }
  }
  if (!ok) {
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  }
  if (anyFragmentArg(e)) // fma of fragments: SemaEpilogue.cpp
    return checkFragmentArgs(e);
  if (t.isUntyped()) {
    // abs(-3) is an integer; sqrt(2) a float.
    bool intLiterals = b == Builtin::Abs && e.args[0]->type.kind == Type::UntypedInt;
    t = Type::scalarTy(intLiterals ? ScalarKind::I32 : ScalarKind::F32);
  }
  bool intAllowed = b == Builtin::Abs;
  if (!checkNotFp8(e.args[typedArg]->loc, t, e.callee)) {
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  }
  if (!t.isScalar() || t.isBool() || (!intAllowed && !t.isFloat())) {
    error(e.args[typedArg]->loc,
          "'" + e.callee + "' needs " + (intAllowed ? "integer or float" : "float") +
              " arguments, found " + t.str(),
          t.isInteger() ? std::string("convert with `as f32`")
          : t.kind == Type::Vector
              ? "math functions take one value: apply it element by element, `for k in 0 .. " +
                    std::to_string(t.lanes) + " unroll { w[k] = " + e.callee +
                    (n == 3   ? "(v[k], u[k], c[k]) }"
                     : n == 2 ? "(v[k], u[k]) }"
                              : "(v[k]) }") +
                    "` into a `var w` of the result's vector type"
              : nonScalarHint(t, "math functions take f16, bf16 or f32 values (abs also "
                                 "integers)"));
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  }
  // --fast-math picks the fast form only where the type has one: PTX has no
  // sqrt.approx.f64, so an f64 sqrt stays sqrt.rn.f64 (as without the flag).
  if (!approx && t.isScalar(ScalarKind::F64))
    e.approx = false;
  // The transcendental functions (and rsqrt, approximate sqrt) compute
  // through f32 (MLIRGenMath.cpp): an f64 argument would need the f64
  // libdevice forms, which tilec does not link; reject it rather than
  // lower it wrongly.
  if (t.isScalar(ScalarKind::F64) && mathComputesInF32(b, e.approx)) {
    error(e.args[typedArg]->loc, "'" + e.callee + "' has no f64 form",
          "tilec computes '" + e.callee +
              "' in f32 (f16, bf16, f32 arguments); convert with "
              "`as f32` (fma, abs, sqrt without approx, floor, ceil, trunc, round, rint, copysign take "
              "f64)");
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  }
  if (!argsOfOneType(e, t))
    ok = false;
  if (ok && mathNeedsLibdevice(b, e.approx) && !opts_.libdeviceFound) {
    error(e.loc,
          "'" + e.callee + "' needs libdevice (CUDA's math library), which was not found" +
              (opts_.libdevicePath.empty() ? std::string() : " at " + opts_.libdevicePath),
          std::string("install the CUDA toolkit or pass --libdevice=PATH/libdevice.10.bc") +
              (isLibdeviceOnlyMath(b) ? "" : "; `approx = true` needs no libdevice"));
    ok = false;
  }
  return ok ? t : Type::invalid();
}

} // namespace tile::frontend
