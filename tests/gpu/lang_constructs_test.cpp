// GPU test of lang_constructs.tile on fresh random data, against CPU
// references: barriers that reduce (every thread of a block, or of a role,
// sees the block's / role's count, and, or), i32 fragments (the ALiBi bias
// with a causal sliding window and the integer operators with the scalar
// rules: wrapping, x / 0 = -1, x % 0 = x, shift amounts read unsigned) bit
// for bit, and pow on f32 (within 4 ulp of float64, IEEE pow's special cases
// exact), f16 and bf16 (the f32 result rounded once) and fragments.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

tile::Module langModule(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("lang_constructs_gpu"));
}

// --------------------------------------------------------------- barriers

TEST_CASE("sync_threads_count/and/or give every thread its block's reduction", "[lang]") {
  tile::Context ctx(0);
  tile::Module mod = langModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 4 : 96, T = 256;
  std::uniform_int_distribution<int> vd(-50, 50), td(0, 40);
  const int t = td(rng);
  std::vector<int32_t> x(size_t(B) * T);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < T; ++i) {
      int v = vd(rng);
      if (b % 3 == 0) // every v > -t: `and` true; no v == t: `or` false
        v = v <= -t || v == t ? t + 1 : v;
      x[size_t(b) * T + size_t(i)] = v;
    }
  tile::DeviceBuffer<int32_t> dX(x.size()), dOut(x.size() * 3);
  dX.copyFrom(x);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(unsigned(T));
  cfg.grid = tile::Dim3(unsigned(B));
  mod.kernel("barrier_reduce").launch(cfg, dOut.ptr(), dX.ptr(), int32_t(t));
  ctx.synchronize();
  auto out = dOut.toHost();
  size_t bad = 0;
  int allTrue = 0, anyFalse = 0;
  for (int b = 0; b < B; ++b) {
    int n = 0, all = 1, any = 0;
    for (int i = 0; i < T; ++i) {
      int v = x[size_t(b) * T + size_t(i)];
      n += v > t;
      all &= v > -t;
      any |= v == t;
    }
    allTrue += all;
    anyFalse += !any;
    for (int i = 0; i < T; ++i) {
      size_t o = (size_t(b) * T + size_t(i)) * 3;
      if ((out[o] != n || out[o + 1] != all || out[o + 2] != any) && bad++ < 5)
        UNSCOPED_INFO("block " << b << " thread " << i << ": " << out[o] << " " << out[o + 1]
                               << " " << out[o + 2] << ", expected " << n << " " << all << " "
                               << any);
    }
  }
  CHECK(allTrue > 0); // both outcomes of `and` and `or` occur
  CHECK(anyFalse > 0);
  CHECK(bad == 0);
}

TEST_CASE("a role's reducing barrier reduces over the role's threads", "[lang]") {
  tile::Context ctx(0);
  tile::Module mod = langModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 32, T = 384;
  std::uniform_int_distribution<int> vd(-20, 20);
  const int t = 3;
  std::vector<int32_t> x(size_t(B) * T);
  for (auto &v : x)
    v = vd(rng);
  tile::DeviceBuffer<int32_t> dX(x.size()), dOut(x.size());
  dX.copyFrom(x);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(unsigned(T));
  cfg.grid = tile::Dim3(unsigned(B));
  mod.kernel("role_reduce").launch(cfg, dOut.ptr(), dX.ptr(), int32_t(t));
  ctx.synchronize();
  auto out = dOut.toHost();
  size_t bad = 0;
  for (int b = 0; b < B; ++b)
    for (int role = 0; role < 2; ++role) {
      int lo = role == 0 ? 0 : 128, hi = role == 0 ? 128 : 384, n = 0, eq = 0;
      for (int i = lo; i < hi; ++i) {
        n += x[size_t(b) * T + size_t(i)] > t;
        eq |= x[size_t(b) * T + size_t(i)] == t;
      }
      int want = n + (eq ? 1000 : 0);
      for (int i = lo; i < hi; ++i)
        if (out[size_t(b) * T + size_t(i)] != want && bad++ < 5)
          UNSCOPED_INFO("block " << b << " thread " << i << ": " << out[size_t(b) * T + size_t(i)]
                                 << ", expected " << want);
    }
  CHECK(bad == 0);
}

// ------------------------------------------------------------ i32 fragments

