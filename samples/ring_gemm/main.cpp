// ring_gemm: C = AllGather(A) * B on D GPUs by the ring all-gather GEMM
// (samples/ring_gemm/ring_gemm.tile through the tilec runtime), one process
// per GPU, checked against NCCL all-gather + cuBLAS on the gathered A in the
// same processes and benchmarked against it and against the no-communication
// floor (samples/gemm's tilec GEMM on the gathered shape).
//
//   tilec-run -n 2 ring_gemm [--check] [--mode sm|ce] [--ce-chunks C] [--ce-push]
//        [--ce-counters copy|block] [--ms MS] [--n N]
//        [--k K] [--dtype f16|bf16] [--bn 256] [--seed S] [--cpu-macs X] [--repeat R]
//        [--clusters N] [--ptx PATH] [--skip-code C] [--probes FILE]
//   tilec-run -n 2 ring_gemm --bench [--ms MS] [--n N] [--k K] [--shapes MSxNxK,...]
//        [--dtypes f16,bf16] [--modes sm,ce] [--ce-compare pull,push,block] [--runs 30]
//        [--warmup 10] [--out FILE.md]
//   tilec-run -n D ring_gemm --hang-test [--mode ce] --ptx ring_gemm_f16_debug.ptx
//
// Two forms of the ring (--mode): `sm` (ring_gemm.tile) forwards each A stage
// from the consumers' shared memory into the next rank by TMA and signals it;
// `ce` (ring_gemm_ce.tile) leaves the gathering to the copy engines: a side
// stream pulls each shard from its owner in compute order (--ce-push: each
// owner pushes its shard into its peers) in --ce-chunks pieces and after
// each copy sets the counter of every 128-row block it brought (or, with
// --ce-counters copy, the copy's one counter) (ring_ce.h); the kernel only
// computes.
// --bench measures both; --ce-compare times other copy-engine layouts beside
// the one chosen (pull, push: one counter a copy; block: a counter per
// 128-row block), as diagnostic lines under the table.
//
// Rank r holds shard r of A ([MS, K], rows [r*MS, (r+1)*MS) of the gathered A
// [MG, K], MG = D*MS) and its own B_r ([N, K], K-major); every rank computes
// C_r = A_gathered * B_r^T ([MG, N], f16/bf16 out, f32 accumulation).
// Defaults: MS 1024, K 4096, N 4096 (the benchmark shape).
//
// Inputs are fresh standard normal values from --seed (printed): A's shards
// from one stream (every rank can build the whole gathered A on the host), B_r
// from a stream per rank. Before the ring runs, C and every row of the
// symmetric A that is not this rank's shard are poisoned (all bits set: NaN in
// f16 and bf16) and the ranks meet at a barrier: an element the kernel never
// writes, or a shard never forwarded, fails the check.
// --check, on every rank: the NCCL all-gather against the host's gathered A
// (bit for bit), cuBLAS against float64 on sampled rows (--cpu-macs), and the
// ring's C (launched --repeat times, re-poisoned each time) against cuBLAS on
// all of C: relative Frobenius error below 2e-3 (f16) / 1e-2 (bf16), nothing
// non-finite; the forwarded shards in this rank's A bit for bit; after each
// launch the semaphores reset and the exit counter at epoch * (D - 1). Each
// rank prints its own lines, in rank order.
// --bench: for each dtype, the tilec ring, ncclAllGather + cublasGemmEx, the
// floor (tilec's local GEMM on the gathered shape), the all-gather alone and
// cuBLAS alone; each --warmup repetitions, then the median of --runs (>= 20),
// where a repetition is a stream-ordered barrier (a one-element all-reduce),
// a CUDA event, the work, a CUDA event on every rank and takes as long as its
// slowest rank. Then µs, ratios, tensor-core utilisation
// (2*MG*N*K / time / 989.4 TFLOP/s) and the model of docs/multi-gpu.md; rank 0
// writes the table (docs/perf/ring_gemm.md) to --out. Every timed result is
// checked against cuBLAS afterwards.
// --hang-test: the last rank does not launch; every other rank launches the
// kernel built with tilec --debug-hangs (--ptx); with --mode ce every rank
// launches and the last pull of every rank is withheld: a wait for the
// missing rank (or shard) must time out and the runtime report it from the kernel's hang record
// (`tilec: hang: device R: wait(sem[i], V) ...: counter is X`, or the ring
// barrier a consumer waited on), exit 3 (samples/common/ring_driver.h).
//
// Exit: 0 pass, 1 fail, 2 bad arguments or a shape the kernel rejects (before
// any device is touched), --skip-code (77) with fewer than 2 CUDA devices, or
// (--check) when the ring's PTX is missing after the reference path passed.
#include "../common/probe_array.h"
#include "../common/ring_driver.h"
#include "ring_ce.h"

