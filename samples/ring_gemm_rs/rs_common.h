// samples/ring_gemm_rs: the host program's pieces that need no GPU (tested by
// ring_gemm_rs_host_tests, ctest ring_gemm_rs.host):
//   - the problem (D ranks, MS rows kept per rank, N, the K-shard K) and the
//     kernel's shape rule, semaphore count and work units;
//   - the ring's schedule (which row block a rank computes at each step) and a
//     host model of the whole protocol (every running sum, every signal and
//     wait), which proves that each rank ends with the sum over all ranks of
//     its own block and that every counter is signalled once and waited once;
//   - the identity matrix the kernel's adds multiply by, the f32 running sum
//     rounded to 16 bits per hop (the kernel's numerics), the float64
//     reference of one rank's rows;
//   - the time-per-step model and the benchmark's markdown table
//     (docs/perf/ring_gemm_rs.md).
// Timing reduction and utilisation are samples/ring_gemm's (ring_common.h).
#pragma once

#include "../ring_gemm/ring_common.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rsring {

using gemm::DType;

/// ReduceScatter(A_r * B_r^T) on D ranks: rank r holds a K-shard of A
/// ([M, K], M = D*MS) and of B ([N, K], K-major) and keeps rows
/// [r*MS, (r+1)*MS) of the sum over ranks of A_q * B_q^T.
struct Problem {
  int64_t ranks = 2; // D
  int64_t ms = 1024, n = 4096, k = 4096;
  DType dtype = DType::F16;
  int64_t m() const { return ranks * ms; }
  /// The FLOPs of one rank's partial product (the local GEMM, the floor's).
  double flops() const { return 2.0 * double(m()) * double(n) * double(k); }
  /// The local GEMM [M, K] x [K, N] as samples/gemm's problem (cuBLAS, the floor).
  gemm::Problem local() const { return gemm::Problem{m(), n, k, dtype, gemm::BMajor::K}; }
  /// This rank's slice of the result: MS x N (for compareRows).
  gemm::Problem slice() const { return gemm::Problem{ms, n, k, dtype, gemm::BMajor::K}; }
  std::string shape() const {
    return "D=" + std::to_string(ranks) + " MS=" + std::to_string(ms) + " N=" + std::to_string(n) +
           " K=" + std::to_string(k);
  }
  /// "2048x4096x4096": the local GEMM each rank computes.
  std::string gemmShape() const {
    return std::to_string(m()) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  /// ring::Problem with the same numbers (its timing and utilisation helpers).
  ring::Problem asRing() const {
    ring::Problem p;
    p.ranks = ranks;
    p.ms = ms;
    p.n = n;
    p.k = k;
    p.dtype = dtype;
    return p;
  }
};

inline constexpr int64_t kRowBlock = 128; // rows of a CTA tile

/// The kernel's `sem: semaphore[S]`: one counter per 128 x BN tile of the
/// running sums, sem[row_tile * (N / BN) + col_tile].
inline int64_t semaphoreCount(const Problem &p, int64_t bn) {
  return (p.m() / kRowBlock) * (p.n / bn);
}

/// The kernel's shape rule ("" when the problem fits): MS a multiple of
/// 128 * cluster, N of BN, K of 64.
inline std::string shapeProblem(const Problem &p, int cluster, int64_t bn) {
  std::string why = ring::shapeProblem(p.asRing(), cluster, bn);
  const std::string shard = "(128-row tiles x cluster " + std::to_string(cluster) + " per shard)";
  const size_t at = why.find(shard);
  if (at != std::string::npos)
    why.replace(at, shard.size(),
                "(128-row tiles x cluster " + std::to_string(cluster) + " per scattered block)");
  return why;
}

/// Cluster work units over all D steps.
inline int64_t workUnits(const Problem &p, int cluster, int64_t bn) {
  return p.ranks * (p.ms / (kRowBlock * cluster)) * (p.n / bn);
}

inline std::string ringPtxName(DType d, bool debugHangs = false) {
  return std::string("ring_gemm_rs_") + gemm::dtypeName(d) + (debugHangs ? "_debug" : "") + ".ptx";
}

// ---------------------------------------------------------------- the schedule
/// The row block (0 .. D-1) rank `rank` computes the partial of at `step`:
/// (rank - step - 1) mod D. At the last step it is the rank's own block.
inline int64_t blockAt(int64_t rank, int64_t step, int64_t ranks) {
  return ((rank - step - 1) % ranks + 2 * ranks) % ranks;
}

// ---------------------------------------------------------------- the copy-engine ring
/// ring_gemm_rs_ce.tile: the running sums move by copy engine.
inline std::string cePtxName(DType d, bool debugHangs = false) {
  return std::string("ring_gemm_rs_ce_") + gemm::dtypeName(d) + (debugHangs ? "_debug" : "") +
         ".ptx";
}
/// The column chunks a block of running sums is pushed in (--ce-chunks):
/// `requested` capped at the block's column tiles, at least 1; 0 asks for
/// the default, chunks of at least kCeChunkBytes. The kernel derives the
/// count from its semaphore array (S = 2 D CH + 1) and cuts the N / BN
/// column tiles into chunks of ceil((N / BN) / CH) (ceChunkTiles): the side
/// stream pushes a chunk as soon as its tiles are stored, while the step's
/// other chunks still compute. Each push costs a few microseconds of the
/// side stream's latency, so chunks stay large (measured on 4 H200s: 4 MiB
/// and 8 MiB chunks alike at MS 2048, 2 MiB chunks 3-6 us a push slower;
/// docs/perf/ring_gemm_rs.md).
inline constexpr int64_t kCeChunkBytes = int64_t(8) << 20;
inline int64_t ceChunks(const Problem &p, int64_t bn, int64_t requested) {
  const int64_t colTiles = bn > 0 ? p.n / bn : 1;
  if (requested <= 0)
    requested = p.ms * p.n * 2 / kCeChunkBytes;
  return std::max<int64_t>(1, std::min(requested, colTiles));
}
inline int64_t ceChunkTiles(const Problem &p, int64_t bn, int64_t chunks) {
  const int64_t colTiles = bn > 0 ? p.n / bn : 1;
  return (colTiles + chunks - 1) / std::max<int64_t>(1, chunks);
}
/// Its counters (CH chunks): sem[b CH + c] (b < D) "the previous rank's
/// running sum of chunk c of block b is in R", sem[D CH + b CH + c] "this
/// rank's stored tiles of that chunk", sem[2 D CH] "the side stream's last
/// push is past its wait" (ceLastIndex).
inline int64_t ceSemaphoreCount(const Problem &p, int64_t chunks = 1) {
  return 2 * p.ranks * chunks + 1;
}
inline int64_t ceLastIndex(const Problem &p, int64_t chunks = 1) { return 2 * p.ranks * chunks; }

/// One push of rank `rank`'s side stream: once counter `waitIndex` reaches
/// `tiles` (every 128 x BN tile of chunk `chunk` of `block` stored in R),
/// rows [firstRow, firstRow + rows) x columns [firstCol, firstCol + cols) of
/// R go into the next rank's R (whole rows: one contiguous copy; else a
/// strided one), then the next rank's counter `setIndex` becomes 1.
struct CePush {
  int64_t step = 0, block = 0, chunk = 0;
  int64_t waitIndex = 0, tiles = 0;
  int64_t firstRow = 0, rows = 0;
  int64_t firstCol = 0, cols = 0;
  int64_t setIndex = 0;
};
/// The pushes of steps 0 .. D-2 (the last step's sum is the rank's own C),
/// each step's chunks in column order (the order the kernel completes them),
/// empty chunks left out. `chunks` as ceChunks returns it.
inline std::vector<CePush> cePushes(const Problem &p, int64_t rank, int64_t bn,
                                    int64_t chunks = 1) {
  std::vector<CePush> v;
  if (p.ranks < 2 || bn <= 0 || rank < 0 || rank >= p.ranks || chunks < 1)
    return v;
  const int64_t colTiles = p.n / bn, per = ceChunkTiles(p, bn, chunks);
  for (int64_t s = 0; s + 1 < p.ranks; ++s)
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t t0 = c * per, t1 = std::min(colTiles, t0 + per);
      if (t0 >= t1)
        continue;
      CePush q;
      q.step = s;
      q.block = blockAt(rank, s, p.ranks);
      q.chunk = c;
      q.waitIndex = p.ranks * chunks + q.block * chunks + c;
      q.tiles = (p.ms / kRowBlock) * (t1 - t0);
      q.firstRow = q.block * p.ms;
      q.rows = p.ms;
      q.firstCol = t0 * bn;
      q.cols = (t1 - t0) * bn;
      q.setIndex = q.block * chunks + c;
      v.push_back(q);
    }
  return v;
}

