// gemm: C = A * B in f16 / bf16 (f32 accumulation) by the .tile GEMM
// (samples/gemm/gemm.tile, through the tilec runtime), checked against cuBLAS
// in the same process and against a float64 CPU reference, and benchmarked
// side by side with cuBLAS.
//
//   gemm [--check] [--m M] [--n N] [--k K] [--dtype f16|bf16] [--bmajor k|mn]
//        [--variant auto|persistent|splitk|skinny] [--splits S] [--mt MT] [--multicast on|off]
//        [--bn 256|224|200|192|128|64] [--stages S] [--cluster-y 2|4] [--dsm]
//        [--tune] [--tune-cache FILE] [--seed S] [--cpu-macs X] [--clusters N]
//        [--ptx PATH] [--reference-only] [--skip-code C] [--probes FILE.csv]
//   gemm --bench [--shapes MxNxK,...] [--dtypes f16,bf16] [--bmajor k|mn|k,mn]
//        [--tune] [--tune-cache FILE] [--runs 30] [--warmup 10] [--out FILE.md] [--csv FILE.csv]
//   gemm --fp8 ...: the fp8 GEMMs of gemm_fp8.tile (fp8.cpp has their options)
//
// Row-major A [M, K] and C [M, N]; B K-major (stored [N, K]) or MN-major
// (stored [K, N]). Any M, N, K whose rows are 16-byte aligned (N and K
// multiples of 8: TMA's rule; other shapes are rejected before anything
// runs, exit 2, with the rule named). Inputs are fresh standard normal values
// from --seed (printed); every output is poisoned (all bits set: NaN in f16
// and bf16) before the GEMM runs, so an element the kernel never writes fails.
//
// Which kernel runs (gemm_choice.h, README.md "Choosing the kernel"): the
// tuned winner from --tune-cache when it has the shape, else the rule table;
// --variant / --splits / --bn / --multicast force parts of it. --tune times
// every candidate for the shape first, runs the fastest and records it in
// the cache (default gemm_tune.txt).
// --check: the relative Frobenius error ||C - R||_F / ||R||_F against cuBLAS
// (cublasGemmEx, CUBLAS_COMPUTE_32F) and against float64 on the CPU (every
// row when M*N*K <= --cpu-macs, default 2^31, else evenly spread rows) must
// be below 2e-3 (f16) / 1e-2 (bf16); cuBLAS is held to the same bound
// against float64, which checks the reference path itself.
// --bench: the sweep (default: squares 512..8192; M in {16, 64, 128, 256,
// 1024, 4096, 16384} x (N, K) in {(4096, 4096), (14336, 4096), (4096, 14336),
// (8192, 8192)}; 4000^3, 1000x3000x5000, 1x4096x4096, 16x3000x5000,
// 77x3000x5000), each dtype: cuBLAS and the chosen .tile kernel (the choice
// printed), CUDA-event median of --runs after --warmup, TFLOP/s, ratio to
// cuBLAS, geometric means; a markdown table (docs/perf/gemm.md) and a CSV for
// plot.py. Every timed result is checked against cuBLAS afterwards (bench.cpp).
//
// The PTX is <dir>/gemm_<dtype>_<mc|nomc>.ptx (+ .info.json; dir =
// $TILEC_PTX_DIR or the build's PTX directory; --ptx overrides). Without a
// CUDA device: "no CUDA device: compiled only", exit --skip-code (0). Without
// the PTX the check mode still checks cuBLAS against float64 and then exits
// --skip-code; the bench reports "not built" (no number is ever invented).
// --reference-only checks cuBLAS against float64 alone. --probes FILE (with
// --ptx naming a probe build, tools/scripts/gemm_probes.py) appends the
// %globaltimer stamps of 10 launches to FILE (probes.h);
// tools/scripts/gemm_probe_report.py reduces them.
#include "fp8.h"
#include "gemm_cli.h"
#include "probes.h"
#include "gemm_cublas.h"

