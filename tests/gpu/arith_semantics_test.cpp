// GPU tests of the defined semantics of shifts, signed division/remainder and
// conversions (docs/reference/operators.md, "Every operator is defined on
// every input"), kernels in arith_semantics.tile. Every edge case (0 and -1
// divisors, MIN dividends, shift amounts -1, 0, width-1, width, 100, NaN,
// +-inf, huge and tiny floats) plus fresh random values go through the GPU
// and are compared bit for bit with the CPU reference below, which implements
// the documented rules (not the C++ operators, which are undefined there).
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "arith_reference.h"

namespace {
using arith_ref::bf16ToDouble;
using arith_ref::halfToDouble;
using arith_ref::refToInt;
using arith_ref::sameFloat;

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/arith_semantics.ptx";
}

uint64_t freshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}
const uint64_t kSeed = freshSeed();

constexpr unsigned kThreads = 128;

template <class... Args> void launch1d(tile::Kernel &k, size_t n, const Args &...args) {
  tile::LaunchConfig c;
  c.block = tile::Dim3(kThreads);
  c.grid = tile::Dim3(static_cast<unsigned>((n + kThreads - 1) / kThreads));
  k.launch(c, args..., static_cast<int32_t>(n));
}

// ---------------------------------------------------------------- CPU reference (the documented
// rules)

template <class T> using U = std::make_unsigned_t<T>;

// x << n: n read unsigned in T's width; >= width gives 0.
template <class T> T refShl(T x, T n) {
  constexpr unsigned bits = sizeof(T) * 8;
  uint64_t amount = static_cast<U<T>>(n);
  if (amount >= bits)
    return 0;
  return static_cast<T>(static_cast<U<T>>(static_cast<uint64_t>(static_cast<U<T>>(x)) << amount));
}
// x >> n: arithmetic; amounts >= width give the sign fill.
template <class T> T refShr(T x, T n) {
  constexpr unsigned bits = sizeof(T) * 8;
  uint64_t amount = static_cast<U<T>>(n);
  if (amount >= bits)
    amount = bits - 1;
  return static_cast<T>(static_cast<int64_t>(x) >> amount);
}
// x / 0 = -1, x / -1 = -x (MIN / -1 = MIN), else truncating.
template <class T> T refDiv(T x, T d) {
  if (d == 0)
    return -1;
  if (d == -1)
    return static_cast<T>(static_cast<U<T>>(0) - static_cast<U<T>>(x));
  return static_cast<T>(x / d);
}
// x % 0 = x, x % -1 = 0, else the sign of x.
template <class T> T refRem(T x, T d) {
  if (d == 0)
    return x;
  if (d == -1)
    return 0;
  return static_cast<T>(x % d);
}

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// `v` (exact in double) rounded to nearest even with `mant` fraction bits,
// normal exponents >= minExp (subnormals below), inf above the largest finite.
double roundToFormat(double v, int mant, int minExp, int maxExp) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  int e = 0;
  std::frexp(v, &e);
  int lead = std::max(e - 1, minExp);
  double quantum = std::ldexp(1.0, lead - mant);
  double r = std::nearbyint(v / quantum) * quantum;
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -mant), maxExp);
  return std::fabs(r) > maxFinite ? std::copysign(INFINITY, v) : r;
}
// An integer rounded to nearest even with `mant` fraction bits (exactly, no
// detour through double, which would round 64-bit values twice).
double roundIntToFormat(int64_t x, int mant, int maxExp) {
  if (x == 0)
    return 0;
  uint64_t mag = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  int top = 63;
  while (!(mag >> top))
    --top;
  if (top > mant) {
    int shift = top - mant;
    uint64_t q = mag >> shift, rest = mag & ((uint64_t(1) << shift) - 1),
             half = uint64_t(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
      ++q;
    double r = std::ldexp(static_cast<double>(q), shift);
    double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -mant), maxExp);
    if (r > maxFinite)
      r = INFINITY;
    return x < 0 ? -r : r;
  }
  return static_cast<double>(x);
}
double roundHalf(double v) { return roundToFormat(v, 10, -14, 15); }
double roundBF16(double v) { return roundToFormat(v, 7, -126, 127); }


// ---------------------------------------------------------------- inputs

