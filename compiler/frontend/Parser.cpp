//===- Parser.cpp - recursive-descent parser for the tile language ---------===//
//
// Modules, kernels, types and statements. Statements are separated by
// newlines or optional ';' (newlines carry no meaning). Expressions are in
// ParserExpr.cpp: C precedence; `e as T` binds tighter than the binary
// operators and looser than unary ones (as in Rust).
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"
#include "CudaNames.h"

#include <cctype>

namespace tile::frontend {

namespace {

std::string describe(const Token &t) {
  switch (t.kind) {
  case Tok::Ident:
    return "identifier '" + t.text + "'";
  case Tok::IntLit:
    return "integer literal '" + t.text + "'";
  case Tok::FloatLit:
    return "float literal '" + t.text + "'";
  default:
    return tokSpelling(t.kind);
  }
}

/// A keyword token (`for`, `shared`, ...): spelled like a name, never one.
bool isKeyword(const Token &t) {
  return t.kind != Tok::Ident && !t.text.empty() &&
         std::isalpha(static_cast<unsigned char>(t.text[0]));
}

std::optional<AssignOp> assignOpOf(Tok k) {
  switch (k) {
  case Tok::Assign:
    return AssignOp::Assign;
  case Tok::PlusAssign:
    return AssignOp::Add;
  case Tok::MinusAssign:
    return AssignOp::Sub;
  case Tok::StarAssign:
    return AssignOp::Mul;
  case Tok::SlashAssign:
    return AssignOp::Div;
  case Tok::PercentAssign:
    return AssignOp::Rem;
  case Tok::AmpAssign:
    return AssignOp::BitAnd;
  case Tok::PipeAssign:
    return AssignOp::BitOr;
  case Tok::CaretAssign:
    return AssignOp::BitXor;
  case Tok::ShlAssign:
    return AssignOp::Shl;
  case Tok::ShrAssign:
    return AssignOp::Shr;
  default:
    return std::nullopt;
  }
}
} // namespace

Parser::Parser(std::vector<Token> tokens, DiagnosticEngine &diags)
    : toks_(std::move(tokens)), diags_(diags) {
  if (toks_.empty() || toks_.back().kind != Tok::Eof) {
    Token eof;
    eof.kind = Tok::Eof;
    if (!toks_.empty())
      eof.loc = toks_.back().loc;
    toks_.push_back(eof);
  }
}

const Token &Parser::peekTok(size_t n) const {
  return pos_ + n < toks_.size() ? toks_[pos_ + n] : toks_.back();
}

bool Parser::atIdent(const char *text) const { return at(Tok::Ident) && cur().text == text; }

Token Parser::consume() {
  Token t = cur();
  if (pos_ + 1 < toks_.size())
    ++pos_;
  return t;
}

bool Parser::accept(Tok k) {
  if (!at(k))
    return false;
  consume();
  return true;
}

void Parser::fail(const Location &loc, std::string msg, std::string hint) {
  diags_.error(loc, std::move(msg), std::move(hint));
  throw Fail{};
}

void Parser::failCParam(const Token &first) {
  // C's `float* c`, `const float* a`, `unsigned int n`: the type first, a
  // `*` for a pointer. (`first` is consumed; cur() is the token after it.)
  size_t skip = 0;
  std::string written = first.text;
  std::optional<std::string> tile = cTypeName(first.text);
  if (first.text == "const" && cur().kind == Tok::Ident && cTypeName(cur().text)) {
    tile = cTypeName(cur().text);
    written += " " + peekTok(skip++).text;
  } else if (first.text == "unsigned" && (atIdent("int") || atIdent("long"))) {
    tile = cur().text == "int" ? "u32" : "u64";
    written += " " + peekTok(skip++).text;
  }
  if ((!tile || tile->empty()) && skip == 0 && at(Tok::Ident) && cTypeName(cur().text) &&
      !cTypeName(cur().text)->empty())
    // Go's `n int`: the name first, but no ':' before the type.
    fail(cur().loc,
         "a parameter's type follows a ':': `" + first.text + ": " + *cTypeName(cur().text) + "`",
         "parameters are written `NAME: TYPE`; C's " + cur().text + " is " +
             *cTypeName(cur().text));
  if (!tile || tile->empty())
    return;
  bool pointer = peekTok(skip).kind == Tok::Star;
  const Token &name = peekTok(skip + (pointer ? 1 : 0));
  if (!pointer && name.kind != Tok::Ident)
    return; // a parameter named like a C type, without its `: TYPE`
  std::string n = name.kind == Tok::Ident ? name.text : "p";
  std::string form = pointer ? n + ": ptr<" + *tile + ", global>" : n + ": " + *tile;
  fail(first.loc,
       "parameters are written `NAME: TYPE`, the name first: C's `" + written +
           (pointer ? "* " : " ") + n + "` is `" + form + "`",
       pointer ? "a pointer is `ptr<T, global>` (or `ptr<T, shared>`); tile has no `const` or "
                 "`__restrict__` on parameters"
               : "scalar types are i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, "
                 "f64, e4m3, e5m2");
}

void Parser::failExpected(const char *what, const char *hint) {
  if (at(Tok::Error))
    throw Fail{}; // the lexer already reported it
  // Another language's word where the syntax wants something else
  // (`if a and b {`, `def f(...)` at file level) says what tile writes.
  if (at(Tok::Ident))
    if (auto foreign = foreignWord(cur().text))
      fail(cur().loc, foreign->message, foreign->hint);
  fail(cur().loc, std::string("expected ") + what + ", found " + describe(cur()), hint);
}

Token Parser::expect(Tok k, const char *what, const char *hint) {
  // A keyword where a name is expected (`let for = 1`, `fn if(...)`): the
  // generic hint would not say why the name is refused.
  if (k == Tok::Ident && isKeyword(cur()))
    fail(cur().loc, std::string("expected ") + what + ", found the keyword '" + cur().text + "'",
         "'" + cur().text +
             "' is a keyword and never a name (the keywords: kernel let var for in if else "
             "while return true false as shared dshared break continue); choose another, e.g. `" +
             cur().text + "_`");
  if (!at(k))
    failExpected(what, hint);
  return consume();
}

std::unique_ptr<ModuleAST> Parser::parseModule(const std::string &file) {
  auto module = std::make_unique<ModuleAST>();
  module->file = file;
  try {
    while (!at(Tok::Eof)) {
      if (accept(Tok::Semi))
        continue;
      if (atIdent("fn")) {
        module->functions.push_back(parseFn());
        continue;
      }
      if (atIdent("const") && (peekTok().kind == Tok::Ident || isKeyword(peekTok()))) {
        module->consts.push_back(parseConst());
        continue;
      }
      if (at(Tok::Ident) && !(atIdent("const") || atIdent("fn")))
        if (auto foreign = foreignFileWord(cur().text))
          fail(cur().loc, foreign->message, foreign->hint);
      module->kernels.push_back(parseKernel());
    }
  } catch (const Fail &) {
    return nullptr;
  }
  return module;
}

//===----------------------------------------------------------------------===//
// Kernels and types
//===----------------------------------------------------------------------===//

std::unique_ptr<KernelAST> Parser::parseKernel() {
  size_t start = pos_;
  expect(Tok::KwKernel, "'kernel'",
         "a file is a sequence of `kernel NAME(PARAM: TYPE, ...) { ... }`, `fn` and `const` "
         "definitions");
  auto k = std::make_unique<KernelAST>();
  Token name = expect(Tok::Ident, "kernel name", "write `kernel NAME(...)`");
  k->name = name.text;
  k->loc = name.loc;
  TemplateNames outerNames = names_;
  if (at(Tok::Lt))
    parseTemplateParams(*k);
  expect(Tok::LParen, "'('", "the kernel name is followed by its parameter list");
  while (!at(Tok::RParen)) {
    Token pname = expect(Tok::Ident, "parameter name", "parameters are written `NAME: TYPE`");
    if (!at(Tok::Colon))
      failCParam(pname);
    expect(Tok::Colon, "':'", "parameters are written `NAME: TYPE`");
    std::optional<TypeSyntax> peerTy = parsePeerParamType(*k, (int)k->params.size());
    TypeSyntax ty = peerTy ? *peerTy
                    : atIdent("tensor") && peekTok().kind == Tok::Lt
                        ? parseTensorParamType(*k, (int)k->params.size())
                        : parseType();
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::Param;
    d->name = pname.text;
    d->loc = pname.loc;
    d->type = ty.type;
    d->paramIndex = (int)k->params.size();
    k->params.push_back(std::move(d));
    k->paramTypes.push_back(ty);
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "')'", "separate parameters with ',' and close the list with ')'");
  parseKernelAttrs(*k);
  expect(Tok::LBrace, "'{'", "the kernel body is a block in braces");
  k->body = parseBlock(1);
  names_ = outerNames;
  if (!k->templateParams.empty())
    k->tokens = tokensFrom(start);
  return k;
}

void Parser::parseKernelAttrs(KernelAST &k) {
  while (at(Tok::Ident)) {
    Token attr = consume();
    if (attr.text == "cluster") {
      if (k.cluster.kind != ClusterAttr::None)
        fail(attr.loc, "duplicate cluster attribute", "give cluster(...) at most once");
      k.cluster.loc = attr.loc;
      expect(Tok::LParen, "'('", "write cluster(X[, Y[, Z]]) or cluster(dynamic)");
      if (atIdent("dynamic")) {
        consume();
        expect(Tok::RParen, "')'", "write cluster(dynamic)");
        k.cluster.kind = ClusterAttr::Dynamic;
      } else {
        k.cluster.dims = parseDims("cluster", &k.cluster.names);
        k.cluster.kind = ClusterAttr::Static;
      }
    } else if (attr.text == "threads") {
      if (k.threads.present)
        fail(attr.loc, "duplicate threads attribute", "give threads(...) at most once");
      k.threads.loc = attr.loc;
      expect(Tok::LParen, "'('", "write threads(X[, Y[, Z]])");
      k.threads.dims = parseDims("threads", &k.threads.names);
      k.threads.present = true;
    } else if (attr.text == "max_threads" || attr.text == "min_blocks") {
      parseLaunchBound(k, attr);
    } else if (attr.text == "__launch_bounds__") {
      fail(attr.loc, "CUDA's __launch_bounds__(N, B) is `max_threads(N) min_blocks(B)` in tile",
           "`threads(N)` fixes the block shape instead (PTX .reqntid); max_threads(N) "
           "(.maxntid) bounds it and min_blocks(B) (.minnctapersm) asks for B CTAs per SM");
    } else {
      fail(attr.loc, "unknown kernel attribute '" + attr.text + "'",
           "kernel attributes are cluster(X[,Y,Z]), cluster(dynamic), threads(X[,Y,Z]), "
           "max_threads(N) and min_blocks(N)");
    }
  }
}

/// max_threads(N) / min_blocks(N): one positive integer literal, or a
/// constant expression of file-level constants and the kernel's compile-time
/// parameters that Sema evaluates (resolveAttrNames; ranges are checked by
/// Sema against tile/target.h).
void Parser::parseLaunchBound(KernelAST &k, const Token &attr) {
  bool isMax = attr.text == "max_threads";
  std::optional<int> &slot = isMax ? k.bounds.maxThreads : k.bounds.minBlocks;
  if (slot)
    fail(attr.loc, "duplicate " + attr.text + " attribute",
         "give " + attr.text + "(N) at most once");
  (isMax ? k.bounds.maxThreadsLoc : k.bounds.minBlocksLoc) = attr.loc;
  std::string hint = "write " + attr.text +
                     "(N) with a positive integer literal or a compile-time constant";
  expect(Tok::LParen, "'('", hint.c_str());
  if (!(at(Tok::IntLit) && peekTok().kind == Tok::RParen)) {
    (isMax ? k.bounds.maxThreadsName : k.bounds.minBlocksName).expr = parseExpr();
    slot = 1; // Sema gives the value
    expect(Tok::RParen, "')'", hint.c_str());
    return;
  }
  Token t = expect(Tok::IntLit, "a positive integer", hint.c_str());
  if (t.intValue < 1 || t.intValue > (1u << 20))
    fail(t.loc, attr.text + " of " + t.text + " is out of range", hint);
  slot = (int)t.intValue;
  expect(Tok::RParen, "')'", hint.c_str());
}

std::array<int, 3> Parser::parseDims(const char *attr, std::array<DimName, 3> *names) {
  // The '(' was consumed by the caller.
  std::string hint =
      std::string("write ") + attr + "(X[, Y[, Z]]) with positive integer literals or constants";
  std::array<int, 3> dims{1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    if (names &&
        !(at(Tok::IntLit) && (peekTok().kind == Tok::Comma || peekTok().kind == Tok::RParen))) {
      (*names)[i].expr = parseExpr(); // a constant expression: Sema gives its value
      if (!accept(Tok::Comma))
        break;
      continue;
    }
    Token t = expect(Tok::IntLit, "a positive integer", hint.c_str());
    if (t.intValue < 1 || t.intValue > (1u << 20))
      fail(t.loc, std::string(attr) + " dimension " + t.text + " is out of range", hint);
    dims[i] = (int)t.intValue;
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "')'", hint.c_str());
  return dims;
}

/// For the name of a type that is not a scalar, where that type may be
/// written (the hint of a type in a place that takes a scalar, or takes
/// another kind of type), or null.
static const char *typeConstructorPlace(const std::string &name) {
  if (name == "local")
    return "a local array is made by `let NAME = local<TYPE>[N]` (no `var`, no annotation); "
           "`local<TYPE>[N]` is written as a type only for a function parameter";
  if (name == "view")
    return "`view<TYPE, shared|cluster>` is written only as a function parameter's type";
  if (name == "tensor")
    return "`tensor<TYPE>[...]` is written only as a kernel parameter's type";
  if (name == "shared" || name == "dshared")
    return "a shared array is made by `let NAME = shared<TYPE>[N]` at the kernel's top level";
  if (name == "vec" || name == "ptr" || name == "frag" || name == "per_row" ||
      name == "per_col" || name == "f16x2" || name == "bf16x2")
    return "only a scalar type can be written here (an array's or a pointer's element type, "
           "a constant's, a compile-time parameter's, a type argument, bitcast's target): i1, i8, "
           "i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, e4m3, e5m2";
  return nullptr;
}

TypeSyntax Parser::parseScalarType(const char *what, bool orVector) {
  if (!at(Tok::Ident))
    failExpected(what,
                 "scalar types are i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, e4m3, e5m2");
  Token t = consume();
  // A type parameter: its type in an instance; in a template's first parse
  // (syntax only) a stand-in that every construct accepts syntactically.
  if (const auto *p = typeParam(t.text))
    return {t.loc, Type::scalarTy(p->second.value_or(ScalarKind::F32)), t.text};
  auto k = scalarFromName(t.text);
  if (!k && isValueParam(t.text))
    fail(t.loc, "'" + t.text + "' is a compile-time value parameter, not a type",
         "a type is needed here: write a scalar type, or declare the parameter `" + t.text +
             ": type` to make it a type parameter");
  // Named as written: `vec<...>` for a generic type, `f16x2` for a packed
  // one (no parameters to elide).
  if (!k)
    if (const char *where = typeConstructorPlace(t.text))
      fail(t.loc, "'" + t.text + (at(Tok::Lt) ? "<...>" : "") + "' cannot be written here", where);
  if (!k) {
    std::optional<std::string> c = cTypeName(t.text); // C's `float`, CUDA's `__half`
    if (c && !c->empty() && at(Tok::Star))            // C's `float*`
      fail(t.loc, "unknown type '" + t.text + "*'; C's " + t.text + "* is ptr<" + *c + ", global>",
           "pointer types are written ptr<SCALAR, global|shared|cluster>");
    fail(t.loc, "unknown type '" + t.text + "'" + (c ? "; C's " + t.text + " is " + *c : ""),
         std::string("scalar types are i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, "
                     "f64, e4m3, e5m2") +
             (orVector ? "; vectors vec<T, N>, f16x2, bf16x2" : " (only a scalar type is written here)"));
  }
  return {t.loc, Type::scalarTy(*k)};
}

TypeSyntax Parser::parseType() {
  // f16x2 / bf16x2 (packed halves) and vec<T, N> (SemaVector.cpp checks N).
  if (atIdent("f16x2") || atIdent("bf16x2")) {
    Token t = consume();
    return {t.loc, Type::vector(t.text == "f16x2" ? ScalarKind::F16 : ScalarKind::BF16, 2)};
  }
  if (atFragType())
    return parseFragType(); // ParserMma.cpp
  if (atIdent("vec")) {
    Token v = consume();
    const char *hint = "vector types are written vec<SCALAR, N> with N = 2, 4, 8, 16 or 32";
    expect(Tok::Lt, "'<'", hint);
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Comma, "','", hint);
    ScalarKind k = elem.type.scalar;
    if (at(Tok::Ident)) { // a constant's name: Sema checks the shape (checkVectorShape)
      TypeSyntax ts{v.loc, Type::invalid(), elem.typeParam};
      ts.type = Type::vector(k, (int)parseTypeExtent(ts, 0, "vector length", hint, 2));
      expect(Tok::Gt, "'>'", hint);
      return ts;
    }
    if (!at(Tok::IntLit))
      failExpected("vector length", hint);
    Token n = consume();
    expect(Tok::Gt, "'>'", hint);
    int64_t lanes = n.intValue > 64 ? 0 : (int64_t)n.intValue;
    // An unbound type parameter (a template's first parse): each instance
    // is parsed again and checked with its element type.
    bool unbound = !elem.typeParam.empty() && !typeParam(elem.typeParam)->second;
    bool lanesOk = lanes == 2 || lanes == 4 || lanes == 8 || lanes == 16 || lanes == 32;
    if (unbound ? !lanesOk : !vectorShapeOk(k, lanes))
      fail(n.loc, "no vector of " + n.text + " " + scalarName(k) + " elements",
           vectorShapeHint(k));
    return {v.loc, Type::vector(k, (int)lanes), elem.typeParam};
  }
  if (atIdent("ptr")) {
    Token p = consume();
    const char *hint = "pointer types are written ptr<SCALAR, global|shared|cluster>";
    expect(Tok::Lt, "'<'", hint);
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Comma, "','", hint);
    std::optional<AddressSpace> space;
    if (at(Tok::KwShared)) {
      space = AddressSpace::Shared;
    } else if (at(Tok::Ident)) {
      space = spaceFromName(cur().text);
      if (!space)
        fail(cur().loc, "unknown address space '" + cur().text + "'", hint);
    } else {
      failExpected("address space", hint);
    }
    consume();
    expect(Tok::Gt, "'>'", hint);
    return {p.loc, Type::pointer(elem.type.scalar, *space), elem.typeParam};
  }
  return parseScalarType("type", /*orVector=*/true);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Block Parser::parseBlock(int depth) {
  // The '{' was consumed by the caller.
  if (depth > kMaxDepth)
    fail(cur().loc, "blocks nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)",
         "split the kernel into simpler control flow");
  Block block;
  while (!at(Tok::RBrace)) {
    if (at(Tok::Eof))
      failExpected("'}'", "a block opened with '{' is missing its closing '}'");
    if (accept(Tok::Semi))
      continue;
    block.push_back(parseStatement(depth));
    for (StmtPtr &s : pendingStmts_) // a tuple assignment's assignments
      block.push_back(std::move(s));
    pendingStmts_.clear();
  }
  consume();
  return block;
}

