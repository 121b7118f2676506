//===- Sema.h - semantic checks and AST annotation --------------*- C++ -*-===//
#ifndef TILEC_FRONTEND_SEMA_H
#define TILEC_FRONTEND_SEMA_H

#include "tile/target.h"
#include "tilec/frontend/AST.h"

#include <array>
#include <optional>

namespace tile::frontend {

struct CheckOptions {
  /// `tilec --cluster=X[,Y,Z]`: replaces every kernel's cluster attribute.
  std::optional<std::array<int, 3>> clusterOverride;
};

/// Type-checks and annotates the module (see the [sema] fields in AST.h).
/// Returns false when any error was reported.
bool checkModule(ModuleAST &module, DiagnosticEngine &diags, const CheckOptions &options = {});

} // namespace tile::frontend

#endif
