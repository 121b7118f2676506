// pingpong: runs the low-latency cluster ping-pong (pingpong.tile, compiled to
// PTX by tilec) through the tilec runtime and checks every received value.
//
//   pingpong [--iters 10000] [--runs 3] [--ptx PATH] [--skip-code C]
//
// Launch: 128 CTAs x 32 threads, clusters of 8 (the kernel's cluster(8)
// threads(32)), no dynamic shared memory; `out` holds 128 * iters * 4 ints.
// Before every run `out` (and a guard after it) is poisoned with 0xA5 bytes;
// after it, every int is compared with the value the partner CTA sent (see
// pingpong_common.h) and the guard must be untouched.
// --ptx defaults to $TILEC_PTX_DIR (else the build's PTX dir)/pingpong.ptx.
// Without a CUDA device it prints "no CUDA device: compiled only" and exits with
// --skip-code (default 0; ctest uses 77 to report a skip).
#include "pingpong_common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Options {
  int iters = pingpong::kDefaultIters;
  int runs = 3;
  std::string ptx;
  int skipCode = 0;
};

// Ints after `out` that the kernel must not touch.
constexpr size_t kGuard = 64;

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "pingpong: %s\n"
               "usage: pingpong [--iters N] [--runs R] [--ptx PATH] [--skip-code C]\n",
               msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader args(argc, argv, usage);
  while (args.next()) {
    const std::string &a = args.flag();
    if (a == "--iters") {
      long long n = args.intValue();
      if (n < 0 || n > 2000000)
        usage("--iters must be 0..2000000");
      o.iters = static_cast<int>(n);
    } else if (a == "--runs")
      o.runs = static_cast<int>(args.intValue());
    else if (a == "--ptx")
      o.ptx = args.value();
    else if (a == "--skip-code")
      o.skipCode = static_cast<int>(args.intValue());
    else if (a == "-h" || a == "--help")
      usage("help");
    else
      usage(("unknown argument '" + a + "'").c_str());
  }
  if (o.runs < 1)
    usage("--runs must be >= 1");
  return o;
}

int run(const Options &o) {
  tile::Context ctx(0);
  const std::string ptxPath = o.ptx.empty() ? pingpong::ptxPath() : o.ptx;
  pingpong::TilePingPong pp(ctx, ptxPath);
  if (pp.ptxCluster() != 0 && pp.ptxCluster() != static_cast<int>(pingpong::kCluster)) {
    std::fprintf(stderr, "pingpong: %s was compiled for cluster %d, not %u\n", ptxPath.c_str(),
                 pp.ptxCluster(), pingpong::kCluster);
    return 2;
  }

  std::printf("device: %s (sm_%d, %d SMs), driver %d\n", ctx.name().c_str(),
              ctx.computeCapability(), ctx.smCount(), ctx.driverVersion());
  std::printf("ptx: %s\n", ptxPath.c_str());
  std::printf("config: %u CTAs x %u threads, cluster %u, %d iterations, %d regs/thread, %zu B "
              "static smem/CTA\n",
              pingpong::kGrid, pingpong::kThreads, pingpong::kCluster, o.iters,
              pp.kernel().numRegs(), pp.kernel().staticSharedBytes());

  const size_t n = pingpong::outCount(o.iters);
  tile::DeviceBuffer<int32_t> out(n + kGuard);
  bool ok = true;
  std::vector<float> ms;
  for (int r = 0; r < o.runs; ++r) {
    out.fillBytes(pingpong::kPoisonByte);
    tile::EventTimer t;
    t.start();
    pp.launch(out.ptr(), o.iters);
    ms.push_back(t.stopMs());
    ctx.synchronize();
    std::string diff = pingpong::checkOutput(out.toHost(), o.iters);
    if (!diff.empty()) {
      std::printf("run %d: MISMATCH: %s\n", r, diff.c_str());
      ok = false;
    }
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  std::printf("time: median %.3f ms of %d runs (min %.3f), %.1f ns/iteration\n", med, o.runs,
              ms.front(), o.iters > 0 ? med * 1e6 / o.iters : 0.0);
  std::printf("pingpong: %s (%zu ints, every value checked)\n", ok ? "OK" : "FAILED", n);
  return ok ? 0 : 1;
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
    std::fprintf(stderr, "pingpong: error: %s\n", e.what());
    return 1;
  }
}
