// gemm --fp8 at small M: gemm_fp8_skinny_dsm's launch (fp8_small.h's
// instances) and `gemm --fp8 --small`, which times every per-tensor kernel
// the host can run at a shape (cuBLASLt in both modes, the persistent kernel
// at BN 256 and 128, gemm_fp8_skinny's pick, every candidate instance of
// gemm_fp8_skinny_dsm and the host's pick) in rounds after heating the GPU,
// each checked against cuBLASLt's C first.
#include "fp8_small.h"
#include "fp8_cli.h"
#include "fp8_device.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <fstream>
#include <sstream>

namespace gemm::fp8 {
namespace {
std::string fmt(const char *f, double x) {
  char b[32];
  std::snprintf(b, sizeof b, f, x);
  return b;
}
} // namespace

std::function<void()> smallLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                    const SmallInstance &i) {
  tile::Kernel k = ks.small.kernel(
      "gemm_fp8_skinny_dsm",
      {{"MT", i.mt}, {"S", i.stages}, {"BW", i.bw}, {"KS", i.ks}, {"CY", i.cy}, {"CL", i.cl}},
      {{"T", formatName(q.format)}});
  tile::Tensor ta(d.a.ptr(), element(q.format), {q.m, q.kp});
  tile::Tensor tb(d.b.ptr(), element(q.format), {q.n, q.kp});
  tile::Tensor tc(d.c.ptr(), tile::TensorElement::BF16, {q.m, q.n});
  tile::LaunchConfig cfg;
  cfg.grid =
      tile::Dim3(unsigned(i.ks), unsigned(smallColTiles(q.n, i)), unsigned(smallRowTiles(q.m, i)));
  cfg.block = tile::Dim3(unsigned(128 + 2 * i.bw));
  return [k, cfg, ta, tb, tc, &d]() mutable { k.launch(cfg, ta, tb, tc, d.sa, d.sb); };
}

std::function<void()> tileLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                   const TileInstance &i) {
  tile::Kernel k =
      i.ks == 1 ? ks.small.kernel("gemm_fp8_tile",
                                   {{"TN", i.tn}, {"S", i.stages}, {"CN", i.cn}, {"CM", i.cm}},
                                   {{"T", formatName(q.format)}})
                : ks.small.kernel("gemm_fp8_tile_k2", {{"TN", i.tn}, {"S", i.stages}},
                                   {{"T", formatName(q.format)}});
  tile::Tensor ta(d.a.ptr(), element(q.format), {q.m, q.kp});
  tile::Tensor tb(d.b.ptr(), element(q.format), {q.n, q.kp});
  tile::Tensor tc(d.c.ptr(), tile::TensorElement::BF16, {q.m, q.n});
  tile::LaunchConfig cfg;
  cfg.grid = i.ks == 1 ? tile::Dim3(unsigned(tileColTiles(q.n, i)), unsigned(tileRowTiles(q.m, i)))
                       : tile::Dim3(unsigned(i.ks), unsigned(tileColTiles(q.n, i)),
                                    unsigned(tileRowTiles(q.m, i)));
  cfg.block = tile::Dim3(384);
  return [k, cfg, ta, tb, tc, &d]() mutable { k.launch(cfg, ta, tb, tc, d.sa, d.sb); };
}

std::function<void()> smallChoiceLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                          const SmallChoice &c, int sms) {
  return c.instance.mt ? smallLauncher(ks, q, d, c.instance)
         : c.tile.tn   ? tileLauncher(ks, q, d, c.tile)
                       : tensorLaunch(ks, q, d, c.persistentBn, sms);
}

void checkSmall(const Options &o, const Kernels &ks, const Quantized &q, Device &d,
                const std::vector<int64_t> &rows, const std::vector<double> &want, int sms,
                bool &ok) {
  const SmallChoice c = smallChoice(q.m, q.n, q.k, sms);
  if (!c.instance.mt && !c.tile.tn && !c.persistentBn)
    return;
  auto check = [&](const std::string &what, const std::function<void()> &f, int launches) {
    std::vector<uint16_t> got;
    for (int l = 0; l < launches; ++l)
      got = runOnce(f, d);
    const Comparison cmp = compareBf16(q.m, q.n, got, rows, want);
    const bool good = cmp.nonFinite == 0 && cmp.relFrobenius < 1e-2;
    ok = ok && good;
    std::printf("    %-44s rel. Frobenius %.3e (bound 1e-2), max |diff| %.3e%s%s\n",
                (what + " vs dequantised float64").c_str(), cmp.relFrobenius, cmp.maxAbs,
                cmp.nonFinite ? (", " + std::to_string(cmp.nonFinite) + " non-finite").c_str() : "",
                good ? "" : "  FAIL");
  };
  check("small M: " + describe(c), smallChoiceLauncher(ks, q, d, c, sms), 2);
  if (o.allSmall)
    for (const SmallInstance &i : smallCandidates(q.m, q.n, q.k, sms))
      check(describe(i), smallLauncher(ks, q, d, i), 1);
  if (o.allSmall) // every gemm_fp8_tile instance, whatever its grid
    for (const TileInstance &i : tileInstances())
      check(describe(i), tileLauncher(ks, q, d, i), 1);
}

