// tile::floatBits / floatValue: the host's model of the device's float
// conversions (cvt.rn for f16/bf16/f32, cvt.rn.satfinite for e4m3/e5m2),
// checked against the host compiler's own conversions where it has them
// (_Float16, float) and against the formats' definitions for bf16 and fp8;
// and the two places that rely on it: size expressions that convert a
// parameter, and the argument kinds a C++ host passes for these types.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "tile/kernel_info.h"

using tile::floatBits;
using tile::floatValue;
using tile::ScalarType;
using tile::SizeExpr;
using Op = tile::SizeExpr::Op;

namespace {

bool sameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

// The doubles next to every value of a format: each value, the midpoints to
// its neighbours (ties), and a hair on each side of them.
template <class F> void aroundEveryValue(ScalarType t, unsigned codes, F check) {
  for (uint64_t c = 0; c < codes; ++c) {
    const double v = floatValue(t, c), next = floatValue(t, c + 1);
    if (!std::isfinite(v))
      continue;
    check(v);
    if (std::isfinite(next) && c + 1 < codes && std::signbit(next) == std::signbit(v)) {
      const double mid = (v + next) / 2;
      check(mid);
      check(std::nextafter(mid, 0.0));
      check(std::nextafter(mid, HUGE_VAL * (v < 0 ? -1 : 1)));
    }
  }
}

} // namespace

#ifdef __FLT16_MAX__
TEST_CASE("float bits: f16 as the host compiler's _Float16 converts", "[floatbits]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    _Float16 h;
    const uint16_t bits = uint16_t(b);
    std::memcpy(&h, &bits, 2);
    INFO(b);
    REQUIRE(sameValue(floatValue(ScalarType::F16, b), double(h)));
  }
  size_t checked = 0;
  aroundEveryValue(ScalarType::F16, 0x10000, [&](double x) {
    const _Float16 h = _Float16(x);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    INFO(x);
    REQUIRE(floatBits(ScalarType::F16, x) == want);
    ++checked;
  });
  CHECK(checked > 200000);
  CHECK(floatBits(ScalarType::F16, 65519.0) == 0x7bff);
  CHECK(floatBits(ScalarType::F16, 65520.0) == 0x7c00); // the first value that rounds to inf
  CHECK(floatBits(ScalarType::F16, -HUGE_VAL) == 0xfc00);
}
#endif

TEST_CASE("float bits: bf16 and f32 round to nearest even, overflow to infinity", "[floatbits]") {
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 200000; ++i) {
    uint32_t w = any(gen);
    float f;
    std::memcpy(&f, &w, 4);
    if (std::isnan(f))
      continue;
    // f32 -> bf16, nearest even, is this integer rounding of the bits.
    const uint32_t want = (w + 0x7fffu + ((w >> 16) & 1u)) >> 16;
    INFO(w);
    REQUIRE(floatBits(ScalarType::BF16, f) == want);
    REQUIRE(floatBits(ScalarType::F32, f) == w);
    REQUIRE(sameValue(floatValue(ScalarType::F32, w), f));
    uint32_t high = uint32_t(floatBits(ScalarType::BF16, f)) << 16;
    float back;
    std::memcpy(&back, &high, 4);
    REQUIRE(sameValue(floatValue(ScalarType::BF16, high >> 16), back));
    const double d = std::ldexp(double(any(gen)) + 0.5, int(any(gen) % 300) - 180);
    REQUIRE(floatBits(ScalarType::F32, d) == [&] {
      const float g = float(d); // one rounding from the double
      uint32_t bits;
      std::memcpy(&bits, &g, 4);
      return bits;
    }());
  }
  CHECK(std::isnan(floatValue(ScalarType::BF16, floatBits(ScalarType::BF16, NAN))));
}

