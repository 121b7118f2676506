//===- ParserRings.cpp - pipeline rings, produce and consume ---------------===//
//
// `let r = pipeline[S] { a: shared<T>[D0, D1], ... }` (S a literal or a
// constant expression) and the blocks
// `produce r as s { ... }` / `consume r as s { ... }`. `pipeline`, `produce`
// and `consume` are contextual (only in these shapes), so values of those
// names still work elsewhere.
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"

namespace tile::frontend {

bool Parser::atRingDecl() const { return atIdent("pipeline") && peekTok(1).kind == Tok::LBracket; }

bool Parser::atRingAccess() const {
  return (atIdent("produce") || atIdent("consume")) && peekTok(1).kind == Tok::Ident &&
         peekTok(2).kind == Tok::KwAs;
}

StmtPtr Parser::parseRingDecl(const Token &kw, bool isVar, const std::optional<TypeSyntax> &annot,
                              std::unique_ptr<Decl> decl) {
  consume(); // `pipeline`
  const char *hint = "write `let NAME = pipeline[STAGES] { a: shared<T>[R, C], ... }`";
  if (isVar)
    fail(kw.loc, "rings must be declared with 'let'", hint);
  if (annot)
    fail(annot->loc, "a ring declaration takes no type annotation", hint);
  consume(); // '['
  decl->kind = DeclKind::Ring;
  auto ring = std::make_unique<RingStmt>(kw.loc, std::move(decl));
  ring->stagesLoc = cur().loc;
  if (at(Tok::IntLit) && peekTok(1).kind == Tok::RBracket) {
    Token n = consume();
    if (n.intValue < 1 || n.intValue > 32)
      fail(n.loc, "a ring has 1 to 32 stages, found " + n.text,
           "4 stages hide a TMA load behind the consumers' work in most kernels");
    ring->stages = (int64_t)n.intValue;
  } else {
    // A constant expression (a `const`, a value parameter of a template
    // kernel): folded by Sema::checkRing, which reports anything else.
    if (at(Tok::Error))
      throw Fail{};
    ring->stagesExpr = parseExpr();
  }
  expect(Tok::RBracket, "']'", hint);
  expect(Tok::LBrace, "'{'", hint);
  while (!at(Tok::RBrace)) {
    if (accept(Tok::Semi) || accept(Tok::Comma))
      continue;
    if (at(Tok::Eof))
      failExpected("'}'", "a ring's member list opened with '{' is missing its closing '}'");
    RingMember m;
    Token name = expect(Tok::Ident, "a member name", hint);
    m.name = name.text;
    m.loc = name.loc;
    expect(Tok::Colon, "':'", hint);
    if (!at(Tok::KwShared))
      failExpected("'shared'", "ring members are shared tiles: `a: shared<T>[R, C]`");
    consume();
    expect(Tok::Lt, "'<'", hint);
    m.elem = parseScalarType("element type");
    expect(Tok::Gt, "'>'", hint);
    expect(Tok::LBracket, "'['", hint);
    m.dims.push_back(parseExpr());
    int depth = 1;
    for (ExprPtr &d : parseMoreIndices(depth))
      m.dims.push_back(std::move(d));
    expect(Tok::RBracket, "']'", hint);
    ring->members.push_back(std::move(m));
  }
  consume(); // '}'
  if (ring->members.empty())
    fail(ring->loc, "a ring needs at least one member tile", hint);
  return ring;
}

StmtPtr Parser::parseRingAccess(int depth) {
  Token kw = consume(); // produce / consume
  Token ring = consume();
  consume(); // `as`
  const char *hint = "write `produce RING as s { ... }` or `consume RING as s { ... }`";
  Token name = expect(Tok::Ident, "a name for the stage", hint);
  auto stage = std::make_unique<Decl>();
  stage->kind = DeclKind::RingStage;
  stage->name = name.text;
  stage->loc = name.loc;
  auto s =
      std::make_unique<RingAccessStmt>(kw.text == "produce" ? StmtAST::Produce : StmtAST::Consume,
                                       kw.loc, ring.text, ring.loc, std::move(stage));
  if (kw.text == "consume" && atIdent("inflight") && peekTok().kind == Tok::LParen) {
    // `inflight(n)`, n a constant expression (SemaMma.cpp).
    s->inflightLoc = consume().loc;
    consume(); // '('
    s->inflightExpr = parseExpr();
    expect(Tok::RParen, "')'", "write `consume RING as s inflight(N) { ... }`");
  }
  if (kw.text == "consume" && atIdent("anchor") && peekTok().kind == Tok::LParen) {
    // `anchor(MODE[, COND])` (SemaMma.cpp).
    const char *anchorHint = "write `consume RING as s anchor(reduce) { ... }` (none, reduce or "
                             "last), or `anchor(reduce, COND)` with a compile-time condition";
    s->anchorLoc = consume().loc;
    consume(); // '('
    s->anchorName = expect(Tok::Ident, "an anchor (none, reduce or last)", anchorHint).text;
    if (cur().kind == Tok::Comma) {
      consume();
      s->anchorCond = parseExpr();
    }
    expect(Tok::RParen, "')'", anchorHint);
  }
  expect(Tok::LBrace, "'{'", hint);
  s->body = parseBlock(depth + 1);
  return s;
}

} // namespace tile::frontend
