// The small-M fp8 choice without a GPU (fp8_small.h): the instances fit in
// shared memory with the deepest ring, and every M <= 256 gets an instance
// whose grid covers C.
#include <catch2/catch.hpp>

#include "fp8_small.h"

using gemm::fp8::SmallInstance;

static int64_t smallCeilRows(int64_t m, const SmallInstance &c) {
  return gemm::fp8::smallCeil(m, c.mt);
}

TEST_CASE("fp8 small M: the instances fit with the deepest ring", "[fp8]") {
  for (const SmallInstance &i : gemm::fp8::smallInstances()) {
    INFO("MT " << i.mt << ", S " << i.stages << ", BW " << i.bw << ", KS " << i.ks << ", CY "
               << i.cy);
    CHECK(i.mt % 8 == 0);               // the wgmma N
    CHECK(i.bw % 64 == 0);              // 64 columns per consumer warpgroup
    CHECK(i.ks * i.cy * i.cl <= 8);     // a portable cluster
    CHECK(i.mt % (8 * i.cy) == 0);      // A's multicast slices: whole swizzle atoms
    CHECK(i.bw % (8 * i.cl) == 0);      // B's
    CHECK((i.bw / i.ks) * 2 % 16 == 0); // the TMA store's box rows: 16-byte multiples
    CHECK(gemm::fp8::smallSharedBytes(i) + 2048 <= 232448); // + mbarriers, alignment
    SmallInstance deeper = i;
    ++deeper.stages;
    CHECK((i.stages == gemm::fp8::kSmallMaxStages ||
           gemm::fp8::smallSharedBytes(deeper) + 2048 > 232448));
  }
}

TEST_CASE("fp8 small M: the 128-row tile instances fit with the deepest ring", "[fp8]") {
  for (const gemm::fp8::TileInstance &i : gemm::fp8::tileInstances()) {
    INFO("TN " << i.tn << ", S " << i.stages << ", CN " << i.cn << ", CM " << i.cm);
    CHECK(i.tn % 16 == 0); // the wgmma N; halves of whole 16-byte rows
    CHECK(i.tn <= 256);
    CHECK(i.cn * i.cm * i.ks <= 8); // a portable cluster
    CHECK((i.ks == 1 || (i.ks == 2 && i.cn == 1 && i.cm == 1)));
    CHECK(gemm::fp8::kTileBm % (8 * i.cn) == 0); // A's multicast slices
    CHECK(i.tn % (8 * i.cm) == 0);               // B's
    CHECK(gemm::fp8::tileSharedBytes(i) + 2048 <= 232448);
    gemm::fp8::TileInstance deeper = i;
    ++deeper.stages;
    CHECK(gemm::fp8::tileSharedBytes(deeper) + 2048 > 232448);
  }
  // The candidates: every CTA resident, the grid covers C.
  for (int64_t m : {77, 128, 200, 256})
    for (int64_t n : {1000, 4096, 8192, 14336})
      for (const gemm::fp8::TileInstance &i : gemm::fp8::tileCandidates(m, n, 4096, 132)) {
        INFO(m << " x " << n << ": " << gemm::fp8::describe(i));
        CHECK(gemm::fp8::tileCtas(m, n, i) <= 132);
        CHECK(gemm::fp8::tileRowTiles(m, i) * gemm::fp8::kTileBm >= m);
        CHECK(gemm::fp8::tileColTiles(n, i) * i.tn >= n);
      }
}

