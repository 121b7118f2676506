// samples/gemm: which kernel computes a shape, decided on the host with no
// device (README.md, "Choosing the kernel"):
//   - the variants: the persistent kernel (gemm / gemm_bmn, BN 256 or 128,
//     gemm also 224 and 192, and 200 in clusters of four; cluster 2 with B
//     multicast or cluster 1, 4 stages;
//     gemm_m64, 64-row tiles at BN 128 or 256, K-major B),
//     split-K (gemm_splitk / gemm_splitk_bmn, BN 128, 6 stages, 1..8 splits,
//     cluster 2 with A multicast or cluster 1) and the
//     skinny kernel (gemm_skinny<MT, S, BNS, CL>, C^T for small M, K-major B,
//     1..8 splits, cluster 2 with B multicast or 1; gemm_skinny2d;
//     gemm_skinny_dsm, its K splits in one cluster), their grids and
//     workspaces;
//   - the rule table that picks one per shape and the candidates `--tune`
//     times (gemm_tune_cache.h, included at the end: the text cache of tuned
//     winners).
#pragma once

#include "gemm_common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gemm {

// ---------------------------------------------------------------- variants
enum class Variant { Persistent, SplitK, Skinny };

struct Choice {
  Variant variant = Variant::Persistent;
  int64_t bn = 256;
  int cluster = 2;  // persistent: 2 (B multicast, the _mc PTX) or 1 (_nomc); split-K: 2 (A
                    // multicast, _mc) or 1 (_nomc); skinny: 2 (B multicast: the instance's
                    // CL) or 1
  int splits = 1;   // split-K only
  int stages = 4;   // the ring depth: persistent per BN (persistentStages), split-K and
                    // skinny per instance
  int64_t mt = 0;   // skinny: rows of C (of A) per tile, the wgmma N (bn: its columns,
                    // 128 or 64); persistent: 64 for gemm_m64 (64-row tiles), else 0
  int clusterY = 1; // skinny only: column tiles per cluster sharing A by multicast
                    // (gemm_skinny2d; `cluster` is then its row tiles sharing B)
  bool dsm = false; // skinny only: the `splits` K splits of a tile in one cluster, reduced
                    // through distributed shared memory (gemm_skinny_dsm; cluster 1)
  std::string why;  // the rule that chose it, or "tuned ..." / "forced"
  bool operator==(const Choice &o) const {
    return variant == o.variant && bn == o.bn && cluster == o.cluster && splits == o.splits &&
           stages == o.stages && mt == o.mt && clusterY == o.clusterY && dsm == o.dsm;
  }
};

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t kSteps(const Problem &p) { return ceilDiv(p.k, kTileK); }
// Output tiles of 128 x bn.
inline int64_t outputTiles(const Problem &p, int64_t bn) {
  return ceilDiv(p.m, kTileM) * ceilDiv(p.n, bn);
}
// Split-K's work items: output tiles, each row of them padded to whole
// clusters (the CTAs of a cluster share the A tile of one row; a padding
// CTA computes zeros past N and stores nothing).
inline int64_t splitKTiles(const Problem &p, int64_t bn, int cluster) {
  return ceilDiv(p.m, kTileM) * ceilDiv(ceilDiv(p.n, bn), cluster) * cluster;
}
// The skinny kernel (gemm_skinny<MT, S, BNS, CL>, K-major B only): tiles of MT
// rows x BNS columns of C, computed as C^T (M is the wgmma N). The
// instances gemm_skinny.tile is compiled for (CMakeLists.txt): MT, its ring
// depth S, as deep as the 227 KB of shared memory allow (a stage is BNS x
// 64 of B plus MT x 64 of A; besides the ring, the BNS x MT f32 tile that
// transposes one split's sum and the MT x BNS / 2 output tile), and BNS.
// BNS 128 (two consumer warpgroups): MT 16 also at 8 stages, which measured
// as fast as 11 on most decode shapes; MT 80 serves M = 65..80. BNS 64 (one
// consumer warpgroup, cuBLAS's 64-wide tiles at M = 64..80): twice the tiles
// per N, so decode shapes fill the SMs with fewer splits, and stages of half
// the bytes, so twice as many (MT 40: 77 rows in two row tiles, as cuBLAS's
// 40-row tile; MT 80 and 128: --tune candidates for M = 65..256). CL, the
// cluster: 1, or 2 where M has two or more row tiles: the pair of CTAs that
// take two row tiles of one column tile loads each B tile once and
// multicasts it (cuBLAS's kernels at 64 x 4096 x 4096 and 77 x 3000 x 5000
// share their operands across clusters the same way). CY > 1, the
// two-dimensional cluster (gemm_skinny2d): CL row tiles x CY column tiles,
// B shared along the rows as above and A along the columns (cuBLAS clusters
// 77 x 3000 x 5000 that way, 4 x 2); the A tile is cut into CY slices of
// whole 8-row swizzle atoms, so MT is a multiple of 8 CY (MT 48: 77 rows in
// two row tiles with 24-row slices; MT 96 in 1 x 4: one row tile of 96 >= M
// = 77, four column tiles sharing A, 24 rows of it per CTA). --tune
// candidates only: the rule table does not pick them (MT 96 in 1 x 4 with 2
// splits at 77 x 3000 x 5000 measured 16.8-17.1 us against 16.8-18.0 for MT
// 80 in 1 x 2 over two requests, no steady gain; at 65 and 96 x 4096 x 4096
// its 32 clusters of four, more than are resident, took 23.1-23.7 us against
// 13.5-16.1 and 19.0-19.1 for the pairs of MT 40 and 64).
// gemm_splitk's instances (K-major B; CMakeLists.txt,
// TILEC_GEMM_SPLITK_INSTANCES): tile width BN, ring depth S, CTAs per SM
// (min_blocks). 128 x 128 with 6 stages; 128 x 64 with 8 stages (cuBLAS's
// tile at M = 128..256: twice the CTAs of BN 128 without splitting K); 128 x
// 64 with 4 stages, two CTAs per SM (80 registers per thread: BN 64 is the
// widest fragment that fits; gemm.tile). gemm_splitk_bmn (MN-major B): BN 128,
// 6 stages only.
struct SplitKInstance {
  int64_t bn;
  int stages;
  int perSm;
};
inline const std::vector<SplitKInstance> &splitKInstances() {
  static const std::vector<SplitKInstance> all = {{128, 6, 1}, {64, 8, 1}, {64, 4, 2}};
  return all;
}
// The instance of split-K choice (bn, stages) for B's major, or null.
inline const SplitKInstance *splitKInstance(int64_t bn, int stages, BMajor b) {
  for (const SplitKInstance &i : splitKInstances())
    if (i.bn == bn && i.stages == stages && (b == BMajor::K || (bn == 128 && stages == 6)))
      return &i;
  return nullptr;
}
inline constexpr int64_t kSkinnyBn = 128;
struct SkinnyInstance {
  int64_t mt;
  int stages;
  int64_t bn = kSkinnyBn; // BNS: columns of C per tile
  int cluster = 1;        // CL: CTAs per cluster (row tiles sharing B)
  int clusterY = 1;       // CY: column tiles per cluster sharing A (gemm_skinny2d)
  int ks = 0;             // KS >= 2: gemm_skinny_dsm, the KS splits of a tile in one cluster
};
inline const std::vector<SkinnyInstance> &skinnyInstances() {
  static const std::vector<SkinnyInstance> all = {
      {16, 8},      {16, 11},     {32, 10},     {64, 7},      {80, 6},
      {32, 16, 64}, {40, 15, 64}, {64, 12, 64}, {80, 11, 64}, {128, 7, 64},
      {64, 7, 128, 2},  {32, 16, 64, 2}, {40, 15, 64, 2}, {64, 12, 64, 2}, {128, 7, 64, 2},
      {16, 11, 128, 1, 2}, {80, 11, 64, 1, 2}, {48, 15, 64, 2, 2}, {32, 16, 64, 2, 2},
      {32, 16, 64, 2, 4},  {64, 12, 64, 2, 2}, {64, 12, 64, 2, 4}, {128, 7, 64, 2, 2},
      {96, 9, 64, 1, 4},
      {80, 10, 64, 1, 1, 2}, {80, 10, 64, 1, 2, 2}, {64, 12, 64, 1, 1, 2}, {64, 12, 64, 1, 2, 2},
      {128, 7, 64, 1, 1, 2}};
  return all;
}
// The compiled instance (mt, stages, bn, cluster, clusterY, ks), or null.
inline const SkinnyInstance *skinnyInstance(int64_t mt, int stages, int64_t bn, int cluster = 1,
                                            int clusterY = 1, int ks = 0) {
  for (const SkinnyInstance &i : skinnyInstances())
    if (i.mt == mt && i.stages == stages && i.bn == bn && i.cluster == cluster &&
        i.clusterY == clusterY && i.ks == ks)
      return &i;
  return nullptr;
}
// The instance of width bn and cluster cl x cy for m rows: MT = mt when mt >
// 0, else the smallest MT with cl row tiles covering m (MT >= m for cl = 1);
// the deepest ring of that MT. ks >= 2: gemm_skinny_dsm's with ks splits per
// cluster. Null when none is compiled.
inline const SkinnyInstance *skinnyInstanceFor(int64_t m, int64_t bn, int64_t mt = 0,
                                               int cl = 1, int cy = 1, int ks = 0) {
  const SkinnyInstance *best = nullptr;
  for (const SkinnyInstance &i : skinnyInstances()) {
    if (i.bn != bn || i.cluster != cl || i.clusterY != cy || i.ks != ks ||
        (mt ? i.mt != mt : i.mt * cl < m))
      continue;
    if (!best || i.mt < best->mt || (i.mt == best->mt && i.stages > best->stages))
      best = &i;
  }
  return best;
}
// The skinny kernel's tiles: row tiles padded to whole clusters of cl, column
// tiles to whole clusters of cy (a padding CTA loads zeros for its box
// outside A or B, shares its slices and stores nothing).
inline int64_t skinnyTiles(const Problem &p, int64_t mt, int64_t bn, int cl = 1, int cy = 1) {
  return ceilDiv(ceilDiv(p.m, mt), cl) * cl * ceilDiv(ceilDiv(p.n, bn), cy) * cy;
}
// Work items of a split variant: output tiles (x splits = CTAs).
inline int64_t splitTiles(const Problem &p, const Choice &c) {
  return c.variant == Variant::Skinny ? skinnyTiles(p, c.mt, c.bn, c.cluster, c.clusterY)
                                      : splitKTiles(p, c.bn, c.cluster);
}
// The persistent kernel's tile rows: 128, or 64 for gemm_m64 (mt 64).
inline int64_t persistentRows(const Choice &c) { return c.mt ? c.mt : kTileM; }
// The persistent kernel's work units: `cluster` bm-row tiles x one bn column.
inline int64_t persistentUnits(const Problem &p, int64_t bn, int cluster, int64_t bm = kTileM) {
  return ceilDiv(p.m, bm * cluster) * ceilDiv(p.n, bn);
}
// CTAs the choice keeps busy at once when nothing limits residency (one CTA
// per SM: the kernels take ~224 KB of shared memory).
// gemm_skinny_dsm's instance i as a choice (its KS splits).
inline Choice skinnyDsm(const SkinnyInstance &i) {
  Choice c;
  c.variant = Variant::Skinny;
  c.cluster = 1;
  c.clusterY = i.clusterY;
  c.bn = i.bn;
  c.mt = i.mt;
  c.stages = i.stages;
  c.splits = i.ks;
  c.dsm = true;
  return c;
}
inline int64_t ctasOf(const Problem &p, const Choice &c) {
  return c.variant != Variant::Persistent ? splitTiles(p, c) * c.splits
                                          : persistentUnits(p, c.bn, c.cluster, persistentRows(c)) *
                                                c.cluster;
}

