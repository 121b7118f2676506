//===- ParserPeer.cpp - multi-GPU parameter types -------------------------===//
//
// `A: symmetric tensor<T>[E0, ...]` (a tensor parameter whose every rank's
// part the kernel may address through peer(A, d)) and `sem: semaphore[S]`
// (S counters in symmetric memory; S an integer literal or a name, which
// becomes an i32 the runtime fills from the host object's count).
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Parser.h"

namespace tile::frontend {

std::optional<TypeSyntax> Parser::parsePeerParamType(KernelAST &k, int index) {
  if (atIdent("symmetric") && peekTok().kind == Tok::Ident) {
    consume(); // `symmetric`
    if (!atIdent("tensor") || peekTok().kind != Tok::Lt)
      failExpected("'tensor<T>[...]' after 'symmetric'",
                   "a symmetric parameter is written `A: symmetric tensor<T>[E0, E1, ...]`");
    TypeSyntax t = parseTensorParamType(k, index);
    k.tensorParams.back().symmetric = true;
    return t;
  }
  if (!atIdent("semaphore") || peekTok().kind != Tok::LBracket)
    return std::nullopt;
  Token kw = consume(); // `semaphore`
  const char *hint = "a semaphore parameter is written `sem: semaphore[S]`, S an integer literal "
                     "(1 to 2^31-1), a `const`, a compile-time parameter, or a name the runtime "
                     "fills from the host's tile::Semaphores";
  expect(Tok::LBracket, "'['", hint);
  SemaphoreParamSyntax s;
  s.param = index;
  s.countLoc = cur().loc;
  if (at(Tok::IntLit)) {
    Token n = consume();
    if (n.intValue < 1 || n.intValue > 0x7fffffffu)
      fail(n.loc, "semaphore count " + n.text + " is out of range (1 to 2^31-1)", hint);
    s.countLiteral = (int64_t)n.intValue;
  } else if (at(Tok::Ident)) {
    s.countName = consume().text;
  } else {
    failExpected("a semaphore count (an integer literal or a name)", hint);
  }
  expect(Tok::RBracket, "']'", hint);
  std::optional<int64_t> count = s.countLiteral;
  k.semaphoreParams.push_back(std::move(s));
  return TypeSyntax{kw.loc, Type::semaphore(count)};
}

} // namespace tile::frontend
