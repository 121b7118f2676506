// GPU tests of the DSMEM cluster histogram (samples/histogram/histogram.tile):
// exact counts against the CPU on fresh random input, for uniform and skewed
// data, cluster sizes 1/2/4/8 (histogram_c<N>.ptx), bin counts that the cluster
// size does not divide (down to fewer bins than CTAs), n not a multiple of the
// block, several grids and block sizes; and impossible launches rejected by the
// runtime with the exceeded limit named.
#include <catch2/catch.hpp>

#include "histogram_common.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

bool smallProblems() {
  const char *e = std::getenv("TILEC_GPU_TEST_SMALL");
  return e && *e && std::string(e) != "0";
}

const uint64_t kSeed = histo::freshSeed(); // fresh per run, printed on failure

// The value every int of a buffer filled with byte 0x01 holds. The kernel adds
// into bins, so starting from it checks that every bin gets exactly its count
// added (no overwrite, no bin missed, no double add).
constexpr int32_t kPoison = 0x01010101;

struct Case {
  int32_t nbins;
  long long n;
};

// One launch on a poisoned histogram; returns "" or what differs.
std::string runOnce(tile::Context &ctx, histo::TileHistogram &h, int cluster, int threads,
                    const Case &c, histo::Dist dist, uint64_t seed,
                    unsigned grid /*0 = persistent*/) {
  (void)ctx;
  const size_t n = static_cast<size_t>(c.n);
  std::vector<int32_t> input = histo::makeInput(n, c.nbins, dist, seed, /*outOfRange=*/0.01);
  std::vector<int32_t> want = histo::cpuHistogram(input, c.nbins);
  for (int32_t &w : want)
    w += kPoison;

  tile::DeviceBuffer<int32_t> dIn(n ? n : 1), dBins(static_cast<size_t>(c.nbins));
  if (n)
    dIn.copyFrom(input);
  dBins.fillBytes(0x01);
  if (grid == 0) {
    grid = h.persistentGrid(dBins.ptr(), dIn.ptr(), c.nbins, cluster, threads);
    // under compute-sanitizer every zeroed/flushed bin of every CTA costs; keep it small
    if (smallProblems())
      grid = std::min(grid, static_cast<unsigned>(4 * cluster));
  }
  h.launch(dBins.ptr(), dIn.ptr(), c.n, c.nbins, cluster, threads, grid);
  ctx.synchronize();
  return histo::compareHistograms(want, dBins.toHost());
}

} // namespace

TEST_CASE("histogram PTX variants carry their cluster size", "[histogram]") {
  for (int cluster : {1, 2, 4, 8}) {
    std::string ptx = sample::readFile(histo::ptxPathForCluster(cluster));
    INFO("histogram_c" << cluster << ".ptx");
    CHECK(ptx.find(".entry histogram") != std::string::npos);
    // The kernel info beside it says the same as the PTX's .reqnctapercluster.
    std::string infoPath = histo::ptxPathForCluster(cluster);
    infoPath = infoPath.substr(0, infoPath.size() - 4) + ".info.json";
    tile::ModuleInfo info = tile::moduleInfoFromJson(sample::readFile(infoPath));
    REQUIRE(info.find("histogram") != nullptr);
    CHECK(sample::fixedClusterSize(*info.find("histogram")) == cluster);
    CHECK(ptx.find(".reqnctapercluster " + std::to_string(cluster) + ", 1, 1") !=
          std::string::npos);
  }
}

TEST_CASE("histogram is exact for uniform and skewed input, cluster 1/2/4/8", "[histogram]") {
  tile::Context ctx(0);
  const bool small = smallProblems();
  std::vector<Case> cases = {
      {24000, small ? 200003 : (1 << 22) + 5}, // the benchmark's bins; n odd
      {1001, small ? 30011 : 1000003},         // nbins divisible by no cluster size > 1
      {4096, 512 * 3 + 17},                    // n not a multiple of the block
      {3, 4099},                               // fewer bins than CTAs in a cluster of 4 or 8
      {1, 777},                                // everything in one bin
      {517, 0},                                // no input: bins stay as they were
  };
  for (int cluster : {1, 2, 4, 8}) {
    histo::TileHistogram h(ctx, histo::ptxPathForCluster(cluster));
    for (histo::Dist dist : {histo::Dist::Uniform, histo::Dist::Skewed}) {
      for (size_t i = 0; i < cases.size(); ++i) {
        const Case &c = cases[i];
        const uint64_t seed = kSeed + 1000 * cluster + 10 * i + (dist == histo::Dist::Skewed);
        INFO("cluster " << cluster << ", " << histo::distName(dist) << ", nbins " << c.nbins
                        << ", n " << c.n << ", seed " << seed);
        CHECK(runOnce(ctx, h, cluster, 512, c, dist, seed, 0) == "");
      }
    }
  }
}