StmtPtr Parser::parseStatement(int depth) {
  StmtPtr s;
  switch (cur().kind) {
  case Tok::KwLet:
  case Tok::KwVar:
    s = parseLet(depth);
    break;
  case Tok::KwFor:
    s = parseFor(depth);
    break;
  case Tok::KwIf:
    s = parseIf(depth);
    break;
  case Tok::KwWhile:
    s = parseWhile(depth);
    break;
  case Tok::KwBreak:
    s = std::make_unique<BreakStmt>(consume().loc);
    break;
  case Tok::KwContinue:
    s = std::make_unique<ContinueStmt>(consume().loc);
    break;
  case Tok::KwReturn:
    s = parseReturn();
    break;
  case Tok::LBrace:
    fail(cur().loc, "a block cannot stand alone as a statement",
         "blocks belong to if, else, for and while; names are scoped by those blocks");
  case Tok::KwKernel:
    fail(cur().loc, "kernels cannot be nested", "close the previous kernel's body with '}' first");
  default: {
    Location loc = cur().loc;
    if (atIdent("warpgroups") && peekTok().kind == Tok::LBrace) {
      s = parseWarpgroups(depth);
      break;
    }
    if (atRingAccess()) {
      s = parseRingAccess(depth);
      break;
    }
    if (atIdent("turn") && peekTok().kind == Tok::LBrace) {
      s = parseTurn(depth);
      break;
    }
    // (`const as i64` is a variable named const, cast.)
    if (atIdent("const") &&
        (peekTok().kind == Tok::Ident || (isKeyword(peekTok()) && peekTok().kind != Tok::KwAs)) &&
        !peekTok().atLineStart) {
      s = parseConst();
      break;
    }
    if (atIdent("fn") && peekTok().kind == Tok::Ident && !peekTok().atLineStart)
      fail(loc, "functions are defined at file level, not inside a kernel or function",
           "move `fn " + peekTok().text + "(...) { ... }` out of the enclosing body");
    // Another language's keyword followed, on the same line, by something
    // that cannot follow an expression statement: `const x = 1`, `fn f()`,
    // `elif c {`, `switch x {`, `do {`. (As a name on its own, e.g. `break`,
    // Sema explains it, unless the kernel declared it.)
    if (at(Tok::Ident) && !peekTok().atLineStart &&
        (peekTok().kind == Tok::Ident || peekTok().kind == Tok::LBrace ||
         peekTok().kind == Tok::IntLit))
      if (auto foreign = foreignWord(cur().text))
        fail(loc, foreign->message, foreign->hint);
    if (size_t end = tupleEnd()) {
      if (peekTok(end + 1).kind == Tok::Assign) {
        s = parseTupleAssign(depth);
        break;
      }
      if (assignOpOf(peekTok(end + 1).kind))
        fail(peekTok(end + 1).loc, "several targets are assigned with `=` only",
             "write `(a, b) = f(...)`, then combine each value on its own line");
    }
    ExprPtr e = parseExpr();
    if (auto op = assignOpOf(cur().kind)) {
      Token opTok = consume();
      e = assignTarget(std::move(e), opTok.loc,
                       "assign to a `var` variable (x = ...) or an element (p[i] = ...)");
      ExprPtr value = parseExpr();
      s = std::make_unique<AssignStmt>(opTok.loc, *op, std::move(e), std::move(value));
    } else {
      s = std::make_unique<ExprStmtAST>(loc, std::move(e));
    }
  }
  }
  s->depth = depth;
  accept(Tok::Semi);
  return s;
}

