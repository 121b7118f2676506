//===- Sema.h - semantic checks and AST annotation --------------*- C++ -*-===//
#ifndef TILEC_FRONTEND_SEMA_H
#define TILEC_FRONTEND_SEMA_H

#include "tilec/Target/TargetFacts.h"
#include "tilec/frontend/AST.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tile::frontend {

struct CheckOptions {
  /// `tilec --cluster=X[,Y,Z]`: replaces every kernel's cluster attribute.
  std::optional<std::array<int, 3>> clusterOverride;
  /// `tilec --fast-math`: math functions default to their approximate form.
  bool fastMath = false;
  /// Whether libdevice (the accurate exp, log, sin, ... ) is there, and where
  /// it was looked for (for the message when it is not).
  bool libdeviceFound = true;
  std::string libdevicePath;
  /// `tilec -D`: values of kernels' compile-time parameters and explicit
  /// instances: "NAME=V[,V...]" (every kernel with parameter NAME),
  /// "KERNEL.NAME=V[,V...]" (that kernel), "KERNEL<V, ...>" (one instance,
  /// values in parameter order). docs/reference/kernels.md "Kernel specialisation".
  std::vector<std::string> defines;
};

/// Type-checks and annotates the module (see the [sema] fields in AST.h).
/// Returns false when any error was reported.
bool checkModule(ModuleAST &module, DiagnosticEngine &diags, const CheckOptions &options = {});

} // namespace tile::frontend

#endif