TEST_CASE("histogram is exact for other grids and block sizes", "[histogram]") {
  tile::Context ctx(0);
  const bool small = smallProblems();
  const Case c{2999, small ? 50021 : 2000003};
  for (int cluster : {2, 4}) {
    histo::TileHistogram h(ctx, histo::ptxPathForCluster(cluster));
    struct Shape {
      int threads;
      unsigned grid; // 0 = persistent
    };
    // one cluster striding over everything; odd block sizes; a grid larger than
    // the input needs (most threads get no element); 1024 threads.
    for (Shape s : {Shape{512, static_cast<unsigned>(cluster)}, Shape{96, 0}, Shape{256, 0},
                    Shape{33, static_cast<unsigned>(cluster * 3)}, Shape{1024, 0},
                    Shape{128, static_cast<unsigned>(cluster * (small ? 64 : 4096))}}) {
      for (histo::Dist dist : {histo::Dist::Uniform, histo::Dist::Skewed}) {
        const uint64_t seed = kSeed + 7 * s.threads + s.grid + (dist == histo::Dist::Skewed);
        INFO("cluster " << cluster << ", " << s.threads << " threads, grid " << s.grid << ", "
                        << histo::distName(dist) << ", seed " << seed);
        CHECK(runOnce(ctx, h, cluster, s.threads, c, dist, seed, s.grid) == "");
      }
    }
  }
}

TEST_CASE("histogram from zeroed bins equals the CPU histogram", "[histogram]") {
  tile::Context ctx(0);
  histo::TileHistogram h(ctx, histo::ptxPathForCluster(2));
  const int32_t nbins = 24000;
  const size_t n = smallProblems() ? 100000 : 3000017;
  std::vector<int32_t> input = histo::makeInput(n, nbins, histo::Dist::Skewed, kSeed + 99, 0.001);
  tile::DeviceBuffer<int32_t> dIn(n), dBins(nbins);
  dIn.copyFrom(input);
  dBins.fillBytes(0xA5); // poison, then zero: the zeroing under test is the host's
  dBins.fillBytes(0);
  unsigned grid = h.persistentGrid(dBins.ptr(), dIn.ptr(), nbins, 2, 512);
  if (smallProblems())
    grid = std::min(grid, 8u);
  for (int rep = 0; rep < 2; ++rep) {
    dBins.fillBytes(0);
    h.launch(dBins.ptr(), dIn.ptr(), static_cast<int64_t>(n), nbins, 2, 512, grid);
    ctx.synchronize();
    INFO("rep " << rep << ", seed " << kSeed + 99);
    CHECK(histo::compareHistograms(histo::cpuHistogram(input, nbins), dBins.toHost()) == "");
  }
}

TEST_CASE("impossible histogram launches are rejected with the limit named", "[histogram]") {
  tile::Context ctx(0);
  histo::TileHistogram h8(ctx, histo::ptxPathForCluster(8));
  histo::TileHistogram h1(ctx, histo::ptxPathForCluster(1));
  tile::DeviceBuffer<int32_t> dIn(1024), dBins(64);
  dIn.fillBytes(0);
  dBins.fillBytes(0x01);
  const int32_t nbins = 64;

  SECTION("cluster of 16 without allowNonPortableCluster") {
    tile::LaunchConfig c = h8.config(nbins, 16, 256, 32);
    try {
      h8.kernel().launch(c, dBins, dIn, static_cast<int64_t>(1024), nbins);
      FAIL("launch with a cluster of 16 was accepted");
    } catch (const tile::Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("cluster of 16 CTAs exceeds the portable limit of 8"));
      CHECK(e.kernel() == "histogram");
    }
  }
  SECTION("more dynamic shared memory than a block may have") {
    const size_t limit = ctx.maxSharedPerBlockOptin();
    tile::LaunchConfig c = h1.config(nbins, 1, 256, 1);
    c.sharedBytes = limit + 16;
    try {
      h1.kernel().launch(c, dBins, dIn, static_cast<int64_t>(1024), nbins);
      FAIL("launch with too much shared memory was accepted");
    } catch (const tile::Error &e) {
      CHECK_THAT(e.what(),
                 Catch::Contains("shared memory") && Catch::Contains(std::to_string(limit)));
    }
  }
  SECTION("more bins than one CTA's shared memory holds (cluster 1)") {
    const int32_t tooMany = static_cast<int32_t>(ctx.maxSharedPerBlockOptin() / 4 + 1);
    try {
      h1.launch(dBins.ptr(), dIn.ptr(), 1024, tooMany, 1, 256, 1);
      FAIL("launch needing " << tooMany * 4 << " bytes of shared memory was accepted");
    } catch (const tile::Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("shared memory") &&
                               Catch::Contains(std::to_string(ctx.maxSharedPerBlockOptin())));
    }
  }
  // A rejected launch did not run, and the context still works.
  CHECK(histo::compareHistograms(std::vector<int32_t>(64, kPoison), dBins.toHost()) == "");
  std::vector<int32_t> ones(1024, 5);
  dIn.copyFrom(ones);
  h1.launch(dBins.ptr(), dIn.ptr(), 1024, nbins, 1, 256, 1);
  ctx.synchronize();
  std::vector<int32_t> want(64, kPoison);
  want[5] += 1024;
  CHECK(histo::compareHistograms(want, dBins.toHost()) == "");
}