ExprPtr Parser::assignTarget(ExprPtr e, const Location &where, const char *hint) {
  static const char *lanes[] = {"x", "y", "z", "w"};
  if (auto *m = e->as<MemberExpr>())
    for (int i = 0; i < 4; ++i)
      if (m->name == lanes[i]) {
        auto lane = std::make_unique<IntLiteralExpr>(m->loc, i);
        lane->magnitude = (uint64_t)i;
        auto ix = std::make_unique<IndexExpr>(m->loc, std::move(m->base), std::move(lane));
        ix->laneName = lanes[i];
        return ix;
      }
  if (!e->is<VarRefExpr>() && !e->is<IndexExpr>())
    fail(where, "cannot assign to this expression", hint);
  return e;
}

StmtPtr Parser::parseLet(int depth) {
  (void)depth;
  Token kw = consume();
  bool isVar = kw.kind == Tok::KwVar;
  if (at(Tok::LParen)) { // `let (a, b) = f(...)`
    Location open = cur().loc;
    std::vector<std::unique_ptr<Decl>> names = parseTupleNames(isVar);
    expect(Tok::Assign, "'='", "write `let (a, b, ...) = f(...)`");
    auto holder = std::make_unique<Decl>();
    holder->name = "(values of line " + std::to_string(open.line) + ")";
    holder->loc = open;
    holder->kind = DeclKind::Let;
    auto let = std::make_unique<LetStmt>(kw.loc, std::move(holder), std::nullopt, parseExpr());
    let->tupleDecls = std::move(names);
    return let;
  }
  Token name = expect(Tok::Ident, "variable name",
                      isVar ? "write `var NAME = EXPR`" : "write `let NAME = EXPR`");
  std::optional<TypeSyntax> annot;
  if (accept(Tok::Colon))
    annot = parseType();
  if (!at(Tok::Assign) && (at(Tok::Eof) || cur().atLineStart || at(Tok::Semi) || at(Tok::RBrace)))
    // C's `float acc;`: the line ends without a value; the caret stays on it
    // rather than on the next line's first token.
    fail(name.loc, "'" + name.text + "' needs an initial value",
         std::string("tile has no uninitialised variables: write `") + (isVar ? "var " : "let ") +
             name.text +
             (annot && annot->typeParam.empty() ? ": " + annot->type.str() : std::string()) +
             " = " +
             (!annot || !annot->typeParam.empty() || !annot->type.isScalar() ? "..."
              : annot->type.isFloat()                                        ? "0.0"
                                                                             : "0") +
             "`");
  expect(Tok::Assign, "'='", "a declaration needs an initializer: `let NAME = EXPR`");
  auto decl = std::make_unique<Decl>();
  decl->name = name.text;
  decl->loc = name.loc;
  if (at(Tok::KwShared) || at(Tok::KwDShared)) {
    Token arr = consume();
    bool dist = arr.kind == Tok::KwDShared;
    const char *hint =
        dist ? "write `let NAME = dshared<TYPE>[COUNT]`" : "write `let NAME = shared<TYPE>[COUNT]`";
    if (isVar)
      fail(kw.loc, "shared arrays must be declared with 'let'", hint);
    if (annot)
      fail(annot->loc, "a shared array declaration takes no type annotation", hint);
    expect(Tok::Lt, "'<'", hint);
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Gt, "'>'", hint);
    expect(Tok::LBracket, "'['", hint);
    ExprPtr count = parseExpr();
    int dimDepth = 1;
    std::vector<ExprPtr> moreDims = parseMoreIndices(dimDepth);
    expect(Tok::RBracket, "']'", hint);
    if (at(Tok::LBracket) && !cur().atLineStart) // C's `float s[32][33]`
      fail(cur().loc, "the dimensions of a shared array are one list: `[32, 33]`, not `[32][33]`",
           "`let t = shared<f32>[32, 33]` is 32 rows of 33; it is indexed `t[i, j]`");
    decl->kind = dist ? DeclKind::DSharedArray : DeclKind::SharedArray;
    auto arrayStmt =
        std::make_unique<SharedArrayStmt>(kw.loc, std::move(decl), dist, elem, std::move(count));
    arrayStmt->moreDims = std::move(moreDims);
    return arrayStmt;
  }
  if (atMBarrierDecl())
    return parseMBarrierDecl(kw, isVar, annot, std::move(decl));
  if (atRingDecl())
    return parseRingDecl(kw, isVar, annot, std::move(decl));
  if (atIdent("local") && peekTok().kind == Tok::Lt)
    return parseLocalArray(kw, isVar, annot, std::move(decl));
  decl->kind = isVar ? DeclKind::Var : DeclKind::Let;
  ExprPtr init = parseExpr();
  return std::make_unique<LetStmt>(kw.loc, std::move(decl), std::move(annot), std::move(init));
}

