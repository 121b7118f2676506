//===- Compiler.h - tilec as a library: .tile source -> PTX -----*- C++ -*-===//
// Free of MLIR/LLVM headers so that embedding programs only need this file.
#ifndef TILEC_COMPILER_H
#define TILEC_COMPILER_H

#include "tile/kernel_info.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tile {

struct CompileOptions {
  std::string arch = "sm_90a";
  int optLevel = 3;                 // 0..3
  /// ast | mlir | nvvm | llvm | ptx | info (the kernel info as JSON, after
  /// the whole pipeline has run, so it exists only for kernels that compile)
  std::string emit = "ptx";
  std::string fileName = "<input>"; // used in diagnostics
  /// Replaces every kernel's cluster shape (tilec --cluster=X[,Y,Z]).
  std::optional<std::array<int, 3>> clusterOverride;
  /// Print the IR after every MLIR pass to stderr (tilec --mlir-print-ir-after-all).
  bool printIRAfterAll = false;
  /// Insert and relax fences and barriers (docs/passes.md); when off, missing
  /// ones are errors instead (tilec --no-auto-sync).
  bool autoSync = true;
  /// Fill CompileResult::syncReport (tilec --explain-sync).
  bool explainSync = false;
  /// > 0: bound every mbarrier wait to this many milliseconds, then report the
  /// hang and trap (tilec --debug-hangs[=MS]).
  unsigned debugHangsMs = 0;
};

struct CompileResult {
  bool ok = false;
  std::string output;      // the requested form (PTX by default)
  std::string diagnostics; // rendered errors and warnings (also when ok): FILE:LINE:COL, caret line, hint
  /// One line per fence/barrier the compiler inserted or changed:
  /// FILE:LINE:COL: KIND: REASON (options.explainSync).
  std::string syncReport;
  /// What the host needs of each kernel (parameters, cluster, threads, shared
  /// memory and the dynamic shared-memory rule); filled whenever the source
  /// passes the checker. tile::toJson(ModuleInfo) writes it as --emit=info does.
  std::vector<KernelInfo> kernels;
};

/// Compiles one .tile translation unit in-process. Thread-compatible: each
/// call owns its MLIR and LLVM contexts.
CompileResult compile(const std::string &source, const CompileOptions &options = {});

} // namespace tile

#endif
