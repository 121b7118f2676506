//===- Compiler.h - tilec as a library: .tile source -> PTX -----*- C++ -*-===//
// Free of MLIR/LLVM headers so that embedding programs only need this file.
#ifndef TILEC_COMPILER_H
#define TILEC_COMPILER_H

#include "tile/kernel_info.h"
#include "tilec/DebugHangsBounds.h"
#include "tilec/Target/TargetFacts.h"

#include <array>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tile {

/// What tile::compile returns in CompileResult::output: the checked AST dump,
/// tile-dialect MLIR (before any pass), LLVM + NVVM dialect MLIR (after the
/// whole pipeline), LLVM IR, PTX, or the kernel info as JSON (after the whole
/// pipeline has run, so it exists only for kernels that compile).
enum class EmitKind { AST, MLIR, NVVM, LLVM, PTX, Info };

/// The names tilec's --emit and the docs use, in EmitKind order.
inline constexpr const char *kEmitKindNames[] = {"ast", "mlir", "nvvm", "llvm", "ptx", "info"};

/// "ptx" for EmitKind::PTX; nullptr for a value outside the enum.
inline const char *emitKindName(EmitKind kind) {
  auto index = static_cast<unsigned>(kind);
  return index < std::size(kEmitKindNames) ? kEmitKindNames[index] : nullptr;
}

/// The kind called `name`, or nullopt.
inline std::optional<EmitKind> parseEmitKind(std::string_view name) {
  for (unsigned i = 0; i < std::size(kEmitKindNames); ++i)
    if (name == kEmitKindNames[i])
      return static_cast<EmitKind>(i);
  return std::nullopt;
}

/// "ast, mlir, nvvm, llvm, ptx, info": for hints and help text.
inline std::string emitKindList() {
  std::string list;
  for (const char *name : kEmitKindNames)
    list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

struct CompileOptions {
  /// One of tile::target::kSupportedArchs (checked by compile()).
  std::string arch = target::kDefaultArch;
  int optLevel = 3; // 0..3
  EmitKind emit = EmitKind::PTX;
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
  /// > 0: bound every mbarrier wait to this many milliseconds (at most
  /// kMaxDebugHangsMs), then report the hang and trap (tilec --debug-hangs[=MS]).
  unsigned debugHangsMs = 0;
  /// Run `ptxas -v` on the produced PTX and turn the advisories of
  /// tile/ptxas_advisory.h (dropped setmaxnreg, serialised wgmma) into errors
  /// at the kernel's location (tilec --verify-ptxas[=PATH]). ptxasPath: ""
  /// finds /usr/local/cuda/bin/ptxas or ptxas in PATH (a warning when there
  /// is none); a path names it (an error when it is not there).
  bool verifyPtxas = false;
  std::string ptxasPath;
  /// Without verifyPtxas: when the PTX has wgmma.mma_async or a kernel
  /// declares a local array, run the ptxas found (as verifyPtxas does) and
  /// make a serialised-wgmma advisory an error at the kernel's location,
  /// since the runtime refuses such a module at load (without a ptxas, a
  /// warning that it was not checked), and a kernel whose registers ptxas
  /// spills a warning. Off: tilec --no-wgmma-check.
  bool checkWgmma = true;
  /// Contract a float product feeding a sum into fma.rn, as nvcc's
  /// -fmad=true (tilec --fmad=false turns it off: docs/reference/operators.md "Floats").
  bool fmad = true;
  /// Math functions default to their approximate PTX forms (tilec --fast-math).
  bool fastMath = false;
  /// Where a consume block's closing wait is kept after its turn left mmas in
  /// flight (tilec --mma-wait-anchor=none|reduce|last; the tile-anchor-mma-waits pass).
  std::string mmaWaitAnchor = "none";
  /// libdevice.10.bc for the accurate exp, log, sin, ... ("": $TILEC_LIBDEVICE,
  /// else the CUDA toolkit's, found at build time: tile::defaultLibdevicePath()).
  std::string libdevicePath;
  /// Instances of kernels with compile-time parameters (tilec -D), each in
  /// tilec's -D syntax: "NAME=V[,V...]" (every kernel with parameter NAME;
  /// several values: one instance per combination), "KERNEL.NAME=V[,V...]"
  /// (that kernel; wins over NAME=), "KERNEL<V1, V2>" (one instance, values
  /// in parameter order; when given, only these instances of KERNEL).
  /// A value is an integer, true/false, or a scalar type's name for a type
  /// parameter (`kernel k<T: type>`: "T=f16,bf16"). Each instance is a PTX
  /// entry named KERNEL$P1V1$P2V2 (type arguments first: KERNEL$Tbf16$BN256;
  /// docs/reference/kernels.md "Kernel specialisation", "Type parameters");
  /// KernelInfo::sourceName/templateArgs/typeArgs name it.
  std::vector<std::string> defines;
};

/// The libdevice tilec uses when CompileOptions::libdevicePath is empty.
std::string defaultLibdevicePath();

struct CompileResult {
  bool ok = false;
  std::string output; // the requested form (PTX by default)
  std::string
      diagnostics; // rendered errors and warnings (also when ok): FILE:LINE:COL, caret line, hint
  /// One line per fence/barrier the compiler inserted or changed:
  /// FILE:LINE:COL: KIND: REASON (options.explainSync).
  std::string syncReport;
  /// What the host needs of each kernel (parameters, cluster, threads, shared
  /// memory and the dynamic shared-memory rule), read off the tile IR's host
  /// contract: after the memory-model passes (for --emit=mlir, MLIRGen's IR;
  /// empty for --emit=ast). tile::toJson(ModuleInfo) writes it as --emit=info does.
  std::vector<KernelInfo> kernels;
};

/// Compiles one .tile translation unit in-process. Thread-compatible: each
/// call owns its MLIR and LLVM contexts.
CompileResult compile(const std::string &source, const CompileOptions &options = {});

} // namespace tile

#endif
