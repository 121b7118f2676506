// attention: the forward pass O = softmax(scale * Q K^T + mask) V, with the
// log-sum-exp of every row, by the .tile kernel (samples/attention/
// attention.tile, through the tilec runtime), checked against a float64 CPU
// reference and timed.
//
//   attention [--check] [--dtypes f16,bf16] [--dims 64,128,256] [--causal 0,1]
//             [--groups 1,2] [--shape B,Hq,Sq,Sk ...] [--scale S] [--seed S]
//             [--wgs N] [--ptx-dir DIR] [--skip-code C]
//   attention --self-test
//   attention --bench [--dtypes f16] [--dims 64,128,256] [--causal 0,1]
//             [--seqs 1024,2048,4096,8192,16384] [--batch 4] [--heads 16]
//             [--runs 30] [--warmup 10] [--wgs N] [--out FILE.md]
//
// --check runs every dtype x head dim x causal x group combination on every
// shape (default: eight shapes, most of them with sequence lengths that are
// not multiples of the 128-row block, one with Sq > Sk, where a causal row
// sees no key, three whose last key block is computed narrow): inputs are fresh normal(0, 1) values from --seed (printed);
// O and LSE are poisoned (NaN) before the launch, so an element the kernel
// never writes fails. Each result must be within the bounds of
// attention_common.h: O's relative Frobenius error below 3e-3 (f16) / 2e-2
// (bf16), LSE's largest absolute error below 2e-3, and a row that sees no
// key must give O = 0 and LSE = -inf. Query heads Hq, K/V heads Hq / group.
// --check runs every instance compiled for a head dim and causal setting (at
// D = 64: 3 and 2 consumer warpgroups); --wgs N runs only the N-warpgroup one.
// --self-test checks the reference and the comparison without a GPU.
// --bench: B x H x seq x seq (GQA off), each dtype, head dim and causal
// setting: CUDA-event median of --runs after --warmup, TFLOP/s (4 * unmasked
// pairs * D), each result checked on the last 128 query rows of its first head;
// the instance is the one the host picks for the shape (attn::consumerWarpgroups,
// its warpgroups printed in the table's `WGS` column), --wgs N forces one. The comparison with
// PyTorch (SDPA cuDNN / flash backends, FlexAttention) is bench.py.
//
// The PTX is <dir>/attention_<dtype>.ptx (+ .info.json; dir =
// $TILEC_PTX_DIR or the build's PTX directory, --ptx-dir overrides), kernel
// `attention` with D and CAUSAL instances. Without a CUDA device: "no CUDA
// device: compiled only", exit --skip-code (0); without the PTX the same
// (no number is ever invented).
#include "attention_common.h"

#include "../common/event_timing.cuh"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