namespace {

using gemm::dtypeNamed;
using ring::DType;
using ring::Problem;
using ring::RingMode;

using Options = ringdrv::Options<Problem>;

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "ring_gemm: %s\n"
      "usage: tilec-run -n D ring_gemm [--check] [--mode sm|ce] [--ce-chunks C] [--ce-push]\n"
      "            [--ce-counters copy|block] [--ms MS]"
      " [--n N] [--k K] [--dtype f16|bf16] [--bn BN] [--seed S] [--cpu-macs X]\n"
      "            [--repeat R] [--clusters N] [--ptx PATH] [--skip-code C] [--probes FILE.csv]\n"
      "       tilec-run -n D ring_gemm --bench [--ms MS] [--n N] [--k K] [--shapes MSxNxK,...]\n"
      "            [--dtypes f16,bf16] [--modes sm,ce] [--ce-compare pull,push,block]\n"
      "            [--runs R] [--warmup W] [--out FILE.md]\n"
      "       tilec-run -n D ring_gemm --hang-test [--mode sm|ce] --ptx ring_gemm_f16_debug.ptx\n",
      msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  // Its own flags: --bn (an instance of the kernel), --probes FILE (read a
  // probe build's timestamps: tools/scripts/ring_probes.py), --mode (the
  // ring's form), --ce-chunks (copies per shard), --ce-push, --ce-counters,
  // --ce-compare.
  Options o = ringdrv::parseOptions<Problem>(
      argc, argv, usage, 20261123, [](const std::string &f, sample::ArgReader &r, Options &o) {
        if (f == "--bn")
          o.bn = r.intValue();
        else if (f == "--probes")
          o.probes = r.value();
        else if (f == "--mode") {
          const std::string m = r.value();
          if (m != "sm" && m != "ce")
            usage(("--mode takes sm or ce, not '" + m + "'").c_str());
          o.mode = m == "ce" ? RingMode::Ce : RingMode::Sm;
        } else if (f == "--ce-chunks")
          o.ceChunks = int(r.intIn(1, 1024));
        else if (f == "--ce-push")
          o.cePush = true;
        else if (f == "--ce-counters") {
          const std::string c = r.value();
          if (c != "copy" && c != "block")
            usage(("--ce-counters takes copy or block, not '" + c + "'").c_str());
          o.ceCounterPerBlock = c == "block";
        } else if (f == "--ce-compare") {
          for (const std::string &x : r.listValue()) {
            if (x != "pull" && x != "push" && x != "block")
              usage(("--ce-compare takes pull, push and/or block, not '" + x + "'").c_str());
            o.ceCompare.push_back(x);
          }
        } else
          return false;
        return true;
      });
  if (o.mode == RingMode::Ce && !o.probes.empty())
    usage("--probes reads the SM ring's probe build (--mode sm)");
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
         (mode == RingMode::Ce ? ring::cePtxName(d) : ring::ringPtxName(d));
}
const char *ringEntry(RingMode mode) { return mode == RingMode::Ce ? "ring_gemm_ce" : "ring_gemm"; }

// ---------------------------------------------------------------- one rank's problem
// The host data and device buffers of one problem on this rank.
struct RankData {
  Problem p;
  int rank;
  std::vector<uint16_t> aFull; // the gathered A [MG, K] (every rank builds it)
  std::vector<uint16_t> b;     // this rank's B [N, K]
  tile::DeviceBuffer<uint16_t> shard, gathered, dB, ref, floorC, ringC;
  tile::SymmetricBuffer<uint16_t> symA; // the ring's A: this rank's [MG, K] part
  tile::Semaphores sem;

