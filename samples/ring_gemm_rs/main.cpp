// ring_gemm_rs: C_r = rows [r*MS, (r+1)*MS) of sum_q A_q * B_q^T on D GPUs by
// the reduce-scatter ring GEMM (samples/ring_gemm_rs/ring_gemm_rs.tile through
// the tilec runtime), one process per GPU, checked against NCCL ReduceScatter
// + cuBLAS and float64 in the same processes and benchmarked against NCCL +
// cuBLAS and the no-communication floor (samples/gemm's tilec GEMM on the
// local [M, K] x [K, N]).
//
//   tilec-run -n D ring_gemm_rs [--check] [--mode sm|ce] [--ce-chunks C] [--ms MS] [--n N]
//        [--k K] [--dtype f16|bf16] [--seed S] [--cpu-macs X] [--repeat R] [--clusters N]
//        [--ptx PATH] [--skip-code C]
//   tilec-run -n D ring_gemm_rs --bench [--shapes MSxNxK,...] [--dtypes f16,bf16]
//        [--modes sm,ce] [--runs 30] [--warmup 10] [--out FILE.md]
//   tilec-run -n D ring_gemm_rs --hang-test [--mode sm|ce] --ptx ring_gemm_rs_f16_debug.ptx
//
// Two forms (--mode): `sm` (ring_gemm_rs.tile) stores each running sum in
// this rank's R and the next rank's producer pulls it by TMA through the peer
// map during its unit; `ce` (ring_gemm_rs_ce.tile) leaves the traffic to the
// copy engines: a side stream waits for each step's block, pushes it into the
// next rank's R and sets that rank's counter (rs_ce.h); the next rank adds it
// from its own R at the end of its unit. --ce-chunks C: each block pushed in C
// column chunks, each as soon as its tiles are stored (default: chunks of at
// least 8 MiB, MS x N x 2 bytes / 8 MiB of them: 1 at MS 1024, 2 at MS 2048
// for N 4096). --bench
// measures the SM form, both with --modes sm,ce.
//
// Rank r holds A_r [M, K] (M = D*MS, K the K-shard) and B_r [N, K] (K-major),
// fresh standard normal values from --seed (stream 10 + r for A, 100 + r for
// B: any rank can rebuild any rank's rows for the float64 reference). Defaults:
// MS 1024, N 4096, K 4096 (the local GEMM of the all-gather ring's issue shape).
// Before each ring launch the symmetric R (where running sums arrive) and C
// are poisoned (all bits set: NaN) and the ranks meet at a barrier.
// --check, every rank: NCCL ReduceScatter of cuBLAS's partial products against
// float64 (sampled rows of this rank's slice), the ring's C against float64 and
// against NCCL + cuBLAS (all of C): relative Frobenius error below 2e-3 (f16) /
// 1e-2 (bf16), nothing non-finite; the semaphores reset and the exit counter
// at epoch * (D - 1) after each launch.
// --bench: the ring, NCCL ReduceScatter + cuBLAS, the floor, the
// reduce-scatter alone, cuBLAS alone, a copy-engine copy of a block of running
// sums into the next rank (the link); medians of --runs after --warmup, every
// repetition as long as its slowest rank; rank 0 writes the table.
// --hang-test: the last rank does not launch (with --mode ce: every rank
// launches with the last push of its side stream withheld); every other rank
// launches the kernel built with tilec --debug-hangs (--ptx), whose semaphore
// wait must time out and the runtime report it from the kernel's hang record
// (`tilec: hang: device R: wait(sem[i], V) ...: counter is X`), exit 3.
//
// Exit: 0 pass, 1 fail, 2 bad arguments or a shape the kernel rejects,
// --skip-code (77) with fewer than 2 CUDA devices or (--check) no ring PTX.
#include "rs_common.h"

#include "../common/ring_driver.h"
#include "rs_ce.h"