namespace {

using attn::DType;
using attn::Problem;

struct Shape {
  int64_t batch, heads, seqQ, seqK;
};

struct Options {
  bool bench = false, selfTest = false;
  std::vector<DType> dtypes{DType::F16, DType::BF16};
  std::vector<long long> dims{64, 128, 256}, causal{0, 1}, groups{1, 2};
  std::vector<Shape> shapes;
  double scale = 0;
  uint64_t seed = 20261128;
  std::string ptxDir;
  int skipCode = 0;
  // bench
  std::vector<long long> seqs{1024, 2048, 4096, 8192, 16384};
  int64_t batch = 4, heads = 16;
  int runs = 30, warmup = 10;
  std::string out;
  int64_t wgs = 0; // consumer warpgroups of the instance; 0: the host's choice
  // 0: attention, 1: attention_persistent; -1: the host's choice (bench), both (check)
  int persistent = -1;
  int64_t ctas = 0; // the persistent grid's CTAs at most; 0: 3 (check), the SMs (bench)
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(
      stderr,
      "attention: %s\n"
      "usage: attention [--check] [--dtypes f16,bf16] [--dims 64,128,256] [--causal 0,1]\n"
      "                 [--groups 1,2] [--shape B,Hq,Sq,Sk ...] [--scale S] [--seed S]\n"
      "                 [--wgs N] [--persistent 0|1] [--ctas N] [--ptx-dir DIR]\n"
      "                 [--skip-code C]\n"
      "       attention --bench [--dtypes f16] [--dims 64,128,256] [--causal 0,1]\n"
      "                 [--seqs 1024,...] [--batch B] [--heads H] [--runs R] [--warmup W]\n"
      "                 [--wgs N] [--persistent 0|1] [--ctas N] [--out FILE.md]\n",
      msg);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader r(argc, argv, usage, {"--shape"});
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--check")
      o.bench = false;
    else if (f == "--bench")
      o.bench = true;
    else if (f == "--self-test")
      o.selfTest = true;
    else if (f == "--dtypes") {
      o.dtypes.clear();
      for (const std::string &d : r.listValue())
        o.dtypes.push_back(gemm::dtypeNamed(d, r));
    } else if (f == "--dims")
      o.dims = r.intListIn(64, 256);
    else if (f == "--causal")
      o.causal = r.intListIn(0, 1);
    else if (f == "--groups")
      o.groups = r.intListIn(1, 64);
    else if (f == "--shape") {
      std::vector<long long> v = r.intListIn(1, 1 << 20);
      if (v.size() != 4)
        usage("--shape is B,Hq,Sq,Sk");
      o.shapes.push_back({v[0], v[1], v[2], v[3]});
    } else if (f == "--scale") {
      const std::string v = r.value();
      o.scale = std::strtod(v.c_str(), nullptr);
      if (!(o.scale > 0))
        usage("--scale must be positive");
    } else if (f == "--seed")
      o.seed = uint64_t(r.intValue());
    else if (f == "--ptx-dir")
      o.ptxDir = r.value();
    else if (f == "--skip-code")
      o.skipCode = int(r.intValue());
    else if (f == "--seqs")
      o.seqs = r.intListIn(1, 1 << 20);
    else if (f == "--batch")
      o.batch = r.intIn(1, 1024);
    else if (f == "--heads")
      o.heads = r.intIn(1, 1024);
    else if (f == "--runs")
      o.runs = int(r.intIn(1, 10000));
    else if (f == "--warmup")
      o.warmup = int(r.intIn(0, 10000));
    else if (f == "--out")
      o.out = r.value();
    else if (f == "--wgs")
      o.wgs = r.intIn(2, 3);
    else if (f == "--persistent")
      o.persistent = int(r.intIn(0, 1));
    else if (f == "--ctas")
      o.ctas = r.intIn(1, 1 << 20);
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.dtypes.empty() || o.dims.empty() || o.causal.empty() || o.groups.empty())
    usage("empty list");
  if (o.wgs)
    for (long long dim : o.dims) {
      const std::vector<int64_t> have = attn::compiledWarpgroups(dim);
      if (std::find(have.begin(), have.end(), o.wgs) == have.end())
        usage(("--wgs " + std::to_string(o.wgs) + ": no instance with D = " + std::to_string(dim) +
               " (D = 64: 2 or 3, D = 128 and 256: 2)")
                  .c_str());
    }
  // Exact blocks; tails with Sq < Sk; Sq > Sk; one short block, long K; Sq = 1; last
  // blocks of at most 64 keys (computed narrow: after whole blocks, exactly 64 keys,
  // and alone).
  if (o.shapes.empty())
    o.shapes = {{1, 2, 128, 128}, {2, 2, 200, 333}, {1, 2, 257, 96}, {1, 2, 65, 1000},
                {2, 2, 1, 77},    {2, 2, 190, 190}, {1, 2, 100, 2000}, {1, 2, 40, 48}};
  return o;
}

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ptxPath(const Options &o, DType d) {
  return (o.ptxDir.empty() ? sample::ptxDir() : o.ptxDir) + "/" + attn::ptxName(d);
}