/// The protocol on the host, one value per (rank, block) standing for that
/// rank's partial tile of the block: what every rank sends, receives, waits
/// for and keeps. `trace` (when given) gets one line per event.
struct ProtocolResult {
  bool ok = true;
  std::string problem;            // the first thing that went wrong
  std::vector<double> kept;       // kept[r]: the sum rank r ends with (its block)
  std::map<int64_t, int> signals; // counter index -> signals received (per rank * S + i)
  int64_t waits = 0, sends = 0;
};
inline ProtocolResult simulateProtocol(int64_t ranks, int64_t rowTiles, int64_t colTiles,
                                       const std::vector<std::vector<double>> &partial,
                                       std::vector<std::string> *trace = nullptr) {
  ProtocolResult res;
  res.kept.assign(size_t(ranks), 0);
  const int64_t s = rowTiles * ranks * colTiles; // counters per rank (M/128 x N/BN)
  // R[r][block]: the running sum that arrived in rank r's R (one value a block).
  std::vector<std::map<int64_t, double>> arrived(static_cast<size_t>(ranks));
  auto fail = [&](const std::string &why) {
    if (res.ok)
      res.problem = why;
    res.ok = false;
  };
  // Lock-step over steps: step i's sends happen before step i + 1's waits
  // (the kernel's order within a rank; across ranks the semaphores give it).
  for (int64_t step = 0; step < ranks; ++step) {
    std::vector<std::pair<int64_t, std::pair<int64_t, double>>> sent; // (to, (block, value))
    for (int64_t r = 0; r < ranks; ++r) {
      const int64_t b = blockAt(r, step, ranks);
      double sum = partial[size_t(r)][size_t(b)];
      if (step > 0) {
        // wait(sem[tile], 1) for every tile of the block, then the add.
        for (int64_t t = 0; t < rowTiles * colTiles; ++t) {
          const int64_t idx = r * s + (b * rowTiles + t / colTiles) * colTiles + t % colTiles;
          ++res.waits;
          if (res.signals[idx] != 1)
            fail("rank " + std::to_string(r) + " step " + std::to_string(step) + " waits for sem[" +
                 std::to_string(idx - r * s) + "] = 1, counter is " +
                 std::to_string(res.signals[idx]));
        }
        auto it = arrived[size_t(r)].find(b);
        if (it == arrived[size_t(r)].end())
          fail("rank " + std::to_string(r) + " step " + std::to_string(step) +
               ": the running sum of block " + std::to_string(b) + " never arrived");
        else
          sum += it->second;
      }
      if (trace)
        trace->push_back("step " + std::to_string(step) + " rank " + std::to_string(r) +
                         ": block " + std::to_string(b) +
                         (step == ranks - 1 ? " -> C" : " -> rank " + std::to_string((r + 1) % ranks)));
      if (step == ranks - 1) {
        if (b != r)
          fail("rank " + std::to_string(r) + " keeps block " + std::to_string(b));
        res.kept[size_t(r)] = sum;
      } else {
        sent.push_back({(r + 1) % ranks, {b, sum}});
      }
    }
    for (const auto &[to, bv] : sent) {
      if (arrived[size_t(to)].count(bv.first))
        fail("block " + std::to_string(bv.first) + " arrives twice at rank " + std::to_string(to));
      arrived[size_t(to)][bv.first] = bv.second;
      ++res.sends;
      for (int64_t t = 0; t < rowTiles * colTiles; ++t)
        ++res.signals[to * s + (bv.first * rowTiles + t / colTiles) * colTiles + t % colTiles];
    }
  }
  for (const auto &[idx, n] : res.signals)
    if (n != 1)
      fail("counter " + std::to_string(idx) + " signalled " + std::to_string(n) + " times");
  return res;
}

