// tma_multicast_common.h - host-side pieces shared by the TMA multicast
// sample's host program (main.cpp, the .tile kernel through the tilec runtime)
// and its benchmark (bench.cu, also the nvcc-built CUDA reference): the
// problem, the input, the CPU checksums, the L2->SM traffic each variant
// needs and the .tile kernel's launch contract. Plain C++17 (nvcc compiles it
// as host code too). README.md describes the sample.
#pragma once

#include "../common/sample_util.h"

#include <tile/runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tmamc {

// One tile: 128 rows x 64 bf16 = 128-byte rows, the widest box the 128B
// swizzle takes (the B operand of a GEMM's k-step: 128 k-rows of a 64-column
// panel). Every CTA of a cluster needs the same tile at every step.
constexpr int kTileRows = 128;
constexpr int kTileCols = 64;
constexpr int kElementBytes = 2; // bf16 (moved as bits)
constexpr int kRowBytes = kTileCols * kElementBytes;
constexpr int kTileBytes = kTileRows * kRowBytes; // 16 KB
constexpr int kWordsPerRow = kRowBytes / 4;
constexpr int kStages = 4;

enum class Variant { A, B };
inline const char *variantName(Variant v) { return v == Variant::A ? "A" : "B"; }
// "A: every CTA loads every tile" / "B: 1/C per CTA, multicast"
inline const char *variantLongName(Variant v) {
  return v == Variant::A ? "every CTA loads every tile" : "each CTA loads 1/C and multicasts";
}

// The problem: a tensor B[K, N] of bf16, K = tiles * 128, N = panels * 64.
// Cluster j streams `steps` tiles of panel j % panels: step i reads rows
// (i % tiles) * 128 ... + 127, columns (j % panels) * 64 ... + 63. A K of a
// few thousand rows keeps B in L2, so the timing is L2 -> SM delivery.
struct Problem {
  int tiles = 64;   // distinct tiles along K
  int panels = 16;  // 64-column panels along N
  int steps = 2048; // tiles each cluster streams
  int64_t rows() const { return int64_t(tiles) * kTileRows; }
  int64_t cols() const { return int64_t(panels) * kTileCols; }
};

// B's element (row, col) as bf16 bits: a hash, so that a misplaced element
// changes the checksum.
inline uint16_t element(int64_t row, int64_t col) {
  uint64_t x = uint64_t(row) * 0x9E3779B97F4A7C15ull ^ uint64_t(col) * 0xC2B2AE3D27D4EB4Full;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<uint16_t>(x);
}

inline std::vector<uint16_t> makeInput(const Problem &p) {
  std::vector<uint16_t> b(size_t(p.rows() * p.cols()));
  for (int64_t r = 0; r < p.rows(); ++r)
    for (int64_t c = 0; c < p.cols(); ++c)
      b[size_t(r * p.cols() + c)] = element(r, c);
  return b;
}

// The checksum a CTA reports: over every step's tile, every 32-bit word
// (two bf16, little-endian) times an odd weight of its position in the tile,
// summed modulo 2^32:  sum_i sum_{r, w} word(i, r, w) * (2 * (r * 32 + w) + 1).
// Every byte counts, and a word in the wrong place (a wrong swizzle, a
// multicast slice at the wrong offset) changes it.
inline uint32_t weight(int row, int word) { return 2u * uint32_t(row * kWordsPerRow + word) + 1u; }

// expected[j] for a CTA of cluster j, from its panel.
inline std::vector<uint32_t> expectedPanelSums(const Problem &p, const std::vector<uint16_t> &b) {
  std::vector<uint32_t> tileSum(size_t(p.panels) * p.tiles, 0);
  for (int panel = 0; panel < p.panels; ++panel)
    for (int t = 0; t < p.tiles; ++t) {
      uint32_t s = 0;
      for (int r = 0; r < kTileRows; ++r)
        for (int w = 0; w < kWordsPerRow; ++w) {
          const int64_t row = int64_t(t) * kTileRows + r;
          const int64_t col = int64_t(panel) * kTileCols + 2 * w;
          const uint32_t word = uint32_t(b[size_t(row * p.cols() + col)]) |
                                uint32_t(b[size_t(row * p.cols() + col + 1)]) << 16;
          s += word * weight(r, w);
        }
      tileSum[size_t(panel) * p.tiles + t] = s;
    }
  std::vector<uint32_t> expected(size_t(p.panels), 0);
  for (int panel = 0; panel < p.panels; ++panel)
    for (int i = 0; i < p.steps; ++i)
      expected[size_t(panel)] += tileSum[size_t(panel) * p.tiles + i % p.tiles];
  return expected;
}

