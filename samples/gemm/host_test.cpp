// Host-side pieces of samples/gemm that decide whether a GPU result passes,
// tested without a GPU: the 16-bit conversions the inputs and outputs go
// through, the float64 reference, the error measure, the poison detection,
// the alignment rule, the kernel lookup from kernel info, the rule table that
// picks a kernel per shape, --tune's candidates and its cache (ctest gemm.host).
#include <catch2/catch.hpp>

#include "gemm_choice.h"
#include "gemm_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <tuple>

using namespace gemm;

namespace {

// x's mantissa with the binary exponent e: x scaled into a chosen range.
float withExponent(float x, int e) {
  int old = 0;
  return std::ldexp(std::frexp(x, &old), e);
}

// The value of the 16-bit pattern next to h away from zero / toward zero.
double neighbour(DType d, uint16_t h, int step) { return fromBits(d, uint16_t(h + step)); }

// floatToX(x) is the nearest representable value, ties to an even mantissa.
void checkNearest(DType d, float x) {
  const uint16_t h = toBits(d, x);
  const double v = fromBits(d, h);
  const uint16_t magnitude = h & 0x7fffu;
  const uint16_t infBits = d == DType::F16 ? 0x7c00u : 0x7f80u;
  if (magnitude == infBits) { // overflow: x is beyond the largest finite value's half ulp
    const double maxFinite = fromBits(d, uint16_t(infBits - 1));
    const double halfUlp = (maxFinite - fromBits(d, uint16_t(infBits - 2))) / 2;
    INFO("x = " << x);
    CHECK(std::fabs(double(x)) >= maxFinite + halfUlp);
    return;
  }
  const double err = std::fabs(double(x) - v);
  INFO(dtypeName(d) << " x = " << x << " bits 0x" << std::hex << h);
  if (magnitude < infBits - 1) // the next larger magnitude
    CHECK(err <= std::fabs(double(x) - neighbour(d, h, 1)));
  if (magnitude > 0) { // the next smaller magnitude
    const double below = neighbour(d, h, -1);
    CHECK(err <= std::fabs(double(x) - below));
    if (err == std::fabs(double(x) - below) && err > 0)
      CHECK((h & 1u) == 0); // a tie went to the even pattern
  }
}

} // namespace

TEST_CASE("16-bit patterns survive float and back", "[gemm]") {
  for (DType d : {DType::F16, DType::BF16})
    for (uint32_t h = 0; h < 0x10000u; ++h) {
      if (isNanBits(d, uint16_t(h))) {
        CHECK(std::isnan(fromBits(d, uint16_t(h))));
        CHECK(isNanBits(d, toBits(d, fromBits(d, uint16_t(h)))));
        continue;
      }
      INFO(dtypeName(d) << " 0x" << std::hex << h);
      REQUIRE(toBits(d, fromBits(d, uint16_t(h))) == h);
    }
  CHECK(halfToFloat(0x3c00) == 1.0f);
  CHECK(halfToFloat(0x0001) == std::ldexp(1.0f, -24)); // smallest subnormal
  CHECK(halfToFloat(0x7bff) == 65504.0f);
  CHECK(bf16ToFloat(0x3f80) == 1.0f);
  CHECK(isNanBits(DType::F16, 0xffff)); // the poison pattern
  CHECK(isNanBits(DType::BF16, 0xffff));
}