namespace {

using gemm::dtypeNamed;
using ring::RingMode;
using rsring::DType;
using rsring::Problem;

using Options = ringdrv::Options<Problem>;

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "ring_gemm_rs: %s\n"
               "usage: tilec-run -n D ring_gemm_rs [--check] [--mode sm|ce] [--ce-chunks C] "
               "[--ms MS] [--n N]\n"
               "            [--k K] [--dtype f16|bf16] [--seed S] [--cpu-macs X] [--repeat R] "
               "[--clusters N]\n"
               "            [--ptx PATH] [--skip-code C]\n"
               "       tilec-run -n D ring_gemm_rs --bench [--shapes MSxNxK,...] [--dtypes "
               "f16,bf16] [--modes sm,ce]\n"
               "            [--runs R] [--warmup W] [--out FILE.md]\n"
               "       tilec-run -n D ring_gemm_rs --hang-test [--mode sm|ce] --ptx "
               "ring_gemm_rs_f16_debug.ptx\n",
               msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  // Its own flags: --mode (the ring's form), --ce-chunks (column chunks per
  // pushed block of the copy-engine form).
  bool chunksGiven = false;
  Options o = ringdrv::parseOptions<Problem>(
      argc, argv, usage, 20261128, [&](const std::string &f, sample::ArgReader &r, Options &o) {
        if (f == "--ce-chunks") {
          o.ceChunks = int(r.intIn(1, 1024));
          chunksGiven = true;
          return true;
        }
        if (f != "--mode")
          return false;
        const std::string m = r.value();
        if (m != "sm" && m != "ce")
          usage(("--mode takes sm or ce, not '" + m + "'").c_str());
        o.mode = m == "ce" ? RingMode::Ce : RingMode::Sm;
        return true;
      });
  if (!chunksGiven)
    o.ceChunks = 0; // rsring::ceChunks's default: chunks of at least 8 MiB
  return o;
}

using ringdrv::comparisonLine;
using ringdrv::fileExists;
using ringdrv::printInRankOrder;

// The PTX of the ring's `mode` (--ptx overrides it for --check / --hang-test).
std::string ringPtxPath(const Options &o, DType d, RingMode mode) {
  if (!o.ptx.empty() && !o.bench)
    return o.ptx;
  return sample::ptxDir() + "/" +
         (mode == RingMode::Ce ? rsring::cePtxName(d) : rsring::ringPtxName(d));
}
const char *ringEntry(RingMode mode) {
  return mode == RingMode::Ce ? "ring_gemm_rs_ce" : "ring_gemm_rs";
}
// ---------------------------------------------------------------- one rank's problem
struct RankData {
  Problem p;
  int rank;
  int64_t bn;
  tile::DeviceBuffer<uint16_t> dA, dB, dE, partial, ref, floorC, ringC;
  tile::SymmetricBuffer<uint16_t> symR; // running sums arrive here: [M, N]
  tile::Semaphores sem;                 // the SM ring's: one counter per tile
  int64_t chunks;                       // the CE ring's column chunks per block
  tile::Semaphores semCe;               // the CE ring's: 2 D CH + 1 (rsring::ceSemaphoreCount)

