// GPU tests of the conditional expression, loop exits, unsigned integers, f64
// and the bit operations (kernels in arith_types.tile): unsigned
// operators and conversions, f64 arithmetic and conversions, bitcast,
// popc/clz/brev/bfind, `c ? a : b` laziness, break/continue and the unsigned
// and f64 atomics. Edge cases plus fresh random values go through the GPU
// and are compared bit for bit with a CPU reference of the documented rules
// (docs/reference/operators.md: `c ? a : b`, unsigned integers, f64, bitcast
// and the bit counts; docs/reference/statements.md: `break` and `continue`).
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
#include <vector>

#include "arith_reference.h"

namespace {
using arith_ref::bf16ToDouble;
using arith_ref::halfToDouble;
using arith_ref::refToInt;
using arith_ref::sameFloat;

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/arith_types.ptx";
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

// ---------------------------------------------------------------- CPU reference

template <class T> T refDivU(T x, T d) { return d == 0 ? std::numeric_limits<T>::max() : T(x / d); }
template <class T> T refRemU(T x, T d) { return d == 0 ? x : T(x % d); }
template <class T> T refShrU(T x, T n) { return n >= sizeof(T) * 8 ? T(0) : T(x >> n); }
template <class T> T refShlU(T x, T n) {
  return n >= sizeof(T) * 8 ? T(0) : T(static_cast<uint64_t>(x) << n);
}

// float -> unsigned: toward zero, saturating to 0 .. MAX, NaN -> 0.
template <class T> T refToUint(double v) {
  if (std::isnan(v))
    return 0;
  double t = std::trunc(v);
  if (t <= 0)
    return 0;
  if (t >= std::ldexp(1.0, sizeof(T) * 8))
    return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

// `v` (exact in double) rounded to nearest even with `mant` fraction bits.
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
// An unsigned magnitude rounded to nearest even with `mant` fraction bits,
// exactly (no double detour).
double roundMagnitude(uint64_t mag, bool neg, int mant, int maxExp) {
  if (mag == 0)
    return 0;
  int top = 63;
  while (!(mag >> top))
    --top;
  double r;
  if (top > mant) {
    int shift = top - mant;
    uint64_t q = mag >> shift, rest = mag & ((uint64_t(1) << shift) - 1),
             half = uint64_t(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
      ++q;
    r = std::ldexp(static_cast<double>(q), shift);
  } else {
    r = static_cast<double>(mag);
  }
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -mant), maxExp);
  if (r > maxFinite)
    r = INFINITY;
  return neg ? -r : r;
}
double bitsToDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

int clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
template <class T> T brevBits(T x) {
  using W = std::make_unsigned_t<T>;
  W u = static_cast<W>(x), r = 0;
  for (unsigned i = 0; i < sizeof(T) * 8; ++i)
    if (u >> i & 1)
      r |= W(1) << (sizeof(T) * 8 - 1 - i);
  return static_cast<T>(r);
}
// Index of the highest bit that is 1 (unsigned) or differs from the sign;
// -1 when none.
int32_t refBfind(uint64_t x, unsigned bits, bool isSigned) {
  if (isSigned && (x >> (bits - 1) & 1))
    x = ~x & (bits == 64 ? ~0ull : ((1ull << bits) - 1));
  return x == 0 ? -1 : 63 - clz64(x);
}

template <class T> std::string show(T v) {
  std::ostringstream s;
  s << +v;
  return s.str();
}

// ---------------------------------------------------------------- inputs

template <class T> std::vector<T> edgeValues() {
  constexpr T max = std::numeric_limits<T>::max();
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  return {T(0),        T(1),       T(2),           T(3),       T(7),        max,
          T(max - 1),  T(max / 2), T(max / 2 + 1), T(max / 3), T(bits - 1), bits,
          T(bits + 1), T(100),     T(255),         T(256),     T(65535),    T(65536)};
}

template <class T> void makePairs(std::vector<T> &a, std::vector<T> &b, std::mt19937_64 &rng) {
  for (T x : edgeValues<T>())
    for (T y : edgeValues<T>()) {
      a.push_back(x);
      b.push_back(y);
    }
  constexpr int bits = sizeof(T) * 8;
  for (int i = 0; i < 20000; ++i) {
    a.push_back(static_cast<T>(rng() >> (rng() % 64)));
    switch (i % 3) {
    case 0:
      b.push_back(static_cast<T>(rng()));
      break;
    case 1:
      b.push_back(static_cast<T>(rng() % (2 * bits + 4)));
      break;
    default:
      b.push_back(static_cast<T>(rng() >> (rng() % 64)));
      break;
    }
  }
}

template <class T> void checkUnsignedOps(const char *kernelName) {
  INFO("seed " << kSeed << ", kernel " << kernelName);
  std::mt19937_64 rng(kSeed ^ (sizeof(T) * 77));
  std::vector<T> a, b;
  makePairs(a, b, rng);
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel kernel = m.kernel(kernelName);
  tile::DeviceBuffer<T> dA(a.size()), dB(b.size()), dOut(a.size() * 8);
  dA.copyFrom(a);
  dB.copyFrom(b);
  dOut.fillBytes(0xA5);
  launch1d(kernel, a.size(), dOut, dA, dB);
  ctx.synchronize();
  std::vector<T> out = dOut.toHost();
  const char *names[] = {"/", "%", ">>", "<<", "<", "min", "max", "8th"};
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    T x = a[i], y = b[i];
    T last = sizeof(T) == 4   ? refDivU(x, y)                       // q /= y
             : sizeof(T) == 8 ? std::min(std::max(x, T(y >> 1)), y) // clamp
             : sizeof(T) == 2 ? T(x >= y)
                              : T(x > y);
    T want[8] = {refDivU(x, y), refRemU(x, y),  refShrU(x, y),  refShlU(x, y),
                 T(x < y),      std::min(x, y), std::max(x, y), last};
    for (int j = 0; j < 8; ++j) {
      T got = out[i * 8 + j];
      if (got != want[j] && bad++ < 12)
        FAIL_CHECK(show(x) << " " << names[j] << " " << show(y) << ": GPU " << show(got)
                           << ", expected " << show(want[j]));
    }
  }
  CHECK(bad == 0);
}

