//===- pipeline_fuzz.cpp - libFuzzer entry: source -> PTX -> ptxas --------===//
//
// Compiles arbitrary bytes through the whole pipeline (frontend, MLIRGen, the
// tile passes, conversion to LLVM, the NVPTX backend) with tile::compile and
// checks the outcome:
//   - accepted: the PTX must assemble with `ptxas -arch=sm_90a` (a rejection
//     means tilec accepted a program it cannot compile correctly) and must
//     not use a kernel's name as an operand (a symbol clash); the -O0 LLVM
//     IR must be free of UB the compiler introduced; a second compile gives
//     the same PTX; tile-opt round-trips the --emit=mlir form;
//   - rejected: every error has FILE:LINE:COL, a caret line and a hint
//     (TILEC_FUZZ_DIAGS=location checks only the location, =off nothing).
// docs/fuzzing.md lists the finding classes.
// Crashes, hangs and sanitizer reports are caught by the driver (libFuzzer or
// fuzz_replay). Flags written in the input (a lit RUN line, or ones the
// mutator inserts) select the compile options, so lit inputs compile the way
// their tests do and mutants explore -O0, --no-auto-sync, --cluster and
// --debug-hangs (--fast-math and --fmad=false are read as well).
//
//===----------------------------------------------------------------------===//
#include "fuzz_findings.h"
#include "fuzz_mutate.h"
#include "tilec/Compiler.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define TILEC_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILEC_HAS_ASAN 1
#endif
#endif
#if !defined(TILEC_LIBFUZZER) && !defined(TILEC_HAS_ASAN)
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Signals.h"
namespace {
// Without a sanitizer nothing else prints a stack when a compile crashes;
// the replay driver deduplicates crashes by their top frame.
struct StackTraceOnCrash {
  StackTraceOnCrash() {
    if (!std::getenv("LLVM_SYMBOLIZER_PATH") &&
        access("/usr/lib/llvm-22/bin/llvm-symbolizer", X_OK) == 0)
      setenv("LLVM_SYMBOLIZER_PATH", "/usr/lib/llvm-22/bin/llvm-symbolizer", 0);
    llvm::sys::PrintStackTraceOnErrorSignal("");
  }
} gStackTraceOnCrash;
} // namespace
#endif

namespace {
const char *const kFileName = "fuzz.tile";

/// tile::compile accepts an override of positive sizes whose product is at
/// most the non-portable cluster limit (tile/target.h).
bool validOverride(const std::array<int, 3> &dims) {
  long product = 1;
  for (int d : dims) {
    if (d < 1)
      return false;
    product *= d;
  }
  return product <= tile::target::kMaxClusterSize;
}

tile::CompileOptions optionsFor(const std::string &text) {
  tile::CompileOptions options;
  options.fileName = kFileName;
  options.emit = tile::EmitKind::PTX;
  options.arch = "sm_90a";
  // The harness assembles every PTX with ptxas itself (a rejection is a
  // finding of its own); compile() need not run it a second time.
  options.checkWgmma = false;
  if (text.find("--no-auto-sync") != std::string::npos)
    options.autoSync = false;
  if (text.find("--debug-hangs") != std::string::npos)
    options.debugHangsMs = 1000;
  if (text.find("--fast-math") != std::string::npos)
    options.fastMath = true;
  if (text.find("--fmad=false") != std::string::npos)
    options.fmad = false;
  // --explain-sync on every other input: the report walks every op's location.
  options.explainSync = text.size() % 2 == 0;
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

/// A kernel's name used as an operand inside PTX code: the language cannot
/// take a kernel's address, so such a reference means a user name collided
/// with a symbol the compiler made (its shared-memory arrays, say) and now
/// silently means the kernel. ptxas accepts that; this check does not.
std::string kernelSymbolUsedAsOperand(const std::string &ptx) {
  std::vector<std::string> entries;
  std::istringstream in(ptx);
  std::vector<std::string> code, shadowed;
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find(".entry ");
    if (at != std::string::npos) {
      size_t start = at + 7, end = line.find_first_of("( \t", start);
      entries.push_back(
          line.substr(start, end == std::string::npos ? std::string::npos : end - start));
      continue;
    }
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0)
      continue;
    if (line.compare(first, 5, ".reg ") == 0 || line.back() == ':') {
      // A local register or label (inline asm's `done`, `TILE_WAIT`) shadows
      // a kernel of the same name inside its scope: legal PTX.
      std::string decl = line.substr(first);
      size_t end = decl.find_last_not_of(" \t;:");
      size_t start = decl.find_last_of(" \t", end);
      shadowed.push_back(decl.substr(start == std::string::npos ? 0 : start + 1,
                                     end - (start == std::string::npos ? 0 : start + 1) + 1));
      continue;
    }
    if (line[first] == '.')
      continue; // a declaration (.param, .shared, ...)
    // Only the operands: drop a guard predicate (@%p) and the opcode.
    std::string insn = line.substr(first, line.find("//") - first);
    if (!insn.empty() && insn[0] == '@')
      insn = insn.substr(std::min(insn.size(), insn.find_first_of(" \t") + 1));
    size_t operands = insn.find_first_of(" \t;{}");
    code.push_back(operands == std::string::npos ? "" : insn.substr(operands));
  }
  for (const std::string &name : shadowed)
    entries.erase(std::remove(entries.begin(), entries.end(), name), entries.end());
  auto isIdentChar = [](char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; };
  for (const std::string &line : code)
    for (const std::string &name : entries)
      for (size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) {
        // Part of a longer name, a register (%r), or an opcode suffix (ld.param).
        bool before =
            at > 0 && (isIdentChar(line[at - 1]) || line[at - 1] == '%' || line[at - 1] == '.');
        bool after = at + name.size() < line.size() &&
                     (isIdentChar(line[at + name.size()]) || line[at + name.size()] == '.');
        if (!before && !after)
          return "kernel '" + name + "' used as an operand: " + line;
      }
  return "";
}

