//===- ParserMma.cpp - fragment types and zeros<T>[M, N] -------------------===//
//
// `frag<T>[M, N]`, `per_row<T>[M]`, `per_col<T>[N]` (type annotations;
// extents integer literals) and
// `zeros<T>[M, N]` (a CallExpr "zeros" whose typeArg is T and whose two
// arguments are M and N, constant expressions that SemaMma.cpp folds, so a
// kernel's compile-time parameters may size a fragment).
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"

namespace tile::frontend {

bool Parser::atFragType() const {
  return (atIdent("frag") || atIdent("per_row") || atIdent("per_col")) &&
         peekTok().kind == Tok::Lt;
}

TypeSyntax Parser::parseFragType() {
  Token kw = consume(); // `frag`, `per_row` or `per_col`
  if (kw.text != "frag") {
    // per_row<T>[M] / per_col<T>[N]: one extent (SemaFragment.cpp checks it).
    std::string hint = kw.text + " types are written " + kw.text + "<T>[" +
                       (kw.text == "per_row" ? "M" : "N") + "] with an integer literal extent";
    expect(Tok::Lt, "'<'", hint.c_str());
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Gt, "'>'", hint.c_str());
    expect(Tok::LBracket, "'['", hint.c_str());
    Token n = expect(Tok::IntLit, "an integer literal", hint.c_str());
    if (n.intValue > (1u << 20))
      fail(n.loc, kw.text + " extent " + n.text + " is out of range", hint.c_str());
    expect(Tok::RBracket, "']'", hint.c_str());
    int64_t extent = (int64_t)n.intValue;
    return {kw.loc, kw.text == "per_row" ? Type::perRow(elem.type.scalar, extent)
                                         : Type::perCol(elem.type.scalar, extent)};
  }
  const char *hint = "fragment types are written frag<T>[M, N] with integer literals M and N "
                     "(M a multiple of 64, N a multiple of 8 in 8..256)";
  expect(Tok::Lt, "'<'", hint);
  TypeSyntax elem = parseScalarType("element type");
  expect(Tok::Gt, "'>'", hint);
  expect(Tok::LBracket, "'['", hint);
  int64_t dims[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    if (i)
      expect(Tok::Comma, "','", hint);
    Token n = expect(Tok::IntLit, "an integer literal", hint);
    if (n.intValue > (1u << 20))
      fail(n.loc, "fragment dimension " + n.text + " is out of range", hint);
    dims[i] = (int64_t)n.intValue;
  }
  expect(Tok::RBracket, "']'", hint);
  // Shape and element type are checked by Sema (checkFragmentShape), like
  // zeros<T>[M, N]'s.
  return {kw.loc, Type::fragment(elem.type.scalar, dims[0], dims[1])};
}

/// `zeros<` SCALAR `>`: a name `zeros` compared with `<` stays a comparison.
bool Parser::atZeros() const {
  return at(Tok::Lt) && peekTok(1).kind == Tok::Ident && scalarFromName(peekTok(1).text) &&
         peekTok(2).kind == Tok::Gt;
}

ExprPtr Parser::parseZeros(Token name) {
  const char *hint = "write `zeros<T>[M, N]`, e.g. zeros<f32>[64, 128]";
  expect(Tok::Lt, "'<'", hint);
  TypeSyntax elem = parseScalarType("element type");
  expect(Tok::Gt, "'>'", hint);
  expect(Tok::LBracket, "'['", hint);
  std::vector<ExprPtr> args;
  args.push_back(parseExpr());
  expect(Tok::Comma, "','", hint);
  args.push_back(parseExpr());
  expect(Tok::RBracket, "']'", hint);
  int depth = std::max(args[0]->depth, args[1]->depth) + 1;
  auto e = std::make_unique<CallExpr>(name.loc, "zeros", std::move(args), std::vector<NamedArg>{});
  e->typeArg = elem;
  e->depth = depth;
  checkDepth(*e);
  return e;
}

} // namespace tile::frontend
