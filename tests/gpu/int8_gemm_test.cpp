// Integer GEMMs on the tensor cores (int8_gemm.tile): wgmma .s8/.u8 into
// an s32 accumulator.
//  - gemm_s32 against a CPU int64 reference reduced modulo 2^32 (wgmma's
//    s32 sums wrap): every element, on fresh random data, for s8 x s8,
//    u8 x s8, s8 x u8 and u8 x u8, at a shape with M, N and K tails
//    (partial clusters and tiles, a zero-filled K tail) and both tile
//    widths; and a u8 x u8 product of all 255s whose exact sum passes 2^31
//    (it must wrap).
//  - gemm_dequant (C = (A B as f32) * scale_a[i] * scale_b[j] in bf16)
//    bit-exact against the same f32 operations on the host, and within
//    2^-8 relative of the float64 product.
//  - "[int8_bench]" (not a ctest; run by hand): M = N = K = 4096, the time
//    of both kernels against the H200's dense int8 peak (1979 TOPS), with
//    sampled exactness.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

namespace {

struct Problem {
  int64_t m, n, k;
  bool aUnsigned, bUnsigned;
  std::vector<uint8_t> a, b; // A [m, k], B [n, k] (K-major), raw bytes
};

int64_t value(uint8_t byte, bool isUnsigned) {
  return isUnsigned ? int64_t(byte) : int64_t(int8_t(byte));
}

/// (A B)[i, j] in int64.
int64_t exactDot(const Problem &p, int64_t i, int64_t j) {
  int64_t s = 0;
  const uint8_t *a = &p.a[size_t(i * p.k)], *b = &p.b[size_t(j * p.k)];
  for (int64_t x = 0; x < p.k; ++x)
    s += value(a[x], p.aUnsigned) * value(b[x], p.bUnsigned);
  return s;
}

/// The s32 wgmma computes: the int64 sum modulo 2^32, as a signed value.
int32_t wrapped(int64_t s) { return int32_t(uint32_t(uint64_t(s))); }

Problem randomProblem(int64_t m, int64_t n, int64_t k, bool au, bool bu, std::mt19937_64 &rng) {
  Problem p{
      m, n, k, au, bu, std::vector<uint8_t>(size_t(m * k)), std::vector<uint8_t>(size_t(n * k))};
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto &x : p.a)
    x = uint8_t(byte(rng));
  for (auto &x : p.b)
    x = uint8_t(byte(rng));
  return p;
}

const char *typeName(bool isUnsigned) { return isUnsigned ? "u8" : "i8"; }
tile::TensorElement element(bool isUnsigned) {
  return isUnsigned ? tile::TensorElement::U8 : tile::TensorElement::I8;
}

struct Device {
  tile::DeviceBuffer<uint8_t> a, b;
  explicit Device(const Problem &p) : a(p.a.size()), b(p.b.size()) {
    a.copyFrom(p.a);
    b.copyFrom(p.b);
  }
};

/// A persistent launch: as many clusters of 2 as fit, at most one per unit.
tile::LaunchConfig persistent(const Problem &p, int64_t bn, int clusters) {
  const int64_t units = ((p.m + 255) / 256) * ((p.n + bn - 1) / bn);
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(2 * std::max<int64_t>(1, std::min<int64_t>(clusters, units))));
  cfg.block = tile::Dim3(384);
  return cfg;
}

struct S32Run {
  tile::Kernel k;
  tile::Tensor ta, tb;
  tile::DeviceBuffer<int32_t> c;
  tile::LaunchConfig cfg;
  S32Run(const tile::Module &mod, const Problem &p, Device &d, int64_t bn)
      : k(mod.kernel("gemm_s32", {{"BN", bn}},
                     {{"TA", typeName(p.aUnsigned)}, {"TB", typeName(p.bUnsigned)}})),
        ta(d.a.ptr(), element(p.aUnsigned), {p.m, p.k}),
        tb(d.b.ptr(), element(p.bUnsigned), {p.n, p.k}), c(size_t(p.m * p.n)) {
    tile::LaunchConfig probe;
    probe.grid = tile::Dim3(2);
    probe.block = tile::Dim3(384);
    int clusters = k.maxActiveClusters(probe, ta, tb, c, int32_t(p.n));
    REQUIRE(clusters >= 1);
    cfg = persistent(p, bn, clusters);
  }
  void launch(const Problem &p) { k.launch(cfg, ta, tb, c, int32_t(p.n)); }
};

