// ring_gemm_rs: C_r = rows [r*MS, (r+1)*MS) of sum_q A_q * B_q^T on D GPUs by
// the reduce-scatter ring GEMM (samples/ring_gemm_rs/ring_gemm_rs.tile through
// the tilec runtime), one process per GPU, checked against NCCL ReduceScatter
// + cuBLAS and float64 in the same processes and benchmarked against NCCL +
// cuBLAS and the no-communication floor (samples/gemm's tilec GEMM on the
// local [M, K] x [K, N]).
//
//   tilec-run -n D ring_gemm_rs [--check] [--ms MS] [--n N] [--k K] [--dtype f16|bf16]
//        [--seed S] [--cpu-macs X] [--repeat R] [--clusters N] [--ptx PATH] [--skip-code C]
//   tilec-run -n D ring_gemm_rs --bench [--shapes MSxNxK,...] [--dtypes f16,bf16]
//        [--runs 30] [--warmup 10] [--out FILE.md]
//   tilec-run -n D ring_gemm_rs --hang-test --ptx ring_gemm_rs_f16_debug.ptx
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
// --hang-test: the last rank does not launch; every other rank launches the
// kernel built with tilec --debug-hangs (--ptx), whose semaphore wait must
// time out and the runtime report it from the kernel's hang record
// (`tilec: hang: device R: wait(sem[i], V) ...: counter is X`), exit 3.
//
// Exit: 0 pass, 1 fail, 2 bad arguments or a shape the kernel rejects,
// --skip-code (77) with fewer than 2 CUDA devices or (--check) no ring PTX.
#include "rs_common.h"

#include "../common/ring_driver.h"

namespace {

using gemm::dtypeNamed;
using rsring::DType;
using rsring::Problem;

using Options = ringdrv::Options<Problem>;

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "ring_gemm_rs: %s\n"
               "usage: tilec-run -n D ring_gemm_rs [--check] [--ms MS] [--n N] [--k K] "
               "[--dtype f16|bf16]\n"
               "            [--seed S] [--cpu-macs X] [--repeat R] [--clusters N] [--ptx PATH] "
               "[--skip-code C]\n"
               "       tilec-run -n D ring_gemm_rs --bench [--shapes MSxNxK,...] [--dtypes "
               "f16,bf16]\n"
               "            [--runs R] [--warmup W] [--out FILE.md]\n"
               "       tilec-run -n D ring_gemm_rs --hang-test --ptx ring_gemm_rs_f16_debug.ptx\n",
               msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  return ringdrv::parseOptions<Problem>(argc, argv, usage, 20261128);
}

using ringdrv::comparisonLine;
using ringdrv::fileExists;
using ringdrv::printInRankOrder;

std::string ringPtxPath(const Options &o, DType d) {
  return o.ptx.empty() ? sample::ptxDir() + "/" + rsring::ringPtxName(d) : o.ptx;
}
// ---------------------------------------------------------------- one rank's problem
struct RankData {
  Problem p;
  int rank;
  int64_t bn;
  tile::DeviceBuffer<uint16_t> dA, dB, dE, partial, ref, floorC, ringC;
  tile::SymmetricBuffer<uint16_t> symR; // running sums arrive here: [M, N]
  tile::Semaphores sem;

