//===- SemaFold.cpp - exact integer values of compile-time expressions ----===//
//
// The integers the compiler needs at compile time: tile and fragment
// extents, view sizes, unroll counts, constant indices. They are folded
// exactly (i64, no wrapping): a step that does not fit its own type is an
// overflow, not a wrapped value, since the extent would not be what the
// expression reads. The run-time semantics (wrapping, clamped shifts, IEEE
// rounding) and the constant undefined-operation checks are SemaConst.cpp's.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>

#include <vector>

namespace tile::frontend {

const Decl *Sema::compileTimeConstant(const std::string &name) {
  // A function (its signature, its inlined body) sees the file-level
  // constants alone.
  if (kernel_ && inlineStack_.empty())
    for (const auto &tp : kernel_->templateDecls)
      if (tp->name == name)
        return tp.get();
  Decl *d = lookup(name);
  return d && d->kind == DeclKind::Const ? d : nullptr;
}

bool Sema::resolveTypeExtents(TypeSyntax &ts, const std::vector<TemplateParam> *shapeParams) {
  bool ok = true;
  std::vector<TypeSyntax::NamedExtent> shapes; // a function's, bound at each call
  for (const TypeSyntax::NamedExtent &n : ts.namedExtents) {
    if (shapeParams && std::any_of(shapeParams->begin(), shapeParams->end(),
                                   [&](const TemplateParam &p) { return p.name == n.name; })) {
      shapes.push_back(n);
      continue;
    }
    const char *hint = "a type's extent is an integer literal, an integer `const` or a kernel's "
                       "compile-time value parameter (`kernel k<BN: i32>`)";
    const Decl *c = compileTimeConstant(n.name);
    std::string why;
    if (!c)
      why = std::string(lookup(n.name) ? "'" + n.name + "' is not a compile-time constant"
                                       : "unknown name '" + n.name + "'") +
            ": it cannot be a type's extent";
    else
      why = badCountConstant(*c, int64_t(1) << 20, "2^20", "type extent '" + n.name + "'");
    if (!why.empty()) {
      error(n.loc, why, hint);
      ok = false;
      continue;
    }
    setTypeExtent(ts.type, n.dim, c->constInt);
  }
  // The parser checks the shape of a vector of a literal length; a
  // function's signature holds its type and shape parameters unbound, and
  // each call checks the type it binds (inferInlinedCall).
  bool unboundElement = !kernel_ && !ts.typeParam.empty();
  if (ok && !ts.namedExtents.empty() && shapes.empty() && ts.type.isVector() && !unboundElement &&
      !checkVectorShape(ts.loc, ts.type.scalar, ts.type.lanes))
    ok = false;
  if (!ok)
    ts.type = Type::invalid();
  ts.namedExtents = std::move(shapes);
  return ok;
}

void setTypeExtent(Type &t, unsigned dim, int64_t value) {
  if (t.isVector())
    t.lanes = (int)value;
  else if (t.kind == Type::LocalArray)
    t.staticLength = value;
  else
    t.dims[dim] = value;
}

std::optional<int64_t> typeExtent(const Type &t, unsigned dim) {
  if (t.isVector())
    return t.lanes;
  if (t.kind == Type::LocalArray)
    return t.staticLength;
  if (t.isDistributed() && dim < t.dims.size())
    return t.dims[dim];
  return std::nullopt;
}

void Sema::checkShapeParamsBound(const FnAST &f) {
  for (const TemplateParam &p : f.shapeParams) {
    bool named = false;
    for (const TypeSyntax &ts : f.paramTypes)
      for (const TypeSyntax::NamedExtent &n : ts.namedExtents)
        named = named || n.name == p.name;
    if (!named)
      error(p.loc,
            "shape parameter '" + p.name + "' of '" + f.name +
                "' is no extent of a parameter's type, so no call can bind it",
            "a function's `" + p.name + ": i32` is an extent of an argument's type (`x: "
                "frag<f32>[64, " + p.name + "]`); pass a value as an ordinary parameter");
  }
}

/// Each shape parameter from the first argument whose declared type names
/// it (`x: frag<f32>[M, N]` and a frag<f32>[64, 128] argument: M = 64,
/// N = 128); another argument naming it must agree.
bool Sema::bindShapeParams(const FnAST &fn, CallExpr &e, std::vector<std::optional<Type>> &inferred,
                           std::vector<int64_t> &values) {
  values.assign(fn.shapeParams.size(), 0);
  std::vector<size_t> boundBy(fn.shapeParams.size(), e.args.size());
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const TypeSyntax &ts = fn.paramTypes[i];
    if (ts.namedExtents.empty())
      continue;
    if (!inferred[i])
      inferred[i] = infer(e.args[i]);
    const Type &got = *inferred[i];
    if (got.isInvalid()) {
      ok = false;
      continue;
    }
    std::string what =
        "argument " + std::to_string(i + 1) + " ('" + fn.paramNames[i] + "') of '" + fn.name + "'";
    if (got.kind != ts.type.kind) {
      const char *kind = ts.type.kind == Type::Fragment ? "a fragment"
                         : ts.type.kind == Type::PerRow ? "a per_row value"
                         : ts.type.kind == Type::PerCol ? "a per_col value"
                         : ts.type.isVector()           ? "a vector"
                                                        : "a local array";
      error(e.args[i]->loc,
            what + " has type " + got.str() + ", expected " + kind + " (its shape binds '" +
                ts.namedExtents[0].name + "')",
            "pass " + std::string(kind) + " of the declared element type");
      ok = false;
      continue;
    }
    for (const TypeSyntax::NamedExtent &n : ts.namedExtents) {
      size_t p = 0;
      while (fn.shapeParams[p].name != n.name)
        ++p;
      int64_t v = typeExtent(got, n.dim).value_or(0);
      if (boundBy[p] == e.args.size()) {
        values[p] = v;
        boundBy[p] = i;
      } else if (values[p] != v) {
        error(e.args[i]->loc,
              what + " makes " + n.name + " = " + std::to_string(v) + ", but argument " +
                  std::to_string(boundBy[p] + 1) + " made it " + std::to_string(values[p]),
              "the parameters share the extent " + n.name + ": pass arguments of one shape");
        ok = false;
      }
    }
  }
  return ok;
}

