// gemm --bench (main.cpp has the options): the sweep of docs/perf/gemm.md,
// cuBLAS and the chosen .tile kernel per shape (after --tune when asked),
// timed in alternation and checked against cuBLAS; the markdown table, the
// geometric means and the CSV for plot.py.
#include "gemm_cli.h"
#include "gemm_cublas.h"

#include "../common/event_timing.cuh"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace gemm::cli {
namespace {

// ---------------------------------------------------------------- --bench
struct BenchRow {
  Problem p;
  double blasMs = -1, tileMs = -1, ruleUs = -1;
  double blasVsCpu = -1, err = -1;
  int64_t nonFinite = 0;
  Choice choice;
  std::string note; // why tilec did not run, or the launch
  bool pass = true;
  bool ran() const { return tileMs > 0; }
  double ratio() const { return ran() ? blasMs / tileMs : -1; }
};

double tflops(const Problem &p, double ms) { return ms > 0 ? p.flops() / (ms * 1e-3) / 1e12 : 0; }

// Geometric mean and minimum of cuBLAS time / tilec time over the rows that
// `keep` selects (and that ran).
struct Summary {
  int count = 0, below09 = 0;
  double geomean = 0, min = 0;
  std::string minShape;
};
template <class Keep> Summary summarise(const std::vector<BenchRow> &rows, Keep keep) {
  Summary s;
  double logSum = 0;
  for (const BenchRow &r : rows) {
    if (!r.ran() || !keep(r))
      continue;
    const double x = r.ratio();
    logSum += std::log(x);
    if (s.count == 0 || x < s.min) {
      s.min = x;
      s.minShape = r.p.shape() + " " + gemm::dtypeName(r.p.dtype);
    }
    s.below09 += x < 0.9;
    ++s.count;
  }
  if (s.count)
    s.geomean = std::exp(logSum / s.count);
  return s;
}

} // namespace

