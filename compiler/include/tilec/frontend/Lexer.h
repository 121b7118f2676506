//===- Lexer.h - tile language lexer ----------------------------*- C++ -*-===//
#ifndef TILEC_FRONTEND_LEXER_H
#define TILEC_FRONTEND_LEXER_H

#include "tilec/frontend/Token.h"

#include <string>
#include <vector>

namespace tile::frontend {

/// Turns source text into tokens. Comments (`//`, `/* */`) and whitespace are
/// skipped; newlines are not significant. Lexical errors are reported to the
/// engine and produce a Tok::Error token.
class Lexer {
public:
  /// A UTF-8 byte-order mark at the start of `text` is skipped (columns of
  /// line 1 count from after it, as the diagnostics show the line without it).
  Lexer(std::string file, const std::string &text, DiagnosticEngine &diags)
      : file_(std::move(file)), text_(text), diags_(diags),
        pos_(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0) {}

  Token next();
  /// Lexes everything; the last token is Eof.
  std::vector<Token> tokenize();

private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance();
  Location here() const { return {file_, line_, col_}; }
  bool skipTrivia(); // false on an unterminated block comment
  Token lexNumber(Token tok);
  Token lexNonAscii(Token tok);

  FileName file_; // shared by every token's Location
  const std::string &text_;
  DiagnosticEngine &diags_;
  size_t pos_;
  int line_ = 1, col_ = 1;
  bool sawNewline_ = true;
};

} // namespace tile::frontend

#endif
