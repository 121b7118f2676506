// gemm: C = A * B in f16 / bf16 (f32 accumulation) by the .tile GEMM
// (samples/gemm/gemm.tile, through the tilec runtime), checked against cuBLAS
// in the same process and against a float64 CPU reference, and benchmarked
// side by side with cuBLAS.
//
//   gemm [--check] [--m M] [--n N] [--k K] [--dtype f16|bf16] [--bmajor k|mn]
//        [--multicast on|off] [--bn 256|128] [--seed S] [--cpu-macs X]
//        [--clusters N] [--ptx PATH] [--reference-only] [--skip-code C]
//   gemm --bench [--shapes MxNxK,...] [--dtypes f16,bf16] [--bmajor k|mn|k,mn]
//        [--runs 30] [--warmup 10] [--bn 256|128] [--out FILE.md] [--csv FILE.csv]
//
// Row-major A [M, K] and C [M, N]; B K-major (stored [N, K]) or MN-major
// (stored [K, N]). Inputs are fresh standard normal values from --seed (the
// seed is printed); every output is poisoned (all bits set: NaN in f16 and
// bf16) before the GEMM runs, so an element the kernel never writes fails.
// --check: the relative Frobenius error ||C - R||_F / ||R||_F against cuBLAS
// (cublasGemmEx, CUBLAS_COMPUTE_32F) and against float64 on the CPU (every
// row when M*N*K <= --cpu-macs, default 2^31, else evenly spread rows) must
// be below 2e-3 (f16) / 1e-2 (bf16); cuBLAS is held to the same bound
// against float64, which checks the reference path itself.
// --bench: M=N=K=4096, 8192 and M=1024,N=4096,K=4096 (default), each dtype:
// cuBLAS and the .tile GEMM with and without multicast of B, CUDA-event
// median of --runs after --warmup, TFLOP/s, ratio to cuBLAS, the multicast
// gain, the physical floor; a markdown table (docs/perf/gemm.md) and a CSV
// for plot.py. Every timed result is checked against cuBLAS afterwards.
//
// The PTX is <dir>/gemm_<dtype>_<mc|nomc>.ptx (+ .info.json; dir =
// $TILEC_PTX_DIR or the build's PTX directory; --ptx overrides), kernel
// `gemm` (K-major B) or `gemm_bmn` (MN-major B) with BN = --bn (default: the
// largest compiled). M, N, K that are not multiples of the kernel's tile are
// rejected before anything runs (exit 2). Without a CUDA device: "no CUDA
// device: compiled only", exit --skip-code (0). Without the PTX the check
// mode still checks cuBLAS against float64 and then exits --skip-code; the
// bench reports "not built" (no number is ever invented). --reference-only
// checks cuBLAS against float64 alone (the reference path's own test).
#include "gemm_common.h"
#include "gemm_cublas.h"

#include "../common/event_timing.cuh"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace {

using gemm::BMajor;
using gemm::DType;
using gemm::dtypeNamed;
using gemm::Problem;

struct Options {
  bool bench = false;
  bool referenceOnly = false; // --check of cuBLAS against float64 only
  Problem problem{512, 768, 320, DType::F16, BMajor::K};
  bool multicast = true;
  int64_t bn = 0; // 0: the largest compiled instance
  uint64_t seed = 20261123;
  double cpuMacs = double(1ull << 31);
  int64_t clusters = 0;
  std::string ptx;
  int skipCode = 0;
  // bench
  std::vector<Problem> shapes;
  std::vector<DType> dtypes{DType::F16, DType::BF16};
  std::vector<BMajor> bmajors{BMajor::K};
  int runs = 30, warmup = 10;
  std::string out, csv;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "gemm: %s\n"
      "usage: gemm [--check] [--m M] [--n N] [--k K] [--dtype f16|bf16] [--bmajor k|mn]\n"
      "            [--multicast on|off] [--bn BN] [--seed S] [--cpu-macs X] [--clusters N]\n"
      "            [--ptx PATH] [--reference-only] [--skip-code C]\n"
      "       gemm --bench [--shapes MxNxK,...] [--dtypes f16,bf16] [--bmajor k|mn|k,mn]\n"
      "            [--runs R] [--warmup W] [--bn BN] [--out FILE.md] [--csv FILE.csv]\n",
      msg);
  std::exit(2);
}

