// histogram_bench: the .tile DSMEM histogram (PTX through the tilec runtime) side
// by side with hand-written CUDA C++ in one process:
//   tile   - histogram_c<C>.ptx (tilec --cluster=C), persistent grid
//   CUDA   - the programming guide's cluster histogram (histogram_ref.cuh),
//            cluster dims at launch, persistent grid
//   global - one global atomicAdd per element (no shared memory)
//   floor  - read the input once with 16-byte loads (the bandwidth floor)
// for every cluster size x distribution. Each time is the median of --runs
// CUDA-event-timed launches after --warmup launches; the bins are re-zeroed
// before every launch (not timed) and every kernel's result is checked exactly
// against a CPU histogram (the floor's sum against a CPU sum). Fresh random input
// each run (--seed to reproduce). Prints a markdown table (also to --out FILE).
//
//   histogram_bench [--bins 24000] [--n 100000000] [--threads 512]
//                   [--clusters 1,2,4,8] [--dists uniform,skewed] [--runs 20]
//                   (16 too: clusters above 8 opt in to non-portable cluster sizes)
//                   [--warmup 3] [--ptx-dir DIR] [--ctas-per-sm K] [--seed S] [--out FILE]
#include "../common/event_timing.cuh"
#include "histogram_common.h"
#include "histogram_ref.cuh"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Args {
  int32_t nbins = 24000;
  long long n = 100000000;
  int threads = 512;
  std::vector<int> clusters{1, 2, 4, 8};
  std::vector<histo::Dist> dists{histo::Dist::Uniform, histo::Dist::Skewed};
  int runs = 20, warmup = 3, ctasPerSm = 0;
  std::string ptxDir, out;
  uint64_t seed = 0;
  bool seedGiven = false;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "histogram_bench: %s\nusage: histogram_bench [--bins N] [--n N] [--threads T] [--clusters "
      "1,2,4,8]\n"
      "  [--dists uniform,skewed] [--runs R] [--warmup W] [--ptx-dir DIR] [--ctas-per-sm K]\n"
      "  [--seed S] [--out FILE]\n",
      msg);
  std::exit(2);
}

Args parse(int argc, char **argv) {
  Args a;
  sample::ArgReader r(argc, argv, usage);
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--bins")
      a.nbins = static_cast<int32_t>(r.intIn(1, INT32_MAX));
    else if (f == "--n")
      a.n = r.intIn(1, LLONG_MAX);
    else if (f == "--threads")
      a.threads = static_cast<int>(r.intIn(32, 1024));
    else if (f == "--clusters") {
      a.clusters.clear();
      for (long long c : r.intListIn(1, 16))
        a.clusters.push_back(static_cast<int>(c));
    } else if (f == "--dists") {
      a.dists.clear();
      for (const std::string &d : r.listValue()) {
        histo::Dist x;
        if (!histo::parseDist(d, x))
          r.fail("bad distribution '" + d + "'");
        a.dists.push_back(x);
      }
    } else if (f == "--runs")
      a.runs = static_cast<int>(r.intIn(1, 100000));
    else if (f == "--warmup")
      a.warmup = static_cast<int>(r.intIn(0, 100000));
    else if (f == "--ptx-dir")
      a.ptxDir = r.value();
    else if (f == "--ctas-per-sm")
      a.ctasPerSm = static_cast<int>(r.intIn(0, 64));
    else if (f == "--seed") {
      a.seed = static_cast<uint64_t>(r.intValue());
      a.seedGiven = true;
    } else if (f == "--out")
      a.out = r.value();
    else
      r.fail("unknown argument '" + f + "'");
  }
  if (a.clusters.empty() || a.dists.empty())
    usage("--clusters and --dists need at least one value");
  return a;
}

struct Timing {
  double median = -1, min = -1;
};

// zero() before every launch (untimed), then launch() between two events on the
// legacy default stream, which both the runtime API and the tilec runtime's
// launches (stream 0 of the same primary context) use.
template <class Zero, class Launch>
Timing timeKernel(Zero zero, Launch launch, int warmup, int runs) {
  sample::EventTiming e = sample::timeWithEvents(zero, launch, warmup, runs);
  Timing t;
  t.median = e.median;
  t.min = e.min;
  return t;
}

std::string fmtMs(double ms) {
  if (ms < 0)
    return "error";
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", ms);
  return b;
}

