// Per-tensor fp8 GEMMs at small M (decode shapes), host side without a GPU:
// gemm_fp8_skinny_dsm's compiled instances (gemm_fp8.tile), their grids, the
// candidates `gemm --fp8 --small` times and the rule the host picks from
// (fp8_small.cpp runs them; fp8_host_test.cpp tests them here).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gemm::fp8 {

// gemm_fp8_skinny_dsm<T, MT, S, BW, KS, CY>: C^T tiles of BW columns of C x
// MT rows, the KS K splits of a tile in one cluster (reduced in shared
// memory), CY column tiles sharing A. S: the deepest ring that fits beside
// the f32 tile, the peers' partials and the bf16 output in 227 KB (tilec
// reports the shared memory of an instance that does not fit). Must be
// samples/gemm/CMakeLists.txt's TILEC_GEMM_FP8_SMALL_INSTANCES.
struct SmallInstance {
  int64_t mt = 0; // rows of C per tile (the wgmma N); 0: none
  int stages = 0;
  int64_t bw = 0; // columns of C per tile (64 per consumer warpgroup)
  int ks = 1;     // K splits per tile, in one cluster
  int cy = 1;     // column tiles per cluster sharing A
  bool operator==(const SmallInstance &o) const {
    return mt == o.mt && stages == o.stages && bw == o.bw && ks == o.ks && cy == o.cy;
  }
};
inline const std::vector<SmallInstance> &smallInstances() {
  static const std::vector<SmallInstance> all = {
      {16, 11, 128, 1, 1}, {16, 11, 128, 2, 1}, {16, 11, 128, 4, 1}, {16, 16, 64, 1, 1},
      {16, 16, 64, 2, 1},  {32, 10, 128, 1, 1}, {32, 9, 128, 2, 1},  {32, 9, 128, 4, 1},
      {64, 7, 128, 1, 1},  {64, 7, 128, 2, 1},  {64, 6, 128, 4, 1},  {64, 12, 64, 1, 1},
      {64, 12, 64, 2, 1},  {64, 12, 64, 2, 2},  {80, 6, 128, 1, 1},  {80, 5, 128, 2, 1},
      {80, 5, 128, 4, 1},  {80, 10, 64, 1, 1},  {80, 10, 64, 1, 2},  {80, 10, 64, 2, 1},
      {80, 10, 64, 2, 2},  {128, 4, 128, 1, 1}, {128, 3, 128, 2, 1}, {128, 7, 64, 1, 1},
      {128, 7, 64, 1, 2},  {128, 7, 64, 2, 1},  {128, 7, 64, 2, 2},  {128, 6, 64, 4, 1}};
  return all;
}

inline int64_t smallCeil(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline constexpr int64_t kSmallBk = 128; // k per stage (fp8: 128 bytes)
inline constexpr int kSmallMaxStages = 16;
/// The shared memory of instance i (without its mbarriers and alignment):
/// the ring, `red` (f32 [BW, MT]), `recv` (the KS - 1 peers' partials of
/// this CTA's BW / KS columns, + 4 floats) and `out` (bf16 [MT, BW / KS]).
inline int64_t smallSharedBytes(const SmallInstance &i) {
  const int64_t cols = i.bw / i.ks;
  return i.stages * (i.bw + i.mt) * kSmallBk + i.bw * i.mt * 4 +
         ((i.ks - 1) * cols * i.mt + 4) * 4 + i.mt * cols * 2;
}
/// The grid: x = KS x row tiles, y = column tiles padded to whole CY.
inline int64_t smallRowTiles(int64_t m, const SmallInstance &i) { return smallCeil(m, i.mt); }
inline int64_t smallColTiles(int64_t n, const SmallInstance &i) {
  return smallCeil(smallCeil(n, i.bw), i.cy) * i.cy;
}
inline int64_t smallCtas(int64_t m, int64_t n, const SmallInstance &i) {
  return smallRowTiles(m, i) * i.ks * smallColTiles(n, i);
}
inline std::string describe(const SmallInstance &i) {
  return "dsm MT " + std::to_string(i.mt) + " x BW " + std::to_string(i.bw) + ", " +
         std::to_string(i.ks) + (i.ks == 1 ? " split" : " splits") +
         (i.cy > 1 ? ", CY " + std::to_string(i.cy) : std::string()) + ", " +
         std::to_string(i.stages) + " stages";
}

/// What --small times: every instance whose MT covers M in at most two row
/// tiles without more than 2 M + 16 rows (a 16-row tile for M = 1), at
/// least two K-blocks per split, 2+ column tiles per CY, at most 4 CTAs per
/// SM in all (one is resident per SM: more run in waves).
inline std::vector<SmallInstance> smallCandidates(int64_t m, int64_t n, int64_t k, int sms) {
  std::vector<SmallInstance> out;
  const int64_t kblocks = smallCeil(k, kSmallBk);
  for (const SmallInstance &i : smallInstances()) {
    const int64_t rows = smallRowTiles(m, i);
    if (rows > 2 || i.mt > 2 * m + 16 || kblocks < 2 * i.ks ||
        smallCeil(n, i.bw) < 2 * i.cy || smallCtas(m, n, i) > 4 * int64_t(sms))
      continue;
    out.push_back(i);
  }
  return out;
}

/// The host's pick for M <= 256 (mt = 0 above): the smallest MT that covers
/// M in one row tile (two of 128 for M = 129..256), 128 columns wide where
/// its tiles are at most the SMs, else 64; then the most K splits (1, 2, 4)
/// whose CTAs fit the SMs at once.
inline SmallInstance smallChoice(int64_t m, int64_t n, int64_t k, int sms) {
  SmallInstance best;
  if (m > 256)
    return best;
  const int64_t kblocks = smallCeil(k, kSmallBk);
  int64_t mt = 0;
  for (const SmallInstance &i : smallInstances())
    if (i.mt >= std::min<int64_t>(m, 128) && (mt == 0 || i.mt < mt))
      mt = i.mt;
  for (int64_t bw : {128, 64})
    for (int ks : {4, 2, 1})
      for (const SmallInstance &i : smallInstances()) {
        if (best.mt || i.mt != mt || i.bw != bw || i.ks != ks || i.cy != 1 ||
            (ks > 1 && kblocks < 2 * ks) || smallCtas(m, n, i) > sms)
          continue;
        best = i;
      }
  if (!best.mt) // more tiles than SMs even unsplit: the 64-wide tiles in waves
    for (const SmallInstance &i : smallInstances())
      if (!best.mt && i.mt == mt && i.bw == 64 && i.ks == 1 && i.cy == 1)
        best = i;
  return best;
}

} // namespace gemm::fp8
