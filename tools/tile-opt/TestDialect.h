//===- TestDialect.h - test-only ops for tile-opt ---------------*- C++ -*-===//
#ifndef TILE_OPT_TESTDIALECT_H
#define TILE_OPT_TESTDIALECT_H

#include "tile/Dialect/TileDialect.h"

#include "TestDialect.h.inc"
#define GET_OP_CLASSES
#include "TestOps.h.inc"

#endif
