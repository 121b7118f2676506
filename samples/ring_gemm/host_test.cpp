// The host pieces of samples/ring_gemm that need no GPU (ctest ring_gemm.host):
// the semaphore count and shape rule of the kernel's contract, the copy-engine
// ring's pulls (what the host sets against what the kernel waits for), the timing
// reduction of a collective run (slowest rank per repetition, median over
// repetitions), tensor-core utilisation, the time-per-step model and the
// benchmark table (no number for what did not run, the bars flagged).
#include <catch2/catch.hpp>

#include "ring_common.h"

using namespace ring;

TEST_CASE("one semaphore per 128-row block of every shard", "[ring]") {
  Problem p; // D 2, MS 1024
  CHECK(semaphoreCount(p) == 16);
  p.ranks = 4;
  p.ms = 512;
  CHECK(semaphoreCount(p) == 16);
  p.ranks = 8;
  p.ms = 256;
  CHECK(semaphoreCount(p) == 16);
}

TEST_CASE("the shape rule of the ring kernel", "[ring]") {
  Problem p; // the benchmark shape
  CHECK(shapeProblem(p, 2, 256).empty());
  CHECK(workUnits(p, 2, 256) == 2 * 4 * 16); // D steps x 4 cluster rows x 16 column tiles
  CHECK(p.mg() == 2048);
  CHECK(p.gemmShape() == "2048x4096x4096");
  p.ms = 1000;
  const std::string why = shapeProblem(p, 2, 256);
  CHECK(why.find("MS = 1000 is not a multiple of 256 (128-row tiles x cluster 2 per shard)") !=
        std::string::npos);
  CHECK(shapeProblem(p, 1, 256).find("MS = 1000 is not a multiple of 128") != std::string::npos);
  p.ms = 512;
  p.n = 200;
  p.k = 100;
  const std::string nk = shapeProblem(p, 2, 256);
  CHECK(nk.find("MS") == std::string::npos);
  CHECK(nk.find("N = 200 is not a multiple of BN = 256; K = 100 is not a multiple of 64") !=
        std::string::npos);
  p.n = 768;
  p.k = 2112;
  CHECK(shapeProblem(p, 2, 256).empty());
  p.ranks = 0;
  CHECK(!shapeProblem(p, 2, 256).empty());
}

TEST_CASE("a repetition takes as long as its slowest rank", "[ring]") {
  // rank 0: 1, 5, 3; rank 1: 2, 1, 4 -> slowest 2, 5, 4 -> median 4, min 2
  const Timing t = reduceTiming({{1, 5, 3}, {2, 1, 4}});
  CHECK(t.median == 4);
  CHECK(t.min == 2);
  CHECK(t.spread == 1); // |1-2|, |5-1|, |3-4| -> 1, 4, 1
  // an even number of repetitions: the mean of the middle two
  CHECK(reduceTiming({{1, 2, 3, 10}}).median == 2.5);
  CHECK(reduceTiming({}).median == -1);
  // the median, not the mean: one slow outlier does not move it
  CHECK(reduceTiming({{1, 1, 1, 1, 100}, {1, 1, 1, 1, 1}}).median == 1);
}

TEST_CASE("tensor-core utilisation of the gathered GEMM", "[ring]") {
  Problem p; // 2 x 2048 x 4096 x 4096 = 68.7 GFLOP per rank
  CHECK(p.flops() == Approx(2.0 * 2048 * 4096 * 4096));
  // The published figures: the Pallas kernel's 102 us on 2 H100s is 68%;
  // NCCL + cuBLAS at 170 us is 41%.
  CHECK(utilisation(p, 0.102) == Approx(0.681).epsilon(0.005));
  CHECK(utilisation(p, 0.170) == Approx(0.408).epsilon(0.005));
  CHECK(utilisation(p, 0) == 0);
}