TEST_CASE("float bits: e4m3 and e5m2 as cvt.rn.satfinite", "[floatbits]") {
  // The formats' definitions: e4m3 bias 7, 3 mantissa bits, no infinity,
  // S.1111.111 NaN; e5m2 bias 15, 2 mantissa bits, IEEE infinities.
  CHECK(floatValue(ScalarType::E4M3, 0x38) == 1.0);
  CHECK(floatValue(ScalarType::E4M3, 0x7e) == 448.0);
  CHECK(floatValue(ScalarType::E4M3, 0x78) == 256.0); // the top exponent holds numbers
  CHECK(std::isnan(floatValue(ScalarType::E4M3, 0x7f)));
  CHECK(std::isnan(floatValue(ScalarType::E4M3, 0xff)));
  CHECK(floatValue(ScalarType::E4M3, 0x01) == std::ldexp(1.0, -9)); // smallest subnormal
  CHECK(floatValue(ScalarType::E4M3, 0x08) == std::ldexp(1.0, -6)); // smallest normal
  CHECK(floatValue(ScalarType::E4M3, 0xb8) == -1.0);
  CHECK(floatValue(ScalarType::E5M2, 0x3c) == 1.0);
  CHECK(floatValue(ScalarType::E5M2, 0x7b) == 57344.0);
  CHECK(floatValue(ScalarType::E5M2, 0x7c) == HUGE_VAL);
  CHECK(std::isnan(floatValue(ScalarType::E5M2, 0x7d)));
  CHECK(floatValue(ScalarType::E5M2, 0x01) == std::ldexp(1.0, -16));

  for (ScalarType t : {ScalarType::E4M3, ScalarType::E5M2}) {
    const uint64_t largest = t == ScalarType::E4M3 ? 0x7e : 0x7b;
    const double maxFinite = floatValue(t, largest);
    double previous = -1;
    for (uint64_t c = 0; c < 256; ++c) {
      const double v = floatValue(t, c);
      INFO(tile::scalarTypeName(t) << " code " << c);
      if (std::isnan(v))
        continue;
      if (std::isinf(v)) { // e5m2's infinities saturate
        CHECK(floatBits(t, v) == (c & 0x80) + largest);
        continue;
      }
      REQUIRE(floatBits(t, v) == c); // every value encodes to itself (-0 included)
      if (c < 0x80 && c > 0) {
        REQUIRE(v > previous); // codes are ordered as their values
        // The midpoint to the previous value is a tie: the even code wins.
        const double mid = (v + previous) / 2;
        REQUIRE(floatBits(t, mid) == ((c & 1) ? c - 1 : c));
        REQUIRE(floatBits(t, std::nextafter(mid, 0.0)) == c - 1);
        REQUIRE(floatBits(t, std::nextafter(mid, HUGE_VAL)) == c);
        REQUIRE(floatBits(t, -mid) == 0x80 + ((c & 1) ? c - 1 : c));
      }
      if (c < 0x80)
        previous = v;
    }
    // satfinite: past the largest finite, and the infinities, give it.
    CHECK(floatBits(t, maxFinite * 1.0625) == largest);
    CHECK(floatBits(t, 1e30) == largest);
    CHECK(floatBits(t, HUGE_VAL) == largest);
    CHECK(floatBits(t, -HUGE_VAL) == 0x80 + largest);
    CHECK(floatBits(t, std::numeric_limits<double>::quiet_NaN()) == 0x7f);
    CHECK(floatBits(t, std::ldexp(1.0, -40)) == 0x00); // underflow to zero keeps the sign
    CHECK(floatBits(t, -std::ldexp(1.0, -40)) == 0x80);
  }
  // e4m3: 464 is the tie between 448 and 480 (480's code is NaN): 448.
  CHECK(floatBits(ScalarType::E4M3, 464.0) == 0x7e);
  CHECK(floatBits(ScalarType::E4M3, std::ldexp(1.0, -10)) == 0x00);   // tie: even (0)
  CHECK(floatBits(ScalarType::E4M3, 3 * std::ldexp(1.0, -10)) == 0x02); // tie: even (2)
  CHECK(tile::isFloatType(ScalarType::E4M3));
  CHECK(tile::isFp8Type(ScalarType::E5M2));
  CHECK_FALSE(tile::isFp8Type(ScalarType::F16));
}

