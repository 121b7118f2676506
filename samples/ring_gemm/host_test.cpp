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

TEST_CASE("the CE ring's pulls: every block the kernel waits for, once, from its owner, in "
          "compute order",
          "[ring]") {
  for (int64_t d = 1; d <= 8; ++d)
    for (int64_t ms : {256, 512, 1024, 2048})
      for (int chunks : {1, 2, 3, 4, 100}) {
        Problem p;
        p.ranks = d;
        p.ms = ms;
        const int64_t rb = ms / kRowBlock;
        for (int rank = 0; rank < d; ++rank) {
          INFO("D " << d << " MS " << ms << " chunks " << chunks << " rank " << rank);
          const std::vector<CePull> pulls = cePulls(p, rank, chunks);
          std::vector<int> setCount(size_t(semaphoreCount(p)), 0);
          int64_t lastStep = 0;
          for (const CePull &q : pulls) {
            const int64_t src = q.firstBlock / rb;
            CHECK(q.peer == src);                             // from the shard's owner
            CHECK(q.peer != rank);                            // never this rank's own shard
            CHECK(src == (q.firstBlock + q.blocks - 1) / rb); // one shard a pull
            CHECK(q.blocks >= 1);
            CHECK(q.firstRow == q.firstBlock * kRowBlock); // the rows are the blocks' rows
            CHECK(q.rows == q.blocks * kRowBlock);
            const int64_t step = (rank - src + d) % d; // the step that computes it
            CHECK(step >= lastStep);                   // in the kernel's order
            lastStep = step;
            for (int64_t b = q.firstBlock; b < q.firstBlock + q.blocks; ++b)
              ++setCount[size_t(b)];
          }
          // The kernel (ring_gemm_ce.tile) waits for sem[src * RB + block] at
          // every step > 0: each such counter is set exactly once, no other.
          for (int64_t step = 0; step < d; ++step) {
            const int64_t src = (rank - step + d) % d;
            for (int64_t b = 0; b < rb; ++b)
              CHECK(setCount[size_t(src * rb + b)] == (step > 0 ? 1 : 0));
          }
          if (d > 1)
            CHECK(pulls.size() ==
                  size_t(d - 1) * size_t(std::min<int64_t>(std::max(chunks, 1), rb)));
        }
      }
  Problem p;
  CHECK(cePulls(p, 2, 1).empty()); // no such rank
  p.ranks = 1;
  CHECK(cePulls(p, 0, 1).empty()); // nothing to gather
}
