// ring_gemm: C = AllGather(A) * B on D GPUs by the ring all-gather GEMM
// (samples/ring_gemm/ring_gemm.tile through the tilec runtime), one process
// per GPU, checked against NCCL all-gather + cuBLAS on the gathered A in the
// same processes and benchmarked against it and against the no-communication
// floor (samples/gemm's tilec GEMM on the gathered shape).
//
//   tilec-run -n 2 ring_gemm [--check] [--ms MS] [--n N] [--k K] [--dtype f16|bf16]
//        [--bn 256] [--seed S] [--cpu-macs X] [--repeat R] [--clusters N]
//        [--ptx PATH] [--skip-code C] [--probes FILE]
//   tilec-run -n 2 ring_gemm --bench [--ms MS] [--n N] [--k K] [--shapes MSxNxK,...]
//        [--dtypes f16,bf16] [--runs 30] [--warmup 10] [--out FILE.md]
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
//
// Exit: 0 pass, 1 fail, 2 bad arguments or a shape the kernel rejects (before
// any device is touched), --skip-code (77) with fewer than 2 CUDA devices, or
// (--check) when the ring's PTX is missing after the reference path passed.
#include "ring_nccl.h"

#include "../gemm/gemm_cublas.h"

#include <tile/distributed.h>

#include <cuda.h>
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace {

using gemm::dtypeNamed;
using ring::DType;
using ring::Problem;

struct Options {
  bool bench = false;
  Problem problem;
  int64_t bn = 0; // 0: the largest compiled instance
  uint64_t seed = 20261123;
  double cpuMacs = double(1ull << 28);
  int repeat = 2;
  int64_t clusters = 0;
  std::string ptx;
  int skipCode = 77;
  std::vector<DType> dtypes{DType::F16, DType::BF16};
  std::vector<Problem> shapes; // --bench: MS x N x K each (default: --ms/--n/--k)
  int runs = 30, warmup = 10;
  std::string out;
  std::string probes; // --probes FILE: read a probe build's timestamps (tools/scripts/ring_probes.py)
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "ring_gemm: %s\n"
      "usage: tilec-run -n D ring_gemm [--check] [--ms MS] [--n N] [--k K] [--dtype f16|bf16]\n"
      "            [--bn BN] [--seed S] [--cpu-macs X] [--repeat R] [--clusters N]\n"
      "            [--ptx PATH] [--skip-code C] [--probes FILE.csv]\n"
      "       tilec-run -n D ring_gemm --bench [--ms MS] [--n N] [--k K] [--shapes MSxNxK,...]\n"
      "            [--dtypes f16,bf16] [--runs R] [--warmup W] [--out FILE.md]\n",
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
    } else if (f == "--bn")
      o.bn = r.intValue();
    else if (f == "--seed")
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
    else if (f == "--probes")
      o.probes = r.value();
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.bn < 0 || o.clusters < 0 || o.cpuMacs < 1 || o.repeat < 1 || o.dtypes.empty())
    usage("bad arguments");
  if (o.bench && (o.runs < 20 || o.warmup < 1))
    usage("--bench needs --runs >= 20 and --warmup >= 1 (medians of >= 20 after warm-up)");
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
  return o.ptx.empty() ? sample::ptxDir() + "/" + ring::ringPtxName(d) : o.ptx;
}
std::string infoPath(const std::string &ptx) {
  std::string info = ptx;
  if (info.size() > 4 && info.compare(info.size() - 4, 4, ".ptx") == 0)
    info.resize(info.size() - 4);
  return info + ".info.json";
}

// The ring kernel's cluster and BN from its .info.json (no device); the
// contract's (cluster 2, BN 256) when the PTX is not there.
gemm::KernelShape ringShape(const Options &o, DType d) {
  const std::string ptx = ringPtxPath(o, d);
  if (!fileExists(ptx)) {
    gemm::KernelShape ks;
    ks.cluster = 2;
    ks.bn = o.bn ? o.bn : 256;
    ks.entry = "ring_gemm (contract: no PTX)";
    return ks;
  }
  return gemm::kernelShapeFromInfo(tile::moduleInfoFromJson(sample::readFile(infoPath(ptx))),
                                   "ring_gemm", o.bn, ptx);
}

// Prints `text` from every rank in rank order (a barrier between ranks), so
// the processes' lines do not interleave.
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
                "  %-32s rel. Frobenius error %.3e (limit %.0e), max |diff| %.3e over %" PRId64
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
struct RingKernel {
  tile::Module module;
  tile::Kernel kernel;
  unsigned threads = 0;
  int cluster = 1;
  int64_t bn = 0;
};

