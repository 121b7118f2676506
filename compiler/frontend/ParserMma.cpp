//===- ParserMma.cpp - fragment types and zeros<T>[M, N] -------------------===//
//
// `frag<T>[M, N]`, `per_row<T>[M]`, `per_col<T>[N]` (type annotations;
// extents integer literals or constants) and
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

/// A type's extent: an integer literal, or the name of a `const` or a
/// compile-time value parameter, recorded for Sema (resolveTypeExtents) with
/// `standIn` as the value until then.
int64_t Parser::parseTypeExtent(TypeSyntax &ts, unsigned dim, const std::string &what,
                                const char *hint, int64_t standIn) {
  if (at(Tok::Ident)) {
    Token n = consume();
    ts.namedExtents.push_back({dim, n.text, n.loc});
    return standIn;
  }
  Token n = expect(Tok::IntLit, "an integer literal or a constant's name", hint);
  if (n.intValue > (1u << 20))
    fail(n.loc, what + " " + n.text + " is out of range", hint);
  return (int64_t)n.intValue;
}

TypeSyntax Parser::parseFragType() {
  Token kw = consume(); // `frag`, `per_row` or `per_col`
  TypeSyntax ts{kw.loc, Type::invalid()};
  if (kw.text != "frag") {
    // per_row<T>[M] / per_col<T>[N]: one extent (SemaFragment.cpp checks it).
    std::string hint = kw.text + " types are written " + kw.text + "<T>[" +
                       (kw.text == "per_row" ? "M" : "N") +
                       "] with an integer literal or a constant as the extent";
    expect(Tok::Lt, "'<'", hint.c_str());
    TypeSyntax elem = parseScalarType("element type");
    expect(Tok::Gt, "'>'", hint.c_str());
    expect(Tok::LBracket, "'['", hint.c_str());
    int64_t extent = parseTypeExtent(ts, 0, kw.text + " extent", hint.c_str(), 64);
    expect(Tok::RBracket, "']'", hint.c_str());
    ts.type = kw.text == "per_row" ? Type::perRow(elem.type.scalar, extent)
                                   : Type::perCol(elem.type.scalar, extent);
    ts.typeParam = elem.typeParam;
    return ts;
  }
  const char *hint = "fragment types are written frag<T>[M, N], M and N integer literals or "
                     "constants (M a multiple of 64, N a multiple of 8 in 8..256)";
  expect(Tok::Lt, "'<'", hint);
  TypeSyntax elem = parseScalarType("element type");
  expect(Tok::Gt, "'>'", hint);
  expect(Tok::LBracket, "'['", hint);
  int64_t dims[2] = {0, 0};
  for (unsigned i = 0; i < 2; ++i) {
    if (i)
      expect(Tok::Comma, "','", hint);
    dims[i] = parseTypeExtent(ts, i, "fragment dimension", hint, 64);
  }
  expect(Tok::RBracket, "']'", hint);
  // Shape and element type are checked by Sema (checkFragmentShape), like
  // zeros<T>[M, N]'s.
  ts.type = Type::fragment(elem.type.scalar, dims[0], dims[1]);
  ts.typeParam = elem.typeParam;
  return ts;
}

/// `zeros<` SCALAR `>`: a name `zeros` compared with `<` stays a comparison.
bool Parser::atZeros() const {
  // A value parameter there (`zeros<BN>`) is a type misplaced, which
  // parseScalarType explains.
  return at(Tok::Lt) && (isTypeNameAt(1) || isValueParam(peekTok(1).text)) &&
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