std::vector<double> doubleInputs(std::mt19937_64 &rng) {
  std::vector<double> v = {0.0,
                           -0.0,
                           0.5,
                           -0.5,
                           0.9999999999999999,
                           1.0,
                           -1.0,
                           -1.5,
                           255.0,
                           255.9,
                           256.0,
                           65535.5,
                           65536.0,
                           -129.0,
                           2147483647.5,
                           2147483648.0,
                           -2147483648.5,
                           -2147483649.0,
                           4294967295.9,
                           4294967296.0,
                           9223372036854774784.0,
                           9223372036854775808.0,
                           -9223372036854775808.0,
                           -9223372036854777856.0,
                           18446744073709549568.0,
                           18446744073709551616.0,
                           65504.0,
                           65519.999,
                           65520.0,
                           3.4028235677973366e38,
                           3.4028235677973367e38,
                           1e300,
                           -1e300,
                           5e-324,
                           -5e-324,
                           1.401298464324817e-45,
                           7.006492321624085e-46,
                           2.9802322387695312e-08, // f16 subnormal halfway cases
                           1.0000000596046448,     // 1 + 2^-24: rounds to even in f32
                           1.0000000596046449,     // just above: rounds up
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           bitsToDouble(0xfff0000000000001ull)};
  for (int i = 0; i < 20000; ++i) {
    if (i % 2) {
      v.push_back(bitsToDouble(rng()));
    } else {
      std::uniform_real_distribution<double> mag(-140, 140);
      v.push_back(std::exp2(mag(rng)) * ((rng() & 1) ? -1 : 1));
    }
  }
  return v;
}

} // namespace

