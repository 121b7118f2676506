// tma_multicast_bench: TMA delivery into shared memory for clusters of
// C = 1, 2, 4 CTAs that all need the same tiles (tma_multicast_ref.cuh):
//   A           every CTA loads every tile
//   B           each CTA loads 1/C of each tile and multicasts it; remote
//               empty arrives release at cluster scope (the formal pairing)
//   B relaxed   the same with relaxed remote arrives (see the .cuh)
//   A wg, B wg  A and B in the .tile kernel's block shape: a producer warpgroup
//               and a consumer warpgroup with setmaxnreg 24 / 136 (256 threads)
//   .tile       the .tile kernels through the tilec runtime, when their PTX
//               (tma_multicast_<a|b>_c<C>.ptx + .info.json) is in --ptx-dir;
//               "not built" otherwise (no number is invented)
// For each: bytes delivered into shared memory per second (every CTA receives
// every tile), the L2 -> SM traffic the variant needs (A: C x tile bytes per
// cluster-step, B: 1 x tile bytes) and its rate, and .tile / CUDA. Every CTA's
// checksum is checked exactly against the CPU in every timed run's last
// launch. Each time is the median of --runs CUDA-event-timed launches after
// --warmup. Prints a markdown table (also to --out FILE).
//
//   tma_multicast_bench [--clusters 1,2,4] [--steps 2048] [--tiles 64] [--panels 16]
//                       [--clusters-per-launch N] [--runs 15] [--warmup 3]
//                       [--ptx-dir DIR] [--out FILE] [--skip-code C]
#include "tma_multicast_common.h"
#include "tma_multicast_ref.cuh"

#include "../common/cuda_check.cuh"
#include "../common/event_timing.cuh"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

struct Args {
  std::vector<int> clusters{1, 2, 4};
  tmamc::Problem problem;
  int clustersPerLaunch = 0; // 0: as many as fit at once
  int runs = 15, warmup = 3, skipCode = 0;
  std::string ptxDir, out;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "tma_multicast_bench: %s\nusage: tma_multicast_bench [--clusters 1,2,4] [--steps "
               "S] [--tiles T]\n  [--panels P] [--clusters-per-launch N] [--runs R] [--warmup W]\n"
               "  [--ptx-dir DIR] [--out FILE] [--skip-code C]\n",
               msg);
  std::exit(2);
}

Args parse(int argc, char **argv) {
  Args a;
  sample::ArgReader r(argc, argv, usage);
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--clusters") {
      a.clusters.clear();
      std::stringstream ss(r.value());
      for (std::string c; std::getline(ss, c, ',');)
        a.clusters.push_back(std::atoi(c.c_str()));
    } else if (f == "--steps")
      a.problem.steps = int(r.intValue());
    else if (f == "--tiles")
      a.problem.tiles = int(r.intValue());
    else if (f == "--panels")
      a.problem.panels = int(r.intValue());
    else if (f == "--clusters-per-launch")
      a.clustersPerLaunch = int(r.intValue());
    else if (f == "--runs")
      a.runs = int(r.intValue());
    else if (f == "--warmup")
      a.warmup = int(r.intValue());
    else if (f == "--ptx-dir")
      a.ptxDir = r.value();
    else if (f == "--out")
      a.out = r.value();
    else if (f == "--skip-code")
      a.skipCode = int(r.intValue());
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (a.problem.steps < 1 || a.problem.tiles < 1 || a.problem.panels < 1 || a.runs < 1 ||
      a.warmup < 0 || a.clusters.empty() || a.clustersPerLaunch < 0)
    usage("bad arguments");
  for (int c : a.clusters)
    if (c != 1 && c != 2 && c != 4)
      usage("cluster sizes are 1, 2 or 4 (128-row tiles split into 1024-byte swizzle atoms)");
  if (a.ptxDir.empty())
    a.ptxDir = sample::ptxDir();
  return a;
}

struct Timing {
  double median = -1;
  std::string problems; // "" = every checksum exact
};