struct DequantRun {
  tile::Kernel k;
  tile::DeviceBuffer<uint16_t> c;
  tile::DeviceBuffer<float> sa, sb;
  tile::Tensor ta, tb, tc;
  tile::LaunchConfig cfg;
  DequantRun(const tile::Module &mod, const Problem &p, Device &d, int64_t bn,
             const std::vector<float> &scaleA, const std::vector<float> &scaleB)
      : k(mod.kernel("gemm_dequant", {{"BN", bn}},
                     {{"TA", typeName(p.aUnsigned)}, {"TB", typeName(p.bUnsigned)}})),
        c(size_t(p.m * p.n)), sa(scaleA.size()), sb(scaleB.size()),
        ta(d.a.ptr(), element(p.aUnsigned), {p.m, p.k}),
        tb(d.b.ptr(), element(p.bUnsigned), {p.n, p.k}),
        tc(c.ptr(), tile::TensorElement::BF16, {p.m, p.n}) {
    sa.copyFrom(scaleA);
    sb.copyFrom(scaleB);
    tile::LaunchConfig probe;
    probe.grid = tile::Dim3(2);
    probe.block = tile::Dim3(384);
    int clusters = k.maxActiveClusters(probe, ta, tb, tc, sa, sb);
    REQUIRE(clusters >= 1);
    cfg = persistent(p, bn, clusters);
  }
  void launch() { k.launch(cfg, ta, tb, tc, sa, sb); }
};

/// The scales, padded (the kernel reads up to a multiple of 256 rows and of
/// BN columns): powers of two times a random mantissa, like a quantizer's.
std::vector<float> scales(int64_t n, int64_t pad, std::mt19937_64 &rng) {
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  std::vector<float> s(size_t((n + pad - 1) / pad * pad));
  for (auto &x : s)
    x = u(rng) * std::ldexp(1.0f, -10);
  return s;
}

void skipWithoutDevice() {
  if (tile::deviceCount() == 0) {
    WARN("SKIP: no CUDA device");
    std::exit(77);
  }
}

/// The correctness cases' M, N, K: tails everywhere (a partial cluster of
/// row tiles, a partial column tile, a zero-filled K tail); smaller under
/// compute-sanitizer.
std::tuple<int64_t, int64_t, int64_t> checkShape() {
  return ported::small() ? std::tuple<int64_t, int64_t, int64_t>{136, 136, 208}
                         : std::tuple<int64_t, int64_t, int64_t>{328, 264, 464};
}

tile::Module loadModule(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("int8_gemm"));
}

} // namespace

TEST_CASE("integer wgmma GEMM: s32 results exact (wrapping) for s8/u8 operands", "[int8]") {
  skipWithoutDevice();
  tile::Context ctx(0);
  tile::Module mod = loadModule(ctx);
  auto rng = ported::freshRng();
  const auto [m, n, k] = checkShape();
  for (auto [au, bu] : {std::pair{false, false}, {true, false}, {false, true}, {true, true}})
    for (int64_t bn : {256, 128}) {
      Problem p = randomProblem(m, n, k, au, bu, rng);
      Device d(p);
      S32Run run(mod, p, d, bn);
      run.c.copyFrom(std::vector<int32_t>(size_t(m * n), 0x7eadbeef));
      run.launch(p);
      ctx.synchronize();
      std::vector<int32_t> got(size_t(m * n));
      got = run.c.toHost();
      size_t bad = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int32_t want = wrapped(exactDot(p, i, j));
          if (got[size_t(i * n + j)] != want && bad++ < 5)
            UNSCOPED_INFO(typeName(au)
                          << " x " << typeName(bu) << " BN " << bn << ": C[" << i << ", " << j
                          << "] = " << got[size_t(i * n + j)] << ", expected " << want);
        }
      INFO(typeName(au) << " x " << typeName(bu) << " BN " << bn << ", " << m << " x " << n << " x "
                        << k);
      CHECK(bad == 0);
    }
  // u8 x u8, every byte 255: each sum is 65025 K, past 2^31 for K > 33026;
  // wgmma's s32 accumulation wraps modulo 2^32 (no .satfinite).
  {
    const int64_t kw = ported::small() ? 33280 : 34048;
    Problem p{128,
              128,
              kw,
              true,
              true,
              std::vector<uint8_t>(size_t(128 * kw), 255),
              std::vector<uint8_t>(size_t(128 * kw), 255)};
    Device d(p);
    S32Run run(mod, p, d, 128);
    run.launch(p);
    ctx.synchronize();
    std::vector<int32_t> got(size_t(128 * 128));
    got = run.c.toHost();
    const int64_t exact = 65025 * kw;
    REQUIRE(exact > INT32_MAX);
    const int32_t want = wrapped(exact);
    INFO("sum of " << kw << " products 255 * 255 = " << exact << ", wrapped " << want);
    CHECK(std::count(got.begin(), got.end(), want) == int64_t(got.size()));
  }
}