TEST_CASE("arith_types PTX has every kernel", "[arith_types]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  for (const char *k :
       {"ops_u32", "ops_u64", "ops_u16", "ops_u8", "int_casts", "f32_to_uint", "f64_to_int",
        "int_to_float", "ops_f64", "bits32", "bits64", "select_lazy", "loop_exits", "atomics"}) {
    INFO(k);
    CHECK(m.kernel(k).valid());
  }
}

TEST_CASE("unsigned / % >> << < min max clamp on every input: u32 u64 u16 u8", "[arith_types]") {
  checkUnsignedOps<uint32_t>("ops_u32");
  checkUnsignedOps<uint64_t>("ops_u64");
  checkUnsignedOps<uint16_t>("ops_u16");
  checkUnsignedOps<uint8_t>("ops_u8");
}

TEST_CASE("unsigned casts zero-extend, signed ones sign-extend", "[arith_types]") {
  std::mt19937_64 rng(kSeed ^ 0xca57);
  std::vector<uint32_t> a = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x1ff, 0x8001};
  std::vector<int8_t> c = {0, 1, 127, -128, -1, -2, 5};
  for (int i = 0; i < 5000; ++i) {
    a.push_back(static_cast<uint32_t>(rng()));
    c.push_back(static_cast<int8_t>(rng()));
  }
  const size_t n = a.size();
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel k = m.kernel("int_casts");
  tile::DeviceBuffer<uint32_t> dA(n);
  tile::DeviceBuffer<int8_t> dC(n);
  tile::DeviceBuffer<uint64_t> o64(4 * n);
  tile::DeviceBuffer<int64_t> s64(2 * n);
  dA.copyFrom(a);
  dC.copyFrom(c);
  launch1d(k, n, o64, s64, dA, dC);
  ctx.synchronize();
  auto go = o64.toHost();
  auto gs = s64.toHost();
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t want[4] = {a[i], static_cast<uint64_t>(static_cast<int64_t>(c[i])),
                        static_cast<uint8_t>(a[i]), static_cast<uint8_t>(c[i])};
    int64_t wantS[2] = {static_cast<int64_t>(a[i]), static_cast<int64_t>(uint16_t(a[i]))};
    for (int j = 0; j < 4; ++j)
      if (go[4 * i + j] != want[j] && bad++ < 12)
        FAIL_CHECK("case " << j << " of " << a[i] << ", " << +c[i] << ": GPU " << go[4 * i + j]
                           << ", expected " << want[j]);
    for (int j = 0; j < 2; ++j)
      if (gs[2 * i + j] != wantS[j] && bad++ < 12)
        FAIL_CHECK("signed case " << j << " of " << a[i] << ": GPU " << gs[2 * i + j]);
  }
  CHECK(bad == 0);
}

