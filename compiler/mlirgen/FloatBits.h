//===- FloatBits.h - floats whose bits the program sees ---------*- C++ -*-===//
//
// NaN bits (docs/reference/operators.md, "NaN bits"): the GPU's arithmetic
// returns its canonical NaN, the folders LLVM's default one, and EmitPTX
// makes every NaN constant left after optimisation canonical
// (tilec/Target/NaNBits.h). Two kinds of value must not take part in that;
// MLIRGen marks every one the source has with these (MLIRGenTypes.cpp), and
// tile-prune-float-bit-marks keeps the marks a folder could act on.
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

/// `x` before an operation that moves a NaN's sign or payload bits instead
/// of computing a new NaN (a bitcast to an integer, a conversion between
/// float types): a call the folders cannot look into, which EmitPTX
/// replaces by its operand, or, for a NaN constant, by the canonical NaN
/// kept from the code generator's folds, so that the GPU's instruction
/// moves the GPU's NaN.
Value readFloatBits(OpBuilder &builder, ModuleOp module, Location l, Value x);

} // namespace mlir::tile::mlirgen

#endif
