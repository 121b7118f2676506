//===- NaNBits.h - the NaN a folded operation leaves ------------*- C++ -*-===//
//
// A float operation whose result is NaN gives the same bits whether the GPU
// computes it or a folder does (docs/reference/operators.md, "NaN bits"). The
// GPU's arithmetic returns one NaN per type (measured on an H200: 0x7fffffff
// for f32, 0x7fff for f16 and bf16, 0xfff8000000000000 for f64); MLIR's and
// LLVM's folders return LLVM's default NaN (0x7fc00000) and move its sign.
// MLIRGen marks the values whose bits the program spelled (`nan`,
// `bitcast<f32>(0x7fc00001)`) and the operations that move a NaN's bits
// instead of computing a new one (a bitcast to an integer, a conversion);
// tile-prune-float-bit-marks keeps the marks where a folder could make the
// value a NaN constant; EmitPTX gives every other NaN constant left after
// optimisation the GPU's bits.
// Header-only, no dependency.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_NANBITS_H
#define TILEC_TARGET_NANBITS_H

namespace tile::target {

/// The function MLIRGen calls on a float before a bitcast or a conversion reads its bits
/// (`tilec.float_bits.f32`, one per type: the suffix is the MLIR type). It
/// is declared without a body and without memory effects, so that the
/// optimiser keeps the call (it cannot fold the bits of a NaN it made
/// before EmitPTX has canonicalised them) but may move or merge it; EmitPTX
/// replaces each call by its operand. The `.` keeps it apart from every
/// tile name.
inline constexpr const char *kFloatBitsFunctionPrefix = "tilec.float_bits.";

} // namespace tile::target

#endif
