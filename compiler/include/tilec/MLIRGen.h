//===- MLIRGen.h - typed AST -> tile dialect --------------------*- C++ -*-===//
#ifndef TILEC_MLIRGEN_H
#define TILEC_MLIRGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tile::frontend {
struct ModuleAST;
}

namespace mlir::tile {
/// Code generation choices that change results (docs/reference/operators.md "Floats").
struct MLIRGenOptions {
  /// Mark float + - * contractible, so `a * b + c` may become fma.rn (nvcc's
  /// -fmad=true); off: every product and sum is rounded (tilec --fmad=false).
  bool fmad = true;
};

/// Emits a module of tile.kernel ops (bodies in tile, arith and scf) for a
/// module that passed frontend::checkModule. Every op carries the FileLineColLoc
/// of the source construct it came from.
OwningOpRef<ModuleOp> mlirGen(MLIRContext &context, const ::tile::frontend::ModuleAST &module,
                              const MLIRGenOptions &options = {});
} // namespace mlir::tile

#endif
