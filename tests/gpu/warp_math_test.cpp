// GPU tests of the warp-level operations and math functions (warp_math.tile).
// Warp ops: bit for bit against a CPU model of the PTX rules (shfl.sync's
// segment/clamp formula, vote, redux, match, %lanemask). Math: every accurate
// f32 function against a double reference within the ulp bound that
// docs/reference/warp-and-math.md states, on edge cases and fresh random values; the
// approximate forms within the PTX bounds on their documented ranges.
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/warp_math.ptx";
}
uint64_t freshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}
const uint64_t kSeed = freshSeed();

// ---------------------------------------------------------------- warp model

// shfl.sync (PTX ISA 9.7.9.6) for one lane: b and c as PTX reads them.
template <class T> T shfl(const T *warp, int lane, int mode, uint32_t b, uint32_t c) {
  int bval = b & 31, segmask = (c >> 8) & 31, cval = c & 31;
  int maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask;
  int j = lane;
  bool ok = false;
  switch (mode) {
  case 0: // up
    j = lane - bval;
    ok = j >= maxLane;
    break;
  case 1: // down
    j = lane + bval;
    ok = j <= maxLane;
    break;
  case 2: // bfly
    j = lane ^ bval;
    ok = j <= maxLane;
    break;
  default: // idx
    j = minLane | (bval & ~segmask);
    ok = j <= maxLane;
  }
  return warp[ok ? j : lane];
}
// The width -> c rule of docs/reference/warp-and-math.md: clamp to 1..32, round down to a power of two.
uint32_t segment(int width, int mode) {
  int w = std::min(std::max(width, 1), 32);
  int p = 1;
  while (p * 2 <= w)
    p *= 2;
  return (static_cast<uint32_t>(32 - p) << 8) | (mode == 0 ? 0u : 31u);
}