// ---------------------------------------------------------------- numerics
/// The identity [bn, bn] in 16-bit bits: the B stage of the kernel's adds.
inline std::vector<uint16_t> identity(DType d, int64_t bn) {
  std::vector<uint16_t> e(size_t(bn * bn), gemm::toBits(d, 0.0f));
  for (int64_t i = 0; i < bn; ++i)
    e[size_t(i * bn + i)] = gemm::toBits(d, 1.0f);
  return e;
}

/// The kernel's numerics for one element: each hop adds its f32 partial to
/// the 16-bit running sum that arrived (exactly, in f32) and rounds the new
/// sum to 16 bits; `partials` in ring order (the first hop's first).
inline float ringSum(DType d, const std::vector<float> &partials) {
  float running = 0;
  for (size_t i = 0; i < partials.size(); ++i)
    running = gemm::fromBits(d, gemm::toBits(d, running + partials[i]));
  return running;
}

/// Rank `rank`'s rows of A_q (q = 0 .. D-1: every rank's A is drawn from
/// stream 10 + q of `seed`, so any rank can rebuild any row of it) as one
/// [MS, D*K] matrix: row i is A_0[row] | A_1[row] | ... , the concatenated
/// K of the sum. With B_cat [N, D*K] (bCat) its float64 product is the
/// reduce-scattered result.
inline uint64_t aStream(int64_t q) { return 10 + uint64_t(q); }
inline uint64_t bStream(int64_t q) { return 100 + uint64_t(q); }
inline std::vector<uint16_t> aCatRows(const Problem &p, int64_t rank, uint64_t seed) {
  const int64_t kc = p.ranks * p.k;
  std::vector<uint16_t> v(size_t(p.ms * kc));
  gemm::parallelFor(p.ms, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      for (int64_t q = 0; q < p.ranks; ++q)
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const uint64_t idx = uint64_t((rank * p.ms + i) * p.k + kk); // A_q[row, kk]
          v[size_t(i * kc + q * p.k + kk)] =
              gemm::toBits(p.dtype, gemm::normalAt(seed, aStream(q), idx));
        }
  });
  return v;
}
inline std::vector<uint16_t> bCat(const Problem &p, uint64_t seed) {
  const int64_t kc = p.ranks * p.k;
  std::vector<uint16_t> v(size_t(p.n * kc));
  gemm::parallelFor(p.n, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j)
      for (int64_t q = 0; q < p.ranks; ++q)
        for (int64_t kk = 0; kk < p.k; ++kk)
          v[size_t(j * kc + q * p.k + kk)] =
              gemm::toBits(p.dtype, gemm::normalAt(seed, bStream(q), uint64_t(j * p.k + kk)));
  });
  return v;
}
/// The concatenated problem whose float64 product is this rank's slice.
inline gemm::Problem catProblem(const Problem &p) {
  return gemm::Problem{p.ms, p.n, p.ranks * p.k, p.dtype, gemm::BMajor::K};
}

