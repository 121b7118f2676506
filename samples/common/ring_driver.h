// The host driver both ring GEMM samples share (samples/ring_gemm, the
// all-gather ring, and samples/ring_gemm_rs, the reduce-scatter ring): the
// options, the ranks' start (skip, communicator, NCCL), loading the ring
// kernel and sizing its persistent grid, the check's report lines, the
// benchmark's floor and link measurements and its table, and the planted hang
// of --hang-test. Each sample keeps what is its own: its data, its reference
// and its ring's launch.
#pragma once

#include "../gemm/gemm_cublas.h"
#include "../ring_gemm/ring_nccl.h"
#include "sample_util.h"

#include <tile/distributed.h>
#include <tile/runtime.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ringdrv {

using ring::DType;

/// The command line of a ring sample. `Problem` is the sample's (ms, n, k,
/// dtype, ranks).
template <class Problem> struct Options {
  bool bench = false, hangTest = false;
  Problem problem;
  uint64_t seed = 0;
  double cpuMacs = double(1ull << 28);
  int repeat = 2;
  int64_t clusters = 0;
  int64_t bn = 0; // 0: the largest compiled instance
  std::string ptx;
  int skipCode = 77;
  std::vector<DType> dtypes{DType::F16, DType::BF16};
  std::vector<Problem> shapes; // --bench: MS x N x K each (default: --ms/--n/--k)
  int runs = 30, warmup = 10;
  std::string out;
  std::string probes; // the all-gather ring's --probes FILE
  // The all-gather ring's form for --check / --hang-test (--mode sm|ce) and
  // the pieces each copy-engine pull of a shard is cut into (--ce-chunks).
  ring::RingMode mode = ring::RingMode::Sm;
  int ceChunks = 1;
  // The all-gather ring's copy-engine form: each owner pushes its shard
  // (--ce-push) instead of each rank pulling; a counter per 128-row block
  // (--ce-counters block, the default: the layout the GPU runs measured) or
  // one per copy (copy); --bench also times the layouts named in
  // --ce-compare (pull and push: one counter a copy; block) as diagnostic
  // lines.
  bool cePush = false;
  bool ceCounterPerBlock = true;
  std::vector<std::string> ceCompare;
  // --bench: the forms measured (--modes sm,ce; empty: the sample's default).
  std::vector<ring::RingMode> benchModes;
};

/// The flags both rings take; `own` handles a sample's own flags (true when it
/// took the flag).
template <class Problem>
Options<Problem> parseOptions(int argc, char **argv, sample::ArgReader::Usage usage, uint64_t seed,
                              const std::function<bool(const std::string &, sample::ArgReader &,
                                                       Options<Problem> &)> &own = {}) {
  Options<Problem> o;
  o.seed = seed;
  sample::ArgReader r(argc, argv, usage, {"--shapes", "--ce-compare"});
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
      o.problem.dtype = gemm::dtypeNamed(r.value(), r);
      o.dtypes = {o.problem.dtype};
      dtypeGiven = true;
    } else if (f == "--dtypes") {
      o.dtypes.clear();
      for (const std::string &x : r.listValue())
        o.dtypes.push_back(gemm::dtypeNamed(x, r));
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
      for (const auto &[ms, n, k] : r.shapeList("MSxNxK")) {
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
    else if (f == "--modes") {
      o.benchModes.clear();
      for (const std::string &x : r.listValue()) {
        if (x != "sm" && x != "ce")
          usage(("--modes takes sm and/or ce, not '" + x + "'").c_str());
        o.benchModes.push_back(x == "ce" ? ring::RingMode::Ce : ring::RingMode::Sm);
      }
    } else if (f == "-h" || f == "--help")
      usage("help");
    else if (!own || !own(f, r, o))
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.bn < 0 || o.clusters < 0 || o.cpuMacs < 1 || o.repeat < 1 || o.dtypes.empty())
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

inline bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

/// "dir/k.ptx" -> "dir/k.info.json".
inline std::string infoPath(const std::string &ptx) {
  std::string info = ptx;
  if (info.size() > 4 && info.compare(info.size() - 4, 4, ".ptx") == 0)
    info.resize(info.size() - 4);
  return info + ".info.json";
}

/// The kernel's cluster and BN from its .info.json (no device); the
/// contract's (cluster 2, BN 256) when the PTX is not there.
inline gemm::KernelShape kernelShape(const std::string &ptx, const std::string &entry, int64_t bn) {
  if (!fileExists(ptx)) {
    gemm::KernelShape ks;
    ks.cluster = 2;
    ks.bn = bn ? bn : 256;
    ks.entry = entry + " (contract: no PTX)";
    return ks;
  }
  return gemm::kernelShapeFromInfo(tile::moduleInfoFromJson(sample::readFile(infoPath(ptx))), entry,
                                   bn, ptx);
}

/// Prints `text` from every rank in rank order (a barrier between ranks), so
/// the processes' lines do not interleave.
inline void printInRankOrder(const tile::Communicator &comm, const std::string &text) {
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) {
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
    comm.barrier();
  }
}