std::optional<int64_t> Sema::integerConstant(ExprPtr &e, bool &reported) {
  size_t errorsBefore = diags_.numErrors();
  Type t = checkValue(e, nullptr, "");
  bool overflow = false;
  std::optional<int64_t> v = !t.isInvalid() && t.isInteger() && !t.isBool() && checkConstantOps(*e)
                                 ? foldConstant(*e, overflow)
                                 : std::nullopt;
  reported = t.isInvalid() || diags_.numErrors() != errorsBefore;
  return overflow ? std::nullopt : v;
}

/// The exact value of a constant expression; `overflow` when some step does
/// not fit the i64 arithmetic here or the width of its own type (the
/// run-time value would wrap, so the value would not be what it reads).
std::optional<int64_t> Sema::foldConstant(const ExprAST &e, bool &overflow,
                                          const ConstantLeaf *leaf) {
  std::optional<int64_t> v = foldConstantUnchecked(e, overflow, leaf);
  if (v && e.type.isInteger() && !e.type.isBool()) {
    unsigned bits = bitWidth(e.type.scalar);
    bool u = e.type.isUnsigned(); // u64 values above INT64_MAX do not fold here
    int64_t lo = u ? 0 : bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
    int64_t hi = bits >= 64 ? INT64_MAX
                 : u        ? (int64_t(1) << bits) - 1
                            : (int64_t(1) << (bits - 1)) - 1;
    if (*v < lo || *v > hi) {
      overflow = true;
      return std::nullopt;
    }
  }
  return v;
}

