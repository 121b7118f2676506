// pingpong_common.h - host-side pieces shared by the cluster ping-pong sample,
// its GPU tests and its benchmark: the launch shape, the value every output int
// must hold, an exact checker, and a launcher for the .tile kernel (PTX through
// the tilec runtime, cluster dims at launch). Plain C++17 (nvcc compiles it as
// host code too).
//
// The kernel (pingpong.tile; the CUDA references in pingpong_ref.cuh store the
// same values): CTA b of cluster rank r = b % 8 and its partner p = r ^ 1 (block
// pb = b - r + p) swap four ints per iteration; after iteration `it` CTA b has
// received {it, p, pb, it ^ 0x5a5a} from its partner and stores them at
// out[(b * iters + it) * 4 + 0..3]. `out` has grid * iters * 4 ints.
#pragma once

#include "../common/sample_util.h"

#include <tile/runtime.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pingpong {

// The benchmark launch: 128 CTAs (x) of 32 threads, clusters of 8 along x,
// no dynamic shared memory. pingpong.tile fixes cluster(8) and threads(32).
constexpr unsigned kGrid = 128;
constexpr unsigned kThreads = 32;
constexpr unsigned kCluster = 8;
constexpr int kDefaultIters = 10000;

// Every output byte is set to kPoisonByte before a launch, so an int the kernel
// did not write reads kPoison.
constexpr unsigned char kPoisonByte = 0xA5;
constexpr int32_t kPoison = static_cast<int32_t>(0xA5A5A5A5u);

// Ints of `out` for `iters` iterations.
inline size_t outCount(int iters, unsigned grid = kGrid) {
  return iters > 0 ? static_cast<size_t>(grid) * static_cast<size_t>(iters) * 4 : 0;
}

// The value out[(block * iters + it) * 4 + k] must hold (k = 0..3). Clusters
// are x-major: a CTA's cluster rank is block % cluster.
inline int32_t expectedValue(unsigned block, int it, int k, unsigned cluster = kCluster) {
  const unsigned rank = block % cluster;
  const unsigned partner = rank ^ 1u;
  const unsigned partnerBlock = block - rank + partner;
  switch (k) {
  case 0:
    return it;
  case 1:
    return static_cast<int32_t>(partner);
  case 2:
    return static_cast<int32_t>(partnerBlock);
  default:
    return it ^ 0x5a5a;
  }
}

// The whole expected output (for tests that compare vectors).
inline std::vector<int32_t> expectedOutput(int iters, unsigned grid = kGrid,
                                           unsigned cluster = kCluster) {
  std::vector<int32_t> v(outCount(iters, grid));
  for (unsigned b = 0; b < grid; ++b)
    for (int it = 0; it < iters; ++it)
      for (int k = 0; k < 4; ++k)
        v[(static_cast<size_t>(b) * iters + it) * 4 + k] = expectedValue(b, it, k, cluster);
  return v;
}

// Checks every value of got[0 .. n): the first outCount(iters, grid) ints
// against expectedValue, every int after them (a guard the kernel must not
// touch) against kPoison. Returns "" when all match, else the number of
// mismatches and the first one, e.g.
//   "3 of 5120 ints differ; first: out[17] (block 1, iteration 0, k 1) = -1515870811 (0xa5a5a5a5,
//   never written), want 0"
inline std::string checkOutput(const int32_t *got, size_t n, int iters, unsigned grid = kGrid,
                               unsigned cluster = kCluster) {
  const size_t want = outCount(iters, grid);
  if (n < want)
    return "output has " + std::to_string(n) + " ints, needs " + std::to_string(want);
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < n; ++i) {
    int32_t w;
    if (i < want) {
      const size_t cell = i / 4;
      w = expectedValue(static_cast<unsigned>(cell / static_cast<size_t>(iters)),
                        static_cast<int>(cell % static_cast<size_t>(iters)),
                        static_cast<int>(i % 4), cluster);
    } else {
      w = kPoison;
    }
    if (got[i] == w)
      continue;
    if (bad++ == 0) {
      first << "out[" << i << "]";
      if (i < want) {
        const size_t cell = i / 4;
        first << " (block " << cell / static_cast<size_t>(iters) << ", iteration "
              << cell % static_cast<size_t>(iters) << ", k " << i % 4 << ")";
      } else {
        first << " (guard " << i - want << " after the output)";
      }
      first << " = " << got[i];
      if (got[i] == kPoison)
        first << " (0xa5a5a5a5, never written)";
      first << ", want " << w;
    }
  }
  if (!bad)
    return {};
  return std::to_string(bad) + " of " + std::to_string(n) + " ints differ; first: " + first.str();
}
inline std::string checkOutput(const std::vector<int32_t> &got, int iters, unsigned grid = kGrid,
                               unsigned cluster = kCluster) {
  return checkOutput(got.data(), got.size(), iters, grid, cluster);
}

using sample::readFile;

using sample::ptxDir;
inline std::string ptxPath(const std::string &dir = "") {
  return (dir.empty() ? ptxDir() : dir) + "/pingpong.ptx";
}

// The .tile ping-pong kernel, loaded from PTX, launched through the runtime.
class TilePingPong {
public:
  // The PTX and its kernel info beside it (pingpong.ptx, pingpong.info.json).
  TilePingPong(tile::Context &ctx, const std::string &path) {
    module_ = tile::Module::fromFiles(ctx, path);
    kernel_ = module_.kernel("pingpong");
    ptxCluster_ = sample::fixedClusterSize(*kernel_.info());
  }
  int ptxCluster() const { return ptxCluster_; } // the compiled cluster size, 0 when launch-time
  tile::Kernel &kernel() { return kernel_; }
  const tile::Module &module() const { return module_; }

  static tile::LaunchConfig config(unsigned grid = kGrid, unsigned threads = kThreads,
                                   unsigned cluster = kCluster, CUstream stream = nullptr) {
    tile::LaunchConfig c;
    c.grid = tile::Dim3(grid);
    c.block = tile::Dim3(threads);
    c.cluster = tile::Dim3(cluster);
    c.stream = stream; // sharedBytes: from the kernel info (none: no dynamic arrays)
    return c;
  }

  // One launch: `out` (grid * iters * 4 ints), `iters` iterations.
  void launch(CUdeviceptr out, int32_t iters, const tile::LaunchConfig &cfg) {
    kernel_.launch(cfg, out, iters);
  }
  void launch(CUdeviceptr out, int32_t iters, CUstream stream = nullptr) {
    launch(out, iters, config(kGrid, kThreads, kCluster, stream));
  }

private:
  tile::Module module_;
  tile::Kernel kernel_;
  int ptxCluster_ = 0;
};

} // namespace pingpong
