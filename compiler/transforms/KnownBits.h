//===- KnownBits.h - what the low bits of an integer value are known to be -===//
#ifndef TILEC_TRANSFORMS_KNOWNBITS_H
#define TILEC_TRANSFORMS_KNOWNBITS_H

#include "mlir/IR/Value.h"

#include <cstdint>
#include <optional>

namespace mlir::tile {

/// knownZeroBits of a value that is 0: a multiple of everything.
inline constexpr unsigned kAllZeroBits = 63;

/// How many low bits of the integer `v` are known to be zero, from the
/// arithmetic that computes it (constants, + - * <<, and, or, xor, select,
/// casts, an scf.for's induction variable lb + k * step).
unsigned knownZeroBits(Value v);

/// `v` modulo 2^bits (bits < 64) where the arithmetic that computes it
/// determines it, else nullopt: the low bits of a sum, difference, product
/// or bitwise and/or/xor depend only on the operands' low bits.
std::optional<uint64_t> knownLowBits(Value v, unsigned bits);

} // namespace mlir::tile

#endif