std::optional<int64_t> Sema::foldConstantUnchecked(const ExprAST &e, bool &overflow,
                                                   const ConstantLeaf *leaf) {
  auto fold = [&](const ExprAST &x) { return foldConstant(x, overflow, leaf); };
  switch (e.kind()) {
  case ExprAST::IntLiteral: {
    int64_t v = e.as<IntLiteralExpr>()->value;
    // A u64 literal from 2^63 on is a valid value that i64 cannot hold: not
    // an overflow; the wrapping evaluator (evalConstant) decides.
    if (v < 0 && e.type.isUnsigned() && bitWidth(e.type.scalar) >= 64)
      return std::nullopt;
    return v;
  }
  case ExprAST::BoolLiteral:
    return e.as<BoolLiteralExpr>()->value ? 1 : 0;
  case ExprAST::Unary: {
    auto &u = *e.as<UnaryExpr>();
    auto v = fold(*u.operand);
    if (!v)
      return std::nullopt;
    if (u.op == UnaryOp::Neg) {
      if (*v == INT64_MIN) {
        overflow = true;
        return std::nullopt;
      }
      return -*v;
    }
    if (u.op == UnaryOp::Not)
      return *v == 0 ? 1 : 0;
    if (u.operand->type.isBool()) // ~true is false (not -2, which reads as true)
      return *v == 0 ? 1 : 0;
    if (u.operand->type.isUnsigned()) { // ~x = MAX - x: never overflows
      unsigned bits = bitWidth(u.operand->type.scalar);
      if (bits >= 64)
        return std::nullopt; // beyond i64: the wrapping evaluator (evalConstant) decides
      return ((int64_t(1) << bits) - 1) ^ *v;
    }
    return ~*v;
  }
  case ExprAST::Cast:
    return fold(*e.as<CastExpr>()->operand);
  case ExprAST::Select: { // only the chosen side counts (it is the only one evaluated)
    auto &sel = *e.as<SelectExpr>();
    auto c = fold(*sel.cond);
    if (!c)
      return std::nullopt;
    return fold(*c ? *sel.trueValue : *sel.falseValue);
  }
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    auto l = fold(*b.lhs), r = fold(*b.rhs);
    // `false && x`, `true || x` are decided by one side.
    if (b.op == BinaryOp::LogicalAnd && ((l && *l == 0) || (r && *r == 0)))
      return 0;
    if (b.op == BinaryOp::LogicalOr && ((l && *l != 0) || (r && *r != 0)))
      return 1;
    if (!l || !r)
      return std::nullopt;
    int64_t out = 0;
    switch (b.op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(*l, *r, &out))
        overflow = true;
      return out;
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(*l, *r, &out))
        overflow = true;
      return out;
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(*l, *r, &out))
        overflow = true;
      return out;
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (*r == 0 || (*l == INT64_MIN && *r == -1)) {
        overflow = true;
        return std::nullopt;
      }
      return b.op == BinaryOp::Div ? *l / *r : *l % *r;
    case BinaryOp::Shl:
      if (*r < 0 || *r > 62 || *l < 0 || (*l >> (62 - *r)) != 0) {
        overflow = true;
        return std::nullopt;
      }
      return *l << *r;
    case BinaryOp::Shr:
      if (*r < 0 || *r > 63) {
        overflow = true;
        return std::nullopt;
      }
      return *l >> *r;
    case BinaryOp::BitAnd:
      return *l & *r;
    case BinaryOp::BitOr:
      return *l | *r;
    case BinaryOp::BitXor:
      return *l ^ *r;
    case BinaryOp::Eq:
      return *l == *r;
    case BinaryOp::Ne:
      return *l != *r;
    case BinaryOp::Lt:
      return *l < *r;
    case BinaryOp::Le:
      return *l <= *r;
    case BinaryOp::Gt:
      return *l > *r;
    case BinaryOp::Ge:
      return *l >= *r;
    case BinaryOp::LogicalAnd:
      return *l != 0 && *r != 0;
    case BinaryOp::LogicalOr:
      return *l != 0 || *r != 0;
    }
    return std::nullopt;
  }
  case ExprAST::Call: { // min, max, clamp of integer constants (as evalConstant)
    auto &call = *e.as<CallExpr>();
    bool isMin = call.builtin == Builtin::Min, isMax = call.builtin == Builtin::Max;
    bool isClamp = call.builtin == Builtin::Clamp;
    if (!isMin && !isMax && !isClamp)
      return leaf ? (*leaf)(e) : std::nullopt;
    if (!e.type.isInteger() || e.type.isBool() || !call.namedArgs.empty() ||
        call.args.size() != (isClamp ? 3u : 2u))
      return std::nullopt;
    std::vector<int64_t> v;
    for (const ExprPtr &a : call.args) {
      if (a->type != e.type) // checked calls have one operand type
        return std::nullopt;
      std::optional<int64_t> x = fold(*a);
      if (!x)
        return std::nullopt;
      v.push_back(*x);
    }
    // Values are exact and in their type's range (foldConstant checks each),
    // so signed i64 order is the order of signed and unsigned types alike.
    if (isClamp) // min(max(x, lo), hi): hi when lo > hi
      return std::min(std::max(v[0], v[1]), v[2]);
    return isMin ? std::min(v[0], v[1]) : std::max(v[0], v[1]);
  }
  default:
    return leaf ? (*leaf)(e) : std::nullopt;
  }
}

} // namespace tile::frontend
