//===- SemaTypes.cpp - `c ? a : b`, break/continue, bitcast, bit counts ----===//
//
// Conditional expressions, loop exits, unsigned integers, f64 and bit
// operations, and the fp8 rules (docs/reference/operators.md,
// docs/reference/statements.md, docs/reference/types.md):
//
//  - `c ? a : b` evaluates only the side it chooses. A side that may trap or
//    has an effect (a load, an atomic, a division) marks the expression lazy:
//    MLIRGen branches (scf.if). Otherwise both sides are plain arithmetic and
//    an arith.select of both computes the same value without a branch.
//  - `break`/`continue` bind to the innermost `for`/`while`.
//  - bitcast<T>(x) reinterprets the bits of a scalar of T's size; popc, clz,
//    ctz, brev and bfind count and reverse the bits of i32/i64/u32/u64.
//  - fp8 (e4m3, e5m2) values are converted, to and from f32, f16 and bf16,
//    and read by wgmma; no operator or math function takes them.
//  - a global pointer converts to and from its 64-bit address (`as`).
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace {

/// Whether evaluating `e` may trap or have an effect, so that evaluating it
/// when its side is not chosen would change the program: loads (an index
/// read may be out of bounds), atomics and other memory builtins, integer
/// and float division (documented as such: `n == 0 ? 0 : x / n` divides only
/// when chosen), and anything whose meaning is not pure arithmetic.
bool mayTrapOrHaveEffect(const ExprAST &e) {
  switch (e.kind()) {
  case ExprAST::IntLiteral:
  case ExprAST::FloatLiteral:
  case ExprAST::BoolLiteral:
  case ExprAST::VarRef:
  case ExprAST::Member: // h.local_base: arithmetic on special registers
    return false;
  case ExprAST::Unary:
    return mayTrapOrHaveEffect(*e.as<UnaryExpr>()->operand);
  case ExprAST::Cast:
    return mayTrapOrHaveEffect(*e.as<CastExpr>()->operand);
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    if (b.op == BinaryOp::Div || b.op == BinaryOp::Rem)
      return true;
    return mayTrapOrHaveEffect(*b.lhs) || mayTrapOrHaveEffect(*b.rhs);
  }
  case ExprAST::Select: {
    auto &s = *e.as<SelectExpr>();
    return mayTrapOrHaveEffect(*s.cond) || mayTrapOrHaveEffect(*s.trueValue) ||
           mayTrapOrHaveEffect(*s.falseValue);
  }
  case ExprAST::Call: {
    auto &c = *e.as<CallExpr>();
    bool pure = isIdBuiltin(c.builtin);
    switch (c.builtin) {
    case Builtin::ClusterRank:
    case Builtin::ClusterSize:
    case Builtin::LaneId:
    case Builtin::WarpId:
    case Builtin::Min:
    case Builtin::Max:
    case Builtin::Clamp:
    case Builtin::Len:
    case Builtin::Bitcast:
    case Builtin::Popc:
    case Builtin::Clz:
    case Builtin::Ctz:
    case Builtin::Brev:
    case Builtin::Bfind:
    case Builtin::MulHi:
      pure = true;
      break;
    default:
      break;
    }
    if (!pure)
      return true;
    for (const ExprPtr &a : c.args)
      if (mayTrapOrHaveEffect(*a))
        return true;
    return false;
  }
  default:
    return true; // element reads, anything new
  }
}

/// The integer type of `bits` (signed) or float type of `bits`, for literals.
std::optional<ScalarKind> intOfWidth(unsigned bits) {
  switch (bits) {
  case 8:
    return ScalarKind::I8;
  case 16:
    return ScalarKind::I16;
  case 32:
    return ScalarKind::I32;
  case 64:
    return ScalarKind::I64;
  default:
    return std::nullopt;
  }
}
std::optional<ScalarKind> floatOfWidth(unsigned bits) {
  switch (bits) {
  case 16:
    return ScalarKind::F16;
  case 32:
    return ScalarKind::F32;
  case 64:
    return ScalarKind::F64;
  default:
    return std::nullopt;
  }
}

} // namespace