inline std::string variantName(Variant v) {
  return v == Variant::SplitK ? "splitk" : v == Variant::Skinny ? "skinny" : "persistent";
}
// "persistent BN 256, cluster 2 (B multicast), 4 stages" / "split-K x4, BN 128, 4 stages".
inline std::string describe(const Choice &c) {
  std::string s =
      c.variant == Variant::SplitK
          ? "split-K x" + std::to_string(c.splits) + ", BN " + std::to_string(c.bn) +
                (c.cluster > 1 ? ", cluster " + std::to_string(c.cluster) + " (A multicast)" : "") +
                (c.bn == 64 && c.stages == 4 ? ", 2 CTAs per SM" : "")
      : c.variant == Variant::Skinny
          ? "skinny (C^T) x" + std::to_string(c.splits) + ", " + std::to_string(c.mt) + " x " +
                std::to_string(c.bn) + " tiles" +
                (c.dsm ? " (the splits in one cluster, reduced in shared memory)" : "") +
                (c.clusterY > 1 ? ", cluster " + std::to_string(c.cluster) + " x " +
                                      std::to_string(c.clusterY) +
                                      (c.cluster > 1 ? " (B and A multicast)" : " (A multicast)")
                 : c.cluster > 1
                     ? ", cluster " + std::to_string(c.cluster) + " (B multicast)"
                     : "")
          : "persistent " + (c.mt ? std::to_string(c.mt) + " x " : std::string()) + "BN " +
                std::to_string(c.bn) + ", cluster " + std::to_string(c.cluster) +
                (c.cluster > 1 ? " (B multicast)" : "");
  return s + ", " + std::to_string(c.stages) + " stages";
}
// The PTX file and kernel of a choice (README.md, "The contract").
inline bool usesMulticastPtx(const Choice &c) {
  return c.variant != Variant::Skinny && c.cluster > 1;
}
// The cluster the PTX was compiled for: 4 (gemm_<dtype>_mc4.ptx) for the
// persistent kernel in clusters of four, else 2 (or 1: _nomc).
inline int ptxCluster(const Choice &c) {
  return c.variant == Variant::Persistent && c.cluster == 4 ? 4 : 2;
}
inline std::string kernelName(const Choice &c, BMajor b) {
  if (c.variant == Variant::Skinny)
    return c.dsm             ? "gemm_skinny_dsm"
           : c.clusterY > 1 ? "gemm_skinny2d"
                            : "gemm_skinny"; // K-major B only
  if (c.variant == Variant::Persistent && c.mt == kTileM64)
    return "gemm_m64"; // K-major B only
  const std::string base = c.variant == Variant::SplitK ? "gemm_splitk" : "gemm";
  return b == BMajor::K ? base : base + "_bmn";
}
// The compile-time parameters that name the instance (besides T).
inline std::vector<std::pair<std::string, int64_t>> instanceArgs(const Choice &c, BMajor b) {
  if (c.variant == Variant::Skinny && c.dsm)
    return {{"MT", c.mt}, {"S", c.stages}, {"BNS", c.bn}, {"KS", c.splits}, {"CY", c.clusterY}};
  if (c.variant == Variant::Skinny && c.clusterY > 1)
    return {{"MT", c.mt}, {"S", c.stages}, {"BNS", c.bn}, {"CX", c.cluster}, {"CY", c.clusterY}};
  if (c.variant == Variant::Skinny)
    return {{"MT", c.mt}, {"S", c.stages}, {"BNS", c.bn}, {"CL", c.cluster}};
  if (c.variant == Variant::SplitK && b == BMajor::K) {
    const SplitKInstance *i = splitKInstance(c.bn, c.stages, b);
    return {{"BN", c.bn}, {"S", c.stages}, {"NB", i ? i->perSm : 1}};
  }
  return {{"BN", c.bn}};
}
// The f32 workspace (elements) and tile flags (i32) of a split variant:
// partials are written only with more than one split.
inline int64_t workspaceFloats(const Problem &p, const Choice &c) {
  if (c.splits <= 1 || c.variant == Variant::Persistent || c.dsm)
    return 0;
  return c.variant == Variant::Skinny
             ? int64_t(c.splits) * skinnyTiles(p, c.mt, c.bn, c.cluster, c.clusterY) * c.mt * c.bn
             : int64_t(c.splits) * splitKTiles(p, c.bn, c.cluster) * kTileM * c.bn;
}
inline int64_t flagCount(const Problem &p, const Choice &c) {
  return c.variant != Variant::Persistent && !c.dsm ? splitTiles(p, c) : 0;
}

