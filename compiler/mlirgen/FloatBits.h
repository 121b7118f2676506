//===- FloatBits.h - floats whose bits the program sees ---------*- C++ -*-===//
//
// NaN bits (docs/reference/operators.md, "NaN bits"): the GPU's arithmetic
// returns the canonical NaN, the folders LLVM's default one, and EmitPTX
// makes every NaN constant left after optimisation canonical
// (tilec/Target/NaNBits.h). Two kinds of value must not take part in that;
// MLIRGen marks them with these (MLIRGenTypes.cpp).
//===----------------------------------------------------------------------===//
#ifndef TILEC_MLIRGEN_FLOATBITS_H
#define TILEC_MLIRGEN_FLOATBITS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile::mlirgen {

/// A float whose bits the program spelled (`nan`, `bitcast<f32>(k)`, a
/// `const`'s NaN): llvm.arithmetic.fence, which no folder looks through
/// and NVPTX emits as nothing, so `nan + 1.0` is computed as the GPU
/// computes it and a stored `nan` stays 0x7fc00000.
Value pinFloatBits(OpBuilder &builder, Location l, Value x);

/// `x` before a bitcast reads its bits: a call the folders cannot look
/// into, so that the bits of a NaN a folder made are read after EmitPTX
/// made it canonical (EmitPTX replaces the call by its operand).
Value readFloatBits(OpBuilder &builder, ModuleOp module, Location l, Value x);

} // namespace mlir::tile::mlirgen

#endif
