// histogram: runs the DSMEM cluster histogram (histogram.tile, compiled to PTX by
// tilec) through the tilec runtime on fresh random input and checks every bin
// exactly against a CPU histogram.
//
//   histogram [--bins 24000] [--n 100000000] [--cluster 2] [--threads 512]
//             [--dist uniform|skewed] [--ptx PATH] [--ctas-per-sm K] [--runs 3]
//             [--seed S] [--skip-code C]
//
// --ptx defaults to $TILEC_PTX_DIR (else the build's PTX dir)/histogram_c<cluster>.ptx.
// A PTX compiled for a fixed cluster size (its kernel info, <name>.info.json
// beside it, says so) sets --cluster unless --cluster is given (then they must
// agree). The grid is persistent: as
// many clusters as fit on the GPU at once (--ctas-per-sm K: K CTAs per SM).
// Clusters above 8 CTAs exceed sm_90's portable cluster size: for them the program
// opts in to non-portable cluster sizes (the runtime's allowNonPortableCluster), so
// --cluster 16 runs (with histogram_c16.ptx) where the GPU supports it.
// Without a CUDA device it prints "no CUDA device: compiled only" and exits with
// --skip-code (default 0; ctest uses 77 to report a skip).
#include "histogram_common.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace {

struct Options {
  int32_t nbins = 24000;
  long long n = 100000000;
  int cluster = 2;
  bool clusterGiven = false;
  int threads = 512;
  histo::Dist dist = histo::Dist::Uniform;
  std::string ptx;
  int ctasPerSm = 0;
  int runs = 3;
  uint64_t seed = 0;
  bool seedGiven = false;
  int skipCode = 0;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "histogram: %s\n"
      "usage: histogram [--bins N] [--n N] [--cluster C] [--threads T] [--dist uniform|skewed]\n"
      "                 [--ptx PATH] [--ctas-per-sm K] [--runs R] [--seed S] [--skip-code C]\n",
      msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader args(argc, argv, usage);
  while (args.next()) {
    const std::string &a = args.flag();
    if (a == "--bins")
      o.nbins = static_cast<int32_t>(args.intValue());
    else if (a == "--n")
      o.n = args.intValue();
    else if (a == "--cluster") {
      o.cluster = static_cast<int>(args.intValue());
      o.clusterGiven = true;
    } else if (a == "--threads")
      o.threads = static_cast<int>(args.intValue());
    else if (a == "--dist") {
      std::string d = args.value();
      if (!histo::parseDist(d, o.dist))
        usage(("bad --dist " + d).c_str());
    } else if (a == "--ptx")
      o.ptx = args.value();
    else if (a == "--ctas-per-sm")
      o.ctasPerSm = static_cast<int>(args.intValue());
    else if (a == "--runs")
      o.runs = static_cast<int>(args.intValue());
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
  if (o.nbins < 1)
    usage("--bins must be >= 1");
  if (o.n < 0)
    usage("--n must be >= 0");
  namespace target = tile::target;
  if (o.cluster < 1 || o.cluster > target::kMaxClusterSize)
    usage(("--cluster must be 1.." + std::to_string(target::kMaxClusterSize)).c_str());
  if (o.threads < 1 || o.threads > target::kMaxThreadsPerBlock)
    usage(("--threads must be 1.." + std::to_string(target::kMaxThreadsPerBlock)).c_str());
  if (o.runs < 1)
    usage("--runs must be >= 1");
  return o;
}

int run(Options o) {
  tile::Context ctx(0);
  if (!o.seedGiven)
    o.seed = histo::freshSeed();
  std::string ptxPath = o.ptx.empty() ? histo::ptxPathForCluster(o.cluster) : o.ptx;
  histo::TileHistogram hist(ctx, ptxPath);
  if (hist.ptxCluster() > 0 && hist.ptxCluster() != o.cluster) {
    if (o.clusterGiven) {
      std::fprintf(stderr,
                   "histogram: %s was compiled for cluster %d, not --cluster %d\n"
                   "hint: use histogram_c%d.ptx, or tilec --cluster=%d\n",
                   ptxPath.c_str(), hist.ptxCluster(), o.cluster, o.cluster, o.cluster);
      return 2;
    }
    o.cluster = hist.ptxCluster();
  }
  hist.setAllowNonPortableCluster(o.cluster > tile::target::kMaxPortableClusterSize);

  std::printf("device: %s (sm_%d, %d SMs), driver %d\n", ctx.name().c_str(),
              ctx.computeCapability(), ctx.smCount(), ctx.driverVersion());
  std::printf("ptx: %s\n", ptxPath.c_str());

  const size_t n = static_cast<size_t>(o.n);
  std::vector<int32_t> input = histo::makeInput(n, o.nbins, o.dist, o.seed, /*outOfRange=*/0.001);
  std::vector<int32_t> want = histo::cpuHistogram(input, o.nbins);

  tile::DeviceBuffer<int32_t> dInput(n ? n : 1), dBins(static_cast<size_t>(o.nbins));
  dInput.copyFrom(input);
  dBins.fillBytes(0xA5);
  unsigned grid =
      hist.persistentGrid(dBins.ptr(), dInput.ptr(), o.nbins, o.cluster, o.threads, o.ctasPerSm);
  std::printf(
      "config: %d bins, n = %lld, %s (seed %llu), cluster %d%s, %d threads, grid %u CTAs, "
      "%zu B dynamic smem/CTA, %d regs/thread\n",
      o.nbins, o.n, histo::distName(o.dist), static_cast<unsigned long long>(o.seed), o.cluster,
      o.cluster > tile::target::kMaxPortableClusterSize ? " (non-portable size, opted in)" : "",
      o.threads, grid, hist.sharedBytes(dBins.ptr(), dInput.ptr(), o.nbins, o.cluster, o.threads),
      hist.kernel().numRegs());

  bool ok = true;
  std::vector<float> ms;
  for (int r = 0; r < o.runs; ++r) {
    dBins.fillBytes(0xA5); // poison, so a kernel that skips bins cannot pass on stale zeros...
    dBins.fillBytes(0);    // ...then zero: the kernel adds into bins
    tile::EventTimer t;
    t.start();
    hist.launch(dBins.ptr(), dInput.ptr(), o.n, o.nbins, o.cluster, o.threads, grid);
    ms.push_back(t.stopMs());
    ctx.synchronize();
    std::string diff = histo::compareHistograms(want, dBins.toHost());
    if (!diff.empty()) {
      std::printf("run %d: MISMATCH: %s\n", r, diff.c_str());
      ok = false;
    }
  }
  std::sort(ms.begin(), ms.end());
  double gbs = ms[ms.size() / 2] > 0 ? 4.0 * static_cast<double>(n) / (ms[ms.size() / 2] * 1e6) : 0;
  std::printf("time: median %.3f ms of %d runs (min %.3f), %.1f GB/s of input\n", ms[ms.size() / 2],
              o.runs, ms.front(), gbs);
  std::printf("histogram: %s (%d bins, exact vs CPU)\n", ok ? "OK" : "FAILED", o.nbins);
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
    std::fprintf(stderr, "histogram: error: %s\n", e.what());
    return 1;
  }
}
