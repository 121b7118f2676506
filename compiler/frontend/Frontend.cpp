//===- Frontend.cpp - parseSource entry point ------------------------------===//
#include "tilec/frontend/Frontend.h"

namespace tile::frontend {

std::unique_ptr<ModuleAST> parseSource(const std::string &file, const std::string &text,
                                       DiagnosticEngine &diags) {
  diags.addSource(file, text);
  Lexer lexer(file, text, diags);
  Parser parser(lexer.tokenize(), diags);
  return parser.parseModule(file);
}

} // namespace tile::frontend
