// histogram_common.h - host-side pieces shared by the histogram sample, its GPU
// tests and its benchmark: input generation, the CPU reference, the persistent
// grid and a launcher for the .tile kernel through the tilec runtime (which
// sizes the dynamic shared memory from the kernel info tilec writes beside the
// PTX). Plain C++17 (nvcc compiles it as host code too).
#pragma once

#include "../common/sample_util.h"

#include <tile/runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace histo {

enum class Dist { Uniform, Skewed };

inline const char *distName(Dist d) { return d == Dist::Uniform ? "uniform" : "skewed"; }
inline bool parseDist(const std::string &s, Dist &d) {
  if (s == "uniform") {
    d = Dist::Uniform;
    return true;
  }
  if (s == "skewed") {
    d = Dist::Skewed;
    return true;
  }
  return false;
}

// splitmix64: fast, good enough for test data, reproducible from the seed.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) (multiply-shift; bound < 2^32).
  uint32_t below(uint32_t bound) { return static_cast<uint32_t>(((next() >> 32) * bound) >> 32); }
};

// A seed that differs run to run (fresh data every time), unless the caller
// gives one to reproduce a failure.
inline uint64_t freshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Input values for an nbins histogram.
//   uniform: every bin equally likely.
//   skewed:  90% of the values fall into 16 hot bins (distinct, chosen from the
//            seed), the rest uniform over all bins.
// outOfRange (0..1): that fraction of values is replaced by values outside
// [0, nbins) (negative or >= nbins) to exercise the clamp into the edge bins.
inline std::vector<int32_t> makeInput(size_t n, int32_t nbins, Dist dist, uint64_t seed,
                                      double outOfRange = 0.0) {
  std::vector<int32_t> v(n);
  Rng rng(seed);
  const uint32_t nb = static_cast<uint32_t>(nbins);
  int32_t hot[16];
  for (int i = 0; i < 16; ++i) {
    // distinct when nbins >= 16; otherwise repeats are unavoidable and harmless
    for (;;) {
      hot[i] = static_cast<int32_t>(rng.below(nb));
      bool dup = false;
      for (int j = 0; j < i && nbins >= 16; ++j)
        dup |= hot[j] == hot[i];
      if (!dup)
        break;
    }
  }
  const uint32_t hotThreshold = static_cast<uint32_t>(0.9 * 4294967296.0);
  const uint32_t oorThreshold = static_cast<uint32_t>(outOfRange * 4294967295.0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = rng.next();
    uint32_t lo = static_cast<uint32_t>(r), hi = static_cast<uint32_t>(r >> 32);
    int32_t x;
    if (dist == Dist::Skewed && lo < hotThreshold)
      x = hot[hi & 15];
    else
      x = static_cast<int32_t>((static_cast<uint64_t>(hi) * nb) >> 32);
    if (oorThreshold && rng.next() % 4294967295ull < oorThreshold) {
      // below 0 or at/above nbins, sometimes far away
      uint32_t k = static_cast<uint32_t>(rng.next());
      x = (k & 1) ? -1 - static_cast<int32_t>(k >> 8) : nbins + static_cast<int32_t>(k >> 9);
    }
    v[i] = x;
  }
  return v;
}

// The CPU reference, with the kernel's clamp into [0, nbins - 1].
inline std::vector<int32_t> cpuHistogram(const std::vector<int32_t> &input, int32_t nbins) {
  std::vector<int32_t> h(static_cast<size_t>(nbins), 0);
  for (int32_t x : input) {
    int32_t b = x < 0 ? 0 : (x >= nbins ? nbins - 1 : x);
    ++h[static_cast<size_t>(b)];
  }
  return h;
}

// "" when equal, else the number of differing bins and the first few.
inline std::string compareHistograms(const std::vector<int32_t> &want,
                                     const std::vector<int32_t> &got) {
  if (want.size() != got.size())
    return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  size_t bad = 0;
  std::ostringstream os;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i])
      continue;
    if (bad < 5)
      os << " bin " << i << ": got " << got[i] << " want " << want[i] << ";";
    ++bad;
  }
  if (!bad)
    return {};
  return std::to_string(bad) + " of " + std::to_string(want.size()) + " bins differ:" + os.str();
}

