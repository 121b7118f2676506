//===- TileTmaOps.cpp - verifiers of tile layouts and TMA ops --------------===//
#include "tile/Dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

int64_t TileLayoutAttr::getRows() const {
  int64_t rows = 1;
  for (int64_t d : getShape().drop_back())
    rows *= d;
  return rows;
}

/// The layout's own consistency, and its element type against the tile's.
static LogicalResult verifyLayout(Operation *op, TileLayoutAttr layout, Type elem) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.empty() || shape.size() > 5)
    return op->emitOpError("layout rank must be 1..5");
  for (int64_t d : shape)
    if (d < 1)
      return op->emitOpError("layout dimensions must be positive");
  int64_t sw = layout.getSwizzle();
  if (sw != 0 && sw != 32 && sw != 64 && sw != 128)
    return op->emitOpError("swizzle must be 0, 32, 64 or 128 bytes");
  int64_t panel = layout.getPanel();
  if (panel < 1 || shape.back() % panel != 0)
    return op->emitOpError("panel must divide the inner dimension");
  if (sw && panel * scalarByteWidth(elem) != sw)
    return op->emitOpError("a swizzled panel is exactly the swizzle span wide");
  return success();
}

LogicalResult TileElementOp::verify() {
  auto elem = cast<PtrType>(getBase().getType()).getElementType();
  if (getIndices().size() != getLayout().getShape().size())
    return emitOpError("needs one index per layout dimension");
  return verifyLayout(*this, getLayout(), elem);
}

static LogicalResult verifyCopy(Operation *op, Value tile, TensorMapType map, size_t coords,
                                TileLayoutAttr layout) {
  Type elem = cast<PtrType>(tile.getType()).getElementType();
  if (map.getElementType() != elem)
    return op->emitOpError("tile and tensor map element types differ");
  // A tile of lower rank is the box with its leading extents 1.
  if (coords != map.getRank())
    return op->emitOpError("needs one coordinate per tensor dimension");
  if (layout.getShape().size() > map.getRank())
    return op->emitOpError("tile rank ") << layout.getShape().size()
           << " exceeds the tensor map's rank " << map.getRank();
  return verifyLayout(op, layout, elem);
}

LogicalResult TmaLoadOp::verify() {
  if (auto axis = getMulticastAxis(); axis && *axis > 3) // unsigned: a negative value is large
    return emitOpError("multicast_axis must be 0..3");
  return verifyCopy(*this, getTile(), getMap().getType(), getCoords().size(), getLayout());
}

LogicalResult TmaStoreOp::verify() {
  return verifyCopy(*this, getTile(), getMap().getType(), getCoords().size(), getLayout());
}

int64_t TmaLoadOp::getTileBytes() {
  int64_t n = scalarByteWidth(cast<PtrType>(getTile().getType()).getElementType());
  for (int64_t d : getLayout().getShape())
    n *= d;
  return n;
}