// ---------------------------------------------------------------- the rule table
// Splits that fill `sms` SMs with `tiles` output tiles, with at least 4 k
// steps (of 64) per split and at most 8 splits (each split adds its f32
// partial to the workspace traffic).
inline int splitsToFill(int64_t tiles, int64_t steps, int sms) {
  const int64_t fill = std::max<int64_t>(1, sms / std::max<int64_t>(1, tiles));
  const int64_t most = std::max<int64_t>(1, std::min<int64_t>(8, steps / 4));
  return int(std::min(fill, most));
}

struct Rule {
  const char *when; // the condition, as printed by --bench
  bool (*matches)(const Problem &, int sms);
  Choice (*pick)(const Problem &, int sms);
};

// Split-K's default instance: BN 128, 6 stages (the one compiled for both B
// majors).
inline constexpr int64_t kSplitKBn = 128;
inline Choice splitKWith(const SplitKInstance &i, int cluster, int splits) {
  Choice c;
  c.variant = Variant::SplitK;
  c.cluster = cluster;
  c.bn = i.bn;
  c.stages = i.stages;
  c.splits = splits;
  return c;
}
// The split-K cluster: 2 (the pair of CTAs that take consecutive column
// tiles over one k range loads each A tile once and multicasts it) where M
// has 2 or more row tiles and a row more than one column tile; else 1. On
// the H200 (docs/perf/gemm.md) the pair measured 3-6% faster at 256 x 4096
// x 14336 and as fast at the other M = 256 shapes, but 3-4% slower at
// M = 128 (128 x 4096 x 4096: 19.6 us against 18.9 us).
inline Choice splitKFillWith(const Problem &p, int sms, const SplitKInstance &i, int cluster) {
  return splitKWith(i, cluster,
                    splitsToFill(splitKTiles(p, i.bn, cluster), kSteps(p), sms * i.perSm));
}
inline Choice splitKFill(const Problem &p, int sms) {
  const int cluster = ceilDiv(p.m, kTileM) > 1 && ceilDiv(p.n, kSplitKBn) > 1 ? 2 : 1;
  return splitKFillWith(p, sms, splitKInstances()[0], cluster); // BN 128, 6 stages
}
// cuBLAS's kernel at M = 128..256, N, K = 4096..8192 (H200, cuBLAS 130100,
// its kernel names: nvjet_sm90_hsh_128x64_64x8_1x2_*): 128 x 64 tiles, 8
// stages of 64, a cluster of 2 along N, the whole K per CTA (no split-K)
// where the tiles fill the SMs: split-K's BN 64 instance (8 stages, one CTA
// per SM) is that kernel, splitting K only where the tiles alone leave SMs
// idle (128 x 4096 x 4096: 64 tiles, 2 splits). Without the cluster: on the
// H200 the A-multicast pair measured 6-12 % slower at 256 x 4096 x 4096
// (22.6 us against 20.2) and within 2 % elsewhere (docs/perf/gemm.md).
inline Choice splitKNarrow(const Problem &p, int sms) {
  return splitKFillWith(p, sms, splitKInstances()[1], 1); // BN 64, 8 stages
}
// Where the narrow tile wins: at most 128 k steps of 64 per CTA. Past that
// the 128 x 128 tile's lower intake per FLOP wins (256 x 4096 x 14336: 224
// steps per CTA at BN 64, 59.6 us; BN 128 with 2 splits 53.8 us; 128 x 8192 x
// 8192, 128 steps: BN 64 42.0 us, BN 128 48.0).
inline bool narrowFits(const Problem &p, int sms) {
  const Choice c = splitKNarrow(p, sms);
  return ceilDiv(kSteps(p), c.splits) <= 128;
}
// The skinny kernel for p with the instance of width bn and the smallest
// MT >= M (the deepest ring of that MT), splits filling the SMs; MT 0 when M
// exceeds every compiled MT of that width.
inline Choice skinnyFill(const Problem &p, int sms, int64_t bn = kSkinnyBn) {
  Choice c;
  c.variant = Variant::Skinny;
  c.cluster = 1;
  c.bn = bn;
  if (const SkinnyInstance *i = skinnyInstanceFor(p.m, bn)) {
    c.mt = i->mt;
    c.stages = i->stages;
  }
  c.splits = c.mt ? splitsToFill(skinnyTiles(p, c.mt, c.bn), kSteps(p), sms) : 1;
  return c;
}
// Where the skinny kernel 64 columns wide beats 128 (H200, docs/perf/gemm.md):
// M = 33..64 (MT 40 or 64) with its tiles no more than the SMs, so that they
// fill the SMs with one or two splits and stream B through 12-stage rings of
// half-size stages (64 x 4096 x 4096: 12.7 us against 14.6 at 128 wide with 4
// splits; 64 x 8192 x 8192: 38.8 against 41.3). At M = 1..16 the 128-wide MT
// 16 tile wins (no 64-wide MT 16: 10.7 against 14.3 us at 16 x 4096 x 4096), at
// M = 77 the 128-wide MT 80 (18.7 against 19.5 us), and with more 64-wide tiles
// than SMs the 128-wide (64 x 14336 x 4096: 35.9 against 37.3).
inline bool skinnyNarrowFits(const Problem &p, int sms) {
  const SkinnyInstance *i = skinnyInstanceFor(p.m, 64);
  return p.m > 32 && p.m <= 64 && p.bmajor == BMajor::K && i && skinnyTiles(p, i->mt, 64) <= sms;
}
// The persistent kernel's ring depth (gemm.tile): `gemm` (K-major B) takes
// the deepest ring that fits the 227 KB of shared memory beside its output
// tile, (232448 - 128 * BN - 1024) / ((128 + BN) * 128): 4 stages at BN 256
// and 224, 5 at 192, 6 at 128; `gemm_bmn` 4 at every BN.
// gemm_m64 (bm 64, K-major B): the same rule with 64-row tiles, 9 stages at
// BN 128.
// The epilogue's slices (gemm.tile's ES): two halves, or at BN 200 five
// slices of 40 columns. The B tile's rows (BNP): BN rounded up to 32, so
// that a cluster of four multicasts whole swizzle atoms (224 at BN 200).
inline int64_t persistentEpilogueCols(int64_t bn) { return bn % 16 ? 40 : bn / 2; }
inline int64_t persistentBRows(int64_t bn) { return (bn + 31) / 32 * 32; }
inline int persistentStages(int64_t bn, BMajor b, int64_t bm = kTileM) {
  return b == BMajor::K ? int((232448 - bm * persistentEpilogueCols(bn) * 2 - 1024) /
                              ((bm + persistentBRows(bn)) * kTileK * 2))
                        : 4;
}
// The skinny kernel 64 columns wide in clusters of two row tiles sharing B
// (H200, docs/perf/gemm.md): cuBLAS's tiling at these shapes (64 x 32 and
// 64 x 40 tiles in clusters along M at M = 64, 77). Where the clusters' CTAs
// (2 x ceil(N / 64)) fit the SMs, for M = 41..256: 64 x 4096 x 4096 12.3 us
// (14.0 without the cluster), 77 x 3000 x 5000 17.8 (18.3: 128 wide with 4
// splits), 128 x 4096 x 4096 13.7 (split-K at BN 64: 15.0), 256 x 4096 x
// 4096 19.7 (20.4), 128 x 4096 x 14336 38.2 (41.0). MT 128 (M > 128) is
// measured at 64 k steps only: beyond 128 steps split-K keeps it.
inline constexpr int kSkinnyPair = 2;
inline bool skinnyPairFits(const Problem &p, int sms) {
  const SkinnyInstance *i = skinnyInstanceFor(p.m, 64, 0, kSkinnyPair);
  return p.m > 40 && p.m <= 256 && p.bmajor == BMajor::K && i &&
         skinnyTiles(p, i->mt, 64, kSkinnyPair) <= sms && (p.m <= 128 || kSteps(p) <= 128);
}
inline Choice skinnyPair(const Problem &p, int sms) {
  Choice c;
  c.variant = Variant::Skinny;
  c.cluster = kSkinnyPair;
  c.bn = 64;
  const SkinnyInstance *i = skinnyInstanceFor(p.m, 64, 0, kSkinnyPair);
  c.mt = i ? i->mt : 0;
  c.stages = i ? i->stages : 0;
  c.splits = i ? splitsToFill(skinnyTiles(p, c.mt, c.bn, c.cluster), kSteps(p), sms) : 1;
  return c;
}
// gemm_skinny_dsm at MT 80 in 2 x 2 clusters (the two K splits of a tile x
// two column tiles sharing A), M = 65..80, K-major B, at least 16 k steps,
// where its clusters of four take 1/2 .. 3/4 of the SMs (24 of them at 77 x
// 3000 x 5000 run at once; the 32 of 64 x 4096 x 4096 at MT 64 ran slower
// than its pairs of MT 32: not all resident). H200 (README.md, the skinny
// kernel's K splits in one cluster): 77 x 3000 x 5000 15.5 us (f16 and bf16)
// under --tune against 18.0-18.1 for MT 80 in 1 x 2 with its splits through
// global memory, 0.98-1.02 x cuBLAS in alternation against 0.85-0.87.
inline constexpr int64_t kSkinnyDsmMt = 80;
inline bool skinnyDsmFits(const Problem &p, int sms) {
  const int64_t ctas = skinnyTiles(p, kSkinnyDsmMt, 64, 1, 2) * 2;
  return p.m > 64 && p.m <= kSkinnyDsmMt && p.bmajor == BMajor::K && kSteps(p) >= 16 &&
         ctas * 2 >= int64_t(sms) && ctas * 4 <= 3 * int64_t(sms) &&
         skinnyInstanceFor(p.m, 64, kSkinnyDsmMt, 1, 2, 2);
}
inline Choice skinnyDsmQuad(const Problem &p, int) {
  return skinnyDsm(*skinnyInstanceFor(p.m, 64, kSkinnyDsmMt, 1, 2, 2));
}
inline Choice persistentWith(int64_t bn, BMajor b = BMajor::K) {
  Choice c;
  c.bn = bn;
  c.stages = persistentStages(bn, b);
  return c;
}
// BN 200 (K-major B) in clusters of four along M sharing B (each CTA loads
// 56 rows of the 224-row B tile): cuBLAS's 128 x 200 tile (5 stages, 4 x 1
// clusters) at 1000 x 3000 x 5000, where N = 3000 is 15 whole tiles and the
// 2 x 15 clusters of four take one round (30 clusters of four are resident
// on the H200's 132 SMs). H200, one request (README.md): 48.3 / 47.0 us (f16
// / bf16, 0.963 / 0.959 x cuBLAS) against 50.3-50.4 / 50.2-51.1 for BN 192
// in pairs (0.920-0.922 / 0.877-0.894); BN 200 in pairs 49.4-50.8.
inline constexpr int64_t kQuadBn = 200;
inline Choice persistentQuad() {
  Choice c = persistentWith(kQuadBn);
  c.cluster = 4;
  return c;
}
inline int64_t residentQuads(int sms) { return int64_t(sms) * 30 / 132; }
inline bool quadFits(const Problem &p, int sms) {
  const int64_t units = persistentUnits(p, kQuadBn, 4);
  return p.bmajor == BMajor::K && p.m > 256 && p.n % kQuadBn == 0 && p.n % 256 != 0 &&
         units <= residentQuads(sms) && units * 4 * 4 >= 3 * int64_t(sms);
}
// gemm_m64: 64 x BN tiles (BN 128, the rule's, or 256), clusters of two row
// tiles sharing B (K-major B).
inline constexpr int64_t kM64Bn = 128;
inline bool m64Compiled(int64_t bn) { return bn == 128 || bn == 256; }
inline Choice persistentM64(int cluster = 2, int64_t bn = kM64Bn) {
  Choice c;
  c.bn = bn;
  c.mt = kTileM64;
  c.cluster = cluster;
  c.stages = persistentStages(bn, BMajor::K, kTileM64);
  return c;
}
// The persistent kernel's rounds: cluster c takes units c, c + clusters, ...
// with as many 2-CTA clusters as SMs / 2, so a shape costs about
// rounds x BN (a unit's time is proportional to its width at one M and K).
inline int64_t persistentRounds(const Problem &p, int64_t bn, int sms) {
  return ceilDiv(persistentUnits(p, bn, 2), std::max(1, sms / 2));
}
// BN 224 or 192 (gemm, K-major B only), the one whose rounds cost least,
// where that is at least 1/16 less than BN 256's: the last round of 256-wide
// units leaves many SMs idle (1000 x 3000 x 5000: 48 units of 256 for 66
// clusters, 64 of 192 in one round; 1024 x 14336 x 4096: 4 rounds of 256 =
// 1024 columns' time, 4 of 224 = 896 (the last one 58 of 66 clusters busy),
// 5 of 192 = 960). Else BN 256.
inline Choice persistentWaves(const Problem &p, int sms) {
  const int64_t at256 = persistentRounds(p, 256, sms) * 256;
  int64_t best = 256, bestCost = at256;
  if (p.bmajor == BMajor::K)
    for (int64_t bn : {224, 192}) {
      const int64_t cost = persistentRounds(p, bn, sms) * bn;
      if (cost * 16 <= at256 * 15 && cost < bestCost) {
        best = bn;
        bestCost = cost;
      }
    }
  return persistentWith(best, p.bmajor);
}

