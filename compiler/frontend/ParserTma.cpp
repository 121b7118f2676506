//===- ParserTma.cpp - tensor parameters and n-D indices -------------------===//
//
// `A: tensor<T>[M, 64]` (a TMA tensor map parameter; each extent a literal
// or a name, which becomes an i32 hidden parameter) and the `, j` of
// `t[i, j]` / `shared<T>[R, C]`.
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"

namespace tile::frontend {

TypeSyntax Parser::parseTensorParamType(KernelAST &k, int index) {
  Token kw = consume(); // `tensor`
  const char *hint = "tensor parameters are written tensor<TYPE>[E0, E1, ...] (rank 1 to 5), each "
                     "extent an integer literal or a name";
  expect(Tok::Lt, "'<'", hint);
  TypeSyntax elem = parseScalarType("element type");
  expect(Tok::Gt, "'>'", hint);
  expect(Tok::LBracket, "'['", hint);
  TensorParamSyntax t;
  t.param = index;
  t.elem = elem.type.scalar;
  std::vector<int64_t> dims;
  do {
    TensorExtentSyntax e;
    e.loc = cur().loc;
    if (at(Tok::IntLit)) {
      Token n = consume();
      if (n.intValue < 1 || n.intValue > (uint64_t(1) << 32))
        fail(n.loc, "tensor extent " + n.text + " is out of range (1 to 2^32)", hint);
      e.literal = (int64_t)n.intValue;
      dims.push_back(*e.literal);
    } else if (at(Tok::Ident)) {
      e.name = consume().text;
      dims.push_back(-1);
    } else {
      failExpected("a tensor extent (an integer literal or a name)", hint);
    }
    t.extents.push_back(std::move(e));
    if (t.extents.size() > 5)
      fail(t.extents.back().loc, "a tensor has at most 5 dimensions (TMA's limit)", hint);
  } while (accept(Tok::Comma));
  expect(Tok::RBracket, "']'", hint);
  k.tensorParams.push_back(std::move(t));
  return {kw.loc, Type::tensor(elem.type.scalar, std::move(dims))};
}

std::vector<ExprPtr> Parser::parseMoreIndices(int &depth) {
  std::vector<ExprPtr> more;
  while (accept(Tok::Comma)) {
    if (more.size() >= 4)
      fail(cur().loc, "at most 5 indices or dimensions",
           "shared tiles and tensors have rank 1 to 5");
    more.push_back(parseExpr());
    depth = std::max(depth, more.back()->depth + 1);
  }
  return more;
}

} // namespace tile::frontend