// zero(), launch() between two events on the legacy default stream (which the
// tilec runtime's launches on stream 0 of the same primary context share),
// then the checksums of the last launch checked.
Timing timeAndCheck(const std::function<void()> &launch, uint32_t *dSums, int64_t ctas, int c,
                    const std::vector<uint32_t> &want, int warmup, int runs) {
  auto zero = [&] { SAMPLE_CUDA_CHECK(cudaMemsetAsync(dSums, 0, ctas * sizeof(uint32_t), 0)); };
  Timing t;
  t.median = sample::timeWithEvents(zero, launch, warmup, runs).median;
  std::vector<uint32_t> got(static_cast<size_t>(ctas));
  SAMPLE_CUDA_CHECK(cudaMemcpy(got.data(), dSums, got.size() * 4, cudaMemcpyDeviceToHost));
  t.problems = tmamc::checkSums(got, want, c);
  return t;
}

template <int C> int maxClusters() {
  using tmamc::Variant;
  using tmamc_ref::Release;
  return std::min({tmamc_ref::maxActiveClusters<C, Variant::A, Release::Cluster>(),
                   tmamc_ref::maxActiveClusters<C, Variant::B, Release::Cluster>(),
                   tmamc_ref::maxActiveClusters<C, Variant::B, Release::Relaxed>()});
}

template <int C, tmamc::Variant V, tmamc_ref::Release R,
          tmamc_ref::Shape SH = tmamc_ref::Shape::Warp>
std::function<void()> cudaLaunch(const CUtensorMap &map, uint32_t *sums, const tmamc::Problem &p,
                                 int clusters) {
  return [&map, sums, p, clusters] {
    SAMPLE_CUDA_CHECK(
        (tmamc_ref::launch<C, V, R, SH>(map, sums, p.steps, p.tiles, p.panels, clusters, 0)));
  };
}

struct Row {
  int c = 0;
  std::string variant;
  tmamc::Variant v = tmamc::Variant::A;
  int64_t clusters = 0;
  Timing cuda, tileRun;
  bool tileBuilt = false;
  std::string tileNote;
};

std::string fmt(const char *f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

} // namespace

