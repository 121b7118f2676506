// The host pieces of samples/ring_gemm_rs that need no GPU (ctest
// ring_gemm_rs.host): the kernel's contract (shape rule, semaphore count, work
// units), the ring's schedule and the whole protocol run on the host for
// D = 1 .. 8 (every rank ends with the sum over all ranks of its own block,
// every counter signalled once and waited once), the numerics (identity, the
// 16-bit running sum), the float64 reference's inputs, the model and the table.
#include <catch2/catch.hpp>

#include "rs_common.h"

using namespace rsring;

TEST_CASE("one semaphore per 128 x BN tile of the running sums", "[rsring]") {
  Problem p; // D 2, MS 1024, N 4096
  CHECK(semaphoreCount(p, 256) == 16 * 16);
  p.ranks = 4;
  CHECK(semaphoreCount(p, 256) == 32 * 16);
  CHECK(semaphoreCount(p, 128) == 32 * 32);
}

TEST_CASE("the shape rule of the reduce-scatter kernel", "[rsring]") {
  Problem p;
  CHECK(shapeProblem(p, 2, 256).empty());
  CHECK(workUnits(p, 2, 256) == 2 * 4 * 16);
  CHECK(p.m() == 2048);
  CHECK(p.gemmShape() == "2048x4096x4096");
  CHECK(p.local().m == 2048);
  CHECK(p.slice().m == 1024);
  CHECK(catProblem(p).k == 2 * 4096);
  p.ms = 1000;
  CHECK(shapeProblem(p, 2, 256).find(
            "MS = 1000 is not a multiple of 256 (128-row tiles x cluster 2 per scattered block)") !=
        std::string::npos);
  p.ms = 512;
  p.n = 200;
  p.k = 100;
  CHECK(shapeProblem(p, 2, 256).find(
            "N = 200 is not a multiple of BN = 256; K = 100 is not a multiple of 64") !=
        std::string::npos);
  CHECK(ringPtxName(DType::BF16) == "ring_gemm_rs_bf16.ptx");
  CHECK(ringPtxName(DType::F16, true) == "ring_gemm_rs_f16_debug.ptx");
}

TEST_CASE("the schedule: every block once per rank, the own block last", "[rsring]") {
  for (int64_t d = 1; d <= 8; ++d)
    for (int64_t r = 0; r < d; ++r) {
      std::vector<int> seen(size_t(d), 0);
      for (int64_t i = 0; i < d; ++i) {
        const int64_t b = blockAt(r, i, d);
        REQUIRE(b >= 0);
        REQUIRE(b < d);
        ++seen[size_t(b)];
        // The block the previous rank computed one step earlier: the running
        // sum this unit adds.
        if (i > 0)
          CHECK(blockAt((r - 1 + d) % d, i - 1, d) == b);
      }
      CHECK(blockAt(r, d - 1, d) == r);
      for (int s : seen)
        CHECK(s == 1);
    }
  CHECK(blockAt(0, 0, 4) == 3);
  CHECK(blockAt(0, 1, 4) == 2);
  CHECK(blockAt(2, 0, 4) == 1);
}

TEST_CASE("the protocol on the host: each rank keeps the sum of its block", "[rsring]") {
  for (int64_t d = 1; d <= 8; ++d) {
    // partial[r][b]: a value unique to (rank, block); the sum over ranks of
    // block b is what rank b must keep.
    std::vector<std::vector<double>> partial(static_cast<size_t>(d), std::vector<double>(static_cast<size_t>(d)));
    for (int64_t r = 0; r < d; ++r)
      for (int64_t b = 0; b < d; ++b)
        partial[size_t(r)][size_t(b)] = double(1 << r) + 1000.0 * double(b);
    std::vector<std::string> trace;
    const ProtocolResult res = simulateProtocol(d, /*rowTiles=*/2, /*colTiles=*/3, partial, &trace);
    INFO("D = " << d << ": " << res.problem);
    CHECK(res.ok);
    for (int64_t b = 0; b < d; ++b) {
      double want = 0;
      for (int64_t r = 0; r < d; ++r)
        want += partial[size_t(r)][size_t(b)];
      CHECK(res.kept[size_t(b)] == want);
    }
    CHECK(res.sends == d * (d - 1)); // every rank sends at every step but the last
    CHECK(res.waits == d * (d - 1) * 2 * 3);
    CHECK(int64_t(res.signals.size()) == d * (d - 1) * 2 * 3);
    CHECK(int64_t(trace.size()) == d * d);
  }
  std::vector<std::string> trace;
  simulateProtocol(2, 1, 1, {{1, 2}, {3, 4}}, &trace);
  REQUIRE(trace.size() == 4);
  CHECK(trace[0] == "step 0 rank 0: block 1 -> rank 1");
  CHECK(trace[1] == "step 0 rank 1: block 0 -> rank 0");
  CHECK(trace[2] == "step 1 rank 0: block 0 -> C");
  CHECK(trace[3] == "step 1 rank 1: block 1 -> C");
}

