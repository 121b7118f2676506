//===- TileDialect.cpp - dialect, types and attributes ---------------------===//
#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/TileDialect.cpp.inc"
#include "tile/Dialect/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/TileOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/TileAttrs.cpp.inc"
      >();
}

int64_t mlir::tile::scalarByteWidth(Type type) {
  if (isa<PtrType>(type))
    return 8; // a pointer held in a `var` (local memory only); 8 covers every space
  if (type.isInteger(1))
    return 1;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

MemoryScope mlir::tile::defaultScopeFor(AddressSpace space) {
  switch (space) {
  case AddressSpace::shared:
  case AddressSpace::local:
    return MemoryScope::cta;
  case AddressSpace::cluster:
    return MemoryScope::cluster;
  case AddressSpace::global:
    return MemoryScope::gpu;
  }
  return MemoryScope::sys;
}
