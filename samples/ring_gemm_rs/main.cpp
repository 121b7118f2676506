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
// report `tilec: hang: device R: wait(sem[i], V) ...: counter is X` and trap.
//
// Exit: 0 pass, 1 fail, 2 bad arguments or a shape the kernel rejects,
// --skip-code (77) with fewer than 2 CUDA devices or (--check) no ring PTX.
#include "rs_common.h"

#include "../gemm/gemm_cublas.h"
#include "../ring_gemm/ring_nccl.h"

#include <tile/distributed.h>

#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using gemm::dtypeNamed;
using rsring::DType;
using rsring::Problem;

struct Options {
  bool bench = false, hangTest = false;
  Problem problem;
  uint64_t seed = 20261128;
  double cpuMacs = double(1ull << 28);
  int repeat = 2;
  int64_t clusters = 0;
  std::string ptx;
  int skipCode = 77;
  std::vector<DType> dtypes{DType::F16, DType::BF16};
  std::vector<Problem> shapes;
  int runs = 30, warmup = 10;
  std::string out;
};

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
  Options o;
  sample::ArgReader r(argc, argv, usage);
  bool dtypeGiven = false;
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--check")
      o.bench = false;
    else if (f == "--bench")
      o.bench = true;
    else if (f == "--hang-test")
      o.hangTest = true;
    else if (f == "--ms")
      o.problem.ms = int64_t(r.intIn(1, 65536));
    else if (f == "--n")
      o.problem.n = int64_t(r.intIn(1, 65536));
    else if (f == "--k")
      o.problem.k = int64_t(r.intIn(1, 65536));
    else if (f == "--dtype") {
      o.problem.dtype = dtypeNamed(r.value(), r);
      o.dtypes = {o.problem.dtype};
      dtypeGiven = true;
    } else if (f == "--dtypes") {
      o.dtypes.clear();
      for (const std::string &x : r.listValue())
        o.dtypes.push_back(dtypeNamed(x, r));
      dtypeGiven = true;
    } else if (f == "--seed")
      o.seed = uint64_t(r.intValue());
    else if (f == "--cpu-macs")
      o.cpuMacs = double(r.intValue());
    else if (f == "--repeat")
      o.repeat = int(r.intValue());
    else if (f == "--clusters")
      o.clusters = r.intValue();
    else if (f == "--ptx")
      o.ptx = r.value();
    else if (f == "--skip-code")
      o.skipCode = int(r.intValue());
    else if (f == "--shapes") {
      for (const std::string &x : r.listValue()) {
        long long ms = 0, n = 0, k = 0;
        char tail = 0;
        if (std::sscanf(x.c_str(), "%lldx%lldx%lld%c", &ms, &n, &k, &tail) != 3 || ms < 1 ||
            n < 1 || k < 1 || ms > 65536 || n > 65536 || k > 65536)
          usage(("bad shape '" + x + "' (MSxNxK, each 1..65536)").c_str());
        Problem sp;
        sp.ms = ms;
        sp.n = n;
        sp.k = k;
        o.shapes.push_back(sp);
      }
    } else if (f == "--runs")
      o.runs = int(r.intValue());
    else if (f == "--warmup")
      o.warmup = int(r.intValue());
    else if (f == "--out")
      o.out = r.value();
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.clusters < 0 || o.cpuMacs < 1 || o.repeat < 1 || o.dtypes.empty())
    usage("bad arguments");
  if (o.bench && (o.runs < 20 || o.warmup < 1))
    usage("--bench needs --runs >= 20 and --warmup >= 1 (medians of >= 20 after warm-up)");
  if (o.hangTest && (o.bench || o.ptx.empty()))
    usage("--hang-test takes --ptx (a kernel built with tilec --debug-hangs) and no --bench");
  if (!o.bench && !dtypeGiven)
    o.dtypes = {o.problem.dtype};
  if (!o.bench && o.dtypes.size() != 1)
    usage("--check takes one --dtype");
  if (!o.bench && !o.shapes.empty())
    usage("--check takes one shape (--ms, --n, --k)");
  if (o.shapes.empty())
    o.shapes = {o.problem};
  return o;
}

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}
std::string ringPtxPath(const Options &o, DType d) {
  return o.ptx.empty() ? sample::ptxDir() + "/" + rsring::ringPtxName(d) : o.ptx;
}
std::string infoPath(const std::string &ptx) {
  std::string info = ptx;
  if (info.size() > 4 && info.compare(info.size() - 4, 4, ".ptx") == 0)
    info.resize(info.size() - 4);
  return info + ".info.json";
}

// The kernel's cluster and BN from its .info.json (no device); the contract's
// (cluster 2, BN 256) when the PTX is not there.
gemm::KernelShape ringShape(const Options &o, DType d) {
  const std::string ptx = ringPtxPath(o, d);
  if (!fileExists(ptx)) {
    gemm::KernelShape ks;
    ks.cluster = 2;
    ks.bn = 256;
    ks.entry = "ring_gemm_rs (contract: no PTX)";
    return ks;
  }
  return gemm::kernelShapeFromInfo(tile::moduleInfoFromJson(sample::readFile(infoPath(ptx))),
                                   "ring_gemm_rs", 0, ptx);
}