#include "../common/event_timing.cuh"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace gemm::cli {


[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "gemm: %s\n"
      "usage: gemm [--check] [--m M] [--n N] [--k K] [--dtype f16|bf16] [--bmajor k|mn]\n"
      "            [--variant auto|persistent|splitk|skinny] [--splits S] [--mt MT]\n"
      "            [--multicast on|off] [--bn BN] [--stages S] [--cluster-y 2|4] [--dsm]\n"
      "            [--tune] [--tune-cache FILE] [--seed S] [--cpu-macs X] [--clusters N]\n"
      "            [--ptx PATH] [--reference-only] [--skip-code C] [--probes FILE.csv]\n"
      "       gemm --bench [--shapes MxNxK,...] [--dtypes f16,bf16] [--bmajor k|mn|k,mn]\n"
      "            [--tune] [--tune-cache FILE] [--runs R] [--warmup W] [--out FILE.md]\n"
      "            [--csv FILE.csv]\n"
      "       gemm --fp8 ...  (the scaled fp8 GEMMs: gemm --fp8 --help)\n",
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

// The benchmark's default sweep (docs/perf/gemm.md).
std::vector<Problem> sweep() {
  std::vector<Problem> s;
  for (int64_t n : {512, 1024, 2048, 4096, 8192})
    s.push_back(Problem{n, n, n});
  const int64_t nk[4][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}, {8192, 8192}};
  for (int64_t m : {16, 64, 128, 256, 1024, 4096, 16384})
    for (const auto &p : nk)
      s.push_back(Problem{m, p[0], p[1]});
  for (Problem p : {Problem{4000, 4000, 4000}, Problem{1000, 3000, 5000}, Problem{1, 4096, 4096},
                    Problem{16, 3000, 5000}, Problem{77, 3000, 5000}})
    s.push_back(p);
  return s;
}

Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader r(argc, argv, usage, {"--shapes"});
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
    } else if (f == "--variant") {
      const std::string v = r.value();
      if (v == "persistent")
        o.variant = Variant::Persistent;
      else if (v == "splitk")
        o.variant = Variant::SplitK;
      else if (v == "skinny")
        o.variant = Variant::Skinny;
      else if (v != "auto")
        usage(("bad --variant '" + v + "' (auto, persistent, splitk or skinny)").c_str());
    } else if (f == "--splits")
      o.splits = int(r.intIn(1, 8));
    else if (f == "--mt") {
      o.mt = r.intValue();
      std::set<int64_t> heights;
      for (const gemm::SkinnyInstance &i : gemm::skinnyInstances())
        heights.insert(i.mt);
      std::string all;
      for (int64_t h : heights)
        all += (all.empty() ? "" : ", ") + std::to_string(h);
      if (!heights.count(o.mt))
        usage(("--mt is one of the skinny kernel's compiled tile heights (" + all + ")").c_str());
    }
    else if (f == "--multicast") {
      const std::string v = r.value();
      if (v != "on" && v != "off")
        usage("--multicast is on or off");
      o.multicast = v == "on";
    } else if (f == "--bn") {
      o.bn = r.intValue();
      if (o.bn != 64 && o.bn != 128 && o.bn != 192 && o.bn != 200 && o.bn != 224 && o.bn != 256)
        usage("--bn is 64, 128, 192, 200, 224 or 256");
    } else if (f == "--stages")
      o.stages = int(r.intIn(1, 16));
    else if (f == "--cluster-y") {
      o.clusterY = int(r.intValue());
      if (o.clusterY != 2 && o.clusterY != 4)
        usage("--cluster-y is 2 or 4 (the skinny kernel's column tiles per cluster)");
    }
    else if (f == "--dsm")
      o.dsm = true;
    else if (f == "--tune")
      o.tune = true;
    else if (f == "--tune-cache")
      o.tuneCache = r.value();
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
    else if (f == "--probes")
      o.probes = r.value();
    else if (f == "--shapes") {
      for (const auto &[m, n, k] : r.shapeList("MxNxK"))
        o.shapes.push_back(Problem{m, n, k, DType::F16, BMajor::K});
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
  if (o.clusters < 0 || o.cpuMacs < 1 || o.dtypes.empty())
    usage("bad arguments");
  if (o.dsm) {
    // gemm_skinny_dsm: the skinny kernel with its --splits (default 2) in
    // one cluster; --mt, --bn (default 128), --cluster-y name the instance.
    if ((o.variant && o.variant != Variant::Skinny) || (o.multicast && *o.multicast))
      usage("--dsm is the skinny kernel's (--variant skinny), without --multicast on");
    o.variant = Variant::Skinny;
    const int ks = o.splits ? o.splits : 2;
    if (!gemm::skinnyInstanceFor(o.mt ? 0 : o.problem.m, o.bn ? o.bn : gemm::kSkinnyBn, o.mt, 1,
                                 o.clusterY ? o.clusterY : 1, ks) &&
        (o.mt || !o.bench)) {
      std::string all;
      for (const gemm::SkinnyInstance &i : gemm::skinnyInstances())
        if (i.ks)
          all += std::string(all.empty() ? "" : ", ") + "--mt " + std::to_string(i.mt) +
                 " --bn " + std::to_string(i.bn) + " --splits " + std::to_string(i.ks) +
                 (i.clusterY > 1 ? " --cluster-y " + std::to_string(i.clusterY) : "");
      usage(("no --dsm instance for these --mt / --bn / --splits / --cluster-y (compiled: " +
             all + ")")
                .c_str());
    }
  }
  if (o.bench && (o.runs < 20 || o.warmup < 1))
    usage("--bench needs --runs >= 20 and --warmup >= 1 (medians of >= 20 after warm-up)");
  if (!o.bench && bmajorList)
    usage("--check takes one --bmajor");
  if (o.splits && o.variant == Variant::Persistent)
    usage("--splits is split-K's: it does not go with --variant persistent");
  const bool m64 = o.variant == Variant::Persistent && o.mt; // gemm_m64
  if (o.mt && o.variant && o.variant != Variant::Skinny && !m64)
    usage("--mt is the skinny kernel's (--variant skinny), or 64 with --variant persistent");
  if (m64 && (o.mt != gemm::kTileM64 || (o.bn && !gemm::m64Compiled(o.bn)) ||
              o.problem.bmajor != BMajor::K || o.bmajors.size() != 1))
    usage("the persistent kernel's 64-row tiles (--variant persistent --mt 64) are compiled at "
          "--bn 128 and 256 for B K-major only");
  if (o.clusterY && o.variant != Variant::Skinny)
    usage("--cluster-y is the skinny kernel's two-dimensional cluster (--variant skinny)");
  const bool skinny = o.variant == Variant::Skinny || (o.mt && !m64);
  if (o.bn && o.bn != 128 && o.bn != 64 && (o.variant == Variant::SplitK || o.splits))
    usage("split-K is compiled for --bn 128 and 64 only");
  if ((o.stages || (o.bn == 64 && !skinny)) && o.variant != Variant::SplitK && !o.splits)
    usage("--bn 64 and --stages are split-K's: give --variant splitk or --splits (--bn 64 "
          "also with --variant skinny)");
  if ((o.bn == 64 || o.stages) && !skinny && (o.variant == Variant::SplitK || o.splits)) {
    // Split-K's instance: the first listed of that width (BN 64 -> 8
    // stages), or the one --stages names; checked here, before any device.
    const int64_t bn = o.bn ? o.bn : gemm::kSplitKBn;
    const gemm::SplitKInstance *inst = nullptr;
    for (const gemm::SplitKInstance &i : gemm::splitKInstances())
      if (i.bn == bn && (o.stages ? i.stages == o.stages : !inst))
        inst = &i;
    if (!inst || !gemm::splitKInstance(inst->bn, inst->stages, o.problem.bmajor))
      usage(("no split-K instance has BN " + std::to_string(bn) +
             (o.stages ? " and " + std::to_string(o.stages) + " stages" : std::string()) +
             " for B " + gemm::bmajorName(o.problem.bmajor) +
             "-major (BN 128 with 6 stages; B K-major also BN 64 with 8, or 4: two CTAs per SM)")
                .c_str());
  }
  if (o.bn == gemm::kQuadBn && o.multicast && !*o.multicast)
    usage("--bn 200 is compiled in clusters of four only (B multicast): not with --multicast off");
  if ((o.bn == 192 || o.bn == 200 || o.bn == 224) && o.problem.bmajor != BMajor::K)
    usage(("--bn " + std::to_string(o.bn) + " is compiled for B K-major only (--bmajor k)")
              .c_str());
  if (o.bn && o.bn != 128 && o.bn != 64 && skinny)
    usage("the skinny kernel's tiles are 128 or 64 columns wide (--bn 128 or 64)");
  if (skinny && (o.problem.bmajor != BMajor::K || o.bmajors.size() != 1 ||
                 o.bmajors.front() != BMajor::K))
    usage("the skinny kernel takes B K-major only (--bmajor k)");
  const int64_t skinnyBn = o.bn ? o.bn : gemm::kSkinnyBn;
  // The skinny kernel's cluster: --multicast on is 2 (B multicast), off 1;
  // --cluster-y CY column tiles sharing A.
  const int skinnyCl = o.multicast && *o.multicast ? 2 : 1;
  const int skinnyCy = o.clusterY ? o.clusterY : 1;
  const std::string withCl = std::string(skinnyCl > 1 ? " with --multicast on" : "") +
                             (skinnyCy > 1 ? " --cluster-y " + std::to_string(skinnyCy) : "");
  if (skinny && o.mt && !o.dsm &&
      !gemm::skinnyInstanceFor(0, skinnyBn, o.mt, skinnyCl, skinnyCy)) {
    std::string widths;
    for (const gemm::SkinnyInstance &i : gemm::skinnyInstances())
      if (i.mt == o.mt && i.cluster == skinnyCl && i.clusterY == skinnyCy)
        widths += (widths.empty() ? "--bn " : " or ") + std::to_string(i.bn);
    usage(("no skinny instance has MT " + std::to_string(o.mt) + " and --bn " +
           std::to_string(skinnyBn) + (o.bn ? "" : " (the default width)") + withCl + ": MT " +
           std::to_string(o.mt) + withCl + " is compiled " +
           (widths.empty() ? std::string("at no width") : "at " + widths))
              .c_str());
  }
  if (skinny && !o.bench && !o.mt && !o.dsm &&
      !gemm::skinnyInstanceFor(o.problem.m, skinnyBn, 0, skinnyCl, skinnyCy))
    usage(("no skinny instance has MT >= M = " + std::to_string(o.problem.m) + withCl + " (--mt)")
              .c_str());
  if (o.tune && o.tuneCache.empty())
    o.tuneCache = "gemm_tune.txt";
  if (o.shapes.empty())
    o.shapes = sweep();
  return o;
}

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ptxPath(const Options &o, DType d, bool multicast, int cluster) {
  if (!o.ptx.empty())
    return o.ptx;
  return sample::ptxDir() + "/" + gemm::ptxName(d, multicast, cluster);
}

