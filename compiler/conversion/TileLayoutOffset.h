//===- TileLayoutOffset.h - byte offsets in a #tile.layout tile -*- C++ -*-===//
//
// The one implementation of TileLayoutAttr's addressing rule (panels, then
// the swizzle XOR of the 16-byte chunk bits), shared by the generic
// accesses of a tile (TmaToNVVM.cpp, tile.tile_element) and the fragment
// stores (EpilogueToNVVM.cpp), so both write the bytes TMA and wgmma read.
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_TILELAYOUTOFFSET_H
#define TILEC_CONVERSION_TILELAYOUTOFFSET_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
/// Byte offset (i32) of element `indices` (one per dimension, outermost
/// first, non-negative) of a tile with `layout` and `elemBytes`-byte elements.
Value layoutOffset(OpBuilder &b, Location loc, TileLayoutAttr layout, int64_t elemBytes,
                   ValueRange indices);
} // namespace mlir::tile

#endif