inline std::string comparisonLine(const char *what, const gemm::Comparison &c, double tol,
                                  bool &ok) {
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

/// The semaphore contract after a launch (the exit protocol): counters [0, S]
/// are back to 0 for the next launch, and the exit counter [S+1] has counted
/// one signal from every peer per launch: epoch * (D - 1).
inline std::string semaphoreLine(const tile::Semaphores &sem, int ranks, const std::string &what,
                                 bool &ok) {
  const std::vector<uint64_t> c = sem.toHost();
  const size_t s = sem.count();
  size_t nonzero = 0, first = 0;
  for (size_t i = 0; i <= s && i < c.size(); ++i)
    if (c[i] != 0 && nonzero++ == 0)
      first = i;
  const uint64_t want = sem.epoch() * uint64_t(ranks - 1);
  const uint64_t exitCount = c.size() > s + 1 ? c[s + 1] : ~uint64_t(0);
  const bool good = nonzero == 0 && exitCount == want;
  ok = ok && good;
  std::ostringstream l;
  l << what << ": semaphores " << s << " + 2: ";
  if (nonzero)
    l << nonzero << " of counters [0, " << s << "] not reset (first sem[" << first
      << "] = " << c[first] << "); ";
  l << "exit counter " << exitCount << " (want epoch " << sem.epoch() << " x " << ranks - 1
    << " peers = " << want << ")" << (good ? "" : "  FAIL") << "\n";
  return l.str();
}

// ---------------------------------------------------------------- the ring kernel
struct RingKernel {
  tile::Module module;
  tile::Kernel kernel;
  unsigned threads = 0;
  int cluster = 1;
  int64_t bn = 0;
};

inline RingKernel loadRing(tile::Context &ctx, const std::string &ptx, const std::string &entry,
                           int64_t bn) {
  RingKernel t;
  t.module = tile::Module::fromFiles(ctx, ptx);
  const gemm::KernelShape s = gemm::kernelShapeFromInfo(*t.module.info(), entry, bn, ptx);
  t.kernel = t.module.kernel(entry, {{"BN", s.bn}});
  const tile::KernelInfo &info = *t.kernel.info();
  if (!info.threads)
    throw std::runtime_error(ptx + ": kernel " + s.entry + " declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  t.cluster = s.cluster;
  t.bn = s.bn;
  return t;
}

/// The persistent grid: the resident clusters (or `clusters`), at most one
/// per work unit. The kernel spins on its peers' signals, so every CTA must be
/// resident (the runtime checks it at launch); the grid is the same on every
/// rank (same device kind; the runtime checks that too).
template <class... Args>
int64_t ringClusters(RingKernel &k, int64_t units, int64_t clusters, const Args &...args) {
  if (clusters <= 0) {
    tile::LaunchConfig probe;
    probe.grid = tile::Dim3(unsigned(k.cluster));
    probe.block = tile::Dim3(k.threads);
    clusters = k.kernel.maxActiveClusters(probe, args...);
    if (clusters < 1)
      throw std::runtime_error("no cluster of the ring kernel fits on the GPU (occupancy 0)");
  }
  return std::max<int64_t>(1, std::min(clusters, units));
}

template <class... Args> void launchRing(RingKernel &k, int64_t clusters, const Args &...args) {
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(clusters * k.cluster));
  cfg.block = tile::Dim3(k.threads);
  k.kernel.launch(cfg, args...);
}

// ---------------------------------------------------------------- --bench
/// Every rank's relative error and non-finite count against `ref`, reduced:
/// the worst rank's error; ok only where every rank's is.
inline void checkAllRanks(ring::Nccl &nccl, ring::Measured &m, const gemm::Problem &g,
                          const std::vector<uint16_t> &got, const std::vector<uint16_t> &ref,
                          double tol) {
  const gemm::Comparison c = gemm::compareRows(g, got, gemm::allRows(g), [&](size_t r, int64_t j) {
    return double(gemm::fromBits(g.dtype, ref[r * size_t(g.n) + size_t(j)]));
  });
  m.err = 0;
  for (const std::vector<double> &r : nccl.gather({c.relFrobenius, double(c.nonFinite)})) {
    m.err = std::max(m.err, r[0]);
    m.ok = m.ok && r[1] == 0 && r[0] < tol;
  }
}

/// The floor: samples/gemm's tilec GEMM (no communication) on `g`, timed like
/// the ring and checked against `ref` (every rank's [g.m, g.n] product).
inline void measureFloor(tile::Context &ctx, ring::Nccl &nccl, const gemm::Problem &g,
                         CUdeviceptr a, CUdeviceptr b, tile::DeviceBuffer<uint16_t> &c,
                         const std::vector<uint16_t> &ref, int warmup, int runs,
                         ring::Measured &floor) {
  const std::string name = ring::floorPtxName(g.dtype);
  const std::string ptx = sample::ptxDir() + "/" + name;
  if (!fileExists(ptx)) {
    floor.note = "not built (" + name + ")";
    return;
  }
  try {
    gemm::TileKernel k = gemm::loadTileKernel(ctx, ptx, "gemm", 0);
    const std::string why = gemm::alignmentProblem(g);
    if (!why.empty())
      throw std::runtime_error("shape rejected: " + why);
    c.fillBytes(0xff);
    const gemm::Tensors ts = gemm::tensorsOf(g, a, b, c.ptr());
    const int64_t clusters = gemm::persistentClusters(k, g, ts, 0);
    floor.t = ring::timeCollective(
        nccl, [&] { gemm::launchTile(k, ts, clusters); }, warmup, runs);
    floor.run = true;
    floor.note = k.kernel.name() + ", " + std::to_string(clusters) + " clusters";
    checkAllRanks(nccl, floor, g, c.toHost(), ref, gemm::tolerance(g.dtype));
  } catch (const std::exception &e) {
    floor.note = std::string("error: ") + e.what();
    floor.ok = false;
  }
}

/// The link as a ring uses it: every rank at once copies `bytes` from `src`
/// into `dst` on the next rank (a copy engine through the peer address).
/// GB/s, or 0 where a rank's copy engine cannot address the peer's mapping
/// (every rank agrees: the model then goes without a link figure).
inline double measureLink(const tile::Communicator &comm, ring::Nccl &nccl, CUdeviceptr dst,
                          CUdeviceptr src, size_t bytes, int warmup, int runs,
                          const char *program) {
  auto copy = [&] {
    return cudaMemcpyAsync(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src),
                           bytes, cudaMemcpyDeviceToDevice, ring::kStream);
  };
  cudaError_t e = copy();
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ring::kStream);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: rank %d: copy into the next rank: %s (no link figure)\n", program,
                 comm.rank(), cudaGetErrorString(e));
    (void)cudaGetLastError();
  }
  bool everyRank = true;
  for (const std::vector<double> &r : nccl.gather({e == cudaSuccess ? 1.0 : 0.0}))
    everyRank = everyRank && r[0] == 1.0;
  if (!everyRank)
    return 0;
  const ring::Timing t = ring::timeCollective(
      nccl, [&] { SAMPLE_CUDA_CHECK(copy()); }, warmup, runs);
  return double(bytes) / (t.median * 1e-3) / 1e9;
}