  RankData(const tile::Communicator &comm, const Problem &pp, uint64_t seed, int64_t bn_,
           int64_t ceChunks)
      : p(pp), rank(comm.rank()), bn(bn_), dA(comm.context(), size_t(p.m() * p.k)),
        dB(comm.context(), size_t(p.n * p.k)), dE(comm.context(), size_t(bn * bn)),
        partial(comm.context(), size_t(p.m() * p.n)), ref(comm.context(), size_t(p.ms * p.n)),
        floorC(comm.context(), size_t(p.m() * p.n)), ringC(comm.context(), size_t(p.ms * p.n)),
        symR(comm, size_t(p.m() * p.n)), sem(comm, uint32_t(rsring::semaphoreCount(p, bn))),
        chunks(rsring::ceChunks(p, bn, ceChunks)),
        semCe(comm, uint32_t(rsring::ceSemaphoreCount(p, chunks))) {
    dA.copyFrom(gemm::randomNormal(p.dtype, size_t(p.m() * p.k), seed, rsring::aStream(rank)));
    dB.copyFrom(gemm::randomNormal(p.dtype, size_t(p.n * p.k), seed, rsring::bStream(rank)));
    dE.copyFrom(rsring::identity(p.dtype, bn));
    poisonRingOutputs();
  }
  // R and C all bits set (NaN): a running sum never sent or an element never
  // written fails the check. Synchronous; the caller meets the others at a
  // barrier before the ring runs.
  void poisonRingOutputs() {
    symR.fillBytes(0xff);
    ringC.fillBytes(0xff);
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  tile::TensorElement element() const { return gemm::tensorElement(p.dtype); }
  tile::Tensor aTensor() const { return tile::Tensor(dA.ptr(), element(), {p.m(), p.k}); }
  tile::Tensor bTensor() const { return tile::Tensor(dB.ptr(), element(), {p.n, p.k}); }
  tile::Tensor eTensor() const { return tile::Tensor(dE.ptr(), element(), {bn, bn}); }
  tile::Tensor rTensor() const { return symR.symmetricTensor(element(), {p.m(), p.n}); }
  tile::Tensor cTensor() const { return tile::Tensor(ringC.ptr(), element(), {p.ms, p.n}); }
};

// ---------------------------------------------------------------- the ring kernel
using ringdrv::RingKernel;

RingKernel loadRing(tile::Context &ctx, const std::string &ptx, RingMode mode) {
  return ringdrv::loadRing(ctx, ptx, ringEntry(mode), 0);
}
int64_t ringClusters(RingKernel &k, RankData &d, int64_t clusters) {
  return ringdrv::ringClusters(k, rsring::workUnits(d.p, k.cluster, k.bn), clusters, d.aTensor(),
                               d.bTensor(), d.eTensor(), d.rTensor(), d.cTensor(), d.sem);
}
// One launch of the ring in `mode` on kStream; the CE form queues its side
// stream's work on `ce` beside it (withholding the last `withhold` pushes).
void launchRing(RingKernel &k, RankData &d, int64_t clusters, RingMode mode = RingMode::Sm,
                rsring::CeSide *ce = nullptr, size_t withhold = 0) {
  if (mode == RingMode::Sm) {
    ringdrv::launchRing(k, clusters, d.aTensor(), d.bTensor(), d.eTensor(), d.rTensor(),
                        d.cTensor(), d.sem);
    return;
  }
  const int next = int((d.rank + 1) % d.p.ranks);
  ce->run(
      rsring::cePushes(d.p, d.rank, k.bn, d.chunks), size_t(d.p.n), next, d.symR, d.semCe,
      uint32_t(rsring::ceLastIndex(d.p, d.chunks)),
      [&] {
        ringdrv::launchRing(k, clusters, d.aTensor(), d.bTensor(), d.eTensor(), d.rTensor(),
                            d.cTensor(), d.semCe);
      },
      withhold);
}

// The reference: cuBLAS's partial product, then NCCL's reduce-scatter of it.
void referenceRun(RankData &d, gemm::Cublas &blas, ring::Nccl &nccl) {
  blas.gemm(d.p.local(), d.dA.ptr(), d.dB.ptr(), d.partial.ptr());
  nccl.reduceScatter(d.p.dtype, d.partial.ptr(), d.ref.ptr(), size_t(d.p.ms * d.p.n));
}

gemm::Comparison againstReference(const RankData &d, const std::vector<uint16_t> &got,
                                  const std::vector<uint16_t> &ref) {
  const gemm::Problem g = d.p.slice();
  return gemm::compareRows(g, got, gemm::allRows(g), [&](size_t r, int64_t j) {
    return double(gemm::fromBits(g.dtype, ref[r * size_t(g.n) + size_t(j)]));
  });
}

std::string semaphoreLine(const RankData &d, RingMode mode, const std::string &what, bool &ok) {
  return ringdrv::semaphoreLine(mode == RingMode::Ce ? d.semCe : d.sem, d.p.ranks, what, ok);
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o, const tile::Communicator &comm, ring::Nccl &nccl) {
  Problem p = o.problem;
  p.ranks = comm.size();
  const double tol = gemm::tolerance(p.dtype);
  const std::string ptx = ringPtxPath(o, p.dtype, o.mode);
  const bool havePtx = fileExists(ptx);
  std::ostringstream log;
  bool ok = true;
  int code = 1;
  try {
    gemm::Cublas blas;
    const int64_t bn = ringdrv::kernelShape(ptx, ringEntry(o.mode), 0).bn;
    RankData d(comm, p, o.seed, bn, o.ceChunks);
    comm.barrier();
    if (comm.rank() == 0)
      log << "ring_gemm_rs --check --mode " << ring::modeName(o.mode) << " " << p.shape() << " "
          << gemm::dtypeName(p.dtype) << ", seed " << o.seed << "\n";
    log << "rank " << comm.rank() << " (device " << comm.device() << ", " << comm.context().name()
        << "):\n";

    d.ref.fillBytes(0xff);
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    referenceRun(d, blas, nccl);
    SAMPLE_CUDA_CHECK(cudaGetLastError());
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<uint16_t> ref = d.ref.toHost();

    // float64 on sampled rows of this rank's slice: the concatenated K.
    const gemm::Problem cat = rsring::catProblem(p);
    const std::vector<int64_t> rows = gemm::referenceRows(cat, o.cpuMacs);
    const std::vector<double> cpu =
        gemm::referenceGemm(cat, rsring::aCatRows(p, comm.rank(), o.seed), rsring::bCat(p, o.seed),
                            rows);
    auto cpuAt = [&](size_t r, int64_t j) { return cpu[r * size_t(p.n) + size_t(j)]; };
    const gemm::Problem slice = p.slice();
    log << "  float64 CPU reference: "
        << (rows.size() == size_t(p.ms) ? std::string("every row of the slice")
                                        : std::to_string(rows.size()) + " rows spread over MS")
        << " (K = " << p.ranks << " x " << p.k << ")\n";
    log << comparisonLine("NCCL RS + cuBLAS vs float64:", gemm::compareRows(slice, ref, rows, cpuAt),
                          tol, ok);

    if (!havePtx) {
      log << "  no ring PTX at " << ptx << ": only the reference was checked\n";
      code = ok ? o.skipCode : 1;
    } else {
      RingKernel k = loadRing(comm.context(), ptx, o.mode);
      const int64_t clusters = ringClusters(k, d, o.clusters);
      rsring::CeSide ce;
      log << "  tilec: " << k.kernel.name() << " (" << ptx << "), cluster " << k.cluster << ", "
          << k.threads << " threads, " << clusters << " clusters (persistent), "
          << (o.mode == RingMode::Ce ? rsring::ceSemaphoreCount(p, d.chunks)
                                     : rsring::semaphoreCount(p, k.bn))
          << " semaphores"
          << (o.mode == RingMode::Ce ? "; running sums pushed by copy engines, " +
                                           std::to_string(d.chunks) + " column chunk(s) a block"
                                     : std::string())
          << "\n";
      for (int rep = 0; rep < o.repeat; ++rep) {
        if (rep > 0)
          d.poisonRingOutputs();
        comm.barrier();
        launchRing(k, d, clusters, o.mode, &ce);
        SAMPLE_CUDA_CHECK(cudaGetLastError());
        SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<uint16_t> got = d.ringC.toHost();
        const std::string n = std::to_string(rep + 1);
        log << comparisonLine(("ring #" + n + " vs float64:").c_str(),
                              gemm::compareRows(slice, got, rows, cpuAt), tol, ok);
        log << comparisonLine(("ring #" + n + " vs NCCL RS + cuBLAS:").c_str(),
                              againstReference(d, got, ref), tol, ok);
        log << semaphoreLine(d, o.mode, "  ring #" + n, ok);
      }
      code = ok ? 0 : 1;
    }
  } catch (const std::exception &e) {
    std::fputs(log.str().c_str(), stdout);
    std::fflush(stdout);
    std::fprintf(stderr, "ring_gemm_rs: rank %d: %s\n", comm.rank(), e.what());
    return 1;
  }
  log << "rank " << comm.rank() << ": " << (code == 0 ? "PASS" : ok ? "SKIP" : "FAIL") << "\n";
  printInRankOrder(comm, log.str());
  return code;
}

// ---------------------------------------------------------------- --hang-test
// The last rank never launches: the others' first wait for a running sum
// from it (or from a rank waiting on it) must time out with the report.
// With --mode ce every rank launches, and its side stream withholds the last
// push: the next rank's wait for that block must time out.
int runHangTest(const Options &o, const tile::Communicator &comm) {
  Problem p = o.problem;
  p.ranks = comm.size();
  RingKernel k = loadRing(comm.context(), o.ptx, o.mode);
  RankData d(comm, p, o.seed, k.bn, o.ceChunks);
  const int64_t clusters = ringClusters(k, d, o.clusters);
  if (o.mode == RingMode::Sm)
    return ringdrv::runHangTest(comm, [&] { launchRing(k, d, clusters); });
  rsring::CeSide ce;
  return ringdrv::runHangTest(
      comm, [&] { launchRing(k, d, clusters, o.mode, &ce); },
      [&] { launchRing(k, d, clusters, o.mode, &ce, /*withhold=*/1); });
}

// ---------------------------------------------------------------- --bench
int runBench(const Options &o, const tile::Communicator &comm, ring::Nccl &nccl) {
  tile::Context &ctx = comm.context();
  gemm::Cublas blas;
  const int clockKhz = ctx.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  std::ostringstream header;
  header << "Reduce-scatter ring GEMM C_r = rows r of sum_q A_q * B_q^T on " << comm.size()
         << " x " << ctx.name() << " (" << ctx.smCount() << " SMs, " << clockKhz / 1000
         << " MHz), one process per GPU (tilec-run); NCCL " << ring::Nccl::version()
         << ", cuBLAS " << blas.version() << " (cublasGemmEx, CUBLAS_COMPUTE_32F, 16-bit partial "
         << "products, then ncclReduceScatter ncclSum); normal(0, 1) inputs (seed " << o.seed
         << "); per repetition a stream-ordered barrier (one-element ncclAllReduce), then CUDA "
         << "events around the work on every rank; the slowest rank's time, median of " << o.runs
         << " after " << o.warmup << " warm-up repetitions. `floor` = tilec's local GEMM "
         << "(samples/gemm gemm_<dtype>_mc) on [M, K] x [K, N], no communication.";
  if (comm.rank() == 0) {
    std::printf("%s\n", header.str().c_str());
    std::fflush(stdout);
  }
  std::vector<rsring::BenchRow> rows;
  bool allPass = true;
  for (const Problem &shape : o.shapes)
    for (DType dt : o.dtypes) {
      rsring::BenchRow row;
      Problem &p = row.p;
      p = shape;
      p.ranks = comm.size();
      p.dtype = dt;
      const double tol = gemm::tolerance(dt);
      // Both forms' kernels (BN from the SM ring's, the contract's 256 without it).
      const std::string ptx = ringPtxPath(o, dt, RingMode::Sm);
      const std::string cePtx = ringPtxPath(o, dt, RingMode::Ce);
      const bool havePtx = fileExists(ptx), haveCePtx = fileExists(cePtx);
      RingKernel k, kCe;
      if (havePtx)
        k = loadRing(ctx, ptx, RingMode::Sm);
      if (haveCePtx)
        kCe = loadRing(ctx, cePtx, RingMode::Ce);
      row.bn = havePtx ? k.bn : haveCePtx ? kCe.bn : 256;
      RankData d(comm, p, o.seed, row.bn, o.ceChunks);
      comm.barrier();
      auto checked = [&](ring::Measured &m, const std::vector<uint16_t> &got,
                         const std::vector<uint16_t> &ref, const gemm::Problem &g) {
        ringdrv::checkAllRanks(nccl, m, g, got, ref, tol);
      };

      d.ref.fillBytes(0xff);
      row.ncclBlas.t = ring::timeCollective(nccl, [&] { referenceRun(d, blas, nccl); }, o.warmup,
                                            o.runs);
      row.ncclBlas.run = true;
      const std::vector<uint16_t> ref = d.ref.toHost();
      const std::vector<uint16_t> partialHost = d.partial.toHost();
      {
        // The reference against float64 on a few rows of this rank's slice.
        const gemm::Problem cat = rsring::catProblem(p);
        const std::vector<int64_t> cpuRows = gemm::referenceRows(cat, double(1ull << 26));
        const std::vector<double> cpu = gemm::referenceGemm(
            cat, rsring::aCatRows(p, comm.rank(), o.seed), rsring::bCat(p, o.seed), cpuRows);
        const gemm::Comparison c =
            gemm::compareRows(p.slice(), ref, cpuRows, [&](size_t r, int64_t j) {
              return cpu[r * size_t(p.n) + size_t(j)];
            });
        row.ncclBlas.err = c.relFrobenius;
        row.ncclBlas.ok = c.nonFinite == 0 && c.relFrobenius < tol;
      }
      row.reduceScatter.t = ring::timeCollective(
          nccl,
          [&] {
            nccl.reduceScatter(dt, d.partial.ptr(), d.ref.ptr(), size_t(p.ms * p.n));
          },
          o.warmup, o.runs);
      row.reduceScatter.run = true;
      // The link as the ring uses it: every rank at once writes a block of
      // running sums (MS x N) into the next rank's R (a copy engine).
      row.linkGBs = ringdrv::measureLink(comm, nccl,
                                         d.symR.peerPtr((comm.rank() + 1) % comm.size()),
                                         d.partial.ptr(), size_t(p.ms * p.n) * 2, o.warmup,
                                         o.runs, "ring_gemm_rs");
      row.blas.t = ring::timeCollective(
          nccl, [&] { blas.gemm(p.local(), d.dA.ptr(), d.dB.ptr(), d.partial.ptr()); }, o.warmup,
          o.runs);
      row.blas.run = true;

      // The floor: samples/gemm's tilec GEMM on the local problem.
      ringdrv::measureFloor(ctx, nccl, p.local(), d.dA.ptr(), d.dB.ptr(), d.floorC, partialHost,
                            o.warmup, o.runs, row.floor);

      // The tilec ring, both forms: TMA pulls by the SMs, then copy engines.
      rsring::CeSide ce;
      // Default: the SM form only (the copy-engine form by --modes sm,ce).
      const std::vector<RingMode> modes =
          o.benchModes.empty() ? std::vector<RingMode>{RingMode::Sm} : o.benchModes;
      row.ringCe.note = "not run (--modes)";
      for (RingMode mode : modes) {
        ring::Measured &m = mode == RingMode::Sm ? row.ring : row.ringCe;
        RingKernel &kk = mode == RingMode::Sm ? k : kCe;
        if (!(mode == RingMode::Sm ? havePtx : haveCePtx)) {
          m.note = "not built (" +
                   (mode == RingMode::Sm ? rsring::ringPtxName(dt) : rsring::cePtxName(dt)) + ")";
          continue;
        }
        try {
          const std::string why = rsring::shapeProblem(p, kk.cluster, kk.bn);
          if (!why.empty())
            throw std::runtime_error("shape rejected: " + why);
          if (kk.bn != row.bn)
            throw std::runtime_error("BN " + std::to_string(kk.bn) + " differs from the data's " +
                                     std::to_string(row.bn));
          const int64_t clusters = ringClusters(kk, d, o.clusters);
          row.clusters = clusters;
          row.unitsPerStep = rsring::workUnits(p, kk.cluster, kk.bn) / p.ranks;
          d.poisonRingOutputs();
          comm.barrier();
          m.t = ring::timeCollective(
              nccl, [&] { launchRing(kk, d, clusters, mode, &ce); }, o.warmup, o.runs);
          m.run = true;
          m.note = kk.kernel.name() + ", " + std::to_string(clusters) + " clusters, " +
                   std::to_string(row.unitsPerStep) + " units a step, " +
                   std::to_string(mode == RingMode::Ce ? rsring::ceSemaphoreCount(p, d.chunks)
                                                       : rsring::semaphoreCount(p, kk.bn)) +
                   " semaphores" +
                   (mode == RingMode::Ce
                        ? ", " + std::to_string(d.chunks) + " column chunk(s) a pushed block"
                        : std::string());
          checked(m, d.ringC.toHost(), ref, p.slice());
        } catch (const std::exception &e) {
          m.note = std::string("error: ") + e.what();
          m.ok = false;
        }
      }
      if (comm.rank() == 0) {
        std::printf("%s %s: SM ring %s, CE ring %s, NCCL RS+cuBLAS %.1f us, floor %s, "
                    "reduce-scatter %.1f us, cuBLAS %.1f us%s\n",
                    gemm::dtypeName(dt), p.shape().c_str(),
                    row.ring.run ? ring::fmt("%.1f us", row.ring.t.median * 1e3).c_str()
                                 : row.ring.note.c_str(),
                    row.ringCe.run ? ring::fmt("%.1f us", row.ringCe.t.median * 1e3).c_str()
                                   : row.ringCe.note.c_str(),
                    row.ncclBlas.t.median * 1e3,
                    row.floor.run ? ring::fmt("%.1f us", row.floor.t.median * 1e3).c_str()
                                  : row.floor.note.c_str(),
                    row.reduceScatter.t.median * 1e3, row.blas.t.median * 1e3,
                    row.ring.ok && row.ringCe.ok && row.floor.ok && row.ncclBlas.ok ? ""
                                                                                    : "  PROBLEM");
        std::fflush(stdout);
      }
      allPass = allPass && row.ring.ok && row.ringCe.ok && row.floor.ok && row.ncclBlas.ok &&
                row.floor.run;
      for (RingMode mode : modes)
        allPass = allPass && (mode == RingMode::Sm ? row.ring : row.ringCe).run;
      rows.push_back(row);
    }
  ringdrv::writeTable(comm, rsring::benchTable(rows, header.str()), o.out, "ring_gemm_rs");
  comm.barrier();
  return allPass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  for (const Problem &shape : o.shapes)
    for (DType d : o.dtypes) {
      Problem p = shape;
      p.dtype = d;
      gemm::KernelShape ks;
      try {
        ks = ringdrv::kernelShape(ringPtxPath(o, d, o.mode), ringEntry(o.mode), 0);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "ring_gemm_rs: %s\n", e.what());
        return 1;
      }
      const std::string why = rsring::shapeProblem(p, ks.cluster, ks.bn);
      if (!why.empty()) {
        std::fprintf(stderr, "ring_gemm_rs: MS=%lld N=%lld K=%lld rejected by %s: %s\n",
                     (long long)p.ms, (long long)p.n, (long long)p.k, ks.entry.c_str(),
                     why.c_str());
        return 2;
      }
    }
  return ringdrv::runRanks("ring_gemm_rs", o.skipCode,
                           [&](const tile::Communicator &comm, ring::Nccl &nccl) {
                             if (o.hangTest)
                               return runHangTest(o, comm);
                             return o.bench ? runBench(o, comm, nccl) : runCheck(o, comm, nccl);
                           });
}