bool Sema::reportUndefinedConstantStep(const ExprAST &e, bool report) {
  switch (e.kind()) {
  case ExprAST::Unary:
    return reportUndefinedConstantStep(*e.as<UnaryExpr>()->operand, report);
  case ExprAST::Cast:
    return reportUndefinedConstantStep(*e.as<CastExpr>()->operand, report);
  case ExprAST::Select: {
    auto &s = *e.as<SelectExpr>();
    return reportUndefinedConstantStep(*s.cond, report) ||
           reportUndefinedConstantStep(*s.trueValue, report) ||
           reportUndefinedConstantStep(*s.falseValue, report);
  }
  case ExprAST::Call:
    for (const ExprPtr &a : e.as<CallExpr>()->args)
      if (reportUndefinedConstantStep(*a, report))
        return true;
    return false;
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    if (reportUndefinedConstantStep(*b.lhs, report) || reportUndefinedConstantStep(*b.rhs, report))
      return true;
    bool overflow = false;
    std::optional<int64_t> r = foldConstant(*b.rhs, overflow);
    if (!r || overflow)
      return false;
    if ((b.op == BinaryOp::Div || b.op == BinaryOp::Rem) && *r == 0) {
      if (report)
        error(b.loc, b.op == BinaryOp::Div ? "division by zero" : "remainder by zero",
              "a constant's divisor must not be zero");
      return true;
    }
    if ((b.op == BinaryOp::Shl || b.op == BinaryOp::Shr) && (*r < 0 || *r > 63)) {
      if (report)
        error(b.loc,
              "shift amount " + std::to_string(*r) +
                  " is out of range for an integer constant (0 to 63)",
              "an integer constant without a type is computed exactly in 64 bits: shift it by 0 "
              "to 63");
      return true;
    }
    return false;
  }
  default:
    return false;
  }
}

std::string elementAccessHint(const Type &base, const std::string &fallback) {
  if (!base.isDistributed())
    return fallback;
  bool frag = base.kind == Type::Fragment;
  return std::string(frag ? "a fragment's elements" : "its values") +
         " are spread over the 128 threads of a warpgroup, so no thread reads one by position: "
         "compute on the whole value (`select(frag_row(f) == r, ...)`), " +
         (frag ? "reduce its rows (`row_max(f)`) or store it (`store(p, f, row_stride = ld)`)"
          : base.kind == Type::PerRow ? "or store it (`store(p, r)`)"
                                      : "or combine it with a fragment") +
         " and read the memory";
}

std::string nonScalarHint(const Type &found, const std::string &scalarHint) {
  switch (found.kind) {
  case Type::Pointer:
    return "a pointer is an address, not a value: read the element it points to, `p[i]`";
  case Type::Vector:
    return "a vector holds " + std::to_string(found.lanes) + " values: take one, `v[0]` .. `v[" +
           std::to_string(found.lanes - 1) + "]`";
  case Type::SharedArray:
  case Type::ArrayView:
  case Type::DistArray:
  case Type::LocalArray:
    return "an array holds many values: index it, `a[i]`";
  case Type::Fragment:
  case Type::PerRow:
  case Type::PerCol: {
    if (found.isMask())
      return "a mask holds one i1 per element and is read only by `select(m, a, b)`, element by "
             "element";
    std::string what = found.kind == Type::Fragment ? "a fragment holds a warpgroup's values"
                       : found.kind == Type::PerRow ? "a per_row value holds one value per row"
                                                    : "a per_col value holds one value per column";
    std::string use = found.kind == Type::Fragment
                          ? "reduce its rows (`row_max(f)`, `row_sum(f)`) or store it "
                            "(`store(p, f, row_stride = ld)`)"
                      : found.kind == Type::PerRow
                          ? "combine it with a fragment (`f * r`) or store it (`store(p, r)`)"
                          : "combine it with a fragment (`f + c`)";
    return what + ", spread over its 128 threads, not one scalar: " + use;
  }
  case Type::Scalar:
  case Type::UntypedInt:
  case Type::UntypedFloat:
  case Type::Invalid:
    return scalarHint;
  default:
    return found.str() + " is not a value that converts to a scalar";
  }
}

