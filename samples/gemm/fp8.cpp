// gemm --fp8: the scaled fp8 GEMMs of gemm_fp8.tile, checked against float64
// and benchmarked against cuBLASLt's fp8 matmul in the same process.
//
//   gemm --fp8 [--check] [--m M] [--n N] [--k K] [--format e4m3|e5m2]
//        [--scaling tensor|rowcol|block|all] [--outliers] [--seed S] [--bn 256|128]
//        [--cpu-macs X] [--skip-code C]
//   gemm --fp8 --bench [--shapes MxNxK,...] [--runs R] [--warmup W] [--out FILE.md]
//   gemm --fp8 --alternate [--shapes ...] [--variants DIR,...] [--soak-ms T]
//        [--kernels K,...] [--variant-kernels K,...] [...]
//   gemm --fp8 --small [--shapes MxNxK,...] [...] (fp8_small.cpp: small M)
//
// Data: A [M, K] and B [N, K] f32, standard normal from --seed; --outliers
// multiplies about 1% of the entries (a hash of the index: 0 mod 100) by 100.
// They are quantised on the host to the fp8 format with the chosen scaling
// (fp8.h: per tensor / per row of A and column of B / 1x128 and 128x128
// blocks, scale = amax / largest finite), K padded with zeros to a multiple
// of 16 when it is not one (TMA's 16-byte row strides; zero products add
// nothing). Output C [M, N] bf16.
// --check, per scaling: C against float64 references of (1) the dequantised
// fp8 inputs — the kernel's own error: accumulation and the bf16 rounding,
// bound 1e-2 — and (2) the original f32 data — what the user gets,
// quantisation included, reported (bound 0.25 for e4m3, 0.5 for e5m2: a
// sanity bound). Per tensor, also cuBLASLt (e4m3 only) against the same
// references, and the block-scaled kernel with every scale 1 ("promoted",
// the per-tensor math with promotion every 128 K) against the per-tensor
// kernel (the wgmma accumulating all of K): the accumulation precision.
// --bench: cuBLASLt per tensor (A/B_SCALE_POINTER, e4m3 x e4m3 -> bf16, f32
// compute), the .tile per-tensor kernel (BN 256 and 128), per-row/col and
// block-scaled kernels; CUDA-event medians; TFLOP/s and ratios.
#include "fp8.h"
#include "fp8_cli.h"
#include "fp8_device.h"
#include "fp8_small.h"

#include "gemm_cublas.h"
#include "soak.h"

#include "../common/event_timing.cuh"

#include <cublasLt.h>

#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <sys/stat.h>