BMajor parseBMajor(const std::string &s) {
  if (s == "k")
    return BMajor::K;
  if (s == "mn")
    return BMajor::MN;
  usage(("bad --bmajor '" + s + "' (k or mn)").c_str());
}
Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader r(argc, argv, usage);
  bool bmajorList = false;
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--check")
      o.bench = false;
    else if (f == "--bench")
      o.bench = true;
    else if (f == "--reference-only")
      o.referenceOnly = true;
    else if (f == "--m")
      o.problem.m = int64_t(r.intIn(1, 65536));
    else if (f == "--n")
      o.problem.n = int64_t(r.intIn(1, 65536));
    else if (f == "--k")
      o.problem.k = int64_t(r.intIn(1, 65536));
    else if (f == "--dtype")
      o.problem.dtype = dtypeNamed(r.value(), r);
    else if (f == "--dtypes") {
      o.dtypes.clear();
      for (const std::string &d : r.listValue())
        o.dtypes.push_back(dtypeNamed(d, r));
    } else if (f == "--bmajor") {
      o.bmajors.clear();
      for (const std::string &b : r.listValue())
        o.bmajors.push_back(parseBMajor(b));
      bmajorList = o.bmajors.size() > 1;
      if (o.bmajors.empty())
        usage("--bmajor is k, mn or k,mn");
      o.problem.bmajor = o.bmajors.front();
    } else if (f == "--multicast") {
      const std::string v = r.value();
      if (v != "on" && v != "off")
        usage("--multicast is on or off");
      o.multicast = v == "on";
    } else if (f == "--bn")
      o.bn = r.intValue();
    else if (f == "--seed")
      o.seed = uint64_t(r.intValue());
    else if (f == "--cpu-macs")
      o.cpuMacs = double(r.intValue());
    else if (f == "--clusters")
      o.clusters = r.intValue();
    else if (f == "--ptx")
      o.ptx = r.value();
    else if (f == "--skip-code")
      o.skipCode = int(r.intValue());
    else if (f == "--shapes") {
      for (const std::string &s : r.listValue()) {
        long long m = 0, n = 0, k = 0;
        char tail = 0;
        if (std::sscanf(s.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 ||
            k < 1 || m > 65536 || n > 65536 || k > 65536)
          usage(("bad shape '" + s + "' (MxNxK, each 1..65536)").c_str());
        o.shapes.push_back(Problem{m, n, k, DType::F16, BMajor::K});
      }
    } else if (f == "--runs")
      o.runs = int(r.intValue());
    else if (f == "--warmup")
      o.warmup = int(r.intValue());
    else if (f == "--out")
      o.out = r.value();
    else if (f == "--csv")
      o.csv = r.value();
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.bn < 0 || o.clusters < 0 || o.cpuMacs < 1 || o.dtypes.empty())
    usage("bad arguments");
  if (o.bench && (o.runs < 20 || o.warmup < 1))
    usage("--bench needs --runs >= 20 and --warmup >= 1 (medians of >= 20 after warm-up)");
  if (!o.bench && bmajorList)
    usage("--check takes one --bmajor");
  if (o.shapes.empty())
    o.shapes = {Problem{4096, 4096, 4096}, Problem{8192, 8192, 8192}, Problem{1024, 4096, 4096}};
  return o;
}

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ptxPath(const Options &o, DType d, bool multicast) {
  if (!o.ptx.empty())
    return o.ptx;
  return sample::ptxDir() + "/" + gemm::ptxName(d, multicast);
}

// The kernel's cluster and BN from the .info.json beside the PTX, with no
// device; nullopt-like (bn == 0) when the PTX is missing.
gemm::KernelShape shapeOf(const std::string &ptx, BMajor b, int64_t bn) {
  std::string info = ptx;
  if (info.size() > 4 && info.compare(info.size() - 4, 4, ".ptx") == 0)
    info.resize(info.size() - 4);
  info += ".info.json";
  return gemm::kernelShapeFromInfo(tile::moduleInfoFromJson(sample::readFile(info)),
                                   gemm::kernelName(b), bn, ptx);
}