template <class T> std::vector<T> edgeValues() {
  using L = std::numeric_limits<T>;
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  return {0,
          1,
          -1,
          2,
          -2,
          3,
          7,
          L::min(),
          static_cast<T>(L::min() + 1),
          L::max(),
          static_cast<T>(L::max() - 1),
          static_cast<T>(bits - 1),
          bits,
          static_cast<T>(bits + 1),
          static_cast<T>(100),
          static_cast<T>(L::min() / 2),
          static_cast<T>(L::max() / 3)};
}

// All pairs of edge values, then random pairs: amounts/divisors biased to
// the interesting range.
template <class T> void makePairs(std::vector<T> &a, std::vector<T> &b, std::mt19937_64 &rng) {
  std::vector<T> edges = edgeValues<T>();
  for (T x : edges)
    for (T y : edges) {
      a.push_back(x);
      b.push_back(y);
    }
  constexpr int bits = sizeof(T) * 8;
  for (int i = 0; i < 20000; ++i) {
    a.push_back(static_cast<T>(rng()));
    switch (i % 4) {
    case 0:
      b.push_back(static_cast<T>(rng()));
      break;
    case 1:
      b.push_back(static_cast<T>(static_cast<int>(rng() % (2 * bits + 4)) - 2));
      break;
    case 2:
      b.push_back(static_cast<T>(static_cast<int>(rng() % 9) - 4));
      break;
    default:
      b.push_back(static_cast<T>(rng() >> (rng() % 64)));
      break;
    }
  }
}

template <class T> std::string show(T v) {
  std::ostringstream s;
  s << static_cast<int64_t>(v);
  return s.str();
}

// One integer kernel: K results per pair (shl, shr, div, rem [, the compound forms]).
template <class T> void checkIntegerOps(const char *kernelName, int k) {
  INFO("seed " << kSeed << ", kernel " << kernelName);
  std::mt19937_64 rng(kSeed ^ sizeof(T));
  std::vector<T> a, b;
  makePairs(a, b, rng);
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel kernel = m.kernel(kernelName);
  tile::DeviceBuffer<T> dA(a.size()), dB(b.size()), dOut(a.size() * k);
  dA.copyFrom(a);
  dB.copyFrom(b);
  dOut.fillBytes(0xA5);
  launch1d(kernel, a.size(), dOut, dA, dB);
  ctx.synchronize();
  std::vector<T> out = dOut.toHost();
  const char *names[] = {"<<", ">>", "/", "%", "<<=", ">>=", "/=", "%="};
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    T want[4] = {refShl(a[i], b[i]), refShr(a[i], b[i]), refDiv(a[i], b[i]), refRem(a[i], b[i])};
    for (int j = 0; j < k; ++j) {
      T got = out[i * k + j];
      if (got != want[j % 4] && bad++ < 12)
        FAIL_CHECK(show(a[i]) << " " << names[j] << " " << show(b[i]) << ": GPU " << show(got)
                              << ", expected " << show(want[j % 4]));
    }
  }
  CHECK(bad == 0);
}

std::vector<float> floatInputs(std::mt19937_64 &rng) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          0.5f,
                          -0.5f,
                          0.99999994f,
                          1.0f,
                          -1.0f,
                          1.5f,
                          -1.5f,
                          2.5f,
                          -2.5f,
                          126.9f,
                          127.0f,
                          127.5f,
                          128.0f,
                          -128.0f,
                          -128.5f,
                          -129.0f,
                          255.0f,
                          256.0f,
                          32767.0f,
                          32767.5f,
                          32768.0f,
                          -32768.0f,
                          -32769.0f,
                          65504.0f,
                          65520.0f,
                          1e5f,
                          2147483520.0f,
                          2147483648.0f,
                          -2147483648.0f,
                          -2147483904.0f,
                          3e9f,
                          -3e9f,
                          9.2233715e18f,
                          9.223372e18f,
                          -9.223372e18f,
                          -9.2233731e18f,
                          1e20f,
                          -1e20f,
                          3.4028235e38f,
                          -3.4028235e38f,
                          1e-45f,
                          -1e-45f,
                          1.17549435e-38f,
                          6e-8f,
                          3e-8f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          bitsToFloat(0xffc00001u),
                          bitsToFloat(0x7f800001u)};
  for (int i = 0; i < 20000; ++i) {
    if (i % 2) {
      v.push_back(bitsToFloat(static_cast<uint32_t>(rng()))); // any bit pattern
    } else {
      std::uniform_real_distribution<double> mag(-70, 70); // around every integer range
      double x = std::exp2(mag(rng)) * ((rng() & 1) ? -1 : 1);
      v.push_back(static_cast<float>(x));
    }
  }
  return v;
}