/// Rank 0 prints the table and writes it to `out` (when given).
inline void writeTable(const tile::Communicator &comm, const std::string &md,
                       const std::string &out, const char *program) {
  if (comm.rank() != 0)
    return;
  std::printf("\n%s", md.c_str());
  if (!out.empty()) {
    std::ofstream f(out);
    f << md;
    if (!f)
      std::fprintf(stderr, "%s: cannot write %s\n", program, out.c_str());
  }
}

// ---------------------------------------------------------------- --hang-test
/// The planted hang: every rank launches `launch` (a kernel built with tilec
/// --debug-hangs) once to completion, then the last rank does not launch it
/// again while every other rank does; their wait for the missing rank must
/// time out, report and trap. The first launch is whole because the
/// runtime's first launch of a configuration checks it against every rank's
/// (a collective the missing rank would never join). A kernel with mma
/// cannot print (vprintf would serialise its wgmma): its report comes from
/// the runtime's hang record (tile::takeHangReports()), which must name a
/// wait. Exit 3 when the launch failed with a report, 1 otherwise.
/// With `planted` (a launch whose own host side leaves a wait unsatisfied:
/// the copy-engine ring with a pull withheld) every rank launches it after
/// the whole first launch, and every rank must report.
inline int runHangTest(const tile::Communicator &comm, const std::function<void()> &launch,
                       const std::function<void()> &planted = {}) {
  comm.barrier();
  launch();
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  comm.barrier();
  if (!planted && comm.rank() == comm.size() - 1) {
    std::printf("rank %d: not launching (the planted hang)\n", comm.rank());
    std::fflush(stdout);
    sleep(20); // the others report and trap meanwhile; then tilec-run ends this rank
    return 0;
  }
  if (planted)
    planted();
  else
    launch();
  const cudaError_t e = cudaDeviceSynchronize();
  const std::string report = tile::takeHangReports();
  std::printf("rank %d: launch ended: %s\n%s", comm.rank(), cudaGetErrorString(e),
              report.empty() ? "no hang report\n" : report.c_str());
  std::fflush(stdout);
  const bool named = report.find("tilec: hang: device " + std::to_string(comm.rank()) +
                                 ": wait(") != std::string::npos ||
                     report.find("wait on mbarrier") != std::string::npos;
  return e != cudaSuccess && named ? 3 : 1;
}