bool haveDevice() {
  int devices = 0;
  return tile::deviceCount() > 0 && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

struct Inputs {
  explicit Inputs(const Problem &p, uint64_t seed)
      : q(gemm::randomNormal(p.dtype, p.qElems(), seed, 1)),
        k(gemm::randomNormal(p.dtype, p.kvElems(), seed, 2)),
        v(gemm::randomNormal(p.dtype, p.kvElems(), seed, 3)), dq(q.size()), dk(k.size()),
        dv(v.size()), dout(p.qElems()), dlse(p.lseElems()) {
    dq.copyFrom(q);
    dk.copyFrom(k);
    dv.copyFrom(v);
  }
  std::vector<uint16_t> q, k, v;
  tile::DeviceBuffer<uint16_t> dq, dk, dv, dout;
  tile::DeviceBuffer<float> dlse;
  attn::Buffers bufs() const { return {dq.ptr(), dk.ptr(), dv.ptr(), dout.ptr(), dlse.ptr()}; }
};

std::unique_ptr<Inputs> makeInputs(const Problem &p, uint64_t seed) {
  return std::make_unique<Inputs>(p, seed);
}

void poison(Inputs &in) {
  in.dout.fillBytes(0xff); // NaN in f16, bf16 and f32
  in.dlse.fillBytes(0xff);
}

// ---------------------------------------------------------------- --check
int runCheck(const Options &o) {
  if (!haveDevice()) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // the primary context the tilec runtime retains too
  tile::Context ctx(0);
  std::printf("attention --check on %s, seed %" PRIu64 " (normal(0, 1) inputs); bounds: O rel. "
              "Frobenius < %.0e (f16) / %.0e (bf16), LSE max abs < %.0e\n",
              ctx.name().c_str(), o.seed, attn::oTolerance(DType::F16),
              attn::oTolerance(DType::BF16), attn::kLseTolerance);
  int failed = 0, passed = 0;
  for (DType d : o.dtypes) {
    const std::string ptx = ptxPath(o, d);
    if (!fileExists(ptx)) {
      std::printf("no .tile PTX at %s: samples/attention/attention.tile is not built\n",
                  ptx.c_str());
      return o.skipCode;
    }
    for (long long dim : o.dims)
      for (long long causal : o.causal)
        for (int64_t wgs : o.wgs ? std::vector<int64_t>{o.wgs} : attn::compiledWarpgroups(dim))
          // 0: attention; 1: attention_persistent.
          for (int pers :
               o.persistent >= 0 ? std::vector<int>{o.persistent} : std::vector<int>{0, 1})
            // attention: every schedule compiled for the instance; persistent: its own.
            for (const attn::Schedule &rg : pers ? std::vector<attn::Schedule>{attn::Schedule{}}
                                                 : attn::compiledSchedules(dim, causal != 0, wgs)) {
              attn::TileKernel k;
              try {
                // Persistent: few CTAs (3 unless --ctas), so that each takes several tiles.
                k = attn::loadTileKernel(ctx, ptx, dim, causal != 0, wgs, pers != 0,
                                         o.ctas ? o.ctas : 3, rg);
              } catch (const std::exception &e) {
                std::printf("FAIL %s D=%lld causal=%lld WGS=%lld%s KB=%lld ORD=%lld: %s\n",
                            attn::dtypeName(d), dim, causal, (long long)wgs,
                            pers ? " persistent" : "", (long long)rg.keys, (long long)rg.order,
                            e.what());
                ++failed;
                continue;
              }
              for (long long group : o.groups)
                for (const Shape &s : o.shapes) {
                  Problem p;
                  p.batch = s.batch;
                  p.heads = s.heads * group;
                  p.kvHeads = s.heads;
                  p.seqQ = s.seqQ;
                  p.seqK = s.seqK;
                  p.dim = dim;
                  p.causal = causal != 0;
                  p.scale = o.scale;
                  p.dtype = d;
                  p.blockM = k.blockM;
                  if (const std::string why = p.invalid(); !why.empty())
                    usage((p.str() + ": " + why).c_str());
                  std::unique_ptr<Inputs> in = makeInputs(p, o.seed);
                  poison(*in);
                  try {
                    attn::launchTile(k, p, in->bufs());
                    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
                  } catch (const std::exception &e) {
                    std::printf("FAIL %s: %s\n", p.str().c_str(), e.what());
                    ++failed;
                    continue;
                  }
                  const attn::Reference want = attn::reference(p, in->q, in->k, in->v);
                  const attn::Comparison c =
                      attn::compare(p, want, in->dout.toHost(), in->dlse.toHost());
                  const bool ok = c.pass(d);
                  (ok ? passed : failed)++;
                  std::printf("%s %-52s WGS=%lld%s KB=%-3lld ORD=%lld O rel. Frobenius %.2e (max "
                              "|diff| %.2e), LSE max |diff| %.2e%s",
                              ok ? "ok  " : "FAIL", p.str().c_str(), (long long)wgs,
                              pers ? " P" : "  ", (long long)k.keysPerStage, (long long)k.order,
                              c.oRelFrobenius, c.oMaxAbs, c.lseMaxAbs, c.nonFinite ? "" : "\n");
                  if (c.nonFinite)
                    std::printf(", %" PRId64 " rows with NaN/inf (first: row %" PRId64 ")\n",
                                c.nonFinite, c.firstNonFinite);
                  if (c.maskedRowsWrong)
                    std::printf("     %" PRId64
                                " values of rows that see no key are not O = 0 / LSE = "
                                "-inf\n",
                                c.maskedRowsWrong);
                }
            }
  }
  std::printf("attention: %s (%d passed, %d failed)\n", failed ? "FAIL" : "PASS", passed, failed);
  return failed ? 1 : 0;
}

// ---------------------------------------------------------------- --self-test
// The reference and the comparison, without a GPU: with every key equal the
// softmax is uniform, so O is the mean of the V rows a query sees and LSE is
// s + ln(count); the rounded reference passes its own bounds, a perturbed
// one fails them, and causal rows that see no key must be 0 / -inf.
int runSelfTest() {
  int bad = 0;
  auto expect = [&](bool ok, const char *what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    bad += ok ? 0 : 1;
  };
  for (DType d : {DType::F16, DType::BF16}) {
    Problem p;
    p.batch = 1;
    p.heads = 2;
    p.kvHeads = 1;
    p.seqQ = 40;
    p.seqK = 24;
    p.dim = 64;
    p.causal = true;
    p.dtype = d;
    std::vector<uint16_t> q = gemm::randomNormal(d, p.qElems(), 7, 1);
    std::vector<uint16_t> k(p.kvElems()), v = gemm::randomNormal(d, p.kvElems(), 7, 3);
    for (size_t i = 0; i < k.size(); ++i) // every key row the same
      k[i] = gemm::toBits(d, float(i % size_t(p.dim) % 7) * 0.25f - 0.5f);
    const attn::Reference r = attn::reference(p, q, k, v);
    double worst = 0;
    int64_t masked = 0;
    for (int64_t row = 0; row < int64_t(p.rowsQ()); ++row) {
      const int64_t i = row % p.seqQ, n = p.keyEnd(i);
      if (n == 0) {
        masked += std::isinf(r.lse[size_t(row)]) && r.lse[size_t(row)] < 0 ? 1 : 0;
        continue;
      }
      double dot = 0;
      for (int64_t c = 0; c < p.dim; ++c)
        dot += double(gemm::fromBits(d, q[size_t(row * p.dim + c)])) *
               double(gemm::fromBits(d, k[size_t(c)]));
      worst = std::max(
          worst, std::fabs(r.lse[size_t(row)] - (dot * p.softmaxScale() + std::log(double(n)))));
      for (int64_t c = 0; c < p.dim; ++c) {
        double mean = 0;
        for (int64_t j = 0; j < n; ++j)
          mean += gemm::fromBits(d, v[size_t(j * p.dim + c)]);
        worst = std::max(worst, std::fabs(r.o[size_t(row * p.dim + c)] - mean / double(n)));
      }
    }
    expect(worst < 1e-9, "uniform softmax: O = mean of the visible V rows, LSE = s + ln(count)");
    expect(masked == 2 * (p.seqQ - p.seqK), "causal Sq > Sk: rows that see no key have LSE -inf");
    std::vector<uint16_t> o(p.qElems());
    std::vector<float> lse(p.lseElems(), 0.0f);
    for (size_t row = 0; row < p.rowsQ(); ++row) {
      for (int64_t c = 0; c < p.dim; ++c)
        o[row * size_t(p.dim) + size_t(c)] =
            gemm::toBits(d, float(r.o[row * size_t(p.dim) + size_t(c)]));
      lse[row / size_t(p.seqQ) * size_t(p.lseRowsPerHead()) + row % size_t(p.seqQ)] =
          float(r.lse[row]);
    }
    expect(attn::compare(p, r, o, lse).pass(d), "the rounded reference passes");
    std::vector<uint16_t> wrong = o;
    wrong[size_t(p.dim) * size_t(p.seqQ - 1) + 3] = gemm::toBits(d, 5.0f); // a visible row
    expect(!attn::compare(p, r, wrong, lse).pass(d), "a wrong element fails");
    std::vector<uint16_t> poisoned = o;
    poisoned.back() = 0xffff; // NaN
    expect(!attn::compare(p, r, poisoned, lse).pass(d), "an unwritten (NaN) element fails");
    std::vector<float> lse0 = lse;
    lse0[0] = 0.0f; // row 0 sees no key: must stay -inf
    expect(!attn::compare(p, r, o, lse0).pass(d), "a masked row's LSE other than -inf fails");
  }
  std::printf("attention --self-test: %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}

// ---------------------------------------------------------------- --bench
int runBench(const Options &o) {
  if (!haveDevice()) {
    std::printf("no CUDA device: compiled only\n");
    return o.skipCode;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr));
  tile::Context ctx(0);
  std::ostringstream md;
  md << "attention forward, B = " << o.batch << ", H = " << o.heads << ", " << ctx.name()
     << "; CUDA-event median of " << o.runs << " runs after " << o.warmup
     << " warm-up runs; TFLOP/s = 4 * unmasked pairs * D / time.\n\n"
     << "| dtype | D | causal | seq | WGS | persistent | tilec us | tilec TFLOP/s | O err "
        "(sampled) |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  bool allPass = true;
  for (DType d : o.dtypes) {
    const std::string ptx = ptxPath(o, d);
    if (!fileExists(ptx)) {
      md << "| " << attn::dtypeName(d) << " | | | | | not built | | |\n";
      continue;
    }
    for (long long dim : o.dims)
      for (long long causal : o.causal) {
        // By (WGS, persistent, CTA order).
        std::map<std::tuple<int64_t, bool, int64_t>, attn::TileKernel> kernels;
        for (long long seq : o.seqs) {
          const int64_t wgs = o.wgs ? o.wgs : attn::consumerWarpgroups(dim, causal != 0, seq);
          const bool pers =
              o.persistent >= 0 ? o.persistent != 0 : attn::persistentKernel(dim, causal != 0, seq);
          const int64_t order = pers ? 0 : attn::ctaOrder(dim, causal != 0, wgs, seq);
          const std::tuple<int64_t, bool, int64_t> key{wgs, pers, order};
          if (!kernels.count(key))
            kernels[key] = attn::loadTileKernel(ctx, ptx, dim, causal != 0, wgs, pers, o.ctas,
                                                {attn::keysPerStage(dim, causal != 0), order});
          attn::TileKernel &k = kernels[key];
          Problem p;
          p.batch = o.batch;
          p.heads = p.kvHeads = o.heads;
          p.seqQ = p.seqK = seq;
          p.dim = dim;
          p.causal = causal != 0;
          p.dtype = d;
          p.blockM = k.blockM;
          std::unique_ptr<Inputs> in = makeInputs(p, o.seed);
          poison(*in);
          const double ms =
              sample::timeWithEvents([] {}, [&] { attn::launchTile(k, p, in->bufs()); }, o.warmup,
                                     o.runs)
                  .median;
          // The result of the timed runs, on the last 128 query rows of the
          // first head (the reference of a whole head at 8k x 8k takes tens of
          // seconds on the CPU). Those rows against the head's keys are a
          // problem of their own: causal masking is bottom-right aligned, so
          // they see the same keys, and they are the rows that see the most.
          Problem one = p;
          one.batch = 1;
          one.heads = one.kvHeads = 1;
          one.seqQ = std::min<int64_t>(p.seqQ, 128);
          const long first = long(p.seqQ - one.seqQ);
          const long n = long(one.qElems()), nkv = long(one.kvElems());
          std::vector<uint16_t> q(in->q.begin() + first * p.dim, in->q.begin() + first * p.dim + n),
              kk(in->k.begin(), in->k.begin() + nkv), v(in->v.begin(), in->v.begin() + nkv);
          const std::vector<uint16_t> outAll = in->dout.toHost();
          const std::vector<float> lseAll = in->dlse.toHost();
          std::vector<uint16_t> out(outAll.begin() + first * p.dim,
                                    outAll.begin() + first * p.dim + n);
          std::vector<float> lse(lseAll.begin() + first, lseAll.begin() + first + one.seqQ);
          lse.resize(size_t(one.lseRowsPerHead()), 0.0f);
          const attn::Comparison c = attn::compare(one, attn::reference(one, q, kk, v), out, lse);
          allPass = allPass && c.pass(d);
          char line[256];
          std::snprintf(line, sizeof line,
                        "| %s | %lld | %s | %lld | %lld | %s | %.1f | %.0f | %.1e%s |\n",
                        attn::dtypeName(d), dim, causal ? "yes" : "no", seq, (long long)wgs,
                        pers ? "yes" : "no", ms * 1e3, p.flops() / (ms * 1e-3) / 1e12,
                        c.oRelFrobenius, c.pass(d) ? "" : " FAIL");
          md << line;
          std::printf("%s", line);
          std::fflush(stdout);
        }
      }
  }
  std::printf("\n%s", md.str().c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << md.str();
  }
  return allPass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  try {
    return o.selfTest ? runSelfTest() : o.bench ? runBench(o) : runCheck(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "attention: %s\n", e.what());
    return 1;
  }
}
