// GPU tests of the low-latency cluster ping-pong (samples/cluster_pingpong/
// pingpong.tile): every received value exact at 1, 2, 37 and 1000 iterations
// (odd and even phase counts, one iteration, many), nothing written for 0
// iterations or past the output, back-to-back launches on one buffer, and
// impossible launches rejected by the runtime before they reach the GPU.
// The output and a guard after it are poisoned (0xA5 bytes) before every launch.
#include <catch2/catch.hpp>

#include "pingpong_common.h"

#include <string>
#include <vector>

namespace {

constexpr size_t kGuard = 64; // ints after the output the kernel must not touch

// Poison, one launch of `iters` iterations, check every int (output + guard).
std::string runOnce(tile::Context &ctx, pingpong::TilePingPong &pp, int iters) {
  tile::DeviceBuffer<int32_t> out(pingpong::outCount(iters) + kGuard);
  out.fillBytes(pingpong::kPoisonByte);
  pp.launch(out.ptr(), iters);
  ctx.synchronize();
  return pingpong::checkOutput(out.toHost(), iters);
}

} // namespace

TEST_CASE("pingpong PTX is the cluster(8) threads(32) kernel", "[pingpong]") {
  const std::string ptx = pingpong::readFile(pingpong::ptxPath());
  INFO(pingpong::ptxPath());
  CHECK(ptx.find(".entry pingpong") != std::string::npos);
  CHECK(ptx.find(".reqnctapercluster 8, 1, 1") != std::string::npos);
  std::string infoPath = pingpong::ptxPath();
  infoPath = infoPath.substr(0, infoPath.size() - 4) + ".info.json";
  tile::ModuleInfo info = tile::moduleInfoFromJson(pingpong::readFile(infoPath));
  REQUIRE(info.find("pingpong") != nullptr);
  CHECK(sample::fixedClusterSize(*info.find("pingpong")) == static_cast<int>(pingpong::kCluster));
  CHECK(ptx.find(".reqntid 32, 1, 1") != std::string::npos); // threads(32): the exact block
  // the exchange is st.async completing on the partner's mbarrier
  CHECK(ptx.find("st.async") != std::string::npos);
  CHECK(ptx.find("mbarrier.try_wait") != std::string::npos);
}

TEST_CASE("pingpong stores exactly what the partner sent, every iteration", "[pingpong]") {
  tile::Context ctx(0);
  pingpong::TilePingPong pp(ctx, pingpong::ptxPath());
  for (int iters : {1, 2, 37, 1000}) {
    INFO("iters " << iters);
    CHECK(runOnce(ctx, pp, iters) == "");
  }
}

TEST_CASE("pingpong with 0 iterations writes nothing", "[pingpong]") {
  tile::Context ctx(0);
  pingpong::TilePingPong pp(ctx, pingpong::ptxPath());
  CHECK(runOnce(ctx, pp, 0) == ""); // only the guard: all of it must stay poisoned
}

TEST_CASE("pingpong is exact over back-to-back launches on one buffer", "[pingpong]") {
  tile::Context ctx(0);
  pingpong::TilePingPong pp(ctx, pingpong::ptxPath());
  const int iters = 257;
  tile::DeviceBuffer<int32_t> out(pingpong::outCount(iters) + kGuard);
  for (int rep = 0; rep < 3; ++rep) {
    out.fillBytes(pingpong::kPoisonByte);
    for (int k = 0; k < 4; ++k)
      pp.launch(out.ptr(), iters); // no sync in between
    ctx.synchronize();
    INFO("rep " << rep);
    CHECK(pingpong::checkOutput(out.toHost(), iters) == "");
  }
}

TEST_CASE("impossible pingpong launches are rejected before launch", "[pingpong]") {
  tile::Context ctx(0);
  pingpong::TilePingPong pp(ctx, pingpong::ptxPath());
  const int iters = 5;
  tile::DeviceBuffer<int32_t> out(pingpong::outCount(iters) + kGuard);
  out.fillBytes(pingpong::kPoisonByte);

  SECTION("cluster of 16 without allowNonPortableCluster") {
    tile::LaunchConfig c = pingpong::TilePingPong::config(pingpong::kGrid, pingpong::kThreads, 16);
    try {
      pp.launch(out.ptr(), iters, c);
      FAIL("launch with a cluster of 16 was accepted");
    } catch (const tile::Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("cluster of 16 CTAs exceeds the portable limit of 8"));
      CHECK(e.call() == "Kernel::launch");
      CHECK(e.kernel() == "pingpong");
    }
  }
  SECTION("more dynamic shared memory than a block may have") {
    const size_t limit = ctx.maxSharedPerBlockOptin();
    tile::LaunchConfig c = pingpong::TilePingPong::config();
    c.sharedBytes = limit + 16;
    try {
      pp.launch(out.ptr(), iters, c);
      FAIL("launch with too much shared memory was accepted");
    } catch (const tile::Error &e) {
      CHECK_THAT(e.what(),
                 Catch::Contains("shared memory") && Catch::Contains(std::to_string(limit)));
      CHECK(e.call() == "Kernel::launch");
    }
  }
  SECTION("more threads than the kernel's threads(32)") {
    tile::LaunchConfig c = pingpong::TilePingPong::config(pingpong::kGrid, 64);
    try {
      pp.launch(out.ptr(), iters, c);
      FAIL("launch with 64 threads was accepted");
    } catch (const tile::Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("exceeds the kernel's limit of 32 threads"));
    }
  }
  // A rejected launch did not run (everything still poisoned), and the context
  // still works.
  ctx.synchronize();
  CHECK(pingpong::checkOutput(out.toHost(), 0) == "");
  pp.launch(out.ptr(), iters);
  ctx.synchronize();
  CHECK(pingpong::checkOutput(out.toHost(), iters) == "");
}
