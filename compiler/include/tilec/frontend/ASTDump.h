//===- ASTDump.h - textual AST dump (tilec --emit=ast) ----------*- C++ -*-===//
#ifndef TILEC_FRONTEND_ASTDUMP_H
#define TILEC_FRONTEND_ASTDUMP_H

#include "tilec/frontend/AST.h"

#include <ostream>

namespace tile::frontend {
/// One node per line, two spaces of indent per level, `<line:col>` locations,
/// `: type` once checked and `-> #id` for resolved names.
void dumpAST(const ModuleAST &module, std::ostream &os);
} // namespace tile::frontend

#endif
