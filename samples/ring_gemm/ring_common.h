// samples/ring_gemm: the host program's pieces that need no GPU (tested by
// ring_gemm_host_tests, ctest ring_gemm.host):
//   - the problem (D ranks, shard rows MS, N, K) and the kernel's shape rule;
//   - the semaphore count S = D * MS / 128 (one counter per 128-row block of
//     every shard; the copy-engine form: one per copy, CeLayout);
//   - the timing reduction of a collective run: every repetition takes as long
//     as its slowest rank, the result is the median over repetitions;
//   - tensor-core utilisation and the benchmark's markdown table
//     (docs/perf/ring_gemm.md);
//   - the ring's time-per-step model (docs/multi-gpu.md).
// The 16-bit conversions, random data, float64 reference and error measure are
// samples/gemm's (gemm_common.h): one definition of "correct" for both GEMMs.
#pragma once

#include "../gemm/gemm_common.h"

#include <tile/distributed.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ring {

using gemm::DType;

/// AllGather(A) * B on D ranks: rank r holds A's shard r ([MS, K], rows
/// [r*MS, (r+1)*MS) of the gathered A [MG, K], MG = D*MS) and its own B
/// ([N, K], K-major) and computes C_r = A_gathered * B_r^T ([MG, N]).
struct Problem {
  int64_t ranks = 2; // D
  int64_t ms = 1024, n = 4096, k = 4096;
  DType dtype = DType::F16;
  int64_t mg() const { return ranks * ms; }
  /// The FLOPs of one rank's GEMM (each rank multiplies the gathered A).
  double flops() const { return 2.0 * double(mg()) * double(n) * double(k); }
  /// The gathered GEMM as samples/gemm's problem (the reference and the floor).
  gemm::Problem gathered() const { return gemm::Problem{mg(), n, k, dtype, gemm::BMajor::K}; }
  std::string shape() const {
    return "D=" + std::to_string(ranks) + " MS=" + std::to_string(ms) + " N=" + std::to_string(n) +
           " K=" + std::to_string(k);
  }
  /// "2048x4096x4096": the gathered GEMM each rank computes.
  std::string gemmShape() const {
    return std::to_string(mg()) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
};

inline constexpr int64_t kRowBlock = 128; // rows a semaphore counter covers (one CTA tile)

/// The semaphore count the kernel's `sem: semaphore[S]` needs: one counter per
/// 128-row block of every shard (sem[src * RB + row_block], RB = MS / 128).
inline int64_t semaphoreCount(const Problem &p) { return p.ranks * (p.ms / kRowBlock); }

/// The kernel's shape rule, "" when the problem fits. Within a step the kernel
/// walks the shard's rows in cluster rows of `cluster` 128-row tiles, so MS is
/// a multiple of 128 * cluster; N of BN; K of 64 (samples/gemm's tile).
inline std::string shapeProblem(const Problem &p, int cluster, int64_t bn) {
  if (p.ranks < 1)
    return "the ring needs at least one rank";
  if (p.ms < 1 || p.n < 1 || p.k < 1)
    return "MS, N and K must be positive";
  const int64_t mUnit = kRowBlock * cluster;
  std::string why;
  if (p.ms % mUnit)
    why += "MS = " + std::to_string(p.ms) + " is not a multiple of " + std::to_string(mUnit) +
           " (128-row tiles x cluster " + std::to_string(cluster) + " per shard); ";
  if (p.n % bn)
    why += "N = " + std::to_string(p.n) + " is not a multiple of BN = " + std::to_string(bn) + "; ";
  if (p.k % gemm::kTileK)
    why += "K = " + std::to_string(p.k) + " is not a multiple of 64 (the k tile); ";
  if (!why.empty())
    why += "the kernel computes whole 128 x " + std::to_string(bn) +
           " x 64 tiles of every shard: pad the shards or pick a multiple";
  return why;
}

/// The ring kernel's work units (cluster work units over all D steps).
inline int64_t workUnits(const Problem &p, int cluster, int64_t bn) {
  return p.ranks * (p.ms / (kRowBlock * cluster)) * (p.n / bn);
}

/// PTX file names in the PTX directory.
inline std::string ringPtxName(DType d) {
  return std::string("ring_gemm_") + gemm::dtypeName(d) + ".ptx";
}
/// The copy-engine ring's PTX (ring_gemm_ce.tile).
inline std::string cePtxName(DType d) {
  return std::string("ring_gemm_ce_") + gemm::dtypeName(d) + ".ptx";
}

/// The two forms of the ring: `Sm` forwards each A stage from the consumers'
/// shared memory by TMA (ring_gemm.tile); `Ce` leaves the gathering to the
/// copy engines and only computes (ring_gemm_ce.tile).
enum class RingMode { Sm, Ce };
inline const char *modeName(RingMode m) { return m == RingMode::Sm ? "sm" : "ce"; }

/// How the CE ring's side streams move a shard (ring_gemm_ce.tile's host
/// contract): `copies` copies per shard, `counters` counters per shard
/// (S = D * counters; counter src * P + c covers the 128-row blocks b of
/// shard src with b * P / RB == c), each copy followed by one write-value per
/// counter it completes: a counter per 128-row block (counters == RB,
/// ring_gemm --ce-counters block, the default) or one per copy (counters ==
/// copies, --ce-counters copy: one write-value per copy, each a side-stream
/// operation the next copy queues behind). `push`: each owner's side stream pushes its shard
/// into its peers and sets their counters through their addresses, instead
/// of each rank pulling from the owners.
struct CeLayout {
  bool push = false;
  int64_t copies = 1, counters = 1; // per shard; 1 <= copies <= counters <= RB
};
/// --ce-chunks C: C copies a shard (at most one per block); C counters, or
/// one per block.
inline CeLayout ceLayout(const Problem &p, int chunks, bool push = false,
                         bool counterPerBlock = false) {
  const int64_t rb = std::max<int64_t>(1, p.ms / kRowBlock);
  CeLayout l;
  l.push = push;
  l.copies = std::max<int64_t>(1, std::min<int64_t>(chunks, rb));
  l.counters = counterPerBlock ? rb : l.copies;
  return l;
}
/// The CE kernel's `semaphore[S]`: D * P.
inline int64_t ceSemaphoreCount(const Problem &p, const CeLayout &l) {
  return p.ranks * l.counters;
}
/// The counter ring_gemm_ce.tile waits on before it loads row block `block`
/// (< RB) of shard `src`: src * P + block * P / RB.
inline int64_t ceCounter(const Problem &p, const CeLayout &l, int64_t src, int64_t block) {
  const int64_t rb = p.ms / kRowBlock;
  return src * l.counters + block * l.counters / rb;
}

/// One copy of the CE ring, queued on a rank's side stream: rows [firstRow,
/// firstRow + rows) of the gathered A, from `peer`'s part into the same rows
/// of this rank's (a pull) or from this rank's into `peer`'s (a push), then
/// counters [firstCounter, firstCounter + counters) set to 1 (this rank's
/// for a pull, `peer`'s for a push).
struct CeCopy {
  int peer = 0;
  bool push = false;
  int64_t firstRow = 0, rows = 0;
  int64_t firstCounter = 0, counters = 0;
};

/// Rank `rank`'s copies, in the order their receivers compute them. A pull
/// brings shard (rank - i) mod D from its owner for i = 1 .. D-1; a push
/// sends this rank's shard to rank (rank + i) mod D, which computes it at
/// step i. Each shard in `l.copies` pieces of whole counters (and so of
/// whole 128-row blocks). A shard only ever leaves its owner, so no copy
/// waits for another, and a rank's own shard (step 0) is never written.
inline std::vector<CeCopy> ceCopies(const Problem &p, int rank, const CeLayout &l) {
  std::vector<CeCopy> out;
  const int64_t d = p.ranks, rb = p.ms / kRowBlock, pc = l.counters, q = l.copies;
  if (d < 2 || rb < 1 || rank < 0 || rank >= d || q < 1 || pc < q || pc > rb)
    return out;
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  for (int64_t i = 1; i < d; ++i) {
    const int64_t src = l.push ? rank : (rank - i + d) % d;
    const int64_t peer = l.push ? (rank + i) % d : src;
    for (int64_t c = 0; c < q; ++c) {
      // Counters [c0, c1) of the shard (sizes differ by at most one); counter
      // j's blocks are [ceil(j RB / P), ceil((j + 1) RB / P)).
      const int64_t c0 = ceilDiv(c * pc, q), c1 = ceilDiv((c + 1) * pc, q);
      const int64_t b0 = ceilDiv(c0 * rb, pc), b1 = ceilDiv(c1 * rb, pc);
      CeCopy x;
      x.peer = int(peer);
      x.push = l.push;
      x.firstRow = (src * rb + b0) * kRowBlock;
      x.rows = (b1 - b0) * kRowBlock;
      x.firstCounter = src * pc + c0;
      x.counters = c1 - c0;
      out.push_back(x);
    }
  }
  return out;
}
/// Queues `copies` (ceCopies) of rows of `rowElems` elements of `a` on
/// `stream`, each followed by its counters in `sem` (this rank's after a
/// pull, the receiver's after a push: one write-value per counter, in stream
/// order after the copy). `withhold` copies at the end are left out (the
/// planted hang); without `move` only the counters are set. The side stream
/// of ring_ce.h runs this; the runtime's fake-driver tests check the calls.
inline void queueCeCopies(const std::vector<CeCopy> &copies, size_t rowElems,
                          const tile::SymmetricBuffer<uint16_t> &a, const tile::Semaphores &sem,
                          CUstream stream, size_t withhold = 0, bool move = true) {
  const size_t n = withhold < copies.size() ? copies.size() - withhold : 0;
  for (size_t i = 0; i < n; ++i) {
    const CeCopy &q = copies[i];
    const size_t first = size_t(q.firstRow) * rowElems, count = size_t(q.rows) * rowElems;
    if (move && q.push)
      a.pushAsync(q.peer, first, count, stream);
    else if (move)
      a.pullAsync(q.peer, first, count, stream);
    for (int64_t c = q.firstCounter; c < q.firstCounter + q.counters; ++c) {
      if (q.push)
        sem.setPeerAsync(q.peer, uint32_t(c), 1, stream);
      else
        sem.setAsync(uint32_t(c), 1, stream);
    }
  }
}
inline std::string floorPtxName(DType d) { return gemm::ptxName(d, /*multicast=*/true); }

// ---------------------------------------------------------------- timing
/// perRank[r][i]: rank r's CUDA-event time (ms) of repetition i. A collective
/// repetition is over when its slowest rank is: the result is the median over
/// repetitions of the maximum over ranks (and the minimum of those maxima).
struct Timing {
  double median = -1, min = -1; // ms
  double spread = 0;            // median over repetitions of (max - min over ranks), ms
};
inline double medianOf(std::vector<double> v) {
  if (v.empty())
    return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
inline Timing reduceTiming(const std::vector<std::vector<double>> &perRank) {
  Timing t;
  if (perRank.empty() || perRank[0].empty())
    return t;
  const size_t runs = perRank[0].size();
  std::vector<double> slowest(runs), spread(runs);
  for (size_t i = 0; i < runs; ++i) {
    double hi = perRank[0][i], lo = perRank[0][i];
    for (const std::vector<double> &r : perRank) {
      hi = std::max(hi, r.at(i));
      lo = std::min(lo, r.at(i));
    }
    slowest[i] = hi;
    spread[i] = hi - lo;
  }
  t.median = medianOf(slowest);
  t.min = *std::min_element(slowest.begin(), slowest.end());
  t.spread = medianOf(spread);
  return t;
}

// ---------------------------------------------------------------- utilisation
/// The dense f16/bf16 tensor-core peak the table divides by: 989.4 TFLOP/s
/// (H100 SXM datasheet; the H200 has the same SMs and clocks, so the same
/// figure), as samples/gemm's floor line.
inline constexpr double kPeakTflops = gemm::kH100SxmDenseTflops;
/// Tensor-core utilisation of one rank: 2*MG*N*K / time / peak.
inline double utilisation(const Problem &p, double ms, double peakTflops = kPeakTflops) {
  return ms > 0 ? p.flops() / (ms * 1e-3) / (peakTflops * 1e12) : 0;
}

// ---------------------------------------------------------------- the model
/// The ring's time per step (docs/multi-gpu.md, "A model of the ring"):
///   Tc  compute of a step: the local GEMM's rate on MS of the MG rows,
///       T_floor / D;
///   Tu  one work unit (a 128-row x BN tile pair of a cluster): a step's units
///       run in ceil(units per step / clusters) waves, Tu = Tc / waves;
///   Tx  the forwarding of a shard: it leaves with the tn == 0 units (each A
///       stage is stored to the next rank as it is consumed), so it cannot be
///       faster than one unit, nor than the link: max(Tu, bytes / B_link) + L
///       (L: the signal's latency across the link);
///   T_ring = Tc + (D - 1) * max(Tc, Tx) + T_exit (the exit protocol's round
///       trip of signals).
/// Step i + 1 of a rank can run at full speed when the shard it needs arrived
/// within the previous step: Tx <= Tc, i.e. the link carries bytes(MS x K)
/// in less than a step's compute.
struct ModelInputs {
  double floorMs = -1;      // measured local GEMM on the gathered shape
  double linkGBs = -1;      // one-direction bandwidth a forwarding gets, GB/s
  double latencyUs = 2;     // signal latency across the link, us
  double exitUs = 3;        // the exit protocol: a round trip of signals, us
  int64_t clusters = 0;     // the ring's persistent grid (clusters); 0: one wave a step
  int64_t unitsPerStep = 0; // cluster work units of one step
};
struct ModelResult {
  double stepComputeUs = -1, unitUs = -1, stepTransferUs = -1, ringUs = -1;
  /// The copy-engine ring: the pulls run back to back at link speed from the
  /// launch on, so shard i is there at i * bytes / B_link and step i needs it
  /// at i * Tc: T_ce = Tc + (D - 1) * max(Tc, bytes / B_link) + T_exit (no
  /// unit term, no signal latency on the compute's path).
  double ceShardUs = -1, ceRingUs = -1;
};
inline ModelResult ringModel(const Problem &p, const ModelInputs &in) {
  ModelResult r;
  if (in.floorMs <= 0 || in.linkGBs <= 0)
    return r;
  const double shardBytes = double(p.ms) * double(p.k) * 2.0;
  r.stepComputeUs = in.floorMs * 1e3 / double(p.ranks);
  const int64_t waves = in.clusters > 0 && in.unitsPerStep > 0
                            ? (in.unitsPerStep + in.clusters - 1) / in.clusters
                            : 1;
  r.unitUs = r.stepComputeUs / double(waves);
  r.stepTransferUs = std::max(r.unitUs, shardBytes / (in.linkGBs * 1e9) * 1e6) + in.latencyUs;
  r.ringUs = r.stepComputeUs + double(p.ranks - 1) * std::max(r.stepComputeUs, r.stepTransferUs) +
             in.exitUs;
  r.ceShardUs = shardBytes / (in.linkGBs * 1e9) * 1e6;
  r.ceRingUs =
      r.stepComputeUs + double(p.ranks - 1) * std::max(r.stepComputeUs, r.ceShardUs) + in.exitUs;
  return r;
}

// ---------------------------------------------------------------- the table
struct Measured {
  bool run = false;
  std::string note; // why not run / what ran
  Timing t;
  double err = -1; // rel. Frobenius error against cuBLAS (worst rank)
  bool ok = true;  // checked and within tolerance on every rank
};
struct BenchRow {
  Problem p;
  Measured ring, ringCe, ncclBlas, floor, allGather,
      blas;                               // ring: SM forwarding; ringCe: copy engines
  double linkGBs = -1;                    // a copy engine's shard copy into the next rank, GB/s
  double allGatherGBs = -1;               // bytes each rank receives / all-gather alone, GB/s
  int64_t clusters = 0, unitsPerStep = 0; // the ring's grid and work per step
  double ceNoCopyMs = -1; // diagnostic: the CE ring with its counters set but no copies
  // Diagnostics: the CE ring in other layouts (--ce-compare): what, median ms
  // (-1: its result failed the check).
  std::vector<std::pair<std::string, double>> ceVariants;
};

inline std::string fmt(const char *f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

/// The bars a row is flagged against: NCCL + cuBLAS / ring at least kBarNccl;
/// ring / local floor at most barFloor(ms) (a larger shard per step hides more
/// of the fixed per-step cost, so its bar is tighter).
inline constexpr double kBarNccl = 1.3;
inline double barFloor(int64_t ms) { return ms >= 2048 ? 1.06 : 1.10; }

/// The markdown table of docs/perf/ring_gemm.md: both forms of the ring
/// (SM forwarding, copy engines) against NCCL + cuBLAS and the floor, every
/// ratio flagged against its bar. `header` describes the run (device, ranks,
/// NCCL/cuBLAS versions, repetitions).
inline std::string benchTable(const std::vector<BenchRow> &rows, const std::string &header) {
  std::ostringstream md;
  md << header << "\n\n";
  md << "| dtype | gathered GEMM (per rank) | SM ring us | CE ring us | NCCL+cuBLAS us | floor us "
        "| "
        "SM ring / floor | CE ring / floor (bar <= 1.10; 1.06 at MS >= 2048) | NCCL+cuBLAS / SM "
        "ring | NCCL+cuBLAS / CE ring (bar >= 1.3) | CE ring TC util | floor TC util | "
        "all-gather alone us | cuBLAS alone us | err SM / CE / floor |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto us = [](const Measured &m) {
    return m.run ? fmt("%.1f", m.t.median * 1e3) : (m.note.empty() ? "-" : m.note);
  };
  auto util = [](const Problem &p, const Measured &m) {
    return m.run ? fmt("%.0f%%", 100 * utilisation(p, m.t.median)) : std::string("-");
  };
  auto err = [](const Measured &m) { return m.run ? fmt("%.1e", m.err) : std::string("-"); };
  // ring / floor against its bar, NCCL + cuBLAS / ring against its bar.
  auto vsFloor = [](const Problem &p, const Measured &ring, const Measured &floor) {
    if (!ring.run || !floor.run)
      return std::string("-");
    const double f = ring.t.median / floor.t.median;
    return fmt("%.3f", f) + (f <= barFloor(p.ms) ? " (meets)" : " (misses)");
  };
  auto speedup = [](const Measured &ring, const Measured &ref) {
    if (!ring.run || !ref.run)
      return std::string("-");
    const double s = ref.t.median / ring.t.median;
    return fmt("%.2f", s) + (s >= kBarNccl ? " (meets)" : " (misses)");
  };
  for (const BenchRow &r : rows) {
    const Problem &p = r.p;
    md << "| " << gemm::dtypeName(p.dtype) << " | " << p.gemmShape() << " (D=" << p.ranks
       << ", MS=" << p.ms << ") | " << us(r.ring) << " | " << us(r.ringCe) << " | "
       << us(r.ncclBlas) << " | " << us(r.floor) << " | " << vsFloor(p, r.ring, r.floor) << " | "
       << vsFloor(p, r.ringCe, r.floor) << " | " << speedup(r.ring, r.ncclBlas) << " | "
       << speedup(r.ringCe, r.ncclBlas) << " | " << util(p, r.ringCe) << " | " << util(p, r.floor)
       << " | " << us(r.allGather) << " | " << us(r.blas) << " | " << err(r.ring) << " / "
       << err(r.ringCe) << " / " << err(r.floor) << " |\n";
  }
  md << "\n- TC util = 2*MG*N*K / time / " << kPeakTflops
     << " TFLOP/s (dense f16/bf16 peak of an H100/H200 SXM) per GPU; every time is the "
        "median over repetitions of the slowest rank's CUDA-event time\n";
  for (const BenchRow &r : rows) {
    const Problem &p = r.p;
    if (r.linkGBs > 0) {
      ModelInputs in;
      in.floorMs = r.floor.run ? r.floor.t.median : -1;
      in.linkGBs = r.linkGBs;
      in.clusters = r.clusters;
      in.unitsPerStep = r.unitsPerStep;
      const ModelResult m = ringModel(p, in);
      md << "- " << gemm::dtypeName(p.dtype) << " MS=" << p.ms
         << " model (docs/multi-gpu.md): link " << fmt("%.0f", r.linkGBs)
         << " GB/s per direction (copy engine, shard into the next rank)";
      if (r.allGatherGBs > 0)
        md << ", all-gather alone " << fmt("%.0f", r.allGatherGBs) << " GB/s";
      if (m.ringUs > 0) {
        md << "; step compute Tc " << fmt("%.1f", m.stepComputeUs) << " us, unit Tu "
           << fmt("%.1f", m.unitUs) << " us, SM forwarding of a shard Tx "
           << fmt("%.1f", m.stepTransferUs) << " us; predicted SM ring " << fmt("%.1f", m.ringUs)
           << " us"
           << (r.ring.run ? ", measured " + fmt("%.1f", r.ring.t.median * 1e3) + " us" : "");
        md << "; CE pull of a shard " << fmt("%.1f", m.ceShardUs) << " us, predicted CE ring "
           << fmt("%.1f", m.ceRingUs) << " us"
           << (r.ringCe.run ? ", measured " + fmt("%.1f", r.ringCe.t.median * 1e3) + " us" : "");
      }
      md << "\n";
    }
    for (const Measured *m : {&r.ring, &r.ringCe})
      if (m->run)
        md << "- " << gemm::dtypeName(p.dtype) << " MS=" << p.ms << " "
           << (m == &r.ring ? "SM" : "CE") << " ring: " << m->note << "; fastest "
           << fmt("%.1f", m->t.min * 1e3) << " us; median spread between ranks "
           << fmt("%.1f", m->t.spread * 1e3) << " us\n";
    if (r.ceNoCopyMs > 0)
      md << "- " << gemm::dtypeName(p.dtype) << " MS=" << p.ms
         << " CE ring without its copies (diagnostic: A already gathered, the side stream sets "
            "the counters only): "
         << fmt("%.1f", r.ceNoCopyMs * 1e3) << " us"
         << (r.floor.run ? ", " + fmt("%.3f", r.ceNoCopyMs / r.floor.t.median) + " x the floor"
                         : std::string())
         << "\n";
    for (const auto &v : r.ceVariants)
      md << "- " << gemm::dtypeName(p.dtype) << " MS=" << p.ms << " CE ring, " << v.first << ": "
         << (v.second > 0 ? fmt("%.1f us", v.second * 1e3) +
                                (r.floor.run ? ", " + fmt("%.3f", v.second / r.floor.t.median) +
                                                   " x the floor"
                                             : std::string())
                          : std::string("its result FAILED the check"))
         << "\n";
    if (!r.ring.ok || !r.ringCe.ok || !r.floor.ok || !r.ncclBlas.ok)
      md << "- PROBLEM: " << gemm::dtypeName(p.dtype) << " " << p.shape()
         << ": a result failed its check (see the log)\n";
  }
  return md.str();
}

} // namespace ring
