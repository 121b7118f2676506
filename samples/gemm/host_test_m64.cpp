// host_test_m64.cpp - the persistent kernel's 64-row tiles (gemm_m64, one
// consumer warpgroup, pairs of row tiles sharing B) and the persistent kernel
// at BN 128 on the host: the rules that pick them, their rings, units and
// names, --variant persistent --mt 64's cache lines; BN 200 in clusters of four
// (gemm_<dtype>_mc4.ptx). No device.
#include <catch2/catch.hpp>

#include "gemm_choice.h"
#include "gemm_common.h"

#include <cstdio>
#include <fstream>
#include <string>

using namespace gemm;

TEST_CASE("the 64-row tiles and BN 128 in the rule table (M > 80)", "[gemm]") {
  const int sms = 132;
  auto pick = [&](int64_t m, int64_t n, int64_t k) {
    return ruleChoice(Problem{m, n, k, DType::F16, BMajor::K}, sms);
  };
  Choice c;
  c = pick(256, 4096, 4096); // 64-row tiles: 2 x 64 CTAs in clusters of 2, 64 k steps
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.mt == 64);
  CHECK(c.bn == 128);
  CHECK(c.stages == 9);
  CHECK(c.cluster == 2);
  CHECK(c.why.find("64 x 128 tiles") != std::string::npos);
  CHECK(kernelName(c, BMajor::K) == "gemm_m64");
  CHECK(ctasOf(Problem{256, 4096, 4096}, c) == 128);
  c = pick(200, 4096, 4096); // the same tiles, the last row tile partly past M
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.mt == 64);
  CHECK(pick(256, 2048, 4096).variant != Variant::Persistent); // 64 CTAs: half the SMs
  CHECK(pick(256, 4096, 14336).mt == 64);                      // any K
  c = pick(128, 8192, 8192); // M = 81..128: one row of clusters, 2 x 64 CTAs
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.mt == 64);
  CHECK(pick(81, 8192, 4096).mt == 64);
  CHECK(pick(80, 8192, 4096).variant == Variant::Skinny); // M <= 80: the skinny kernel
  CHECK(pick(128, 4096, 4096).variant == Variant::Skinny); // 2 x 32 CTAs: the skinny pairs
  // Past M = 256, the shapes with few tiles: 2 x 8 x 8 CTAs at 1024 x 1024
  // (any K); 2048 x 1024 has 256 (the persistent rules' shapes).
  for (int64_t k : {1024, 4096}) {
    c = pick(1024, 1024, k);
    CHECK(c.mt == 64);
    CHECK(c.bn == 128);
    CHECK(c.cluster == 2);
  }
  CHECK(pick(2048, 1024, 1024).mt == 0);
  CHECK(pick(512, 512, 512).variant == Variant::SplitK); // 2 x 4 x 4 CTAs: a few SMs
  // M = 129..256, 128 x 128 tiles filling the SMs in one round: the
  // persistent kernel at BN 128, cluster 2.
  c = pick(256, 8192, 8192); // 2 x 64 tiles
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.bn == 128);
  CHECK(c.mt == 0);
  CHECK(c.stages == 6);
  CHECK(c.cluster == 2);
  CHECK(c.why.find("128 x 128 tiles fill the SMs") != std::string::npos);
  CHECK(pick(128, 8192, 8192).mt == 64); // M <= 128: the 64-row tiles
  CHECK(ruleChoice(Problem{256, 8192, 8192, DType::F16, BMajor::MN}, sms).variant ==
        Variant::SplitK);
  CHECK(ruleChoice(Problem{256, 4096, 4096, DType::F16, BMajor::MN}, sms).mt == 0);
  c = pick(250, 4000, 4000); // 63 k steps, 2 x 32 units
  CHECK(c.mt == 64);
  c = pick(129, 4096, 4096); // M = 129..256: the 64-row tiles, 2 x 64 CTAs
  CHECK(c.mt == 64);
}