std::vector<int32_t> downloadBins(const int *d, int32_t nbins) {
  std::vector<int32_t> h(static_cast<size_t>(nbins));
  SAMPLE_CUDA_CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(int32_t), cudaMemcpyDeviceToHost));
  return h;
}

struct Row {
  histo::Dist dist;
  int cluster;
  unsigned tileGrid = 0;
  int cudaGrid = 0;
  Timing tile, cuda;
  Timing explicitTile;          // histogram_explicit.tile: the same kernel with written barriers
  bool explicitPresent = false; // histogram_explicit_c<C>.ptx found (n/a in the table when not)
  Timing hintedTile;            // histogram_hinted.tile: input read by ld.global.nc...v4
  bool hintedPresent = false;   // histogram_hinted_c<C>.ptx found
  double globalMs = -1, floorMs = -1;
  std::string problems; // empty = every kernel exact
};

} // namespace

int main(int argc, char **argv) {
  Args a = parse(argc, argv);
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);

  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // create the primary context the tilec runtime retains too
  tile::Context ctx(0);
  cudaDeviceProp prop;
  SAMPLE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int rtVersion = 0;
  SAMPLE_CUDA_CHECK(cudaRuntimeGetVersion(&rtVersion));
  const std::string ptxDir = a.ptxDir.empty() ? histo::ptxDir() : a.ptxDir;

  const size_t n = static_cast<size_t>(a.n);
  const size_t binBytes = static_cast<size_t>(a.nbins) * sizeof(int32_t);
  int *dInput = nullptr;
  int *dBins = nullptr;
  unsigned long long *dSum = nullptr;
  SAMPLE_CUDA_CHECK(cudaMalloc(&dInput, n * sizeof(int32_t)));
  SAMPLE_CUDA_CHECK(cudaMalloc(&dBins, binBytes));
  SAMPLE_CUDA_CHECK(cudaMalloc(&dSum, sizeof(unsigned long long)));
  const CUdeviceptr tBins = reinterpret_cast<CUdeviceptr>(dBins);
  const CUdeviceptr tInput = reinterpret_cast<CUdeviceptr>(dInput);

  // One module per cluster size, loaded (JIT or cache) before any timing.
  std::vector<std::unique_ptr<histo::TileHistogram>> tiles(a.clusters.size());
  std::vector<std::string> tileErrors(a.clusters.size());
  for (size_t c = 0; c < a.clusters.size(); ++c) {
    std::string path = ptxDir + "/histogram_c" + std::to_string(a.clusters[c]) + ".ptx";
    try {
      tiles[c].reset(new histo::TileHistogram(ctx, path));
      tiles[c]->setAllowNonPortableCluster(a.clusters[c] > 8); // as the CUDA reference does
      if (tiles[c]->ptxCluster() > 0 && tiles[c]->ptxCluster() != a.clusters[c])
        throw std::runtime_error(path + " is compiled for cluster " +
                                 std::to_string(tiles[c]->ptxCluster()));
    } catch (const std::exception &e) {
      tiles[c].reset();
      tileErrors[c] = e.what();
      std::fprintf(stderr, "tile cluster %d: %s\n", a.clusters[c], e.what());
    }
  }

  // histogram_explicit_c<C>.ptx (hand-written cluster_sync): optional, for the
  // compiler-inserted vs explicit barrier comparison.
  // Present but unusable (load error, wrong cluster size) is a problem of its rows.
  std::vector<std::unique_ptr<histo::TileHistogram>> explicitTiles(a.clusters.size());
  std::vector<std::string> explicitErrors(a.clusters.size());
  for (size_t c = 0; c < a.clusters.size(); ++c) {
    std::string path = ptxDir + "/histogram_explicit_c" + std::to_string(a.clusters[c]) + ".ptx";
    if (!std::ifstream(path))
      continue;
    try {
      explicitTiles[c].reset(new histo::TileHistogram(ctx, path));
      explicitTiles[c]->setAllowNonPortableCluster(a.clusters[c] > 8);
      if (explicitTiles[c]->ptxCluster() > 0 && explicitTiles[c]->ptxCluster() != a.clusters[c])
        throw std::runtime_error(path + " is compiled for cluster " +
                                 std::to_string(explicitTiles[c]->ptxCluster()));
    } catch (const std::exception &e) {
      explicitTiles[c].reset();
      explicitErrors[c] = e.what();
      std::fprintf(stderr, "tile explicit cluster %d: %s\n", a.clusters[c], e.what());
    }
  }

  // histogram_hinted_c<C>.ptx (cache-hinted vector input loads): optional, for the
  // plain vs hinted comparison on the same grid.
  std::vector<std::unique_ptr<histo::TileHistogram>> hintedTiles(a.clusters.size());
  std::vector<std::string> hintedErrors(a.clusters.size());
  for (size_t c = 0; c < a.clusters.size(); ++c) {
    std::string path = ptxDir + "/histogram_hinted_c" + std::to_string(a.clusters[c]) + ".ptx";
    if (!std::ifstream(path))
      continue;
    try {
      hintedTiles[c].reset(new histo::TileHistogram(ctx, path));
      hintedTiles[c]->setAllowNonPortableCluster(a.clusters[c] > 8);
      if (hintedTiles[c]->ptxCluster() > 0 && hintedTiles[c]->ptxCluster() != a.clusters[c])
        throw std::runtime_error(path + " is compiled for cluster " +
                                 std::to_string(hintedTiles[c]->ptxCluster()));
    } catch (const std::exception &e) {
      hintedTiles[c].reset();
      hintedErrors[c] = e.what();
      std::fprintf(stderr, "tile hinted cluster %d: %s\n", a.clusters[c], e.what());
    }
  }

  const int floorThreads = 512, globalThreads = 512;
  const int floorGrid = histo_ref::persistentGrid(histo_ref::readFloor, floorThreads);
  const int globalGrid =
      histo_ref::persistentGrid(histo_ref::globalAtomicsHistogram, globalThreads);
  auto zeroBins = [&] { SAMPLE_CUDA_CHECK(cudaMemsetAsync(dBins, 0, binBytes, 0)); };
  auto poisonBins = [&] { SAMPLE_CUDA_CHECK(cudaMemset(dBins, 0xA5, binBytes)); };

  std::vector<Row> rows;
  bool allOk = true;
  for (size_t di = 0; di < a.dists.size(); ++di) {
    const histo::Dist dist = a.dists[di];
    const uint64_t seed = a.seedGiven ? a.seed + di : histo::freshSeed();
    std::vector<int32_t> input = histo::makeInput(n, a.nbins, dist, seed);
    std::vector<int32_t> want = histo::cpuHistogram(input, a.nbins);
    long long wantSum = 0;
    for (int32_t x : input)
      wantSum += x;
    SAMPLE_CUDA_CHECK(
        cudaMemcpy(dInput, input.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
    std::printf("%s input: n = %lld, %d bins, seed %llu\n", histo::distName(dist), a.n, a.nbins,
                static_cast<unsigned long long>(seed));

    // floor and global atomics do not depend on the cluster size: once per distribution
    std::string distProblems;
    Timing floorT =
        timeKernel([&] { SAMPLE_CUDA_CHECK(cudaMemsetAsync(dSum, 0, sizeof *dSum, 0)); },
                   [&] {
                     histo_ref::readFloor<<<floorGrid, floorThreads>>>(dSum, dInput, a.n);
                     SAMPLE_CUDA_CHECK(cudaGetLastError());
                   },
                   a.warmup, a.runs);
    unsigned long long gotSum = 0;
    SAMPLE_CUDA_CHECK(cudaMemcpy(&gotSum, dSum, sizeof gotSum, cudaMemcpyDeviceToHost));
    if (static_cast<long long>(gotSum) != wantSum)
      distProblems += " floor: sum differs;";

    poisonBins();
    Timing globalT = timeKernel(
        zeroBins,
        [&] {
          histo_ref::globalAtomicsHistogram<<<globalGrid, globalThreads>>>(dBins, a.nbins, dInput,
                                                                           a.n);
          SAMPLE_CUDA_CHECK(cudaGetLastError());
        },
        a.warmup, a.runs);
    std::string d = histo::compareHistograms(want, downloadBins(dBins, a.nbins));
    if (!d.empty())
      distProblems += " global: " + d + ";";

    for (size_t c = 0; c < a.clusters.size(); ++c) {
      const int cluster = a.clusters[c];
      Row row;
      row.dist = dist;
      row.cluster = cluster;
      row.floorMs = floorT.median;
      row.globalMs = globalT.median;
      row.problems = distProblems;

      if (tiles[c]) {
        try {
          poisonBins();
          row.tileGrid =
              tiles[c]->persistentGrid(tBins, tInput, a.nbins, cluster, a.threads, a.ctasPerSm);
          row.tile = timeKernel(
              zeroBins,
              [&] {
                tiles[c]->launch(tBins, tInput, a.n, a.nbins, cluster, a.threads, row.tileGrid);
              },
              a.warmup, a.runs);
          std::string td = histo::compareHistograms(want, downloadBins(dBins, a.nbins));
          if (!td.empty())
            row.problems += " tile: " + td + ";";
        } catch (const std::exception &e) {
          row.tile = Timing{};
          row.problems += std::string(" tile: ") + e.what() + ";";
          SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
        }
        // The explicit-barrier variant on the same grid as the inserted one.
        if (explicitTiles[c] && row.tile.median > 0) {
          try {
            poisonBins();
            row.explicitTile = timeKernel(
                zeroBins,
                [&] {
                  explicitTiles[c]->launch(tBins, tInput, a.n, a.nbins, cluster, a.threads,
                                           row.tileGrid);
                },
                a.warmup, a.runs);
            std::string ed = histo::compareHistograms(want, downloadBins(dBins, a.nbins));
            if (!ed.empty())
              row.problems += " tile explicit: " + ed + ";";
          } catch (const std::exception &e) {
            row.explicitTile = Timing{};
            row.problems += std::string(" tile explicit: ") + e.what() + ";";
            SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
          }
        }
        // The cache-hinted variant on the same grid.
        if (hintedTiles[c] && row.tile.median > 0) {
          try {
            poisonBins();
            row.hintedTile = timeKernel(
                zeroBins,
                [&] {
                  hintedTiles[c]->launch(tBins, tInput, a.n, a.nbins, cluster, a.threads,
                                         row.tileGrid);
                },
                a.warmup, a.runs);
            std::string hd = histo::compareHistograms(want, downloadBins(dBins, a.nbins));
            if (!hd.empty())
              row.problems += " tile hinted: " + hd + ";";
          } catch (const std::exception &e) {
            row.hintedTile = Timing{};
            row.problems += std::string(" tile hinted: ") + e.what() + ";";
            SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
          }
        }
      } else {
        row.problems += " tile: " + tileErrors[c] + ";";
      }
      if (!hintedErrors[c].empty())
        row.problems += " tile hinted: " + hintedErrors[c] + ";";
      row.hintedPresent = (hintedTiles[c] && row.tile.median > 0) || !hintedErrors[c].empty();
      if (!explicitErrors[c].empty())
        row.problems += " tile explicit: " + explicitErrors[c] + ";";
      row.explicitPresent = (explicitTiles[c] && row.tile.median > 0) || !explicitErrors[c].empty();

      poisonBins();
      row.cudaGrid = histo_ref::clusterHistogramGrid(a.nbins, cluster, a.threads);
      if (a.ctasPerSm > 0)
        row.cudaGrid = std::max(1, prop.multiProcessorCount * a.ctasPerSm / cluster) * cluster;
      row.cuda = timeKernel(
          zeroBins,
          [&] {
            SAMPLE_CUDA_CHECK(histo_ref::launchClusterHistogram(dBins, a.nbins, dInput, a.n,
                                                                cluster, a.threads, row.cudaGrid));
          },
          a.warmup, a.runs);
      std::string cd = histo::compareHistograms(want, downloadBins(dBins, a.nbins));
      if (!cd.empty())
        row.problems += " CUDA: " + cd + ";";

      if (!row.problems.empty())
        allOk = false;
      std::printf(
          "  cluster %d: tile %s ms, tile explicit %s ms, tile hinted %s ms, CUDA %s ms%s\n",
          cluster, fmtMs(row.tile.median).c_str(),
          row.explicitPresent ? fmtMs(row.explicitTile.median).c_str() : "n/a",
          row.hintedPresent ? fmtMs(row.hintedTile.median).c_str() : "n/a",
          fmtMs(row.cuda.median).c_str(),
          row.problems.empty() ? "" : (" PROBLEM:" + row.problems).c_str());
      std::fflush(stdout);
      rows.push_back(row);
    }
  }

  // ---- the table
  std::ostringstream md;
  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  md << "## Histogram: " << a.nbins << " bins, " << a.n << " int32 inputs, " << a.threads
     << " threads/CTA\n\n"
     << "- date: " << date << "\n- device: " << prop.name << " (" << prop.multiProcessorCount
     << " SMs), driver " << ctx.driverVersion() << ", CUDA runtime " << rtVersion << "\n"
     << "- command: `" << command << "`\n"
     << "- median of " << a.runs << " CUDA-event-timed runs after " << a.warmup
     << " warm-up runs; bins re-zeroed (untimed) before each; every result checked exactly against "
        "the CPU\n"
     << "- tile = histogram.tile via tilec PTX + tilec runtime; CUDA = programming-guide cluster "
        "kernel "
     << "(nvcc, sm_90a); both persistent grids (grid column: tile/CUDA CTAs); global-atomics grid "
     << globalGrid << ", floor grid " << floorGrid << " (int4 streaming read)\n"
     << "- tile = barriers inserted by tilec; tile explicit = histogram_explicit.tile "
        "(cluster_sync() "
     << "written), same grid\n"
     << "- tile hinted = histogram_hinted.tile: the input read by "
        "`ld.global.nc.L1::evict_first.L2::256B.v4` (cache hints + vector loads), same grid\n\n"
     << "| config | tile ms | CUDA ms | tile/CUDA | tile explicit ms | auto/explicit | "
        "tile hinted ms | plain/hinted | global-atomics ms | floor ms "
     << "| grid | exact |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row &r : rows) {
    char ratio[32] = "n/a";
    if (r.tile.median > 0 && r.cuda.median > 0)
      std::snprintf(ratio, sizeof ratio, "%.2f", r.tile.median / r.cuda.median);
    char autoRatio[32] = "n/a";
    if (r.tile.median > 0 && r.explicitTile.median > 0)
      std::snprintf(autoRatio, sizeof autoRatio, "%.3f", r.tile.median / r.explicitTile.median);
    char hintRatio[32] = "n/a";
    if (r.tile.median > 0 && r.hintedTile.median > 0)
      std::snprintf(hintRatio, sizeof hintRatio, "%.3f", r.tile.median / r.hintedTile.median);
    md << "| " << histo::distName(r.dist) << ", cluster " << r.cluster << " | "
       << fmtMs(r.tile.median) << " | " << fmtMs(r.cuda.median) << " | " << ratio << " | "
       << (r.explicitPresent ? fmtMs(r.explicitTile.median) : std::string("n/a")) << " | "
       << autoRatio << " | " << (r.hintedPresent ? fmtMs(r.hintedTile.median) : std::string("n/a"))
       << " | " << hintRatio << " | " << fmtMs(r.globalMs) << " | " << fmtMs(r.floorMs) << " | "
       << r.tileGrid << "/" << r.cudaGrid << " | " << (r.problems.empty() ? "yes" : "NO") << " |\n";
  }
  md << "\n";
  for (histo::Dist dist : a.dists) {
    const Row *bestTile = nullptr, *bestCuda = nullptr;
    for (const Row &r : rows) {
      if (r.dist != dist)
        continue;
      if (r.tile.median > 0 && (!bestTile || r.tile.median < bestTile->tile.median))
        bestTile = &r;
      if (r.cuda.median > 0 && (!bestCuda || r.cuda.median < bestCuda->cuda.median))
        bestCuda = &r;
    }
    md << "- best " << histo::distName(dist) << ": tile "
       << (bestTile ? "cluster " + std::to_string(bestTile->cluster) + " " +
                          fmtMs(bestTile->tile.median) + " ms"
                    : std::string("none"))
       << "; CUDA "
       << (bestCuda ? "cluster " + std::to_string(bestCuda->cluster) + " " +
                          fmtMs(bestCuda->cuda.median) + " ms"
                    : std::string("none"));
    if (bestTile && bestCuda) {
      char b[48];
      std::snprintf(b, sizeof b, "; best/best = %.2f",
                    bestTile->tile.median / bestCuda->cuda.median);
      md << b;
    }
    md << "\n";
  }
  for (const Row &r : rows)
    if (!r.problems.empty())
      md << "- PROBLEM " << histo::distName(r.dist) << " cluster " << r.cluster << ":" << r.problems
         << "\n";

  std::printf("\n%s", md.str().c_str());
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << md.str();
    if (!f)
      std::fprintf(stderr, "histogram_bench: cannot write %s\n", a.out.c_str()), allOk = false;
  }
  SAMPLE_CUDA_CHECK(cudaFree(dInput));
  SAMPLE_CUDA_CHECK(cudaFree(dBins));
  SAMPLE_CUDA_CHECK(cudaFree(dSum));
  return allOk ? 0 : 1;
}
