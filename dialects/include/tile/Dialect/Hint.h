//===- Hint.h - a diagnostic's hint, carried as data -------------*- C++ -*-===//
//
// Every tilec error and warning tells the user how to fix it. A pass attaches
// that hint to its MLIR diagnostic with attachHint: a note that reads
// "hint: HINT" (as tile-opt prints it) and carries the hint in its metadata,
// which tilec's renderer reads with hintOf instead of parsing the text.
//===----------------------------------------------------------------------===//
#ifndef TILE_DIALECT_HINT_H
#define TILE_DIALECT_HINT_H

#include "mlir/IR/Diagnostics.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// Attaches `hint` (how to fix what `diagnostic` reports) as its hint note.
void attachHint(InFlightDiagnostic &diagnostic, const llvm::Twine &hint);
/// The hint a note attached by attachHint carries; nullopt for other notes.
std::optional<std::string> hintOf(Diagnostic &note);

} // namespace mlir::tile

#endif // TILE_DIALECT_HINT_H
