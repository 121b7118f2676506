//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
#ifndef TILE_DIALECT_TILEDIALECT_H
#define TILE_DIALECT_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <array>

#include "tile/Dialect/TileDialect.h.inc"
#include "tile/Dialect/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.h.inc"
// What ops do to memory and mbarriers; the sync passes read only these.
#include "tile/Dialect/TileInterfaces.h.inc"
#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.h.inc"

namespace mlir::tile {
/// Width in bytes of a tile scalar type (i1 counts as one byte; pointers 8).
int64_t scalarByteWidth(Type type);
/// The narrowest scope that covers every thread able to reach `space`.
MemoryScope defaultScopeFor(AddressSpace space);
/// `s` as text of a tile.hang_trap message, which is a printf format: every
/// '%' doubled (file names and user names may contain one).
std::string escapePrintfText(llvm::StringRef s);
} // namespace mlir::tile

#endif // TILE_DIALECT_TILEDIALECT_H