int32_t wrap(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }
int32_t divide(int32_t x, int32_t d) { // docs/reference/operators.md "Integers"
  if (d == 0)
    return -1;
  if (x == INT32_MIN && d == -1)
    return INT32_MIN;
  return x / d;
}
int32_t remainder(int32_t x, int32_t d) {
  if (d == 0)
    return x;
  if (x == INT32_MIN && d == -1)
    return 0;
  return x % d;
}
int32_t shl(int32_t x, int32_t n) { return uint32_t(n) >= 32 ? 0 : int32_t(uint32_t(x) << n); }
int32_t shr(int32_t x, int32_t n) { return x >> std::min(uint32_t(n), 31u); }
int32_t toI32(float f) { // cvt.rzi.s32.f32: toward zero, saturated, NaN -> 0
  if (std::isnan(f))
    return 0;
  if (f >= 2147483648.0f)
    return INT32_MAX;
  if (f <= -2147483648.0f)
    return INT32_MIN;
  return int32_t(f);
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

struct IntParams {
  int32_t m0, n0, w, d, sh;
  float slope;
};

void checkIntFragment(tile::Context &ctx, tile::Module &mod, const IntParams &p) {
  INFO("m0 " << p.m0 << " n0 " << p.n0 << " w " << p.w << " d " << p.d << " sh " << p.sh
             << " slope " << p.slope);
  const int M = 128, N = 64, K = 8;
  tile::DeviceBuffer<float> dOut(size_t(K) * M * N);
  tile::DeviceBuffer<uint16_t> dOut16(size_t(M) * N);
  dOut.fillBytes(0xA5);
  dOut16.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  mod.kernel("int_fragment")
      .launch(cfg, dOut.ptr(), dOut16.ptr(), p.m0, p.n0, p.w, p.d, p.sh, p.slope);
  ctx.synchronize();
  auto out = dOut.toHost();
  auto out16 = dOut16.toHost();
  size_t bad[K + 1] = {};
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      size_t i = size_t(r) * N + size_t(c);
      int32_t rel = wrap(int64_t(wrap(int64_t(c) + p.n0)) - int64_t(wrap(int64_t(r) + p.m0)));
      int32_t neg = wrap(-int64_t(rel));
      int32_t mag = rel == INT32_MIN ? INT32_MIN : std::abs(rel); // abs.s32
      float bias = rel > 0 || neg >= p.w ? -INFINITY : -p.slope * float(mag);
      float want[K] = {
          0.0f + bias,
          float(divide(rel, p.d)),
          float(remainder(rel, p.d)),
          float(shl(rel, p.sh)),
          float(shr(rel, p.sh)),
          float((rel & 7) | (rel ^ p.sh)),
          float(wrap(int64_t(std::min(rel, p.d)) * std::max(neg, p.d) +
                     int64_t(wrap(int64_t(wrap(int64_t(rel) * 65599)) * 65599)))),
          float(wrap(int64_t(toI32(0.0f + 0.75f * float(rel))) - rel)),
      };
      for (int k = 0; k < K; ++k) {
        float got = out[size_t(k) * M * N + i];
        if (bitsOf(got) != bitsOf(want[k]) && bad[k]++ < 3)
          UNSCOPED_INFO("output " << k << " [" << r << ", " << c << "] (rel " << rel
                                  << ") = " << got << ", expected " << want[k]);
      }
      uint16_t want16 =
          uint16_t(tile::floatBits(tile::ScalarType::F16, double(wrap(int64_t(rel) * 37))));
      if (out16[i] != want16 && bad[K]++ < 3)
        UNSCOPED_INFO("f16 [" << r << ", " << c << "] = 0x" << std::hex << out16[i]
                              << ", expected 0x" << want16 << std::dec);
    }
  for (int k = 0; k <= K; ++k) {
    INFO("output " << k);
    CHECK(bad[k] == 0);
  }
}

TEST_CASE("i32 fragments: ALiBi, masks and the integer rules bit for bit", "[lang]") {
  tile::Context ctx(0);
  tile::Module mod = langModule(ctx);
  auto rng = ported::freshRng();
  std::vector<IntParams> sets = {
      {0, 0, 16, 3, 5, 0.5f},
      {7, -100, 1, 0, 33, 0.0625f},      // x / 0, x % 0, shifts past 31
      {-5, 1000, 1 << 30, -1, 31, 0.25f},
      {INT32_MAX - 60, INT32_MIN + 10, 0, -7, -1, 1.0f}, // rel wraps; amount -1 = 2^32-1
  };
  std::uniform_int_distribution<int32_t> small(-300, 300), any(INT32_MIN, INT32_MAX),
      amount(-40, 40);
  for (int i = 0; i < 4; ++i)
    sets.push_back({small(rng), small(rng), small(rng) + 300, i % 2 ? any(rng) : small(rng),
                    amount(rng), std::ldexp(1.0f, -int(i))});
  for (const IntParams &p : sets)
    checkIntFragment(ctx, mod, p);
}

// -------------------------------------------------------------------- pow

