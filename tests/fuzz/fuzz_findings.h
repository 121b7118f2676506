//===- fuzz_findings.h - what the fuzz targets count as a bug ---*- C++ -*-===//
//
// The checks the whole-pipeline target applies to every compile besides "no
// crash, no sanitizer report": accepted PTX must pass ptxas, and rejected
// input must be explained by well-formed diagnostics. A failed check aborts
// with a "tilec-fuzz: FINDING <class>:" line, so libFuzzer saves the input
// and the replay driver classifies it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FUZZ_FINDINGS_H
#define TILEC_FUZZ_FINDINGS_H

#include <string>

namespace tile::fuzz {

/// Prints "tilec-fuzz: FINDING <kind>: <summary>" and the detail, then aborts.
[[noreturn]] void reportFinding(const std::string &kind, const std::string &summary,
                                const std::string &detail);

struct ToolResult {
  bool ran = false; // false: the tool is not there (the check is skipped)
  bool ok = false;  // exit status 0
  std::string log;  // the tool's stdout and stderr
};

/// Assembles `ptx` with `ptxas -arch=<arch>` (TILEC_PTXAS or the CUDA
/// toolkit's ptxas) through a temporary file.
ToolResult runPtxas(const std::string &ptx, const std::string &arch);

/// Parses, verifies and round-trips `mlir` (tilec --emit=mlir output) with
/// `tile-opt --verify-roundtrip` (TILEC_TILE_OPT or the build's tile-opt).
ToolResult runTileOptRoundTrip(const std::string &mlir);

/// The first rule `diagnostics` (rendered by tile::compile for `fileName`)
/// breaks, or "" when every error has FILE:LINE:COL, a caret line and a hint:
/// "error-without-diagnostic", "diagnostic-without-location",
/// "diagnostic-without-caret" or "diagnostic-without-hint".
/// `offending` receives the header line of the diagnostic that breaks it.
std::string diagnosticRuleBroken(const std::string &diagnostics, const std::string &fileName,
                                 std::string *offending = nullptr);

} // namespace tile::fuzz

#endif
