// CPU references shared by the GPU arithmetic tests (arith_semantics_test.cpp,
// arith_types_test.cpp): the conversions and comparisons their expected values
// are computed with, written once.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace arith_ref {

// float -> integer: toward zero, saturating, NaN -> 0.
template <class T> inline T refToInt(double v) {
  if (std::isnan(v))
    return 0;
  double t = std::trunc(v);
  if (t < std::ldexp(-1.0, sizeof(T) * 8 - 1))
    return std::numeric_limits<T>::min();
  if (t >= std::ldexp(1.0, sizeof(T) * 8 - 1))
    return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

inline double halfToDouble(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 31)
    return m ? std::nan("") : s * INFINITY;
  if (e == 0)
    return s * std::ldexp(m, -24);
  return s * std::ldexp(1024 + m, e - 25);
}

inline double bf16ToDouble(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Compares float results: bit-exact, except that any NaN matches a NaN.
inline bool sameFloat(double want, double got) {
  if (std::isnan(want))
    return std::isnan(got);
  return want == got && std::signbit(want) == std::signbit(got);
}

} // namespace arith_ref