Type Sema::inferSelect(SelectExpr &e) {
  Type b = Type::i1();
  Type c = checkValue(e.cond, &b, "condition of '?'", "compare explicitly, e.g. `x != 0`");
  Type t = unify(e.trueValue, e.falseValue, e.loc, "the two sides of '?'");
  if (t.isInvalid())
    return t;
  if (!t.isUntyped() && !t.isScalar() && !t.isPointer()) {
    error(e.loc, "'?' chooses between scalars or pointers, found " + t.str(),
          t.kind == Type::Void ? "a call that returns no value is a statement: use `if c { } "
                                 "else { }`"
          : t.isDistributed()  ? "`select(c, a, b)` chooses between fragments, per_row and "
                                 "per_col values (c an i1 or a mask)"
          : t.isVector()       ? "`select(c, a, b)` chooses a whole vector (both are computed), "
                                 "or assign a `var` in `if c { } else { }`"
                               : "index the array first, or use `if c { } else { }`");
    return Type::invalid();
  }
  e.lazy = mayTrapOrHaveEffect(*e.trueValue) || mayTrapOrHaveEffect(*e.falseValue);
  return c.isInvalid() ? Type::invalid() : t;
}

/// select(c, a, b) of scalars, pointers or vectors (tile.select): both values
/// are evaluated, then one is chosen, as `c ? a : b` without its branch.
/// The values have one type as written: a literal adapts, nothing converts.
Type Sema::checkValueSelect(CallExpr &e) {
  auto bail = [&] {
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  };
  const Type &c = e.args[0]->type;
  if (!c.isBool()) {
    error(e.args[0]->loc, "the condition of select is " + c.str() + ", not an i1",
          c.isUntyped() ? "write `true` or `false`, or compare: `select(x != 0, a, b)`"
                        : "compare explicitly, e.g. `select(x != 0, a, b)`");
    return bail();
  }
  // The first typed value fixes the type; then vectors of literals take it.
  Type t = Type::untypedInt();
  for (size_t i = 1; i < 3; ++i) {
    const Type &vt = e.args[i]->type;
    if (isLiteralVector(*e.args[i]))
      continue;
    if (vt.kind == Type::Void) {
      checkHasValue(*e.args[i], vt, "a value of select");
      return bail();
    }
    if (t.isUntyped() && (!vt.isUntyped() || vt.kind == Type::UntypedFloat))
      t = vt;
  }
  for (size_t i = 1; i < 3; ++i) {
    ExprPtr &v = e.args[i];
    if (!isLiteralVector(*v))
      continue;
    bool takes = t.isVector() && t.lanes == (int)v->as<VectorExpr>()->elems.size();
    Type vt = takes ? checkValue(v, &t, "") : infer(v);
    if (vt.isInvalid())
      return bail();
    if (t.isUntyped())
      t = vt;
  }
  if (t.isUntyped())
    t = Type::scalarTy(t.kind == Type::UntypedFloat ? ScalarKind::F32 : ScalarKind::I32);
  if (!t.isScalar() && !t.isPointer() && !t.isVector()) {
    error(e.loc, "select chooses between scalars, pointers, vectors, fragments, per_row or "
                 "per_col values, found " + t.str(),
          "index the array first, or use `if c { } else { }`");
    return bail();
  }
  bool ok = true;
  for (size_t i = 1; i < 3; ++i) {
    ExprPtr &v = e.args[i];
    if (v->type.isUntyped() && t.isScalar()) {
      ok = adapt(v, t) && ok;
    } else if (v->type != t) {
      // `as` converts scalars and, element-wise, float vectors of one length.
      bool converts = (v->type.isScalar() && t.isScalar()) ||
                      (v->type.isVector() && t.isVector() && v->type.lanes == t.lanes);
      error(v->loc,
            "argument " + std::to_string(i + 1) + " of select " +
                (v->type.isUntyped() ? "is " : "has type ") + v->type.str() + ", but argument " +
                std::to_string(4 - i) + " has type " + t.str(),
            v->type.isUntyped() ? "a literal is a scalar: write the vector, e.g. `{0.0, 0.0}`"
            : converts
                ? "select converts nothing: convert one value with `as`, e.g. `select(c, " +
                      std::string(i == 1 ? "a as " + t.str() + ", b" : "a, b as " + t.str()) +
                      ")`"
                : "select chooses between two values of one type (here " + t.str() + ")");
      abandonUntyped(v);
      ok = false;
      break;
    }
  }
  return ok ? t : Type::invalid();
}