  RankData(const tile::Communicator &comm, const Problem &pp, uint64_t seed)
      : p(pp), rank(comm.rank()), aFull(gemm::randomNormal(p.dtype, size_t(p.mg() * p.k), seed, 1)),
        b(gemm::randomNormal(p.dtype, size_t(p.n * p.k), seed, 100 + uint64_t(comm.rank()))),
        shard(comm.context(), size_t(p.ms * p.k)), gathered(comm.context(), size_t(p.mg() * p.k)),
        dB(comm.context(), size_t(p.n * p.k)), ref(comm.context(), size_t(p.mg() * p.n)),
        floorC(comm.context(), size_t(p.mg() * p.n)), ringC(comm.context(), size_t(p.mg() * p.n)),
        symA(comm, size_t(p.mg() * p.k)), sem(comm, uint32_t(ring::semaphoreCount(p))) {
    const std::vector<uint16_t> mine(aFull.begin() + ptrdiff_t(shardOffset()),
                                     aFull.begin() + ptrdiff_t(shardOffset() + p.ms * p.k));
    shard.copyFrom(mine);
    dB.copyFrom(b);
    poisonRingInputs();
  }
  size_t shardOffset() const { return size_t(rank) * size_t(p.ms * p.k); }

  // The symmetric A: this rank's shard in its rows, every other row poisoned
  // (the ring must forward it there); the ring's C poisoned. Synchronous; the
  // caller meets the other ranks at a barrier before the ring runs.
  void poisonRingInputs() {
    symA.fillBytes(0xff);
    SAMPLE_CUDA_CHECK(cudaMemcpy(reinterpret_cast<void *>(symA.ptr() + shardOffset() * 2),
                                 reinterpret_cast<const void *>(shard.ptr()),
                                 size_t(p.ms * p.k) * 2, cudaMemcpyDeviceToDevice));
    ringC.fillBytes(0xff);
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  tile::TensorElement element() const { return gemm::tensorElement(p.dtype); }
  tile::Tensor aTensor() const { return symA.symmetricTensor(element(), {p.mg(), p.k}); }
  tile::Tensor bTensor() const { return tile::Tensor(dB.ptr(), element(), {p.n, p.k}); }
  tile::Tensor cTensor() const { return tile::Tensor(ringC.ptr(), element(), {p.mg(), p.n}); }
};

// ---------------------------------------------------------------- the ring kernel
using ringdrv::RingKernel;

// The copy-engine form's layout (copies and counters a shard, pull or push)
// and its semaphore array (S = D * counters a shard: ring_gemm_ce.tile reads
// the layout from S). Collective: every rank makes the same ones in order.
struct CeRun {
  ring::CeLayout layout;
  tile::Semaphores sem;
  CeRun(const tile::Communicator &comm, const Problem &p, const ring::CeLayout &l)
      : layout(l), sem(comm, uint32_t(ring::ceSemaphoreCount(p, l))) {}
  std::string describe(const Problem &p, int rank) const {
    return std::to_string(ring::ceCopies(p, rank, layout).size()) + " copy-engine " +
           (layout.push ? "pushes" : "pulls") + " a rank, " + std::to_string(sem.count()) +
           " counters";
  }
};
ring::CeLayout ceLayoutOf(const Options &o, const Problem &p) {
  return ring::ceLayout(p, o.ceChunks, o.cePush, o.ceCounterPerBlock);
}

RingKernel loadRing(tile::Context &ctx, const std::string &ptx, int64_t bn, RingMode mode) {
  return ringdrv::loadRing(ctx, ptx, ringEntry(mode), bn);
}
int64_t ringClusters(RingKernel &k, RankData &d, int64_t clusters) {
  return ringdrv::ringClusters(k, ring::workUnits(d.p, k.cluster, k.bn), clusters, d.aTensor(),
                               d.bTensor(), d.cTensor(), d.sem);
}
// One launch of the ring in `mode` on kStream; the CE form queues its
// copies on `ce`'s side stream beside it (withholding the last `withhold`).
void launchRing(RingKernel &k, RankData &d, int64_t clusters, RingMode mode = RingMode::Sm,
                ring::CeSide *ce = nullptr, const CeRun *run = nullptr, size_t withhold = 0,
                bool move = true) {
  if (mode == RingMode::Sm) {
    ringdrv::launchRing(k, clusters, d.aTensor(), d.bTensor(), d.cTensor(), d.sem);
    return;
  }
  // The CE kernel's A is a plain tensor (the symmetric one binds to it: this
  // rank's part).
  ce->run(
      ring::ceCopies(d.p, d.rank, run->layout), size_t(d.p.k), d.symA, run->sem,
      [&] { ringdrv::launchRing(k, clusters, d.aTensor(), d.bTensor(), d.cTensor(), run->sem); },
      withhold, move);
}

gemm::Comparison againstCublas(const RankData &d, const std::vector<uint16_t> &got,
                               const std::vector<uint16_t> &ref) {
  const gemm::Problem g = d.p.gathered();
  return gemm::compareRows(g, got, gemm::allRows(g), [&](size_t r, int64_t j) {
    return double(gemm::fromBits(g.dtype, ref[r * size_t(g.n) + size_t(j)]));
  });
}

std::string semaphoreLine(const tile::Semaphores &sem, const RankData &d, const std::string &what,
                          bool &ok) {
  return ringdrv::semaphoreLine(sem, d.p.ranks, what, ok);
}

// ---------------------------------------------------------------- probes
// A probe build of the kernel (tools/scripts/ring_probes.py) has a module
// array `ring_probe` of per-CTA, per-event counters and %globaltimer stamps.
// zeroProbes clears it before a launch; appendProbes writes every stamp as
// "rank,cta,event,slot,ns" (ns after this rank's earliest `start` stamp;
// samples/common/probe_array.h reads the array).
void zeroProbes(RingKernel &k) { probes::clear(k.module, "ring_probe", "ring_probes.py"); }
void appendProbes(RingKernel &k, int rank, const std::string &file) {
  constexpr int kEvents = 8, kSlots = 16;
  const std::vector<uint64_t> v = probes::read(k.module, "ring_probe", "ring_probes.py");
  const size_t row = kSlots + 1, ctas = v.size() / (kEvents * row);
  uint64_t t0 = ~uint64_t(0);
  for (size_t c = 0; c < ctas; ++c)
    if (v[c * kEvents * row] > 0)
      t0 = std::min(t0, v[c * kEvents * row + 1]);
  std::ofstream f(file, std::ios::app);
  for (size_t c = 0; c < ctas; ++c)
    for (int e = 0; e < kEvents; ++e) {
      const size_t base = (c * kEvents + size_t(e)) * row;
      const uint64_t n = std::min<uint64_t>(v[base], kSlots);
      for (uint64_t j = 0; j < n; ++j)
        f << rank << "," << c << "," << e << "," << j << ","
          << (int64_t(v[base + 1 + j]) - int64_t(t0)) << "\n";
    }
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o, const tile::Communicator &comm, ring::Nccl &nccl) {
  Problem p = o.problem;
  p.ranks = comm.size();
  p.dtype = o.dtypes.front();
  const gemm::Problem g = p.gathered();
  const double tol = gemm::tolerance(p.dtype);
  const std::string ptx = ringPtxPath(o, p.dtype, o.mode);
  const bool havePtx = fileExists(ptx);
  if (comm.rank() == 0) {
    std::printf("ring_gemm --check --mode %s %s %s (each rank: %s), seed %" PRIu64
                " (normal(0, 1) inputs), %d ring launch(es)\n",
                ring::modeName(o.mode), p.shape().c_str(), gemm::dtypeName(p.dtype),
                p.gemmShape().c_str(), o.seed, o.repeat);
    std::fflush(stdout);
  }
  std::ostringstream log;
  bool ok = true;
  int code = 0;
  try {
    RankData d(comm, p, o.seed);
    gemm::Cublas blas;
    log << "rank " << comm.rank() << " (device " << comm.device() << ", " << comm.context().name()
        << "):\n";

    // The reference: NCCL all-gather + cuBLAS on the gathered A.
    d.gathered.fillBytes(0xff);
    d.ref.fillBytes(0xff);
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    nccl.allGather(p.dtype, d.shard.ptr(), d.gathered.ptr(), size_t(p.ms * p.k));
    blas.gemm(g, d.gathered.ptr(), d.dB.ptr(), d.ref.ptr());
    SAMPLE_CUDA_CHECK(cudaGetLastError());
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<uint16_t> gatheredHost = d.gathered.toHost();
    size_t wrong = 0, firstWrong = 0;
    for (size_t i = 0; i < gatheredHost.size(); ++i)
      if (gatheredHost[i] != d.aFull[i] && wrong++ == 0)
        firstWrong = i;
    if (wrong) {
      ok = false;
      log << "  ncclAllGather: " << wrong << " elements differ from the host's gathered A (first "
          << "at row " << firstWrong / size_t(p.k) << ")  FAIL\n";
    } else {
      log << "  ncclAllGather: the gathered A is bit for bit the shards in rank order\n";
    }
    const std::vector<uint16_t> ref = d.ref.toHost();
    const std::vector<int64_t> rows = gemm::referenceRows(g, o.cpuMacs);
    const std::vector<double> cpu = gemm::referenceGemm(g, d.aFull, d.b, rows);
    auto cpuAt = [&](size_t r, int64_t j) { return cpu[r * size_t(p.n) + size_t(j)]; };
    log << "  float64 CPU reference: "
        << (rows.size() == size_t(g.m) ? std::string("every row")
                                       : std::to_string(rows.size()) + " rows spread over MG")
        << "\n";
    log << comparisonLine("cuBLAS vs float64:", gemm::compareRows(g, ref, rows, cpuAt), tol, ok);

    if (!havePtx) {
      log << "  no ring PTX at " << ptx
          << ": samples/ring_gemm/ring_gemm.tile is not built; only the reference was checked\n";
      code = ok ? o.skipCode : 1;
    } else {
      RingKernel k = loadRing(comm.context(), ptx, o.bn, o.mode);
      const int64_t clusters = ringClusters(k, d, o.clusters);
      ring::CeSide ce;
      const CeRun run(comm, p, ceLayoutOf(o, p));
      const tile::Semaphores &sem = o.mode == RingMode::Ce ? run.sem : d.sem;
      log << "  tilec: " << k.kernel.name() << " (" << ptx << "), cluster " << k.cluster << ", "
          << k.threads << " threads, " << clusters << " clusters (persistent), " << sem.count()
          << " semaphores";
      if (o.mode == RingMode::Ce)
        log << "; the shards moved by copy engines, " << run.describe(p, comm.rank());
      log << "\n";
      for (int rep = 0; rep < o.repeat; ++rep) {
        if (rep > 0)
          d.poisonRingInputs();
        if (!o.probes.empty())
          zeroProbes(k);
        comm.barrier(); // every rank's poison is down before any peer forwards into it
        // Probes compare the ranks' clocks step by step: start the launches
        // together in stream order, as --bench does (a host barrier leaves
        // the ranks' launches apart by the host's launch latency).
        if (!o.probes.empty())
          nccl.streamBarrier();
        launchRing(k, d, clusters, o.mode, &ce, &run);
        SAMPLE_CUDA_CHECK(cudaGetLastError());
        SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
        if (!o.probes.empty() && rep == o.repeat - 1)
          appendProbes(k, comm.rank(), o.probes + "." + std::to_string(comm.rank()));
        const std::vector<uint16_t> got = d.ringC.toHost();
        const std::string n = std::to_string(rep + 1);
        log << comparisonLine(("ring #" + n + " vs float64:").c_str(),
                              gemm::compareRows(g, got, rows, cpuAt), tol, ok);
        log << comparisonLine(("ring #" + n + " vs cuBLAS (all of C):").c_str(),
                              againstCublas(d, got, ref), tol, ok);
        // The forwarded (or pulled) shards landed in this rank's A, bit for bit.
        const std::vector<uint16_t> a = d.symA.toHost();
        size_t bad = 0;
        for (size_t i = 0; i < a.size(); ++i)
          bad += a[i] != d.aFull[i];
        if (bad) {
          ok = false;
          log << "  ring #" << n << ": " << bad
              << " elements of the symmetric A differ from the gathered A  FAIL\n";
        }
        log << semaphoreLine(sem, d, "  ring #" + n, ok);
      }
      code = ok ? 0 : 1;
    }
  } catch (const std::exception &e) {
    // Out at once: the other ranks may wait in a collective this rank will
    // never reach; tilec-run ends them when this rank exits with a failure.
    std::fputs(log.str().c_str(), stdout);
    std::fflush(stdout);
    std::fprintf(stderr, "ring_gemm: rank %d: %s\n", comm.rank(), e.what());
    return 1;
  }
  log << "rank " << comm.rank() << ": " << (code == 0 ? "PASS" : ok ? "SKIP" : "FAIL") << "\n";
  printInRankOrder(comm, log.str());
  return code;
}

// ---------------------------------------------------------------- --bench
int runBench(const Options &o, const tile::Communicator &comm, ring::Nccl &nccl) {
  tile::Context &ctx = comm.context();
  gemm::Cublas blas;
  const int clockKhz = ctx.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  std::ostringstream header;
  header << "Ring all-gather GEMM C_r = AllGather(A) * B_r on " << comm.size() << " x "
         << ctx.name() << " (" << ctx.smCount() << " SMs, " << clockKhz / 1000
         << " MHz), one process per GPU (tilec-run); NCCL " << ring::Nccl::version() << ", cuBLAS "
         << blas.version() << " (cublasGemmEx, CUBLAS_COMPUTE_32F); normal(0, 1) "
         << "inputs (seed " << o.seed << "); per repetition a stream-ordered barrier (one-element "
         << "ncclAllReduce), then CUDA events around the work on every rank; the slowest rank's "
         << "time, median of " << o.runs << " after " << o.warmup
         << " warm-up repetitions. `floor` = tilec's local GEMM (samples/gemm gemm_<dtype>_mc, "
         << "no communication) on the gathered shape; `all-gather alone` and `cuBLAS alone` are "
         << "the two halves of the reference.";
  if (comm.rank() == 0) {
    std::printf("%s\n", header.str().c_str());
    std::fflush(stdout);
  }
  std::vector<ring::BenchRow> rows;
  bool allPass = true;
  for (const Problem &shape : o.shapes)
    for (DType dt : o.dtypes) {
      ring::BenchRow row;
      Problem &p = row.p;
      p = shape;
      p.ranks = comm.size();
      p.dtype = dt;
      const gemm::Problem g = p.gathered();
      const double tol = gemm::tolerance(dt);
      RankData d(comm, p, o.seed);
      comm.barrier();
      auto checked = [&](ring::Measured &m, const std::vector<uint16_t> &got,
                         const std::vector<uint16_t> &ref) {
        ringdrv::checkAllRanks(nccl, m, g, got, ref, tol);
      };

      // NCCL all-gather + cuBLAS (the reference; its C checks the others).
      d.gathered.fillBytes(0xff);
      d.ref.fillBytes(0xff);
      row.ncclBlas.t = ring::timeCollective(
          nccl,
          [&] {
            nccl.allGather(dt, d.shard.ptr(), d.gathered.ptr(), size_t(p.ms * p.k));
            blas.gemm(g, d.gathered.ptr(), d.dB.ptr(), d.ref.ptr());
          },
          o.warmup, o.runs);
      row.ncclBlas.run = true;
      const std::vector<uint16_t> ref = d.ref.toHost();
      {
        // cuBLAS against float64 on a few rows: the reference itself is right.
        const std::vector<int64_t> cpuRows = gemm::referenceRows(g, double(1ull << 26));
        const std::vector<double> cpu = gemm::referenceGemm(g, d.aFull, d.b, cpuRows);
        const gemm::Comparison c = gemm::compareRows(
            g, ref, cpuRows, [&](size_t r, int64_t j) { return cpu[r * size_t(p.n) + size_t(j)]; });
        row.ncclBlas.err = c.relFrobenius;
        row.ncclBlas.ok = c.nonFinite == 0 && c.relFrobenius < tol;
      }
      row.allGather.t = ring::timeCollective(
          nccl, [&] { nccl.allGather(dt, d.shard.ptr(), d.gathered.ptr(), size_t(p.ms * p.k)); },
          o.warmup, o.runs);
      row.allGather.run = true;
      // Bytes every rank receives over the link per all-gather: (D-1) shards.
      row.allGatherGBs =
          double(p.ranks - 1) * double(p.ms * p.k * 2) / (row.allGather.t.median * 1e-3) / 1e9;
      // The link as the ring uses it: every rank at once writes its shard into
      // its slot of the next rank's A (a copy engine, through the peer
      // address): the model's B_link. The data is what the ring forwards there.
      row.linkGBs = ringdrv::measureLink(
          comm, nccl, d.symA.peerPtr((comm.rank() + 1) % comm.size()) + d.shardOffset() * 2,
          d.shard.ptr(), size_t(p.ms * p.k) * 2, o.warmup, o.runs, "ring_gemm");
      row.blas.t = ring::timeCollective(
          nccl, [&] { blas.gemm(g, d.gathered.ptr(), d.dB.ptr(), d.ref.ptr()); }, o.warmup, o.runs);
      row.blas.run = true;

      // The floor: samples/gemm's tilec GEMM on the gathered A.
      ringdrv::measureFloor(ctx, nccl, g, d.gathered.ptr(), d.dB.ptr(), d.floorC, ref, o.warmup,
                            o.runs, row.floor);

      // The tilec ring, both forms: SM forwarding, then copy engines.
      ring::CeSide ce;
      const std::vector<RingMode> modes =
          o.benchModes.empty() ? std::vector<RingMode>{RingMode::Sm, RingMode::Ce} : o.benchModes;
      for (RingMode mode : modes) {
        ring::Measured &m = mode == RingMode::Sm ? row.ring : row.ringCe;
        const std::string ptx = ringPtxPath(o, dt, mode);
        if (!fileExists(ptx)) {
          m.note = "not built (" +
                   (mode == RingMode::Sm ? ring::ringPtxName(dt) : ring::cePtxName(dt)) + ")";
          continue;
        }
        try {
          RingKernel k = loadRing(ctx, ptx, o.bn, mode);
          const std::string why = ring::shapeProblem(p, k.cluster, k.bn);
          if (!why.empty())
            throw std::runtime_error("shape rejected: " + why);
          const int64_t clusters = ringClusters(k, d, o.clusters);
          row.clusters = clusters;
          row.unitsPerStep = ring::workUnits(p, k.cluster, k.bn) / p.ranks;
          const CeRun run(comm, p, ceLayoutOf(o, p));
          d.poisonRingInputs();
          comm.barrier();
          m.t = ring::timeCollective(
              nccl, [&] { launchRing(k, d, clusters, mode, &ce, &run); }, o.warmup, o.runs);
          m.run = true;
          m.note = k.kernel.name() + ", " + std::to_string(clusters) + " clusters";
          if (mode == RingMode::Ce)
            m.note += ", " + run.describe(p, comm.rank());
          else
            m.note += ", " + std::to_string(d.sem.count()) + " semaphores";
          checked(m, d.ringC.toHost(), ref);
          if (mode == RingMode::Ce && m.ok) {
            // Diagnostics: the other layouts asked for, each from a poisoned
            // A and checked like the ring itself.
            for (const std::string &v : o.ceCompare) {
              const CeRun alt(comm, p, ring::ceLayout(p, o.ceChunks, v == "push", v == "block"));
              d.poisonRingInputs();
              comm.barrier();
              ring::Measured a;
              a.t = ring::timeCollective(
                  nccl, [&] { launchRing(k, d, clusters, mode, &ce, &alt); }, o.warmup, o.runs);
              a.run = true;
              checked(a, d.ringC.toHost(), ref);
              row.ceVariants.push_back(
                  {v + " (" + alt.describe(p, comm.rank()) + ")", a.ok ? a.t.median : -1});
            }
            // The same launches with the counters set but no copy (A is
            // gathered already): the ring's cost without the copy engines'
            // traffic on NVLink and in HBM.
            const ring::Timing t = ring::timeCollective(
                nccl, [&] { launchRing(k, d, clusters, mode, &ce, &run, 0, /*move=*/false); },
                o.warmup, o.runs);
            row.ceNoCopyMs = t.median;
          }
        } catch (const std::exception &e) {
          m.note = std::string("error: ") + e.what();
          m.ok = false;
        }
      }
      if (comm.rank() == 0) {
        std::printf("%s %s: SM ring %s, CE ring %s, NCCL+cuBLAS %.1f us, floor %s, all-gather "
                    "%.1f us, cuBLAS %.1f us%s\n",
                    gemm::dtypeName(dt), p.shape().c_str(),
                    row.ring.run ? ring::fmt("%.1f us", row.ring.t.median * 1e3).c_str()
                                 : row.ring.note.c_str(),
                    row.ringCe.run ? ring::fmt("%.1f us", row.ringCe.t.median * 1e3).c_str()
                                   : row.ringCe.note.c_str(),
                    row.ncclBlas.t.median * 1e3,
                    row.floor.run ? ring::fmt("%.1f us", row.floor.t.median * 1e3).c_str()
                                  : row.floor.note.c_str(),
                    row.allGather.t.median * 1e3, row.blas.t.median * 1e3,
                    row.ring.ok && row.ringCe.ok && row.floor.ok && row.ncclBlas.ok ? ""
                                                                                    : "  PROBLEM");
        std::fflush(stdout);
      }
      allPass = allPass && row.ring.ok && row.ringCe.ok && row.floor.ok && row.ncclBlas.ok &&
                row.floor.run;
      for (const auto &v : row.ceVariants)
        allPass = allPass && v.second > 0;
      for (RingMode mode : modes)
        allPass = allPass && (mode == RingMode::Sm ? row.ring : row.ringCe).run;
      rows.push_back(row);
    }
  ringdrv::writeTable(comm, ring::benchTable(rows, header.str()), o.out, "ring_gemm");
  comm.barrier();
  return allPass ? 0 : 1;
}

// ---------------------------------------------------------------- --hang-test
// The SM ring: the last rank does not launch (ringdrv::runHangTest). The CE
// ring: every rank launches twice, the second time with its last pull (the
// shard its last step computes) withheld, so the producers' waits for those
// blocks time out on every rank.
int runHangTest(const Options &o, const tile::Communicator &comm) {
  Problem p = o.problem;
  p.ranks = comm.size();
  RingKernel k = loadRing(comm.context(), o.ptx, o.bn, o.mode);
  RankData d(comm, p, o.seed);
  const int64_t clusters = ringClusters(k, d, o.clusters);
  if (o.mode == RingMode::Sm)
    return ringdrv::runHangTest(comm, [&] { launchRing(k, d, clusters); });
  ring::CeSide ce;
  const CeRun run(comm, p, ceLayoutOf(o, p));
  return ringdrv::runHangTest(
      comm, [&] { launchRing(k, d, clusters, o.mode, &ce, &run); },
      [&] { launchRing(k, d, clusters, o.mode, &ce, &run, /*withhold=*/1); });
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  // The shape rule needs only the kernel info: checked before any device.
  for (const Problem &shape : o.shapes)
    for (DType d : o.dtypes) {
      Problem p = shape;
      p.dtype = d;
      gemm::KernelShape ks;
      try {
        ks = ringdrv::kernelShape(ringPtxPath(o, d, o.mode), ringEntry(o.mode), o.bn);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "ring_gemm: %s\n", e.what());
        return 1;
      }
      const std::string why = ring::shapeProblem(p, ks.cluster, ks.bn);
      if (!why.empty()) {
        std::fprintf(stderr, "ring_gemm: MS=%lld N=%lld K=%lld rejected by %s: %s\n",
                     (long long)p.ms, (long long)p.n, (long long)p.k, ks.entry.c_str(),
                     why.c_str());
        return 2;
      }
    }
  return ringdrv::runRanks("ring_gemm", o.skipCode,
                           [&](const tile::Communicator &comm, ring::Nccl &nccl) {
                             if (o.hangTest)
                               return runHangTest(o, comm);
                             return o.bench ? runBench(o, comm, nccl) : runCheck(o, comm, nccl);
                           });
}