namespace gemm::fp8 {
namespace {

// C [M, N] bf16 needs 16-byte rows: N a multiple of 8 (K is padded).
std::string alignmentProblem(int64_t n) {
  if (n * 2 % 16 == 0)
    return "";
  return "N = " + std::to_string(n) + ": the rows of C [M, N] (bf16) are " + std::to_string(n * 2) +
         " bytes apart, not a multiple of 16 (TMA: a tensor map's strides are multiples of 16 "
         "bytes, so N must be a multiple of 8)";
}

// One launch of the kernel for q's scaling (`bn`: the tile width, 256 or
// 128; per tensor: tensorKernel's choice, or the kernel `named` (gemm_fp8,
// gemm_fp8_dfr: the same instances);
// block scaling: gemm_fp8_block at BN = 128, one B block per tile, or
// gemm_fp8_block_n256, two).
std::function<void()> launcher(const Kernels &ks, const Quantized &q, Device &d, int64_t bn,
                               int64_t *clustersOut = nullptr, const char *named = nullptr) {
  const bool wideBlock = q.scaling == Scaling::Block && bn == 256;
  const std::string name = q.scaling == Scaling::Tensor   ? (named ? named : tensorKernel(bn))
                           : q.scaling == Scaling::RowCol ? "gemm_fp8_rowcol"
                           : wideBlock                    ? "gemm_fp8_block_n256"
                                                          : "gemm_fp8_block";
  if (q.scaling == Scaling::Block && !wideBlock)
    bn = 128;
  tile::Kernel k = wideBlock ? ks.getFixed(name, q.format) : ks.get(name, bn, q.format);
  tile::Tensor ta(d.a.ptr(), element(q.format), {q.m, q.kp});
  tile::Tensor tb(d.b.ptr(), element(q.format), {q.n, q.kp});
  tile::Tensor tc(d.c.ptr(), tile::TensorElement::BF16, {q.m, q.n});
  const int cluster = 2;
  const int64_t units = ((q.m + 256 - 1) / 256) * ((q.n + bn - 1) / bn);
  tile::LaunchConfig probe;
  probe.grid = tile::Dim3(unsigned(cluster));
  probe.block = tile::Dim3(384);
  // A block kernel may take its scales as tensors, loaded by TMA with each
  // ring stage: SA [kblocks, lda] (the same K-block-major layout) and SB as
  // rows of 4 (SB[i] is row i / 4, column i % 4; its length is a multiple
  // of 4) or 1-D, in place of the pointers and lda.
  const tile::KernelInfo *info = k.info();
  auto tensorRank = [&](size_t i) -> size_t {
    return q.scaling == Scaling::Block && info && info->params.size() > i &&
                   info->params[i].tensor.has_value()
               ? info->params[i].tensor->extents.size()
               : 0;
  };
  const int scaleTensors = tensorRank(3) ? (tensorRank(4) ? 2 : 1) : 0;
  const int64_t sbLength = int64_t(q.sb.size());
  const tile::Tensor tsa(d.sa.ptr(), tile::TensorElement::F32, {q.kblocks, q.lda});
  const tile::Tensor tsb = tensorRank(4) == 2
                               ? tile::Tensor(d.sb.ptr(), tile::TensorElement::F32, {sbLength / 4, 4})
                               : tile::Tensor(d.sb.ptr(), tile::TensorElement::F32, {sbLength});
  int64_t clusters = scaleTensors == 2 ? k.maxActiveClusters(probe, ta, tb, tc, tsa, tsb)
                     : scaleTensors == 1
                         ? k.maxActiveClusters(probe, ta, tb, tc, tsa, d.sb)
                     : q.scaling == Scaling::Block
                         ? k.maxActiveClusters(probe, ta, tb, tc, d.sa, d.sb, int32_t(q.lda))
                         : k.maxActiveClusters(probe, ta, tb, tc, d.sa, d.sb);
  if (clusters < 1)
    throw std::runtime_error(name + ": no cluster fits on the GPU (occupancy 0)");
  clusters = std::max<int64_t>(1, std::min(clusters, units));
  if (clustersOut)
    *clustersOut = clusters;
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(clusters * cluster));
  cfg.block = tile::Dim3(384);
  const bool block = q.scaling == Scaling::Block;
  const int32_t lda = int32_t(q.lda);
  return [k, cfg, ta, tb, tc, tsa, tsb, scaleTensors, &d, block, lda]() mutable {
    if (scaleTensors == 2)
      k.launch(cfg, ta, tb, tc, tsa, tsb);
    else if (scaleTensors == 1)
      k.launch(cfg, ta, tb, tc, tsa, d.sb);
    else if (block)
      k.launch(cfg, ta, tb, tc, d.sa, d.sb, lda);
    else
      k.launch(cfg, ta, tb, tc, d.sa, d.sb);
  };
}

// One launch of the per-tensor small-M kernel (gemm_fp8_skinny) at c's
// instance and splits; the workspace (f32 partials, per-tile flags the
// kernel resets) lives as long as the launch.
std::function<void()> skinnyLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                     const SkinnyChoice &c) {
  tile::Kernel k = ks.small.kernel("gemm_fp8_skinny",
                                    {{"MT", c.instance.mt}, {"S", c.instance.stages}},
                                    {{"T", formatName(q.format)}});
  tile::Tensor ta(d.a.ptr(), element(q.format), {q.m, q.kp});
  tile::Tensor tb(d.b.ptr(), element(q.format), {q.n, q.kp});
  tile::Tensor tc(d.c.ptr(), tile::TensorElement::BF16, {q.m, q.n});
  auto ws = std::make_shared<SplitKWorkspace>();
  ws->reserve(c.splits > 1 ? int64_t(c.splits) * c.tiles * c.instance.mt * kSkinnyBn : 1,
              c.tiles);
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(c.tiles), unsigned(c.splits));
  cfg.block = tile::Dim3(384);
  const int32_t splits = c.splits;
  return [k, cfg, ta, tb, tc, &d, ws, splits]() mutable {
    k.launch(cfg, ta, tb, tc, d.sa, d.sb, ws->partials, ws->flags, splits);
  };
}

