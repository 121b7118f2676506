//===- ParserRoles.cpp - the warpgroups block -------------------------------===//
//
// `warpgroups { NAME(warpgroups = n, regs = r) { ... } ... }`. `warpgroups`
// is contextual: only followed by '{' at the start of a statement (a value
// named warpgroups still works elsewhere). A role's arguments are named
// arguments, parsed like a call's; Sema checks their names and values.
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"

namespace tile::frontend {

StmtPtr Parser::parseWarpgroups(int depth) {
  Token kw = consume(); // `warpgroups`
  consume();            // '{'
  const char *hint = "write `warpgroups { NAME(warpgroups = N, regs = R) { ... } ... }`";
  if (depth + 1 > kMaxDepth)
    fail(kw.loc, "blocks nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)",
         "split the kernel into simpler control flow");
  auto s = std::make_unique<WarpgroupsStmt>(kw.loc);
  while (!at(Tok::RBrace)) {
    if (accept(Tok::Semi))
      continue;
    if (at(Tok::Eof))
      failExpected("'}'", "a warpgroups block opened with '{' is missing its closing '}'");
    Token name = expect(Tok::Ident, "a role name", hint);
    auto role = std::make_unique<RoleAST>();
    role->name = name.text;
    role->loc = name.loc;
    if (at(Tok::LParen)) {
      // The role's arguments: the same syntax as a call's named arguments.
      ExprPtr call = parseCall(name);
      auto &c = *call->as<CallExpr>();
      if (!c.args.empty())
        fail(c.args[0]->loc, "role arguments are named",
             "write `" + name.text + "(warpgroups = N, regs = R)`");
      role->args = std::move(c.namedArgs);
    }
    expect(Tok::LBrace, "'{'", "a role's body is a block in braces: `NAME(...) { ... }`");
    role->body = parseBlock(depth + 1);
    s->roles.push_back(std::move(role));
  }
  consume(); // '}'
  if (s->roles.empty())
    fail(kw.loc, "a warpgroups block needs at least one role", hint);
  return s;
}

/// `turn { ... }` (contextual, like `warpgroups`): an IfStmt on `true`
/// marked isTurn, so every walker of the AST treats the body as a block
/// all of the role's threads run; Sema (SemaRoles.cpp, checkTurn) owns the
/// rule and MLIRGen brackets the body with the turn's barriers.
StmtPtr Parser::parseTurn(int depth) {
  Token kw = consume(); // `turn`
  auto s = std::make_unique<IfStmt>(kw.loc, std::make_unique<BoolLiteralExpr>(kw.loc, true));
  s->isTurn = true;
  consume(); // '{'
  s->thenBody = parseBlock(depth + 1);
  if (at(Tok::KwElse))
    fail(cur().loc, "a turn has no else", "write `turn { ... }`");
  return s;
}

} // namespace tile::frontend
