//===- ParserExpr.cpp - expressions of the tile language -------------------===//
//
// Precedence climbing over the binary operators (binaryPrec: `||` lowest,
// `* / %` highest), then `as` casts, unary operators, postfix indexing and
// members, and primaries (literals, names, calls, `{...}` vectors and the
// special forms bitcast<T>(x) and zeros<T>[M, N]). Every recursive path
// passes through parseUnary or parseConditional, whose DepthGuard bounds the
// nesting (exprNesting_).
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"
#include "CudaNames.h"

#include <algorithm>
#include <climits>

namespace tile::frontend {

namespace {
/// `0x...` / `0b...`: an integer literal that may stand for a bit pattern.
bool isPatternSpelling(const std::string &text) {
  return text.size() > 1 && text[0] == '0' &&
         (text[1] == 'x' || text[1] == 'X' || text[1] == 'b' || text[1] == 'B');
}

/// Keeps parser recursion bounded: every recursive expression path passes
/// through parseUnary, every statement path through parseBlock.
struct DepthGuard {
  int &depth;
  explicit DepthGuard(int &d) : depth(d) { ++depth; }
  ~DepthGuard() { --depth; }
};

int binaryPrec(Tok k) {
  switch (k) {
  case Tok::PipePipe:
    return 1;
  case Tok::AmpAmp:
    return 2;
  case Tok::Pipe:
    return 3;
  case Tok::Caret:
    return 4;
  case Tok::Amp:
    return 5;
  case Tok::EqEq:
  case Tok::Ne:
    return 6;
  case Tok::Lt:
  case Tok::Le:
  case Tok::Gt:
  case Tok::Ge:
    return 7;
  case Tok::Shl:
  case Tok::Shr:
    return 8;
  case Tok::Plus:
  case Tok::Minus:
    return 9;
  case Tok::Star:
  case Tok::Slash:
  case Tok::Percent:
    return 10;
  default:
    return -1;
  }
}

BinaryOp binaryOpOf(Tok k) {
  switch (k) {
  case Tok::PipePipe:
    return BinaryOp::LogicalOr;
  case Tok::AmpAmp:
    return BinaryOp::LogicalAnd;
  case Tok::Pipe:
    return BinaryOp::BitOr;
  case Tok::Caret:
    return BinaryOp::BitXor;
  case Tok::Amp:
    return BinaryOp::BitAnd;
  case Tok::EqEq:
    return BinaryOp::Eq;
  case Tok::Ne:
    return BinaryOp::Ne;
  case Tok::Lt:
    return BinaryOp::Lt;
  case Tok::Le:
    return BinaryOp::Le;
  case Tok::Gt:
    return BinaryOp::Gt;
  case Tok::Ge:
    return BinaryOp::Ge;
  case Tok::Shl:
    return BinaryOp::Shl;
  case Tok::Shr:
    return BinaryOp::Shr;
  case Tok::Plus:
    return BinaryOp::Add;
  case Tok::Minus:
    return BinaryOp::Sub;
  case Tok::Star:
    return BinaryOp::Mul;
  case Tok::Slash:
    return BinaryOp::Div;
  default:
    return BinaryOp::Rem;
  }
}

} // namespace

/// `{ expr, ... }`: store_async's VALUE, or a vec<T, N> value (SemaVector.cpp).
ExprPtr Parser::parseVector() {
  Token lb = consume(); // '{'
  const char *hint = "a vector literal is written `{a, b}` or `{a, b, c, d}`";
  std::vector<ExprPtr> elems;
  int depth = 1;
  do {
    elems.push_back(parseExpr());
    depth = std::max(depth, elems.back()->depth + 1);
  } while (accept(Tok::Comma) && !at(Tok::RBrace));
  expect(Tok::RBrace, "',' or '}'", hint);
  auto e = std::make_unique<VectorExpr>(lb.loc, std::move(elems));
  e->depth = depth;
  checkDepth(*e);
  return e;
}

void Parser::checkDepth(ExprAST &e) {
  if (e.depth > kMaxDepth)
    fail(e.loc, "expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)",
         "split the expression with `let` temporaries");
}

ExprPtr Parser::parseExpr() { return parseConditional(); }

/// As in C: `a ? b : c ? d : e` is `a ? b : (c ? d : e)`, the middle operand
/// is a whole expression, and `?` binds looser than `||`.
ExprPtr Parser::parseConditional() {
  ExprPtr cond = parseBinary(1);
  if (!at(Tok::Question))
    return cond;
  DepthGuard guard(exprNesting_);
  if (exprNesting_ > kMaxDepth)
    fail(cur().loc,
         "expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)",
         "split the expression with `let` temporaries");
  Token q = consume();
  ExprPtr a = parseConditional();
  expect(Tok::Colon, "':'", "a conditional expression is written `c ? a : b`");
  ExprPtr b = parseConditional();
  int depth = std::max({cond->depth, a->depth, b->depth}) + 1;
  auto e = std::make_unique<SelectExpr>(q.loc, std::move(cond), std::move(a), std::move(b));
  e->depth = depth;
  checkDepth(*e);
  return e;
}

ExprPtr Parser::parseBitcast(Token name) {
  const char *hint = "write `bitcast<T>(x)` with a scalar type T of x's size, e.g. bitcast<u32>(f)";
  expect(Tok::Lt, "'<'", hint);
  TypeSyntax to = parseScalarType("type");
  expect(Tok::Gt, "'>'", hint);
  if (!at(Tok::LParen))
    failExpected("'('", hint);
  ExprPtr call = parseCall(name);
  call->as<CallExpr>()->typeArg = to;
  return call;
}

ExprPtr Parser::parseBinary(int minPrec) {
  ExprPtr lhs = parseCastExpr();
  for (;;) {
    if (at(Tok::Arrow)) // `->` only introduces a function's result type
      fail(cur().loc, "there is no '->' operator",
           "access elements with `p[i]`, arrays' members with `h.local`");
    int prec = binaryPrec(cur().kind);
    if (prec < minPrec)
      return lhs;
    Token op = consume();
    if (op.kind == Tok::Star && op.atLineStart)
      lineStartStar_ = op.loc;
    ExprPtr rhs = parseBinary(prec + 1);
    int depth = std::max(lhs->depth, rhs->depth) + 1;
    lhs = std::make_unique<BinaryExpr>(op.loc, binaryOpOf(op.kind), std::move(lhs), std::move(rhs));
    lhs->depth = depth;
    checkDepth(*lhs);
  }
}

ExprPtr Parser::parseCastExpr() {
  ExprPtr e = parseUnary();
  while (at(Tok::KwAs)) {
    Token as = consume();
    TypeSyntax ty = parseType();
    int depth = e->depth + 1;
    e = std::make_unique<CastExpr>(as.loc, std::move(e), ty);
    e->depth = depth;
    checkDepth(*e);
  }
  return e;
}

ExprPtr Parser::parseUnary() {
  DepthGuard guard(exprNesting_);
  if (exprNesting_ > kMaxDepth)
    fail(cur().loc,
         "expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)",
         "split the expression with `let` temporaries");
  if (at(Tok::Minus) || at(Tok::Bang) || at(Tok::Tilde)) {
    Token op = consume();
    // Fold `-LITERAL` so that the most negative integers are expressible.
    if (op.kind == Tok::Minus && at(Tok::IntLit) && peekTok().kind != Tok::LBracket &&
        peekTok().kind != Tok::Dot) {
      Token lit = consume();
      if (lit.intValue > (uint64_t)INT64_MAX + 1)
        fail(op.loc, "integer literal '-" + lit.text + "' does not fit in 64 bits",
             "the smallest i64 is -9223372036854775808");
      auto e = std::make_unique<IntLiteralExpr>(op.loc, (int64_t)(0 - lit.intValue));
      e->magnitude = lit.intValue;
      e->negated = true;
      e->bitPattern = isPatternSpelling(lit.text);
      return e;
    }
    if (op.kind == Tok::Minus && at(Tok::FloatLit) && peekTok().kind != Tok::LBracket &&
        peekTok().kind != Tok::Dot) {
      Token lit = consume();
      return std::make_unique<FloatLiteralExpr>(op.loc, -lit.floatValue, -lit.nearestValue);
    }
    ExprPtr operand = parseUnary();
    UnaryOp uop = op.kind == Tok::Minus  ? UnaryOp::Neg
                  : op.kind == Tok::Bang ? UnaryOp::Not
                                         : UnaryOp::BitNot;
    int depth = operand->depth + 1;
    auto e = std::make_unique<UnaryExpr>(op.loc, uop, std::move(operand));
    e->depth = depth;
    checkDepth(*e);
    return e;
  }
  return parsePostfix();
}

ExprPtr Parser::parsePostfix() {
  ExprPtr e = parsePrimary();
  for (;;) {
    if (at(Tok::LBracket)) {
      Token lb = consume();
      ExprPtr idx = parseExpr();
      int depth = std::max(e->depth, idx->depth) + 1;
      std::vector<ExprPtr> more = parseMoreIndices(depth);
      expect(Tok::RBracket, "']'", "an index expression is closed with ']'");
      auto ie = std::make_unique<IndexExpr>(lb.loc, std::move(e), std::move(idx));
      ie->moreIndices = std::move(more);
      e = std::move(ie);
      e->depth = depth;
    } else if (at(Tok::Dot)) {
      Token dot = consume();
      Token name = expect(Tok::Ident, "member name", "members are `.local` and `.local_base`");
      if (at(Tok::LParen) && cur().loc.line == name.loc.line)
        failMethodCall(*e, name); // `tl.program_id(0)`, `x.to(f16)`
      int depth = e->depth + 1;
      e = std::make_unique<MemberExpr>(name.loc, std::move(e), name.text);
      e->depth = depth;
    } else {
      return e;
    }
    checkDepth(*e);
  }
}

void Parser::failMethodCall(const ExprAST &receiver, const Token &name) {
  // Triton's `tl.NAME(...)`: what the table of other languages' names says,
  // or the builtin of the same name.
  auto *module = receiver.as<VarRefExpr>();
  if (module && module->name == "tl") {
    if (std::optional<CudaName> found = cudaFunction(name.text))
      fail(receiver.loc,
           found->tileForm.empty()
               ? "tile has no equivalent of Triton's tl." + name.text
               : "Triton's tl." + name.text + " is `" + found->tileForm + "` in tile",
           found->hint);
    if (builtinFromName(name.text) != Builtin::Unknown)
      fail(receiver.loc, "Triton's tl." + name.text + " is the builtin `" + name.text + "(...)`",
           "tile's builtins are plain functions, called without a prefix "
           "(docs/reference/builtins.md)");
    fail(receiver.loc, "tile has no module 'tl': Triton's tl." + name.text + " is not a builtin",
         "tile's builtins are plain functions, called without a prefix "
         "(docs/reference/builtins.md lists them)");
  }
  if (name.text == "to")
    fail(name.loc, "tile has no methods: a conversion is written `x as T`, not `x.to(T)`",
         "`x as f16`, `acc as bf16` (round to nearest even)");
  fail(name.loc, "tile has no methods: '." + name.text + "(...)' cannot be called",
       "builtins are functions that take the value as an argument, `" + name.text +
           "(x, ...)` (docs/reference/builtins.md); members are `.local` and `.local_base` of a "
           "dshared array and a ring stage's tiles");
}

ExprPtr Parser::parsePrimary() {
  switch (cur().kind) {
  case Tok::IntLit: {
    Token t = consume();
    auto e = std::make_unique<IntLiteralExpr>(t.loc, (int64_t)t.intValue);
    e->magnitude = t.intValue;
    e->bitPattern = isPatternSpelling(t.text);
    return e;
  }
  case Tok::FloatLit: {
    Token t = consume();
    return std::make_unique<FloatLiteralExpr>(t.loc, t.floatValue, t.nearestValue);
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    Token t = consume();
    return std::make_unique<BoolLiteralExpr>(t.loc, t.kind == Tok::KwTrue);
  }
  case Tok::Ident: {
    Token t = consume();
    if (t.text == "bitcast" && at(Tok::Lt))
      return parseBitcast(t);
    if (t.text == "zeros" && atZeros())
      return parseZeros(t); // ParserMma.cpp
    // `vec<f32, 4>{...}` / `vec<f32, 4>(...)`: a type where a value is
    // (a C++ constructor); `vec < x` of a variable named vec stays a
    // comparison (no `, N` after a type name).
    if (t.text == "vec" && at(Tok::Lt) && peekTok().kind == Tok::Ident &&
        (scalarFromName(peekTok().text) || typeParam(peekTok().text)) &&
        peekTok(2).kind == Tok::Comma)
      fail(
          t.loc, "a vector type is not a value",
          "a vector is built with `{a, b, ...}` and takes its type from the binding: `let v: vec<" +
              peekTok().text + ", N> = {a, b, ...}`; `v as vec<f16, N>` converts one");
    if (atCallTypeArgs()) { // f<f16>(x): a function's explicit type arguments
      consume();            // <
      std::vector<TypeSyntax> types;
      do
        types.push_back(parseScalarType("type argument"));
      while (accept(Tok::Comma));
      consume(); // >
      ExprPtr call = parseCall(t);
      call->as<CallExpr>()->typeArgs = std::move(types);
      return call;
    }
    // `(a, b) = f(...)` on the next line assigns several values: it is no
    // call of the name that ends this line (ParserTuples.cpp).
    bool nextIsTupleAssign = at(Tok::LParen) && cur().atLineStart && tupleEnd() &&
                             peekTok(tupleEnd() + 1).kind == Tok::Assign;
    if (at(Tok::LParen) && !nextIsTupleAssign)
      return parseCall(t);
    return std::make_unique<VarRefExpr>(t.loc, t.text);
  }
  case Tok::LParen: {
    consume();
    ExprPtr e = parseExpr();
    if (at(Tok::Comma)) // ParserTuples.cpp
      fail(cur().loc, "several values in parentheses are not one value",
           "several values are returned (`return (a, b)` in a `fn ... -> (T1, T2)`), bound "
           "(`let (a, b) = f(...)`) or assigned (`(a, b) = f(...)`)");
    expect(Tok::RParen, "')'", "a parenthesized expression is closed with ')'");
    return e;
  }
  case Tok::KwShared:
  case Tok::KwDShared:
    fail(cur().loc, "shared arrays can only be declared in a `let`",
         "write `let NAME = shared<TYPE>[COUNT]` at the top level of the kernel");
  case Tok::LBrace:
    return parseVector();
  case Tok::Amp:
    fail(cur().loc, "tile has no address-of operator '&'",
         "builtins take the element itself: CUDA's `atomicAdd(&p[i], v)` is `atomic_add(p[i], "
         "v)`; a pointer to element i is `p + i`");
  case Tok::Star:
    fail(cur().loc, "tile has no dereference operator '*'",
         "C's `*p` is `p[0]` and `*(p + i)` is `p[i]`");
  default:
    if (cur().kind >= Tok::Assign && cur().kind <= Tok::ShrAssign && lineStartStar_ &&
        lineStartStar_->line == cur().loc.line)
      fail(*lineStartStar_,
           "tile has no dereference operator '*': this `*` multiplies the line before by what "
           "follows it",
           "newlines do not end statements; C's `*p = v` is `p[0] = v`");
    failExpected("an expression",
                 "expressions are literals, names, calls, `(e)`, `e[i]`, `e.member` and operators");
  }
}

ExprPtr Parser::parseCall(Token name) {
  consume(); // '('
  std::vector<ExprPtr> args;
  std::vector<NamedArg> named;
  int depth = 1;
  while (!at(Tok::RParen)) {
    if (at(Tok::Ident) && peekTok().kind == Tok::Assign) {
      NamedArg na;
      Token n = consume();
      na.name = n.text;
      na.loc = n.loc;
      consume(); // '='
      na.valueLoc = cur().loc;
      if (at(Tok::Ident) && (peekTok().kind == Tok::Comma || peekTok().kind == Tok::RParen))
        na.value = cur().text;
      na.expr = parseExpr();
      depth = std::max(depth, na.expr->depth + 1);
      named.push_back(std::move(na));
    } else {
      if (!named.empty())
        fail(cur().loc, "positional argument after a named argument",
             "named arguments (order = ..., scope = ...) come last");
      args.push_back(parseExpr()); // `{a, b}` is a primary expression (parseVector)
      depth = std::max(depth, args.back()->depth + 1);
    }
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "')'", "separate arguments with ',' and close the call with ')'");
  auto e = std::make_unique<CallExpr>(name.loc, name.text, std::move(args), std::move(named));
  e->depth = depth;
  checkDepth(*e);
  return e;
}

} // namespace tile::frontend
