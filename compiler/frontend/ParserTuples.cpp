//===- ParserTuples.cpp - functions with several results -----------------===//
//
// `fn f(...) -> (T1, T2, ...)`, `return (a, b, ...)`, `let (x, y) = f(...)`
// and `(x, y[i]) = f(...)`. A parenthesized list with a comma is never a
// value: it appears only in these four places, and elsewhere it is a syntax
// error that says where it belongs (ParserExpr.cpp).
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"

namespace tile::frontend {

namespace {
const char *kTupleHint = "several values are returned (`return (a, b)` in a `fn ... -> (T1, T2)`), "
                         "bound (`let (a, b) = f(...)`) or assigned (`(a, b) = f(...)`)";
} // namespace

size_t Parser::tupleEnd() const {
  if (!at(Tok::LParen))
    return 0;
  int parens = 0, others = 0; // () and [] {} nesting
  bool comma = false;
  for (size_t n = 0; n < 65536; ++n) { // bounded look-ahead to the matching ')'
    switch (peekTok(n).kind) {
    case Tok::Eof:
      return 0;
    case Tok::LParen:
      ++parens;
      break;
    case Tok::RParen:
      if (--parens == 0)
        return comma ? n : 0;
      break;
    case Tok::LBracket:
    case Tok::LBrace:
      ++others;
      break;
    case Tok::RBracket:
    case Tok::RBrace:
      --others;
      break;
    case Tok::Comma:
      comma = comma || (parens == 1 && others == 0);
      break;
    default:
      break;
    }
  }
  return 0;
}

std::vector<TypeSyntax> Parser::parseResultTypes() {
  const char *hint = "several results are written `-> (T1, T2, ...)`; one is written `-> T`";
  Token open = consume(); // (
  std::vector<TypeSyntax> types;
  do {
    if (at(Tok::RParen))
      break; // a trailing comma
    types.push_back(parseType());
  } while (accept(Tok::Comma));
  expect(Tok::RParen, "')'", hint);
  if (types.size() < 2)
    fail(open.loc,
         types.empty() ? std::string("a function's result list is empty")
                       : "a single result is written without parentheses: `-> " +
                             types[0].type.str() + "`",
         "leave out `-> ...` for a function without a result; " + std::string(hint));
  return types;
}

std::vector<ExprPtr> Parser::parseReturnValues() {
  consume(); // (
  std::vector<ExprPtr> values;
  do {
    if (at(Tok::RParen))
      break;
    values.push_back(parseExpr());
  } while (accept(Tok::Comma));
  expect(Tok::RParen, "')'", "the returned values are written `return (a, b, ...)`");
  if (!at(Tok::Semi) && !at(Tok::RBrace) && !at(Tok::Eof) && !cur().atLineStart)
    fail(cur().loc, "several returned values are not one value: nothing may follow them",
         kTupleHint);
  return values;
}

std::vector<std::unique_ptr<Decl>> Parser::parseTupleNames(bool isVar) {
  const char *hint = isVar ? "write `var (a, b, ...) = f(...)` (`_` for a value not kept)"
                           : "write `let (a, b, ...) = f(...)` (`_` for a value not kept)";
  consume(); // (
  std::vector<std::unique_ptr<Decl>> decls;
  do {
    if (at(Tok::RParen))
      break;
    Token name = expect(Tok::Ident, "variable name", hint);
    auto d = std::make_unique<Decl>();
    d->name = name.text;
    d->loc = name.loc;
    d->kind = isVar ? DeclKind::Var : DeclKind::Let;
    decls.push_back(std::move(d));
  } while (accept(Tok::Comma));
  expect(Tok::RParen, "')'", hint);
  if (decls.size() < 2)
    fail(cur().loc, "a list of names needs two or more", hint);
  if (at(Tok::Colon))
    fail(cur().loc, "the names of several values take no type annotation",
         "their types are the function's result types; convert afterwards with `as`");
  return decls;
}

StmtPtr Parser::parseTupleAssign(int depth) {
  Token open = consume(); // (
  std::vector<ExprPtr> targets;
  do {
    if (at(Tok::RParen))
      break;
    ExprPtr target = parseExpr();
    Location where = target->loc;
    targets.push_back(assignTarget(std::move(target), where,
                                   "assign to `var` variables (x) or elements (p[i]): `(x, "
                                   "p[i]) = f(...)`"));
  } while (accept(Tok::Comma));
  expect(Tok::RParen, "')'", kTupleHint);
  Token eq = expect(Tok::Assign, "'='", kTupleHint);
  // The call first, into names no source can spell (they hold a space),
  // then the targets left to right, each an ordinary assignment.
  auto let = std::make_unique<LetStmt>(open.loc, std::make_unique<Decl>(), std::nullopt,
                                       parseExpr());
  let->decl->name = "(values of line " + std::to_string(open.loc.line) + ")";
  let->decl->loc = open.loc;
  let->decl->kind = DeclKind::Let;
  int id = tupleAssigns_++;
  for (size_t i = 0; i < targets.size(); ++i) {
    auto d = std::make_unique<Decl>();
    d->name = "(value " + std::to_string(i) + " of " + std::to_string(id) + ")";
    d->loc = targets[i]->loc;
    d->kind = DeclKind::Let;
    auto value = std::make_unique<VarRefExpr>(targets[i]->loc, d->name);
    auto assign =
        std::make_unique<AssignStmt>(eq.loc, AssignOp::Assign, std::move(targets[i]), std::move(value));
    assign->depth = depth;
    pendingStmts_.push_back(std::move(assign));
    let->tupleDecls.push_back(std::move(d));
  }
  return let;
}

} // namespace tile::frontend