RingKernel loadRing(tile::Context &ctx, const std::string &ptx, int64_t bn) {
  RingKernel t;
  t.module = tile::Module::fromFiles(ctx, ptx);
  const gemm::KernelShape s = gemm::kernelShapeFromInfo(*t.module.info(), "ring_gemm", bn, ptx);
  t.kernel = t.module.kernel("ring_gemm", {{"BN", s.bn}});
  const tile::KernelInfo &info = *t.kernel.info();
  if (!info.threads)
    throw std::runtime_error(ptx + ": kernel " + s.entry + " declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  t.cluster = s.cluster;
  t.bn = s.bn;
  return t;
}

// The persistent grid: the resident clusters (or --clusters), at most one per
// work unit. The kernel spins on its peers' signals, so every CTA must be
// resident (the runtime checks it at launch); the grid is the same on every
// rank (same device kind; the runtime checks that too).
int64_t ringClusters(RingKernel &k, RankData &d, int64_t clusters) {
  const int64_t units = ring::workUnits(d.p, k.cluster, k.bn);
  if (clusters <= 0) {
    tile::LaunchConfig probe;
    probe.grid = tile::Dim3(unsigned(k.cluster));
    probe.block = tile::Dim3(k.threads);
    clusters = k.kernel.maxActiveClusters(probe, d.aTensor(), d.bTensor(), d.cTensor(), d.sem);
    if (clusters < 1)
      throw std::runtime_error("no cluster of the ring kernel fits on the GPU (occupancy 0)");
  }
  return std::max<int64_t>(1, std::min(clusters, units));
}

void launchRing(RingKernel &k, RankData &d, int64_t clusters) {
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(clusters * k.cluster));
  cfg.block = tile::Dim3(k.threads);
  k.kernel.launch(cfg, d.aTensor(), d.bTensor(), d.cTensor(), d.sem);
}

gemm::Comparison againstCublas(const RankData &d, const std::vector<uint16_t> &got,
                               const std::vector<uint16_t> &ref) {
  const gemm::Problem g = d.p.gathered();
  return gemm::compareRows(g, got, gemm::allRows(g), [&](size_t r, int64_t j) {
    return double(gemm::fromBits(g.dtype, ref[r * size_t(g.n) + size_t(j)]));
  });
}

// The semaphore contract after a launch (SPEC10, the exit protocol): counters
// [0, S] are back to 0 for the next launch, and the exit counter [S+1] has
// counted one signal from every peer per launch: epoch * (D - 1).
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

