//===- FloatLiterals.cpp - exact rounding of literals to f16/bf16/f32 -------===//
//
// A float literal means the value of the target type nearest to its decimal
// spelling (round-to-nearest-even, as C's strtof), and it is an error only
// when that rounding overflows. Rounding decimal -> double -> target in two
// steps can differ from one correct rounding (double rounding), so the
// literal is first converted to a *round-to-odd* double: truncated, with its
// last bit set when the conversion was inexact. Rounding a round-to-odd
// value of p + 2 or more bits to p bits gives the correctly rounded result
// (Boldo & Melquiond); double has 53 bits, f32 24, bf16 8, f16 11.
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Types.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tile::frontend {

namespace {
/// The decimal `text` (no sign) converted under `mode`.
double parseUnder(const std::string &text, int mode) {
  int saved = std::fegetround();
  std::fesetround(mode);
  double v = std::strtod(text.c_str(), nullptr); // glibc honours the rounding mode
  std::fesetround(saved);
  return v;
}

double withLastBitSet(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits |= 1;
  std::memcpy(&v, &bits, sizeof bits);
  return v;
}

struct Format {
  int precision; // significand bits, the implicit one included
  int minExponent;
  int maxExponent;
};

Format formatOf(ScalarKind k) {
  switch (k) {
  case ScalarKind::F16:
    return {11, -14, 15};
  case ScalarKind::BF16:
    return {8, -126, 127};
  case ScalarKind::F64:
    return {53, -1022, 1023};
  default:
    return {24, -126, 127};
  }
}
} // namespace

double parseFloatRoundToOdd(const std::string &text, bool &overflow) {
  double down = parseUnder(text, FE_TOWARDZERO);
  double up = parseUnder(text, FE_UPWARD);
  overflow = std::isinf(up);
  return down == up ? down : withLastBitSet(down);
}

double parseFloatNearest(const std::string &text) { return parseUnder(text, FE_TONEAREST); }

double roundToOddFromUnsigned(uint64_t v) {
  int bits = 64 - __builtin_clzll(v | 1);
  if (bits <= 53)
    return (double)v;
  int shift = bits - 53;
  uint64_t kept = v >> shift;
  if (v & ((uint64_t(1) << shift) - 1))
    kept |= 1;
  return std::ldexp((double)kept, shift);
}

std::optional<double> roundToFloatKind(double roundToOdd, ScalarKind kind) {
  if (roundToOdd == 0 || !std::isfinite(roundToOdd))
    return std::isfinite(roundToOdd) ? std::optional<double>(roundToOdd) : std::nullopt;
  Format f = formatOf(kind);
  double a = std::fabs(roundToOdd);
  int exponent = std::ilogb(a);
  if (exponent < f.minExponent)
    exponent = f.minExponent; // subnormal: a fixed quantum
  double quantum = std::ldexp(1.0, exponent - (f.precision - 1));
  // a / quantum is exact (a power-of-two scaling); nearbyint rounds to
  // nearest-even in the default rounding mode.
  double rounded = std::nearbyint(a / quantum) * quantum;
  if (rounded >= std::ldexp(1.0, f.maxExponent + 1))
    return std::nullopt;
  return std::copysign(rounded, roundToOdd);
}

double largestFinite(ScalarKind kind) {
  Format f = formatOf(kind);
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.maxExponent);
}

} // namespace tile::frontend