// "" when every CTA's checksum is exact, else the first few mismatches.
inline std::string checkSums(const std::vector<uint32_t> &got, const std::vector<uint32_t> &panels,
                             int clusterSize) {
  std::string problems;
  int bad = 0;
  for (size_t cta = 0; cta < got.size(); ++cta) {
    const size_t cluster = cta / size_t(clusterSize);
    const uint32_t want = panels[cluster % panels.size()];
    if (got[cta] == want)
      continue;
    if (++bad <= 4)
      problems += "CTA " + std::to_string(cta) + " (cluster " + std::to_string(cluster) +
                  "): checksum " + std::to_string(got[cta]) + ", expected " + std::to_string(want) +
                  "; ";
  }
  if (bad > 4)
    problems += std::to_string(bad - 4) + " more";
  return problems;
}

// Bytes that land in shared memory: every CTA receives every tile.
inline double bytesDelivered(int64_t ctas, const Problem &p) {
  return double(ctas) * p.steps * kTileBytes;
}
// Bytes L2 sends to the SMs: A loads each tile once per CTA (C x tile bytes
// per cluster-step), B once per cluster (1 x tile bytes, the slices
// multicast).
inline double l2ToSmBytes(Variant v, int64_t clusters, int clusterSize, const Problem &p) {
  return double(clusters) * p.steps * kTileBytes * (v == Variant::A ? clusterSize : 1);
}

// The tensor B as the .tile kernel takes it (tile::Tensor: the runtime
// encodes the map from the kernel info's box and swizzle).
inline tile::Tensor tensorOf(CUdeviceptr b, const Problem &p) {
  return tile::Tensor(b, tile::TensorElement::BF16, {p.rows(), p.cols()});
}

// The .tile kernel's contract (README.md, "The .tile kernel"): PTX
// tma_multicast_<a|b>_c<C>.ptx + .info.json, one kernel
//   tma_multicast_a / tma_multicast_b(B: tensor<bf16>[K, N], sums: ptr<i32, global>, steps: i32)
// with cluster(C) fixed and an exact threads(...), writing CTA b's checksum
// to sums[b] (sums zeroed before the launch). Placeholder until the lead
// writes samples/tma_multicast/tma_multicast.tile.
inline std::string tilePtxName(Variant v, int clusterSize) {
  return std::string("tma_multicast_") + (v == Variant::A ? "a" : "b") + "_c" +
         std::to_string(clusterSize) + ".ptx";
}
inline std::string tileKernelName(Variant v) {
  return v == Variant::A ? "tma_multicast_a" : "tma_multicast_b";
}

// The .tile kernel loaded and checked against the contract.
struct TileKernel {
  tile::Module module;
  tile::Kernel kernel;
  unsigned threads = 0;
};
inline TileKernel loadTileKernel(tile::Context &ctx, const std::string &ptxPath, Variant v,
                                 int clusterSize) {
  TileKernel t;
  t.module = tile::Module::fromFiles(ctx, ptxPath);
  t.kernel = t.module.kernel(tileKernelName(v));
  const tile::KernelInfo &info = *t.kernel.info();
  // A launch-sized cluster (tilec's `cluster(?)`) takes C from the launch.
  if (info.cluster == tile::KernelInfo::Cluster::Fixed &&
      sample::fixedClusterSize(info) != clusterSize)
    throw std::runtime_error(ptxPath + ": compiled for cluster size " +
                             std::to_string(sample::fixedClusterSize(info)) + ", not " +
                             std::to_string(clusterSize));
  if (!info.threads)
    throw std::runtime_error(ptxPath + ": the kernel declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  return t;
}
inline void launchTile(TileKernel &t, int64_t clusters, int clusterSize, const tile::Tensor &b,
                       CUdeviceptr sums, int steps, CUstream stream = nullptr) {
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(clusters * clusterSize));
  cfg.block = tile::Dim3(t.threads);
  cfg.cluster = tile::Dim3(unsigned(clusterSize)); // the compiled one (equal: allowed)
  cfg.stream = stream;
  t.kernel.launch(cfg, b, sums, int32_t(steps));
}

} // namespace tmamc