// ---------------------------------------------------------------- probes
// A probe build of the kernel (tools/scripts/ring_probes.py) has a module
// array `ring_probe` of per-CTA, per-event counters and %globaltimer stamps.
// zeroProbes clears it before a launch; appendProbes writes every stamp as
// "rank,cta,event,slot,ns" (ns after this rank's earliest `start` stamp).
// The driver entry points come from libcuda at run time (dlopen, as the tilec
// runtime does): linking libcuda would keep the program from starting on a
// machine without a driver, where it must print SKIP.
struct ProbeDriver {
  decltype(&cuModuleGetGlobal) getGlobal = nullptr;
  decltype(&cuMemsetD8) memset = nullptr;
  decltype(&cuMemcpyDtoH) copy = nullptr;
  ProbeDriver() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
      lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
      throw std::runtime_error("--probes: cannot open libcuda.so.1");
    getGlobal = reinterpret_cast<decltype(getGlobal)>(dlsym(lib, "cuModuleGetGlobal_v2"));
    memset = reinterpret_cast<decltype(memset)>(dlsym(lib, "cuMemsetD8_v2"));
    copy = reinterpret_cast<decltype(copy)>(dlsym(lib, "cuMemcpyDtoH_v2"));
    if (!getGlobal || !memset || !copy)
      throw std::runtime_error("--probes: libcuda lacks cuModuleGetGlobal_v2 / cuMemsetD8_v2 / "
                               "cuMemcpyDtoH_v2");
  }
};
const ProbeDriver &probeDriver() {
  static const ProbeDriver d;
  return d;
}
CUdeviceptr probeArray(RingKernel &k, size_t &bytes) {
  CUdeviceptr p = 0;
  if (probeDriver().getGlobal(&p, &bytes, k.module.raw(), "ring_probe") != CUDA_SUCCESS)
    throw std::runtime_error("--probes: the PTX has no ring_probe array (make it with "
                             "tools/scripts/ring_probes.py)");
  return p;
}
void zeroProbes(RingKernel &k) {
  size_t bytes = 0;
  const CUdeviceptr p = probeArray(k, bytes);
  if (probeDriver().memset(p, 0, bytes) != CUDA_SUCCESS)
    throw std::runtime_error("--probes: cuMemsetD8 failed");
}
void appendProbes(RingKernel &k, int rank, const std::string &file) {
  constexpr int kEvents = 8, kSlots = 16;
  size_t bytes = 0;
  const CUdeviceptr p = probeArray(k, bytes);
  std::vector<uint64_t> v(bytes / 8);
  if (probeDriver().copy(v.data(), p, bytes) != CUDA_SUCCESS)
    throw std::runtime_error("--probes: cuMemcpyDtoH failed");
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
  const std::string ptx = ringPtxPath(o, p.dtype);
  const bool havePtx = fileExists(ptx);
  if (comm.rank() == 0) {
    std::printf("ring_gemm --check %s %s (each rank: %s), seed %" PRIu64
                " (normal(0, 1) inputs), %d ring launch(es)\n",
                p.shape().c_str(), gemm::dtypeName(p.dtype), p.gemmShape().c_str(), o.seed,
                o.repeat);
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
      RingKernel k = loadRing(comm.context(), ptx, o.bn);
      const int64_t clusters = ringClusters(k, d, o.clusters);
      log << "  tilec: " << k.kernel.name() << " (" << ptx << "), cluster " << k.cluster << ", "
          << k.threads << " threads, " << clusters << " clusters (persistent), "
          << ring::semaphoreCount(p) << " semaphores\n";
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
        launchRing(k, d, clusters);
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
        // The forwarded shards landed in this rank's A, bit for bit.
        const std::vector<uint16_t> a = d.symA.toHost();
        size_t bad = 0;
        for (size_t i = 0; i < a.size(); ++i)
          bad += a[i] != d.aFull[i];
        if (bad) {
          ok = false;
          log << "  ring #" << n << ": " << bad
              << " elements of the symmetric A differ from the gathered A  FAIL\n";
        }
        log << semaphoreLine(d, "  ring #" + n, ok);
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
        const gemm::Comparison c = againstCublas(d, got, ref);
        const std::vector<std::vector<double>> all =
            nccl.gather({c.relFrobenius, double(c.nonFinite)});
        m.err = 0;
        for (const std::vector<double> &r : all) {
          m.err = std::max(m.err, r[0]);
          m.ok = m.ok && r[1] == 0 && r[0] < tol;
        }
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
      {
        // The link as the ring uses it: every rank at once writes its shard into
        // its slot of the next rank's A (a copy engine, through the peer
        // address): the model's B_link. The data is what the ring forwards there.
        const int next = (comm.rank() + 1) % comm.size();
        const size_t bytes = size_t(p.ms * p.k) * 2;
        const CUdeviceptr dst = d.symA.peerPtr(next) + d.shardOffset() * 2;
        auto copy = [&] {
          return cudaMemcpyAsync(reinterpret_cast<void *>(dst),
                                 reinterpret_cast<const void *>(d.shard.ptr()), bytes,
                                 cudaMemcpyDeviceToDevice, ring::kStream);
        };
        // A trial copy first: where the copy engine cannot address the peer's
        // mapping, the model goes without a link figure (every rank agrees).
        cudaError_t e = copy();
        if (e == cudaSuccess)
          e = cudaStreamSynchronize(ring::kStream);
        if (e != cudaSuccess) {
          std::fprintf(stderr,
                       "ring_gemm: rank %d: copy into the next rank's A: %s (no link figure)\n",
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
          nccl, [&] { blas.gemm(g, d.gathered.ptr(), d.dB.ptr(), d.ref.ptr()); }, o.warmup, o.runs);
      row.blas.run = true;

      // The floor: samples/gemm's tilec GEMM on the gathered A.
      const std::string floorPtx = sample::ptxDir() + "/" + ring::floorPtxName(dt);
      if (!fileExists(floorPtx)) {
        row.floor.note = "not built (" + ring::floorPtxName(dt) + ")";
      } else {
        try {
          gemm::TileKernel k = gemm::loadTileKernel(ctx, floorPtx, "gemm", 0);
          const std::string why = gemm::shapeProblem(g, k.cluster, k.bn);
          if (!why.empty())
            throw std::runtime_error("shape rejected: " + why);
          d.floorC.fillBytes(0xff);
          const gemm::Tensors ts = gemm::tensorsOf(g, d.gathered.ptr(), d.dB.ptr(), d.floorC.ptr());
          const int64_t clusters = gemm::persistentClusters(k, g, ts, 0);
          row.floor.t = ring::timeCollective(
              nccl, [&] { gemm::launchTile(k, ts, clusters); }, o.warmup, o.runs);
          row.floor.run = true;
          row.floor.note = k.kernel.name() + ", " + std::to_string(clusters) + " clusters";
          checked(row.floor, d.floorC.toHost(), ref);
        } catch (const std::exception &e) {
          row.floor.note = std::string("error: ") + e.what();
          row.floor.ok = false;
        }
      }

      // The tilec ring.
      const std::string ptx = ringPtxPath(o, dt);
      if (!fileExists(ptx)) {
        row.ring.note = "not built (" + ring::ringPtxName(dt) + ")";
      } else {
        try {
          RingKernel k = loadRing(ctx, ptx, o.bn);
          const std::string why = ring::shapeProblem(p, k.cluster, k.bn);
          if (!why.empty())
            throw std::runtime_error("shape rejected: " + why);
          const int64_t clusters = ringClusters(k, d, o.clusters);
          row.clusters = clusters;
          row.unitsPerStep = ring::workUnits(p, k.cluster, k.bn) / p.ranks;
          d.poisonRingInputs();
          comm.barrier();
          row.ring.t = ring::timeCollective(
              nccl, [&] { launchRing(k, d, clusters); }, o.warmup, o.runs);
          row.ring.run = true;
          row.ring.note = k.kernel.name() + ", " + std::to_string(clusters) + " clusters, " +
                          std::to_string(ring::semaphoreCount(p)) + " semaphores";
          checked(row.ring, d.ringC.toHost(), ref);
        } catch (const std::exception &e) {
          row.ring.note = std::string("error: ") + e.what();
          row.ring.ok = false;
        }
      }
      if (comm.rank() == 0) {
        std::printf("%s %s: ring %s, NCCL+cuBLAS %.1f us, floor %s, all-gather %.1f us, cuBLAS "
                    "%.1f us%s\n",
                    gemm::dtypeName(dt), p.shape().c_str(),
                    row.ring.run ? ring::fmt("%.1f us", row.ring.t.median * 1e3).c_str()
                                 : row.ring.note.c_str(),
                    row.ncclBlas.t.median * 1e3,
                    row.floor.run ? ring::fmt("%.1f us", row.floor.t.median * 1e3).c_str()
                                  : row.floor.note.c_str(),
                    row.allGather.t.median * 1e3, row.blas.t.median * 1e3,
                    row.ring.ok && row.floor.ok && row.ncclBlas.ok ? "" : "  PROBLEM");
        std::fflush(stdout);
      }
      allPass = allPass && row.ring.ok && row.floor.ok && row.ncclBlas.ok && row.ring.run &&
                row.floor.run;
      rows.push_back(row);
    }
  if (comm.rank() == 0) {
    const std::string md = ring::benchTable(rows, header.str());
    std::printf("\n%s", md.c_str());
    if (!o.out.empty()) {
      std::ofstream f(o.out);
      f << md;
      if (!f)
        std::fprintf(stderr, "ring_gemm: cannot write %s\n", o.out.c_str());
    }
  }
  comm.barrier();
  return allPass ? 0 : 1;
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
        ks = ringShape(o, d);
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
  const int devices = tile::deviceCount();
  if (devices < 2) {
    std::printf("SKIP: ring_gemm needs 2 CUDA devices (found %d)\n", devices);
    return o.skipCode;
  }
  std::unique_ptr<tile::Communicator> comm;
  try {
    comm = std::make_unique<tile::Communicator>(tile::Communicator::fromEnvironment());
  } catch (const std::exception &e) {
    std::fprintf(stderr,
                 "ring_gemm: %s\nring_gemm: one process per GPU: run it as "
                 "`tilec-run -n 2 ring_gemm ...`\n",
                 e.what());
    return 2;
  }
  if (const std::string why = ring::sameNcclAsRuntime(); !why.empty()) {
    std::fprintf(stderr, "ring_gemm: %s\n", why.c_str());
    return 2;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(comm->device()));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // the primary context the tilec runtime retains too
  ring::Nccl nccl(*comm);
  try {
    return o.bench ? runBench(o, *comm, nccl) : runCheck(o, *comm, nccl);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ring_gemm: rank %d: %s\n", comm->rank(), e.what());
    return 1;
  }
}