int runBench(const Options &o) {
  int devices = 0;
  if (tile::deviceCount() == 0 || cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr));
  tile::Context ctx(0);
  const int sms = ctx.smCount();
  gemm::Cublas blas;
  gemm::TuneCache cache;
  loadCache(o, cache);
  const int clockKhz = ctx.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  std::printf("gemm --bench on %s (%d SMs, %.0f MHz), cuBLAS %d, %d warm-up + median of %d runs, "
              "seed %" PRIu64 "%s\n",
              ctx.name().c_str(), sms, clockKhz / 1e3, blas.version(), o.warmup, o.runs, o.seed,
              o.tune ? ", --tune" : "");

  {
    // Bring the clocks up before the first measurement: ~50 ms of cuBLAS.
    const Problem w{2048, 2048, 2048, DType::F16, BMajor::K};
    tile::DeviceBuffer<uint16_t> wa(size_t(w.m * w.k)), wb(size_t(w.k * w.n)),
        wc(size_t(w.m * w.n));
    wa.fillBytes(0);
    wb.fillBytes(0);
    for (int i = 0; i < 2000; ++i)
      blas.gemm(w, wa.ptr(), wb.ptr(), wc.ptr());
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<BenchRow> rows;
  bool allPass = true;
  for (BMajor bm : o.bmajors)
    for (DType d : o.dtypes) {
      // One pool of normal values per operand, as large as the largest shape
      // needs; each shape reads a prefix (fresh data per run of the program).
      int64_t maxA = 1, maxB = 1, maxC = 1;
      for (const Problem &s : o.shapes) {
        maxA = std::max(maxA, s.m * s.k);
        maxB = std::max(maxB, s.n * s.k);
        maxC = std::max(maxC, s.m * s.n);
      }
      const std::vector<uint16_t> a = gemm::randomNormal(d, size_t(maxA), o.seed, 1);
      const std::vector<uint16_t> b = gemm::randomNormal(d, size_t(maxB), o.seed, 2);
      tile::DeviceBuffer<uint16_t> dA(a.size()), dB(b.size()), dRef{size_t(maxC)},
          dC{size_t(maxC)};
      upload(dA, a);
      upload(dB, b);
      Runner run(ctx, o);
      const double tol = gemm::tolerance(d);
      for (Problem shape : o.shapes) {
        BenchRow row;
        Problem &p = row.p;
        p = shape;
        p.dtype = d;
        p.bmajor = bm;
        std::printf("%s %s B %s-major:\n", p.shape().c_str(), gemm::dtypeName(d),
                    gemm::bmajorName(bm));
        std::fflush(stdout);
        const std::string bad = gemm::alignmentProblem(p);
        if (!bad.empty()) {
          row.note = "rejected: " + bad;
          std::printf("  %s\n", row.note.c_str());
          rows.push_back(row);
          continue;
        }
        // cuBLAS, poisoned first; its result is the reference of the row.
        dRef.fillBytes(0xff);
        row.blasMs = sample::timeWithEvents(
                         [] {}, [&] { blas.gemm(p, dA.ptr(), dB.ptr(), dRef.ptr()); }, o.warmup,
                         o.runs)
                         .median;
        std::vector<uint16_t> ref(size_t(p.m * p.n));
        dRef.copyTo(ref.data(), ref.size());
        {
          const std::vector<int64_t> cpuRows = gemm::referenceRows(p, double(1ull << 28));
          const std::vector<double> cpu = gemm::referenceGemm(p, a, b, cpuRows);
          const gemm::Comparison c = gemm::compareRows(p, ref, cpuRows, [&](size_t r, int64_t j) {
            return cpu[r * size_t(p.n) + size_t(j)];
          });
          row.blasVsCpu = c.relFrobenius;
          if (c.nonFinite || c.relFrobenius >= tol) {
            row.pass = false;
            std::printf("  PROBLEM: cuBLAS vs float64 rel. error %.3e, %" PRId64 " non-finite\n",
                        c.relFrobenius, c.nonFinite);
          }
        }
        const double blasFirst = row.blasMs;
        try {
          const gemm::Tensors ts = gemm::tensorsOf(p, dA.ptr(), dB.ptr(), dC.ptr());
          row.choice = choiceFor(o, p, sms, &cache);
          if (o.tune && !o.forced()) {
            const gemm::CacheEntry best = tune(run, p, ts, sms, &row.ruleUs);
            cache.entries[gemm::cacheKey(p)] = best;
            row.choice = best.choice;
          }
          std::string what;
          std::function<void()> launch = run.launcher(row.choice, p, ts, &what);
          dC.fillBytes(0xff);
          // tilec and cuBLAS in alternation, twice; each side's time is the
          // lower of its medians in these rounds, so a clock that drops under
          // the sustained load of --tune (H200: up to ~18% at 8192^3) falls
          // on both sides alike. cuBLAS's first median (taken before --tune
          // ran, on a cooler GPU) is not one of them: with it, a ratio
          // compared a cool cuBLAS with a hot tilec.
          auto blasRun = [&] { blas.gemm(p, dA.ptr(), dB.ptr(), dRef.ptr()); };
          row.blasMs = -1;
          for (int round = 0; round < 2; ++round) {
            const double t = sample::timeWithEvents([] {}, launch, o.warmup, o.runs).median;
            row.tileMs = row.tileMs < 0 ? t : std::min(row.tileMs, t);
            const double b = sample::timeWithEvents([] {}, blasRun, o.warmup, o.runs).median;
            row.blasMs = row.blasMs < 0 ? b : std::min(row.blasMs, b);
          }
          if (row.blasMs < 0)
            row.blasMs = blasFirst;
          row.note = what;
          std::vector<uint16_t> got(size_t(p.m * p.n));
          dC.copyTo(got.data(), got.size());
          // All of C up to 2^26 elements, else rows spread over M.
          const std::vector<int64_t> cmpRows =
              p.m * p.n <= (int64_t(1) << 26)
                  ? gemm::allRows(p)
                  : gemm::referenceRows(p, double(int64_t(1) << 26) * double(p.k));
          const gemm::Comparison c = gemm::compareRows(p, got, cmpRows, [&](size_t r, int64_t j) {
            return double(gemm::fromBits(d, ref[size_t(cmpRows[r] * p.n + j)]));
          });
          row.err = c.relFrobenius;
          row.nonFinite = c.nonFinite;
          if (c.nonFinite || c.relFrobenius >= tol) {
            row.pass = false;
            std::printf("  PROBLEM: tilec vs cuBLAS rel. error %.3e, %" PRId64 " non-finite\n",
                        c.relFrobenius, c.nonFinite);
          }
        } catch (const std::exception &e) {
          if (row.blasMs < 0) // failed before cuBLAS's rounds: its first median
            row.blasMs = blasFirst;
          row.tileMs = -1;
          row.note = std::string("error: ") + e.what();
          row.pass = false;
          std::printf("  PROBLEM: tilec: %s\n", e.what());
        }
        // "tilec <choice>: <us> us" (python/examples/bench.py reads it).
        std::printf("  cuBLAS %.1f us; tilec %s: %s (%s)\n", row.blasMs * 1e3,
                    gemm::describe(row.choice).c_str(),
                    row.ran() ? (fmt("%.1f us", row.tileMs * 1e3) + ", x cuBLAS " +
                                 fmt("%.3f", row.ratio()))
                                    .c_str()
                              : row.note.c_str(),
                    row.choice.why.c_str());
        std::fflush(stdout);
        allPass = allPass && row.pass;
        rows.push_back(row);
      }
    }
  if (o.tune && !cache.save(o.tuneCache))
    std::fprintf(stderr, "gemm: cannot write %s\n", o.tuneCache.c_str());

  // The table, as docs/perf/gemm.md takes it.
  std::ostringstream md;
  md << "GEMM C = A*B, row-major A [M, K] and C [M, N], f32 accumulation, normal(0, 1) inputs "
        "(seed "
     << o.seed << "); " << ctx.name() << ", " << sms << " SMs; cuBLAS " << blas.version()
     << " cublasGemmEx (CUBLAS_COMPUTE_32F); CUDA-event median of " << o.runs << " runs after "
     << o.warmup
     << " warm-up runs, tilec and cuBLAS timed in alternation, the lower of each one's two medians (after --tune, when it ran). `x cuBLAS` = cuBLAS time / tilec time (> 1: tilec faster); `choice` = "
        "the kernel the host picked"
     << (o.tune ? " (`--tune`: the fastest candidate; `rule us` = the rule table's pick)" : "")
     << "; `err` = relative Frobenius error against cuBLAS.\n\n";
  md << "| M x N x K | dtype | B | cuBLAS us | cuBLAS TFLOP/s | tilec us | tilec TFLOP/s | "
        "x cuBLAS | choice | rule us | err |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const BenchRow &r : rows) {
    const Problem &p = r.p;
    md << "| " << p.m << " x " << p.n << " x " << p.k << " | " << gemm::dtypeName(p.dtype) << " | "
       << gemm::bmajorName(p.bmajor) << " | ";
    if (r.blasMs < 0) {
      md << r.note << " | | | | | | | |\n";
      continue;
    }
    md << fmt("%.1f", r.blasMs * 1e3) << " | " << fmt("%.0f", tflops(p, r.blasMs)) << " | ";
    if (!r.ran())
      md << r.note << " | | | " << gemm::describe(r.choice) << " | | |\n";
    else
      md << fmt("%.1f", r.tileMs * 1e3) << " | " << fmt("%.0f", tflops(p, r.tileMs)) << " | "
         << fmt("%.3f", r.ratio()) << " | " << gemm::describe(r.choice) << " | "
         << (r.ruleUs > 0 ? fmt("%.1f", r.ruleUs) : std::string("-")) << " | "
         << fmt("%.1e", r.err) << " |\n";
  }
  const std::string ct = gemm::compileTimeNote(sample::ptxDir());
  md << "\n- compile time of samples/gemm/gemm.tile (tilec, source -> PTX, measured at build "
        "time): "
     << (ct.empty() ? std::string("not recorded (no gemm_compile_time.txt in the PTX directory)")
                    : ct)
     << "\n";
  for (DType d : o.dtypes) {
    auto line = [&](const char *what, const Summary &s) {
      md << "- " << gemm::dtypeName(d) << ", " << what << ": geometric mean x cuBLAS "
         << fmt("%.3f", s.geomean) << " over " << s.count << " shapes; lowest "
         << fmt("%.3f", s.min) << " (" << s.minShape << "); " << s.below09 << " below 0.9\n";
    };
    line("the sweep", summarise(rows, [&](const BenchRow &r) { return r.p.dtype == d; }));
    line("M <= 256",
         summarise(rows, [&](const BenchRow &r) { return r.p.dtype == d && r.p.m <= 256; }));
  }
  for (const BenchRow &r : rows) {
    if (r.blasVsCpu >= 0 && r.ran())
      md << "- " << r.p.shape() << " " << gemm::dtypeName(r.p.dtype) << " B "
         << gemm::bmajorName(r.p.bmajor) << ": cuBLAS vs float64 (sampled rows) "
         << fmt("%.1e", r.blasVsCpu) << "; tilec: " << r.note << " (" << r.choice.why << ")\n";
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
      auto line = [&](const char *impl, double ms) {
        if (ms > 0)
          f << p.m << "," << p.n << "," << p.k << "," << gemm::dtypeName(p.dtype) << ","
            << gemm::bmajorName(p.bmajor) << "," << impl << "," << ms * 1e3 << ","
            << tflops(p, ms) << "\n";
      };
      line("cuBLAS", r.blasMs);
      line("tilec", r.tileMs);
    }
    f << "# floor_tflops," << gemm::kH100SxmDenseTflops << "\n";
    if (!f)
      std::fprintf(stderr, "gemm: cannot write %s\n", o.csv.c_str());
  }
  return allPass ? 0 : 1;
}

} // namespace gemm::cli