TEST_CASE("the ring's time-per-step model", "[ring]") {
  Problem p;
  ModelInputs in;
  in.floorMs = 0.100;           // 100 us for the gathered GEMM: 50 us a step
  in.linkGBs = 8.388608 / 0.02; // GB/s: an 8 MiB shard (8388608 bytes) in 20 us
  in.latencyUs = 2;
  in.exitUs = 3;
  in.clusters = 66;
  in.unitsPerStep = 64; // one wave a step: the forwarding takes a whole unit = a step
  ModelResult m = ringModel(p, in);
  CHECK(m.stepComputeUs == Approx(50));
  CHECK(m.unitUs == Approx(50));
  CHECK(m.stepTransferUs == Approx(52));
  CHECK(m.ringUs == Approx(50 + 52 + 3));
  in.unitsPerStep = 256; // 4 waves a step: the unit (12.5 us) and the link (20 us) hide
  m = ringModel(p, in);
  CHECK(m.unitUs == Approx(12.5));
  CHECK(m.stepTransferUs == Approx(22));
  CHECK(m.ringUs == Approx(50 + 50 + 3));
  in.linkGBs /= 4; // 80 us a shard: transfer-bound
  m = ringModel(p, in);
  CHECK(m.stepTransferUs == Approx(82));
  CHECK(m.ringUs == Approx(50 + 82 + 3));
  p.ranks = 4;
  in.floorMs = 0.200;
  m = ringModel(p, in);
  CHECK(m.ringUs == Approx(50 + 3 * 82 + 3));
  in.floorMs = -1; // the floor did not run: no prediction
  CHECK(ringModel(p, in).ringUs < 0);
}

TEST_CASE("the benchmark table", "[ring]") {
  BenchRow r;
  r.ring.run = r.ringCe.run = r.ncclBlas.run = r.floor.run = r.allGather.run = r.blas.run = true;
  r.ring.t.median = 0.100;
  r.ringCe.t.median = 0.098;
  r.ncclBlas.t.median = 0.170;
  r.floor.t.median = 0.095;
  r.allGather.t.median = 0.0765;
  r.blas.t.median = 0.1118;
  r.ring.err = 1e-4;
  r.ringCe.err = 3e-4;
  r.floor.err = 2e-4;
  r.linkGBs = 400;
  r.allGatherGBs = 110;
  r.clusters = 66;
  r.unitsPerStep = 64;
  r.ring.note = "ring_gemm$BN256, 66 clusters";
  r.ringCe.note = "ring_gemm_ce$BN256, 66 clusters";
  r.ceNoCopyMs = 0.0969;
  BenchRow slow = r;
  slow.ceVariants = {{"push (1 copy-engine pushes a rank, 2 counters)", 0.0969},
                     {"block (1 copy-engine pulls a rank, 16 counters)", -1}};
  slow.p.dtype = DType::BF16;
  slow.ring.t.median = 0.150;
  slow.ring.ok = false;
  // 1.08 x the floor: within the MS 1024 bar, over the MS 2048 one.
  BenchRow wide = r;
  wide.p.ms = 2048;
  wide.ringCe.t.median = 0.1026;
  BenchRow narrow = wide;
  narrow.p.ms = 1024;
  BenchRow missing = r;
  missing.ringCe = Measured();
  missing.ringCe.note = "not built (ring_gemm_ce_f16.ptx)";
  const std::string md = benchTable({r, slow, wide, narrow, missing}, "HEADER");
  INFO(md);
  CHECK(md.rfind("HEADER\n\n| dtype |", 0) == 0);
  CHECK(md.find("| f16 | 2048x4096x4096 (D=2, MS=1024) | 100.0 | 98.0 | 170.0 | 95.0 | 1.053 "
                "(meets) | 1.032 (meets) | 1.70 (meets) | 1.73 (meets) | 71% | 73% | 76.5 | "
                "111.8 | 1.0e-04 / 3.0e-04 / 2.0e-04 |") != std::string::npos);
  CHECK(md.find("| bf16 | 2048x4096x4096 (D=2, MS=1024) | 150.0 | 98.0 | 170.0 | 95.0 | 1.579 "
                "(misses) | 1.032 (meets) | 1.13 (misses) | 1.73 (meets) |") != std::string::npos);
  CHECK(md.find("(D=2, MS=2048) | 100.0 | 102.6 | ") != std::string::npos);
  CHECK(md.find("| 1.080 (misses) |") != std::string::npos);
  CHECK(md.find("| 1.080 (meets) |") != std::string::npos);
  CHECK(md.find("| 100.0 | not built (ring_gemm_ce_f16.ptx) | 170.0 | 95.0 | 1.053 (meets) | - | "
                "1.70 (meets) | - | - | 73% |") != std::string::npos);
  CHECK(md.find("- PROBLEM: bf16") != std::string::npos);
  CHECK(md.find("- PROBLEM: f16") == std::string::npos);
  // 95 us floor: Tc = Tu = 47.5 us; 8 MiB at 400 GB/s = 21 us < Tu; Tx = 49.5 us.
  // The CE ring: the pull (21 us) hides in a step: Tc + Tc + 3.
  CHECK(md.find("step compute Tc 47.5 us, unit Tu 47.5 us, SM forwarding of a shard Tx 49.5 us; "
                "predicted SM ring 100.0 us, measured 100.0 us; CE pull of a shard 21.0 us, "
                "predicted CE ring 98.0 us, measured 98.0 us") != std::string::npos);
  CHECK(md.find("- f16 MS=1024 CE ring: ring_gemm_ce$BN256, 66 clusters; fastest") !=
        std::string::npos);
  // The --ce-compare diagnostics: each against the floor, a failed check said so.
  CHECK(md.find("- bf16 MS=1024 CE ring, push (1 copy-engine pushes a rank, 2 counters): 96.9 us, "
                "1.020 x the floor\n") != std::string::npos);
  CHECK(md.find("- bf16 MS=1024 CE ring, block (1 copy-engine pulls a rank, 16 counters): its "
                "result FAILED the check\n") != std::string::npos);
  CHECK(md.find("- f16 MS=1024 CE ring, ") == std::string::npos);
  CHECK(md.find("- f16 MS=1024 CE ring without its copies (diagnostic: A already gathered, the "
                "side stream sets the counters only): 96.9 us, 1.020 x the floor") !=
        std::string::npos);
}