using sample::ptxDir;
inline std::string ptxPathForCluster(int cluster) {
  return ptxDir() + "/histogram_c" + std::to_string(cluster) + ".ptx";
}

// The .tile histogram kernel, loaded from PTX, launched through the runtime.
class TileHistogram {
public:
  // The PTX and its kernel info beside it (histogram_c2.ptx, histogram_c2.info.json).
  TileHistogram(tile::Context &ctx, const std::string &ptxPath) : ctx_(&ctx) {
    module_ = tile::Module::fromFiles(ctx, ptxPath);
    kernel_ = module_.kernel("histogram");
    ptxCluster_ = sample::fixedClusterSize(*kernel_.info());
  }
  int ptxCluster() const { return ptxCluster_; } // the compiled cluster size, 0 when launch-time
  tile::Kernel &kernel() { return kernel_; }
  // Clusters above 8 CTAs (the portable limit on sm_90) need the non-portable opt-in
  // (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, which the runtime sets when
  // LaunchConfig::allowNonPortableCluster is true). Off by default, so a cluster of
  // 16 is rejected unless the program asks for it.
  void setAllowNonPortableCluster(bool allow) { allowNonPortable_ = allow; }

  tile::LaunchConfig config(int32_t nbins, int cluster, int threads, unsigned grid) const {
    tile::LaunchConfig c;
    c.grid = tile::Dim3(grid);
    c.block = tile::Dim3(static_cast<unsigned>(threads));
    c.cluster = tile::Dim3(static_cast<unsigned>(cluster));
    c.allowNonPortableCluster = allowNonPortable_; // sharedBytes: from the kernel info
    return c;
  }

  // The dynamic shared memory per CTA a launch needs (the kernel info's layout
  // rule: ceil(nbins / cluster) i32 for the one dshared array).
  size_t sharedBytes(CUdeviceptr bins, CUdeviceptr input, int32_t nbins, int cluster,
                     int threads = 512) const {
    return kernel_.dynamicSharedBytes(
        config(nbins, cluster, threads, static_cast<unsigned>(cluster)), bins, input, int64_t(0),
        nbins);
  }

  // Persistent grid: every cluster that fits on the GPU at once (ctasPerSm > 0:
  // smCount * ctasPerSm CTAs instead, rounded down to whole clusters).
  // Kernel::maxActiveClusters validates the configuration and raises the dynamic
  // shared-memory and non-portable cluster attributes before the occupancy query,
  // which counts against them; the arguments size the dynamic shared memory.
  unsigned persistentGrid(CUdeviceptr bins, CUdeviceptr input, int32_t nbins, int cluster,
                          int threads, int ctasPerSm = 0) {
    if (ctasPerSm > 0) {
      long long ctas = 1ll * ctx_->smCount() * ctasPerSm;
      long long clusters = std::max(1ll, ctas / cluster);
      return static_cast<unsigned>(clusters * cluster);
    }
    int fit =
        kernel_.maxActiveClusters(config(nbins, cluster, threads, static_cast<unsigned>(cluster)),
                                  bins, input, int64_t(0), nbins);
    if (fit <= 0)
      fit = 1; // launch() reports the real reason if nothing fits
    return static_cast<unsigned>(fit * cluster);
  }

  void launch(CUdeviceptr bins, CUdeviceptr input, int64_t n, int32_t nbins, int cluster,
              int threads, unsigned grid, CUstream stream = nullptr) {
    tile::LaunchConfig c = config(nbins, cluster, threads, grid);
    c.stream = stream;
    kernel_.launch(c, bins, input, n, nbins);
  }

private:
  tile::Context *ctx_;
  tile::Module module_;
  tile::Kernel kernel_;
  int ptxCluster_ = 0;
  bool allowNonPortable_ = false;
};

} // namespace histo