void Sema::checkLoopExit(StmtAST &s) {
  bool isBreak = s.kind() == StmtAST::Break;
  const char *word = isBreak ? "break" : "continue";
  if (loops_.empty()) {
    error(s.loc, std::string("'") + word + "' outside a loop",
          std::string("`") + word + "` " + (isBreak ? "leaves" : "starts the next iteration of") +
              " the innermost `for` or `while`; use `return` to leave the kernel");
    return;
  }
  if (turn_ && loops_.size() <= turnLoops_)
    error(s.loc, std::string("'") + word + "' leaves a turn",
          "a turn hands the next warpgroup its turn at the end of its body; every pass must "
          "reach that end (end the loop after the turn instead)");
  StmtAST *loop = loops_.back();
  if (isBreak)
    s.as<BreakStmt>()->loop = loop;
  else
    s.as<ContinueStmt>()->loop = loop;
  if (auto *f = loop->as<ForStmt>()) {
    // An unrolled loop is copied body by body (MLIRGenAbstr.cpp); an exit
    // would have to skip the later copies, which that expansion cannot do.
    if (f->unrollFull || f->unrollFactor) {
      error(s.loc, std::string("'") + word + "' in an unrolled loop",
            "an unrolled loop runs every copy of its body: drop `unroll`, or guard the rest of "
            "the body with `if`");
      return;
    }
    (isBreak ? f->hasBreak : f->hasContinue) = true;
  }
  else if (auto *w = loop->as<WhileStmt>())
    (isBreak ? w->hasBreak : w->hasContinue) = true;
}