/// Undefined behaviour the compiler itself put into the unoptimised LLVM IR
/// (before LLVM's optimisations, which may exploit it and delete the code):
/// a poison operand, a shift by a constant >= the bit width, a division by a
/// constant zero. The language gives every operator a defined result
/// (docs/reference/operators.md), so each of these means the source's meaning was lost.
std::string undefinedBehaviourIn(const std::string &llvmIR) {
  std::istringstream in(llvmIR);
  for (std::string line; std::getline(in, line);) {
    size_t semi = line.find(';');
    std::string code = line.substr(0, semi);
    if (code.empty() || code[0] == '@')
      continue; // a global: shared memory is rightly `undef` until written
    if (code.find(" = ") == std::string::npos && code.find("store ") == std::string::npos)
      continue;
    // Building an aggregate or vector from poison is the normal idiom.
    bool aggregate = code.find("insertvalue") != std::string::npos ||
                     code.find("insertelement") != std::string::npos ||
                     code.find("shufflevector") != std::string::npos;
    if (!aggregate &&
        (code.find(" poison") != std::string::npos || code.find(" undef") != std::string::npos))
      return "poison/undef operand: " + code;
    std::istringstream words(code);
    std::vector<std::string> w;
    for (std::string x; words >> x;)
      w.push_back(x);
    // %r = OP [flags] iN A, B
    for (size_t i = 0; i + 3 < w.size(); ++i) {
      const std::string &op = w[i];
      bool shift = op == "shl" || op == "lshr" || op == "ashr";
      bool div = op == "sdiv" || op == "udiv" || op == "srem" || op == "urem";
      if (!shift && !div)
        continue;
      size_t t = i + 1;
      while (t < w.size() && (w[t] == "nuw" || w[t] == "nsw" || w[t] == "exact"))
        ++t;
      if (t + 2 >= w.size() || w[t].size() < 2 || w[t][0] != 'i' ||
          w[t].find('<') != std::string::npos)
        break;
      int bits = std::atoi(w[t].c_str() + 1);
      const std::string &b = w[t + 2];
      char *end = nullptr;
      long long amount = std::strtoll(b.c_str(), &end, 10);
      if (end == b.c_str() || *end)
        break; // not a constant
      if (shift && (amount < 0 || amount >= bits))
        return "shift by " + b + ", outside [0, " + std::to_string(bits) + "): " + code;
      if (div && amount == 0)
        return "division by constant zero: " + code;
      break;
    }
  }
  return "";
}