// ---------------------------------------------------------------- the model
/// Time per step (docs/multi-gpu.md, "The reduce-scatter ring"):
///   Tc   a step's GEMM: T_floor / D;
///   Tadd the adds of a step > 0: BN / 64 extra k-steps on K / 64, Tc * BN / K;
///   Tx   the running sums of a step over the link: MS * N * 2 bytes / B_link;
///   the tile a unit adds is needed only at the end of its k loop, a unit
///   after the previous rank produced it, so the link hides while Tx <= Tc:
///   T_ring = T_floor + (D - 1) * (Tadd + max(0, Tx - Tc)) + T_exit.
struct ModelInputs {
  double floorMs = -1, linkGBs = -1;
  double exitUs = 3;
  int64_t bn = 256;
};
struct ModelResult {
  double stepComputeUs = -1, addUs = -1, transferUs = -1, ringUs = -1;
};
inline ModelResult ringModel(const Problem &p, const ModelInputs &in) {
  ModelResult r;
  if (in.floorMs <= 0 || in.linkGBs <= 0 || p.k <= 0)
    return r;
  r.stepComputeUs = in.floorMs * 1e3 / double(p.ranks);
  r.addUs = r.stepComputeUs * double(in.bn) / double(p.k);
  r.transferUs = double(p.ms) * double(p.n) * 2.0 / (in.linkGBs * 1e9) * 1e6;
  r.ringUs = in.floorMs * 1e3 +
             double(p.ranks - 1) * (r.addUs + std::max(0.0, r.transferUs - r.stepComputeUs)) +
             in.exitUs;
  return r;
}

// ---------------------------------------------------------------- the table
struct BenchRow {
  Problem p;
  ring::Measured ring, ringCe, ncclBlas, floor, reduceScatter, blas; // ringCe: copy engines
  double linkGBs = -1;
  int64_t clusters = 0, unitsPerStep = 0, bn = 256;
};

inline constexpr double kBarFloor = 1.15; // ring / floor at most
inline constexpr double kBarNccl = 1.3;   // NCCL + cuBLAS / ring at least