/// `mbarrier(` or `mbarrier[...](`: `mbarrier` is contextual, so a value
/// named mbarrier can still be indexed (`let x = mbarrier[i]`).
bool Parser::atMBarrierDecl() const {
  if (!atIdent("mbarrier"))
    return false;
  if (peekTok(1).kind == Tok::LParen)
    return true;
  if (peekTok(1).kind != Tok::LBracket)
    return false;
  int nesting = 0;
  for (size_t n = 1; n < 4096; ++n) { // bounded look-ahead to the matching ']'
    Tok k = peekTok(n).kind;
    if (k == Tok::Eof)
      return false;
    if (k == Tok::LBracket)
      ++nesting;
    else if (k == Tok::RBracket && --nesting == 0)
      return peekTok(n + 1).kind == Tok::LParen;
  }
  return false;
}

StmtPtr Parser::parseMBarrierDecl(const Token &kw, bool isVar,
                                  const std::optional<TypeSyntax> &annot,
                                  std::unique_ptr<Decl> decl) {
  consume(); // `mbarrier`
  const char *hint = "write `let NAME = mbarrier(COUNT)` or `let NAME = mbarrier[N](COUNT)`";
  if (isVar)
    fail(kw.loc, "mbarriers must be declared with 'let'", hint);
  if (annot)
    fail(annot->loc, "an mbarrier declaration takes no type annotation", hint);
  std::optional<int64_t> arraySize;
  ExprPtr arraySizeExpr;
  Location arraySizeLoc;
  if (accept(Tok::LBracket)) {
    arraySizeLoc = cur().loc;
    const char *sizeHint = "write `let NAME = mbarrier[N](COUNT)` with N an integer constant "
                           "from 1 to 64 (a literal, a `const` or a kernel's value parameter)";
    if (at(Tok::IntLit) && peekTok(1).kind == Tok::RBracket) {
      Token n = consume();
      if (n.intValue < 1 || n.intValue > 64)
        fail(n.loc, "mbarrier array size " + n.text + " is out of range (1 to 64)", sizeHint);
      arraySize = (int64_t)n.intValue;
    } else {
      // A constant expression: folded by Sema::checkMBarrier, which reports
      // anything else (as a ring's stage count).
      if (at(Tok::Error))
        throw Fail{};
      arraySizeExpr = parseExpr();
    }
    expect(Tok::RBracket, "']'", sizeHint);
  }
  expect(Tok::LParen, "'('", hint);
  ExprPtr count = parseExpr();
  expect(Tok::RParen, "')'", hint);
  decl->kind = DeclKind::MBarrier;
  auto stmt =
      std::make_unique<MBarrierStmt>(kw.loc, std::move(decl), std::move(count), arraySize);
  stmt->arraySizeExpr = std::move(arraySizeExpr);
  stmt->arraySizeLoc = arraySizeLoc;
  return stmt;
}