TEST_CASE("float -> unsigned and f64 -> integer saturate toward zero, NaN -> 0", "[arith_types]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0xf64);
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  int bad = 0;
  auto report = [&](double v, const char *to, uint64_t got, uint64_t want) {
    if (got != want && bad++ < 16)
      FAIL_CHECK(std::hexfloat << v << std::defaultfloat << " (" << v << ") as " << to << ": GPU "
                               << got << ", expected " << want);
  };
  std::vector<double> d = doubleInputs(rng);
  {
    std::vector<float> f;
    for (double v : d)
      f.push_back(static_cast<float>(v));
    const size_t n = f.size();
    tile::DeviceBuffer<float> dF(n);
    tile::DeviceBuffer<uint8_t> o8(n);
    tile::DeviceBuffer<uint16_t> o16(n);
    tile::DeviceBuffer<uint32_t> o32(n);
    tile::DeviceBuffer<uint64_t> o64(n);
    dF.copyFrom(f);
    tile::Kernel k = m.kernel("f32_to_uint");
    launch1d(k, n, o8, o16, o32, o64, dF);
    ctx.synchronize();
    auto g8 = o8.toHost();
    auto g16 = o16.toHost();
    auto g32 = o32.toHost();
    auto g64 = o64.toHost();
    for (size_t i = 0; i < n; ++i) {
      report(f[i], "u8", g8[i], refToUint<uint8_t>(f[i]));
      report(f[i], "u16", g16[i], refToUint<uint16_t>(f[i]));
      report(f[i], "u32", g32[i], refToUint<uint32_t>(f[i]));
      report(f[i], "u64", g64[i], refToUint<uint64_t>(f[i]));
    }
  }
  {
    const size_t n = d.size();
    tile::DeviceBuffer<double> dD(n);
    tile::DeviceBuffer<int8_t> s8(n);
    tile::DeviceBuffer<int16_t> s16(n);
    tile::DeviceBuffer<int32_t> s32(n);
    tile::DeviceBuffer<int64_t> s64(n);
    tile::DeviceBuffer<uint8_t> o8(n);
    tile::DeviceBuffer<uint16_t> o16(n);
    tile::DeviceBuffer<uint32_t> o32(n);
    tile::DeviceBuffer<uint64_t> o64(n);
    dD.copyFrom(d);
    tile::Kernel k = m.kernel("f64_to_int");
    launch1d(k, n, s8, s16, s32, s64, o8, o16, o32, o64, dD);
    ctx.synchronize();
    auto a8 = s8.toHost();
    auto a16 = s16.toHost();
    auto a32 = s32.toHost();
    auto a64 = s64.toHost();
    auto g8 = o8.toHost();
    auto g16 = o16.toHost();
    auto g32 = o32.toHost();
    auto g64 = o64.toHost();
    for (size_t i = 0; i < n; ++i) {
      report(d[i], "i8", a8[i], refToInt<int8_t>(d[i]));
      report(d[i], "i16", a16[i], refToInt<int16_t>(d[i]));
      report(d[i], "i32", a32[i], refToInt<int32_t>(d[i]));
      report(d[i], "i64", a64[i], refToInt<int64_t>(d[i]));
      report(d[i], "u8", g8[i], refToUint<uint8_t>(d[i]));
      report(d[i], "u16", g16[i], refToUint<uint16_t>(d[i]));
      report(d[i], "u32", g32[i], refToUint<uint32_t>(d[i]));
      report(d[i], "u64", g64[i], refToUint<uint64_t>(d[i]));
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("unsigned and i64 -> float round once to nearest even (f32 f16 bf16 f64)",
          "[arith_types]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0x2f);
  std::vector<uint64_t> a = {0,
                             1,
                             65504,
                             65519,
                             65520,
                             16777217,
                             (1ull << 53) + 1,
                             (1ull << 63),
                             (1ull << 63) + 1,
                             ~0ull,
                             0xffffffffull,
                             0x80000001ull,
                             (1ull << 62) + (1ull << 38),
                             0xffffffff00000001ull,
                             (1ull << 40) + (1ull << 32) + 1};
  for (int i = 0; i < 20000; ++i)
    a.push_back(rng() >> (rng() % 64));
  const size_t n = a.size();
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<uint64_t> dA(n);
  tile::DeviceBuffer<float> f32(2 * n);
  tile::DeviceBuffer<uint16_t> f16(2 * n), bf16(2 * n);
  tile::DeviceBuffer<double> f64(3 * n);
  dA.copyFrom(a);
  tile::Kernel k = m.kernel("int_to_float");
  launch1d(k, n, f32, f16, bf16, f64, dA);
  ctx.synchronize();
  auto g32 = f32.toHost();
  auto g16 = f16.toHost();
  auto gb = bf16.toHost();
  auto g64 = f64.toHost();
  int bad = 0;
  auto report = [&](const std::string &what, double got, double want) {
    if (!sameFloat(want, got) && bad++ < 12)
      FAIL_CHECK(what << ": GPU " << std::hexfloat << got << ", expected " << want);
  };
  for (size_t i = 0; i < n; ++i) {
    uint64_t xs[2] = {a[i], static_cast<uint32_t>(a[i])};
    for (int j = 0; j < 2; ++j) {
      std::string what = std::to_string(xs[j]) + (j ? " as u32" : "") + " as ";
      report(what + "f32", g32[2 * i + j], roundMagnitude(xs[j], false, 23, 127));
      report(what + "f16", halfToDouble(g16[2 * i + j]), roundMagnitude(xs[j], false, 10, 15));
      report(what + "bf16", bf16ToDouble(gb[2 * i + j]), roundMagnitude(xs[j], false, 7, 127));
      report(what + "f64", g64[3 * i + j], roundMagnitude(xs[j], false, 52, 1023));
    }
    int64_t s = static_cast<int64_t>(a[i]);
    uint64_t mag = s < 0 ? 0 - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
    report(std::to_string(s) + " as i64 as f64", g64[3 * i + 2],
           roundMagnitude(mag, s < 0, 52, 1023));
  }
  CHECK(bad == 0);
}

TEST_CASE("f64 arithmetic, comparisons and conversions to f32/f16/bf16", "[arith_types]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0xd0d);
  std::vector<double> x = doubleInputs(rng), y = doubleInputs(rng);
  std::shuffle(y.begin(), y.end(), rng);
  const size_t n = x.size();
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<double> dX(n), dY(n), out(6 * n);
  tile::DeviceBuffer<int32_t> cmp(n);
  tile::DeviceBuffer<float> f(n);
  tile::DeviceBuffer<uint16_t> h(n), b(n);
  dX.copyFrom(x);
  dY.copyFrom(y);
  tile::Kernel k = m.kernel("ops_f64");
  launch1d(k, n, out, cmp, f, h, b, dX, dY);
  ctx.synchronize();
  auto go = out.toHost();
  auto gc = cmp.toHost();
  auto gf = f.toHost();
  auto gh = h.toHost();
  auto gb = b.toHost();
  int bad = 0;
  auto report = [&](const std::string &what, double got, double want) {
    if (!sameFloat(want, got) && bad++ < 12)
      FAIL_CHECK(what << ": GPU " << std::hexfloat << got << ", expected " << want);
  };
  for (size_t i = 0; i < n; ++i) {
    double p = x[i], q = y[i];
    std::ostringstream s;
    s << std::hexfloat << p << " op " << q << ": ";
    report(s.str() + "+", go[6 * i], p + q);
    report(s.str() + "-", go[6 * i + 1], p - q);
    report(s.str() + "*", go[6 * i + 2], p * q);
    report(s.str() + "/", go[6 * i + 3], p / q);
    // minNum; min(+0, -0) may give either zero.
    double mn = std::isnan(p) ? q : std::isnan(q) ? p : p < q ? p : q;
    if (!(p == 0 && q == 0 && std::signbit(p) != std::signbit(q)))
      report(s.str() + "min", go[6 * i + 4], mn);
    report(s.str() + "as f32 as f64", go[6 * i + 5], static_cast<double>(static_cast<float>(p)));
    int32_t want = (p < q ? 1 : 0) | (p == q ? 2 : 0) | (p != q ? 4 : 0) | (p >= q ? 8 : 0);
    if (gc[i] != want && bad++ < 12)
      FAIL_CHECK(s.str() << "comparisons: GPU " << gc[i] << ", expected " << want);
    report(s.str() + "as f32", gf[i], static_cast<float>(p));
    report(s.str() + "as f16", halfToDouble(gh[i]), roundToFormat(p, 10, -14, 15));
    report(s.str() + "as bf16", bf16ToDouble(gb[i]), roundToFormat(p, 7, -126, 127));
  }
  CHECK(bad == 0);
}

TEST_CASE("bitcast, popc, clz, brev, bfind on i32 u32 i64 u64", "[arith_types]") {
  INFO("seed " << kSeed);
  std::mt19937_64 rng(kSeed ^ 0xb175);
  std::vector<int64_t> a = {0,
                            1,
                            -1,
                            -2,
                            2,
                            INT64_MIN,
                            INT64_MAX,
                            0x80000000ll,
                            0x7fc00001,
                            0x7ff0000000000001ll,
                            0xffffffffll,
                            int64_t(1) << 40};
  for (int i = 0; i < 20000; ++i)
    a.push_back(static_cast<int64_t>(rng() >> (rng() % 64)) * ((rng() & 1) ? -1 : 1));
  const size_t n = a.size();
  std::vector<int32_t> a32(a.begin(), a.end()); // the low 32 bits
  for (size_t i = 0; i < n; ++i)
    a32[i] = static_cast<int32_t>(static_cast<uint32_t>(a[i]));
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  int bad = 0;
  auto report = [&](const std::string &what, uint64_t got, uint64_t want) {
    if (got != want && bad++ < 16)
      FAIL_CHECK(what << ": GPU " << got << ", expected " << want);
  };
  {
    tile::DeviceBuffer<int32_t> dA(n), out(4 * n);
    tile::DeviceBuffer<uint32_t> uo(3 * n);
    dA.copyFrom(a32);
    tile::Kernel k = m.kernel("bits32");
    launch1d(k, n, out, uo, dA);
    ctx.synchronize();
    auto go = out.toHost();
    auto gu = uo.toHost();
    for (size_t i = 0; i < n; ++i) {
      int32_t x = a32[i];
      uint32_t u = static_cast<uint32_t>(x);
      std::string s = std::to_string(x) + " ";
      report(s + "popc", uint32_t(go[4 * i]), uint32_t(__builtin_popcount(u)));
      report(s + "clz", uint32_t(go[4 * i + 1]), uint32_t(u ? __builtin_clz(u) : 32));
      report(s + "bfind i32", uint32_t(go[4 * i + 2]), uint32_t(refBfind(u, 32, true)));
      report(s + "brev i32", uint32_t(go[4 * i + 3]), uint32_t(brevBits(x)));
      report(s + "bfind u32", gu[3 * i], uint32_t(refBfind(u, 32, false)));
      report(s + "brev u32", gu[3 * i + 1], brevBits(u));
      report(s + "bitcast round trip", gu[3 * i + 2], u);
    }
  }
  {
    tile::DeviceBuffer<int64_t> dA(n), wo(n);
    tile::DeviceBuffer<int32_t> out(4 * n);
    tile::DeviceBuffer<uint64_t> uo(2 * n);
    dA.copyFrom(a);
    tile::Kernel k = m.kernel("bits64");
    launch1d(k, n, out, wo, uo, dA);
    ctx.synchronize();
    auto go = out.toHost();
    auto gw = wo.toHost();
    auto gu = uo.toHost();
    for (size_t i = 0; i < n; ++i) {
      int64_t x = a[i];
      uint64_t u = static_cast<uint64_t>(x);
      std::string s = std::to_string(x) + " ";
      report(s + "popc64", uint32_t(go[4 * i]), uint32_t(__builtin_popcountll(u)));
      report(s + "clz64", uint32_t(go[4 * i + 1]), uint32_t(clz64(u)));
      report(s + "bfind i64", uint32_t(go[4 * i + 2]), uint32_t(refBfind(u, 64, true)));
      report(s + "bfind u64", uint32_t(go[4 * i + 3]), uint32_t(refBfind(u, 64, false)));
      report(s + "brev i64", uint64_t(gw[i]), uint64_t(brevBits(x)));
      report(s + "brev u64", gu[2 * i], brevBits(u));
      report(s + "bitcast round trip", gu[2 * i + 1], u);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("c ? a : b evaluates only the chosen side; break and continue", "[arith_types]") {
  std::mt19937_64 rng(kSeed ^ 0x5e1);
  const int n = 3000, m = n / 2, w = 9;
  std::vector<int32_t> a(m), d(n), rows(n * w);
  for (auto &v : a)
    v = static_cast<int32_t>(rng());
  for (int i = 0; i < n; ++i)
    d[i] = i % 5 == 0 ? 0 : static_cast<int32_t>(rng() % 2001) - 1000;
  for (auto &v : rows)
    v = static_cast<int32_t>(rng() % 11) - 3; // zeros and negatives are common
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  int bad = 0;
  {
    // `a` has exactly m elements: a load of a[i] for i >= m would be out of
    // bounds (compute-sanitizer memcheck reports it).
    tile::DeviceBuffer<int32_t> dA(m), dD(n), out(3 * n);
    dA.copyFrom(a);
    dD.copyFrom(d);
    tile::Kernel k = mod.kernel("select_lazy");
    launch1d(k, n, out, dA, dD, int32_t(m));
    ctx.synchronize();
    auto g = out.toHost();
    for (int i = 0; i < n; ++i) {
      int32_t want[3] = {i < m ? a[i] : -7, d[i] != 0 ? 1000000 / d[i] : 0,
                         i < m ? (a[i] > 0 ? a[i] : int32_t(0u - uint32_t(a[i])))
                               : (i >= m + 2 ? 1 : 2)};
      for (int j = 0; j < 3; ++j)
        if (g[3 * i + j] != want[j] && bad++ < 12)
          FAIL_CHECK("select " << j << " at " << i << ": GPU " << g[3 * i + j] << ", expected "
                               << want[j]);
    }
  }
  {
    tile::DeviceBuffer<int32_t> dR(n * w), out(3 * n);
    dR.copyFrom(rows);
    tile::Kernel k = mod.kernel("loop_exits");
    launch1d(k, n, out, dR, int32_t(w));
    ctx.synchronize();
    auto g = out.toHost();
    for (int i = 0; i < n; ++i) {
      int32_t sum = 0, seen = 0, odd = 0;
      for (int j = 0; j < w; ++j) {
        int32_t v = rows[i * w + j];
        ++seen;
        if (v < 0)
          continue;
        if (v == 0)
          break;
        sum += v;
      }
      for (int k2 = 1; k2 <= i % 13; ++k2)
        if (k2 % 2)
          odd += k2;
      int32_t want[3] = {sum, seen, odd};
      for (int j = 0; j < 3; ++j)
        if (g[3 * i + j] != want[j] && bad++ < 12)
          FAIL_CHECK("loop " << j << " at " << i << ": GPU " << g[3 * i + j] << ", expected "
                             << want[j]);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("atomic_min/max on u32/u64 compare unsigned; atomic_add on f64", "[arith_types]") {
  std::mt19937_64 rng(kSeed ^ 0xa70);
  const int n = 10000;
  std::vector<uint32_t> a(n);
  std::vector<double> d(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<uint32_t>(rng()) | 0x80000000u; // all "negative" as i32
    d[i] = static_cast<double>(static_cast<int>(rng() % 2001) - 1000) * 0.5; // exact sums
  }
  a[n / 2] = 0x80000001u;
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::DeviceBuffer<uint32_t> dA(n), umin(1);
  tile::DeviceBuffer<uint64_t> umax(1);
  tile::DeviceBuffer<double> dD(n), fsum(1);
  dA.copyFrom(a);
  dD.copyFrom(d);
  umin.copyFrom(std::vector<uint32_t>{0xffffffffu});
  umax.copyFrom(std::vector<uint64_t>{0});
  fsum.copyFrom(std::vector<double>{0.25});
  tile::Kernel k = m.kernel("atomics");
  launch1d(k, n, umin, umax, fsum, dA, dD);
  ctx.synchronize();
  uint32_t wantMin = *std::min_element(a.begin(), a.end());
  uint64_t wantMax = static_cast<uint64_t>(*std::max_element(a.begin(), a.end())) << 32;
  double wantSum = 0.25;
  for (double v : d)
    wantSum += v;
  CHECK(umin.toHost()[0] == wantMin);
  CHECK(umax.toHost()[0] == wantMax);
  CHECK(fsum.toHost()[0] == wantSum);
}
