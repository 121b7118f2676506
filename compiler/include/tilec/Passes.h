//===- Passes.h - tilec passes ----------------------------------*- C++ -*-===//
#ifndef TILEC_PASSES_H
#define TILEC_PASSES_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include <memory>

namespace mlir::tile {
#define GEN_PASS_DECL
#include "tilec/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

#endif
