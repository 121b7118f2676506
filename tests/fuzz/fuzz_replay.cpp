//===- fuzz_replay.cpp - deterministic mutation fuzzing without libFuzzer --===//
//
// Runs LLVMFuzzerTestOneInput (frontend_fuzz.cpp or pipeline_fuzz.cpp) over
// every seed given on the command line (files, or folders of *.tile), then
// over deterministic mutants of them (fuzz_mutate.cpp), a few pathological
// shapes and every builtin called in every argument shape (call_shapes.cpp).
// Same seeds and flags, same inputs: a ctest sees no flakiness.
//
// --fork runs every input in a child process, so one crash does not end the
// run: each finding (crash, hang, sanitizer report, ptxas rejection, broken
// diagnostic) is classified from the child's stderr, deduplicated by class and
// top stack frame, saved under --save=DIR (the smallest input of each), and
// counted in the summary. Exit status 1 when anything was found.
//
//   tilec_pipeline_replay [--fork] [--jobs=N] [--iterations=N] [--seconds=S]
//       [--timeout=S] [--seed=N] [--save=DIR] SEED...
// --iterations=0 with --seconds=S: mutants until S seconds have passed.
// --minimize FILE...: shrinks each failing file while it fails the same way
// (same class and top frame) and writes it to --save=DIR as CLASS-HASH.tile.
// --only-files: just the given files (no built-in seeds or shapes), e.g. to
// classify libFuzzer's crash artifacts with --iterations=0.
//
//===----------------------------------------------------------------------===//
#include "call_shapes.h"
#include "fuzz_mutate.h"
#include "replay_fork.h"

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace tile::fuzz {
// Defined by pipeline_fuzz.cpp only: how many inputs compiled to PTX.
__attribute__((weak)) void pipelineStats(unsigned long &runs, unsigned long &accepted);
// Defined by pipeline_fuzz.cpp only: one compile without the checks.
__attribute__((weak)) void warmUpCompiler();
} // namespace tile::fuzz

namespace {
using namespace tile::fuzz;

// In-process mode: the input being run, printed if it crashes.
const std::string *gCurrent = nullptr;

void printCurrent() {
  if (!gCurrent)
    return;
  const char head[] = "\ntilec-fuzz: the input that failed (between the markers):\n-----\n";
  const char tail[] = "\n-----\n";
  (void)!write(2, head, sizeof(head) - 1);
  (void)!write(2, gCurrent->data(), gCurrent->size());
  (void)!write(2, tail, sizeof(tail) - 1);
}

extern "C" void onFatalSignal(int sig) {
  printCurrent();
  signal(sig, SIG_DFL);
  raise(sig);
}

#if defined(__SANITIZE_ADDRESS__)
#define TILEC_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILEC_HAS_ASAN 1
#endif
#endif

extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

void installCrashPrinters() {
  signal(SIGABRT, onFatalSignal);
  signal(SIGALRM, onFatalSignal);
#ifndef TILEC_HAS_ASAN
  // Under ASan its own handlers report these (with a stack); the death
  // callback below prints the input after the report.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    signal(sig, onFatalSignal);
#endif
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(printCurrent);
}

struct Args {
  std::vector<std::string> seedPaths;
  long iterations = 4000; // mutants; 0 = until --seconds
  double seconds = 0;     // 0 = no limit
  unsigned timeout = 60;  // per input
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  bool fork = false, onlyFiles = false, minimize = false;
  unsigned jobs = 1;
  std::string saveDir;
};

bool parseArgs(int argc, char **argv, Args &a) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return s.compare(0, n, flag) == 0 ? s.c_str() + n : nullptr;
    };
    if (const char *v = value("--iterations="))
      a.iterations = std::atol(v);
    else if (const char *v = value("--seconds="))
      a.seconds = std::atof(v);
    else if (const char *v = value("--timeout="))
      a.timeout = unsigned(std::atoi(v));
    else if (const char *v = value("--seed="))
      a.seed = std::strtoull(v, nullptr, 0) | 1;
    else if (const char *v = value("--jobs="))
      a.jobs = unsigned(std::max(1, std::atoi(v)));
    else if (const char *v = value("--save="))
      a.saveDir = v;
    else if (s == "--fork")
      a.fork = true;
    else if (s == "--only-files")
      a.onlyFiles = true;
    else if (s == "--minimize")
      a.minimize = true;
    else if (s.rfind("--", 0) == 0) {
      std::fprintf(stderr, "fuzz replay: unknown flag '%s'\n", s.c_str());
      return false;
    } else
      a.seedPaths.push_back(s);
  }
  return true;
}