// gemm_m64 where its clusters of two 64 x 128 tiles sharing B fill the
// SMs in one round (3/4 of the SMs <= 2 ceil(M / 128) ceil(N / 128) CTAs
// <= SMs), M > 80, K-major B: cuBLAS's tiling at 256 x 4096 x 4096 and
// 128 x 8192 x 8192 (128 x 64 in its column-major terms, 1 x 2 clusters
// along M) with one m64n128k16 wgmma per 64 x 128 x 16 product, where a
// 128 x 64 tile issues two m64n64k16 (8 KB of shared memory read against
// 6 KB). H200 (docs/perf/gemm.md), f16 under --tune: 256 x 4096 x 4096
// 18.7 us (the skinny pairs at MT 128: 21.0 under ncu against 18.2),
// 256 x 4096 x 14336 51.6 (split-K x2 at BN 128: 54.5), 128 x 8192 x 8192
// 38.5 (split-K at BN 64: 42.2). At M <= 128 and N <= 4224 the skinny
// pairs win (128 x 4096 x 4096: 13.7 against 15.3) and their rule takes
// them (at M <= 128 such N never fill the SMs with these pairs). Past
// M = 256 these are the shapes with few tiles, which otherwise split K at
// BN 128: 1024 x 1024 x 1024 12.6 / 12.7 us (f16 / bf16, one --tune run)
// against 15.6 / 15.6 for split-K x2, 1024 x 1024 x 4096 20.7 / 20.7
// against 23.7 / 23.5.
inline bool m64Fits(const Problem &p, int sms) {
  const int64_t ctas = persistentUnits(p, kM64Bn, 2, kTileM64) * 2;
  return p.m > 80 && p.bmajor == BMajor::K && ctas <= sms &&
         ctas * 4 >= 3 * int64_t(sms);
}
// The persistent kernel at BN 128 (6 stages, pairs of row tiles sharing B)
// where its 128 x 128 tiles fill the SMs in one round, M = 129..256,
// K-major B: cuBLAS's 128 x 128 x 6 in 2 x 1 clusters at 256 x 8192 x 8192.
// H200 (docs/perf/gemm.md): 55.7 us f16 / 52.8 bf16 under --tune against
// 58.0 / 56.7 for split-K at BN 128 with its A-multicast pair.
inline bool wide128Fits(const Problem &p, int sms) {
  const int64_t tiles = outputTiles(p, 128);
  return p.m > 128 && p.m <= 256 && p.bmajor == BMajor::K && tiles <= sms &&
         tiles * 4 >= 3 * int64_t(sms);
}

