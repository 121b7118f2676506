//===- MmaSignedness.h - .s8 or .u8 operands of tile.mma ---------*- C++ -*-===//
//
// MLIR's i8 is signless, so a tile.mma of i8 tiles (wgmma's integer kind,
// PTX ISA 9.7.15.5: .s8 or .u8 per operand, an .s32 accumulator) says which
// operand is unsigned with a unit attribute, `a_unsigned` / `b_unsigned`
// (absent: .s8). MLIRGen sets them from the tiles' source types (u8),
// MmaOp::verify allows them on i8 operands only, the lowering picks the
// wgmma types from them.
//===----------------------------------------------------------------------===//
#ifndef TILE_DIALECT_MMASIGNEDNESS_H
#define TILE_DIALECT_MMASIGNEDNESS_H

#include "mlir/IR/Operation.h"

namespace mlir::tile {

inline constexpr llvm::StringLiteral kMmaAUnsignedAttr = "a_unsigned";
inline constexpr llvm::StringLiteral kMmaBUnsignedAttr = "b_unsigned";

/// Whether tile.mma `op` reads operand a (`b` false) or b as .u8.
inline bool isMmaOperandUnsigned(Operation *op, bool b) {
  return op->hasAttr(b ? kMmaBUnsignedAttr : kMmaAUnsignedAttr);
}

} // namespace mlir::tile

#endif