std::vector<uint16_t> halfInputs(std::mt19937_64 &rng, bool bf16) {
  std::vector<uint16_t> v = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7bff,
                             0xfbff, 0x0001, 0x8001, 0x5bf8, 0x57f8, 0x5800, 0x7800, 0xf800};
  if (bf16)
    v = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0xffc1,
         0x7f7f, 0xff7f, 0x0001, 0x8001, 0x4300, 0x42ff, 0x4f00, 0x4eff,
         0xcf00, 0xcf01, 0x5f00, 0x5eff, 0xdf00, 0xdf01, 0x4700, 0xc700};
  for (int i = 0; i < 20000; ++i)
    v.push_back(static_cast<uint16_t>(rng()));
  return v;
}

// One float -> int kernel on inputs whose exact values are `exact`.
template <class In>
void checkFloatToInt(const char *kernelName, const std::vector<In> &in,
                     const std::vector<double> &exact) {
  INFO("seed " << kSeed << ", kernel " << kernelName);
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel kernel = m.kernel(kernelName);
  const size_t n = in.size();
  tile::DeviceBuffer<In> dIn(n);
  tile::DeviceBuffer<int8_t> o8(n);
  tile::DeviceBuffer<int16_t> o16(n);
  tile::DeviceBuffer<int32_t> o32(n);
  tile::DeviceBuffer<int64_t> o64(n);
  dIn.copyFrom(in);
  o8.fillBytes(0xA5);
  o16.fillBytes(0xA5);
  o32.fillBytes(0xA5);
  o64.fillBytes(0xA5);
  launch1d(kernel, n, o8, o16, o32, o64, dIn);
  ctx.synchronize();
  auto g8 = o8.toHost();
  auto g16 = o16.toHost();
  auto g32 = o32.toHost();
  auto g64 = o64.toHost();
  int bad = 0;
  auto report = [&](size_t i, const char *to, int64_t got, int64_t want) {
    if (got != want && bad++ < 12)
      FAIL_CHECK(std::hexfloat << exact[i] << std::defaultfloat << " (" << exact[i] << ") as " << to
                               << ": GPU " << got << ", expected " << want);
  };
  for (size_t i = 0; i < n; ++i) {
    report(i, "i8", g8[i], refToInt<int8_t>(exact[i]));
    report(i, "i16", g16[i], refToInt<int16_t>(exact[i]));
    report(i, "i32", g32[i], refToInt<int32_t>(exact[i]));
    report(i, "i64", g64[i], refToInt<int64_t>(exact[i]));
  }
  CHECK(bad == 0);
}

} // namespace

TEST_CASE("arith_semantics PTX has every kernel", "[arith]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  for (const char *k : {"ops_i32", "ops_i64", "ops_i16", "ops_i8", "f32_to_int", "f16_to_int",
                        "bf16_to_int", "int_to_float", "float_to_float", "folded"}) {
    INFO(k);
    CHECK(m.kernel(k).valid());
  }
}

TEST_CASE(
    "shifts, division and remainder are defined on every input: i32 (and compound assignments)",
    "[arith]") {
  checkIntegerOps<int32_t>("ops_i32", 8);
}
TEST_CASE("shifts, division and remainder are defined on every input: i64", "[arith]") {
  checkIntegerOps<int64_t>("ops_i64", 4);
}
TEST_CASE("shifts, division and remainder are defined on every input: i16", "[arith]") {
  checkIntegerOps<int16_t>("ops_i16", 4);
}
TEST_CASE("shifts, division and remainder are defined on every input: i8", "[arith]") {
  checkIntegerOps<int8_t>("ops_i8", 4);
}

TEST_CASE("float -> int saturates toward zero, NaN -> 0: f32, f16, bf16 to i8/i16/i32/i64",
          "[arith]") {
  std::mt19937_64 rng(kSeed ^ 0xf32);
  std::vector<float> f = floatInputs(rng);
  std::vector<double> fx(f.begin(), f.end());
  checkFloatToInt("f32_to_int", f, fx);
  std::vector<uint16_t> h = halfInputs(rng, false), b = halfInputs(rng, true);
  std::vector<double> hx, bx;
  for (uint16_t v : h)
    hx.push_back(halfToDouble(v));
  for (uint16_t v : b)
    bx.push_back(bf16ToDouble(v));
  checkFloatToInt("f16_to_int", h, hx);
  checkFloatToInt("bf16_to_int", b, bx);
}