  RankData(const tile::Communicator &comm, const Problem &pp, uint64_t seed, int64_t bn_)
      : p(pp), rank(comm.rank()), bn(bn_), dA(comm.context(), size_t(p.m() * p.k)),
        dB(comm.context(), size_t(p.n * p.k)), dE(comm.context(), size_t(bn * bn)),
        partial(comm.context(), size_t(p.m() * p.n)), ref(comm.context(), size_t(p.ms * p.n)),
        floorC(comm.context(), size_t(p.m() * p.n)), ringC(comm.context(), size_t(p.ms * p.n)),
        symR(comm, size_t(p.m() * p.n)),
        sem(comm, uint32_t(rsring::semaphoreCount(p, bn))) {
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

RingKernel loadRing(tile::Context &ctx, const std::string &ptx) {
  return ringdrv::loadRing(ctx, ptx, "ring_gemm_rs", 0);
}
int64_t ringClusters(RingKernel &k, RankData &d, int64_t clusters) {
  return ringdrv::ringClusters(k, rsring::workUnits(d.p, k.cluster, k.bn), clusters, d.aTensor(),
                               d.bTensor(), d.eTensor(), d.rTensor(), d.cTensor(), d.sem);
}
void launchRing(RingKernel &k, RankData &d, int64_t clusters) {
  ringdrv::launchRing(k, clusters, d.aTensor(), d.bTensor(), d.eTensor(), d.rTensor(),
                      d.cTensor(), d.sem);
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

std::string semaphoreLine(const RankData &d, const std::string &what, bool &ok) {
  return ringdrv::semaphoreLine(d.sem, d.p.ranks, what, ok);
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o, const tile::Communicator &comm, ring::Nccl &nccl) {
  Problem p = o.problem;
  p.ranks = comm.size();
  const double tol = gemm::tolerance(p.dtype);
  const std::string ptx = ringPtxPath(o, p.dtype);
  const bool havePtx = fileExists(ptx);
  std::ostringstream log;
  bool ok = true;
  int code = 1;
  try {
    gemm::Cublas blas;
    const int64_t bn = ringdrv::kernelShape(ringPtxPath(o, p.dtype), "ring_gemm_rs", 0).bn;
    RankData d(comm, p, o.seed, bn);
    comm.barrier();
    if (comm.rank() == 0)
      log << "ring_gemm_rs --check " << p.shape() << " " << gemm::dtypeName(p.dtype) << ", seed "
          << o.seed << "\n";
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
      RingKernel k = loadRing(comm.context(), ptx);
      const int64_t clusters = ringClusters(k, d, o.clusters);
      log << "  tilec: " << k.kernel.name() << " (" << ptx << "), cluster " << k.cluster << ", "
          << k.threads << " threads, " << clusters << " clusters (persistent), "
          << rsring::semaphoreCount(p, k.bn) << " semaphores\n";
      for (int rep = 0; rep < o.repeat; ++rep) {
        if (rep > 0)
          d.poisonRingOutputs();
        comm.barrier();
        launchRing(k, d, clusters);
        SAMPLE_CUDA_CHECK(cudaGetLastError());
        SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<uint16_t> got = d.ringC.toHost();
        const std::string n = std::to_string(rep + 1);
        log << comparisonLine(("ring #" + n + " vs float64:").c_str(),
                              gemm::compareRows(slice, got, rows, cpuAt), tol, ok);
        log << comparisonLine(("ring #" + n + " vs NCCL RS + cuBLAS:").c_str(),
                              againstReference(d, got, ref), tol, ok);
        log << semaphoreLine(d, "  ring #" + n, ok);
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
int runHangTest(const Options &o, const tile::Communicator &comm) {
  Problem p = o.problem;
  p.ranks = comm.size();
  RingKernel k = loadRing(comm.context(), o.ptx);
  RankData d(comm, p, o.seed, k.bn);
  const int64_t clusters = ringClusters(k, d, o.clusters);
  return ringdrv::runHangTest(comm, [&] { launchRing(k, d, clusters); });
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
      const std::string ptx = ringPtxPath(o, dt);
      const bool havePtx = fileExists(ptx);
      RingKernel k;
      if (havePtx)
        k = loadRing(ctx, ptx);
      row.bn = havePtx ? k.bn : 256;
      RankData d(comm, p, o.seed, row.bn);
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

      // The tilec ring.
      if (!havePtx) {
        row.ring.note = "not built (" + rsring::ringPtxName(dt) + ")";
      } else {
        try {
          const std::string why = rsring::shapeProblem(p, k.cluster, k.bn);
          if (!why.empty())
            throw std::runtime_error("shape rejected: " + why);
          const int64_t clusters = ringClusters(k, d, o.clusters);
          row.clusters = clusters;
          row.unitsPerStep = rsring::workUnits(p, k.cluster, k.bn) / p.ranks;
          d.poisonRingOutputs();
          comm.barrier();
          row.ring.t = ring::timeCollective(
              nccl, [&] { launchRing(k, d, clusters); }, o.warmup, o.runs);
          row.ring.run = true;
          row.ring.note = k.kernel.name() + ", " + std::to_string(clusters) + " clusters, " +
                          std::to_string(row.unitsPerStep) + " units a step, " +
                          std::to_string(rsring::semaphoreCount(p, k.bn)) + " semaphores";
          checked(row.ring, d.ringC.toHost(), ref, p.slice());
        } catch (const std::exception &e) {
          row.ring.note = std::string("error: ") + e.what();
          row.ring.ok = false;
        }
      }
      if (comm.rank() == 0) {
        std::printf("%s %s: ring %s, NCCL RS+cuBLAS %.1f us, floor %s, reduce-scatter %.1f us, "
                    "cuBLAS %.1f us%s\n",
                    gemm::dtypeName(dt), p.shape().c_str(),
                    row.ring.run ? ring::fmt("%.1f us", row.ring.t.median * 1e3).c_str()
                                 : row.ring.note.c_str(),
                    row.ncclBlas.t.median * 1e3,
                    row.floor.run ? ring::fmt("%.1f us", row.floor.t.median * 1e3).c_str()
                                  : row.floor.note.c_str(),
                    row.reduceScatter.t.median * 1e3, row.blas.t.median * 1e3,
                    row.ring.ok && row.floor.ok && row.ncclBlas.ok ? "" : "  PROBLEM");
        std::fflush(stdout);
      }
      allPass = allPass && row.ring.ok && row.floor.ok && row.ncclBlas.ok && row.ring.run &&
                row.floor.run;
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
        ks = ringdrv::kernelShape(ringPtxPath(o, d), "ring_gemm_rs", 0);
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