StmtPtr Parser::parseFor(int depth) {
  Token kw = consume();
  const char *hint =
      "write `for i in A .. B { }`, `for i in block_range(N) { }` or `for i in grid_range(N) { }`";
  if (at(Tok::LParen))
    fail(cur().loc, "tile's `for` has no C-style `(init; condition; step)`",
         "`for (int i = a; i < b; i += s)` is `for i in a .. b step s`; a grid-stride loop is "
         "`for i in grid_range(n)` and a block-stride one `for i in block_range(n)`");
  Token var = expect(Tok::Ident, "loop variable name", hint);
  expect(Tok::KwIn, "'in'", hint);
  if (atIdent("range") && peekTok().kind == Tok::LParen)
    fail(cur().loc, "tile has no range(...): a range is written `a .. b`",
         "Python's `range(a, b, s)` is `a .. b step s` (`range(n)` is `0 .. n`); Triton's "
         "`tl.static_range` is `a .. b unroll`");
  auto decl = std::make_unique<Decl>();
  decl->kind = DeclKind::LoopVar;
  decl->name = var.text;
  decl->loc = var.loc;
  std::unique_ptr<ForStmt> f;
  if ((atIdent("block_range") || atIdent("grid_range")) && peekTok().kind == Tok::LParen) {
    ForKind kind = cur().text == "block_range" ? ForKind::BlockRange : ForKind::GridRange;
    consume();
    consume();
    f = std::make_unique<ForStmt>(kw.loc, kind, std::move(decl));
    f->end = parseExpr();
    expect(Tok::RParen, "')'", hint);
    if (atIdent("unroll"))
      parseUnroll(*f); // Sema: only `a .. b` loops unroll
  } else {
    f = std::make_unique<ForStmt>(kw.loc, ForKind::Range, std::move(decl));
    f->start = parseExpr();
    expect(Tok::DotDot, "'..'", hint);
    f->end = parseExpr();
    if (atIdent("step")) {
      consume();
      f->step = parseExpr();
    }
    if (atIdent("unroll"))
      parseUnroll(*f);
  }
  expect(Tok::LBrace, "'{'", "the loop body is a block in braces");
  f->body = parseBlock(depth + 1);
  return f;
}