std::vector<std::string> pathologicalInputs() {
  std::vector<std::string> out;
  out.push_back(std::string(200000, '('));
  out.push_back("kernel k() { let x = " + std::string(200000, '-') + "1 }");
  out.push_back("kernel k() { let x = " + std::string(200000, '[') + " }");
  std::string deep = "kernel k() {";
  for (int i = 0; i < 20000; ++i)
    deep += "while true {";
  out.push_back(deep);
  std::string chain = "kernel k() { let x = 1";
  for (int i = 0; i < 50000; ++i)
    chain += " * 1";
  out.push_back(chain + " }");
  std::string errs = "kernel k() {";
  for (int i = 0; i < 5000; ++i)
    errs += " let a = b\n";
  out.push_back(errs + "}");
  // Deep but legal: 250 nested blocks and a long valid expression reach the backend.
  std::string nested = "kernel k(p: ptr<i32, global>) {\n";
  for (int i = 0; i < 250; ++i)
    nested += "if p[" + std::to_string(i) + "] > 0 {";
  nested += "p[0] = 1";
  for (int i = 0; i < 250; ++i)
    nested += "}";
  out.push_back(nested + "\n}\n");
  std::string sum = "kernel k(p: ptr<i32, global>) {\n  p[0] = p[1]";
  for (int i = 0; i < 200; ++i)
    sum += " + p[" + std::to_string(i + 2) + "]";
  out.push_back(sum + "\n}\n");
  return out;
}
/// Runs one input in-process and says whether it compiled (fork children).
bool runInChild(const std::string &text) {
  unsigned long runs = 0, before = 0, after = 0;
  if (pipelineStats)
    pipelineStats(runs, before);
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(text.data()), text.size());
  if (pipelineStats)
    pipelineStats(runs, after);
  return after > before;
}

int minimizeAll(const Args &args, const std::vector<std::string> &inputs) {
  ForkRunner runner(args.timeout, 1, "");
  int failing = 0;
  for (const std::string &input : inputs) {
    Classification what = runner.runOnce(input, runInChild);
    if (what.kind.empty()) {
      std::printf("minimize: input of %zu bytes does not fail; skipped\n", input.size());
      continue;
    }
    ++failing;
    std::string small = minimizeInput(input, [&](const std::string &candidate) {
      return runner.runOnce(candidate, runInChild).key == what.key;
    });
    char hash[16];
    uint32_t h = 2166136261u;
    for (unsigned char c : what.key)
      h = (h ^ c) * 16777619u;
    std::snprintf(hash, sizeof hash, "%08x", h);
    std::string path =
        (args.saveDir.empty() ? "." : args.saveDir) + "/" + what.kind + "-" + hash + ".tile";
    if (!args.saveDir.empty())
      mkdir(args.saveDir.c_str(), 0755);
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (f) {
      std::fwrite(small.data(), 1, small.size(), f);
      std::fclose(f);
    }
    std::printf("=== %s\n%zu -> %zu bytes, saved as %s\n%s\n", what.key.c_str(), input.size(),
                small.size(), path.c_str(), small.c_str());
  }
  return failing ? 1 : 0;
}
} // namespace