uint64_t hashOf(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

/// An accepted input must also give the same PTX a second time (pointer-keyed
/// iteration or uninitialised state shows up as a difference; checked on a
/// quarter of the inputs, it costs a compile), and an --emit=mlir that
/// tile-opt parses, verifies and round-trips (printer/parser/verifier
/// disagreements).
void checkOtherForms(const std::string &text, const tile::CompileOptions &options,
                     const tile::CompileResult &ptx) {
  using namespace tile::fuzz;
  if (hashOf(text) % 4 == 0) {
    tile::CompileResult again = tile::compile(text, options);
    if (!again.ok || again.output != ptx.output)
      reportFinding("nondeterministic-output", "a second compile of the input gave other PTX",
                    again.ok ? "--- first ---\n" + ptx.output + "\n--- second ---\n" + again.output
                             : "--- second compile failed ---\n" + again.diagnostics);
  }
  tile::CompileOptions llvmOptions = options;
  llvmOptions.emit = tile::EmitKind::LLVM;
  llvmOptions.optLevel = 0;
  tile::CompileResult llvmIR = tile::compile(text, llvmOptions);
  if (!llvmIR.ok)
    reportFinding("emit-mismatch", "--emit=ptx accepted the input, --emit=llvm -O0 rejected it",
                  llvmIR.diagnostics);
  std::string ub = undefinedBehaviourIn(llvmIR.output);
  if (!ub.empty())
    reportFinding("undefined-behaviour", ub, "--- LLVM IR (-O0) ---\n" + llvmIR.output);
  tile::CompileOptions mlirOptions = options;
  mlirOptions.emit = tile::EmitKind::MLIR;
  tile::CompileResult mlir = tile::compile(text, mlirOptions);
  if (!mlir.ok)
    reportFinding("emit-mismatch", "--emit=ptx accepted the input, --emit=mlir rejected it",
                  mlir.diagnostics);
  ToolResult roundTrip = runTileOptRoundTrip(mlir.output);
  if (roundTrip.ran && !roundTrip.ok)
    reportFinding("mlir-roundtrip", "tile-opt --verify-roundtrip rejected tilec's --emit=mlir",
                  roundTrip.log + "\n--- MLIR ---\n" + mlir.output);
}

// Totals for the drivers' summaries.
unsigned long gRuns = 0, gAccepted = 0;
} // namespace

namespace tile::fuzz {
void pipelineStats(unsigned long &runs, unsigned long &accepted) {
  runs = gRuns;
  accepted = gAccepted;
}
void warmUpCompiler() { (void)tile::compile("kernel warm(p: ptr<i32, global>) { p[0] = 1 }\n"); }
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
    ToolResult ptxas = runPtxas(result.output, options.arch);
    if (ptxas.ran && !ptxas.ok)
      reportFinding("ptxas-rejection",
                    "tilec accepted the input; ptxas -arch=" + options.arch + " rejected its PTX",
                    ptxas.log + "\n--- PTX ---\n" + result.output);
    std::string clash = kernelSymbolUsedAsOperand(result.output);
    if (!clash.empty())
      reportFinding("symbol-clash", clash, "--- PTX ---\n" + result.output);
    checkOtherForms(text, options, result);
    return 0;
  }
  std::string mode = diagsMode();
  if (mode == "off")
    return 0;
  // A bad cluster override is an option error, not a source error: it is
  // reported as `tilec: error: the cluster override ...` with a hint and no
  // source location, as tilec reports its --cluster option.
  if (options.clusterOverride && !validOverride(*options.clusterOverride)) {
    if (result.diagnostics.rfind("tilec: error: the cluster override", 0) != 0)
      reportFinding("option-error-missed", "an invalid cluster override was not reported as one",
                    "--- diagnostics ---\n" + result.diagnostics);
    return 0;
  }
  std::string offending;
  std::string broken = diagnosticRuleBroken(result.diagnostics, kFileName, &offending);
  if (!broken.empty() && (mode == "all" || broken == "diagnostic-without-location" ||
                          broken == "error-without-diagnostic"))
    reportFinding(broken, offending.empty() ? "(no diagnostics)" : offending,
                  "a rejected input's diagnostics break the FILE:LINE:COL/caret/hint rule\n"
                  "--- diagnostics ---\n" +
                      result.diagnostics);
  return 0;
}

#ifdef TILEC_LIBFUZZER
// fuzz.sh's summary counts accepted inputs: libFuzzer's fork mode runs the
// target in child processes, so each appends its totals when it exits.
namespace {
void appendStats() {
  const char *path = std::getenv("TILEC_FUZZ_STATS");
  if (!path || !*path)
    return;
  if (std::FILE *f = std::fopen(path, "a")) {
    std::fprintf(f, "%lu %lu\n", gRuns, gAccepted);
    std::fclose(f);
  }
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  std::atexit(appendStats);
  return 0;
}

// libFuzzer's byte-level mutations alone rarely keep a program valid enough
// to reach the backend: three times in four, apply the token-level mutations
// of the replay driver (fuzz_mutate.cpp) instead, crossing over with the
// built-in seeds and the *.tile files under TILEC_FUZZ_SEEDS (fuzz.sh sets it
// to its seed folder).
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  tile::fuzz::Rng rng{seed * 0x9e3779b97f4a7c15ull + 1};
  if (rng.below(4) == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  static const std::vector<std::string> partners = [] {
    std::vector<std::string> p = tile::fuzz::builtinSeeds();
    if (const char *dir = std::getenv("TILEC_FUZZ_SEEDS"))
      tile::fuzz::collectSeeds(dir, p);
    return p;
  }();
  std::string text(reinterpret_cast<const char *>(data), size);
  tile::fuzz::mutateTokens(text, partners, rng);
  if (text.size() > maxSize)
    text.resize(maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
#endif
