//===- ParserAbstr.cpp - fn, const, template kernels, local arrays, unroll -===//
//
// `fn`, `const`, `local` and
// `unroll` are contextual words, not keywords: they keep their meaning as
// names elsewhere. Function bodies and template kernels keep their tokens so
// that every call / instance gets a fresh AST (parseFunctionBody,
// parseKernelAgain), checked in its own context.
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"
#include "CudaNames.h"

namespace tile::frontend {

std::vector<Token> Parser::tokensFrom(size_t from) const {
  std::vector<Token> out(toks_.begin() + from, toks_.begin() + pos_);
  Token eof;
  eof.kind = Tok::Eof;
  eof.loc = out.empty() ? Location{} : out.back().loc;
  out.push_back(eof);
  return out;
}

std::optional<Block> Parser::parseFunctionBody(const std::vector<Token> &tokens,
                                               DiagnosticEngine &diags,
                                               const TemplateNames &types) {
  Parser p(tokens, diags);
  p.inFunction_ = true;
  p.names_ = types;
  try {
    p.expect(Tok::LBrace, "'{'");
    return p.parseBlock(1);
  } catch (const Fail &) {
    return std::nullopt;
  }
}

std::unique_ptr<KernelAST>
Parser::parseKernelAgain(const std::vector<Token> &tokens, DiagnosticEngine &diags,
                         const std::vector<std::pair<std::string, ScalarKind>> &types) {
  Parser p(tokens, diags);
  p.bindings_ = types;
  try {
    return p.parseKernel();
  } catch (const Fail &) {
    return nullptr;
  }
}

/// `fn NAME(P: T, ...) [-> T] { ... }`
std::unique_ptr<FnAST> Parser::parseFn() {
  consume(); // fn
  const char *hint = "write `fn NAME(PARAM: TYPE, ...) -> TYPE { ... }` (`-> TYPE` only when it "
                     "returns a value)";
  auto f = std::make_unique<FnAST>();
  Token name = expect(Tok::Ident, "function name", hint);
  f->name = name.text;
  f->loc = name.loc;
  TemplateNames outerNames = names_;
  if (at(Tok::Lt))
    parseFnTypeParams(*f);
  expect(Tok::LParen, "'('", hint);
  while (!at(Tok::RParen)) {
    Token pname = expect(Tok::Ident, "parameter name", "parameters are written `NAME: TYPE`");
    if (!at(Tok::Colon))
      failCParam(pname);
    expect(Tok::Colon, "':'", "parameters are written `NAME: TYPE`");
    f->paramNames.push_back(pname.text);
    f->paramLocs.push_back(pname.loc);
    f->paramTypes.push_back(parseParamType());
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "')'", "separate parameters with ',' and close the list with ')'");
  if (accept(Tok::Arrow)) {
    if (at(Tok::LParen))
      f->results = parseResultTypes(); // ParserTuples.cpp
    else
      f->result = parseType();
  } else if (at(Tok::Colon)) {
    fail(cur().loc, "the result type is written `-> TYPE`", hint);
  }
  if (!at(Tok::LBrace))
    failExpected("'{'", "the function body is a block in braces");
  size_t start = pos_;
  consume();
  bool outer = inFunction_;
  inFunction_ = true;
  parseBlock(1); // syntax errors are reported once, here; each call parses again
  inFunction_ = outer;
  names_ = outerNames;
  f->bodyTokens = tokensFrom(start);
  return f;
}

/// `<T: type, M: i32, ...>` after a function's name: type parameters and
/// shape parameters (an extent of a parameter's type, `x: frag<f32>[M, N]`,
/// bound from the argument at each call; Sema checks that each is one). A
/// value is passed as an ordinary parameter: functions are inlined, so a
/// constant argument folds as a kernel's compile-time parameter would.
void Parser::parseFnTypeParams(FnAST &f) {
  const char *hint = "write `fn NAME<T: type>(x: T) -> T { ... }` or, for a shape, "
                     "`fn NAME<M: i32, N: i32>(x: frag<f32>[M, N]) { ... }`";
  consume(); // <
  do {
    Token n = expect(Tok::Ident, "type parameter name", hint);
    expect(Tok::Colon, "':'", hint);
    bool known = typeParam(n.text) || isValueParam(n.text);
    if (known)
      fail(n.loc, "duplicate type parameter '" + n.text + "'",
           "give every parameter a distinct name");
    if (scalarFromName(n.text))
      fail(n.loc, "type parameter '" + n.text + "' has the name of a scalar type",
           "name it T, U, Elem, ...");
    if (atIdent("type")) {
      consume();
      f.typeParams.push_back({n.text, n.loc, {}, /*isType=*/true});
      names_.types.push_back({n.text, std::nullopt});
      continue;
    }
    TypeSyntax t = parseScalarType("type");
    if (!t.type.isScalar(ScalarKind::I32))
      fail(t.loc, "a function's compile-time parameters are types (`" + n.text +
                      ": type`) or shapes (`" + n.text + ": i32`)",
           "pass a value as an ordinary parameter (calls are inlined, so a constant argument "
           "stays constant)");
    f.shapeParams.push_back({n.text, n.loc, t});
    names_.values.push_back(n.text);
  } while (accept(Tok::Comma));
  expect(Tok::Gt, "'>'", hint);
}

const std::pair<std::string, std::optional<ScalarKind>> *
Parser::typeParam(const std::string &name) const {
  for (const auto &t : names_.types)
    if (t.first == name)
      return &t;
  return nullptr;
}

bool Parser::isValueParam(const std::string &name) const {
  for (const std::string &v : names_.values)
    if (v == name)
      return true;
  return false;
}

bool Parser::isTypeNameAt(size_t n) const {
  const Token &t = n ? peekTok(n) : cur();
  return t.kind == Tok::Ident && (scalarFromName(t.text) || typeParam(t.text));
}

/// A type that is no scalar at token `n` where a type argument is
/// (`f<f16x2>(x)`, `f<vec<f32, 4>>(x)`): read as type arguments, so that
/// parseScalarType refuses the type; as a comparison, `f < f16x2` would
/// report the function's name as an unknown value instead.
bool Parser::isNonScalarTypeAt(size_t n) const {
  const Token &t = peekTok(n);
  if (t.kind != Tok::Ident)
    return false;
  if (t.text == "f16x2" || t.text == "bf16x2")
    return true;
  static const char *generic[] = {"vec", "ptr", "frag", "per_row", "per_col", "local", "view"};
  if (peekTok(n + 1).kind != Tok::Lt || !isTypeNameAt(n + 2))
    return false;
  for (const char *g : generic)
    if (t.text == g)
      return true;
  return false;
}

bool Parser::atCallTypeArgs() const {
  if (!at(Tok::Lt))
    return false;
  size_t n = 1;
  for (;;) {
    if (isNonScalarTypeAt(n) && peekTok(n + 1).kind == Tok::Lt)
      return true; // `vec < f32` is no comparison: parseScalarType explains
    if (!isTypeNameAt(n) && !isNonScalarTypeAt(n))
      return false;
    Tok next = peekTok(n + 1).kind;
    if (next == Tok::Gt)
      return peekTok(n + 2).kind == Tok::LParen;
    if (next != Tok::Comma)
      return false;
    n += 2;
  }
}

/// `const NAME [: T] = EXPR`
std::unique_ptr<ConstStmt> Parser::parseConst() {
  Token kw = consume(); // const
  const char *hint = "write `const NAME = EXPR` or `const NAME: TYPE = EXPR`";
  Token name = expect(Tok::Ident, "constant name", hint);
  std::optional<std::string> cType = cTypeName(name.text);
  if (cType && !cType->empty() && at(Tok::Ident) && peekTok().kind == Tok::Assign)
    fail(name.loc, // C's `const int N = 256`
         "a constant's type follows its name: C's `const " + name.text + " " + cur().text +
             "` is `const " + cur().text + ": " + *cType + "`",
         "write `const " + cur().text + ": " + *cType + " = ...`, or `const " + cur().text +
             " = ...` (an untyped integer constant takes its type from its use, like a "
             "literal; a float one is f32)");
  std::optional<TypeSyntax> annot;
  if (accept(Tok::Colon))
    annot = parseScalarType("type");
  expect(Tok::Assign, "'='", "a constant needs a value: `const NAME = EXPR`");
  auto decl = std::make_unique<Decl>();
  decl->kind = DeclKind::Const;
  decl->name = name.text;
  decl->loc = name.loc;
  ExprPtr init = parseExpr();
  auto s = std::make_unique<ConstStmt>(kw.loc, std::move(decl), std::move(annot), std::move(init));
  accept(Tok::Semi);
  return s;
}

/// `<NAME: T, ...>` after a kernel's name: values (`BN: i32`) and types
/// (`T: type`). In an instance (parseKernelAgain) each type parameter is
/// bound to its argument, so every type written with it is the argument.
void Parser::parseTemplateParams(KernelAST &k) {
  const char *hint = "write `kernel NAME<T: type, P: i32>(...)`: compile-time parameters are "
                     "types (`: type`), integers or i1";
  consume(); // <
  do {
    Token n = expect(Tok::Ident, "compile-time parameter name", hint);
    expect(Tok::Colon, "':'", hint);
    if (atIdent("type")) {
      consume();
      if (scalarFromName(n.text))
        fail(n.loc, "type parameter '" + n.text + "' has the name of a scalar type",
             "name it T, U, Elem, ...");
      TemplateParam p{n.text, n.loc, {n.loc, Type::i32()}, /*isType=*/true};
      k.templateParams.push_back(p);
      std::optional<ScalarKind> bound;
      for (const auto &[name, kind] : bindings_)
        if (name == n.text)
          bound = kind;
      names_.types.push_back({n.text, bound});
      continue;
    }
    TypeSyntax t = parseScalarType("type");
    k.templateParams.push_back({n.text, n.loc, t});
    names_.values.push_back(n.text);
  } while (accept(Tok::Comma));
  expect(Tok::Gt, "'>'", hint);
}

/// `let NAME = local<T>[N]`
StmtPtr Parser::parseLocalArray(const Token &kw, bool isVar, const std::optional<TypeSyntax> &annot,
                                std::unique_ptr<Decl> decl) {
  consume(); // local
  const char *hint = "write `let NAME = local<TYPE>[N]` with a constant N";
  if (isVar)
    fail(kw.loc, "local arrays must be declared with 'let'", hint);
  if (annot)
    fail(annot->loc, "a local array declaration takes no type annotation", hint);
  expect(Tok::Lt, "'<'", hint);
  TypeSyntax elem = parseScalarType("element type");
  expect(Tok::Gt, "'>'", hint);
  expect(Tok::LBracket, "'['", hint);
  ExprPtr count = parseExpr();
  expect(Tok::RBracket, "']'", hint);
  decl->kind = DeclKind::LocalArray;
  return std::make_unique<LocalArrayStmt>(kw.loc, std::move(decl), elem, std::move(count));
}

/// `unroll` or `unroll(F)` after a loop's bounds.
void Parser::parseUnroll(ForStmt &f) {
  Token u = consume();
  f.unrollLoc = u.loc;
  if (accept(Tok::LParen)) {
    f.unrollFactor = parseExpr();
    expect(Tok::RParen, "')'", "write `unroll(F)` with a constant factor F");
  } else {
    f.unrollFull = true;
  }
}

/// A function parameter's type: a scalar, `ptr<T, space>`, `view<T, shared|cluster>` (a shared
/// array, `h.local` or `remote(a, r)`), or `local<T>[N]`.
TypeSyntax Parser::parseParamType() {
  if (atIdent("view") && peekTok().kind == Tok::Lt) {
    Token v = consume();
    const char *hint = "write `view<TYPE, shared>` or `view<TYPE, cluster>`";
    consume(); // <
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Comma, "','", hint);
    std::optional<AddressSpace> space;
    if (at(Tok::KwShared))
      space = AddressSpace::Shared;
    else if (atIdent("cluster"))
      space = AddressSpace::Cluster;
    else
      failExpected("shared or cluster", hint);
    consume();
    expect(Tok::Gt, "'>'", hint);
    return {v.loc,
            Type::array(Type::ArrayView, elem.type.scalar, *space, ScalarKind::I32, std::nullopt),
            elem.typeParam};
  }
  if (atIdent("local") && peekTok().kind == Tok::Lt) {
    Token l = consume();
    const char *hint = "write `local<TYPE>[N]` with N an integer literal or a constant";
    consume(); // <
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Gt, "'>'", hint);
    expect(Tok::LBracket, "'['", hint);
    TypeSyntax ts{l.loc, Type::invalid(), elem.typeParam};
    int64_t n = parseTypeExtent(ts, 0, "local array length", hint, 1);
    expect(Tok::RBracket, "']'", hint);
    ts.type = Type::array(Type::LocalArray, elem.type.scalar, AddressSpace::Local,
                          ScalarKind::I32, n);
    return ts;
  }
  if ((at(Tok::KwShared) || at(Tok::KwDShared)) && peekTok().kind == Tok::Lt)
    fail(cur().loc,
         "a parameter takes a shared array as `view<T, shared>`, not `" + cur().text + "<T>[N]`",
         "`fn f(a: view<f32, shared>)` takes a 1-D shared array (its length is the array's), "
         "`ptr<f32, shared>` its first element's address; dshared arrays are not passed "
         "(docs/reference/kernels.md#functions)");
  return parseType();
}

/// `return` (kernels, functions without a result) or `return EXPR` (functions).
StmtPtr Parser::parseReturn() {
  auto r = std::make_unique<ReturnStmt>(consume().loc);
  // A value only on the same line: a following line is a new statement.
  if (!at(Tok::Semi) && !at(Tok::RBrace) && !at(Tok::Eof) && !cur().atLineStart) {
    if (!inFunction_)
      fail(cur().loc, "a kernel returns no value",
           "write `return` alone; store results through a pointer");
    if (tupleEnd())
      r->values = parseReturnValues(); // ParserTuples.cpp
    else
      r->value = parseExpr();
  }
  return r;
}

} // namespace tile::frontend