/// The markdown table of docs/perf/ring_gemm_rs.md: both forms of the ring
/// (TMA pulls by the SMs; copy-engine pushes) against NCCL + cuBLAS and the
/// floor, every ratio flagged against its bar.
inline std::string benchTable(const std::vector<BenchRow> &rows, const std::string &header) {
  using ring::fmt;
  std::ostringstream md;
  md << header << "\n\n";
  md << "| dtype | local GEMM (per rank) | SM ring us | CE ring us | NCCL RS+cuBLAS us | floor us "
        "| "
        "SM ring / floor | CE ring / floor (bar <= 1.15) | NCCL+cuBLAS / SM ring | NCCL+cuBLAS / "
        "CE ring (bar >= 1.3) | CE ring TC util | floor TC util | reduce-scatter alone us | "
        "cuBLAS alone us | err SM / CE / floor |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto us = [](const ring::Measured &m) {
    return m.run ? fmt("%.1f", m.t.median * 1e3) : (m.note.empty() ? "-" : m.note);
  };
  auto util = [](const Problem &p, const ring::Measured &m) {
    // asRing's MG x N x K is this problem's M x N x K.
    return m.run ? fmt("%.0f%%", 100 * ring::utilisation(p.asRing(), m.t.median))
                 : std::string("-");
  };
  auto err = [](const ring::Measured &m) { return m.run ? fmt("%.1e", m.err) : std::string("-"); };
  auto vsFloor = [](const ring::Measured &ring, const ring::Measured &floor) {
    if (!ring.run || !floor.run)
      return std::string("-");
    const double f = ring.t.median / floor.t.median;
    return fmt("%.3f", f) + (f <= kBarFloor ? " (meets)" : " (misses)");
  };
  auto speedup = [](const ring::Measured &ring, const ring::Measured &ref) {
    if (!ring.run || !ref.run)
      return std::string("-");
    const double s = ref.t.median / ring.t.median;
    return fmt("%.2f", s) + (s >= kBarNccl ? " (meets)" : " (misses)");
  };
  for (const BenchRow &r : rows) {
    const Problem &p = r.p;
    md << "| " << gemm::dtypeName(p.dtype) << " | " << p.gemmShape() << " (D=" << p.ranks
       << ", MS=" << p.ms << ") | " << us(r.ring) << " | " << us(r.ringCe) << " | "
       << us(r.ncclBlas) << " | " << us(r.floor) << " | " << vsFloor(r.ring, r.floor) << " | "
       << vsFloor(r.ringCe, r.floor) << " | " << speedup(r.ring, r.ncclBlas) << " | "
       << speedup(r.ringCe, r.ncclBlas) << " | " << util(p, r.ringCe) << " | " << util(p, r.floor)
       << " | " << us(r.reduceScatter) << " | " << us(r.blas) << " | " << err(r.ring) << " / "
       << err(r.ringCe) << " / " << err(r.floor) << " |\n";
  }
  md << "\n- TC util = 2*M*N*K / time / " << ring::kPeakTflops
     << " TFLOP/s per GPU (M = D*MS, K the K-shard); err: relative Frobenius error of the "
        "rank's rows against NCCL ReduceScatter + cuBLAS (worst rank)\n";
  for (const BenchRow &r : rows) {
    const Problem &p = r.p;
    ModelInputs in;
    in.floorMs = r.floor.run ? r.floor.t.median : -1;
    in.linkGBs = r.linkGBs;
    in.bn = r.bn;
    const ModelResult m = ringModel(p, in);
    auto perStep = [&](const ring::Measured &x) {
      return fmt("%.1f",
                 (x.t.median - r.floor.t.median) * 1e3 / double(std::max<int64_t>(1, p.ranks - 1)));
    };
    if (m.ringUs > 0) {
      md << "- " << gemm::dtypeName(p.dtype) << " " << p.shape() << " per step: GEMM Tc "
         << fmt("%.1f", m.stepComputeUs) << " us, adds " << fmt("%.1f", m.addUs)
         << " us, running sums over the link " << fmt("%.1f", m.transferUs) << " us (link "
         << fmt("%.0f", r.linkGBs) << " GB/s, copy engine); predicted ring "
         << fmt("%.1f", m.ringUs) << " us";
      if (r.ring.run)
        md << "; SM ring measured " << fmt("%.1f", r.ring.t.median * 1e3) << " us, "
           << perStep(r.ring) << " us over the floor per step after the first";
      if (r.ringCe.run)
        md << "; CE ring measured " << fmt("%.1f", r.ringCe.t.median * 1e3) << " us, "
           << perStep(r.ringCe) << " us";
      md << "\n";
    }
    for (const ring::Measured *x : {&r.ring, &r.ringCe})
      if (x->run)
        md << "- " << gemm::dtypeName(p.dtype) << " " << p.shape() << " "
           << (x == &r.ring ? "SM" : "CE") << " ring: " << x->note << "; fastest "
           << fmt("%.1f", x->t.min * 1e3) << " us; median spread between ranks "
           << fmt("%.1f", x->t.spread * 1e3) << " us\n";
    if (!r.ring.ok || !r.ringCe.ok || !r.floor.ok || !r.ncclBlas.ok)
      md << "- PROBLEM: " << gemm::dtypeName(p.dtype) << " " << p.shape()
         << ": a result failed its check (see the log)\n";
  }
  return md.str();
}

} // namespace rsring