std::string fmt(const char *f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

void printComparison(const char *what, const gemm::Comparison &c, double tol, bool &ok) {
  const bool good = c.nonFinite == 0 && c.relFrobenius < tol;
  ok = ok && good;
  std::printf("  %-28s rel. Frobenius error %.3e (limit %.0e), max |diff| %.3e over %" PRId64
              " elements%s%s\n",
              what, c.relFrobenius, tol, c.maxAbs, c.compared,
              c.nonFinite ? (", " + std::to_string(c.nonFinite) +
                             " non-finite (poison not overwritten?) first at linear index " +
                             std::to_string(c.firstNonFinite))
                                .c_str()
                          : "",
              good ? "" : "  FAIL");
}

CUdeviceptr upload(tile::DeviceBuffer<uint16_t> &buf, const std::vector<uint16_t> &host) {
  buf.copyFrom(host);
  return buf.ptr();
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o) {
  Problem p = o.problem;
  const std::string ptx = ptxPath(o, p.dtype, o.multicast);
  const bool havePtx = fileExists(ptx);
  // The shape rule needs only the kernel info (without the PTX: the
  // contract's cluster and BN): checked before any device is touched.
  gemm::KernelShape ks;
  ks.cluster = o.multicast ? 2 : 1;
  ks.bn = o.bn ? o.bn : 256;
  ks.entry = gemm::kernelName(p.bmajor) + " (contract: no PTX)";
  if (havePtx) {
    try {
      ks = shapeOf(ptx, p.bmajor, o.bn);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "gemm: %s\n", e.what());
      return 1;
    }
  }
  if (!o.referenceOnly) {
    const std::string why = gemm::shapeProblem(p, ks.cluster, ks.bn);
    if (!why.empty()) {
      std::fprintf(stderr, "gemm: %s rejected by %s: %s\n", p.shape().c_str(), ks.entry.c_str(),
                   why.c_str());
      return 2;
    }
  }
  int devices = 0;
  if (tile::deviceCount() == 0 || cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // the primary context the tilec runtime retains too
  tile::Context ctx(0);
  const double tol = gemm::tolerance(p.dtype);
  std::printf("gemm --check %s %s, B %s-major, multicast %s, seed %" PRIu64
              " (normal(0, 1) inputs)\n",
              p.shape().c_str(), gemm::dtypeName(p.dtype), gemm::bmajorName(p.bmajor),
              o.multicast ? "on" : "off", o.seed);
  try {
    const std::vector<uint16_t> a = gemm::randomNormal(p.dtype, size_t(p.m * p.k), o.seed, 1);
    const std::vector<uint16_t> b = gemm::randomNormal(p.dtype, size_t(p.k * p.n), o.seed, 2);
    tile::DeviceBuffer<uint16_t> dA(a.size()), dB(b.size()), dC(size_t(p.m * p.n)),
        dRef(size_t(p.m * p.n));
    upload(dA, a);
    upload(dB, b);
    dC.fillBytes(0xff); // NaN in f16 and bf16
    dRef.fillBytes(0xff);

    gemm::Cublas blas;
    blas.gemm(p, dA.ptr(), dB.ptr(), dRef.ptr());
    SAMPLE_CUDA_CHECK(cudaGetLastError());
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<uint16_t> ref = dRef.toHost();

    const std::vector<int64_t> rows = gemm::referenceRows(p, o.cpuMacs);
    const std::vector<double> cpu = gemm::referenceGemm(p, a, b, rows);
    auto cpuAt = [&](size_t r, int64_t j) { return cpu[r * size_t(p.n) + size_t(j)]; };
    const std::string cpuWhat = rows.size() == size_t(p.m)
                                    ? std::string("every row")
                                    : std::to_string(rows.size()) + " rows spread over M";
    bool ok = true;
    std::printf("  float64 CPU reference: %s\n", cpuWhat.c_str());
    printComparison("cuBLAS vs float64:", gemm::compareRows(p, ref, rows, cpuAt), tol, ok);

    if (o.referenceOnly) {
      std::printf("gemm: %s (--reference-only: cuBLAS against float64)\n", ok ? "PASS" : "FAIL");
      return ok ? 0 : 1;
    }
    if (!havePtx) {
      std::printf("no .tile PTX at %s: samples/gemm/gemm.tile is not built yet (README.md, "
                  "\"The .tile kernel\"); only cuBLAS was checked\n",
                  ptx.c_str());
      return ok ? o.skipCode : 1;
    }
    gemm::TileKernel k = gemm::loadTileKernel(ctx, ptx, gemm::kernelName(p.bmajor), ks.bn);
    const gemm::Tensors ts = gemm::tensorsOf(p, dA.ptr(), dB.ptr(), dC.ptr());
    const int64_t clusters = gemm::persistentClusters(k, p, ts, o.clusters);
    std::printf("  tilec: %s (%s), cluster %d, %u threads, %" PRId64 " clusters (persistent)\n",
                k.kernel.name().c_str(), ptx.c_str(), k.cluster, k.threads, clusters);
    gemm::launchTile(k, ts, clusters);
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<uint16_t> got = dC.toHost();
    printComparison("tilec vs float64:", gemm::compareRows(p, got, rows, cpuAt), tol, ok);
    const std::vector<int64_t> every = gemm::allRows(p);
    printComparison("tilec vs cuBLAS (all of C):",
                    gemm::compareRows(p, got, every,
                                      [&](size_t r, int64_t j) {
                                        return double(gemm::fromBits(
                                            p.dtype, ref[r * size_t(p.n) + size_t(j)]));
                                      }),
                    tol, ok);
    std::printf("gemm: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gemm: %s\n", e.what());
    return 1;
  }
}

// ---------------------------------------------------------------- --bench
struct Measured {
  bool run = false;
  std::string note; // why not run
  double ms = -1;
  double err = -1; // rel. Frobenius vs cuBLAS
  int64_t nonFinite = 0;
  bool ok() const { return run && nonFinite == 0; }
};

struct BenchRow {
  Problem p;
  Measured blas, mc, nomc;
  double blasVsCpu = -1; // cuBLAS vs float64 on sampled rows
  bool pass = true;
};

double tflops(const Problem &p, double ms) { return ms > 0 ? p.flops() / (ms * 1e-3) / 1e12 : 0; }

int runBench(const Options &o) {
  int devices = 0;
  if (tile::deviceCount() == 0 || cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr));
  tile::Context ctx(0);
  gemm::Cublas blas;
  const int clockKhz = ctx.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  const double devicePeak =
      double(ctx.smCount()) * gemm::kDenseFlopsPerSmPerClock * double(clockKhz) * 1e3 / 1e12;
  std::printf("gemm --bench on %s (%d SMs, %.0f MHz), cuBLAS %d, %d warm-up + median of %d runs, "
              "seed %" PRIu64 "\n",
              ctx.name().c_str(), ctx.smCount(), clockKhz / 1e3, blas.version(), o.warmup, o.runs,
              o.seed);

  // One load (and JIT) per PTX file and kernel, reused by every shape.
  std::map<std::string, gemm::TileKernel> loaded;
  auto kernelFor = [&](const std::string &ptx, const std::string &name) -> gemm::TileKernel & {
    const std::string key = ptx + "\n" + name;
    auto it = loaded.find(key);
    if (it == loaded.end())
      it = loaded.emplace(key, gemm::loadTileKernel(ctx, ptx, name, o.bn)).first;
    return it->second;
  };

  std::vector<BenchRow> rows;
  bool allPass = true;
  for (BMajor bm : o.bmajors)
    for (DType d : o.dtypes)
      for (Problem shape : o.shapes) {
        BenchRow row;
        Problem &p = row.p;
        p = shape;
        p.dtype = d;
        p.bmajor = bm;
        std::printf("%s %s B %s-major:\n", p.shape().c_str(), gemm::dtypeName(d),
                    gemm::bmajorName(bm));
        std::fflush(stdout);
        const std::vector<uint16_t> a = gemm::randomNormal(d, size_t(p.m * p.k), o.seed, 1);
        const std::vector<uint16_t> b = gemm::randomNormal(d, size_t(p.k * p.n), o.seed, 2);
        tile::DeviceBuffer<uint16_t> dA(a.size()), dB(b.size()), dRef(size_t(p.m * p.n)),
            dC(size_t(p.m * p.n));
        upload(dA, a);
        upload(dB, b);
        const double tol = gemm::tolerance(d);
        auto nothing = [] {};

        // cuBLAS, poisoned first; its result is the reference of the row.
        dRef.fillBytes(0xff);
        row.blas.ms =
            sample::timeWithEvents(
                nothing, [&] { blas.gemm(p, dA.ptr(), dB.ptr(), dRef.ptr()); }, o.warmup, o.runs)
                .median;
        row.blas.run = true;
        const std::vector<uint16_t> ref = dRef.toHost();
        {
          const std::vector<int64_t> cpuRows = gemm::referenceRows(p, double(1ull << 28));
          const std::vector<double> cpu = gemm::referenceGemm(p, a, b, cpuRows);
          const gemm::Comparison c = gemm::compareRows(p, ref, cpuRows, [&](size_t r, int64_t j) {
            return cpu[r * size_t(p.n) + size_t(j)];
          });
          row.blasVsCpu = c.relFrobenius;
          row.blas.nonFinite = c.nonFinite;
          if (c.nonFinite || c.relFrobenius >= tol) {
            row.pass = false;
            std::printf("  PROBLEM: cuBLAS vs float64 rel. error %.3e, %" PRId64 " non-finite\n",
                        c.relFrobenius, c.nonFinite);
          }
        }
        const std::vector<int64_t> every = gemm::allRows(p);
        for (bool mc : {true, false}) {
          Measured &m = mc ? row.mc : row.nomc;
          const std::string ptx = ptxPath(o, d, mc);
          if (!fileExists(ptx)) {
            m.note = "not built (" + gemm::ptxName(d, mc) + ")";
            continue;
          }
          try {
            gemm::TileKernel &k = kernelFor(ptx, gemm::kernelName(bm));
            const std::string why = gemm::shapeProblem(p, k.cluster, k.bn);
            if (!why.empty()) {
              m.note = "shape rejected: " + why;
              continue;
            }
            dC.fillBytes(0xff);
            const gemm::Tensors ts = gemm::tensorsOf(p, dA.ptr(), dB.ptr(), dC.ptr());
            const int64_t clusters = gemm::persistentClusters(k, p, ts, o.clusters);
            m.ms = sample::timeWithEvents(
                       nothing, [&] { gemm::launchTile(k, ts, clusters); }, o.warmup, o.runs)
                       .median;
            m.run = true;
            const std::vector<uint16_t> got = dC.toHost();
            const gemm::Comparison c = gemm::compareRows(p, got, every, [&](size_t r, int64_t j) {
              return double(gemm::fromBits(d, ref[r * size_t(p.n) + size_t(j)]));
            });
            m.err = c.relFrobenius;
            m.nonFinite = c.nonFinite;
            m.note = k.kernel.name() + ", cluster " + std::to_string(k.cluster) + ", " +
                     std::to_string(clusters) + " clusters";
            if (c.nonFinite || c.relFrobenius >= tol) {
              row.pass = false;
              std::printf("  PROBLEM: tilec %s vs cuBLAS rel. error %.3e, %" PRId64 " non-finite\n",
                          mc ? "mc" : "nomc", c.relFrobenius, c.nonFinite);
            }
          } catch (const std::exception &e) {
            m.run = false;
            m.note = std::string("error: ") + e.what();
            row.pass = false;
            std::printf("  PROBLEM: tilec %s: %s\n", mc ? "mc" : "nomc", e.what());
          }
        }
        std::printf("  cuBLAS %.1f us (%.0f TFLOP/s); tilec mc %s; tilec nomc %s\n",
                    row.blas.ms * 1e3, tflops(p, row.blas.ms),
                    row.mc.run ? fmt("%.1f us", row.mc.ms * 1e3).c_str() : row.mc.note.c_str(),
                    row.nomc.run ? fmt("%.1f us", row.nomc.ms * 1e3).c_str()
                                 : row.nomc.note.c_str());
        allPass = allPass && row.pass;
        rows.push_back(row);
      }

  // The table, as docs/perf/gemm.md takes it.
  std::ostringstream md;
  md << "GEMM C = A*B, row-major A [M, K] and C [M, N], f32 accumulation, normal(0, 1) inputs "
        "(seed "
     << o.seed << "); " << ctx.name() << ", " << ctx.smCount() << " SMs; cuBLAS " << blas.version()
     << " cublasGemmEx (CUBLAS_COMPUTE_32F); CUDA-event median of " << o.runs << " runs after "
     << o.warmup
     << " warm-up runs. `x cuBLAS` = cuBLAS time / tilec time (> 1: tilec faster); `mc gain` = "
        "time without multicast / time with multicast of B; `err` = relative Frobenius error "
        "against cuBLAS over all of C.\n\n";
  md << "| M x N x K | dtype | B | cuBLAS us | cuBLAS TFLOP/s | tilec mc us | tilec mc TFLOP/s | "
        "mc x cuBLAS | tilec no-mc us | no-mc TFLOP/s | no-mc x cuBLAS | mc gain | floor us | "
        "err mc / no-mc |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto col = [&](const Measured &m, const Problem &p, double blasMs) {
    if (!m.run)
      return std::string(" ") + (m.note.empty() ? "-" : m.note) + " | | |";
    return " " + fmt("%.1f", m.ms * 1e3) + " | " + fmt("%.0f", tflops(p, m.ms)) + " | " +
           fmt("%.3f", blasMs / m.ms) + " |";
  };
  for (const BenchRow &r : rows) {
    const Problem &p = r.p;
    md << "| " << p.m << " x " << p.n << " x " << p.k << " | " << gemm::dtypeName(p.dtype) << " | "
       << gemm::bmajorName(p.bmajor) << " | " << fmt("%.1f", r.blas.ms * 1e3) << " | "
       << fmt("%.0f", tflops(p, r.blas.ms)) << " |" << col(r.mc, p, r.blas.ms)
       << col(r.nomc, p, r.blas.ms) << " "
       << (r.mc.run && r.nomc.run ? fmt("%.3f", r.nomc.ms / r.mc.ms) : std::string("-")) << " | "
       << fmt("%.1f", p.flops() / (gemm::kH100SxmDenseTflops * 1e12) * 1e6) << " | "
       << (r.mc.run ? fmt("%.1e", r.mc.err) : std::string("-")) << " / "
       << (r.nomc.run ? fmt("%.1e", r.nomc.err) : std::string("-")) << " |\n";
  }
  md << "\n- physical floor: " << gemm::kH100SxmDenseTflops
     << " TFLOP/s dense f16/bf16 (H100 SXM datasheet; the `floor us` column); this device: "
     << ctx.smCount() << " SMs x " << gemm::kDenseFlopsPerSmPerClock << " FLOP/clock x "
     << clockKhz / 1e3 << " MHz = " << fmt("%.1f", devicePeak) << " TFLOP/s\n";
  const std::string ct = gemm::compileTimeNote(sample::ptxDir());
  md << "- compile time of samples/gemm/gemm.tile (tilec, source -> PTX, measured at build "
        "time): "
     << (ct.empty() ? std::string("not recorded (no gemm_compile_time.txt in the PTX directory)")
                    : ct)
     << "\n";
  for (const BenchRow &r : rows) {
    if (r.blasVsCpu >= 0)
      md << "- " << r.p.shape() << " " << gemm::dtypeName(r.p.dtype) << " B "
         << gemm::bmajorName(r.p.bmajor) << ": cuBLAS vs float64 (sampled rows) "
         << fmt("%.1e", r.blasVsCpu) << (r.mc.run ? "; mc: " + r.mc.note : "")
         << (r.nomc.run ? "; no-mc: " + r.nomc.note : "") << "\n";
    if (!r.pass)
      md << "- PROBLEM: " << r.p.shape() << " " << gemm::dtypeName(r.p.dtype)
         << ": a result failed its check (see the log)\n";
  }
  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << md.str();
    if (!f)
      std::fprintf(stderr, "gemm: cannot write %s\n", o.out.c_str());
  }
  if (!o.csv.empty()) {
    std::ofstream f(o.csv);
    f << "m,n,k,dtype,bmajor,impl,median_us,tflops\n";
    for (const BenchRow &r : rows) {
      const Problem &p = r.p;
      auto line = [&](const char *impl, const Measured &m) {
        if (m.run)
          f << p.m << "," << p.n << "," << p.k << "," << gemm::dtypeName(p.dtype) << ","
            << gemm::bmajorName(p.bmajor) << "," << impl << "," << m.ms * 1e3 << ","
            << tflops(p, m.ms) << "\n";
      };
      line("cuBLAS", r.blas);
      line("tilec mc", r.mc);
      line("tilec no-mc", r.nomc);
    }
    f << "# floor_tflops," << gemm::kH100SxmDenseTflops << "\n";
    if (!f)
      std::fprintf(stderr, "gemm: cannot write %s\n", o.csv.c_str());
  }
  return allPass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  return o.bench ? runBench(o) : runCheck(o);
}
