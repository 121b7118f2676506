//===- FloatBits.cpp - the float formats' bits, as the device converts ----===//
//
// One model of the narrow float formats for every host-side user: a Python
// float passed for an f16/bf16/fp8 parameter, the launch-time evaluation of
// a size expression that converts a parameter, the samples' test data and
// references. The device's conversions it models (PTX ISA, cvt):
//  - f32, f16, bf16: cvt.rn, round to nearest even; a value past the largest
//    finite rounds to infinity;
//  - e4m3, e5m2: cvt.rn.satfinite (the only fp8 conversions sm_90 has), round
//    to nearest even, then a finite value past the largest finite and an
//    infinity saturate to the largest finite of its sign; NaN becomes 0x7f.
// e4m3 is the "fn" encoding: no infinities, S.1111.111 is NaN, so its largest
// finite is 1.75 * 2^8 = 448; e5m2 is IEEE-like (0x7c is infinity), largest
// finite 1.75 * 2^15 = 57344.
//===----------------------------------------------------------------------===//
#include "tile/kernel_info.h"

#include <cmath>
#include <cstring>

namespace tile {

namespace {

struct Format {
  int mantissaBits, exponentBits;
  bool infinities; // IEEE: the top exponent field holds infinities and NaNs
  bool satfinite;  // overflow saturates instead of reaching infinity
  uint64_t nan;    // the bits of the NaN a conversion produces
  int bias() const { return (1 << (exponentBits - 1)) - 1; }
  int minExponent() const { return 1 - bias(); }
  int topExponentField() const { return (1 << exponentBits) - (infinities ? 2 : 1); }
  /// The largest finite mantissa field (e4m3's all-ones one at the top
  /// exponent is NaN).
  uint64_t topMantissa() const { return (uint64_t(1) << mantissaBits) - (infinities ? 1 : 2); }
  double maxFinite() const {
    return std::ldexp(double((uint64_t(1) << mantissaBits) + topMantissa()),
                      topExponentField() - bias() - mantissaBits);
  }
};

Format formatOf(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
    return {10, 5, true, false, 0x7e00};
  case ScalarType::BF16:
    return {7, 8, true, false, 0x7fc0};
  case ScalarType::E4M3:
    return {3, 4, false, true, 0x7f};
  case ScalarType::E5M2:
    return {2, 5, true, true, 0x7f};
  default: // f32
    return {23, 8, true, false, 0x7fc00000};
  }
}

} // namespace

bool isFp8Type(ScalarType t) { return t == ScalarType::E4M3 || t == ScalarType::E5M2; }

uint64_t floatBits(ScalarType t, double x) {
  if (t == ScalarType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &x, 8);
    return bits;
  }
  const Format f = formatOf(t);
  if (std::isnan(x))
    return f.nan;
  const int m = f.mantissaBits;
  const uint64_t sign = std::signbit(x) ? uint64_t(1) << (m + f.exponentBits) : 0;
  const uint64_t largest =
      sign | (uint64_t(f.topExponentField()) << m) | f.topMantissa();
  const uint64_t infinity = sign | (uint64_t((1 << f.exponentBits) - 1) << m);
  const double a = std::fabs(x);
  if (a == 0)
    return sign;
  if (std::isinf(a))
    return f.satfinite ? largest : infinity;
  // a = q * 2^(e - m) with q rounded to an integer of at most m + 1 bits
  // (nearest even: the default rounding mode); below the normal range the
  // step stays the smallest normal's (subnormals).
  int e = std::ilogb(a);
  if (e < f.minExponent())
    e = f.minExponent();
  double q = std::nearbyint(std::ldexp(a, m - e));
  if (std::ldexp(q, e - m) > f.maxFinite())
    return f.satfinite ? largest : infinity;
  if (q == std::ldexp(1.0, m + 1)) { // rounded up into the next binade
    q = std::ldexp(1.0, m);
    ++e;
  }
  const uint64_t mantissa = uint64_t(q);
  if (mantissa < (uint64_t(1) << m)) // a subnormal (or zero): exponent field 0
    return sign | mantissa;
  return sign | (uint64_t(e + f.bias()) << m) | (mantissa - (uint64_t(1) << m));
}

double floatValue(ScalarType t, uint64_t bits) {
  if (t == ScalarType::F64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  const Format f = formatOf(t);
  const int m = f.mantissaBits;
  const uint64_t mantissaMask = (uint64_t(1) << m) - 1;
  const uint64_t mantissa = bits & mantissaMask;
  const int field = int((bits >> m) & ((1u << f.exponentBits) - 1));
  const double sign = (bits >> (m + f.exponentBits)) & 1 ? -1.0 : 1.0;
  if (f.infinities && field == (1 << f.exponentBits) - 1)
    return mantissa ? std::nan("") : sign * HUGE_VAL;
  if (!f.infinities && field == (1 << f.exponentBits) - 1 && mantissa == mantissaMask)
    return std::nan("");
  if (field == 0)
    return sign * std::ldexp(double(mantissa), f.minExponent() - m);
  return sign * std::ldexp(double(mantissa | (uint64_t(1) << m)), field - f.bias() - m);
}

double roundToFloat(ScalarType t, double x) {
  return t == ScalarType::F64 ? x : floatValue(t, floatBits(t, x));
}

} // namespace tile