namespace {

tile::KernelInfo oneParamKernel(ScalarType param, SizeExpr count) {
  tile::KernelInfo k;
  k.name = "k";
  tile::KernelParamInfo p;
  p.name = "x";
  p.scalar = param;
  p.size = tile::scalarBytes(param);
  p.align = p.size;
  k.params = {p};
  tile::DynamicSharedArray a;
  a.name = "a";
  a.element = ScalarType::I8;
  a.elementSize = 1;
  a.count = std::move(count);
  k.dynamicShared.push_back(std::move(a));
  return k;
}

SizeExpr cast(ScalarType to, SizeExpr e) { return SizeExpr::unary(Op::Cast, to, std::move(e)); }

} // namespace

TEST_CASE("float bits: sizes that convert an f16, bf16, fp8 or f64 parameter", "[floatbits]") {
  // `(x as f32) as i32` for x: e4m3 = 1.0 (0x38) is 1 element, not 0x38.
  for (auto [t, bits, count] : {std::tuple{ScalarType::E4M3, uint64_t(0x38), 1ul},
                                std::tuple{ScalarType::E4M3, uint64_t(0x7e), 448ul},
                                std::tuple{ScalarType::E5M2, uint64_t(0x4a), 12ul},
                                std::tuple{ScalarType::F16, uint64_t(0x4a00), 12ul},
                                std::tuple{ScalarType::BF16, uint64_t(0x4140), 12ul}}) {
    INFO(tile::scalarTypeName(t) << " " << bits);
    auto k = oneParamKernel(
        t, cast(ScalarType::I32, cast(ScalarType::F32, SizeExpr::paramRef(t, 0))));
    void *args[] = {&bits};
    CHECK(k.dynamicSharedBytes(args, 1) == count);
  }
  // f32 -> e4m3 saturates (cvt.rn.satfinite): ((f as e4m3) as f32) as i32.
  auto sat = oneParamKernel(
      ScalarType::F32,
      cast(ScalarType::I32,
           cast(ScalarType::F32,
                cast(ScalarType::E4M3, SizeExpr::paramRef(ScalarType::F32, 0)))));
  float f = 1000.0f;
  void *fargs[] = {&f};
  CHECK(sat.dynamicSharedBytes(fargs, 1) == 448);
  f = 27.0f; // between 26 and 28 (step 2 in [16, 32)): a tie, even mantissa: 28
  CHECK(sat.dynamicSharedBytes(fargs, 1) == 28);
  // An f64 product stays an f64 (not rounded to f32): (d * d) as i32 with
  // d * d just below 9 is 8 on the device; rounded to f32 it would be 9.
  auto product = oneParamKernel(
      ScalarType::F64,
      cast(ScalarType::I32, SizeExpr::binary(Op::Mul, ScalarType::F64,
                                             SizeExpr::paramRef(ScalarType::F64, 0),
                                             SizeExpr::paramRef(ScalarType::F64, 0))));
  double d = std::sqrt(9.0 - 1e-9);
  void *dargs[] = {&d};
  CHECK(product.dynamicSharedBytes(dargs, 1) == 8);
}

TEST_CASE("float bits: a C++ host passes f16, bf16 and fp8 as their bits", "[floatbits]") {
  using K = tile::ArgDesc::Kind;
  for (ScalarType t : {ScalarType::F16, ScalarType::BF16, ScalarType::E4M3, ScalarType::E5M2}) {
    auto k = oneParamKernel(t, SizeExpr::literal(ScalarType::I32, 1));
    const size_t bytes = tile::scalarBytes(t);
    tile::ArgDesc asBits[] = {{K::Integer, bytes}};
    INFO(tile::scalarTypeName(t));
    CHECK(tile::checkArgumentKinds(k, asBits, 1).empty());
    tile::ArgDesc asFloat[] = {{K::Float, 4}};
    CHECK_THAT(tile::checkArgumentKinds(k, asFloat, 1),
               Catch::Contains("pass the " + std::to_string(bytes * 8) + "-bit pattern as a uint" +
                               std::to_string(bytes * 8) + "_t"));
  }
}