int runSmall(const Options &o) {
  if (!deviceAndKernels())
    return o.skipCode;
  tile::Context ctx(0);
  Kernels ks = loadKernels(ctx, sample::ptxDir());
  const int sms = ctx.smCount();
  Lt lt;
  std::ostringstream md;
  md << "fp8 GEMM at small M, per tensor, e4m3 x e4m3 -> bf16, normal(0, 1) data (seed " << o.seed
     << "); " << ctx.name() << ", " << sms << " SMs; cuBLASLt " << lt.version() << "; " << o.heatMs
     << " ms of heating per shape, then " << o.rounds << " rounds of a CUDA-event median of "
     << o.runs
     << " launches per candidate (order reversed every other round); the median round. x Lt = "
        "cuBLASLt's faster mode / tilec. Every tilec candidate's C is checked against "
        "cuBLASLt's (all of C, relative Frobenius < 1e-2) before it is timed. HBM floor: (N K "
        "+ M K + 2 M N) bytes at 4.8 TB/s.\n\n"
     << "| M x N x K | cuBLASLt us | Lt fast-accum us | pick us | x Lt | the pick | best tilec "
        "us | x Lt | the best | BN256 us | BN128 us | skinny (split-K) us | HBM floor us |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  bool allOk = true;
  std::vector<double> xPick, xBest;
  for (const auto &shape : o.shapes) {
    const int64_t m = shape[0], n = shape[1], k = shape[2];
    std::printf("%" PRId64 "x%" PRId64 "x%" PRId64 ":\n", m, n, k);
    std::fflush(stdout);
    const auto [a, b] = timingInputs(m, n, k, o.seed);
    const Quantized q = quantize(a, b, m, n, k, o.format, Scaling::Tensor);
    Device d(q);
    struct Cand {
      std::string name;
      std::function<void()> f;
      bool tilec;
    };
    std::vector<Cand> cands;
    cands.push_back({"cuBLASLt", lt.plan(q, d), false});
    cands.push_back({"cuBLASLt fast-accum", lt.plan(q, d, true), false});
    auto add = [&](const std::string &name, const std::function<std::function<void()>()> &make) {
      try {
        cands.push_back({name, make(), true});
      } catch (const std::exception &e) {
        std::printf("  %s: not timed (%s)\n", name.c_str(), e.what());
      }
    };
    add("tensor BN256", [&] { return tensorLaunch(ks, q, d, 256, sms); });
    add("tensor BN128", [&] { return tensorLaunch(ks, q, d, 128, sms); });
    if (m <= 128)
      add("skinny split-K", [&] { return tensorLaunch(ks, q, d, 0, sms); });
    const SmallChoice pick = smallChoice(m, n, k, sms);
    size_t pickIndex = 0;
    if (!pick.instance.mt && !pick.tile.tn)
      for (size_t c = 0; c < cands.size(); ++c)
        if (cands[c].name == "tensor BN" + std::to_string(pick.persistentBn))
          pickIndex = c;
    std::vector<SmallInstance> insts = smallCandidates(m, n, k, sms);
    if (pick.instance.mt && std::find(insts.begin(), insts.end(), pick.instance) == insts.end())
      insts.push_back(pick.instance);
    for (const SmallInstance &i : insts) {
      if (pick.instance.mt && i == pick.instance)
        pickIndex = cands.size();
      add(describe(i), [&] { return smallLauncher(ks, q, d, i); });
    }
    std::vector<TileInstance> tiles = tileCandidates(m, n, k, sms);
    if (pick.tile.tn && std::find(tiles.begin(), tiles.end(), pick.tile) == tiles.end())
      tiles.push_back(pick.tile);
    for (const TileInstance &i : tiles) {
      if (pick.tile.tn && i == pick.tile)
        pickIndex = cands.size();
      add(describe(i), [&] { return tileLauncher(ks, q, d, i); });
    }
    // Correctness first: every tilec candidate against cuBLASLt's C.
    const std::vector<uint16_t> ref = runOnce(cands[0].f, d);
    std::vector<double> refAll(ref.size());
    for (size_t x = 0; x < ref.size(); ++x)
      refAll[x] = bf16ToFloat(ref[x]);
    const std::vector<int64_t> every =
        referenceRows(Problem{m, n, 1, DType::BF16, BMajor::K}, double(m) * double(n));
    std::vector<bool> bad(cands.size(), false);
    for (size_t c = 0; c < cands.size(); ++c) {
      if (!cands[c].tilec)
        continue;
      const Comparison cmp = compareBf16(m, n, runOnce(cands[c].f, d), every, refAll);
      if (cmp.nonFinite || !(cmp.relFrobenius < 1e-2)) {
        bad[c] = true;
        allOk = false;
        std::printf("  PROBLEM: %s vs cuBLASLt: rel. Frobenius %.3e, %" PRId64 " non-finite\n",
                    cands[c].name.c_str(), cmp.relFrobenius, cmp.nonFinite);
      }
    }
    const size_t nc = cands.size();
    const auto heat0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - heat0 < std::chrono::milliseconds(o.heatMs))
      for (auto &c : cands)
        sample::timeWithEvents([] {}, c.f, 0, 3);
    std::vector<std::vector<double>> ms(nc);
    for (int r = 0; r < o.rounds; ++r)
      for (size_t x = 0; x < nc; ++x) {
        const size_t c = r % 2 ? nc - 1 - x : x;
        ms[c].push_back(sample::timeWithEvents([] {}, cands[c].f, 2, o.runs).median);
      }
    std::vector<double> med(nc);
    for (size_t c = 0; c < nc; ++c) {
      std::vector<double> v = ms[c];
      std::sort(v.begin(), v.end());
      med[c] = v[v.size() / 2] * 1e3;
    }
    const double lt0 = med[0], lt1 = med[1], ltBest = std::min(lt0, lt1);
    size_t best = 0;
    for (size_t c = 2; c < nc; ++c) {
      std::printf("  %-40s %8.2f us  x Lt %.3f%s\n", cands[c].name.c_str(), med[c], ltBest / med[c],
                  bad[c] ? "  (WRONG: not counted)" : "");
      if (!bad[c] && (best == 0 || med[c] < med[best]))
        best = c;
    }
    auto timeOf = [&](const std::string &name) {
      for (size_t c = 0; c < nc; ++c)
        if (cands[c].name == name)
          return fmt("%.1f", med[c]);
      return std::string("-");
    };
    const double floorUs = double(n * k + m * k + 2 * m * n) / 4.8e12 * 1e6;
    const bool havePick = pickIndex > 0 && !bad[pickIndex];
    if (havePick)
      xPick.push_back(ltBest / med[pickIndex]);
    if (best)
      xBest.push_back(ltBest / med[best]);
    char line[768];
    std::snprintf(line, sizeof line,
                  "| %" PRId64 " x %" PRId64 " x %" PRId64
                  " | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f |\n",
                  m, n, k, lt0, lt1, havePick ? fmt("%.1f", med[pickIndex]).c_str() : "-",
                  havePick ? fmt("%.3f", ltBest / med[pickIndex]).c_str() : "-",
                  describe(pick).c_str(), best ? fmt("%.1f", med[best]).c_str() : "-",
                  best ? fmt("%.3f", ltBest / med[best]).c_str() : "-",
                  best ? cands[best].name.c_str() : "-", timeOf("tensor BN256").c_str(),
                  timeOf("tensor BN128").c_str(), timeOf("skinny split-K").c_str(), floorUs);
    md << line;
    std::printf("  %s", line);
    std::fflush(stdout);
    lt.release();
  }
  auto geo = [](const std::vector<double> &v) {
    double s = 0;
    for (double x : v)
      s += std::log(x);
    return v.empty() ? 0.0 : std::exp(s / double(v.size()));
  };
  auto below = [](const std::vector<double> &v) {
    return int(std::count_if(v.begin(), v.end(), [](double x) { return x < 0.909; }));
  };
  md << "\nGeometric mean x Lt: the pick " << fmt("%.3f", geo(xPick)) << " (" << below(xPick)
     << " of " << xPick.size() << " below 0.909), the best tilec " << fmt("%.3f", geo(xBest))
     << " (" << below(xBest) << " of " << xBest.size() << " below 0.909).\n";
  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << md.str();
  }
  return allOk ? 0 : 1;
}

} // namespace gemm::fp8
