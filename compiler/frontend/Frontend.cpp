//===- Frontend.cpp - parseSource entry point ------------------------------===//
#include "tilec/frontend/Frontend.h"

namespace tile::frontend {

std::unique_ptr<ModuleAST> parseSource(const std::string &file, const std::string &text,
                                       DiagnosticEngine &diags) {
  diags.addSource(file, text);
  // The lexer stops at its first error, the parser at its first; the one
  // reported is the first in the file, as `syntax errors stop at the first`
  // promises: a syntax error the parser finds before the lexer's bad token
  // (`__global__` before a `1.0f` further down) wins over it.
  DiagnosticEngine lexDiags;
  Lexer lexer(file, text, lexDiags);
  std::vector<Token> tokens = lexer.tokenize();
  size_t errorsBefore = diags.numErrors();
  Parser parser(std::move(tokens), diags);
  std::unique_ptr<ModuleAST> module = parser.parseModule(file);
  if (diags.numErrors() == errorsBefore)
    for (const Diagnostic &d : lexDiags.diagnostics())
      diags.report(d);
  return module;
}

} // namespace tile::frontend
