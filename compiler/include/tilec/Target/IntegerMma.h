//===- IntegerMma.h - wgmma's integer kind (.s8/.u8 into .s32) --*- C++ -*-===//
//
// The shape rule of the integer wgmma that Sema (the source's diagnostic)
// and tile.mma's verifier share, written once. Header-only, no dependency.
// K is 32 per instruction as for fp8 (TargetFacts.h, wgmmaK of 1-byte
// elements); both operands are K-major.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_INTEGERMMA_H
#define TILEC_TARGET_INTEGERMMA_H

#include <cstdint>

namespace tile::target {

/// N of the integer .m64nNk32 (.s8/.u8 into .s32): 8, 16, 24, or a multiple
/// of 16 in 32..256 (PTX ISA 9.7.15.5 "wgmma.mma_async", the shapes table:
/// fewer than the 16-bit and fp8 kinds, which take every multiple of 8).
constexpr bool isWgmmaIntegerN(int64_t n) {
  return n == 8 || n == 16 || n == 24 || (n >= 32 && n <= 256 && n % 16 == 0);
}

} // namespace tile::target

#endif