void checkWarpOps(int width) {
  INFO("seed " << kSeed << ", run-time width " << width);
  std::mt19937_64 rng(kSeed ^ static_cast<uint64_t>(width * 7919));
  constexpr int n = 128, k = 40;
  std::vector<int32_t> a(n);
  std::vector<int64_t> q(n);
  std::vector<uint16_t> h(n);
  for (int t = 0; t < n; ++t) {
    a[t] = static_cast<int32_t>(rng());
    if (t % 5 == 0)
      a[t] &= 0xff; // small values too
    q[t] = static_cast<int64_t>(rng());
    h[t] = static_cast<uint16_t>(rng());
  }
  a[3] = std::numeric_limits<int32_t>::min();
  a[40] = std::numeric_limits<int32_t>::max();
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<int32_t> dOut(n * k), dA(n);
  tile::DeviceBuffer<int64_t> dQ(n), dQOut(n);
  tile::DeviceBuffer<uint16_t> dH(n), dHOut(n);
  dA.copyFrom(a);
  dQ.copyFrom(q);
  dH.copyFrom(h);
  tile::LaunchConfig c;
  c.block = tile::Dim3(n);
  c.grid = tile::Dim3(1);
  m.kernel("warp_ops")
      .launch(c, dOut.ptr(), dA.ptr(), dQ.ptr(), dH.ptr(), dQOut.ptr(), dHOut.ptr(),
              static_cast<int32_t>(width));
  ctx.synchronize();
  std::vector<int32_t> out = dOut.toHost();
  std::vector<int64_t> qOut = dQOut.toHost();
  std::vector<uint16_t> hOut = dHOut.toHost();

  for (int t = 0; t < n; ++t) {
    int lane = t % 32, base = t - lane;
    const int32_t *wa = &a[base];
    auto got = [&](int j) { return out[t * k + j]; };
    INFO("thread " << t);
    CHECK(got(0) == shfl(wa, lane, 0, 1, segment(32, 0)));
    CHECK(got(1) == shfl(wa, lane, 0, 3, segment(8, 0)));
    CHECK(got(2) == shfl(wa, lane, 1, 5, segment(32, 1)));
    CHECK(got(3) == shfl(wa, lane, 1, 2, segment(16, 1)));
    CHECK(got(4) == shfl(wa, lane, 2, 7, segment(32, 2)));
    CHECK(got(5) == shfl(wa, lane, 2, 1, segment(4, 2)));
    CHECK(got(6) == shfl(wa, lane, 3, 9, segment(32, 3)));
    CHECK(got(7) == shfl(wa, lane, 3, 33, segment(32, 3)));
    CHECK(got(8) == shfl(wa, lane, 3, 2, segment(8, 3)));
    CHECK(got(9) == shfl(wa, lane, 3, 3, segment(width, 3)));
    CHECK(got(10) == shfl(wa, lane, 1, 1, segment(width, 1)));
    CHECK(got(11) == shfl(wa, lane, 0, static_cast<uint32_t>(-1), segment(32, 0)));
    bool any = false, all = true;
    uint32_t ballot = 0, andv = ~0u, orv = 0, xorv = 0;
    int32_t mn = std::numeric_limits<int32_t>::max(), mx = std::numeric_limits<int32_t>::min();
    uint32_t sum = 0;
    for (int l = 0; l < 32; ++l) {
      int32_t v = wa[l];
      any |= v > 1000000;
      all &= v > -2000000000;
      ballot |= static_cast<uint32_t>(v & 1) << l;
      sum += static_cast<uint32_t>(v);
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      andv &= static_cast<uint32_t>(v);
      orv |= static_cast<uint32_t>(v);
      xorv ^= static_cast<uint32_t>(v);
    }
    CHECK(got(12) == static_cast<int32_t>(any));
    CHECK(got(13) == static_cast<int32_t>(all));
    CHECK(static_cast<uint32_t>(got(14)) == ballot);
    CHECK(static_cast<uint32_t>(got(15)) == sum); // wraps
    CHECK(got(16) == mn);
    CHECK(got(17) == mx);
    CHECK(static_cast<uint32_t>(got(18)) == andv);
    CHECK(static_cast<uint32_t>(got(19)) == orv);
    CHECK(static_cast<uint32_t>(got(20)) == xorv);
    uint32_t matchAny = 0, matchAny64 = 0;
    bool allSame = true;
    for (int l = 0; l < 32; ++l) {
      matchAny |= static_cast<uint32_t>((wa[l] & 3) == (a[t] & 3)) << l;
      matchAny64 |= static_cast<uint32_t>((q[base + l] & 3) == (q[t] & 3)) << l;
      allSame &= wa[l] == wa[0];
    }
    CHECK(static_cast<uint32_t>(got(21)) == matchAny);
    CHECK(static_cast<uint32_t>(got(22)) == (t / 32 == 1 || allSame ? 0xffffffffu : 0u));
    CHECK(static_cast<uint32_t>(got(23)) == matchAny64);
    uint32_t eq = 1u << lane;
    CHECK(static_cast<uint32_t>(got(24)) == eq - 1);
    CHECK(static_cast<uint32_t>(got(25)) == (eq | (eq - 1)));
    CHECK(static_cast<uint32_t>(got(26)) == eq);
    CHECK(static_cast<uint32_t>(got(27)) == ~(eq - 1));
    CHECK(static_cast<uint32_t>(got(28)) == ~(eq | (eq - 1)));
    uint32_t partBallot = 0;
    for (int l = 0; l < 16; ++l)
      partBallot |= static_cast<uint32_t>(wa[l] > 0) << l;
    CHECK(got(29) == (lane < 16 ? wa[lane ^ 1] : -7));
    CHECK(got(30) == (lane < 16 ? static_cast<int32_t>(partBallot) : -7));
    CHECK(static_cast<uint32_t>(got(31)) == 0xffffu);
    CHECK(qOut[t] == shfl(&q[base], lane, 1, 3, segment(32, 1)));
    CHECK(hOut[t] == shfl(&h[base], lane, 2, 5, segment(32, 2)));
  }
}

// ---------------------------------------------------------------- math

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// |got - want| in units of the last place of f32 at `want` (subnormal
// quantum below 2^-126); infinite when the classes differ.
double ulpError(double want, float got) {
  if (std::isnan(want))
    return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(want) || std::isinf(got))
    return (std::isinf(got) && std::isinf(want) && (want > 0) == (got > 0)) ? 0 : INFINITY;
  int e = 0;
  std::frexp(want, &e);
  double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  // a result past the largest float: measure against FLT_MAX's ulp
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