StmtPtr Parser::parseIf(int depth) {
  Token kw = consume();
  // `if const COND`: `const` is a contextual word; it starts a constant `if`
  // when an expression follows it (`if const {` tests a variable named const).
  bool isConst = false;
  if (atIdent("const")) {
    Tok next = peekTok().kind;
    isConst = next == Tok::Ident || next == Tok::IntLit || next == Tok::FloatLit ||
              next == Tok::KwTrue || next == Tok::KwFalse || next == Tok::LParen ||
              next == Tok::Bang || next == Tok::Minus || next == Tok::Tilde;
    if (isConst)
      consume();
  }
  auto s = std::make_unique<IfStmt>(kw.loc, parseExpr());
  s->isConst = isConst;
  expect(Tok::LBrace, "'{'",
         isConst ? "write `if const COND { ... }` (braces are required)"
                 : "write `if COND { ... }` (braces are required)");
  s->thenBody = parseBlock(depth + 1);
  if (accept(Tok::KwElse)) {
    s->hasElse = true;
    if (at(Tok::KwIf)) {
      if (depth + 1 > kMaxDepth)
        fail(cur().loc,
             "else-if chain nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)",
             "split the kernel into simpler control flow");
      StmtPtr nested = parseIf(depth + 1);
      nested->depth = depth + 1;
      s->elseBody.push_back(std::move(nested));
    } else {
      expect(Tok::LBrace, "'{'", "write `else { ... }` or `else if COND { ... }`");
      s->elseBody = parseBlock(depth + 1);
    }
  }
  return s;
}

StmtPtr Parser::parseWhile(int depth) {
  Token kw = consume();
  auto s = std::make_unique<WhileStmt>(kw.loc, parseExpr());
  expect(Tok::LBrace, "'{'", "write `while COND { ... }` (braces are required)");
  s->body = parseBlock(depth + 1);
  return s;
}

} // namespace tile::frontend