int main(int argc, char **argv) {
  Args args;
  if (!parseArgs(argc, argv, args))
    return 2;
  std::vector<std::string> seeds;
  for (const std::string &p : args.seedPaths)
    collectSeeds(p, seeds);
  if (args.minimize)
    return minimizeAll(args, seeds);
  size_t fileSeeds = seeds.size();
  if (!args.onlyFiles)
    for (std::string &s : builtinSeeds())
      seeds.push_back(std::move(s));
  size_t initialSeeds = seeds.size();

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<std::string> shapes;
  if (!args.onlyFiles) {
    shapes = pathologicalInputs();
    for (std::string &s : builtinCallShapes())
      shapes.push_back(std::move(s));
  }
  Rng rng{args.seed};
  long mutants = 0;
  size_t next = 0; // inputs handed out so far
  // Seeds, then mutants (until --iterations or --seconds), then the shapes.
  auto nextInput = [&](std::string &out) -> bool {
    size_t i = next;
    if (i < initialSeeds) {
      out = seeds[i];
    } else if (!seeds.empty() && (args.iterations == 0 || mutants < args.iterations) &&
               (args.seconds <= 0 || elapsed() < args.seconds) &&
               (args.iterations > 0 || args.seconds > 0)) {
      out = mutants % 5 == 4 ? tokenSoup(rng) : mutate(seeds, rng);
      ++mutants;
    } else if (i - initialSeeds - size_t(mutants) < shapes.size()) {
      out = shapes[i - initialSeeds - size_t(mutants)];
    } else {
      return false;
    }
    ++next;
    return true;
  };

  if (!args.fork) {
    installCrashPrinters();
    std::string input;
    while (nextInput(input)) {
      gCurrent = &input;
      alarm(args.timeout);
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(input.data()), input.size());
      alarm(0);
    }
    gCurrent = nullptr;
    unsigned long runs = next, accepted = 0;
    std::string acceptedText;
    if (pipelineStats) {
      pipelineStats(runs, accepted);
      acceptedText = ", " + std::to_string(accepted) + " accepted and ptxas-checked";
    }
    std::printf("fuzz replay: %zu seed files, %zu inputs (%zu seeds, %ld mutants, %zu shapes)%s, "
                "no crash (%.2fs)\n",
                fileSeeds, next, initialSeeds, mutants, shapes.size(), acceptedText.c_str(),
                elapsed());
    return 0;
  }

  // Fork mode works in rounds so that its inputs do not depend on --jobs:
  // the seeds, then rounds of mutants drawn mostly from the inputs accepted
  // so far (valid programs reach MLIRGen, the passes and ptxas; byte soup
  // mostly stops in the lexer, which fuzz.frontend_replay covers).
  ForkRunner runner(args.timeout, args.jobs, args.saveDir);
  // The first compile registers LLVM's targets and passes; do it once here
  // so every child inherits it instead of repeating it.
  if (warmUpCompiler)
    runner.warmUp(warmUpCompiler);
  auto runOne = runInChild;
  for (const std::string &s : seeds)
    runner.submit(s, runOne);
  runner.finish();
  std::vector<std::string> valid = runner.takeAccepted();
  size_t validSeeds = valid.size();
  const size_t kRound = 64, kMaxValid = 4000;
  while (!seeds.empty() && (args.iterations == 0 || mutants < args.iterations) &&
         (args.seconds <= 0 || elapsed() < args.seconds) &&
         (args.iterations > 0 || args.seconds > 0)) {
    for (size_t k = 0; k < kRound && (args.iterations == 0 || mutants < args.iterations); ++k) {
      std::string input = mutants % 20 == 19                      ? tokenSoup(rng)
                          : (!valid.empty() && rng.below(5) != 0) ? mutate(valid, seeds, rng)
                                                                  : mutate(seeds, rng);
      ++mutants;
      runner.submit(input, runOne);
    }
    runner.finish();
    for (std::string &s : runner.takeAccepted())
      if (valid.size() < kMaxValid)
        valid.push_back(std::move(s));
  }
  for (const std::string &s : shapes)
    runner.submit(s, runOne);
  runner.finish();
  std::printf("fuzz replay: %zu seed files, %zu seeds (%zu accepted), %ld mutants, %zu shapes, "
              "%zu valid programs to mutate at the end (%.1fs)\n",
              fileSeeds, initialSeeds, validSeeds, mutants, shapes.size(), valid.size(), elapsed());
  return runner.printSummary(stdout) ? 0 : 1;
}
