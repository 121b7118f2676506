//===- TileEpilogueOps.cpp - verifiers of the fragment epilogue ops -------===//
#include "tile/Dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

/// `value` is a fragment of type `frag` or a scalar of its element type.
static LogicalResult verifyFragOrScalar(Operation *op, Value value, FragType frag, StringRef what) {
  Type t = value.getType();
  if (t == frag || t == frag.getElementType())
    return success();
  return op->emitOpError() << what << " must be " << frag << " or its element type "
                           << frag.getElementType() << ", found " << t;
}

/// Two or three operands, at least one a fragment: the result's type.
static LogicalResult verifyElementwise(Operation *op, ValueRange operands, FragType result) {
  bool anyFragment = false;
  for (auto [i, v] : llvm::enumerate(operands)) {
    anyFragment |= isa<FragType>(v.getType());
    if (failed(verifyFragOrScalar(op, v, result, "operand #" + std::to_string(i))))
      return failure();
  }
  if (!anyFragment)
    return op->emitOpError("needs at least one fragment operand");
  return success();
}

LogicalResult FragArithOp::verify() {
  return verifyElementwise(*this, {getLhs(), getRhs()}, getType());
}

LogicalResult FragFmaOp::verify() {
  return verifyElementwise(*this, {getA(), getB(), getC()}, getType());
}

LogicalResult FragConvertOp::verify() {
  auto from = cast<FragType>(getValue().getType());
  FragType to = getType();
  if (from.getRows() != to.getRows() || from.getCols() != to.getCols())
    return emitOpError("converts between fragments of one shape");
  return success();
}

LogicalResult FragColsOp::verify() {
  auto from = cast<FragType>(getValue().getType());
  FragType to = getType();
  if (from.getRows() != to.getRows() || from.getElementType() != to.getElementType())
    return emitOpError("keeps the rows and the element type");
  int64_t first = getFirst();
  if (first < 0 || first % 8 != 0 || to.getCols() % 8 != 0 || first + to.getCols() > from.getCols())
    return emitOpError("selects whole 8-column blocks inside the fragment");
  return success();
}

LogicalResult FragCoordOp::verify() {
  if (getDim() != 0 && getDim() != 1)
    return emitOpError("dim must be 0 (row) or 1 (column)");
  if (!getType().getElementType().isF32())
    return emitOpError("gives an f32 fragment (indices up to 255 are exact)");
  return success();
}

LogicalResult FragLoadRowOp::verify() {
  auto ptr = cast<PtrType>(getPtr().getType());
  if (ptr.getElementType() != getType().getElementType())
    return emitOpError("loads elements of the fragment's type");
  if (ptr.getSpace() != AddressSpace::global && ptr.getSpace() != AddressSpace::shared)
    return emitOpError("reads global or shared memory");
  return success();
}

bool FragStoreTileOp::usesStMatrix() {
  // stmatrix writes 8 consecutive 16-bit elements (16 bytes) per row
  // address: they are contiguous and 16-byte aligned when a panel holds a
  // multiple of 8 elements (a swizzle permutes whole 16-byte chunks).
  auto frag = cast<FragType>(getValue().getType());
  return frag.isPacked() && getLayout().getPanel() % 8 == 0;
}

LogicalResult FragStoreTileOp::verify() {
  auto frag = cast<FragType>(getValue().getType());
  auto tile = cast<PtrType>(getTile().getType());
  TileLayoutAttr layout = getLayout();
  if (layout.getShape().size() != 2)
    return emitOpError("stores into a 2-D tile");
  if (tile.getElementType() != frag.getElementType())
    return emitOpError("tile and fragment element types differ");
  if (layout.getShape()[1] != frag.getCols())
    return emitOpError("the tile has ")
           << layout.getShape()[1] << " columns, the fragment " << frag.getCols();
  if (layout.getShape()[0] < frag.getRows())
    return emitOpError("the tile has fewer rows than the fragment");
  int64_t panel = layout.getPanel(), sw = layout.getSwizzle();
  if (panel < 1 || layout.getShape()[1] % panel != 0 ||
      (sw && panel * scalarByteWidth(tile.getElementType()) != sw) ||
      (sw != 0 && sw != 32 && sw != 64 && sw != 128))
    return emitOpError("invalid tile layout");
  // Every thread's pair of adjacent elements must stay in one panel row.
  if (panel % 2 != 0)
    return emitOpError("a panel of an odd number of elements splits the fragment's pairs");
  return success();
}

LogicalResult FragStoreOp::verify() {
  auto frag = cast<FragType>(getValue().getType());
  auto ptr = cast<PtrType>(getPtr().getType());
  if (ptr.getElementType() != frag.getElementType())
    return emitOpError("pointer and fragment element types differ");
  if (ptr.getSpace() != AddressSpace::global && ptr.getSpace() != AddressSpace::shared)
    return emitOpError("stores to global or shared memory");
  return success();
}
