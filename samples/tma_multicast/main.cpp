// tma_multicast: runs the .tile TMA multicast kernel (variant A or B, cluster
// size C) through the tilec runtime and checks every CTA's checksum exactly
// against the CPU (tma_multicast_common.h). Plain C++17 + the tilec runtime:
// the tensor B is passed as a tile::Tensor, whose map the runtime encodes
// from the box and swizzle the compiler recorded in the kernel info.
//
//   tma_multicast [--variant a|b] [--cluster 1|2|4] [--steps 2048] [--tiles 64]
//                 [--panels 16] [--clusters-per-launch N] [--runs 3]
//                 [--tile-ptx PATH] [--skip-code C]
//
// --tile-ptx defaults to $TILEC_PTX_DIR (else the build's PTX dir)/
// tma_multicast_<a|b>_c<C>.ptx with its .info.json beside it. The .tile
// kernel is not written yet (README.md, "The .tile kernel", gives its
// contract): until then this program says so and exits with --skip-code; it
// never reports a result it did not measure. Without a CUDA device it prints
// "no CUDA device: compiled only" and exits with --skip-code (default 0).
#include "tma_multicast_common.h"

#include <cstdio>
#include <string>
#include <sys/stat.h>

namespace {

struct Options {
  tmamc::Variant variant = tmamc::Variant::B;
  int cluster = 2;
  tmamc::Problem problem;
  int clustersPerLaunch = 0;
  int runs = 3;
  std::string ptx;
  int skipCode = 0;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "tma_multicast: %s\n"
               "usage: tma_multicast [--variant a|b] [--cluster 1|2|4] [--steps S] [--tiles T]\n"
               "                     [--panels P] [--clusters-per-launch N] [--runs R]\n"
               "                     [--tile-ptx PATH] [--skip-code C]\n",
               msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader r(argc, argv, usage);
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--variant") {
      const std::string v = r.value();
      if (v != "a" && v != "b")
        usage("--variant is a or b");
      o.variant = v == "a" ? tmamc::Variant::A : tmamc::Variant::B;
    } else if (f == "--cluster")
      o.cluster = int(r.intValue());
    else if (f == "--steps")
      o.problem.steps = int(r.intValue());
    else if (f == "--tiles")
      o.problem.tiles = int(r.intValue());
    else if (f == "--panels")
      o.problem.panels = int(r.intValue());
    else if (f == "--clusters-per-launch")
      o.clustersPerLaunch = int(r.intValue());
    else if (f == "--runs")
      o.runs = int(r.intValue());
    else if (f == "--tile-ptx")
      o.ptx = r.value();
    else if (f == "--skip-code")
      o.skipCode = int(r.intValue());
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.cluster != 1 && o.cluster != 2 && o.cluster != 4)
    usage("--cluster is 1, 2 or 4");
  if (o.problem.steps < 1 || o.problem.tiles < 1 || o.problem.panels < 1 || o.runs < 1 ||
      o.clustersPerLaunch < 0)
    usage("bad arguments");
  if (o.ptx.empty())
    o.ptx = sample::ptxDir() + "/" + tmamc::tilePtxName(o.variant, o.cluster);
  return o;
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  if (tile::deviceCount() == 0) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  struct stat st;
  if (stat(o.ptx.c_str(), &st) != 0) {
    std::printf("no .tile PTX at %s: samples/tma_multicast/tma_multicast.tile is not written yet "
                "(README.md, \"The .tile kernel\"); nothing was run\n",
                o.ptx.c_str());
    return o.skipCode;
  }
  try {
    tile::Context ctx(0);
    tmamc::TileKernel k = tmamc::loadTileKernel(ctx, o.ptx, o.variant, o.cluster);
    const tmamc::Problem &p = o.problem;
    const std::vector<uint16_t> input = tmamc::makeInput(p);
    const std::vector<uint32_t> want = tmamc::expectedPanelSums(p, input);
    tile::DeviceBuffer<uint16_t> b(input.size());
    b.copyFrom(input);
    int64_t clusters = o.clustersPerLaunch;
    if (!clusters) {
      tile::LaunchConfig probe;
      probe.grid = tile::Dim3(unsigned(o.cluster));
      probe.block = tile::Dim3(k.threads);
      clusters = k.kernel.maxActiveClusters(probe, tmamc::tensorOf(b.ptr(), p), CUdeviceptr(0),
                                            int32_t(p.steps));
    }
    if (clusters < 1)
      throw std::runtime_error("no cluster of the kernel fits on the GPU");
    const int64_t ctas = clusters * o.cluster;
    tile::DeviceBuffer<uint32_t> sums(static_cast<size_t>(ctas));
    std::printf("tma_multicast %s (%s): C = %d, %lld clusters, %d steps of %d-byte tiles\n",
                tmamc::variantName(o.variant), tmamc::variantLongName(o.variant), o.cluster,
                static_cast<long long>(clusters), p.steps, tmamc::kTileBytes);
    bool exact = true;
    for (int run = 0; run < o.runs; ++run) {
      sums.fillBytes(0);
      tile::EventTimer timer;
      timer.start();
      tmamc::launchTile(k, clusters, o.cluster, tmamc::tensorOf(b.ptr(), p), sums.ptr(), p.steps);
      const float ms = timer.stopMs();
      const std::string problems = tmamc::checkSums(sums.toHost(), want, o.cluster);
      exact = exact && problems.empty();
      std::printf("time: %.3f ms, %.0f GB/s delivered into shared memory, L2->SM %.2f GB; %s\n", ms,
                  tmamc::bytesDelivered(ctas, p) / ms / 1e6,
                  tmamc::l2ToSmBytes(o.variant, clusters, o.cluster, p) / 1e9,
                  problems.empty() ? "every checksum exact" : ("WRONG: " + problems).c_str());
    }
    return exact ? 0 : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tma_multicast: %s\n", e.what());
    return 1;
  }
}