std::vector<float> mathInputs(std::mt19937_64 &rng) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          0.5f,
                          2.0f,
                          0.1f,
                          -0.1f,
                          1e-30f,
                          -1e-30f,
                          fromBits(1),
                          fromBits(0x007fffff),
                          fromBits(0x00800000),
                          3.14159265f,
                          -3.14159265f,
                          1.5707964f,
                          10.0f,
                          -10.0f,
                          88.7f,
                          89.0f,
                          -87.0f,
                          -104.0f,
                          -150.0f,
                          127.9f,
                          128.0f,
                          -149.5f,
                          1e4f,
                          1e10f,
                          -1e10f,
                          1e30f,
                          3.4e38f,
                          0.49999997f,
                          2.5f,
                          -2.5f,
                          8388607.5f,
                          1e-3f,
                          5.0f,
                          -5.0f,
                          9.0f,
                          0.7f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  std::uniform_real_distribution<float> small(-20.0f, 20.0f);
  for (int i = 0; i < 20000; ++i) {
    switch (i % 3) {
    case 0:
      v.push_back(small(rng));
      break;
    case 1: // any finite bit pattern
      for (;;) {
        float f = fromBits(static_cast<uint32_t>(rng()));
        if (std::isfinite(f)) {
          v.push_back(f);
          break;
        }
      }
      break;
    default: // around 1 (logs)
      v.push_back(std::ldexp(1.0f + static_cast<float>(rng() % 1000000) / 1e6f,
                             static_cast<int>(rng() % 8) - 4));
    }
  }
  return v;
}

struct MathFn {
  const char *name;
  double (*ref)(double, double);
  double maxUlp; // docs/reference/warp-and-math.md "Math functions"
};

} // namespace

TEST_CASE("warp_math PTX has every kernel", "[warpmath]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  for (const char *k : {"warp_ops", "math_f32", "math_approx", "math_f16", "abs_int",
                        "warp_redux_f32", "math_libm"}) {
    INFO(k);
    CHECK(m.kernel(k).valid());
  }
}

TEST_CASE("warp ops match the PTX rules bit for bit, constant and run-time widths", "[warpmath]") {
  for (int width : {32, 16, 5, 1, 0, -3, 100, 2})
    checkWarpOps(width);
}

// minimumNumber / maximumNumber (the `min`/`max` builtins): a NaN operand
// is ignored; zeros of either sign compare equal here (the test accepts
// either one).
float minMaxNum(float a, float b, bool isMin) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  return isMin ? (b < a ? b : a) : (b > a ? b : a);
}