Type Sema::checkBitCall(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 1, 1))
    return Type::invalid();
  ExprPtr &arg = e.args[0];
  if (e.builtin == Builtin::Bitcast) {
    if (!e.typeArg) {
      error(e.loc, "bitcast needs its target type: `bitcast<T>(x)`",
            "e.g. bitcast<u32>(x) for the bits of an f32 x");
      resolveOnly(arg);
      return Type::invalid();
    }
    Type to = e.typeArg->type;
    unsigned bits = bitWidth(to.scalar);
    Type from = infer(arg);
    if (from.isUntyped()) {
      // An integer literal is the bit pattern (an integer of T's size); a
      // float literal a value of the float type of T's size.
      std::optional<ScalarKind> k =
          from.kind == Type::UntypedInt ? intOfWidth(bits) : floatOfWidth(bits);
      Type lit = Type::scalarTy(k.value_or(ScalarKind::I32));
      if (!adapt(arg, lit))
        return Type::invalid();
      from = lit;
    }
    if (from.isInvalid())
      return from;
    if (to.isBool() || from.isBool() || !from.isScalar()) {
      error(to.isBool() ? e.typeArg->loc : arg->loc,
            "bitcast reinterprets scalars of 8 to 64 bits, not " +
                (to.isBool() ? std::string("i1") : from.str()),
            to.isBool() || from.isBool()
                ? "compare to get an i1 (`x != 0`), or cast it: `b as i32`"
                : nonScalarHint(from, ""));
      return Type::invalid();
    }
    if (bitWidth(from.scalar) != bits) {
      error(arg->loc,
            "bitcast<" + to.str() + "> needs a " + std::to_string(bits) + "-bit operand, found " +
                from.str() + " (" + std::to_string(bitWidth(from.scalar)) + " bits)",
            "bitcast keeps every bit, so the sizes must match; convert the value with `as` "
            "first");
      return Type::invalid();
    }
    return to;
  }
  Type t = infer(arg);
  if (t.isUntyped()) {
    Type i32 = Type::i32();
    if (!adapt(arg, i32))
      return Type::invalid();
    t = i32;
  }
  if (t.isInvalid())
    return t;
  bool ok = t.isScalar(ScalarKind::I32) || t.isScalar(ScalarKind::I64) ||
            t.isScalar(ScalarKind::U32) || t.isScalar(ScalarKind::U64);
  if (!ok) {
    error(arg->loc, "'" + e.callee + "' needs an i32, i64, u32 or u64 operand, found " + t.str(),
          t.isFloat()    ? "count the bits of a float's encoding: `" + e.callee + "(bitcast<" +
                               (bitWidth(t.scalar) == 64 ? "u64" : "u32") + ">(x))`"
          : t.isScalar() ? "widen it first: `x as u32`"
                         : nonScalarHint(t, ""));
    return Type::invalid();
  }
  switch (e.builtin) {
  case Builtin::Brev:
    return t;
  case Builtin::Bfind: // the bit index, or all ones when there is none
    return Type::scalarTy(t.isUnsigned() ? ScalarKind::U32 : ScalarKind::I32);
  default: // popc, clz, ctz: a count from 0 to 64
    return Type::i32();
  }
}

Type Sema::checkMulHi(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 2, 2))
    return Type::invalid();
  // The first typed argument fixes the type; literals adapt to it (both
  // literals: i32, as `let x = 1`).
  Type t = Type::untypedInt();
  Location typedLoc = e.loc;
  bool bad = false;
  for (ExprPtr &a : e.args) {
    Type at = infer(a);
    if (at.isInvalid())
      bad = true;
    else if (!at.isUntyped() && t.isUntyped()) {
      t = at;
      typedLoc = a->loc;
    }
  }
  if (!bad && t.isUntyped())
    t = Type::i32();
  if (!bad && (!t.isInteger() || t.isBool() || !t.isScalar())) {
    error(typedLoc, "'mul_hi' needs integer operands of 8 to 64 bits, found " + t.str(),
          t.isFloat()   ? std::string("the high half of a product is an integer operation; for a "
                                      "float product, `a * b` is already the rounded full value")
          : t.isBool()  ? std::string("widen it first: `x as u32`")
                        : nonScalarHint(t, ""));
    bad = true;
  }
  if (bad) {
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  }
  return argsOfOneType(e, t) ? t : Type::invalid();
}