// The error of f32 `got` against the float64 `want` in ulps of f32 at want
// (the subnormal quantum below 2^-126); a result past the largest float is
// right as inf and measured against FLT_MAX otherwise.
double powUlps(double want, float got) {
  if (std::isnan(want))
    return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got))
    return INFINITY;
  if (std::isinf(got)) {
    bool beyond = std::fabs(want) >= double(FLT_MAX);
    return (std::signbit(got) == std::signbit(want) && beyond) ? 0 : INFINITY;
  }
  if (std::isinf(want))
    return INFINITY;
  if (got == 0 && want == 0 && std::signbit(got) != std::signbit(want))
    return INFINITY; // pow(-0, 3) = -0
  int e = 0;
  std::frexp(want, &e);
  double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(double(got) - want) / ulp;
}

/// 16-bit results: the f32 pow (within 4 ulp) rounded once to the format.
bool pow16Ok(tile::ScalarType t, double want, uint16_t got) {
  double g = tile::floatValue(t, got);
  if (std::isnan(want))
    return std::isnan(g);
  uint16_t rn = uint16_t(tile::floatBits(t, want));
  if (got == rn)
    return true;
  // Near a rounding boundary the f32 error may pick the neighbour: accept
  // a result that rounds from some f32 within 4 ulp of the reference.
  int e = 0;
  std::frexp(want, &e);
  double slack = 4 * std::ldexp(1.0, std::max(e - 24, -149));
  for (double v : {want - slack, want + slack})
    if (uint16_t(tile::floatBits(t, v)) == got)
      return true;
  return false;
}

std::vector<float> powSpecials() {
  return {0.0f,  -0.0f, 1.0f,  -1.0f, 2.0f,      -2.0f,     0.5f,   -0.5f,    INFINITY,
          -INFINITY, NAN, 1e-40f, -1e-40f, 3e38f, -3e38f, 1.0000001f, 0.9999999f, 10.0f,
          3.0f,  -3.0f, 0.3333333f, 127.0f, -149.0f, 1e10f, -1e10f, 2.5f, 1e-7f};
}

TEST_CASE("pow on f32, f16 and bf16: IEEE special cases and the ulp bound", "[lang]") {
  tile::Context ctx(0);
  tile::Module mod = langModule(ctx);
  auto rng = ported::freshRng();
  std::vector<float> xs, ys;
  for (float a : powSpecials())
    for (float b : powSpecials()) {
      xs.push_back(a);
      ys.push_back(b);
    }
  const size_t specials = xs.size();
  const size_t n = specials + (ported::small() ? 2000 : 400000);
  std::uniform_real_distribution<double> ex(-40.0, 40.0), yd(-30.0, 30.0);
  std::uniform_int_distribution<int> coin(0, 3), yi(-40, 40);
  while (xs.size() < n) {
    float x = float(std::exp2(ex(rng))) * (coin(rng) == 0 ? -1.0f : 1.0f);
    float y = coin(rng) == 1 ? float(yi(rng)) : float(yd(rng)) / float(1 + std::fabs(ex(rng)));
    xs.push_back(x);
    ys.push_back(y);
  }
  std::vector<uint16_t> xh(n), yh(n), xb(n), yb(n);
  for (size_t i = 0; i < n; ++i) {
    // 16-bit operands: the f32 ones rounded, their exponent range kept small
    // enough for f16 on the random part.
    double xr = i < specials ? double(xs[i]) : std::fmod(double(xs[i]), 300.0);
    double yr = i < specials ? double(ys[i]) : double(ys[i]) / 4.0;
    xh[i] = uint16_t(tile::floatBits(tile::ScalarType::F16, xr));
    yh[i] = uint16_t(tile::floatBits(tile::ScalarType::F16, yr));
    xb[i] = uint16_t(tile::floatBits(tile::ScalarType::BF16, double(xs[i])));
    yb[i] = uint16_t(tile::floatBits(tile::ScalarType::BF16, double(ys[i])));
  }
  tile::DeviceBuffer<float> dX(n), dY(n), dOut(n);
  tile::DeviceBuffer<uint16_t> dXh(n), dYh(n), dOh(n), dXb(n), dYb(n), dOb(n);
  dX.copyFrom(xs);
  dY.copyFrom(ys);
  dXh.copyFrom(xh);
  dYh.copyFrom(yh);
  dXb.copyFrom(xb);
  dYb.copyFrom(yb);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned((n + 255) / 256));
  mod.kernel("pow_scalar")
      .launch(cfg, dOut.ptr(), dX.ptr(), dY.ptr(), dOh.ptr(), dXh.ptr(), dYh.ptr(), dOb.ptr(),
              dXb.ptr(), dYb.ptr(), int32_t(n));
  ctx.synchronize();
  auto out = dOut.toHost();
  auto oh = dOh.toHost();
  auto ob = dOb.toHost();
  double worst = 0;
  size_t worstAt = 0, badSpecial = 0, bad32 = 0, bad16 = 0, badB = 0;
  for (size_t i = 0; i < n; ++i) {
    double want = std::pow(double(xs[i]), double(ys[i]));
    double e = powUlps(want, out[i]);
    if (i < specials) {
      // The special cases are exact: the reference's own float.
      float w = float(want);
      bool exact = std::isnan(w) ? std::isnan(out[i]) : bitsOf(out[i]) == bitsOf(w);
      bool special = !std::isfinite(want) || want == 0 || want == 1 || std::isnan(double(xs[i])) ||
                     std::isnan(double(ys[i])) || !std::isfinite(xs[i]) || !std::isfinite(ys[i]) ||
                     xs[i] == 0 || ys[i] == 0;
      if (special && !exact && badSpecial++ < 8)
        UNSCOPED_INFO("pow(" << xs[i] << ", " << ys[i] << ") = " << out[i] << ", expected " << w);
    }
    if (e > worst && !std::isinf(e)) {
      worst = e;
      worstAt = i;
    }
    if (!(e <= 4.0) && bad32++ < 8)
      UNSCOPED_INFO("pow(" << xs[i] << ", " << ys[i] << ") = " << out[i] << ", expected "
                           << want << " (" << e << " ulp)");
    double xhv = tile::floatValue(tile::ScalarType::F16, xh[i]);
    double yhv = tile::floatValue(tile::ScalarType::F16, yh[i]);
    if (!pow16Ok(tile::ScalarType::F16, std::pow(xhv, yhv), oh[i]) && bad16++ < 5)
      UNSCOPED_INFO("f16 pow(" << xhv << ", " << yhv << ") = "
                               << tile::floatValue(tile::ScalarType::F16, oh[i]) << ", expected "
                               << std::pow(xhv, yhv));
    double xbv = tile::floatValue(tile::ScalarType::BF16, xb[i]);
    double ybv = tile::floatValue(tile::ScalarType::BF16, yb[i]);
    if (!pow16Ok(tile::ScalarType::BF16, std::pow(xbv, ybv), ob[i]) && badB++ < 5)
      UNSCOPED_INFO("bf16 pow(" << xbv << ", " << ybv << ") = "
                                << tile::floatValue(tile::ScalarType::BF16, ob[i])
                                << ", expected " << std::pow(xbv, ybv));
  }
  WARN("pow f32: worst " << worst << " ulp at pow(" << xs[worstAt] << ", " << ys[worstAt]
                         << ") over " << n << " inputs");
  CHECK(badSpecial == 0);
  CHECK(bad32 == 0);
  CHECK(bad16 == 0);
  CHECK(badB == 0);
}

