//===- Token.h - tokens of the tile language --------------------*- C++ -*-===//
#ifndef TILEC_FRONTEND_TOKEN_H
#define TILEC_FRONTEND_TOKEN_H

#include "tilec/frontend/Diagnostics.h"

#include <cstdint>
#include <string>

namespace tile::frontend {

enum class Tok {
  Eof,
  Error, // a lexical error, already reported
  Ident,
  IntLit,
  FloatLit,
  // keywords
  KwKernel,
  KwLet,
  KwVar,
  KwFor,
  KwIn,
  KwIf,
  KwElse,
  KwWhile,
  KwReturn,
  KwTrue,
  KwFalse,
  KwAs,
  KwShared,
  KwDShared,
  // punctuation
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Comma,
  Colon,
  Semi,
  Dot,
  DotDot,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Bang,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  AmpAmp,
  PipePipe,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  PercentAssign,
  AmpAssign,
  PipeAssign,
  CaretAssign,
  ShlAssign,
  ShrAssign,
  // `c ? a : b`, break, continue
  Question,
  KwBreak,
  KwContinue,
  Arrow, // `->` before a function's result type
};

/// Human-readable spelling used in "expected X, found Y" messages.
const char *tokSpelling(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  std::string text;         // exact source spelling
  Location loc;             // of the first character
  bool atLineStart = false; // first token on its source line
  uint64_t intValue = 0;    // IntLit
  double floatValue = 0;    // FloatLit: round-to-odd (exact rounding to f16/bf16/f32)
  double nearestValue = 0;  // FloatLit: the nearest double (an f64 literal's value)
};

} // namespace tile::frontend

#endif
