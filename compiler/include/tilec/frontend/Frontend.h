//===- Frontend.h - the tile language frontend, one include -----*- C++ -*-===//
//
// Typical use (the tilec CLI):
//   DiagnosticEngine diags;
//   diags.addSource(file, text);
//   auto module = parseSource(file, text, diags);
//   if (!module || !checkModule(*module, diags, opts)) { diags.print(std::cerr); return 1; }
//   dumpAST(*module, std::cout);   // or hand *module to mlir::tile::mlirGen
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_FRONTEND_H
#define TILEC_FRONTEND_FRONTEND_H

#include "tilec/frontend/AST.h"
#include "tilec/frontend/ASTDump.h"
#include "tilec/frontend/Diagnostics.h"
#include "tilec/frontend/Lexer.h"
#include "tilec/frontend/Parser.h"
#include "tilec/frontend/Sema.h"
#include "tilec/frontend/Types.h"

#include <memory>
#include <string>

namespace tile::frontend {
/// Lexes and parses `text`; nullptr after a syntax error (reported to diags).
/// Also registers the text with diags for caret rendering.
std::unique_ptr<ModuleAST> parseSource(const std::string &file, const std::string &text,
                                       DiagnosticEngine &diags);
} // namespace tile::frontend

#endif