// ---------------------------------------------------------------- the ranks
/// One process per GPU (tilec-run -n D puts rank r on device r): fewer
/// devices than ranks (WORLD_SIZE), or than 2, is a skip (skipCode). Then the
/// runtime's communicator, NCCL on it, and `run`; an exception is rank r's
/// failure (exit 1).
inline int runRanks(const char *program, int skipCode,
                    const std::function<int(const tile::Communicator &, ring::Nccl &)> &run) {
  const int devices = tile::deviceCount();
  const char *world = std::getenv("WORLD_SIZE");
  const int need = std::max(2, world ? std::atoi(world) : 2);
  if (devices < need) {
    std::printf("SKIP: %s needs %d CUDA devices (found %d)\n", program, need, devices);
    return skipCode;
  }
  std::unique_ptr<tile::Communicator> comm;
  try {
    comm = std::make_unique<tile::Communicator>(tile::Communicator::fromEnvironment());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: %s\n%s: one process per GPU: run it as `tilec-run -n D %s ...`\n",
                 program, e.what(), program, program);
    return 2;
  }
  if (const std::string why = ring::sameNcclAsRuntime(); !why.empty()) {
    std::fprintf(stderr, "%s: %s\n", program, why.c_str());
    return 2;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(comm->device()));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // the primary context the tilec runtime retains too
  ring::Nccl nccl(*comm);
  try {
    return run(*comm, nccl);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: rank %d: %s\n", program, comm->rank(), e.what());
    return 1;
  }
}

} // namespace ringdrv