TEST_CASE("float to f16 / bf16 rounds to nearest even", "[gemm]") {
  // Ties: 1 + 2^-11 lies between 1 and 1 + 2^-10 (odd): even wins.
  CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  CHECK(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(floatToBf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
  CHECK(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);
  CHECK(floatToHalf(65520.0f) == 0x7c00); // the first value that rounds to inf
  CHECK(floatToHalf(65519.0f) == 0x7bff);
  CHECK(floatToHalf(std::ldexp(1.0f, -25)) == 0x0000); // tie between 0 and the smallest subnormal
  CHECK(floatToHalf(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(floatToHalf(-0.0f) == 0x8000);
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    float x = bitsFloat(bits(rng));
    if (!std::isfinite(x))
      continue;
    checkNearest(DType::BF16, x);
    // f16 over its range (and a little beyond, for the overflow rule).
    const float y = withExponent(x, int(bits(rng) % 45) - 28);
    checkNearest(DType::F16, y);
  }
#if defined(__FLT16_MAX__) && !defined(__clang__)
  // The compiler's own conversion as an oracle, where it has one.
  for (int i = 0; i < 200000; ++i) {
    const float x =
        withExponent(bitsFloat((bits(rng) & 0x807fffffu) | 0x3f800000u), int(bits(rng) % 45) - 28);
    const _Float16 h = static_cast<_Float16>(x);
    uint16_t hb;
    std::memcpy(&hb, &h, 2);
    INFO("x = " << x);
    REQUIRE(floatToHalf(x) == hb);
  }
#endif
}

TEST_CASE("random inputs are standard normal and reproducible", "[gemm]") {
  const std::vector<uint16_t> a = randomNormal(DType::F16, 1 << 16, 42, 1);
  const std::vector<uint16_t> b = randomNormal(DType::F16, 1 << 16, 42, 1);
  const std::vector<uint16_t> c = randomNormal(DType::F16, 1 << 16, 42, 2);
  CHECK(a == b);
  CHECK(a != c);
  double s = 0, s2 = 0;
  for (uint16_t h : a) {
    s += halfToFloat(h);
    s2 += double(halfToFloat(h)) * halfToFloat(h);
  }
  const double mean = s / a.size(), var = s2 / a.size() - mean * mean;
  CHECK(std::fabs(mean) < 0.02);
  CHECK(std::fabs(var - 1.0) < 0.03);
}

TEST_CASE("B's storage order matches the tensor shapes the kernel gets", "[gemm]") {
  // K-major: stored [N, K] row-major, element (j, kk) at j * K + kk; MN-major:
  // stored [K, N], (kk, j) at kk * N + j (tensorsOf passes {N, K} / {K, N}).
  const Problem k{4, 3, 2, DType::F16, BMajor::K};
  const Problem mn{4, 3, 2, DType::F16, BMajor::MN};
  CHECK(k.bIndex(0, 2) == 4);
  CHECK(k.bIndex(1, 2) == 5);
  CHECK(mn.bIndex(0, 2) == 2);
  CHECK(mn.bIndex(1, 0) == 3);
}

TEST_CASE("the float64 reference and the error measure", "[gemm]") {
  // A = [[1, 2], [3, 4]] (2 x 2), B = [[5, 6, 7], [8, 9, 10]] as [K, N] = 2 x 3.
  for (BMajor bm : {BMajor::K, BMajor::MN}) {
    Problem p{2, 3, 2, DType::BF16, bm};
    std::vector<uint16_t> a = {floatToBf16(1), floatToBf16(2), floatToBf16(3), floatToBf16(4)};
    std::vector<uint16_t> b(6);
    const float bv[2][3] = {{5, 6, 7}, {8, 9, 10}};
    for (int kk = 0; kk < 2; ++kk)
      for (int j = 0; j < 3; ++j)
        b[p.bIndex(kk, j)] = floatToBf16(bv[kk][j]);
    const std::vector<double> c = referenceGemm(p, a, b, allRows(p));
    CHECK(c == std::vector<double>{21, 24, 27, 47, 54, 61});
    // An exact C has error 0; one wrong element shows; a NaN is counted.
    std::vector<uint16_t> got(6);
    for (int i = 0; i < 6; ++i)
      got[size_t(i)] = floatToBf16(float(c[size_t(i)]));
    auto want = [&](size_t r, int64_t j) { return c[r * 3 + size_t(j)]; };
    Comparison ok = compareRows(p, got, allRows(p), want);
    CHECK(ok.relFrobenius == 0);
    CHECK(ok.nonFinite == 0);
    got[4] = floatToBf16(56);
    Comparison off = compareRows(p, got, allRows(p), want);
    CHECK(off.relFrobenius ==
          Approx(2.0 / std::sqrt(21.0 * 21 + 24 * 24 + 27 * 27 + 47 * 47 + 54 * 54 + 61 * 61)));
    got[5] = 0xffff;
    Comparison poisoned = compareRows(p, got, allRows(p), want);
    CHECK(poisoned.nonFinite == 1);
    CHECK(poisoned.firstNonFinite == 5);
  }
}

TEST_CASE("sampled reference rows cover M", "[gemm]") {
  Problem p{8192, 8192, 8192, DType::F16, BMajor::K};
  const std::vector<int64_t> rows = referenceRows(p, double(1ull << 31));
  REQUIRE(rows.size() == 32);
  CHECK(rows.front() == 0);
  CHECK(rows.back() == 8191);
  CHECK(std::is_sorted(rows.begin(), rows.end()));
  Problem small{256, 256, 64, DType::F16, BMajor::K};
  CHECK(referenceRows(small, double(1ull << 31)).size() == 256);
}

TEST_CASE("any M, N, K with 16-byte rows is accepted; the TMA rule names the rest", "[gemm]") {
  // Non-multiples of every tile: accepted (edge tiles are zero-filled / clipped).
  for (Problem p : {Problem{4000, 4000, 4000}, Problem{1000, 3000, 5000}, Problem{1, 4096, 4096},
                    Problem{77, 3000, 5000}, Problem{16, 8, 8}, Problem{1, 8, 8}})
    for (BMajor b : {BMajor::K, BMajor::MN}) {
      p.bmajor = b;
      INFO(p.shape() << " B " << bmajorName(b));
      CHECK(alignmentProblem(p).empty());
    }
  Problem p{77, 200, 100, DType::F16, BMajor::K};
  std::string why = alignmentProblem(p);
  CHECK(why.find("K = 100: the rows of A [M, K] and B [N, K] are 200 bytes apart, not a "
                 "multiple of 16") != std::string::npos);
  CHECK(why.find("N = 200") == std::string::npos); // 400 bytes: fine
  CHECK(why.find("TMA: a tensor map's strides are multiples of 16 bytes") != std::string::npos);
  p = {64, 1001, 64, DType::BF16, BMajor::MN};
  why = alignmentProblem(p);
  CHECK(why.find("N = 1001: the rows of C [M, N] and B [K, N] are 2002 bytes apart") !=
        std::string::npos);
  CHECK(why.find("K = 64") == std::string::npos);
  p = {1, 1, 1, DType::F16, BMajor::K}; // both rules broken: both named
  why = alignmentProblem(p);
  CHECK(why.find("K = 1") != std::string::npos);
  CHECK(why.find("N = 1") != std::string::npos);
  p = {0, 8, 8, DType::F16, BMajor::K};
  CHECK(alignmentProblem(p) == "M, N and K must be positive");
}

TEST_CASE("edge tiles count as whole tiles and work units", "[gemm]") {
  const Problem p{4000, 4000, 4000, DType::F16, BMajor::K};
  CHECK(kSteps(p) == 63); // 62 full k steps + the 32-wide tail
  CHECK(outputTiles(p, 128) == 32 * 32);
  CHECK(persistentUnits(p, 256, 2) == 16 * 16);
  const Problem one{1, 4096, 4096, DType::F16, BMajor::K};
  CHECK(outputTiles(one, 128) == 32);
  CHECK(persistentUnits(one, 256, 2) == 16);
  Choice sk;
  sk.variant = Variant::SplitK;
  sk.cluster = 1;
  sk.bn = 128;
  sk.splits = 4;
  CHECK(workspaceFloats(one, sk) == 4 * 32 * 128 * 128);
  CHECK(flagCount(one, sk) == 32);
  sk.splits = 1;
  CHECK(workspaceFloats(one, sk) == 0); // one split writes C directly
  // Split-K with a cluster: each row of tiles padded to whole clusters (the
  // padding CTA's partial is written too).
  sk.cluster = 2;
  sk.splits = 3;
  const Problem odd{200, 384, 4096, DType::F16, BMajor::K}; // 2 rows of 3 column tiles
  CHECK(splitKTiles(odd, 128, 1) == 6);
  CHECK(splitKTiles(odd, 128, 2) == 8);
  CHECK(splitTiles(odd, sk) == 8);
  CHECK(ctasOf(odd, sk) == 24);
  CHECK(workspaceFloats(odd, sk) == 3 * 8 * 128 * 128);
  CHECK(flagCount(odd, sk) == 8);
  CHECK(splitKTiles(one, 128, 2) == 32); // 32 column tiles: no padding
}

TEST_CASE("the rule table picks a kernel per shape", "[gemm]") {
  const int sms = 132;
  auto pick = [&](int64_t m, int64_t n, int64_t k) {
    return ruleChoice(Problem{m, n, k, DType::F16, BMajor::K}, sms);
  };
  // M = 41..256, B K-major, clusters of two 64-wide skinny row tiles no more
  // than the SMs: the skinny kernel 64 wide, cluster 2 (B multicast), the
  // smallest MT whose two row tiles cover M.
  Choice c = pick(128, 4096, 4096); // 2 x 64 CTAs of MT 64
  CHECK(c.variant == Variant::Skinny);
  CHECK(c.bn == 64);
  CHECK(c.mt == 64);
  CHECK(c.stages == 12);
  CHECK(c.cluster == 2);
  CHECK(c.splits == 1);
  CHECK(c.why.find("clusters of two row tiles") != std::string::npos);
  CHECK(pick(256, 4096, 4096).mt == 64); // the 64-row tiles (host_test_m64.cpp)
  c = pick(256, 3000, 4096); // 2 x 24 units: 96 CTAs, 3/4 of 132 is 99
  CHECK(c.variant == Variant::Skinny);
  CHECK(c.mt == 128);
  CHECK(c.stages == 7);
  CHECK(c.cluster == 2);
  CHECK(pick(128, 4096, 14336).mt == 64); // M <= 128: any K
  CHECK(pick(128, 4096, 14336).splits == 1);
  c = pick(64, 4096, 4096); // MT 32 in pairs: cuBLAS's 64 x 32 tile
  CHECK(c.mt == 32);
  CHECK(c.stages == 16);
  CHECK(c.cluster == 2);
  c = pick(77, 3000, 5000); // MT 80, its 2 K splits x 2 column tiles in clusters of four
  CHECK(c.mt == 80);
  CHECK(c.dsm);
  CHECK(c.clusterY == 2);
  CHECK(c.splits == 2);
  CHECK(c.stages == 10);
  CHECK(ctasOf(Problem{77, 3000, 5000}, c) == 96); // 24 clusters of four
  CHECK(c.why.find("reduced in shared memory") != std::string::npos);
  c = pick(77, 4096, 5000); // 32 clusters of four: more than 3/4 of the SMs
  CHECK(c.mt == 40); // MT 40 in pairs: 2 x 64 CTAs
  CHECK(c.cluster == 2);
  CHECK(c.splits == 1);
  CHECK(!pick(77, 1024, 5000).dsm); // 8 clusters of four: fewer than half the SMs
  CHECK(!pick(77, 3000, 512).dsm);  // 8 k steps
  CHECK(!pick(64, 3000, 5000).dsm); // M <= 64
  CHECK(pick(65, 4096, 4096).mt == 40);
  CHECK(pick(40, 4096, 4096).cluster == 1); // M <= 40: one row tile
  CHECK(pick(256, 8192, 4096).bn == 128); // 2 x 128 skinny CTAs: more than the SMs
  CHECK(pick(256, 8192, 4096).variant == Variant::Persistent); // 128 tiles of 128 x 128
  // Decode shapes, B K-major, 128 x 64 tiles no more than the SMs (and no
  // pair of skinny row tiles that fits): split-K's BN 64 instance (8 stages,
  // one CTA per SM), splits to fill the SMs.
  c = pick(128, 6144, 8192); // 96 tiles, 128 k steps per CTA: the narrow tile
  CHECK(c.variant == Variant::SplitK);
  CHECK(c.bn == 64);
  CHECK(c.stages == 8);
  CHECK(c.splits == 1);
  CHECK(c.cluster == 1); // the A-multicast pair measured slower at BN 64
  CHECK(c.why.find("64-wide tiles") != std::string::npos);
  c = pick(200, 2048, 16384); // 256 k steps (M > 128: no pair): 64 tiles x 2 splits
  CHECK(c.variant == Variant::SplitK);
  CHECK(c.bn == 64);
  CHECK(c.splits == 2);
  // More than 128 k steps per CTA: split-K at BN 128, its cluster where M
  // has 2 row tiles.
  c = pick(256, 3072, 14336); // 224 steps at BN 64 x1; BN 128: 48 tiles x2
  CHECK(c.variant == Variant::SplitK);
  CHECK(c.bn == 128);
  CHECK(c.splits == 2);
  CHECK(c.cluster == 2); // 2 row tiles: the pairs share A
  // One column tile: no pair to share A (MN-major B: split-K at BN 128).
  CHECK(ruleChoice(Problem{256, 128, 4096, DType::F16, BMajor::MN}, sms).cluster == 1);
  CHECK(ruleChoice(Problem{256, 256, 4096, DType::F16, BMajor::MN}, sms).cluster == 2);
  // More than the SMs in 64-wide tiles: split-K, BN 128, 6 stages.
  c = pick(256, 5120, 8192); // 160 tiles of 64, 80 of 128
  CHECK(c.variant == Variant::SplitK);
  CHECK(c.bn == 128);
  CHECK(c.stages == 6);
  CHECK(c.splits == 1);
  CHECK(c.why.find("128-wide tiles no more than the SMs") != std::string::npos);
  CHECK(pick(128, 14336, 4096).bn == 128); // 224 tiles of 64, 112 of 128
  // MN-major B: split-K's BN 128 instance only.
  c = ruleChoice(Problem{128, 4096, 4096, DType::F16, BMajor::MN}, sms);
  CHECK(c.bn == 128);
  CHECK(c.splits == 4); // 32 tiles
  CHECK(c.stages == 6);
  c = pick(77, 8192, 5000); // no pair (2 x 128 CTAs); MT 80: 64 tiles -> 2 splits
  CHECK(c.variant == Variant::Skinny);
  CHECK(c.mt == 80);
  CHECK(c.splits == 2);
  // M <= 80 with B K-major: the skinny kernel (C^T), the smallest MT >= M.
  c = pick(1, 4096, 4096);
  CHECK(c.variant == Variant::Skinny);
  CHECK(c.mt == 16);
  CHECK(c.stages == 11); // the deepest ring of MT 16
  CHECK(c.bn == kSkinnyBn);
  CHECK(c.cluster == 1);
  CHECK(c.splits == 4); // 32 tiles
  CHECK(c.why.find("M <= 80") != std::string::npos);
  CHECK(pick(16, 4096, 4096) == c);
  CHECK(pick(17, 4096, 4096).mt == 32);
  CHECK(pick(32, 4096, 4096).bn == kSkinnyBn);
  // M = 33..64 with 64-wide tiles no more than the SMs: the skinny kernel 64
  // columns wide (one consumer warpgroup, 12 stages at MT 64).
  c = pick(40, 4096, 4096); // 64 tiles of 40 x 64 -> 2 splits
  CHECK(c.variant == Variant::Skinny);
  CHECK(c.bn == 64);
  CHECK(c.mt == 40);
  CHECK(c.stages == 15);
  CHECK(c.cluster == 1);
  CHECK(c.splits == 2);
  CHECK(c.why.find("64 columns wide") != std::string::npos);
  CHECK(pick(33, 4096, 4096).mt == 40);
  CHECK(pick(33, 4096, 4096).bn == 64);
  CHECK(pick(64, 8192, 8192).bn == 64); // 128 tiles: no split
  CHECK(pick(64, 8192, 8192).splits == 1);
  c = pick(64, 14336, 4096); // 224 tiles of 64 columns: 128 wide (112 tiles)
  CHECK(c.bn == kSkinnyBn);
  CHECK(c.mt == 64);
  CHECK(c.stages == 7);
  CHECK(pick(16, 3000, 5000).splits == 5); // 24 tiles
  CHECK(pick(65, 8192, 4096).mt == 80);
  CHECK(pick(81, 4096, 4096).mt == 64); // a pair of MT 64
  CHECK(pick(81, 8192, 4096).variant == Variant::Persistent); // the 64-row tiles
  CHECK(ruleChoice(Problem{16, 4096, 4096, DType::F16, BMajor::MN}, sms).variant ==
        Variant::SplitK); // the skinny kernel takes B K-major only
  CHECK(pick(16, 14336, 4096).splits == 1);     // 112 tiles fill the SMs alone
  c = pick(256, 14336, 4096); // 224 tiles of 128: the persistent kernel, one round of 224
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.bn == 224); // 64 units of 224 for 66 clusters; 56 of 256
  CHECK(c.cluster == 2);
  CHECK(c.why.find("more 128-wide tiles than SMs") != std::string::npos);
  CHECK(pick(16, 4096, 14336).splits == 4);
  CHECK(pick(16, 4096, 256).splits == 1);       // 4 k steps: no split
  // Large shapes: the persistent kernel, BN 256, cluster 2.
  for (int64_t m : {1024, 4096, 16384}) {
    c = pick(m, 4096, 4096);
    CHECK(c.variant == Variant::Persistent);
    CHECK(c.bn == 256);
    CHECK(c.cluster == 2);
  }
  CHECK(pick(2048, 2048, 2048).bn == 256); // 128 CTAs: fills 3/4 of the SMs
  CHECK(pick(4000, 4000, 4000).bn == 256);
  // Waves: BN 192 where 256-wide units leave the last round's SMs idle.
  c = pick(1000, 3000, 5000); // 15 whole 200-wide tiles: clusters of four, one round of 30
  CHECK(c.bn == 200); // host_test_m64.cpp: BN 200 in clusters of four
  c = pick(1000, 3008, 5000); // 48 units of 256 (96 CTAs), 64 of 192 (128 CTAs)
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.bn == 192);
  CHECK(c.cluster == 2);
  CHECK(persistentRounds(Problem{1024, 14336, 4096}, 256, sms) == 4); // 224 units
  CHECK(persistentRounds(Problem{1024, 14336, 4096}, 224, sms) == 4); // 256 units
  CHECK(persistentRounds(Problem{1024, 14336, 4096}, 192, sms) == 5); // 300 units
  c = pick(1024, 14336, 4096); // 4 x 224 < 5 x 192 < 4 x 256
  CHECK(c.bn == 224);
  CHECK(c.cluster == 2);
  CHECK(c.why.find("224 or 192") != std::string::npos);
  CHECK(pick(1000, 3008, 5000).bn == 192); // one round at 256, 224 and 192: the narrowest
  CHECK(pick(4000, 4000, 4000).bn == 256); // 4 x 256 < 5 x 224 < 6 x 192
  CHECK(pick(8192, 8192, 8192).bn == 256);  // 21 x 192 vs 16 x 256: not 1/16 less
  CHECK(pick(4096, 14336, 4096).bn == 256);
  CHECK(pick(1024, 4096, 4096).bn == 256);
  // BN 224 and 192 are compiled for K-major B only.
  CHECK(ruleChoice(Problem{1024, 14336, 4096, DType::F16, BMajor::MN}, sms).bn == 256);
  CHECK(ruleChoice(Problem{1000, 3000, 5000, DType::F16, BMajor::MN}, sms).bn == 128);
  c = pick(512, 512, 512); // 16 CTAs even at BN 128: split-K
  CHECK(c.variant == Variant::SplitK);
  CHECK(c.splits == 2); // 8 k steps: at most 2 splits of >= 4
  CHECK(c.why.find("few tiles") != std::string::npos);
  // Few tiles past M = 256 where pairs of 64 x 128 tiles fill the SMs: those
  // (host_test_m64.cpp); B M-major (no such kernel): split-K.
  CHECK(pick(1024, 1024, 1024).mt == 64);
  CHECK(ruleChoice(Problem{1024, 1024, 1024, DType::F16, BMajor::MN}, sms).variant ==
        Variant::SplitK);
  // Every shape gets some rule (the last one matches all).
  for (int64_t m : {1, 77, 300, 5000})
    for (int64_t n : {8, 1000, 20000})
      CHECK(!ruleChoice(Problem{m, n, 64, DType::F16, BMajor::K}, sms).why.empty());
}

TEST_CASE("--tune's candidates include the rule's pick and respect the limits", "[gemm]") {
  for (Problem p : {Problem{128, 4096, 4096}, Problem{4096, 4096, 4096}, Problem{512, 512, 512},
                    Problem{77, 3000, 5000}, Problem{16, 4096, 256}}) {
    INFO(p.shape());
    const std::vector<Choice> cs = candidates(p, 132);
    CHECK(std::find(cs.begin(), cs.end(), ruleChoice(p, 132)) != cs.end());
    int persistent = 0, clustered = 0;
    std::set<int64_t> instances;
    for (const Choice &c : cs) {
      persistent += c.variant == Variant::Persistent;
      if (c.variant == Variant::SplitK) {
        CHECK((c.cluster == 1 || c.cluster == 2));
        clustered += c.cluster == 2;
        const SplitKInstance *i = splitKInstance(c.bn, c.stages, p.bmajor);
        REQUIRE(i != nullptr); // a compiled instance
        instances.insert(c.bn * 100 + c.stages);
        CHECK((c.bn == 128 || p.m <= 1024)); // BN 64 for M <= 1024 only
        CHECK((c.splits == 1 || kSteps(p) >= 2 * c.splits));
        CHECK((c.splits == 1 || splitKTiles(p, c.bn, c.cluster) * c.splits <= 4 * i->perSm * 132));
      }
    }
    // BN 256 / 224 / 192 / 128 x cluster 2 / 1, BN 200 in clusters of four,
    // and the 64-row tiles (BN 128 / 256) x cluster 2 / 1 where M <= 1024.
    CHECK(persistent == (p.m <= 1024 ? 13 : 9));
    CHECK(clustered > 0);
    // Every split-K instance (K-major B) where M <= 1024.
    CHECK(instances.size() == (p.m <= 1024 ? splitKInstances().size() : 1));
  }
  // MN-major B: no BN 192 and split-K at BN 128 only; one column tile: no
  // split-K cluster.
  for (const Choice &c : candidates(Problem{128, 4096, 4096, DType::F16, BMajor::MN}, 132)) {
    CHECK(c.bn != 192);
    CHECK(c.bn != 224);
    CHECK((c.variant != Variant::SplitK || (c.bn == 128 && c.stages == 6)));
    CHECK(c.mt == 0); // no 64-row tiles (gemm_m64 takes K-major B)
  }
  for (const Choice &c : candidates(Problem{128, 64, 4096}, 132))
    CHECK((c.variant != Variant::SplitK || c.cluster == 1));
  for (const Choice &c : candidates(Problem{128, 128, 4096}, 132))
    CHECK((c.variant != Variant::SplitK || c.bn == 64 || c.cluster == 1));
  // The skinny kernel: every compiled instance (both widths) whose MT covers
  // M in at most 4 row tiles (K-major B only; the clustered ones where M has
  // 2+ row tiles), its splits within the same limits.
  for (Problem p : {Problem{16, 4096, 4096}, Problem{77, 3000, 5000}, Problem{256, 4096, 4096}}) {
    INFO(p.shape());
    std::set<std::tuple<int64_t, int64_t, int, int>> seen; // (MT, BNS, CL, CY)
    for (const Choice &c : candidates(p, 132))
      if (c.variant == Variant::Skinny && !c.dsm) { // gemm_skinny_dsm: host_test_skinny2d.cpp
        seen.insert({c.mt, c.bn, c.cluster, c.clusterY});
        CHECK(ceilDiv(p.m, c.mt) <= 4);
        CHECK((c.cluster == 1 || ceilDiv(p.m, c.mt) >= 2));
        CHECK(skinnyInstance(c.mt, c.stages, c.bn, c.cluster, c.clusterY) != nullptr);
        CHECK((c.splits == 1 ||
               skinnyTiles(p, c.mt, c.bn, c.cluster, c.clusterY) * c.splits <= 4 * 132));
      }
    for (const SkinnyInstance &i : skinnyInstances())
      if (!i.ks && ceilDiv(p.m, i.mt) <= 4 && (i.cluster == 1 || ceilDiv(p.m, i.mt) >= 2))
        CHECK(seen.count({i.mt, i.bn, i.cluster, i.clusterY}) == 1);
  }
  int skinny = 0, clustered = 0;
  for (const Choice &c : candidates(Problem{16, 4096, 4096}, 132)) {
    skinny += c.variant == Variant::Skinny && !c.dsm;
    clustered += c.variant == Variant::Skinny && c.cluster > 1;
  }
  int single = 0; // the instances without a cluster
  for (const SkinnyInstance &i : skinnyInstances())
    single += i.cluster == 1 && !i.ks;
  CHECK(skinny == single * 6); // 1, 2, 3, 4, 6, 8 splits; M = 16: one row tile, no cluster
  CHECK(clustered == 0);
  // M = 77: MT 32, 40 and 48 in 3, 2 and 2 row tiles, not MT 16 (5); the
  // clusters of two row tiles at MT 32, 40, 48 and 64 (64 wide), not at 80 or
  // 128 (one); the two-dimensional clusters (A shared by 2 or 4 column tiles)
  // at MT 32, 48, 64, 80 and 96 (80, 96: one row tile, CX 1; not 128: one
  // row tile in a cluster of two).
  std::set<int64_t> mts, clusteredMts, twoDMts;
  for (const Choice &c : candidates(Problem{77, 3000, 5000}, 132))
    if (c.variant == Variant::Skinny && !c.dsm) {
      mts.insert(c.mt);
      if (c.cluster > 1)
        clusteredMts.insert(c.mt);
      if (c.clusterY > 1)
        twoDMts.insert(c.mt);
    }
  CHECK(mts == std::set<int64_t>{32, 40, 48, 64, 80, 96, 128});
  CHECK(clusteredMts == std::set<int64_t>{32, 40, 48, 64});
  CHECK(twoDMts == std::set<int64_t>{32, 48, 64, 80, 96});
  for (Problem q : {Problem{16, 4096, 4096, DType::F16, BMajor::MN}, Problem{600, 4096, 4096}})
    for (const Choice &c : candidates(q, 132))
      CHECK(c.variant != Variant::Skinny);
}

TEST_CASE("the tune cache round-trips and skips bad lines", "[gemm]") {
  const std::string path = "gemm_host_test_cache.txt";
  TuneCache c;
  const Problem p{128, 4096, 4096, DType::BF16, BMajor::MN};
  CacheEntry e;
  e.choice.variant = Variant::SplitK;
  e.choice.cluster = 1;
  e.choice.bn = 128;
  e.choice.splits = 4;
  e.choice.stages = 6;
  e.us = 12.25;
  c.entries[cacheKey(p)] = e;
  REQUIRE(c.save(path));
  CHECK(cacheLine(p, e) == "bf16 mn 128x4096x4096 splitk 128 1 4 6 0 12.25");
  const Problem q{16, 4096, 4096, DType::F16, BMajor::K};
  CacheEntry sk;
  sk.choice.variant = Variant::Skinny;
  sk.choice.cluster = 1;
  sk.choice.bn = kSkinnyBn;
  sk.choice.splits = 4;
  sk.choice.stages = 11;
  sk.choice.mt = 16;
  sk.us = 10.5;
  c.entries[cacheKey(q)] = sk;
  REQUIRE(c.save(path));
  CHECK(cacheLine(q, sk) == "f16 k 16x4096x4096 skinny 128 1 4 11 16 10.50");
  {
    std::ofstream f(path, std::ios::app);
    f << "\n# a comment\n"
      << "f16 k 1x2x3 persistent 96 2 1 4 1.0\n"  // BN 96: out of range
      << "f16 mn 1x2x3 persistent 192 2 1 4 1.0\n" // BN 192 with MN-major B
      << "f16 k 1x2x3 splitk 192 2 1 6 1.0\n"     // BN 192 on split-K
      << "f16 k 4x4x4 splitk 128 2 3 6 2.0\n"     // split-K with its cluster: fine
      << "f16 k 5x5x5 persistent 192 2 1 5 2.0\n" // BN 192, K-major (5 stages): fine
      << "f16 k 1x2x3 splitk 128 2 1 4 1.0\n"     // split-K with 4 stages
      << "f16 k 1x2x3 splitk 256 1 2 6 1.0\n"     // split-K at BN 256: not compiled
      << "f16 k 1x2x3 persistent 256 2 3 4 1.0\n" // the persistent kernel with splits
      << "f16 k 1x2x3 persistent 256 2 1 4\n"     // a field missing
      << "f16 k 8x8x8 persistent 256 2 1 4 3.5\n"         // the older form: no MT
      << "f16 k 1x2x3 skinny 128 1 4 11 56 1.0\n"         // MT 56: not compiled
      << "f16 mn 1x2x3 skinny 128 1 4 11 16 1.0\n"        // skinny with MN-major B
      << "f16 k 1x2x3 splitk 128 1 4 6 16 1.0\n"          // MT on split-K
      << "f16 k 1x2x3 splitk 128 1 4 6 0 x\n"             // a time that is no number
      << "f16 k 6x6x6 splitk 64 2 1 8 0 4.0\n"            // BN 64, 8 stages: fine
      << "f16 k 7x7x7 splitk 64 1 3 4 0 4.0\n"            // BN 64, two CTAs per SM: fine
      << "f16 mn 1x2x3 splitk 64 1 1 8 0 1.0\n"           // BN 64 with MN-major B
      << "f16 k 1x2x3 splitk 64 1 1 6 0 1.0\n"            // BN 64 with 6 stages
      << "f16 k 1x2x3 persistent 64 1 1 4 0 1.0\n"        // BN 64 on the persistent kernel
      << "f16 k 9x9x9 skinny 64 1 2 15 40 3.0\n"          // skinny, 40 x 64 tiles: fine
      << "f16 k 1x2x3 skinny 64 1 2 11 40 1.0\n"          // MT 40 at 64 wide has 15 stages
      << "f16 k 1x2x3 skinny 128 1 2 15 40 1.0\n"         // MT 40 is compiled 64 wide only
      << "f16 k 10x10x10 persistent 224 2 1 4 0 2.0\n"    // BN 224, K-major: fine
      << "f16 mn 1x2x3 persistent 224 2 1 4 0 1.0\n"      // BN 224 with MN-major B
      << "f16 k 1x2x3 splitk 224 1 2 6 0 1.0\n"           // BN 224 on split-K
      << "f16 k 11x11x11 skinny 64 2 1 15 40 2.0\n"       // skinny, cluster 2: fine
      << "f16 k 1x2x3 skinny 64 2 1 11 80 1.0\n"          // MT 80 has no cluster-2 instance
      << "f16 k 1x2x3 persistent 128 2 1 4 0 1.0\n";      // K-major BN 128 has 6 stages
  }
  TuneCache back;
  back.load(path);
  REQUIRE(back.entries.size() == 10);
  REQUIRE(back.find(Problem{11, 11, 11}) != nullptr);
  CHECK(back.find(Problem{11, 11, 11})->choice.cluster == 2);
  CHECK(back.find(Problem{11, 11, 11})->choice.mt == 40);
  REQUIRE(back.find(Problem{9, 9, 9}) != nullptr);
  CHECK(back.find(Problem{9, 9, 9})->choice.bn == 64);
  CHECK(back.find(Problem{9, 9, 9})->choice.mt == 40);
  REQUIRE(back.find(Problem{10, 10, 10}) != nullptr);
  CHECK(back.find(Problem{10, 10, 10})->choice.bn == 224);
  REQUIRE(back.find(Problem{6, 6, 6}) != nullptr);
  CHECK(back.find(Problem{6, 6, 6})->choice.stages == 8);
  REQUIRE(back.find(Problem{7, 7, 7}) != nullptr);
  CHECK(back.find(Problem{7, 7, 7})->choice.stages == 4);
  REQUIRE(back.find(Problem{4, 4, 4}) != nullptr);
  CHECK(back.find(Problem{4, 4, 4})->choice.cluster == 2);
  REQUIRE(back.find(Problem{5, 5, 5}) != nullptr);
  CHECK(back.find(Problem{5, 5, 5})->choice.bn == 192);
  const CacheEntry *gotSkinny = back.find(q);
  REQUIRE(gotSkinny != nullptr);
  CHECK(gotSkinny->choice == sk.choice);
  const CacheEntry *got = back.find(p);
  REQUIRE(got != nullptr);
  CHECK(got->choice == e.choice);
  CHECK(got->us == Approx(12.25));
  CHECK(back.find(Problem{8, 8, 8, DType::F16, BMajor::K}) != nullptr);
  CHECK(back.find(Problem{8, 8, 8, DType::BF16, BMajor::K}) == nullptr); // keyed by dtype too
  REQUIRE(back.problems.size() == 20);
  CHECK(back.problems[0].find(path + ":6: a value out of range") == 0);
  CHECK(back.problems[1].find(path +
                              ":7: BN 192 and 224 are the persistent kernel's with B K-major") == 0);
  CHECK(back.problems[2].find(path + ":8: BN 192 and 224 are the persistent kernel's") == 0);
  CHECK(back.problems[3].find(path + ":11: split-K runs at BN 128 with 6 stages") == 0);
  CHECK(back.problems[4].find(path + ":12: split-K runs at BN 128 with 6 stages") == 0);
  CHECK(back.problems[5].find("the persistent kernel has 1 split and the stages of its BN") !=
        std::string::npos);
  CHECK(back.problems[6].find("expected 'dtype bmajor MxNxK") != std::string::npos);
  CHECK(back.problems[7].find("a compiled (MT, stages, BN, cluster) instance") !=
        std::string::npos);
  CHECK(back.problems[8].find("the skinny kernel takes B K-major") != std::string::npos);
  CHECK(back.problems[9].find("MT is the skinny kernel's") != std::string::npos);
  CHECK(back.problems[10].find("expected 'dtype bmajor MxNxK") != std::string::npos);
  CHECK(back.problems[11].find(":22: split-K runs at BN 128 with 6 stages, or (B K-major)") !=
        std::string::npos);
  CHECK(back.problems[12].find(":23: split-K runs at BN 128") != std::string::npos);
  CHECK(back.problems[13].find(":24: BN 64 is split-K's") != std::string::npos);
  CHECK(back.problems[14].find(":26: the skinny kernel takes B K-major and a compiled "
                               "(MT, stages, BN, cluster)") != std::string::npos);
  CHECK(back.problems[15].find(":27: the skinny kernel takes") != std::string::npos);
  CHECK(back.problems[16].find(":29: BN 192 and 224 are the persistent kernel's with B K-major") !=
        std::string::npos);
  CHECK(back.problems[17].find(":30: BN 192 and 224 are the persistent kernel's") !=
        std::string::npos);
  CHECK(back.problems[18].find(":32: the skinny kernel takes B K-major and a compiled") !=
        std::string::npos);
  CHECK(back.problems[19].find(":33: the persistent kernel has 1 split and the stages") !=
        std::string::npos);
  // The persistent kernel's ring: gemm (K-major B) the deepest that fits
  // beside its output tile, gemm_bmn 4.
  CHECK(persistentStages(256, BMajor::K) == 4);
  CHECK(persistentStages(224, BMajor::K) == 4);
  CHECK(persistentStages(192, BMajor::K) == 5);
  CHECK(persistentEpilogueCols(192) == 96);
  CHECK(persistentStages(128, BMajor::K) == 6);
  CHECK(persistentStages(128, BMajor::MN) == 4);
  CHECK(persistentWith(128, BMajor::K).stages == 6);
  CHECK(describe(persistentWith(192)).find("BN 192, cluster 2 (B multicast), 5 stages") !=
        std::string::npos);
  for (int64_t bn : {256, 224, 200, 192, 128}) // each ring fits with `out` (and 1 KB)
    CHECK(persistentStages(bn, BMajor::K) * (kTileM + persistentBRows(bn)) * kTileK * 2 +
              kTileM * persistentEpilogueCols(bn) * 2 + 1024 <=
          232448);
  // The cache wins over the rule; the rule answers for shapes it lacks.
  const Choice tuned = chooseFor(p, 132, &back);
  CHECK(tuned == e.choice);
  CHECK(tuned.why.find("tuned (cache: 12.25 us)") == 0);
  const Problem other{4096, 4096, 4096, DType::BF16, BMajor::MN};
  CHECK(chooseFor(other, 132, &back).why.find("rule: ") == 0);
  std::remove(path.c_str());
}

TEST_CASE("kernel instances are found from the kernel info", "[gemm]") {
  tile::ModuleInfo info;
  for (int64_t bn : {128, 256}) {
    tile::KernelInfo k;
    k.sourceName = "gemm";
    k.templateArgs = {{"BN", bn}};
    k.name = tile::mangledKernelName("gemm", k.templateArgs);
    k.cluster = tile::KernelInfo::Cluster::Fixed;
    k.clusterDims = {2, 1, 1};
    info.kernels.push_back(k);
  }
  KernelShape best = kernelShapeFromInfo(info, "gemm", 0, "x.ptx");
  CHECK(best.bn == 256);
  CHECK(best.cluster == 2);
  CHECK(best.entry == "gemm$BN256");
  CHECK(kernelShapeFromInfo(info, "gemm", 128, "x.ptx").entry == "gemm$BN128");
  CHECK_THROWS_WITH(kernelShapeFromInfo(info, "gemm", 64, "x.ptx"),
                    Catch::Contains("no instance of kernel 'gemm' with BN = 64") &&
                        Catch::Contains("gemm$BN128"));
  CHECK_THROWS_WITH(kernelShapeFromInfo(info, "gemm_bmn", 0, "x.ptx"),
                    Catch::Contains("none compiled"));
  CHECK(ptxName(DType::BF16, false) == "gemm_bf16_nomc.ptx");
  Choice sk;
  sk.variant = Variant::SplitK;
  CHECK(kernelName(Choice{}, BMajor::MN) == "gemm_bmn");
  CHECK(kernelName(sk, BMajor::K) == "gemm_splitk");
  CHECK(kernelName(sk, BMajor::MN) == "gemm_splitk_bmn");
  CHECK(usesMulticastPtx(Choice{}));
  sk.cluster = 1;
  CHECK(!usesMulticastPtx(sk));
  sk.cluster = 2; // split-K's A multicast is in the _mc PTX too
  CHECK(usesMulticastPtx(sk));
  Choice skinny;
  skinny.variant = Variant::Skinny;
  skinny.mt = 16;
  skinny.stages = 11;
  skinny.bn = kSkinnyBn;
  CHECK(kernelName(skinny, BMajor::K) == "gemm_skinny");
  CHECK(!usesMulticastPtx(skinny));
  skinny.cluster = 1;
  CHECK(instanceArgs(skinny, BMajor::K) ==
        tile::TemplateArgs{{"MT", 16}, {"S", 11}, {"BNS", 128}, {"CL", 1}});
  skinny.mt = 40;
  skinny.stages = 15;
  skinny.bn = 64;
  skinny.cluster = 2; // B multicast, in the one skinny PTX
  CHECK(!usesMulticastPtx(skinny));
  CHECK(instanceArgs(skinny, BMajor::K) ==
        tile::TemplateArgs{{"MT", 40}, {"S", 15}, {"BNS", 64}, {"CL", 2}});
  CHECK(describe(skinny).find("40 x 64 tiles, cluster 2 (B multicast)") != std::string::npos);
  CHECK(instanceArgs(Choice{}, BMajor::K) == tile::TemplateArgs{{"BN", 256}});
  // gemm_splitk (K-major B) is named by BN, stages and CTAs per SM;
  // gemm_splitk_bmn by BN.
  sk.bn = 128;
  sk.stages = 6;
  CHECK(instanceArgs(sk, BMajor::K) == tile::TemplateArgs{{"BN", 128}, {"S", 6}, {"NB", 1}});
  CHECK(instanceArgs(sk, BMajor::MN) == tile::TemplateArgs{{"BN", 128}});
  sk.bn = 64;
  sk.stages = 4;
  CHECK(instanceArgs(sk, BMajor::K) == tile::TemplateArgs{{"BN", 64}, {"S", 4}, {"NB", 2}});
  CHECK(splitKInstance(64, 8, BMajor::K) != nullptr);
  CHECK(splitKInstance(64, 8, BMajor::MN) == nullptr);
  CHECK(splitKInstance(128, 6, BMajor::MN) != nullptr);
  CHECK(describe(sk).find("2 CTAs per SM") != std::string::npos);
  CHECK(skinnyPtxName(DType::F16) == "gemm_skinny_f16.ptx");
}

TEST_CASE("the skinny kernel's tiles, workspace and instances", "[gemm]") {
  const Problem p{77, 3000, 5000, DType::F16, BMajor::K};
  CHECK(skinnyTiles(p, 128, 128) == 24);    // one row tile of 128 >= 77, 24 column tiles
  CHECK(skinnyTiles(p, 16, 128) == 5 * 24); // 77 rows in 16-row tiles
  CHECK(skinnyTiles(p, 40, 64) == 2 * 47);  // 64-wide: 47 column tiles (cuBLAS's 94 CTAs)
  // Clusters of two row tiles: the row tiles padded to whole clusters.
  CHECK(skinnyTiles(p, 40, 64, 2) == 2 * 47);
  CHECK(skinnyTiles(p, 32, 64, 2) == 4 * 47); // 3 row tiles of 32, padded to 4
  CHECK(skinnyTiles(Problem{1, 8, 1032}, 32, 64, 2) == 2);
  Choice c;
  c.variant = Variant::Skinny;
  c.bn = kSkinnyBn;
  c.cluster = 1;
  c.mt = 128;
  c.stages = 6;
  c.splits = 3;
  CHECK(splitTiles(p, c) == 24);
  CHECK(ctasOf(p, c) == 72);
  CHECK(workspaceFloats(p, c) == 3 * 24 * 128 * 128); // every split writes its partial
  c.splits = 1;
  CHECK(workspaceFloats(p, c) == 0); // one split transposes its sum in shared memory
  CHECK(flagCount(p, c) == 24);
  c.bn = 64; // MT 32 in clusters of two: 3 row tiles padded to 4
  c.mt = 32;
  c.stages = 16;
  c.cluster = 2;
  c.splits = 2;
  CHECK(splitTiles(p, c) == 4 * 47);
  CHECK(ctasOf(p, c) == 2 * 4 * 47);
  CHECK(workspaceFloats(p, c) == 2 * 4 * 47 * 32 * 64);
  CHECK(flagCount(p, c) == 4 * 47);
  c.clusterY = 4; // and 4 column tiles sharing A: 47 column tiles padded to 48
  CHECK(splitTiles(p, c) == 4 * 48);
  CHECK(ctasOf(p, c) == 2 * 4 * 48);
  CHECK(workspaceFloats(p, c) == 2 * 4 * 48 * 32 * 64);
  CHECK(flagCount(p, c) == 4 * 48);
  // Every instance is K-major (B [N, K]) with MT a wgmma N (a multiple of 8,
  // at most 256), BNS 64 per consumer warpgroup (one or two) and a ring that
  // fits the 227 KB of shared memory with `out` and `red`.
  for (const SkinnyInstance &i : skinnyInstances()) {
    INFO(i.mt << " " << i.stages << " " << i.bn << " " << i.cluster << " " << i.clusterY << " "
                << i.ks);
    CHECK(i.mt % 8 == 0);
    CHECK(i.mt <= 256);
    CHECK((i.bn == 64 || i.bn == 128));
    const int64_t stage = (i.bn + i.mt) * kTileK * 2, out = i.mt * i.bn / 2 * 2,
                  red = i.bn * i.mt * 4;
    CHECK(i.stages * stage + out + red + 2 * 8 * i.stages + 16 <= 227 * 1024);
    CHECK(skinnyInstance(i.mt, i.stages, i.bn, i.cluster, i.clusterY, i.ks) == &i);
    // A cluster shares B by multicast: each of its CTAs loads BNS / CL rows
    // of the B tile, a whole number of 8-row swizzle atoms (PTX ISA,
    // cp.async.bulk.tensor .multicast::cluster; docs/reference/tma-and-rings.md).
    CHECK((i.cluster == 1 || i.cluster == 2));
    CHECK(i.bn / i.cluster % 8 == 0);
    // A two-dimensional cluster shares A too: each of its CTAs loads MT / CY
    // rows of the A tile, whole swizzle atoms; at most 8 CTAs (the portable
    // cluster size).
    CHECK((i.clusterY == 1 || i.clusterY == 2 || i.clusterY == 4));
    CHECK(i.mt / i.clusterY % 8 == 0);
    CHECK(i.cluster * i.clusterY <= 8);
  }
  // The instance for M rows: the smallest MT >= M of that width, its deepest
  // ring; --mt names one.
  CHECK(skinnyInstanceFor(1, 128)->mt == 16);
  CHECK(skinnyInstanceFor(1, 128)->stages == 11);
  CHECK(skinnyInstanceFor(33, 64)->mt == 40);
  CHECK(skinnyInstanceFor(81, 64)->mt == 128);
  CHECK(skinnyInstanceFor(81, 128) == nullptr);
  CHECK(skinnyInstanceFor(0, 64, 32)->stages == 16);
  CHECK(skinnyInstanceFor(0, 128, 40) == nullptr);
  // With a cluster of two: the smallest MT whose two row tiles cover M.
  CHECK(skinnyInstanceFor(77, 64, 0, 2)->mt == 40);
  CHECK(skinnyInstanceFor(64, 64, 0, 2)->mt == 32);
  CHECK(skinnyInstanceFor(1, 64, 0, 2)->mt == 32);
  CHECK(skinnyInstanceFor(256, 64, 0, 2)->mt == 128);
  CHECK(skinnyInstanceFor(0, 128, 16, 2) == nullptr);
}