TEST_CASE("the 64-row tiles: ring, units, names and cache lines", "[gemm]") {
  CHECK(persistentStages(128, BMajor::K, kTileM64) == 9); // gemm_m64: 64-row tiles
  CHECK(persistentStages(128, BMajor::K, kTileM64) * (kTileM64 + 128) * kTileK * 2 +
            kTileM64 * 128 + 1024 <=
        232448);
  CHECK(persistentM64().stages == 9);
  CHECK(persistentM64(2, 256).stages == 5);
  CHECK(persistentStages(256, BMajor::K, kTileM64) * (kTileM64 + 256) * kTileK * 2 +
            kTileM64 * 256 + 1024 <=
        232448);
  CHECK(describe(persistentM64()) == "persistent 64 x BN 128, cluster 2 (B multicast), 9 stages");
  CHECK(persistentUnits(Problem{256, 4096, 4096}, 128, 2, kTileM64) == 2 * 32);
  CHECK(persistentUnits(Problem{130, 264, 1000}, 128, 2, kTileM64) == 2 * 3); // edge tiles
  CHECK(cacheLine(Problem{256, 4096, 4096}, CacheEntry{persistentM64(1), 17.5}) ==
        "f16 k 256x4096x4096 persistent 128 1 1 9 64 17.50");
  // Cache lines: MT 64 on the persistent kernel is the 64-row tiles (BN 128
  // or 256, 9 or 5 stages, K-major B); anything else with MT is skipped.
  const std::string path = "gemm_host_test_m64_cache.txt";
  {
    std::ofstream f(path);
    f << "f16 k 12x12x12 persistent 128 2 1 9 64 2.0\n"  // 64-row tiles (gemm_m64): fine
      << "bf16 k 13x13x13 persistent 256 1 1 5 64 2.0\n" // BN 256, no cluster: fine
      << "f16 mn 1x2x3 persistent 128 2 1 4 64 1.0\n"    // 64-row tiles with MN-major B
      << "f16 k 1x2x3 persistent 128 2 1 6 64 1.0\n"     // 64-row tiles have 9 stages
      << "f16 k 1x2x3 persistent 192 2 1 5 64 1.0\n";    // 64-row tiles at BN 192
  }
  TuneCache back;
  back.load(path);
  std::remove(path.c_str());
  REQUIRE(back.entries.size() == 2);
  REQUIRE(back.find(Problem{12, 12, 12}) != nullptr);
  CHECK(back.find(Problem{12, 12, 12})->choice == persistentM64(2));
  REQUIRE(back.find(Problem{13, 13, 13, DType::BF16, BMajor::K}) != nullptr);
  CHECK(back.find(Problem{13, 13, 13, DType::BF16, BMajor::K})->choice == persistentM64(1, 256));
  REQUIRE(back.problems.size() == 3);
  CHECK(back.problems[0].find(":3: MT is the skinny kernel's, or 64 for the persistent") !=
        std::string::npos);
  CHECK(back.problems[1].find(":4: the persistent kernel has 1 split and the stages") !=
        std::string::npos);
  CHECK(back.problems[2].find(":5: MT is the skinny kernel's, or 64") != std::string::npos);
}

TEST_CASE("BN 200 in clusters of four: the rule, the ring, the PTX and cache lines", "[gemm]") {
  const int sms = 132;
  const Choice c = ruleChoice(Problem{1000, 3000, 5000, DType::F16, BMajor::K}, sms);
  CHECK(c.variant == Variant::Persistent);
  CHECK(c.bn == 200);
  CHECK(c.cluster == 4);
  CHECK(c.stages == 4);
  CHECK(c.why.find("cluster 4") != std::string::npos);
  CHECK(persistentUnits(Problem{1000, 3000, 5000}, 200, 4) == 30); // one round of 30
  CHECK(quadFits(Problem{1024, 3000, 4096}, sms));
  CHECK(!quadFits(Problem{1500, 3000, 4096}, sms)); // 3 x 15 clusters of four: two rounds
  CHECK(!quadFits(Problem{256, 3000, 4096}, sms));  // M <= 256: the small-M rules
  CHECK(!quadFits(Problem{1000, 3200, 4096}, sms)); // N a multiple of 256 too
  CHECK(!quadFits(Problem{1000, 3000, 5000, DType::F16, BMajor::MN}, sms));
  CHECK(!quadFits(Problem{1000, 3000 + 8, 5000}, sms));
  CHECK(!quadFits(Problem{4000, 4000, 4000}, sms)); // 8 x 20 clusters of four
  CHECK(persistentStages(200, BMajor::K) == 4); // 224-row B tile, 5 slices of 40 columns
  CHECK(persistentEpilogueCols(200) == 40);
  CHECK(persistentBRows(200) == 224); // a quarter: 56 rows, 7 whole swizzle atoms
  CHECK(persistentBRows(192) == 192);
  CHECK(persistentStages(200, BMajor::K) * (kTileM + persistentBRows(200)) * kTileK * 2 +
            kTileM * persistentEpilogueCols(200) * 2 + 1024 <=
        232448);
  CHECK(describe(c) == "persistent BN 200, cluster 4 (B multicast), 4 stages");
  {
    // BN 200 is the persistent kernel's in clusters of four (K-major B).
    std::string key, error;
    CacheEntry e200;
    CHECK(parseCacheLine("f16 k 1000x3000x5000 persistent 200 4 1 4 0 48.3", key, e200, error));
    CHECK(e200.choice == persistentQuad());
    CHECK_FALSE(parseCacheLine("f16 k 1000x3000x5000 persistent 200 2 1 4 0 49.0", key, e200,
                               error));
    CHECK(error.find("BN 200 is the persistent kernel's in clusters of four") == 0);
    CHECK_FALSE(parseCacheLine("f16 k 1000x3000x5000 persistent 192 4 1 5 0 49.0", key, e200,
                               error));
    CHECK_FALSE(parseCacheLine("f16 mn 1000x3000x5000 persistent 200 4 1 4 0 49.0", key, e200,
                               error));
    CHECK_FALSE(parseCacheLine("f16 k 1000x3000x5000 splitk 128 4 2 6 0 49.0", key, e200,
                               error));
    CHECK(cacheLine(Problem{1000, 3000, 5000}, CacheEntry{persistentQuad(), 48.3}) ==
          "f16 k 1000x3000x5000 persistent 200 4 1 4 0 48.30");
    CHECK(ptxName(DType::F16, true, ptxCluster(persistentQuad())) == "gemm_f16_mc4.ptx");
    CHECK(ptxName(DType::BF16, true, ptxCluster(persistentWith(192))) == "gemm_bf16_mc.ptx");
  }
}