void report(const std::string &what, const Comparison &c, double bound, bool &ok) {
  const bool good = c.nonFinite == 0 && (bound <= 0 || c.relFrobenius < bound);
  ok = ok && good;
  std::printf("    %-44s rel. Frobenius %.3e%s, max |diff| %.3e%s%s\n", what.c_str(), c.relFrobenius,
              bound > 0 ? (" (bound " + std::to_string(bound).substr(0, 5) + ")").c_str() : "",
              c.maxAbs,
              c.nonFinite ? (", " + std::to_string(c.nonFinite) + " non-finite").c_str() : "",
              good ? "" : "  FAIL");
}

std::vector<int64_t> rowsFor(int64_t m, int64_t n, int64_t k, double maxMacs) {
  return referenceRows(Problem{m, n, k, DType::BF16, BMajor::K}, maxMacs);
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o) {
  if (const std::string why = alignmentProblem(o.n); !why.empty()) {
    std::fprintf(stderr, "gemm --fp8: %" PRId64 "x%" PRId64 "x%" PRId64 " rejected: %s\n", o.m,
                 o.n, o.k, why.c_str());
    return 2;
  }
  if (!deviceAndKernels())
    return o.skipCode;
  tile::Context ctx(0);
  Kernels ks = loadKernels(ctx, sample::ptxDir());
  const std::vector<float> a = normalData(size_t(o.m * o.k), o.seed, 11, o.outliers);
  const std::vector<float> b = normalData(size_t(o.n * o.k), o.seed, 12, o.outliers);
  const std::vector<int64_t> rows = rowsFor(o.m, o.n, o.k, o.cpuMacs);
  const double boundOrig = o.format == Format::E4M3 ? 0.25 : 0.5;
  std::printf("gemm --fp8 --check %" PRId64 "x%" PRId64 "x%" PRId64
              " %s -> bf16, seed %" PRIu64 ", normal(0, 1)%s; K padded to %" PRId64
              "; float64 references at %zu rows\n",
              o.m, o.n, o.k, formatName(o.format), o.seed,
              o.outliers ? " with ~1% outliers x100" : "", roundUp(o.k, 16), rows.size());
  bool ok = true;
  try {
    for (Scaling s : o.scalings) {
      const Quantized q = quantize(a, b, o.m, o.n, o.k, o.format, s);
      Device d(q);
      const std::vector<double> refQ = reference(q, a, b, rows, true);
      const std::vector<double> refF = reference(q, a, b, rows, false);
      std::printf("  %s:\n", scalingName(s));
      int64_t clusters = 0;
      const std::vector<uint16_t> got = runOnce(launcher(ks, q, d, o.bn, &clusters), d);
      const char *tileName = s == Scaling::Block ? (o.bn == 256 ? " (256-column tiles)"
                                                                : " (128-column tiles)")
                                                 : "";
      report(std::string("tilec vs float64 of the dequantised inputs") + tileName,
             compareBf16(o.m, o.n, got, rows, refQ), 1e-2, ok);
      report(std::string("tilec vs float64 of the f32 data") + tileName,
             compareBf16(o.m, o.n, got, rows, refF), boundOrig, ok);
      if (s == Scaling::Block) {
        // Both block kernels: the other tile width too.
        const int64_t other = o.bn == 256 ? 128 : 256;
        const std::vector<uint16_t> got2 = runOnce(launcher(ks, q, d, other), d);
        const char *otherName = other == 256 ? " (256-column tiles)" : " (128-column tiles)";
        report(std::string("tilec vs float64 of the dequantised inputs") + otherName,
               compareBf16(o.m, o.n, got2, rows, refQ), 1e-2, ok);
        report(std::string("tilec vs float64 of the f32 data") + otherName,
               compareBf16(o.m, o.n, got2, rows, refF), boundOrig, ok);
      }
      if (s != Scaling::Tensor)
        continue;
      if (std::string(tensorKernel(o.bn)) != "gemm_fp8") {
        // gemm_fp8 itself: the chosen kernel only moves its epilogue.
        std::vector<double> v(got.size());
        for (size_t i = 0; i < got.size(); ++i)
          v[i] = bf16ToFloat(got[i]);
        const std::vector<uint16_t> gotPlain =
            runOnce(launcher(ks, q, d, o.bn, nullptr, "gemm_fp8"), d);
        report(std::string("gemm_fp8 vs ") + tensorKernel(o.bn) + " (all of C)",
               compareBf16(o.m, o.n, gotPlain, rowsFor(o.m, o.n, 1, double(o.m) * double(o.n)), v),
               1e-2, ok);
      }
      // Small M: the skinny kernel (split-K), launched twice (the second
      // launch finds the flags the first one reset).
      if (const SkinnyChoice c = skinnyChoice(o.m, o.n, o.k, ctx.smCount()); c.instance.mt) {
        const std::function<void()> f = skinnyLauncher(ks, q, d, c);
        runOnce(f, d);
        const std::vector<uint16_t> gotS = runOnce(f, d);
        report("skinny MT " + std::to_string(c.instance.mt) + ", " + std::to_string(c.splits) +
                   " splits vs dequantised float64",
               compareBf16(o.m, o.n, gotS, rows, refQ), 1e-2, ok);
      }
      checkSmall(o, ks, q, d, rows, refQ, ctx.smCount(), ok);
      // Accumulation precision: the block kernel with every scale 1 times
      // the per-tensor scales folded into A and B is the per-tensor math
      // promoted every 128 K. Its scales: SA = sa, SB = sb everywhere.
      Quantized promoted = q;
      promoted.scaling = Scaling::Block;
      promoted.sa.assign(size_t(q.kblocks * q.lda), q.sa[0]);
      promoted.sb.assign(
          size_t(roundUp(roundUp((q.n + kBlock - 1) / kBlock, 2) * q.kblocks, 4)), q.sb[0]);
      Device dp(promoted);
      const std::vector<uint16_t> gotP = runOnce(launcher(ks, promoted, dp, 128), dp);
      report("promoted every 128 K vs dequantised float64",
             compareBf16(o.m, o.n, gotP, rows, refQ), 1e-2, ok);
      if (q.format == Format::E4M3) {
        Lt lt;
        for (bool fast : {false, true}) {
          std::vector<uint16_t> ref;
          try {
            ref = runOnce(lt.plan(q, d, fast), d);
          } catch (const std::exception &e) { // a shape cuBLASLt's fp8 does not take
            std::printf("    cuBLASLt%s: not run (%s)\n", fast ? " fast-accum" : "", e.what());
            continue;
          }
          report(fast ? "cuBLASLt fast-accum vs dequantised float64"
                      : "cuBLASLt vs float64 of the dequantised inputs",
                 compareBf16(o.m, o.n, ref, rows, refQ), 1e-2, ok);
          if (fast)
            continue;
          std::vector<double> refAll(ref.size());
          for (size_t i = 0; i < ref.size(); ++i)
            refAll[i] = bf16ToFloat(ref[i]);
          const std::vector<int64_t> every = rowsFor(o.m, o.n, 1, double(o.m) * double(o.n));
          report("tilec vs cuBLASLt (all of C)", compareBf16(o.m, o.n, got, every, refAll), 1e-2,
                 ok);
        }
        lt.release();
      }
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gemm --fp8: %s\n", e.what());
    return 1;
  }
  std::printf("gemm --fp8: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------- --bench
std::string fmt(const char *f, double x) {
  char b[32];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

double tflops(int64_t m, int64_t n, int64_t k, double ms) {
  return ms > 0 ? 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e12 : 0;
}

int runBench(const Options &o) {
  if (!deviceAndKernels())
    return o.skipCode;
  tile::Context ctx(0);
  Kernels ks = loadKernels(ctx, sample::ptxDir());
  Lt lt;
  std::ostringstream md;
  md << "fp8 GEMM, e4m3 x e4m3 -> bf16, f32 accumulation, normal(0, 1) data (seed " << o.seed
     << "); " << ctx.name() << ", " << ctx.smCount() << " SMs; cuBLASLt " << lt.version()
     << " (cublasLtMatmul, A/B_SCALE_POINTER, CUBLAS_COMPUTE_32F, heuristic's first algorithm, "
        "32 MB workspace; default and CUBLASLT_MATMUL_DESC_FAST_ACCUM, the ratios against the "
        "faster); CUDA-event median of "
     << o.runs << " runs after " << o.warmup
     << " warm-up runs, each side timed twice in alternation, the lower median. Ratios: "
        "cuBLASLt time / tilec time (> 1: tilec faster); tensor BN256 = "
     << tensorKernel(256) << ", BN128 = " << tensorKernel(128)
     << " (fp8.h tensorKernel); block = 1x128 A and 128x128 B scales, "
        "promoted every 128 K (BN128: gemm_fp8_block, BN256: gemm_fp8_block_n256; block / "
        "tensor: the faster block kernel against the fastest per-tensor one); rowcol = per-row A "
        "and per-column B scales; small M = the host's choice at M <= 256 (fp8_small.h smallChoice: "
        "gemm_fp8_skinny_dsm's C^T tiles, their K splits in one cluster, or the persistent "
        "kernel), its x Lt best and the per-tensor best include it.\n\n"
     << "| M x N x K | cuBLASLt us | Lt fast-accum us | Lt best TFLOP/s | tilec tensor BN256 us | "
        "TFLOP/s | x Lt best | tensor BN128 us | x Lt best | small M us | x Lt best | rowcol us | x Lt best | block "
        "BN128 us | block BN256 us | block TFLOP/s | block / tensor | err tensor | err block |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  bool allOk = true;
  for (const auto &s : o.shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    std::printf("%" PRId64 "x%" PRId64 "x%" PRId64 ":\n", m, n, k);
    std::fflush(stdout);
    if (!alignmentProblem(n).empty()) {
      md << "| " << m << " x " << n << " x " << k << " | rejected: " << alignmentProblem(n)
         << " |\n";
      continue;
    }
    const auto [a, b] = timingInputs(m, n, k, o.seed);
    const Quantized qt = quantize(a, b, m, n, k, Format::E4M3, Scaling::Tensor);
    const Quantized qr = quantize(a, b, m, n, k, Format::E4M3, Scaling::RowCol);
    const Quantized qb = quantize(a, b, m, n, k, Format::E4M3, Scaling::Block);
    Device dt(qt), dr(qr), db(qb);
    auto time = [&](const std::function<void()> &f) {
      return sample::timeWithEvents([] {}, f, o.warmup, o.runs).median;
    };
    double ltSlow = -1, ltFast = -1, t256 = -1, t128 = -1, tr = -1, tb = -1, tbw = -1, ts = -1,
           errT = -1, errB = -1;
    try {
      const std::function<void()> fLt = lt.plan(qt, dt);
      const std::function<void()> fLtFast = lt.plan(qt, dt, true);
      const std::function<void()> f256 = launcher(ks, qt, dt, 256);
      const std::function<void()> f128 = launcher(ks, qt, dt, 128);
      const std::function<void()> fr = launcher(ks, qr, dr, 256);
      const std::function<void()> fb = launcher(ks, qb, db, 128);
      const std::function<void()> fbw = launcher(ks, qb, db, 256);
      const SmallChoice sc = smallChoice(m, n, k, ctx.smCount());
      const std::function<void()> fs = sc.instance.mt || sc.tile.tn || sc.persistentBn
                                           ? smallChoiceLauncher(ks, qt, dt, sc, ctx.smCount())
                                           : std::function<void()>();
      for (int round = 0; round < 2; ++round) {
        auto lower = [](double &x, double t) { x = x < 0 ? t : std::min(x, t); };
        lower(ltSlow, time(fLt));
        lower(ltFast, time(fLtFast));
        lower(t256, time(f256));
        lower(t128, time(f128));
        lower(tr, time(fr));
        lower(tb, time(fb));
        lower(tbw, time(fbw));
        if (fs)
          lower(ts, time(fs));
      }
      // Errors against float64 of the dequantised inputs at sampled rows.
      const std::vector<int64_t> rows = rowsFor(m, n, k, double(1ull << 28));
      const double tBest = std::min(t256, t128);
      const std::vector<uint16_t> gt =
          runOnce(ts > 0 && ts < tBest ? fs : t256 <= t128 ? f256 : f128, dt);
      errT = compareBf16(m, n, gt, rows, reference(qt, a, b, rows, true)).relFrobenius;
      const std::vector<uint16_t> gb = runOnce(tbw < tb ? fbw : fb, db);
      errB = compareBf16(m, n, gb, rows, reference(qb, a, b, rows, true)).relFrobenius;
      if (errT >= 1e-2 || errB >= 1e-2) {
        allOk = false;
        std::printf("  PROBLEM: error tensor %.3e block %.3e\n", errT, errB);
      }
    } catch (const std::exception &e) {
      allOk = false;
      std::printf("  PROBLEM: %s\n", e.what());
    }
    lt.release();
    // The ratios are against cuBLASLt's faster mode.
    const double ltMs = ltSlow > 0 && ltFast > 0 ? std::min(ltSlow, ltFast) : ltSlow;
    double best = t256 > 0 && t128 > 0 ? std::min(t256, t128) : std::max(t256, t128);
    if (ts > 0 && (best < 0 || ts < best))
      best = ts;
    const double blockBest = tb > 0 && tbw > 0 ? std::min(tb, tbw) : std::max(tb, tbw);
    std::printf("  cuBLASLt %.1f us, fast-accum %.1f us (best %.0f TFLOP/s); tilec tensor BN256 "
                "%.1f us (x %.3f), BN128 %.1f us (x %.3f), small M %.1f us; rowcol %.1f us; block BN128 %.1f us, "
                "BN256 %.1f us (%.0f TFLOP/s, %.3f of tensor); err tensor %.2e block %.2e\n",
                ltSlow * 1e3, ltFast * 1e3, tflops(m, n, k, ltMs), t256 * 1e3, ltMs / t256,
                t128 * 1e3, ltMs / t128, ts * 1e3, tr * 1e3, tb * 1e3, tbw * 1e3,
                tflops(m, n, k, blockBest),
                best / blockBest, errT, errB);
    std::fflush(stdout);
    char line[640];
    std::snprintf(line, sizeof line,
                  "| %" PRId64 " x %" PRId64 " x %" PRId64
                  " | %.1f | %.1f | %.0f | %.1f | %.0f | %.3f | %.1f | %.3f | %s | %s | %.1f | %.3f | "
                  "%.1f | %.1f | %.0f | %.3f | %.1e | %.1e |\n",
                  m, n, k, ltSlow * 1e3, ltFast * 1e3, tflops(m, n, k, ltMs), t256 * 1e3,
                  tflops(m, n, k, t256), ltMs / t256, t128 * 1e3, ltMs / t128,
                  ts > 0 ? fmt("%.1f", ts * 1e3).c_str() : "-",
                  ts > 0 ? fmt("%.3f", ltMs / ts).c_str() : "-", tr * 1e3, ltMs / tr,
                  tb * 1e3, tbw * 1e3, tflops(m, n, k, blockBest), best / blockBest, errT, errB);
    md << line;
  }
  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << md.str();
  }
  return allOk ? 0 : 1;
}


// ---------------------------------------------------------------- --alternate
// --soak-ms: every candidate of the alternation (cuBLASLt, the committed
// kernels, the variants' kernels chosen by --variant-kernels), each launched
// back to back for T ms with the SM clock and power sampled (soak.h): time,
// clock, power, and the per-tensor kernel's cycles per launch over the
// kernel's (x tensor per clock: the ratio with the clocks divided out).
void soakTable(const Options &o, int64_t m, int64_t n, int64_t k,
               const std::vector<std::pair<std::string, std::function<void()>>> &cands,
               std::ostringstream &md) {
  const soak::Nvml nvml;
  md << "\nSoak (" << o.soakMs << " ms each, back to back; SM clock and board power sampled by NVML"
     << (nvml.ok() ? "" : ": not available") << "):\n\n"
     << "| M x N x K | kernel | us per launch | TFLOP/s | SM MHz | W | power-capped samples | "
        "x tensor | x tensor per clock |\n|---|---|---|---|---|---|---|---|---|\n";
  std::vector<std::pair<std::string, soak::Result>> rs;
  for (const auto &c : cands)
    rs.push_back({c.first, soak::run(nvml, c.second, o.soakMs)});
  const soak::Result *tensor = nullptr;
  for (const auto &r : rs)
    if (r.first == "tensor BN256")
      tensor = &r.second;
  for (const auto &[name, r] : rs) {
    const double x = tensor ? tensor->usPerLaunch / r.usPerLaunch : 0;
    const double xc = tensor && r.mhz > 0 ? tensor->usPerLaunch * tensor->mhz / (r.usPerLaunch * r.mhz) : 0;
    char line[512];
    std::snprintf(line, sizeof line,
                  "| %" PRId64 " x %" PRId64 " x %" PRId64
                  " | %s | %.1f | %.0f | %.0f | %.0f | %.2f | %.3f | %.3f |\n",
                  m, n, k, name.c_str(), r.usPerLaunch, tflops(m, n, k, r.usPerLaunch * 1e-3), r.mhz,
                  r.watts, r.powerCap, x, xc);
    md << line;
    std::printf("  soak %s", line);
  }
  std::fflush(stdout);
}

// Clock and power state decide fp8 GEMM times on an H100/H200 as much as the
// kernels do (a cool GPU boosts, a hot one throttles), so a comparison timed
// once per side favours whichever ran first. --alternate heats the GPU with
// every candidate in turn for --heat-ms, then times --rounds rounds, each a
// CUDA-event median of --runs launches per candidate, the order reversed
// every other round; it reports per candidate the median, the lowest and
// the highest round, and per round the ratios against cuBLASLt's faster
// mode and against the per-tensor kernel, with their spread.
int runAlternate(const Options &o) {
  if (!deviceAndKernels())
    return o.skipCode;
  tile::Context ctx(0);
  std::vector<std::pair<std::string, Kernels>> modules;
  modules.push_back({"", loadKernels(ctx, sample::ptxDir())});
  for (const std::string &dir : o.variants) {
    const std::string tag = " [" + dir.substr(dir.find_last_of('/') + 1) + "]";
    modules.push_back({tag, loadKernels(ctx, dir)});
  }
  Lt lt;
  std::ostringstream md;
  md << "fp8 GEMM in alternation, e4m3 x e4m3 -> bf16, normal(0, 1) data (seed " << o.seed
     << "); " << ctx.name() << ", " << ctx.smCount() << " SMs; cuBLASLt " << lt.version()
     << "; " << o.heatMs << " ms of heating, then " << o.rounds << " rounds of a CUDA-event median of "
     << o.runs << " launches per candidate (order reversed every other round). Ratios per round: "
        "cuBLASLt's faster mode in that round / the kernel (x Lt), the per-tensor BN256 "
        "kernel / the kernel (x tensor); median [lowest, highest].\n\n"
     << "| M x N x K | kernel | median us | lowest us | highest us | TFLOP/s (median) | x Lt | "
        "x tensor |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto &shape : o.shapes) {
    const int64_t m = shape[0], n = shape[1], k = shape[2];
    std::printf("%" PRId64 "x%" PRId64 "x%" PRId64 ":\n", m, n, k);
    std::fflush(stdout);
    const auto [a, b] = timingInputs(m, n, k, o.seed);
    const Quantized qt = quantize(a, b, m, n, k, Format::E4M3, Scaling::Tensor);
    const Quantized qb = quantize(a, b, m, n, k, Format::E4M3, Scaling::Block);
    Device dt(qt), db(qb);
    std::vector<std::pair<std::string, std::function<void()>>> cands;
    cands.push_back({"cuBLASLt", lt.plan(qt, dt)});
    cands.push_back({"cuBLASLt fast-accum", lt.plan(qt, dt, true)});
    for (const auto &mod : modules) {
      const std::string &tag = mod.first;
      const Kernels &ks = mod.second;
      const std::vector<std::string> &chosen = tag.empty() ? o.kernels : o.variantKernels;
      auto wanted = [&](const char *k) {
        return std::find(chosen.begin(), chosen.end(), k) != chosen.end();
      };
      // A variant's module may lack a kernel: then it is not timed.
      auto add = [&](const std::string &name, const Quantized &q, Device &d, int64_t bn,
                     const char *named = nullptr) {
        try {
          cands.push_back({name + tag, launcher(ks, q, d, bn, nullptr, named)});
        } catch (const std::exception &e) {
          std::printf("  %s%s: not timed (%s)\n", name.c_str(), tag.c_str(), e.what());
        }
      };
      if (tag.empty() || wanted("tensor256")) // the committed one: the x tensor reference
        add("tensor BN256", qt, dt, 256);
      if (wanted("tensor128"))
        add("tensor BN128", qt, dt, 128);
      if (wanted("plain256"))
        add("tensor BN256 gemm_fp8", qt, dt, 256, "gemm_fp8");
      if (wanted("dfr256"))
        add("tensor BN256 gemm_fp8_dfr", qt, dt, 256, "gemm_fp8_dfr");
      if (wanted("block256"))
        add("block BN256", qb, db, 256);
      if (wanted("block128"))
        add("block BN128", qb, db, 128);
      if (!wanted("skinny"))
        continue;
      if (const SmallChoice sc = smallChoice(m, n, k, ctx.smCount());
          sc.instance.mt || sc.tile.tn) {
        try {
          cands.push_back({"tensor small M" + tag,
                           smallChoiceLauncher(ks, qt, dt, sc, ctx.smCount())});
        } catch (const std::exception &e) {
          std::printf("  tensor small M%s: not timed (%s)\n", tag.c_str(), e.what());
        }
      }
    }
    const size_t nc = cands.size();
    const auto heat0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - heat0 < std::chrono::milliseconds(o.heatMs))
      for (auto &c : cands)
        sample::timeWithEvents([] {}, c.second, 0, 3);
    std::vector<std::vector<double>> ms(nc);
    for (int r = 0; r < o.rounds; ++r) {
      for (size_t i = 0; i < nc; ++i) {
        const size_t c = r % 2 ? nc - 1 - i : i;
        ms[c].push_back(sample::timeWithEvents([] {}, cands[c].second, 2, o.runs).median);
      }
    }
    auto stats = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const size_t h = v.size() / 2;
      const double med = v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
      return std::array<double, 3>{med, v.front(), v.back()};
    };
    const size_t tensor = 2; // the committed per-tensor kernel
    for (size_t c = 0; c < nc; ++c) {
      std::vector<double> xLt, xT;
      for (int r = 0; r < o.rounds; ++r) {
        xLt.push_back(std::min(ms[0][r], ms[1][r]) / ms[c][r]);
        if (cands.size() > tensor)
          xT.push_back(ms[tensor][r] / ms[c][r]);
      }
      const auto t = stats(ms[c]), l = stats(xLt);
      const auto v = xT.empty() ? std::array<double, 3>{0, 0, 0} : stats(xT);
      char line[512];
      std::snprintf(line, sizeof line,
                    "| %" PRId64 " x %" PRId64 " x %" PRId64
                    " | %s | %.1f | %.1f | %.1f | %.0f | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] |\n",
                    m, n, k, cands[c].first.c_str(), t[0] * 1e3, t[1] * 1e3, t[2] * 1e3,
                    tflops(m, n, k, t[0]), l[0], l[1], l[2], v[0], v[1], v[2]);
      md << line;
      std::printf("  %s", line);
      std::printf("    rounds (us):");
      for (double x : ms[c])
        std::printf(" %.1f", x * 1e3);
      std::printf("\n");
    }
    std::fflush(stdout);
    if (o.soakMs > 0)
      soakTable(o, m, n, k, cands, md);
    lt.release();
  }
  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << md.str();
  }
  return 0;
}

} // namespace

bool requested(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--fp8")
      return true;
  return false;
}

std::function<void()> tensorLaunch(const Kernels &ks, const Quantized &q, Device &d, int64_t bn,
                                   int sms) {
  if (bn)
    return launcher(ks, q, d, bn);
  const SkinnyChoice c = skinnyChoice(q.m, q.n, q.k, sms);
  if (!c.instance.mt)
    throw std::runtime_error("no gemm_fp8_skinny instance has MT >= M");
  return skinnyLauncher(ks, q, d, c);
}

int run(int argc, char **argv) {
  const Options o = parse(argc, argv);
  return o.small       ? runSmall(o)
         : o.alternate ? runAlternate(o)
         : o.bench     ? runBench(o)
                       : runCheck(o);
}

} // namespace gemm::fp8