// First match wins. "Fills" = at least 3/4 of the SMs get a CTA at once.
inline const std::vector<Rule> &ruleTable() {
  static const std::vector<Rule> rules = {
      {"M > 80, B K-major, clusters of two 64 x 128 tiles sharing B fill the SMs in one "
       "round: persistent, 64-row tiles, BN 128, cluster 2 (B multicast)",
       m64Fits, [](const Problem &, int) { return persistentM64(2); }},
      {"M = 129..256, B K-major, 128 x 128 tiles fill the SMs in one round: persistent, BN 128, "
       "cluster 2 (B multicast)",
       wide128Fits, [](const Problem &p, int) { return persistentWith(128, p.bmajor); }},
      {"M = 65..80, B K-major, 16+ k steps, clusters of four 80 x 64 skinny tiles (2 K splits x "
       "2 column tiles) on 1/2 .. 3/4 of the SMs: skinny (C^T) 64 columns wide, MT 80, the 2 "
       "splits in one cluster reduced in shared memory, 2 column tiles sharing A",
       skinnyDsmFits, skinnyDsmQuad},
      {"M = 41..256, B K-major, 64-wide skinny tiles in clusters of two row tiles no more than "
       "the SMs (M <= 128 or at most 128 k steps): skinny (C^T) 64 columns wide, cluster 2 (B "
       "multicast), the smallest MT whose two row tiles cover M, splits to fill the SMs",
       skinnyPairFits, skinnyPair},
      {"M = 33..64, B K-major, 64-wide skinny tiles no more than the SMs: skinny (C^T) 64 "
       "columns wide, the smallest MT >= M, splits to fill the SMs",
       [](const Problem &p, int sms) { return skinnyNarrowFits(p, sms); },
       [](const Problem &p, int sms) { return skinnyFill(p, sms, 64); }},
      {"M <= 80, B K-major: skinny (C^T) 128 columns wide, the smallest MT >= M, splits to fill "
       "the SMs",
       [](const Problem &p, int) { return p.m <= 80 && p.bmajor == BMajor::K; },
       [](const Problem &p, int sms) { return skinnyFill(p, sms); }},
      {"M <= 256, B K-major, 64-wide tiles no more than the SMs, at most 128 k steps per CTA: "
       "split-K at BN 64 (8 stages, cuBLAS's 128 x 64 tile), no cluster, splits to fill the SMs",
       [](const Problem &p, int sms) {
         return p.m <= 256 && p.bmajor == BMajor::K && outputTiles(p, 64) <= sms &&
                narrowFits(p, sms);
       },
       splitKNarrow},
      {"M <= 256 (decode), 128-wide tiles no more than the SMs: split-K, BN 128, cluster 2 "
       "(A multicast) with 2+ row and column tiles, splits to fill the SMs",
       [](const Problem &p, int sms) { return p.m <= 256 && outputTiles(p, 128) <= sms; },
       splitKFill},
      {"M <= 256 with more 128-wide tiles than SMs: persistent, cluster 2, BN 256 (224 or 192 "
       "as in the next rule)",
       [](const Problem &p, int) { return p.m <= 256; }, persistentWaves},
      {"M > 256, B K-major, N a multiple of 200 and not of 256, clusters of four 128 x 200 tiles "
       "fill the SMs in one round: persistent, BN 200, cluster 4 (B multicast)",
       quadFits, [](const Problem &, int) { return persistentQuad(); }},
      {"256-row clusters of 256-wide tiles fill the SMs: persistent, cluster 2, BN 256 (224 "
       "or 192 for K-major B where its rounds of units over the SMs cost 1/16 less)",
       [](const Problem &p, int sms) { return persistentUnits(p, 256, 2) * 2 * 4 >= 3 * sms; },
       persistentWaves},
      {"256-row clusters of 224- or 192-wide tiles fill the SMs (K-major B) with rounds "
       "that cost 1/16 less than BN 256's: persistent, that BN, cluster 2",
       [](const Problem &p, int sms) {
         const int64_t bn = persistentWaves(p, sms).bn;
         return bn != 256 && persistentUnits(p, bn, 2) * 2 * 4 >= 3 * sms;
       },
       persistentWaves},
      {"256-row clusters of 128-wide tiles fill the SMs: persistent, BN 128, cluster 2",
       [](const Problem &p, int sms) { return persistentUnits(p, 128, 2) * 2 * 4 >= 3 * sms; },
       [](const Problem &p, int) { return persistentWith(128, p.bmajor); }},
      {"few tiles (long K): split-K, BN 128, splits to fill the SMs",
       [](const Problem &, int) { return true; }, splitKFill},
  };
  return rules;
}