TEST_CASE("int -> float and float -> float round to nearest even", "[arith]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0x12f);
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  int bad = 0;
  auto report = [&](const std::string &what, double got, double want) {
    if (!sameFloat(want, got) && bad++ < 12)
      FAIL_CHECK(what << ": GPU " << std::hexfloat << got << ", expected " << want);
  };
  {
    std::vector<int64_t> a = {0,
                              1,
                              -1,
                              2047,
                              2049,
                              65504,
                              65519,
                              65520,
                              -65520,
                              16777217,
                              -16777217,
                              (int64_t(1) << 53) + 1,
                              INT64_MAX,
                              INT64_MIN,
                              INT32_MAX,
                              INT32_MIN,
                              (int64_t(1) << 62) + (int64_t(1) << 38),
                              (int64_t(1) << 40) + (int64_t(1) << 32) + 1};
    for (int i = 0; i < 20000; ++i)
      a.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
    const size_t n = a.size();
    tile::DeviceBuffer<int64_t> dA(n);
    tile::DeviceBuffer<float> f32(2 * n);
    tile::DeviceBuffer<uint16_t> f16(2 * n), bf16(2 * n);
    dA.copyFrom(a);
    tile::Kernel k = m.kernel("int_to_float");
    launch1d(k, n, f32, f16, bf16, dA);
    ctx.synchronize();
    auto g32 = f32.toHost();
    auto g16 = f16.toHost();
    auto gb = bf16.toHost();
    for (size_t i = 0; i < n; ++i) {
      int64_t xs[2] = {a[i], static_cast<int32_t>(a[i])};
      for (int j = 0; j < 2; ++j) {
        std::string what = std::to_string(xs[j]) + (j ? " as i32" : "") + " as ";
        report(what + "f32", g32[2 * i + j], roundIntToFormat(xs[j], 23, 127));
        report(what + "f16", halfToDouble(g16[2 * i + j]), roundIntToFormat(xs[j], 10, 15));
        report(what + "bf16", bf16ToDouble(gb[2 * i + j]), roundIntToFormat(xs[j], 7, 127));
      }
    }
  }
  {
    std::vector<float> f = floatInputs(rng);
    std::vector<uint16_t> h = halfInputs(rng, false), b = halfInputs(rng, true);
    const size_t n = std::min({f.size(), h.size(), b.size()});
    f.resize(n);
    h.resize(n);
    b.resize(n);
    tile::DeviceBuffer<float> dF(n);
    tile::DeviceBuffer<uint16_t> dH(n), dB(n), o16(2 * n), ob(2 * n);
    dF.copyFrom(f);
    dH.copyFrom(h);
    dB.copyFrom(b);
    tile::Kernel k = m.kernel("float_to_float");
    launch1d(k, n, o16, ob, dF, dH, dB);
    ctx.synchronize();
    auto g16 = o16.toHost();
    auto gb = ob.toHost();
    for (size_t i = 0; i < n; ++i) {
      std::ostringstream s;
      s << std::hexfloat << f[i];
      report(s.str() + " f32 as f16", halfToDouble(g16[2 * i]), roundHalf(f[i]));
      report(s.str() + " f32 as bf16", bf16ToDouble(gb[2 * i]), roundBF16(f[i]));
      report("bf16 " + std::to_string(b[i]) + " as f16", halfToDouble(g16[2 * i + 1]),
             roundHalf(bf16ToDouble(b[i])));
      report("f16 " + std::to_string(h[i]) + " as bf16", bf16ToDouble(gb[2 * i + 1]),
             roundBF16(halfToDouble(h[i])));
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("operands LLVM folds get the same defined results", "[arith]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel k = m.kernel("folded");
  for (int32_t x : {12345, -7, INT32_MIN, INT32_MAX, 0}) {
    INFO("x = " << x);
    tile::DeviceBuffer<int32_t> out(12);
    out.fillBytes(0xA5);
    tile::LaunchConfig c;
    c.block = tile::Dim3(1);
    c.grid = tile::Dim3(1);
    k.launch(c, out, x, int32_t(0));
    ctx.synchronize();
    auto got = out.toHost();
    std::vector<int32_t> want = {0,
                                 refShr<int32_t>(x, 32),
                                 -1,
                                 x,
                                 INT32_MIN,
                                 0,
                                 INT32_MAX,
                                 INT32_MIN,
                                 0,
                                 -1,
                                 refShl<int32_t>(x, -1),
                                 refShr<int32_t>(x, -1)};
    CHECK(got == want);
  }
}