int main(int argc, char **argv) {
  Args a = parse(argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 || tile::deviceCount() == 0) {
    std::printf("no CUDA device: compiled only\n");
    return a.skipCode;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // the primary context the tilec runtime retains too
  tile::Context ctx(0);
  cudaDeviceProp prop;
  SAMPLE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));

  const tmamc::Problem &p = a.problem;
  const std::vector<uint16_t> input = tmamc::makeInput(p);
  const std::vector<uint32_t> want = tmamc::expectedPanelSums(p, input);
  tile::DeviceBuffer<uint16_t> dB(input.size());
  dB.copyFrom(input);

  std::vector<Row> rows;
  for (int c : a.clusters) {
    const int fit = c == 1 ? maxClusters<1>() : c == 2 ? maxClusters<2>() : maxClusters<4>();
    const int64_t clusters = a.clustersPerLaunch ? a.clustersPerLaunch : fit;
    if (clusters < 1) {
      std::fprintf(stderr, "cluster size %d: no cluster fits (occupancy 0)\n", c);
      return 1;
    }
    const int64_t ctas = clusters * c;
    uint32_t *dSums = nullptr;
    SAMPLE_CUDA_CHECK(cudaMalloc(&dSums, ctas * sizeof(uint32_t)));
    // The maps: the full box for A, a 1/C slice for B (tile::TensorMap checks
    // every rule before cuTensorMapEncodeTiled).
    tile::TensorMapDesc desc;
    desc.element = tile::TensorElement::BF16;
    desc.address = dB.ptr();
    desc.extents = {p.rows(), p.cols()};
    desc.box = {tmamc::kTileRows, tmamc::kTileCols};
    desc.swizzle = tile::TmaSwizzle::B128;
    const tile::TensorMap mapA = tile::TensorMap::encode(desc);
    desc.box = {tmamc::kTileRows / c, tmamc::kTileCols};
    const tile::TensorMap mapB = tile::TensorMap::encode(desc);
    using tmamc::Variant;
    using tmamc_ref::Release;
    struct Case {
      const char *name;
      Variant v;
      std::function<void()> launch;
      bool formal; // the reference the .tile kernel of this variant is compared with
    };
    std::vector<Case> cases;
    auto add = [&](auto a1, auto b1, auto b2, auto a2, auto b3) {
      cases.push_back({"A", Variant::A, a1, true});
      cases.push_back({"A wg", Variant::A, a2, false});
      cases.push_back({"B", Variant::B, b1, true});
      cases.push_back({"B wg", Variant::B, b3, false});
      cases.push_back({"B relaxed", Variant::B, b2, false});
    };
    using tmamc_ref::Shape;
    const CUtensorMap &ma = mapA.raw(), &mb = mapB.raw();
    if (c == 1)
      add(cudaLaunch<1, Variant::A, Release::Cluster>(ma, dSums, p, int(clusters)),
          cudaLaunch<1, Variant::B, Release::Cluster>(mb, dSums, p, int(clusters)),
          cudaLaunch<1, Variant::B, Release::Relaxed>(mb, dSums, p, int(clusters)),
          cudaLaunch<1, Variant::A, Release::Cluster, Shape::Warpgroups>(ma, dSums, p,
                                                                      int(clusters)),
          cudaLaunch<1, Variant::B, Release::Cluster, Shape::Warpgroups>(mb, dSums, p,
                                                                      int(clusters)));
    else if (c == 2)
      add(cudaLaunch<2, Variant::A, Release::Cluster>(ma, dSums, p, int(clusters)),
          cudaLaunch<2, Variant::B, Release::Cluster>(mb, dSums, p, int(clusters)),
          cudaLaunch<2, Variant::B, Release::Relaxed>(mb, dSums, p, int(clusters)),
          cudaLaunch<2, Variant::A, Release::Cluster, Shape::Warpgroups>(ma, dSums, p,
                                                                      int(clusters)),
          cudaLaunch<2, Variant::B, Release::Cluster, Shape::Warpgroups>(mb, dSums, p,
                                                                      int(clusters)));
    else
      add(cudaLaunch<4, Variant::A, Release::Cluster>(ma, dSums, p, int(clusters)),
          cudaLaunch<4, Variant::B, Release::Cluster>(mb, dSums, p, int(clusters)),
          cudaLaunch<4, Variant::B, Release::Relaxed>(mb, dSums, p, int(clusters)),
          cudaLaunch<4, Variant::A, Release::Cluster, Shape::Warpgroups>(ma, dSums, p,
                                                                      int(clusters)),
          cudaLaunch<4, Variant::B, Release::Cluster, Shape::Warpgroups>(mb, dSums, p,
                                                                      int(clusters)));
    for (Case &k : cases) {
      Row row;
      row.c = c;
      row.variant = k.name;
      row.v = k.v;
      row.clusters = clusters;
      row.cuda = timeAndCheck(k.launch, dSums, ctas, c, want, a.warmup, a.runs);
      if (k.formal) {
        const std::string ptx = a.ptxDir + "/" + tmamc::tilePtxName(k.v, c);
        if (!fileExists(ptx)) {
          row.tileNote = "not built (" + tmamc::tilePtxName(k.v, c) + ")";
        } else {
          try {
            tmamc::TileKernel tk = tmamc::loadTileKernel(ctx, ptx, k.v, c);
            {
              tile::LaunchConfig probe;
              probe.grid = tile::Dim3(unsigned(c));
              probe.block = tile::Dim3(tk.threads);
              std::fprintf(stderr, "C=%d %s: .tile max active clusters %d (CUDA: %d)\n", c,
                           k.name, tk.kernel.maxActiveClusters(probe), int(clusters));
            }
            const tile::Tensor b = tmamc::tensorOf(dB.ptr(), p);
            row.tileRun = timeAndCheck(
                [&] {
                  tmamc::launchTile(tk, clusters, c, b, reinterpret_cast<CUdeviceptr>(dSums),
                                    p.steps);
                },
                dSums, ctas, c, want, a.warmup, a.runs);
            row.tileBuilt = true;
          } catch (const std::exception &e) {
            row.tileNote = std::string("error: ") + e.what();
          }
        }
      }
      rows.push_back(row);
      std::fprintf(stderr, "C=%d %-9s cuda %.3f ms%s%s\n", c, k.name, row.cuda.median,
                   row.cuda.problems.empty() ? "" : " PROBLEM ", row.cuda.problems.c_str());
    }
    SAMPLE_CUDA_CHECK(cudaFree(dSums));
  }

  std::ostringstream md;
  md << "## TMA multicast delivery (" << prop.name << ", " << prop.multiProcessorCount
     << " SMs)\n\n"
     << "Tile 128 x 64 bf16 (16 KB, 128B swizzle), 4-stage ring, " << p.steps
     << " tiles per cluster, B[" << p.rows() << ", " << p.cols() << "] ("
     << fmt("%.1f", p.rows() * p.cols() * 2 / 1048576.0) << " MB, L2-resident); median of "
     << a.runs << " runs. Delivered = bytes landing in "
     << "shared memory (every CTA gets every tile); L2->SM = bytes the variant pulls from L2 (A: "
     << "C x tile per cluster-step, B: 1 x tile).\n\n"
     << "| C | variant | clusters | CUDA ms | delivered GB/s | L2->SM GB | L2->SM GB/s | .tile ms "
        "| .tile GB/s | .tile / CUDA | exact |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  bool ok = true;
  for (const Row &r : rows) {
    const double delivered = tmamc::bytesDelivered(r.clusters * r.c, p);
    const double l2 = tmamc::l2ToSmBytes(r.v, r.clusters, r.c, p);
    const bool exact = r.cuda.problems.empty() && (!r.tileBuilt || r.tileRun.problems.empty());
    ok = ok && exact;
    md << "| " << r.c << " | " << r.variant << " | " << r.clusters << " | "
       << fmt("%.3f", r.cuda.median) << " | " << fmt("%.0f", delivered / r.cuda.median / 1e6)
       << " | " << fmt("%.2f", l2 / 1e9) << " | " << fmt("%.0f", l2 / r.cuda.median / 1e6) << " | ";
    if (r.tileBuilt)
      md << fmt("%.3f", r.tileRun.median) << " | "
         << fmt("%.0f", delivered / r.tileRun.median / 1e6) << " | "
         << fmt("%.3f", r.tileRun.median / r.cuda.median);
    else
      md << (r.tileNote.empty() ? "-" : r.tileNote) << " | - | -";
    md << " | " << (exact ? "yes" : "NO") << " |\n";
  }
  // Gain or loss of multicast per C (B and B relaxed against A).
  md << "\n";
  for (int c : a.clusters) {
    double ta = -1, tb = -1, tr = -1;
    for (const Row &r : rows)
      if (r.c == c && r.variant == "A")
        ta = r.cuda.median;
      else if (r.c == c && r.variant == "B")
        tb = r.cuda.median;
      else if (r.c == c && r.variant == "B relaxed")
        tr = r.cuda.median;
    md << "- C = " << c << ": B / A time " << fmt("%.2f", tb / ta) << " (B relaxed / A "
       << fmt("%.2f", tr / ta) << "); multicast cuts L2->SM traffic " << c << "x\n";
  }
  for (const Row &r : rows) {
    if (!r.cuda.problems.empty())
      md << "- PROBLEM C=" << r.c << " " << r.variant << " CUDA: " << r.cuda.problems << "\n";
    if (r.tileBuilt && !r.tileRun.problems.empty())
      md << "- PROBLEM C=" << r.c << " " << r.variant << " .tile: " << r.tileRun.problems << "\n";
  }
  std::printf("%s", md.str().c_str());
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << md.str();
  }
  return ok ? 0 : 1;
}