TEST_CASE("three ranks by hand", "[rsring]") {
  // Rank b keeps column b of the table summed over the rows (ranks).
  ProtocolResult r = simulateProtocol(3, 1, 1, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  CHECK(r.ok);
  CHECK(r.kept[0] == 1 + 4 + 7);
  CHECK(r.kept[2] == 3 + 6 + 9);
}

TEST_CASE("numerics: identity adds and one rounding per hop", "[rsring]") {
  const std::vector<uint16_t> e = identity(DType::F16, 4);
  REQUIRE(e.size() == 16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      CHECK(gemm::fromBits(DType::F16, e[size_t(i * 4 + j)]) == (i == j ? 1.0f : 0.0f));
  CHECK(gemm::fromBits(DType::BF16, identity(DType::BF16, 2)[3]) == 1.0f);
  // 1 + 2^-11 is not an f16: the first hop rounds it to 1 (nearest even);
  // the second hop adds 2^-11 again to the rounded 1.
  const float tiny = std::ldexp(1.0f, -11);
  CHECK(ringSum(DType::F16, {1.0f + tiny}) == 1.0f);
  CHECK(ringSum(DType::F16, {1.0f, tiny, tiny}) == 1.0f);
  CHECK(ringSum(DType::F16, {3.0f, 4.0f}) == 7.0f);
  CHECK(ringSum(DType::BF16, {256.0f, 1.0f}) == 256.0f); // bf16: 8 bits, 257 rounds to 256
}

TEST_CASE("the float64 reference's inputs are every rank's data", "[rsring]") {
  Problem p;
  p.ranks = 3;
  p.ms = 2;
  p.n = 2;
  p.k = 4;
  const uint64_t seed = 7;
  const std::vector<uint16_t> a = aCatRows(p, /*rank=*/1, seed); // [MS, D*K]
  REQUIRE(a.size() == size_t(2 * 12));
  // Row 0 of rank 1's slice is row MS = 2 of every A_q, element kk at q*K + kk.
  for (int64_t q = 0; q < 3; ++q) {
    const std::vector<uint16_t> aq = gemm::randomNormal(p.dtype, size_t(p.m() * p.k), seed,
                                                        aStream(q));
    for (int64_t kk = 0; kk < 4; ++kk)
      CHECK(a[size_t(q * 4 + kk)] == aq[size_t(2 * 4 + kk)]);
  }
  const std::vector<uint16_t> b = bCat(p, seed); // [N, D*K]
  const std::vector<uint16_t> b2 = gemm::randomNormal(p.dtype, size_t(p.n * p.k), seed, bStream(2));
  CHECK(b[size_t(1 * 12 + 2 * 4 + 3)] == b2[size_t(1 * 4 + 3)]);
}

TEST_CASE("the time-per-step model", "[rsring]") {
  Problem p; // D 2, MS 1024, N 4096, K 4096
  ModelInputs in;
  in.floorMs = 0.100;           // 50 us a step
  in.linkGBs = 8.388608 / 0.02; // a block of running sums (8 MiB) in 20 us
  in.exitUs = 3;
  in.bn = 256;
  ModelResult m = ringModel(p, in);
  CHECK(m.stepComputeUs == Approx(50));
  CHECK(m.addUs == Approx(50.0 * 256 / 4096));
  CHECK(m.transferUs == Approx(20));
  CHECK(m.ringUs == Approx(100 + 1 * 50.0 * 256 / 4096 + 3));
  in.linkGBs /= 4; // 80 us a block: the link sets the pace
  m = ringModel(p, in);
  CHECK(m.ringUs == Approx(100 + (50.0 * 256 / 4096 + 30) + 3));
  p.ranks = 4;
  in.floorMs = 0.200;
  in.linkGBs *= 4;
  m = ringModel(p, in);
  CHECK(m.ringUs == Approx(200 + 3 * 50.0 * 256 / 4096 + 3));
  in.floorMs = -1;
  CHECK(ringModel(p, in).ringUs < 0);
}

TEST_CASE("the benchmark table", "[rsring]") {
  BenchRow r;
  r.ring.run = r.ringCe.run = r.ncclBlas.run = r.floor.run = r.reduceScatter.run = r.blas.run =
      true;
  r.ring.t.median = 0.100;
  r.ringCe.t.median = 0.098;
  r.ncclBlas.t.median = 0.140;
  r.floor.t.median = 0.095;
  r.reduceScatter.t.median = 0.040;
  r.blas.t.median = 0.098;
  r.ring.err = 1e-4;
  r.ringCe.err = 2e-4;
  r.floor.err = 0;
  r.linkGBs = 400;
  r.ring.note = "ring_gemm_rs$BN256, 66 clusters";
  r.ringCe.note = "ring_gemm_rs_ce$BN256, 66 clusters";
  BenchRow slow = r;
  slow.p.dtype = DType::BF16;
  slow.ring.t.median = 0.120;
  slow.ring.ok = false;
  BenchRow missing = r;
  missing.ringCe = ring::Measured();
  missing.ringCe.note = "not built (ring_gemm_rs_ce_f16.ptx)";
  const std::string md = benchTable({r, slow, missing}, "HEADER");
  INFO(md);
  CHECK(md.rfind("HEADER\n\n| dtype |", 0) == 0);
  CHECK(md.find("| f16 | 2048x4096x4096 (D=2, MS=1024) | 100.0 | 98.0 | 140.0 | 95.0 | 1.053 "
                "(meets) | 1.032 (meets) | 1.40 (meets) | 1.43 (meets) | 71% | 73% | 40.0 | 98.0 "
                "| 1.0e-04 / 2.0e-04 / 0.0e+00 |") != std::string::npos);
  CHECK(md.find("| bf16 | 2048x4096x4096 (D=2, MS=1024) | 120.0 | 98.0 | 140.0 | 95.0 | 1.263 "
                "(misses) | 1.032 (meets) | 1.17 (misses) | 1.43 (meets) |") != std::string::npos);
  CHECK(
      md.find("| 100.0 | not built (ring_gemm_rs_ce_f16.ptx) | 140.0 | 95.0 | 1.053 (meets) | - | "
              "1.40 (meets) | - | - | 73% |") != std::string::npos);
  CHECK(md.find("- PROBLEM: bf16") != std::string::npos);
  CHECK(md.find("- PROBLEM: f16") == std::string::npos);
  // 95 us floor: Tc 47.5, adds 47.5 * 256 / 4096 = 3.0, 8 MiB at 400 GB/s = 21.0 us
  CHECK(md.find("per step: GEMM Tc 47.5 us, adds 3.0 us, running sums over the link 21.0 us "
                "(link 400 GB/s, copy engine); predicted ring 101.0 us; SM ring measured 100.0 "
                "us, 5.0 us over the floor per step after the first; CE ring measured 98.0 us, "
                "3.0 us") != std::string::npos);
  CHECK(md.find("- f16 D=2 MS=1024 N=4096 K=4096 CE ring: ring_gemm_rs_ce$BN256") !=
        std::string::npos);
}

TEST_CASE("the copy-engine ring's pushes: every running sum a rank adds, once, after the "
          "previous rank stored it",
          "[rsring]") {
  for (int64_t d = 1; d <= 8; ++d)
    for (int64_t ms : {256, 1024}) {
      Problem p;
      p.ranks = d;
      p.ms = ms;
      p.n = 768;
      const int64_t bn = 256, tiles = (ms / 128) * (768 / bn);
      CHECK(ceSemaphoreCount(p) == 2 * d + 1);
      // set[r][i]: how often rank r's counter i is set by its previous rank.
      std::vector<std::vector<int>> set(size_t(d), std::vector<int>(size_t(2 * d + 1), 0));
      for (int64_t r = 0; r < d; ++r) {
        const std::vector<CePush> v = cePushes(p, r, bn);
        CHECK(v.size() == size_t(d > 1 ? d - 1 : 0));
        for (const CePush &q : v) {
          INFO("D " << d << " rank " << r << " step " << q.step);
          // The block this rank's kernel stored at that step, all its tiles.
          CHECK(q.block == blockAt(r, q.step, d));
          CHECK(q.waitIndex == d + q.block);
          CHECK(q.tiles == tiles);
          CHECK(q.firstRow == q.block * ms);
          CHECK(q.rows == ms);
          CHECK(q.setIndex == q.block);
          ++set[size_t((r + 1) % d)][size_t(q.setIndex)];
        }
      }
      // ring_gemm_rs_ce.tile: at step i > 0 rank r waits for sem[blockAt(r,
      // i)], which its previous rank computed at step i - 1: each set once.
      for (int64_t r = 0; r < d; ++r)
        for (int64_t i = 1; i < d; ++i) {
          const int64_t b = blockAt(r, i, d);
          CHECK(b == blockAt((r - 1 + d) % d, i - 1, d));
          CHECK(set[size_t(r)][size_t(b)] == 1);
        }
    }
  Problem p;
  CHECK(cePushes(p, 2, 256).empty()); // no such rank
}

TEST_CASE("the copy-engine ring's default chunks: 8 MiB or more each", "[rsring]") {
  Problem p;
  p.ranks = 4;
  p.n = 4096;
  for (const auto &[ms, want] : std::vector<std::pair<int64_t, int64_t>>{
           {256, 1}, {1024, 1}, {2048, 2}, {4096, 4}, {8192, 8}}) {
    p.ms = ms;
    CHECK(ceChunks(p, 256, 0) == want);
  }
  p.ms = 65536; // capped at the column tiles
  CHECK(ceChunks(p, 256, 0) == 16);
  p.n = 256;
  CHECK(ceChunks(p, 256, 0) == 1);
}

TEST_CASE("the copy-engine ring's column chunks: every tile of a block pushed once, each chunk "
          "after its own tiles, in the kernel's column order",
          "[rsring]") {
  const int64_t bn = 256;
  for (int64_t d = 2; d <= 8; d *= 2)
    for (int64_t n : {256, 768, 1280, 4096})
      for (int64_t requested : {0, 1, 2, 3, 4, 16}) {
        Problem p;
        p.ranks = d;
        p.ms = 512;
        p.n = n;
        const int64_t colTiles = n / bn, rowTiles = p.ms / 128;
        const int64_t ch = ceChunks(p, bn, requested);
        INFO("D " << d << " N " << n << " chunks " << requested << " -> " << ch);
        if (requested > 0)
          CHECK(ch == std::min(requested, colTiles));
        else
          CHECK(ch == 1); // 512 x N x 2 bytes: below 8 MiB
        CHECK(ceSemaphoreCount(p, ch) == 2 * d * ch + 1);
        CHECK(ceLastIndex(p, ch) == 2 * d * ch);
        // ring_gemm_rs_ce.tile: chunks = (S - 1) / (2 D), a tile's chunk
        // tn / ceil(colTiles / chunks).
        const int64_t kernelChunks = (ceSemaphoreCount(p, ch) - 1) / (2 * d);
        CHECK(kernelChunks == ch);
        const int64_t per = (colTiles + kernelChunks - 1) / kernelChunks;
        CHECK(ceChunkTiles(p, bn, ch) == per);
        for (int64_t r = 0; r < d; ++r) {
          const std::vector<CePush> v = cePushes(p, r, bn, ch);
          // Every column tile of every pushed block exactly once; waits and
          // sets on the counters the kernel signals and waits for.
          std::map<std::pair<int64_t, int64_t>, int> pushed; // (block, column tile)
          std::map<int64_t, int> sets;
          int64_t lastStep = -1, lastCol = -1;
          for (const CePush &q : v) {
            CHECK(q.block == blockAt(r, q.step, d));
            CHECK(q.firstRow == q.block * p.ms);
            CHECK(q.rows == p.ms);
            CHECK(q.cols > 0);
            CHECK(q.firstCol % bn == 0);
            CHECK(q.firstCol + q.cols <= n);
            CHECK(q.tiles == rowTiles * (q.cols / bn));
            CHECK(q.waitIndex == d * ch + q.block * ch + q.chunk);
            CHECK(q.setIndex == q.block * ch + q.chunk);
            CHECK(q.setIndex < d * ch);
            ++sets[q.setIndex];
            // Steps in order, a step's chunks left to right.
            if (q.step == lastStep)
              CHECK(q.firstCol > lastCol);
            else
              CHECK(q.step == lastStep + 1);
            lastStep = q.step;
            lastCol = q.firstCol;
            for (int64_t t = q.firstCol / bn; t < (q.firstCol + q.cols) / bn; ++t) {
              CHECK(t / per == q.chunk); // the kernel's chunk of this tile
              ++pushed[{q.block, t}];
            }
          }
          CHECK(lastStep == d - 2);
          CHECK(int64_t(pushed.size()) == (d - 1) * colTiles);
          for (const auto &[key, times] : pushed)
            CHECK(times == 1);
          for (const auto &[idx, times] : sets)
            CHECK(times == 1);
          // One chunk: the whole block, one contiguous copy per step.
          if (ch == 1)
            for (const CePush &q : v)
              CHECK((q.firstCol == 0 && q.cols == n));
        }
      }
}