/// `p as u64` / `a as ptr<T, global>`: a global pointer is its 64-bit
/// generic address (global addresses are generic ones, PTX ISA 6.4.1), so a
/// table of addresses in memory can be read and used as pointers. Shared and
/// cluster pointers are 32-bit window offsets that mean nothing outside
/// their CTA; they do not convert.
Type Sema::checkPointerCast(CastExpr &e, Type from, Type to) {
  // `s as ptr<f32, shared>`: the conversion a ptr<T, shared> parameter or
  // binding makes implicitly, written out.
  if (std::optional<bool> converted = arrayAsPointer(*e.operand, from, to, ""))
    return *converted ? to : Type::invalid();
  const Type &ptr = from.isPointer() && from.space != AddressSpace::Global ? from
                    : to.isPointer()                                       ? to
                                                                           : from;
  if (ptr.space != AddressSpace::Global) {
    error(e.loc, "cannot cast " + from.str() + " to " + to.str(),
          "only global pointers convert to and from their 64-bit address (u64 or i64); a " +
              std::string(spaceName(ptr.space)) +
              " pointer is an offset into its CTA's window, not an address");
    return Type::invalid();
  }
  if (from.kind == Type::UntypedInt) { // `0 as ptr<f32, global>`: the literal is the address
    if (!adapt(e.operand, Type::scalarTy(ScalarKind::U64)))
      return Type::invalid();
    from = Type::scalarTy(ScalarKind::U64);
  } else if (from.isUntyped()) {
    error(e.loc, "cannot cast a float literal to " + to.str(),
          "a pointer converts only to and from u64 or i64");
    return Type::invalid();
  }
  if (!checkHasValue(*e.operand, from, "the operand of `as`"))
    return Type::invalid();
  const Type &other = to.isPointer() ? from : to;
  bool address = other.isScalar(ScalarKind::U64) || other.isScalar(ScalarKind::I64);
  if (!address || from.isPointer() == to.isPointer()) {
    std::string hint =
        from.isPointer() && to.isPointer()
            ? "go through the address: `as u64`, then `as " + to.str() + "`"
        : !other.isInteger() ? std::string("a pointer converts only to and from u64 or i64")
        : to.isPointer()
            ? "an address is 64 bits: `(x as u64) as " + to.str() + "`"
            : "an address is 64 bits: `as u64` (then `as " + to.str() + "` keeps its low bits)";
    error(e.loc, "cannot cast " + from.str() + " to " + to.str(), hint);
    return Type::invalid();
  }
  return to;
}

std::optional<bool> Sema::arrayAsPointer(const ExprAST &e, const Type &t, const Type &want,
                                         const std::string &what) {
  bool array =
      t.kind == Type::SharedArray || t.kind == Type::ArrayView || t.kind == Type::DistArray;
  if (!array || !want.isPointer())
    return std::nullopt;
  auto refuse = [&](const std::string &hint) {
    error(e.loc,
          what.empty() ? "cannot cast " + t.str() + " to " + want.str()
                       : what + " has type " + t.str() + ", expected " + want.str(),
          hint);
    return false;
  };
  const std::string elem = scalarName(t.scalar);
  if (t.kind == Type::DistArray)
    return refuse("a dshared array is spread over the cluster: pass this CTA's part, `h.local` "
                  "(a ptr<" + elem + ", shared>), or a peer's, `remote(h.local, r)` (a ptr<" +
                  elem + ", cluster>)");
  // This CTA's array is reached through the shared window, a peer's
  // (remote(), mapa) through the shared::cluster one (PTX ISA 6.4.1).
  AddressSpace space = t.kind == Type::SharedArray ? AddressSpace::Shared : t.space;
  if (want.space != space)
    return refuse(std::string("its first element is a ptr<") + elem + ", " + spaceName(space) +
                  ">" +
                  (want.space == AddressSpace::Global ? ": shared memory has no global address"
                   : space == AddressSpace::Shared
                       ? ": a peer CTA's copy, `remote(a, r)`, is a ptr<" + elem + ", cluster>"
                       : ": this CTA's own array is a ptr<" + elem + ", shared>"));
  if (want.scalar != t.scalar)
    return refuse("an array stands for the pointer to its first element, a ptr<" + elem + ", " +
                  spaceName(space) + ">, of the array's element type");
  return checkPlainArrayUse(e, what.empty() ? "`as`" : what.c_str());
}