// gemm_skinny.tile's PTX: beside --ptx's file when given, else in the PTX
// directory.
std::string skinnyPtxPath(const Options &o, DType d) {
  if (!o.ptx.empty()) {
    const size_t slash = o.ptx.rfind('/');
    return (slash == std::string::npos ? std::string() : o.ptx.substr(0, slash + 1)) +
           gemm::skinnyPtxName(d);
  }
  return sample::ptxDir() + "/" + gemm::skinnyPtxName(d);
}

// The choice for `p`: forced parts from the options over the cache's
// winner or the rule's pick.
Choice choiceFor(const Options &o, const Problem &p, int sms, const gemm::TuneCache *cache) {
  Choice c = gemm::chooseFor(p, sms, cache);
  if (!o.forced())
    return c;
  if (o.dsm) {
    // gemm_skinny_dsm (parse() checked the instance exists).
    const gemm::SkinnyInstance *i =
        gemm::skinnyInstanceFor(p.m, o.bn ? o.bn : gemm::kSkinnyBn, o.mt, 1,
                                o.clusterY ? o.clusterY : 1, o.splits ? o.splits : 2);
    if (!i)
      usage(("no --dsm instance has MT >= M = " + std::to_string(p.m) + " (--mt)").c_str());
    c = gemm::skinnyDsm(*i);
    c.why = "forced on the command line";
    return c;
  }
  // Only --dsm forces gemm_skinny_dsm: other forced options start from the
  // skinny kernel whose splits meet in global memory where the cache or the
  // rule picked the cluster-reduced one (its instances have other splits).
  if (c.dsm)
    c = gemm::skinnyFill(p, sms);
  if (o.variant == Variant::Persistent && o.mt) {
    // gemm_m64 (parse() checked MT 64, BN 128, B K-major): cluster 2 unless
    // --multicast off.
    c = gemm::persistentM64(o.multicast && !*o.multicast ? 1 : 2, o.bn ? o.bn : gemm::kM64Bn);
    c.why = "forced on the command line";
    return c;
  }
  const bool skinny = o.variant == Variant::Skinny || o.mt;
  // The width --bn names, else the cache's or the rule's skinny width, else 128.
  const int64_t skinnyBn = o.bn                             ? o.bn
                           : c.variant == Variant::Skinny ? c.bn
                                                          : gemm::kSkinnyBn;
  if (skinny && c.variant != Variant::Skinny)
    c = gemm::skinnyFill(p, sms, skinnyBn);
  // The cluster --multicast names; else none where --mt or --bn name the
  // instance (parse() checked that one exists without a cluster), else the
  // cache's or the rule's.
  const int skinnyCl = o.multicast ? (*o.multicast ? 2 : 1) : o.mt || o.bn ? 1 : c.cluster;
  const int skinnyCy = o.clusterY                      ? o.clusterY
                       : o.multicast || o.mt || o.bn ? 1
                                                       : c.clusterY;
  if (skinny &&
      (o.mt || c.bn != skinnyBn || c.cluster != skinnyCl || c.clusterY != skinnyCy)) {
    // The instance --mt / --bn / --multicast / --cluster-y name (the deepest
    // ring of that MT, width and cluster), its splits refilled.
    const gemm::SkinnyInstance *i =
        gemm::skinnyInstanceFor(p.m, skinnyBn, o.mt, skinnyCl, skinnyCy);
    c.mt = i ? i->mt : 0;
    c.stages = i ? i->stages : 0;
    c.bn = skinnyBn;
    c.cluster = skinnyCl;
    c.clusterY = skinnyCy;
    c.splits = i ? gemm::splitsToFill(gemm::skinnyTiles(p, c.mt, c.bn, c.cluster, c.clusterY),
                                      gemm::kSteps(p), sms)
                 : 1;
  }
  if (c.variant == Variant::Skinny && !c.mt)
    usage(("no skinny instance has MT >= M = " + std::to_string(p.m) + " (--mt)").c_str());
  if (o.variant != Variant::Skinny && !o.mt && (o.variant == Variant::SplitK || o.splits) &&
      c.variant != Variant::SplitK)
    c = gemm::splitKFill(p, sms);
  if (o.variant == Variant::Persistent && (c.variant != Variant::Persistent || c.mt))
    c = gemm::persistentWith(256, p.bmajor);
  if (o.splits)
    c.splits = o.splits;
  if (o.multicast && !skinny) {
    // The persistent kernel's B multicast, or split-K's A multicast when
    // split-K is asked for (--variant splitk / --splits).
    const bool splitK =
        c.variant == Variant::SplitK && (o.variant == Variant::SplitK || o.splits);
    if (c.variant != Variant::Persistent && !splitK)
      c = gemm::persistentWith(c.bn == 64 ? 128 : c.bn, p.bmajor); // no persistent BN 64
    c.cluster = *o.multicast ? 2 : 1;
  }
  if (o.bn)
    c.bn = o.bn;
  // BN 200 is compiled in clusters of four only (gemm_<dtype>_mc4.ptx): the
  // cache's or the rule's BN 200 with --multicast off is BN 192 without the
  // cluster; another BN with the quad's cluster is the pair.
  if (c.variant == Variant::Persistent && !c.mt && c.bn == gemm::kQuadBn)
    c = o.multicast && !*o.multicast ? [&] {
      Choice one = gemm::persistentWith(192, p.bmajor);
      one.cluster = 1;
      return one;
    }()
                                     : gemm::persistentQuad();
  else if (c.variant == Variant::Persistent && c.cluster == 4)
    c.cluster = 2;
  if (c.variant == Variant::Persistent && c.mt && !gemm::m64Compiled(c.bn))
    c.mt = 0; // gemm_m64 is compiled at BN 128 and 256: the 128-row kernel at that BN
  if (c.variant == Variant::Persistent)
    c.stages = gemm::persistentStages(c.bn, p.bmajor, gemm::persistentRows(c)); // that BN's ring
  if (c.variant == Variant::SplitK) {
    // The split-K instance of that width (the first listed: BN 64 -> 8
    // stages) or the one --stages names (parse() checked it exists).
    const gemm::SplitKInstance *inst = nullptr;
    for (const gemm::SplitKInstance &i : gemm::splitKInstances())
      if (i.bn == c.bn && (o.stages ? i.stages == o.stages : !inst))
        inst = &i;
    if (!inst || !gemm::splitKInstance(inst->bn, inst->stages, p.bmajor))
      usage(("no split-K instance has BN " + std::to_string(c.bn) + " for B " +
             gemm::bmajorName(p.bmajor) + "-major")
                .c_str());
    if (o.bn || o.stages)
      c.stages = inst->stages;
  }
  c.why = "forced on the command line";
  return c;
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


// --tune: every candidate timed (median of 15 after 3 warm-ups; the runs
// write C, which the caller overwrites); the fastest, with its time. Also
// the rule's choice's time (it is one of the candidates) in *ruleUs.
gemm::CacheEntry tune(Runner &run, const Problem &p, const gemm::Tensors &ts, int sms,
                      double *ruleUs) {
  const Choice rule = gemm::ruleChoice(p, sms);
  gemm::CacheEntry best;
  best.us = -1;
  for (const Choice &c : gemm::candidates(p, sms)) {
    double us = -1;
    try {
      std::function<void()> f = run.launcher(c, p, ts);
      us = sample::timeWithEvents([] {}, f, 3, 15).median * 1e3;
    } catch (const std::exception &e) {
      std::printf("    tune: %s skipped: %s\n", gemm::describe(c).c_str(), e.what());
      continue;
    }
    std::printf("    tune: %-48s %9.1f us\n", gemm::describe(c).c_str(), us);
    if (c == rule && ruleUs)
      *ruleUs = us;
    if (best.us < 0 || us < best.us) {
      best.choice = c;
      best.us = us;
    }
  }
  if (best.us < 0)
    throw std::runtime_error("no candidate ran for " + p.shape());
  best.choice.why = "tuned";
  return best;
}

void loadCache(const Options &o, gemm::TuneCache &cache) {
  if (o.tuneCache.empty() || !fileExists(o.tuneCache))
    return;
  cache.load(o.tuneCache);
  for (const std::string &why : cache.problems)
    std::fprintf(stderr, "gemm: warning: %s (line skipped)\n", why.c_str());
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o) {
  Problem p = o.problem;
  // The alignment rule needs nothing but the shape: checked before any
  // device is touched.
  if (!o.referenceOnly) {
    const std::string why = gemm::alignmentProblem(p);
    if (!why.empty()) {
      std::fprintf(stderr, "gemm: %s rejected: %s\n", p.shape().c_str(), why.c_str());
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
  const int sms = ctx.smCount();
  const double tol = gemm::tolerance(p.dtype);
  gemm::TuneCache cache;
  loadCache(o, cache);
  Choice choice = choiceFor(o, p, sms, &cache);
  std::printf("gemm --check %s %s, B %s-major, seed %" PRIu64 " (normal(0, 1) inputs)\n",
              p.shape().c_str(), gemm::dtypeName(p.dtype), gemm::bmajorName(p.bmajor), o.seed);
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
    const std::string ptx = choice.variant == Variant::Skinny
                                ? skinnyPtxPath(o, p.dtype)
                                : ptxPath(o, p.dtype, gemm::usesMulticastPtx(choice),
                                          gemm::ptxCluster(choice));
    if (!fileExists(ptx)) {
      std::printf("no .tile PTX at %s: samples/gemm/gemm.tile is not built yet (README.md, "
                  "\"The contract\"); only cuBLAS was checked\n",
                  ptx.c_str());
      return ok ? o.skipCode : 1;
    }
    Runner run(ctx, o);
    const gemm::Tensors ts = gemm::tensorsOf(p, dA.ptr(), dB.ptr(), dC.ptr());
    if (o.tune) {
      const gemm::CacheEntry best = tune(run, p, ts, sms, nullptr);
      cache.entries[gemm::cacheKey(p)] = best;
      if (!cache.save(o.tuneCache))
        std::fprintf(stderr, "gemm: cannot write %s\n", o.tuneCache.c_str());
      choice = best.choice;
      choice.why = "tuned now (" + fmt("%.1f", best.us) + " us), saved in " + o.tuneCache;
      dC.fillBytes(0xff); // the candidates wrote C: poison it again
    }
    std::string what;
    std::function<void()> launch = run.launcher(choice, p, ts, &what);
    std::printf("  tilec: %s (%s); %s\n", gemm::describe(choice).c_str(), choice.why.c_str(),
                what.c_str());
    launch();
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
    // Split-K a second time: the flags the first launch left must be zero
    // again (the last CTA of each tile resets its flag), so a rerun is exact.
    if (choice.variant != Variant::Persistent && choice.splits > 1) {
      dC.fillBytes(0xff);
      launch();
      SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<uint16_t> again = dC.toHost();
      const bool same = again == got;
      std::printf("  split-K rerun (flags reset by the kernel): %s\n",
                  same ? "bit-identical" : "DIFFERS  FAIL");
      ok = ok && same;
    }
    if (!o.probes.empty()) {
      // A probe build (tools/scripts/gemm_probes.py): 20 warm launches, then
      // 10 whose stamps are appended to the CSV, one launch at a time.
      const tile::Module &m = run.kernel(choice, p.dtype, p.bmajor).module;
      for (int i = 0; i < 20; ++i)
        launch();
      for (int l = 0; l < 10; ++l) {
        SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
        gemm::probes::zero(m);
        launch();
        SAMPLE_CUDA_CHECK(cudaGetLastError());
        SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
        gemm::probes::append(m, l, o.probes);
      }
      std::printf("  probes: 10 launches in %s\n", o.probes.c_str());
    }
    std::printf("gemm: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gemm: %s\n", e.what());
    return 1;
  }
}

} // namespace gemm::cli

int main(int argc, char **argv) {
  if (gemm::fp8::requested(argc, argv)) // the scaled fp8 GEMMs: fp8.cpp
    return gemm::fp8::run(argc, argv);
  const gemm::cli::Options o = gemm::cli::parse(argc, argv);
  return o.bench ? gemm::cli::runBench(o) : gemm::cli::runCheck(o);
}
