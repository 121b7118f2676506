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

// gemm_fp8_skinny_dsm<T, MT, S, BW, KS, CY, CL>: C^T tiles of BW columns of
// C x MT rows, the KS K splits of a tile in one cluster (reduced in shared
// memory), CY column tiles sharing A, CL row tiles sharing B. S: the deepest
// ring (at most 16 stages) that fits beside the f32 tile, the peers'
// partials and the bf16 output in 227 KB (tilec reports the shared memory of
// an instance that does not fit). Must be samples/gemm/CMakeLists.txt's
// TILEC_GEMM_FP8_SMALL_INSTANCES.
struct SmallInstance {
  int64_t mt = 0; // rows of C per tile (the wgmma N); 0: none
  int stages = 0;
  int64_t bw = 0; // columns of C per tile (64 per consumer warpgroup)
  int ks = 1;     // K splits per tile, in one cluster (x)
  int cy = 1;     // column tiles per cluster sharing A (y)
  int cl = 1;     // row tiles per cluster sharing B (z)
  bool operator==(const SmallInstance &o) const {
    return mt == o.mt && stages == o.stages && bw == o.bw && ks == o.ks && cy == o.cy && cl == o.cl;
  }
};
inline const std::vector<SmallInstance> &smallInstances() {
  static const std::vector<SmallInstance> all = {
      {16, 11, 128, 1},      {16, 11, 128, 2},      {16, 16, 64, 1},       {16, 16, 64, 2},
      {32, 10, 128, 1},      {32, 9, 128, 2},       {32, 16, 64, 1},       {32, 16, 64, 2},
      {64, 7, 128, 1},       {64, 7, 128, 2},       {64, 12, 64, 1},       {64, 12, 64, 2},
      {80, 6, 128, 1},       {80, 5, 128, 2},       {80, 10, 64, 1},       {80, 10, 64, 2},
      {128, 4, 128, 1},      {128, 3, 128, 2},      {128, 7, 64, 1},       {128, 7, 64, 2},
      {128, 4, 128, 1, 2},   {64, 7, 128, 1, 2},    {32, 16, 64, 1, 1, 2}, {40, 16, 64, 1, 1, 2},
      {40, 9, 128, 1, 1, 2}, {64, 12, 64, 1, 1, 2}, {64, 7, 128, 1, 1, 2}, {64, 12, 64, 2, 1, 2},
      {128, 7, 64, 1, 1, 2}, {128, 4, 128, 1, 1, 2}};
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
/// The grid: x = KS, y = column tiles padded to whole CY, z = row tiles
/// padded to whole CL.
inline int64_t smallRowTiles(int64_t m, const SmallInstance &i) {
  return smallCeil(smallCeil(m, i.mt), i.cl) * i.cl;
}
inline int64_t smallColTiles(int64_t n, const SmallInstance &i) {
  return smallCeil(smallCeil(n, i.bw), i.cy) * i.cy;
}
inline int64_t smallCtas(int64_t m, int64_t n, const SmallInstance &i) {
  return smallRowTiles(m, i) * i.ks * smallColTiles(n, i);
}
inline std::string describe(const SmallInstance &i) {
  return "dsm MT " + std::to_string(i.mt) + " x BW " + std::to_string(i.bw) + ", " +
         std::to_string(i.ks) + (i.ks == 1 ? " split" : " splits") +
         (i.cy > 1 ? ", CY " + std::to_string(i.cy) : std::string()) +
         (i.cl > 1 ? ", CL " + std::to_string(i.cl) : std::string()) + ", " +
         std::to_string(i.stages) + " stages";
}

/// What --small times: every instance whose MT covers M in at most two row
/// tiles (two with CL 2) without more than 2 M + 16 rows (a 16-row tile for
/// M = 1), at least two K-blocks per split, 2+ column tiles per CY, at most
/// 2 CTAs per SM in all (one is resident per SM: more run in waves).
inline std::vector<SmallInstance> smallCandidates(int64_t m, int64_t n, int64_t k, int sms) {
  std::vector<SmallInstance> out;
  const int64_t kblocks = smallCeil(k, kSmallBk);
  for (const SmallInstance &i : smallInstances()) {
    const int64_t rows = smallCeil(m, i.mt);
    if (rows > 2 || (i.cl > 1 && rows < 2) || i.mt > 2 * m + 16 || kblocks < 2 * i.ks ||
        smallCeil(n, i.bw) < 2 * i.cy || smallCtas(m, n, i) > 2 * int64_t(sms))
      continue;
    out.push_back(i);
  }
  return out;
}

// gemm_fp8_tile<T, TN, S, CN, CM>: the persistent kernel's 128-row tile
// (two consumer warpgroups x 64 rows) by TN columns, one tile per CTA, S
// stages (the deepest ring beside the bf16 half-tile), CN column tiles
// sharing A and CM row tiles sharing B by multicast; KS 2:
// gemm_fp8_tile_k2<T, TN, S>, the tile's K-blocks split between the two
// CTAs of a cluster, reduced through distributed shared memory. Must be
// samples/gemm/CMakeLists.txt's TILEC_GEMM_FP8_TILE_INSTANCES and
// TILEC_GEMM_FP8_TILE_K2_INSTANCES.
struct TileInstance {
  int64_t tn = 0; // columns of C per tile (the wgmma N); 0: none
  int stages = 0;
  int cn = 1; // column tiles per cluster sharing A (x)
  int cm = 1; // row tiles per cluster sharing B (y)
  int ks = 1; // K splits per tile (2: gemm_fp8_tile_k2, cn = cm = 1)
  bool operator==(const TileInstance &o) const {
    return tn == o.tn && stages == o.stages && cn == o.cn && cm == o.cm && ks == o.ks;
  }
};
inline const std::vector<TileInstance> &tileInstances() {
  static const std::vector<TileInstance> all = {
      {32, 11, 1, 1}, {32, 11, 2, 1}, {64, 9, 1, 1},    {64, 9, 2, 1},    {64, 9, 1, 2},
      {112, 7, 1, 1}, {112, 7, 2, 1}, {128, 6, 1, 1},   {128, 6, 2, 1},   {128, 6, 1, 2},
      {224, 4, 1, 1}, {224, 4, 1, 2}, {64, 7, 1, 1, 2}, {128, 4, 1, 1, 2}};
  return all;
}
inline constexpr int64_t kTileBm = 128; // rows of C per tile
/// The shared memory of a tile instance (without its mbarriers and
/// alignment): the ring and the bf16 half-tile `out` (KS 2: the owned 64
/// rows, and the f32 partials sent and received).
inline int64_t tileSharedBytes(const TileInstance &i) {
  const int64_t ring = i.stages * (kTileBm + i.tn) * kSmallBk;
  return i.ks == 1 ? ring + kTileBm * (i.tn / 2) * 2 : ring + 64 * i.tn * (2 + 2 * 4);
}
/// The grid: x = column tiles padded to whole CN, y = row tiles padded to
/// whole CM.
inline int64_t tileColTiles(int64_t n, const TileInstance &i) {
  return smallCeil(smallCeil(n, i.tn), i.cn) * i.cn;
}
inline int64_t tileRowTiles(int64_t m, const TileInstance &i) {
  return smallCeil(smallCeil(m, kTileBm), i.cm) * i.cm;
}
inline int64_t tileCtas(int64_t m, int64_t n, const TileInstance &i) {
  return tileRowTiles(m, i) * tileColTiles(n, i) * i.ks;
}
inline std::string describe(const TileInstance &i) {
  return "tile 128 x " + std::to_string(i.tn) +
         (i.cn > 1 ? ", CN " + std::to_string(i.cn) : std::string()) +
         (i.cm > 1 ? ", CM " + std::to_string(i.cm) : std::string()) +
         (i.ks > 1 ? ", " + std::to_string(i.ks) + " K splits" : std::string()) + ", " +
         std::to_string(i.stages) + " stages";
}
/// What --small times of gemm_fp8_tile: M > 64, every CTA resident at once
/// (at most one per SM) and at least a quarter of the SMs busy, 2+ column
/// tiles per CN, CM 2 only with two row tiles, 2+ K-blocks per split.
inline std::vector<TileInstance> tileCandidates(int64_t m, int64_t n, int64_t k, int sms) {
  std::vector<TileInstance> out;
  if (m <= 64 || m > 256)
    return out;
  for (const TileInstance &i : tileInstances()) {
    const int64_t ctas = tileCtas(m, n, i);
    if (ctas > sms || 4 * ctas < sms || smallCeil(n, i.tn) < 2 * i.cn ||
        (i.cm > 1 && smallCeil(m, kTileBm) < 2) || smallCeil(k, kSmallBk) < 2 * i.ks)
      continue;
    out.push_back(i);
  }
  return out;
}

/// The host's choice at M <= 256 (per tensor): a gemm_fp8_skinny_dsm
/// instance, a gemm_fp8_tile instance (tile.tn > 0), or the persistent
/// kernel gemm_fp8 at BN `persistentBn`; `why` says which rule.
struct SmallChoice {
  SmallInstance instance;
  TileInstance tile; // gemm_fp8_tile where tile.tn > 0
  int64_t persistentBn = 0;
  std::string why;
};
inline std::string describe(const SmallChoice &c) {
  return c.instance.mt ? describe(c.instance)
         : c.tile.tn   ? describe(c.tile)
                       : "persistent BN " + std::to_string(c.persistentBn) + ", cluster 2";
}
/// The compiled instance with these parameters (the deepest ring), or none.
inline SmallInstance smallInstance(int64_t mt, int64_t bw, int ks, int cy = 1, int cl = 1) {
  for (const SmallInstance &i : smallInstances())
    if (i.mt == mt && i.bw == bw && i.ks == ks && i.cy == cy && i.cl == cl)
      return i;
  return SmallInstance{};
}
/// The compiled gemm_fp8_tile instance with these parameters, or none.
inline TileInstance tileInstance(int64_t tn, int cn, int cm, int ks = 1) {
  for (const TileInstance &i : tileInstances())
    if (i.tn == tn && i.cn == cn && i.cm == cm && i.ks == ks)
      return i;
  return TileInstance{};
}
/// The rule (H200, docs/perf/gemm_fp8.md "Small M"): every CTA resident at
/// once (one per SM, no wave), the narrowest tiles that fill the SMs.
/// M = 129..160 first: two whole 80-row skinny tiles x 64 columns (no
/// cluster) where their 2 ceil(N / 64) CTAs fit the SMs. Then M = 113..256:
/// 128-row tiles (gemm_fp8_tile), one per CTA (a tile mostly past M is slow:
/// at M = 96 the skinny pairs below are faster); M <= 128 one row tile, the
/// narrowest TN of 32 (only at K <= 4096: at K = 8192 and 14336 the skinny
/// pairs are as fast or faster), 64 and 128 whose ceil(N / TN) tiles fit the SMs; M > 128
/// two row tiles sharing B (CM 2), the narrowest TN of 64, 128 and 224 whose
/// 2 ceil(N / TN) CTAs fit; where that grid keeps at least half the SMs
/// busy (else the rules below).
/// M = 41..256: pairs of row tiles sharing B (CL 2), the smallest MT whose
/// two row tiles cover M (32, 40, 64, 128), 64 columns wide where the pairs'
/// CTAs (2 ceil(N / 64)) fit the SMs, else 128 (M <= 128; MT 40 for MT 32),
/// one K split. Else, and for M <= 40, up to M = 80: one row tile, the
/// smallest MT >= M (16, 32, 64, 80), 64 columns wide where its tiles fit the SMs, else
/// 128; 2 K splits in one cluster where twice the tiles fit (2+ K-blocks
/// each), else 1. Where no such grid fits: M <= 80 the 128-column tiles in
/// waves; M > 80 the persistent kernel, BN 128 where its 2 ceil(N / 128)
/// CTAs fit the SMs, else BN 256.
inline SmallChoice smallChoice(int64_t m, int64_t n, int64_t k, int sms) {
  SmallChoice c;
  if (m > 256)
    return c;
  const int64_t kblocks = smallCeil(k, kSmallBk);
  if (m > 128 && m <= 160 && 2 * smallCeil(n, 64) <= sms) {
    c.instance = smallInstance(80, 64, 1);
    c.why = "two whole 80-row skinny tiles x 64: " + std::to_string(2 * smallCeil(n, 64)) +
            " CTAs <= " + std::to_string(sms) + " SMs";
    return c;
  }
  if (m > 112) {
    const bool one = m <= kTileBm;
    for (int64_t tn :
         one ? std::vector<int64_t>{32, 64, 128} : std::vector<int64_t>{64, 128, 224}) {
      if (one && tn == 32 && k > 4096)
        continue;
      const TileInstance i = tileInstance(tn, 1, one ? 1 : 2);
      const int64_t ctas = i.tn ? tileCtas(m, n, i) : 0;
      if (!i.tn || ctas > sms)
        continue;
      if (2 * ctas >= sms) {
        c.tile = i;
        c.why = std::string(one ? "one 128-row tile" : "two 128-row tiles sharing B") + " x " +
                std::to_string(tn) + " columns per CTA: " + std::to_string(ctas) +
                " CTAs <= " + std::to_string(sms) + " SMs";
        return c;
      }
      break; // the narrowest grid that fits leaves half the SMs idle
    }
  }
  if (m > 40) {
    int64_t mt = 0;
    for (const SmallInstance &i : smallInstances())
      if (i.cl == 2 && 2 * i.mt >= m && (mt == 0 || i.mt < mt))
        mt = i.mt;
    for (int64_t bw : {64, 128}) {
      if (bw == 128 && m > 128)
        break;
      const int64_t ctas = 2 * smallCeil(n, bw);
      SmallInstance i = smallInstance(bw == 128 && mt == 32 ? 40 : mt, bw, 1, 1, 2);
      if (ctas > sms || !i.mt)
        continue;
      c.instance = i;
      c.why = "pairs of " + std::to_string(i.mt) + " x " + std::to_string(bw) +
              " skinny tiles sharing B: " + std::to_string(ctas) +
              " CTAs <= " + std::to_string(sms) + " SMs";
      return c;
    }
  }
  int64_t mt = 0;
  for (const SmallInstance &i : smallInstances())
    if (i.cl == 1 && i.mt >= std::min<int64_t>(m, 128) && (mt == 0 || i.mt < mt))
      mt = i.mt;
  for (int64_t bw : {64, 128}) {
    const int64_t tiles = smallCeil(m, mt) * smallCeil(n, bw);
    if (tiles > sms || m > 80)
      continue;
    const int ks = tiles * 2 <= sms && kblocks >= 4 ? 2 : 1;
    c.instance = smallInstance(mt, bw, ks);
    c.why = "skinny tiles " + std::to_string(mt) + " x " + std::to_string(bw) + ", " +
            std::to_string(ks) + " K split(s) in a cluster: " + std::to_string(tiles * ks) +
            " CTAs <= " + std::to_string(sms) + " SMs";
    return c;
  }
  if (m <= 80) {
    c.instance = smallInstance(mt, 128, 1);
    c.why = "skinny tiles " + std::to_string(mt) + " x 128 in waves (more tiles than SMs)";
    return c;
  }
  c.persistentBn = smallCeil(n, 128) * 2 <= sms ? 128 : 256;
  c.why = "M > 80 and no skinny grid fits the SMs: the persistent kernel";
  return c;
}

} // namespace gemm::fp8
