//===- pipeline_fuzz.cpp - libFuzzer entry: source -> PTX -> ptxas --------===//
//
// Compiles arbitrary bytes through the whole pipeline (frontend, MLIRGen, the
// tile passes, conversion to LLVM, the NVPTX backend) with tile::compile and
// checks the outcome:
//   - accepted: the PTX must assemble with `ptxas -arch=sm_90a`; a rejection
//     means tilec accepted a program it cannot compile correctly;
//   - rejected: every error has FILE:LINE:COL, a caret line and a hint
//     (TILEC_FUZZ_DIAGS=location checks only the location, =off nothing).
// Crashes, hangs and sanitizer reports are caught by the driver (libFuzzer or
// fuzz_replay). Flags written in the input (a lit RUN line, or ones the
// mutator inserts) select the compile options, so lit inputs compile the way
// their tests do and mutants explore -O0, --no-auto-sync, --cluster and
// --debug-hangs.
//
//===----------------------------------------------------------------------===//
#include "fuzz_findings.h"
#include "fuzz_mutate.h"
#include "tilec/Compiler.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
const char *const kFileName = "fuzz.tile";

tile::CompileOptions optionsFor(const std::string &text) {
  tile::CompileOptions options;
  options.fileName = kFileName;
  options.emit = "ptx";
  options.arch = "sm_90a";
  if (text.find("--no-auto-sync") != std::string::npos)
    options.autoSync = false;
  if (text.find("--debug-hangs") != std::string::npos)
    options.debugHangsMs = 1000;
  for (char level : {'0', '1', '2'})
    if (text.find(std::string(" -O") + level) != std::string::npos)
      options.optLevel = level - '0';
  size_t at = text.find("--cluster=");
  if (at != std::string::npos) {
    std::array<int, 3> dims{1, 1, 1};
    const char *p = text.c_str() + at + 10;
    for (int i = 0; i < 3; ++i) {
      char *end = nullptr;
      long v = std::strtol(p, &end, 10);
      if (end == p)
        break;
      // The driver's --cluster parser bounds the values; this harness
      // exercises compile()'s handling of the ones it lets through.
      dims[i] = int(std::max(-1L, std::min(v, 64L)));
      if (*end != ',')
        break;
      p = end + 1;
    }
    options.clusterOverride = dims;
  }
  return options;
}

const char *diagsMode() {
  const char *m = std::getenv("TILEC_FUZZ_DIAGS");
  return m && *m ? m : "all";
}

// Totals for the drivers' summaries.
unsigned long gRuns = 0, gAccepted = 0;
} // namespace

namespace tile::fuzz {
void pipelineStats(unsigned long &runs, unsigned long &accepted) {
  runs = gRuns;
  accepted = gAccepted;
}
} // namespace tile::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace tile::fuzz;
  std::string text(reinterpret_cast<const char *>(data), size);
  tile::CompileOptions options = optionsFor(text);
  tile::CompileResult result = tile::compile(text, options);
  ++gRuns;
  if (result.ok) {
    ++gAccepted;
    if (result.output.empty())
      reportFinding("empty-output", "tilec accepted the input but produced no PTX", "");
    PtxasResult ptxas = runPtxas(result.output, options.arch);
    if (ptxas.ran && !ptxas.ok)
      reportFinding("ptxas-rejection", "tilec accepted the input; ptxas -arch=" + options.arch +
                                           " rejected its PTX",
                    ptxas.log + "\n--- PTX ---\n" + result.output);
    return 0;
  }
  std::string mode = diagsMode();
  if (mode == "off")
    return 0;
  std::string broken = diagnosticRuleBroken(result.diagnostics, kFileName);
  if (!broken.empty() && (mode == "all" || broken == "diagnostic-without-location" ||
                          broken == "error-without-diagnostic"))
    reportFinding(broken, "a rejected input's diagnostics break the FILE:LINE:COL/caret/hint rule",
                  "--- diagnostics ---\n" + result.diagnostics);
  return 0;
}

#ifdef TILEC_LIBFUZZER
// libFuzzer's byte-level mutations alone rarely keep a program valid enough
// to reach the backend; half the time, apply the token-level mutations the
// replay driver uses instead (fuzz_mutate.cpp).
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  tile::fuzz::Rng rng{seed * 0x9e3779b97f4a7c15ull + 1};
  if (rng.below(2))
    return LLVMFuzzerMutate(data, size, maxSize);
  static const std::vector<std::string> partners = tile::fuzz::builtinSeeds();
  std::string text(reinterpret_cast<const char *>(data), size);
  tile::fuzz::mutateTokens(text, partners, rng);
  if (text.size() > maxSize)
    text.resize(maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
#endif