TEST_CASE("f32 warp reductions: the butterfly's sum bit for bit, minNum / maxNum, one value per "
          "warp",
          "[warpmath]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  const int n = 128;
  std::mt19937_64 rng(kSeed);
  INFO("seed " << kSeed);
  // magnitudes over 2^-20 .. 2^20, so the order of the additions matters
  std::uniform_real_distribution<double> ed(-20, 20), sd(-1, 1);
  std::vector<float> x(n);
  for (auto &v : x)
    v = float(sd(rng) * std::exp2(ed(rng)));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  x[32 + 3] = nan; // warp 1: two NaN lanes, ignored by min / max
  x[32 + 30] = nan;
  for (int l = 0; l < 32; ++l) // warp 2: zeros of both signs and one value
    x[64 + l] = l == 17 ? -2.5f : (l % 2 ? -0.0f : 0.0f);
  for (int l = 0; l < 32; ++l) // warp 3: all NaN
    x[96 + l] = nan;
  tile::DeviceBuffer<float> dX(n), dOut(n * 3);
  dX.copyFrom(x);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig c;
  c.block = tile::Dim3(unsigned(n));
  m.kernel("warp_redux_f32").launch(c, dOut.ptr(), dX.ptr());
  ctx.synchronize();
  auto out = dOut.toHost();
  size_t bad = 0;
  for (int w = 0; w < 4; ++w) {
    // the butterfly on the CPU: lane l combines with lane l ^ m, m = 16 .. 1
    float s[32], lo[32], hi[32];
    for (int l = 0; l < 32; ++l)
      s[l] = lo[l] = hi[l] = x[size_t(w * 32 + l)];
    for (int mk = 16; mk >= 1; mk /= 2) {
      float s2[32], lo2[32], hi2[32];
      for (int l = 0; l < 32; ++l) {
        s2[l] = s[l] + s[l ^ mk];
        lo2[l] = minMaxNum(lo[l], lo[l ^ mk], true);
        hi2[l] = minMaxNum(hi[l], hi[l ^ mk], false);
      }
      std::memcpy(s, s2, sizeof s);
      std::memcpy(lo, lo2, sizeof lo);
      std::memcpy(hi, hi2, sizeof hi);
    }
    for (int l = 0; l < 32; ++l) {
      const size_t t = size_t(w * 32 + l);
      float got[3] = {out[t * 3], out[t * 3 + 1], out[t * 3 + 2]};
      float want[3] = {s[l], lo[l], hi[l]};
      for (int j = 0; j < 3; ++j) {
        uint32_t gb, wb, first;
        std::memcpy(&gb, &got[j], 4);
        std::memcpy(&wb, &want[j], 4);
        std::memcpy(&first, &out[size_t(w * 32) * 3 + size_t(j)], 4);
        // the sum bit for bit; min / max by value (a zero of either sign,
        // any NaN for an all-NaN warp); every lane the bits of lane 0
        bool ok = j == 0 ? (gb == wb || (std::isnan(got[j]) && std::isnan(want[j])))
                         : (got[j] == want[j] || (std::isnan(got[j]) && std::isnan(want[j])));
        ok = ok && gb == first;
        if (!ok && bad++ < 8)
          UNSCOPED_INFO("warp " << w << " lane " << l << " result " << j << ": got " << got[j]
                                << ", expected " << want[j]);
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("accurate f32 math functions are within their documented ulp bounds", "[warpmath]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0x3a7);
  std::vector<float> x = mathInputs(rng), y(x.size());
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = (rng() & 1) ? -1.5f : 0.25f;
  const int n = static_cast<int>(x.size());
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<float> dX(n), dY(n), dOut(n * 17);
  dX.copyFrom(x);
  dY.copyFrom(y);
  tile::LaunchConfig c;
  c.block = tile::Dim3(256);
  c.grid = tile::Dim3(static_cast<unsigned>((n + 255) / 256));
  m.kernel("math_f32").launch(c, dOut.ptr(), dX.ptr(), dY.ptr(), n);
  ctx.synchronize();
  std::vector<float> out = dOut.toHost();
  const MathFn fns[] = {
      {"abs", [](double v, double) { return std::fabs(v); }, 0},
      {"sqrt", [](double v, double) { return std::sqrt(v); }, 0.5},
      {"rsqrt", [](double v, double) { return 1.0 / std::sqrt(v); }, 1.5},
      {"exp", [](double v, double) { return std::exp(v); }, 2},
      {"exp2", [](double v, double) { return std::exp2(v); }, 2.5},
      {"log", [](double v, double) { return std::log(v); }, 1},
      {"log2", [](double v, double) { return std::log2(v); }, 1},
      {"sin", [](double v, double) { return std::sin(v); }, 2},
      {"cos", [](double v, double) { return std::cos(v); }, 2},
      {"tanh", [](double v, double) { return std::tanh(v); }, 2},
      {"erf", [](double v, double) { return std::erf(v); }, 2},
      {"floor", [](double v, double) { return std::floor(v); }, 0},
      {"ceil", [](double v, double) { return std::ceil(v); }, 0},
      {"round", [](double v, double) { return std::round(v); }, 0},
      {"trunc", [](double v, double) { return std::trunc(v); }, 0},
      {"copysign", [](double v, double s) { return std::copysign(v, s); }, 0},
      // one rounding of the exact v * s + v (exact in double for these s)
      {"fma", [](double v, double s) { return v * s + v; }, 0.5},
  };
  for (int j = 0; j < 17; ++j) {
    double worst = 0;
    float worstX = 0;
    for (int i = 0; i < n; ++i) {
      double want = fns[j].ref(x[i], y[i]);
      // results past the f32 range round to inf; below it, to 0 or a subnormal
      if (std::fabs(want) > std::numeric_limits<float>::max() && std::isfinite(want) &&
          std::isinf(out[i * 17 + j]))
        continue;
      double e = ulpError(want, out[i * 17 + j]);
      if (!(e <= worst)) {
        worst = e;
        worstX = x[i];
      }
    }
    INFO(fns[j].name << ": worst " << worst << " ulp at x = " << worstX);
    CHECK(worst <= fns[j].maxUlp);
  }
}

TEST_CASE("approximate forms are within the PTX bounds on their ranges", "[warpmath]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0xa99);
  std::uniform_real_distribution<float> pi(-3.14159265f, 3.14159265f), span(-60.0f, 60.0f),
      pos(0.001f, 1000.0f);
  std::vector<float> x;
  for (int i = 0; i < 30000; ++i)
    x.push_back(i % 3 == 0 ? pi(rng) : i % 3 == 1 ? span(rng) : pos(rng));
  const int n = static_cast<int>(x.size());
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<float> dX(n), dOut(n * 9);
  dX.copyFrom(x);
  tile::LaunchConfig c;
  c.block = tile::Dim3(256);
  c.grid = tile::Dim3(static_cast<unsigned>((n + 255) / 256));
  m.kernel("math_approx").launch(c, dOut.ptr(), dX.ptr(), n);
  ctx.synchronize();
  std::vector<float> out = dOut.toHost();
  auto rel = [](double want, double got) { return std::fabs(got - want) / std::fabs(want); };
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    const float *o = &out[i * 9];
    INFO("x = " << x[i]);
    if (v > 0) {
      CHECK(rel(std::sqrt(v), o[0]) <= std::ldexp(1.0, -22));
      CHECK(rel(1 / std::sqrt(v), o[1]) <= std::ldexp(1.0, -22));
      double l2 = std::log2(v);
      // lg2.approx: absolute error 2^-22 on [0.5, 2], else relative 2^-22
      if (v >= 0.5 && v <= 2)
        CHECK(std::fabs(o[5] - l2) <= std::ldexp(1.0, -22));
      else
        CHECK(rel(l2, o[5]) <= std::ldexp(1.0, -21));
      if (v >= 0.5 && v <= 2)
        CHECK(std::fabs(o[4] - std::log(v)) <= std::ldexp(1.0, -21));
    }
    // ex2.approx: relative 2^-22 (plus the input's rounding by x * log2(e) for exp)
    // Beyond the f32 range (2^128, e^88.72) the result is +inf.
    if (v < 127)
      CHECK(rel(std::exp2(v), o[3]) <= std::ldexp(1.0, -21));
    else if (v >= 128)
      CHECK(std::isinf(o[3]));
    if (v < 88)
      CHECK(rel(std::exp(v), o[2]) <=
            std::ldexp(1.0, -21) + 2 * std::fabs(v) * std::ldexp(1.0, -24));
    else if (v >= 89)
      CHECK(std::isinf(o[2]));
    if (std::fabs(v) <= 3.14159265) {
      CHECK(std::fabs(o[6] - std::sin(v)) <= std::ldexp(1.0, -20.5));
      CHECK(std::fabs(o[7] - std::cos(v)) <= std::ldexp(1.0, -20.5));
    }
    CHECK(std::fabs(o[8] - std::tanh(v)) <=
          std::ldexp(1.0, -10.9) * std::max(std::fabs(std::tanh(v)), 1e-30) + 1e-38);
  }
}

TEST_CASE("f16 math rounds the f32 result once; integer abs(MIN) = MIN", "[warpmath]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  // f16 inputs: every finite non-negative half (sqrt, exp, abs, floor).
  std::vector<uint16_t> hx;
  for (uint32_t b = 0; b < 0x7c00; b += 7)
    hx.push_back(static_cast<uint16_t>(b));
  for (uint32_t b = 0x8000; b < 0xfc00; b += 97)
    hx.push_back(static_cast<uint16_t>(b));
  const int n = static_cast<int>(hx.size());
  tile::DeviceBuffer<uint16_t> dX(n), dOut(n * 4);
  dX.copyFrom(hx);
  tile::LaunchConfig c;
  c.block = tile::Dim3(256);
  c.grid = tile::Dim3(static_cast<unsigned>((n + 255) / 256));
  m.kernel("math_f16").launch(c, dOut.ptr(), dX.ptr(), n);
  ctx.synchronize();
  std::vector<uint16_t> out = dOut.toHost();
  auto toD = [](uint16_t h) {
    int e = (h >> 10) & 31, mant = h & 1023;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31)
      return mant ? std::nan("") : s * INFINITY;
    if (e == 0)
      return s * std::ldexp(mant, -24);
    return s * std::ldexp(1024 + mant, e - 25);
  };
  auto halfUlp = [](double want) {
    int e = 0;
    std::frexp(want, &e);
    return std::ldexp(1.0, std::max(e - 11, -24));
  };
  for (int i = 0; i < n; ++i) {
    double v = toD(hx[i]);
    INFO("x = " << v << " (0x" << std::hex << hx[i] << std::dec << ")");
    double s = toD(out[i * 4]), e = toD(out[i * 4 + 1]);
    if (v >= 0)
      CHECK(std::fabs(s - std::sqrt(v)) <= 0.5 * halfUlp(std::sqrt(v))); // correctly rounded
    else
      CHECK(std::isnan(s));
    double ex = std::exp(v);
    if (ex < 65504)
      CHECK(std::fabs(e - ex) <= 0.5 * halfUlp(ex) + 2 * std::ldexp(std::fabs(ex), -24) + 1e-12);
    CHECK(toD(out[i * 4 + 2]) == std::fabs(v));
    CHECK(toD(out[i * 4 + 3]) == std::floor(v));
  }
  std::vector<int32_t> a = {0,
                            1,
                            -1,
                            7,
                            -7,
                            std::numeric_limits<int32_t>::max(),
                            std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::min() + 1};
  tile::DeviceBuffer<int32_t> dA(a.size()), dAbs(a.size());
  dA.copyFrom(a);
  tile::LaunchConfig c1;
  c1.block = tile::Dim3(32);
  m.kernel("abs_int").launch(c1, dAbs.ptr(), dA.ptr(), static_cast<int32_t>(a.size()));
  ctx.synchronize();
  std::vector<int32_t> r = dAbs.toHost();
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(r[i] == (a[i] == std::numeric_limits<int32_t>::min() ? a[i] : std::abs(a[i])));
}

namespace {
// The ulp distance of `got` from the correctly rounded f32 of `want` (the CUDA
// guide's measure); a result past the f32 range measured from `want` itself.
double roundedUlpError(double want, float got) {
  float rounded = static_cast<float>(want);
  if (std::isinf(rounded) && std::isfinite(want))
    return std::isinf(got) && (got > 0) == (want > 0) ? 0 : ulpError(want, got);
  return ulpError(rounded, got);
}
} // namespace

TEST_CASE("log1p ... fmod: within the CUDA guide's ulp bounds, C99 Annex F's special cases",
          "[warpmath]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0x11b);
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN(),
              fmax = std::numeric_limits<float>::max();
  // Every pair of these (the special cases of atan2, hypot, fmod), then the
  // one-argument edge values and fresh random pairs.
  const std::vector<float> edges = {
      0.0f, -0.0f, 1.0f,  -1.0f, inf,     -inf,        nan,
      2.5f, -3.0f, 0.75f, 1e30f, -1e-30f, fromBits(1), fromBits(0x80000001),
      fmax, -fmax, 6.0f,  -6.0f, 1e-38f,  3.0f};
  std::vector<float> x, y;
  for (float a : edges)
    for (float b : edges) {
      x.push_back(a);
      y.push_back(b);
    }
  // Domain edges: log1p(-1) = -inf and NaN below; asin / acos at ±1 and just
  // past; exp10 / sinh / cosh / expm1 at their overflow thresholds; erfc's
  // underflow.
  const std::vector<float> domain = {
      -1.0f,   -0.99999994f, -1.0000001f, 1.0000001f, 0.99999994f, -2.0f,   38.5f,
      38.6f,   -45.0f,       -46.0f,      88.72f,     89.5f,       -88.72f, -89.5f,
      -103.9f, 10.05f,       10.06f,      9.19f,      -9.0f,       -17.0f,  1e-7f,
      -1e-7f,  1e-20f,       -27.0f,      -8.0f,      1e-45f,      0.5f,    -0.5f};
  std::vector<float> unary = mathInputs(rng);
  unary.insert(unary.end(), domain.begin(), domain.end());
  std::uniform_real_distribution<float> small(-20.0f, 20.0f), unit(-1.0f, 1.0f), scale(-12, 12);
  for (size_t i = 0; i < unary.size(); ++i) {
    x.push_back(i % 4 == 3 ? unit(rng) : unary[i]); // asin / acos's domain too
    float w;
    switch (rng() % 4) {
    case 0:
      w = small(rng);
      break;
    case 1: // any finite bit pattern
      do
        w = fromBits(static_cast<uint32_t>(rng()));
      while (!std::isfinite(w));
      break;
    case 2: // near x's magnitude: fmod's many quotients and hypot's cancellations
      w = x.back() * std::exp2(scale(rng));
      break;
    default:
      w = edges[rng() % edges.size()];
    }
    y.push_back(w);
  }
  const int n = static_cast<int>(x.size());
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<float> dX(n), dY(n), dOut(n * 14);
  dX.copyFrom(x);
  dY.copyFrom(y);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig c;
  c.block = tile::Dim3(256);
  c.grid = tile::Dim3(static_cast<unsigned>((n + 255) / 256));
  m.kernel("math_libm").launch(c, dOut.ptr(), dX.ptr(), dY.ptr(), n);
  ctx.synchronize();
  std::vector<float> out = dOut.toHost();
  // The CUDA C++ Programming Guide's maximum ulp errors (docs/reference/warp-and-math.md).
  const MathFn fns[] = {
      {"log1p", [](double v, double) { return std::log1p(v); }, 1},
      {"expm1", [](double v, double) { return std::expm1(v); }, 1},
      {"log10", [](double v, double) { return std::log10(v); }, 2},
      {"exp10", [](double v, double) { return std::pow(10.0, v); }, 2},
      {"cbrt", [](double v, double) { return std::cbrt(v); }, 1},
      {"atan", [](double v, double) { return std::atan(v); }, 2},
      {"asin", [](double v, double) { return std::asin(v); }, 2},
      {"acos", [](double v, double) { return std::acos(v); }, 2},
      {"sinh", [](double v, double) { return std::sinh(v); }, 3},
      {"cosh", [](double v, double) { return std::cosh(v); }, 2},
      {"erfc", [](double v, double) { return std::erfc(v); }, 4},
      {"atan2", [](double v, double w) { return std::atan2(v, w); }, 3},
      {"hypot", [](double v, double w) { return std::hypot(v, w); }, 3},
      {"fmod", [](double v, double w) { return std::fmod(v, w); }, 0},
  };
  for (int j = 0; j < 14; ++j) {
    double worst = 0;
    float worstX = 0, worstY = 0;
    size_t signErrors = 0;
    for (int i = 0; i < n; ++i) {
      double want = fns[j].ref(x[i], y[i]);
      float got = out[size_t(i) * 14 + size_t(j)];
      double e = roundedUlpError(want, got);
      // Annex F's signed zeros (log1p(-0) = -0, atan2(-0, +0) = -0,
      // fmod(-0, y) = -0, ...): a zero result has the reference's sign.
      if (want == 0 && got == 0 && std::signbit(want) != std::signbit(got))
        e = INFINITY, ++signErrors;
      if (!(e <= worst)) {
        worst = e;
        worstX = x[i];
        worstY = y[i];
      }
    }
    INFO(fns[j].name << ": worst " << worst << " ulp at x = " << worstX << ", y = " << worstY
                     << " (" << signErrors << " zeros of the wrong sign)");
    CHECK(worst <= fns[j].maxUlp);
  }
}
