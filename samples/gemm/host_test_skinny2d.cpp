// host_test_skinny2d.cpp - the skinny kernel's two-dimensional clusters
// (gemm_skinny2d: CX row tiles sharing B x CY column tiles sharing A) on the
// host: instance names, tiles, --tune candidates and tune-cache lines.
// No device.
#include <catch2/catch.hpp>

#include "gemm_choice.h"
#include "gemm_common.h"

#include <cstdio>
#include <fstream>
#include <set>

using namespace gemm;

TEST_CASE("the skinny kernel's two-dimensional clusters", "[gemm]") {
  Choice skinny;
  skinny.variant = Variant::Skinny;
  skinny.bn = 64;
  skinny.cluster = 2;
  skinny.mt = 48;
  skinny.stages = 15;
  skinny.clusterY = 2;
  // gemm_skinny2d, in the one skinny PTX, named by CX and CY.
  CHECK(kernelName(skinny, BMajor::K) == "gemm_skinny2d");
  CHECK(!usesMulticastPtx(skinny));
  CHECK(instanceArgs(skinny, BMajor::K) ==
        tile::TemplateArgs{{"MT", 48}, {"S", 15}, {"BNS", 64}, {"CX", 2}, {"CY", 2}});
  CHECK(describe(skinny).find("48 x 64 tiles, cluster 2 x 2 (B and A multicast)") !=
        std::string::npos);
  skinny.mt = 80; // one row tile: only A is shared
  skinny.stages = 11;
  skinny.cluster = 1;
  CHECK(describe(skinny).find("80 x 64 tiles, cluster 1 x 2 (A multicast)") != std::string::npos);
  // The tiles: row tiles padded to whole CX, column tiles to whole CY (77 x
  // 3000: 2 x 47 -> 2 x 48 at CY 2 or 4; MT 32: 3 -> 4 row tiles; N = 8: one
  // column tile padded to 2).
  CHECK(skinnyTiles(Problem{77, 3000, 5000}, 48, 64, 2, 2) == 2 * 48);
  CHECK(skinnyTiles(Problem{77, 3000, 5000}, 32, 64, 2, 4) == 4 * 48);
  CHECK(skinnyTiles(Problem{1, 8, 1032}, 16, 128, 1, 2) == 1 * 2);
  // --tune: a two-dimensional cluster needs 2 CY column tiles or more: N =
  // 200 (4 column tiles of 64) takes CY 2, not CY 4.
  bool cy2 = false;
  for (const Choice &c : candidates(Problem{64, 200, 1000}, 132)) {
    CHECK((c.variant != Variant::Skinny || c.clusterY <= 2));
    cy2 = cy2 || c.clusterY == 2;
  }
  CHECK(cy2);
}

TEST_CASE("the tune cache reads and writes two-dimensional clusters", "[gemm]") {
  CacheEntry twoD;
  twoD.choice.variant = Variant::Skinny;
  twoD.choice.cluster = 2;
  twoD.choice.clusterY = 4;
  twoD.choice.bn = 64;
  twoD.choice.mt = 32;
  twoD.choice.stages = 16;
  twoD.us = 11.0;
  const Problem p{64, 4096, 4096};
  CHECK(cacheLine(p, twoD) == "f16 k 64x4096x4096 skinny 64 2x4 1 16 32 11.00");
  const std::string path = "gemm_host_test_cache_2d.txt";
  TuneCache c;
  c.entries[cacheKey(p)] = twoD;
  REQUIRE(c.save(path));
  {
    std::ofstream f(path, std::ios::app);
    f << "f16 k 12x12x12 skinny 64 2x2 1 15 48 2.0\n" // skinny, cluster 2 x 2: fine
      << "f16 k 1x2x3 skinny 64 2x3 1 15 48 1.0\n"    // CY 3: not compiled
      << "f16 k 1x2x3 splitk 128 2x2 1 6 0 1.0\n"     // a 2-D cluster on split-K
      << "f16 k 1x2x3 skinny 64 2x4 1 15 48 1.0\n"    // MT 48 has no 2 x 4 instance
      << "f16 k 1x2x3 skinny 64 2 1 15 48 1.0\n";     // MT 48 is compiled 2 x 2 only
  }
  TuneCache back;
  back.load(path);
  std::remove(path.c_str());
  REQUIRE(back.entries.size() == 2);
  REQUIRE(back.find(p) != nullptr);
  CHECK(back.find(p)->choice == twoD.choice);
  REQUIRE(back.find(Problem{12, 12, 12}) != nullptr);
  CHECK(back.find(Problem{12, 12, 12})->choice.cluster == 2);
  CHECK(back.find(Problem{12, 12, 12})->choice.clusterY == 2);
  CHECK(back.find(Problem{12, 12, 12})->choice.mt == 48);
  REQUIRE(back.problems.size() == 4);
  CHECK(back.problems[0].find(":4: a cluster CLxCY (2-D) is the skinny kernel's, CY 2 or 4") !=
        std::string::npos);
  CHECK(back.problems[1].find(":5: a cluster CLxCY (2-D) is the skinny kernel's") !=
        std::string::npos);
  CHECK(back.problems[2].find(":6: the skinny kernel takes B K-major and a compiled") !=
        std::string::npos);
  CHECK(back.problems[3].find(":7: the skinny kernel takes B K-major and a compiled") !=
        std::string::npos);
}