void printInRankOrder(const tile::Communicator &comm, const std::string &text) {
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) {
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
    comm.barrier();
  }
}

std::string comparisonLine(const char *what, const gemm::Comparison &c, double tol, bool &ok) {
  const bool good = c.nonFinite == 0 && c.relFrobenius < tol;
  ok = ok && good;
  char b[512];
  std::snprintf(b, sizeof b,
                "  %-34s rel. Frobenius error %.3e (limit %.0e), max |diff| %.3e over %" PRId64
                " elements%s%s\n",
                what, c.relFrobenius, tol, c.maxAbs, c.compared,
                c.nonFinite ? (", " + std::to_string(c.nonFinite) +
                               " non-finite (poison not overwritten?) first at linear index " +
                               std::to_string(c.firstNonFinite))
                                  .c_str()
                            : "",
                good ? "" : "  FAIL");
  return b;
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
struct RingKernel {
  tile::Module module;
  tile::Kernel kernel;
  unsigned threads = 0;
  int cluster = 1;
  int64_t bn = 0;
};

RingKernel loadRing(tile::Context &ctx, const std::string &ptx) {
  RingKernel t;
  t.module = tile::Module::fromFiles(ctx, ptx);
  const gemm::KernelShape s =
      gemm::kernelShapeFromInfo(*t.module.info(), "ring_gemm_rs", 0, ptx);
  t.kernel = t.module.kernel("ring_gemm_rs", {{"BN", s.bn}});
  const tile::KernelInfo &info = *t.kernel.info();
  if (!info.threads)
    throw std::runtime_error(ptx + ": kernel " + s.entry + " declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  t.cluster = s.cluster;
  t.bn = s.bn;
  return t;
}

int64_t ringClusters(RingKernel &k, RankData &d, int64_t clusters) {
  const int64_t units = rsring::workUnits(d.p, k.cluster, k.bn);
  if (clusters <= 0) {
    tile::LaunchConfig probe;
    probe.grid = tile::Dim3(unsigned(k.cluster));
    probe.block = tile::Dim3(k.threads);
    clusters = k.kernel.maxActiveClusters(probe, d.aTensor(), d.bTensor(), d.eTensor(),
                                          d.rTensor(), d.cTensor(), d.sem);
    if (clusters < 1)
      throw std::runtime_error("no cluster of the ring kernel fits on the GPU (occupancy 0)");
  }
  return std::max<int64_t>(1, std::min(clusters, units));
}

void launchRing(RingKernel &k, RankData &d, int64_t clusters) {
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(clusters * k.cluster));
  cfg.block = tile::Dim3(k.threads);
  k.kernel.launch(cfg, d.aTensor(), d.bTensor(), d.eTensor(), d.rTensor(), d.cTensor(), d.sem);
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
  const std::vector<uint64_t> c = d.sem.toHost();
  const size_t s = d.sem.count();
  size_t nonzero = 0, first = 0;
  for (size_t i = 0; i <= s && i < c.size(); ++i)
    if (c[i] != 0 && nonzero++ == 0)
      first = i;
  const uint64_t want = d.sem.epoch() * uint64_t(d.p.ranks - 1);
  const uint64_t exitCount = c.size() > s + 1 ? c[s + 1] : ~uint64_t(0);
  const bool good = nonzero == 0 && exitCount == want;
  ok = ok && good;
  std::ostringstream l;
  l << what << ": semaphores " << s << " + 2: ";
  if (nonzero)
    l << nonzero << " of counters [0, " << s << "] not reset (first sem[" << first
      << "] = " << c[first] << "); ";
  l << "exit counter " << exitCount << " (want epoch " << d.sem.epoch() << " x " << d.p.ranks - 1
    << " peers = " << want << ")" << (good ? "" : "  FAIL") << "\n";
  return l.str();
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
    const int64_t bn = ringShape(o, p.dtype).bn;
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
  comm.barrier();
  if (comm.rank() == comm.size() - 1) {
    std::printf("rank %d: not launching (the planted hang)\n", comm.rank());
    std::fflush(stdout);
    sleep(20); // the others report and trap meanwhile; then tilec-run ends this rank
    return 0;
  }
  launchRing(k, d, clusters);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("rank %d: launch ended: %s (want a trap: the --debug-hangs report above)\n",
              comm.rank(), cudaGetErrorString(e));
  std::fflush(stdout);
  return e == cudaSuccess ? 1 : 3;
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
        const gemm::Comparison c = gemm::compareRows(g, got, gemm::allRows(g), [&](size_t r,
                                                                                 int64_t j) {
          return double(gemm::fromBits(g.dtype, ref[r * size_t(g.n) + size_t(j)]));
        });
        m.err = 0;
        for (const std::vector<double> &r : nccl.gather({c.relFrobenius, double(c.nonFinite)})) {
          m.err = std::max(m.err, r[0]);
          m.ok = m.ok && r[1] == 0 && r[0] < tol;
        }
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
      {
        // The link as the ring uses it: every rank at once writes a block of
        // running sums (MS x N) into the next rank's R (a copy engine).
        const int next = (comm.rank() + 1) % comm.size();
        const size_t bytes = size_t(p.ms * p.n) * 2;
        const CUdeviceptr dst = d.symR.peerPtr(next);
        auto copy = [&] {
          return cudaMemcpyAsync(reinterpret_cast<void *>(dst),
                                 reinterpret_cast<const void *>(d.partial.ptr()), bytes,
                                 cudaMemcpyDeviceToDevice, ring::kStream);
        };
        cudaError_t e = copy();
        if (e == cudaSuccess)
          e = cudaStreamSynchronize(ring::kStream);
        if (e != cudaSuccess) {
          std::fprintf(stderr, "ring_gemm_rs: rank %d: copy into the next rank's R: %s\n",
                       comm.rank(), cudaGetErrorString(e));
          (void)cudaGetLastError();
        }
        bool everyRank = true;
        for (const std::vector<double> &r : nccl.gather({e == cudaSuccess ? 1.0 : 0.0}))
          everyRank = everyRank && r[0] == 1.0;
        if (everyRank) {
          const ring::Timing t = ring::timeCollective(
              nccl, [&] { SAMPLE_CUDA_CHECK(copy()); }, o.warmup, o.runs);
          row.linkGBs = double(bytes) / (t.median * 1e-3) / 1e9;
        }
      }
      row.blas.t = ring::timeCollective(
          nccl, [&] { blas.gemm(p.local(), d.dA.ptr(), d.dB.ptr(), d.partial.ptr()); }, o.warmup,
          o.runs);
      row.blas.run = true;

      // The floor: samples/gemm's tilec GEMM on the local problem.
      const std::string floorPtx = sample::ptxDir() + "/" + ring::floorPtxName(dt);
      if (!fileExists(floorPtx)) {
        row.floor.note = "not built (" + ring::floorPtxName(dt) + ")";
      } else {
        try {
          gemm::TileKernel fk = gemm::loadTileKernel(ctx, floorPtx, "gemm", 0);
          const gemm::Problem g = p.local();
          const std::string why = gemm::alignmentProblem(g);
          if (!why.empty())
            throw std::runtime_error("shape rejected: " + why);
          d.floorC.fillBytes(0xff);
          const gemm::Tensors ts = gemm::tensorsOf(g, d.dA.ptr(), d.dB.ptr(), d.floorC.ptr());
          const int64_t clusters = gemm::persistentClusters(fk, g, ts, 0);
          row.floor.t = ring::timeCollective(
              nccl, [&] { gemm::launchTile(fk, ts, clusters); }, o.warmup, o.runs);
          row.floor.run = true;
          row.floor.note = fk.kernel.name() + ", " + std::to_string(clusters) + " clusters";
          checked(row.floor, d.floorC.toHost(), partialHost, g);
        } catch (const std::exception &e) {
          row.floor.note = std::string("error: ") + e.what();
          row.floor.ok = false;
        }
      }

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
  if (comm.rank() == 0) {
    const std::string md = rsring::benchTable(rows, header.str());
    std::printf("\n%s", md.c_str());
    if (!o.out.empty()) {
      std::ofstream f(o.out);
      f << md;
      if (!f)
        std::fprintf(stderr, "ring_gemm_rs: cannot write %s\n", o.out.c_str());
    }
  }
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
        ks = ringShape(o, d);
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
  // One GPU per rank (tilec-run -n D puts rank r on device r): fewer devices
  // than ranks (WORLD_SIZE), or than 2, is a skip.
  const int devices = tile::deviceCount();
  const char *world = std::getenv("WORLD_SIZE");
  const int need = std::max(2, world ? std::atoi(world) : 2);
  if (devices < need) {
    std::printf("SKIP: ring_gemm_rs needs %d CUDA devices (found %d)\n", need, devices);
    return o.skipCode;
  }
  std::unique_ptr<tile::Communicator> comm;
  try {
    comm = std::make_unique<tile::Communicator>(tile::Communicator::fromEnvironment());
  } catch (const std::exception &e) {
    std::fprintf(stderr,
                 "ring_gemm_rs: %s\nring_gemm_rs: one process per GPU: run it as "
                 "`tilec-run -n D ring_gemm_rs ...`\n",
                 e.what());
    return 2;
  }
  if (const std::string why = ring::sameNcclAsRuntime(); !why.empty()) {
    std::fprintf(stderr, "ring_gemm_rs: %s\n", why.c_str());
    return 2;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(comm->device()));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr));
  ring::Nccl nccl(*comm);
  try {
    if (o.hangTest)
      return runHangTest(o, *comm);
    return o.bench ? runBench(o, *comm, nccl) : runCheck(o, *comm, nccl);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ring_gemm_rs: rank %d: %s\n", comm->rank(), e.what());
    return 1;
  }
}