Type Sema::checkNanosleep(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 1, 1))
    return Type::invalid();
  Type t = infer(e.args[0]);
  if (t.isInvalid()) {
    abandonUntyped(e.args[0]);
    return Type::invalid();
  }
  if (t.isUntyped())
    t = Type::scalarTy(ScalarKind::U32);
  // PTX's operand is a .u32; an i32 passes its bits (a negative one is a
  // large count, which the 1 ms bound caps).
  if (!t.isScalar(ScalarKind::U32) && !t.isScalar(ScalarKind::I32)) {
    error(e.args[0]->loc, "'nanosleep' takes the nanoseconds as a u32 or i32, found " + t.str(),
          t.isFloat() || t.isInteger() ? "convert with `as u32` (PTX nanosleep.u32; at most 1 ms)"
                                       : nonScalarHint(t, ""));
    abandonUntyped(e.args[0]);
    return Type::invalid();
  }
  return argsOfOneType(e, t) ? Type::voidTy() : Type::invalid();
}

//===----------------------------------------------------------------------===//
// fp8: converted, never computed on
//===----------------------------------------------------------------------===//

bool Sema::checkNotFp8(const Location &loc, const Type &t, const std::string &what) {
  if (t.isFragment())
    return checkNotFp8Fragment(loc, t, "'" + what + "'");
  if (t.isInvalid() || t.isUntyped() || !isFp8Kind(t.scalar) ||
      !(t.isScalar() || t.isVector()))
    return true;
  // PTX has no e4m3/e5m2 add, mul, compare or math: only cvt (to f16x2 and
  // from f32 / f16x2 pairs, PTX ISA "cvt") and wgmma read them.
  error(loc, "'" + what + "' cannot be applied to " + t.str() + ": fp8 values are not computed on",
        std::string("convert to f32 first, `x as f32`, compute, and convert back with `as ") +
            scalarName(t.scalar) + "` (round to nearest, saturating to the largest finite)");
  return false;
}

bool Sema::checkNotFp8Fragment(const Location &loc, const Type &t, const std::string &what) {
  if (!t.isFragment() || !isFp8Kind(t.scalar))
    return true;
  // Its registers hold wgmma's register-A layout, not the accumulator's
  // (docs/reference/mma.md "fp8 fragments"), and PTX has no fp8 arithmetic.
  std::string fp8 = scalarName(t.scalar);
  // An fp8 output (a GEMM writing e4m3) is no fragment store: the elements
  // go through a 16-bit tile and convert as vectors.
  error(loc, what + " cannot take the fp8 fragment " + t.str() + ": it is only operand a of mma",
        what == "store"
            ? "to write " + fp8 + " values, store the fragment as f16 into a shared tile "
              "(`store(t, acc as f16)`), synchronise, then convert 8 elements at a time: "
              "`store(out[i], load(t[r, c], vector = 8) as vec<" + fp8 + ", 8>)`"
            : "compute on the f32 fragment and convert last: `o = mma(p as " + fp8 +
                  ", trans(s.vt), o)`");
  return false;
}

/// fp8 converts to and from f32, f16 and bf16 only (PTX ISA "cvt": the
/// .e4m3x2/.e5m2x2 forms take f32 pairs or an f16x2 and give back an f16x2;
/// bf16 goes through f32, exactly). Integers and f64 would round twice.
bool Sema::checkFp8Cast(const Location &loc, ScalarKind from, ScalarKind to) {
  if (from == to || (!isFp8Kind(from) && !isFp8Kind(to)))
    return true;
  ScalarKind other = isFp8Kind(from) ? to : from;
  if (isFp8Kind(other) || other == ScalarKind::F32 || other == ScalarKind::F16 ||
      other == ScalarKind::BF16)
    return true;
  error(loc, std::string("cannot cast ") + scalarName(from) + " to " + scalarName(to),
        std::string("fp8 converts to and from f32, f16 and bf16: go through f32, `(x as f32) as ") +
            scalarName(to) + "`");
  return false;
}

} // namespace tile::frontend