TEST_CASE("the skinny kernel's K splits in one cluster (gemm_skinny_dsm)", "[gemm]") {
  const SkinnyInstance *i = skinnyInstanceFor(77, 64, 0, 1, 2, 2);
  REQUIRE(i != nullptr);
  CHECK(i->mt == 80);
  CHECK(skinnyInstanceFor(77, 64, 0, 1, 2) != i); // gemm_skinny2d's MT 80 in 1 x 2
  const Choice c = skinnyDsm(*i);
  CHECK(kernelName(c, BMajor::K) == "gemm_skinny_dsm");
  CHECK(instanceArgs(c, BMajor::K) ==
        tile::TemplateArgs{{"MT", 80}, {"S", 10}, {"BNS", 64}, {"KS", 2}, {"CY", 2}});
  CHECK(describe(c).find("reduced in shared memory") != std::string::npos);
  // No workspace, no flags; the CTAs: 47 column tiles padded to 48, x 2 splits.
  const Problem p{77, 3000, 5000};
  CHECK(workspaceFloats(p, c) == 0);
  CHECK(flagCount(p, c) == 0);
  CHECK(ctasOf(p, c) == 48 * 2);
  // --tune: one row tile (MT >= M, at most 2 M + 16), every cluster resident:
  // at 77 x 3000 x 5000 MT 80 (CY 1 and 2) and 128; at 64 x 4096 x 4096 MT
  // 64 (CY 1 and 2), 80 and 128 (64 column tiles x 2); none at M = 16
  // (MT 64 > 2 M + 16) or 256 (no MT >= M).
  auto dsmOf = [](const Problem &q) {
    std::set<std::pair<int64_t, int>> s;
    for (const Choice &d : candidates(q, 132))
      if (d.dsm) {
        CHECK(skinnyInstance(d.mt, d.stages, d.bn, 1, d.clusterY, d.splits) != nullptr);
        CHECK(ctasOf(q, d) <= 132);
        s.insert({d.mt, d.clusterY});
      }
    return s;
  };
  CHECK(dsmOf(p) == std::set<std::pair<int64_t, int>>{{80, 1}, {80, 2}, {128, 1}});
  CHECK(dsmOf(Problem{64, 4096, 4096}) ==
        std::set<std::pair<int64_t, int>>{{64, 1}, {64, 2}, {80, 1}, {80, 2}, {128, 1}});
  CHECK(dsmOf(Problem{16, 4096, 4096}).empty());
  CHECK(dsmOf(Problem{256, 4096, 4096}).empty());
  CHECK(dsmOf(Problem{16, 4096, 4096, DType::F16, BMajor::MN}).empty());
  // The tune cache: the cluster word kKS[xCY]; splits must be KS.
  const std::string line = "f16 k 77x3000x5000 skinny 64 k2x2 2 10 80 15.00";
  CHECK(cacheLine(p, CacheEntry{c, 15.0}) == line);
  std::string key, error;
  CacheEntry e;
  REQUIRE(parseCacheLine(line, key, e, error));
  CHECK(e.choice == c);
  CHECK(parseCacheLine("f16 k 64x4096x4096 skinny 64 k2 2 12 64 11.00", key, e, error));
  CHECK(e.choice.dsm);
  CHECK(e.choice.clusterY == 1);
  CHECK_FALSE(parseCacheLine("f16 k 64x4096x4096 skinny 64 k2 3 12 64 11.00", key, e, error));
  CHECK_FALSE(parseCacheLine("f16 k 64x4096x4096 skinny 64 k4 4 12 64 11.00", key, e, error));
  CHECK_FALSE(parseCacheLine("f16 k 64x4096x4096 splitk 64 k2 2 8 0 11.00", key, e, error));
}
