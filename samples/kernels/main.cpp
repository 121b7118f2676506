// kernels: runs the samples/kernels .tile kernels (PTX from tilec, through the
// tilec runtime) on fresh random inputs, checks every output against a CPU
// reference (exact for the integer and copy kernels, a stated tolerance for the
// float ones) and optionally times them. The nvcc twins, cuBLAS and the side by
// side table are in kernels_bench (bench.cu); this program needs no nvcc.
//
//   kernels [--kernel all|NAME[,NAME...]] [--size small|check|bench] [--runs R]
//           [--warmup W] [--seed S] [--skip-code C]
//
// NAME is a .tile file's stem: vector_add reduce transpose sgemm_smem sgemm_2d
// softmax merge_states scan scan_lookback stencil5. The PTX is <dir>/kernels_NAME.ptx (+ .info.json), dir =
// $TILEC_PTX_DIR or the build's PTX directory. With `all`, a kernel the build does
// not compile yet (not in TILEC_KERNELS_READY, samples/kernels/CMakeLists.txt) and
// whose PTX is missing is reported as waiting, not as a failure. --size defaults
// to check (small when TILEC_GPU_TEST_SMALL=1, as under compute-sanitizer).
// Without a CUDA device: "no CUDA device: compiled only", exit --skip-code (0).
#include "kernels_common.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

struct Options {
  std::vector<std::string> kernels; // empty = all
  kern::Size size = kern::Size::Check;
  int runs = 0, warmup = 2;
  uint64_t seed = 0;
  bool seedGiven = false;
  int skipCode = 0;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "kernels: %s\n"
      "usage: kernels [--kernel all|NAME[,NAME...]] [--size small|check|bench] [--runs R]\n"
      "               [--warmup W] [--seed S] [--skip-code C]\n",
      msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  if (const char *s = std::getenv("TILEC_GPU_TEST_SMALL"))
    if (std::string(s) == "1")
      o.size = kern::Size::Small;
  sample::ArgReader args(argc, argv, usage, {"--kernel"});
  while (args.next()) {
    const std::string &a = args.flag();
    if (a == "--kernel") {
      for (const std::string &k : args.listValue())
        if (k != "all")
          o.kernels.push_back(k);
    } else if (a == "--size") {
      std::string s = args.value();
      if (s == "small")
        o.size = kern::Size::Small;
      else if (s == "check")
        o.size = kern::Size::Check;
      else if (s == "bench")
        o.size = kern::Size::Bench;
      else
        usage(("bad --size " + s).c_str());
    } else if (a == "--runs")
      o.runs = static_cast<int>(args.intValue());
    else if (a == "--warmup")
      o.warmup = static_cast<int>(args.intValue());
    else if (a == "--seed") {
      o.seed = static_cast<uint64_t>(args.intValue());
      o.seedGiven = true;
    } else if (a == "--skip-code")
      o.skipCode = static_cast<int>(args.intValue());
    else if (a == "-h" || a == "--help")
      usage("help");
    else
      usage(("unknown argument '" + a + "'").c_str());
  }
  if (o.runs < 0 || o.warmup < 0)
    usage("--runs and --warmup must be >= 0");
  return o;
}

int run(const Options &o) {
  tile::Context ctx(0);
  std::printf("device: %s (sm_%d, %d SMs), driver %d\n", ctx.name().c_str(),
              ctx.computeCapability(), ctx.smCount(), ctx.driverVersion());
  std::printf("ptx dir: %s, size: %s\n", sample::ptxDir().c_str(), kern::sizeName(o.size));

  std::vector<std::unique_ptr<kern::Case>> cases;
  for (auto &c : kern::allCases()) {
    bool wanted = o.kernels.empty();
    for (const std::string &k : o.kernels)
      wanted |= k == c->name();
    if (wanted)
      cases.push_back(std::move(c));
  }
  for (const std::string &k : o.kernels) {
    bool known = false;
    for (auto &c : cases)
      known |= k == c->name();
    if (!known)
      usage(("unknown kernel '" + k + "'").c_str());
  }

  int ok = 0, failed = 0, waiting = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    kern::Case &c = *cases[i];
    const std::string ptx = kern::ptxPath(c.name());
    if (!kern::fileExists(ptx) && !kern::isReady(c.name()) && o.kernels.empty()) {
      std::printf("%-11s WAITING: %s not built (not in the ready list of "
                  "samples/kernels/CMakeLists.txt)\n",
                  c.name(), ptx.c_str());
      ++waiting;
      continue;
    }
    const uint64_t seed = o.seedGiven ? o.seed + i : kern::freshSeed();
    try {
      if (auto *r = dynamic_cast<kern::Reduce *>(&c))
        r->smCount = ctx.smCount();
      c.load(ctx);
      c.setup(o.size, seed);
      c.poison();
      c.beforeRun();
      c.runTile();
      ctx.synchronize();
      std::string diff = c.check();
      std::string timing;
      if (diff.empty() && o.runs > 0) {
        kern::Timing t =
            kern::timeRuns([&] { c.beforeRun(); }, [&] { c.runTile(); }, o.warmup, o.runs);
        char b[96];
        std::snprintf(b, sizeof b, ", median %.4f ms of %d (%s)", t.median, o.runs,
                      kern::rate(c, t.median).c_str());
        timing = b;
        diff = c.check(); // the timed runs' output too
      }
      std::printf("%-11s %-22s %s (%s, seed %llu)%s\n", c.name(), c.shape().c_str(),
                  diff.empty() ? "OK" : ("MISMATCH: " + diff).c_str(), c.tolerance().c_str(),
                  static_cast<unsigned long long>(seed), timing.c_str());
      (diff.empty() ? ok : failed)++;
    } catch (const std::exception &e) {
      std::printf("%-11s FAILED: %s\n", c.name(), e.what());
      ++failed;
      ctx.synchronize();
    }
    std::fflush(stdout);
  }
  std::printf("kernels: %d OK, %d FAILED, %d waiting\n", ok, failed, waiting);
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  if (tile::deviceCount() == 0) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  try {
    return run(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "kernels: error: %s\n", e.what());
    return 1;
  }
}
