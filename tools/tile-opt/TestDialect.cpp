//===- TestDialect.cpp - test-only ops for tile-opt ------------------------===//
#include "TestDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::test;

#include "TestDialect.cpp.inc"
#define GET_OP_CLASSES
#include "TestOps.cpp.inc"

void TileTestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TestOps.cpp.inc"
      >();
}