TEST_CASE("pow on fragments is the scalar pow per element", "[lang]") {
  tile::Context ctx(0);
  tile::Module mod = langModule(ctx);
  auto rng = ported::freshRng();
  const int M = 64, N = 64;
  std::uniform_real_distribution<double> ex(-8.0, 8.0), yd(-6.0, 6.0);
  std::uniform_int_distribution<int> coin(0, 3);
  std::vector<float> x(size_t(M) * N), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = float(std::exp2(ex(rng))) * (coin(rng) == 0 ? -1.0f : 1.0f);
    y[i] = coin(rng) == 1 ? float(int(yd(rng))) : float(yd(rng));
  }
  x[0] = 0.0f; // a few special cases through the fragment path too
  y[0] = -1.0f;
  x[1] = -8.0f;
  y[1] = 1.0f / 3.0f;
  x[2] = NAN;
  y[2] = 0.0f;
  for (float e : {2.5f, 3.0f, -0.5f}) {
    INFO("e = " << e);
    tile::DeviceBuffer<float> dX(x.size()), dY(y.size()), dOut(3 * x.size());
    dX.copyFrom(x);
    dY.copyFrom(y);
    dOut.fillBytes(0xA5);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(128);
    cfg.grid = tile::Dim3(1);
    mod.kernel("pow_fragment").launch(cfg, dOut.ptr(), dX.ptr(), dY.ptr(), e);
    ctx.synchronize();
    auto out = dOut.toHost();
    size_t bad = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      double want[3] = {std::pow(double(x[i]), double(e)), std::pow(2.0, double(x[i])),
                        std::pow(double(x[i]), double(y[i]))};
      for (int k = 0; k < 3; ++k) {
        double u = powUlps(want[k], out[size_t(k) * x.size() + i]);
        if (!(u <= 4.0) && bad++ < 5)
          UNSCOPED_INFO("result " << k << " at " << i << " (x " << x[i] << ", y " << y[i]
                                  << ") = " << out[size_t(k) * x.size() + i] << ", expected "
                                  << want[k]);
      }
    }
    CHECK(bad == 0);
  }
}

} // namespace