TEST_CASE("fp8 small M: the choice covers every M <= 256", "[fp8]") {
  for (int64_t m = 1; m <= 256; ++m)
    for (int64_t n : {8, 1000, 4096, 14336})
      for (int64_t k : {16, 200, 4096, 14336}) {
        const gemm::fp8::SmallChoice choice = gemm::fp8::smallChoice(m, n, k, 132);
        INFO(m << " x " << n << " x " << k);
        if (choice.tile.tn) { // gemm_fp8_tile: M > 80, every CTA resident
          const gemm::fp8::TileInstance t = choice.tile;
          CHECK(m > 112);
          CHECK(gemm::fp8::tileRowTiles(m, t) * gemm::fp8::kTileBm >= m);
          CHECK(gemm::fp8::tileColTiles(n, t) * t.tn >= n);
          CHECK(gemm::fp8::tileCtas(m, n, t) <= 132);
          CHECK(2 * gemm::fp8::tileCtas(m, n, t) >= 132);
          bool compiled = false;
          for (const gemm::fp8::TileInstance &i : gemm::fp8::tileInstances())
            compiled = compiled || i == t;
          CHECK(compiled);
          continue;
        }
        if (!choice.instance.mt) { // the persistent kernel: M > 80 only
          CHECK(m > 80);
          CHECK((choice.persistentBn == 128 || choice.persistentBn == 256));
          continue;
        }
        const SmallInstance c = choice.instance;
        CHECK(c.mt * gemm::fp8::smallRowTiles(m, c) >= m);
        CHECK(smallCeilRows(m, c) <= 2);
        CHECK(gemm::fp8::smallColTiles(n, c) * c.bw >= n);
        bool compiled = false;
        for (const SmallInstance &i : gemm::fp8::smallInstances())
          compiled = compiled || i == c;
        CHECK(compiled);
        // Each split gets a K-block at least.
        CHECK(gemm::fp8::smallCeil(k, gemm::fp8::kSmallBk) >= c.ks);
      }
  const gemm::fp8::SmallChoice none = gemm::fp8::smallChoice(257, 4096, 4096, 132);
  CHECK(none.instance.mt == 0);
  CHECK(none.persistentBn == 0);
  // The measured picks (docs/perf/gemm_fp8.md, "Small M").
  auto pick = [](int64_t m, int64_t n, int64_t k) {
    return gemm::fp8::describe(gemm::fp8::smallChoice(m, n, k, 132));
  };
  CHECK(pick(16, 4096, 4096) == "dsm MT 16 x BW 64, 2 splits, 16 stages");
  CHECK(pick(1, 14336, 4096) == "dsm MT 16 x BW 128, 1 split, 11 stages");
  CHECK(pick(16, 8192, 8192) == "dsm MT 16 x BW 64, 1 split, 16 stages");
  CHECK(pick(64, 4096, 4096) == "dsm MT 32 x BW 64, 1 split, CL 2, 16 stages");
  CHECK(pick(64, 14336, 4096) == "dsm MT 64 x BW 128, 1 split, 7 stages");
  CHECK(pick(64, 8192, 8192) == "dsm MT 40 x BW 128, 1 split, CL 2, 9 stages");
  CHECK(pick(77, 4096, 14336) == "dsm MT 40 x BW 64, 1 split, CL 2, 16 stages");
  CHECK(pick(77, 14336, 4096) == "dsm MT 80 x BW 128, 1 split, 6 stages");
  CHECK(pick(128, 4096, 4096) == "tile 128 x 32, 11 stages");
  CHECK(pick(128, 4096, 14336) == "dsm MT 64 x BW 64, 1 split, CL 2, 12 stages");
  CHECK(pick(128, 8192, 8192) == "tile 128 x 64, 9 stages");
  CHECK(pick(128, 14336, 4096) == "tile 128 x 128, 6 stages");
  CHECK(pick(256, 4096, 4096) == "tile 128 x 64, CM 2, 9 stages");
  CHECK(pick(256, 4096, 14336) == "tile 128 x 64, CM 2, 9 stages");
  CHECK(pick(256, 8192, 8192) == "tile 128 x 128, CM 2, 6 stages");
  CHECK(pick(256, 14336, 4096) == "tile 128 x 224, CM 2, 4 stages");
  CHECK(pick(77, 4096, 4096) == "dsm MT 40 x BW 64, 1 split, CL 2, 16 stages");
  CHECK(pick(96, 8192, 8192) == "dsm MT 64 x BW 128, 1 split, CL 2, 7 stages");
  CHECK(pick(128, 4096, 8192) == "dsm MT 64 x BW 64, 1 split, CL 2, 12 stages");
  CHECK(pick(160, 4096, 4096) == "dsm MT 80 x BW 64, 1 split, 10 stages");
  CHECK(pick(200, 8192, 8192) == "tile 128 x 128, CM 2, 6 stages");
  CHECK(pick(200, 14336, 4096) == "tile 128 x 224, CM 2, 4 stages");
}