TEST_CASE("integer wgmma GEMM: the dequantizing epilogue in bf16", "[int8]") {
  skipWithoutDevice();
  tile::Context ctx(0);
  tile::Module mod = loadModule(ctx);
  auto rng = ported::freshRng();
  const auto [m, n, k] = checkShape();
  for (auto [au, bu] : {std::pair{false, false}, {true, false}}) {
    Problem p = randomProblem(m, n, k, au, bu, rng);
    Device d(p);
    std::vector<float> sa = scales(m, 256, rng), sb = scales(n, 256, rng);
    DequantRun run(mod, p, d, 256, sa, sb);
    run.launch();
    ctx.synchronize();
    std::vector<uint16_t> got(size_t(m * n));
    got = run.c.toHost();
    size_t bits = 0;
    ported::ErrorCount near("C");
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t s = exactDot(p, i, j);
        // The kernel's operations: cvt.rn.f32.s32, two f32 products, bf16.
        float f = float(int32_t(s)) * sa[size_t(i)] * sb[size_t(j)];
        uint16_t want = ported::bf16Bits(f);
        size_t at = size_t(i * n + j);
        if (got[at] != want && bits++ < 5)
          UNSCOPED_INFO("C[" << i << ", " << j << "] bits " << got[at] << ", expected " << want);
        double exact = double(s) * sa[size_t(i)] * sb[size_t(j)];
        near.check(at, ported::bf16Value(got[at]), exact, std::ldexp(std::fabs(exact), -8));
      }
    INFO(typeName(au) << " x " << typeName(bu) << ", " << m << " x " << n << " x " << k);
    CHECK(bits == 0);
    CHECK(near.bad() == 0);
  }
}

TEST_CASE("integer wgmma GEMM: 4096^3 against the dense int8 peak", "[int8_bench][.]") {
  skipWithoutDevice();
  tile::Context ctx(0);
  tile::Module mod = loadModule(ctx);
  auto rng = ported::freshRng();
  const int64_t s = 4096;
  const double peakTops = 1979.0; // H200 SXM dense INT8
  Problem p = randomProblem(s, s, s, false, false, rng);
  Device d(p);
  std::vector<float> sa = scales(s, 256, rng), sb = scales(s, 256, rng);
  auto time = [&](auto &&launch) {
    for (int i = 0; i < 5; ++i)
      launch();
    ctx.synchronize();
    tile::EventTimer t;
    const int runs = 20;
    t.start();
    for (int i = 0; i < runs; ++i)
      launch();
    return double(t.stopMs()) / runs;
  };
  std::uniform_int_distribution<int64_t> idx(0, s - 1);
  for (int64_t bn : {256, 128}) {
    S32Run run(mod, p, d, bn);
    double ms = time([&] { run.launch(p); });
    std::vector<int32_t> got(size_t(s * s));
    got = run.c.toHost();
    size_t bad = 0;
    for (int x = 0; x < 4000; ++x) {
      int64_t i = idx(rng), j = idx(rng);
      bad += got[size_t(i * s + j)] != wrapped(exactDot(p, i, j));
    }
    double tops = 2.0 * s * s * s / (ms * 1e-3) / 1e12;
    std::printf(
        "INT8BENCH gemm_s32 BN=%lld %.4f ms %.1f TOPS %.3f of peak, sampled mismatches %zu\n",
        (long long)bn, ms, tops, tops / peakTops, bad);
    CHECK(bad == 0);
  }
  for (int64_t bn : {256}) {
    DequantRun run(mod, p, d, bn, sa, sb);
    double ms = time([&] { run.launch(); });
    std::vector<uint16_t> got(size_t(s * s));
    got = run.c.toHost();
    size_t bad = 0;
    for (int x = 0; x < 4000; ++x) {
      int64_t i = idx(rng), j = idx(rng);
      float f = float(int32_t(exactDot(p, i, j))) * sa[size_t(i)] * sb[size_t(j)];
      bad += got[size_t(i * s + j)] != ported::bf16Bits(f);
    }
    double tops = 2.0 * s * s * s / (ms * 1e-3) / 1e12;
    std::printf(
        "INT8BENCH gemm_dequant BN=%lld %.4f ms %.1f TOPS %.3f of peak, sampled mismatches %zu\n",
        (long long)bn, ms, tops, tops / peakTops, bad);
    CHECK(bad == 0);
  }
}