inline Choice ruleChoice(const Problem &p, int sms) {
  for (const Rule &r : ruleTable())
    if (r.matches(p, sms)) {
      Choice c = r.pick(p, sms);
      c.why = std::string("rule: ") + r.when;
      return c;
    }
  return Choice{}; // unreachable: the last rule matches everything
}

// What --tune times: every persistent BN (224 and 192: K-major B only) with
// and without the cluster, split-K with 1, 2, 3, 4, 6, 8 splits (at least 2
// k steps per split, at most 4 CTAs per SM in all) with and without its
// cluster (more than one column tile), the skinny kernel's instances (below)
// and the rule's pick.
inline std::vector<Choice> candidates(const Problem &p, int sms) {
  std::vector<Choice> out;
  for (int64_t bn : {256, 224, 192, 128})
    for (int cl : {2, 1}) {
      if ((bn == 224 || bn == 192) && p.bmajor != BMajor::K)
        continue;
      Choice c = persistentWith(bn, p.bmajor);
      c.cluster = cl;
      out.push_back(c);
    }
  // BN 200 in clusters of four (K-major B).
  if (p.bmajor == BMajor::K)
    out.push_back(persistentQuad());
  // gemm_m64 (K-major B) where M <= 1024.
  if (p.bmajor == BMajor::K && p.m <= 1024)
    for (int64_t bn : {128, 256})
      for (int cl : {2, 1})
        out.push_back(persistentM64(cl, bn));
  // Every split-K instance of B's major (the BN 64 ones where M <= 1024:
  // beyond, the persistent kernel's tiles fill the SMs), at most 4 CTAs per
  // SM's slot in all.
  for (const SplitKInstance &i : splitKInstances()) {
    if (!splitKInstance(i.bn, i.stages, p.bmajor) || (i.bn != kSplitKBn && p.m > 1024))
      continue;
    for (int cl : {2, 1})
      for (int s : {1, 2, 3, 4, 6, 8}) {
        if (cl > 1 && ceilDiv(p.n, i.bn) < 2)
          continue;
        if (s > 1 && (kSteps(p) < 2 * s ||
                      splitKTiles(p, i.bn, cl) * s > 4 * int64_t(i.perSm) * int64_t(sms)))
          continue;
        out.push_back(splitKWith(i, cl, s));
      }
  }
  // The skinny kernel (K-major B): every compiled instance whose MT covers M
  // in at most 4 row tiles (MT < M: more tiles, fewer splits; the row tiles
  // of one column tile run at once and read B from L2 after the first, or
  // share it by multicast in a cluster: those instances where M has 2+ row
  // tiles; the two-dimensional clusters where N has 2+ column tiles per
  // cluster), the same splits.
  if (p.bmajor == BMajor::K)
    for (const SkinnyInstance &i : skinnyInstances()) {
      if (i.ks) {
        // gemm_skinny_dsm: its KS splits, where M is one row tile (MT >= M,
        // at most 2 M + 16) and all its clusters are resident at once (one
        // CTA per SM).
        if (p.m > i.mt || i.mt > 2 * p.m + 16 || kSteps(p) < 2 * i.ks ||
            (i.clusterY > 1 && ceilDiv(p.n, i.bn) < 2 * i.clusterY) ||
            skinnyTiles(p, i.mt, i.bn, 1, i.clusterY) * i.ks > sms)
          continue;
        out.push_back(skinnyDsm(i));
        continue;
      }
      if (ceilDiv(p.m, i.mt) > 4 || (i.cluster > 1 && ceilDiv(p.m, i.mt) < 2) ||
          (i.clusterY > 1 && ceilDiv(p.n, i.bn) < 2 * i.clusterY))
        continue;
      for (int s : {1, 2, 3, 4, 6, 8}) {
        if (s > 1 && (kSteps(p) < 2 * s ||
                      skinnyTiles(p, i.mt, i.bn, i.cluster, i.clusterY) * s > 4 * int64_t(sms)))
          continue;
        Choice c;
        c.variant = Variant::Skinny;
        c.cluster = i.cluster;
        c.clusterY = i.clusterY;
        c.bn = i.bn;
        c.mt = i.mt;
        c.stages = i.stages;
        c.splits = s;
        out.push_back(c);
      }
    }
  const Choice rule = ruleChoice(p, sms); // e.g. 5 splits: timed too
  if (std::find(out.begin(), out.end(), rule) == out.end())
    out.push_back(rule);
  return out;
}

} // namespace gemm

// The cache of --tune's winners and the choice for a shape (chooseFor).
#include "gemm_tune_cache.h"