TEST_CASE("the CE ring's model: the pulls hide while a shard crosses faster than a step computes",
          "[ring]") {
  Problem p;
  p.ranks = 4;
  ModelInputs in;
  in.floorMs = 0.200;           // 50 us a step
  in.linkGBs = 8.388608 / 0.02; // 20 us a shard
  in.exitUs = 3;
  ModelResult m = ringModel(p, in);
  CHECK(m.ceShardUs == Approx(20));
  CHECK(m.ceRingUs == Approx(200 + 3));
  in.linkGBs /= 4; // 80 us a shard: the pulls set the pace
  m = ringModel(p, in);
  CHECK(m.ceRingUs == Approx(50 + 3 * 80 + 3));
}

// The kernel's side of the contract, as ring_gemm_ce.tile computes it:
// P = S / D, counter src * P + block * P / RB.
static int64_t kernelCounter(const Problem &p, int64_t s, int64_t src, int64_t block) {
  const int64_t pieces = s / p.ranks, blocks = p.ms / kRowBlock;
  return src * pieces + block * pieces / blocks;
}

TEST_CASE("the CE ring's copies: every counter a kernel waits for set once, after the copy of "
          "its blocks, in compute order; one write-value a copy",
          "[ring]") {
  for (int64_t d = 1; d <= 8; ++d)
    for (int64_t ms : {256, 512, 1024, 2048})
      for (int chunks : {1, 2, 3, 4, 5, 100})
        for (bool push : {false, true})
          for (bool perBlock : {false, true}) {
            Problem p;
            p.ranks = d;
            p.ms = ms;
            const int64_t rb = ms / kRowBlock;
            const CeLayout l = ceLayout(p, chunks, push, perBlock);
            const int64_t s = ceSemaphoreCount(p, l);
            CHECK(l.copies == std::min<int64_t>(chunks, rb));
            CHECK(s == d * (perBlock ? rb : l.copies)); // one counter a copy by default
            // What each receiver t gets: counter -> (setter rank, copy index);
            // the rows each copy brought into t, by 128-row block.
            std::vector<std::vector<int>> setCount(size_t(d), std::vector<int>(size_t(s), 0));
            std::vector<std::vector<int64_t>> setAt(size_t(d), std::vector<int64_t>(size_t(s), -1));
            std::vector<std::vector<int64_t>> blockAt(size_t(d),
                                                      std::vector<int64_t>(size_t(d * rb), -1));
            std::vector<std::vector<int>> blockFrom(size_t(d),
                                                    std::vector<int>(size_t(d * rb), -1));
            for (int rank = 0; rank < d; ++rank) {
              INFO("D " << d << " MS " << ms << " chunks " << chunks << " push " << push
                        << " per block " << perBlock << " rank " << rank);
              const std::vector<CeCopy> copies = ceCopies(p, rank, l);
              if (d > 1)
                CHECK(copies.size() == size_t(d - 1) * size_t(l.copies));
              int64_t lastStep = 0;
              for (size_t i = 0; i < copies.size(); ++i) {
                const CeCopy &q = copies[i];
                CHECK(q.push == push);
                CHECK(q.peer != rank);
                CHECK(q.peer >= 0);
                CHECK(q.peer < d);
                CHECK(q.rows >= kRowBlock);
                CHECK(q.firstRow % kRowBlock == 0);
                CHECK(q.rows % kRowBlock == 0);
                const int64_t src = q.firstRow / (ms), to = push ? q.peer : rank;
                CHECK(src == (q.firstRow + q.rows - 1) / ms); // one shard a copy
                CHECK(src == (push ? rank : q.peer));         // only ever from its owner
                CHECK(src != to);                             // never into its owner
                // In the receiver's compute order (a pusher's peers in the
                // order of the step that computes its shard there).
                const int64_t step = (to - src + d) % d;
                CHECK(step >= lastStep);
                lastStep = step;
                // One write-value a copy unless a counter per block was asked for.
                CHECK(q.counters == (perBlock ? q.rows / kRowBlock : 1));
                for (int64_t c = q.firstCounter; c < q.firstCounter + q.counters; ++c) {
                  REQUIRE(c >= 0);
                  REQUIRE(c < s);
                  ++setCount[size_t(to)][size_t(c)];
                  setAt[size_t(to)][size_t(c)] = int64_t(i);
                }
                for (int64_t b = q.firstRow / kRowBlock; b < (q.firstRow + q.rows) / kRowBlock;
                     ++b) {
                  CHECK(blockAt[size_t(to)][size_t(b)] == -1); // each block brought once
                  blockAt[size_t(to)][size_t(b)] = int64_t(i);
                  blockFrom[size_t(to)][size_t(b)] = rank;
                }
              }
            }
            // Every rank's kernel waits, before a block of step > 0, for the
            // counter the kernel computes: set exactly once on that rank, by
            // the copy that brought the block (the write-value follows its
            // copy on one stream), and no counter of the rank's own shard.
            for (int64_t t = 0; t < d; ++t)
              for (int64_t step = 0; step < d; ++step) {
                const int64_t src = (t - step + d) % d;
                for (int64_t b = 0; b < rb; ++b) {
                  INFO("D " << d << " MS " << ms << " chunks " << chunks << " push " << push
                            << " per block " << perBlock << " rank " << t << " step " << step
                            << " block " << b);
                  const int64_t c = kernelCounter(p, s, src, b);
                  CHECK(c == ceCounter(p, l, src, b));
                  const size_t g = size_t(src * rb + b);
                  if (step == 0) {
                    CHECK(setCount[size_t(t)][size_t(c)] == 0);
                    CHECK(blockAt[size_t(t)][g] == -1);
                    continue;
                  }
                  CHECK(setCount[size_t(t)][size_t(c)] == 1);
                  CHECK(blockAt[size_t(t)][g] >= 0);
                  CHECK(blockFrom[size_t(t)][g] == (push ? int(src) : int(t)));
                  CHECK(setAt[size_t(t)][size_t(c)] == blockAt[size_t(t)][g]);
                }
              }
          }
  Problem p;
  const CeLayout l = ceLayout(p, 1);
  CHECK(ceCopies(p, 2, l).empty()); // no such rank
  p.ranks = 1;
  CHECK(ceCopies(p, 0, l).empty()); // nothing to gather
  // The benchmark shape, D = 4: three pulls of 8 MiB, three write-values
  // (the earlier layout wrote one per 128-row block: 24).
  p.ranks = 4;
  const std::vector<CeCopy> c = ceCopies(p, 1, ceLayout(p, 1));
  REQUIRE(c.size() == 3);
  CHECK(c[0].peer == 0);
  CHECK(c[0].firstRow == 0);
  CHECK(c[0].rows == 1024);
  CHECK(c[0].firstCounter == 0);
  CHECK(c[0].counters == 1);
  CHECK(c[1].peer == 3);
  CHECK(c[1].firstCounter == 3);
  CHECK(c[2].peer == 2);
  CHECK(c[2].firstRow == 2048);
  CHECK(ceSemaphoreCount(p, ceLayout(p, 1)) == 4);
  // Pushed: rank 1's shard to ranks 2, 3, 0 (their steps 1, 2, 3), their counter 1.
  const std::vector<CeCopy> pushed = ceCopies(p, 1, ceLayout(p, 1, /*push=*/true));
  REQUIRE(pushed.size() == 3);
  CHECK(pushed[0].peer == 2);
  CHECK(pushed[1].peer == 3);
  CHECK(pushed[2].peer == 0);
  for (const CeCopy &q : pushed) {
    CHECK(q.firstRow == 1024);
    CHECK(q.firstCounter == 1);
  }
  // --ce-chunks 3 of 8 blocks: counters cover blocks [0, 3), [3, 6), [6, 8).
  const CeLayout three = ceLayout(p, 3);
  CHECK(ceCounter(p, three, 0, 2) == 0);
  CHECK(ceCounter(p, three, 0, 3) == 1);
  CHECK(ceCounter(p, three, 0, 5) == 1);
  CHECK(ceCounter(p, three, 0, 6) == 2);
  CHECK(ceCounter(p, three, 2, 7) == 8);
}
