//===- TileEpilogueOps.cpp - verifiers of the fragment epilogue ops -------===//
#include "tile/Dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

/// Two or three operands, at least one distributed (or `distributed` given:
/// select's mask), each broadcasting to `result` with its element type.
static LogicalResult verifyElementwise(Operation *op, ValueRange operands, Type result,
                                       bool distributed = false) {
  DistShape shape = *distShape(result);
  bool anyDistributed = distributed;
  for (auto [i, v] : llvm::enumerate(operands)) {
    anyDistributed |= distShape(v.getType()).has_value();
    if (!broadcastsTo(v.getType(), shape, shape.elem))
      return op->emitOpError() << "operand #" << i << " (" << v.getType()
                               << ") does not broadcast to " << result
                               << ": the same type, a scalar of its element type, or (for a "
                                  "fragment) a per_row of its rows or per_col of its columns";
  }
  if (!anyDistributed)
    return op->emitOpError("needs at least one fragment, per_row or per_col operand");
  return success();
}

bool mlir::tile::isIntegerOnly(FragArithKind k) {
  switch (k) {
  case FragArithKind::rem:
  case FragArithKind::shl:
  case FragArithKind::shr:
  case FragArithKind::and_:
  case FragArithKind::or_:
  case FragArithKind::xor_:
    return true;
  default:
    return false;
  }
}

bool mlir::tile::isLibdeviceOnly(FragArithKind k) {
  return k == FragArithKind::pow || k == FragArithKind::atan2 || k == FragArithKind::hypot ||
         k == FragArithKind::fmod;
}

LogicalResult FragArithOp::verify() {
  Type elem = distShape(getType())->elem;
  if (elem.isInteger(1))
    return emitOpError("computes on values, not masks");
  if (isIntegerOnly(getKind()) && !elem.isInteger(32))
    return emitOpError() << stringifyFragArithKind(getKind()) << " takes i32 elements";
  if (isLibdeviceOnly(getKind()) && !elem.isF32())
    return emitOpError() << stringifyFragArithKind(getKind()) << " takes f32 elements";
  if (getContract() && elem.isInteger(32))
    return emitOpError("contract applies to float elements");
  return verifyElementwise(*this, {getLhs(), getRhs()}, getType());
}

LogicalResult FragFmaOp::verify() {
  Type elem = distShape(getType())->elem;
  if (elem.isInteger(32) || elem.isInteger(1))
    return emitOpError("takes float elements");
  return verifyElementwise(*this, {getA(), getB(), getC()}, getType());
}

LogicalResult FragConvertOp::verify() {
  DistShape from = *distShape(getValue().getType()), to = *distShape(getType());
  if (from.kind != to.kind || from.rows != to.rows || from.cols != to.cols)
    return emitOpError("converts between values of one kind and shape");
  if (from.elem.isInteger(1) || to.elem.isInteger(1))
    return emitOpError("does not convert masks");
  auto isFp8 = [](Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); };
  if ((from.elem.isInteger(32) && isFp8(to.elem)) || (isFp8(from.elem) && to.elem.isInteger(32)))
    return emitOpError("converts i32 to and from f32, f16 and bf16 only");
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
  DistShape s = *distShape(getType());
  if (s.kind != (getDim() == 0 ? DistShape::Row : DistShape::Col))
    return emitOpError(getDim() == 0 ? "dim 0 gives a per_row value" : "dim 1 gives a per_col value");
  if (!s.elem.isInteger(32))
    return emitOpError("gives i32 indices");
  return success();
}

/// load_per_col / load_per_row: the pointer's elements are the result's.
static LogicalResult verifyDistributedLoad(Operation *op, PtrType ptr, Type elem) {
  if (!elem.isF32() && !elem.isF16() && !elem.isBF16() && !elem.isInteger(32))
    return op->emitOpError("loads f32, f16, bf16 or i32 elements");
  if (ptr.getElementType() != elem)
    return op->emitOpError("loads elements of the result's type");
  if (ptr.getSpace() != AddressSpace::global && ptr.getSpace() != AddressSpace::shared)
    return op->emitOpError("reads global or shared memory");
  return success();
}

LogicalResult LoadPerColOp::verify() {
  return verifyDistributedLoad(*this, cast<PtrType>(getPtr().getType()),
                               getType().getElementType());
}

LogicalResult LoadPerRowOp::verify() {
  return verifyDistributedLoad(*this, cast<PtrType>(getPtr().getType()),
                               getType().getElementType());
}

/// stmatrix and ldmatrix move 8 consecutive 16-bit elements (16 bytes) per
/// row address: they are contiguous and 16-byte aligned when a panel holds a
/// multiple of 8 elements (a swizzle permutes whole 16-byte chunks).
static bool matrixFormApplies(FragType frag, TileLayoutAttr layout) {
  return frag.isPacked() && layout.getPanel() % 8 == 0;
}

bool FragStoreTileOp::usesStMatrix() {
  return matrixFormApplies(cast<FragType>(getValue().getType()), getLayout());
}

bool FragLoadTileOp::usesLdMatrix() {
  return matrixFormApplies(cast<FragType>(getType()), getLayout());
}

/// The shapes and layout a fragment store into, or load from, a shared 2-D
/// tile needs (`verb`: "stores into" / "loads from").
static LogicalResult verifyFragmentTile(Operation *op, FragType frag, PtrType tile,
                                        TileLayoutAttr layout, StringRef verb) {
  if (layout.getShape().size() != 2)
    return op->emitOpError() << verb << " a 2-D tile";
  if (frag.getElementType().isInteger(1))
    return op->emitOpError() << verb << " f32, f16, bf16 or i32 values, not masks";
  if (tile.getElementType() != frag.getElementType())
    return op->emitOpError("tile and fragment element types differ");
  if (layout.getShape()[1] != frag.getCols())
    return op->emitOpError("the tile has ")
           << layout.getShape()[1] << " columns, the fragment " << frag.getCols();
  if (layout.getShape()[0] < frag.getRows())
    return op->emitOpError("the tile has fewer rows than the fragment");
  int64_t panel = layout.getPanel(), sw = layout.getSwizzle();
  if (panel < 1 || layout.getShape()[1] % panel != 0 ||
      (sw && panel * scalarByteWidth(tile.getElementType()) != sw) ||
      (sw != 0 && sw != 32 && sw != 64 && sw != 128))
    return op->emitOpError("invalid tile layout");
  // Every thread's pair of adjacent elements must stay in one panel row.
  if (panel % 2 != 0)
    return op->emitOpError("a panel of an odd number of elements splits the fragment's pairs");
  return success();
}

LogicalResult FragStoreTileOp::verify() {
  return verifyFragmentTile(*this, cast<FragType>(getValue().getType()),
                            cast<PtrType>(getTile().getType()), getLayout(), "stores into");
}

LogicalResult FragLoadTileOp::verify() {
  return verifyFragmentTile(*this, cast<FragType>(getType()), cast<PtrType>(getTile().getType()),
                            getLayout(), "loads from");
}

LogicalResult FragStoreOp::verify() {
  auto frag = cast<FragType>(getValue().getType());
  auto ptr = cast<PtrType>(getPtr().getType());
  if (frag.getElementType().isInteger(1))
    return emitOpError("stores f32, f16, bf16 or i32 values, not masks");
  if (ptr.getElementType() != frag.getElementType())
    return emitOpError("pointer and fragment element types differ");
  if (ptr.getSpace() != AddressSpace::global && ptr.getSpace() != AddressSpace::shared)
    return emitOpError("stores to global or shared memory");
  return success();
}

LogicalResult FragLoadOp::verify() {
  auto frag = cast<FragType>(getType());
  auto ptr = cast<PtrType>(getPtr().getType());
  Type elem = frag.getElementType();
  if (!elem.isF32() && !elem.isF16() && !elem.isBF16() && !elem.isInteger(32))
    return emitOpError("loads f32, f16, bf16 or i32 elements");
  if (ptr.getElementType() != elem)
    return emitOpError("pointer and fragment element types differ");
  if (ptr.getSpace() != AddressSpace::global && ptr.getSpace() != AddressSpace::shared)
    return emitOpError("loads from global or shared memory");
  return success();
}

//===----------------------------------------------------------------------===//
// The fragment algebra (TileFragmentOps.td)
//===----------------------------------------------------------------------===//

LogicalResult FragReduceOp::verify() {
  FragType f = getValue().getType();
  if (!f.getElementType().isF32() || !getType().getElementType().isF32())
    return emitOpError("reduces f32 fragments to f32 per_row values");
  if (getType().getRows() != f.getRows())
    return emitOpError("gives one value per row of the fragment");
  return success();
}

LogicalResult FragCmpOp::verify() {
  DistShape r = *distShape(getType());
  if (!r.elem.isInteger(1))
    return emitOpError("gives a mask (i1 elements)");
  auto elemOf = [](Type t) { return distShape(t) ? distShape(t)->elem : t; };
  Type elem = elemOf(getLhs().getType());
  if (elemOf(getRhs().getType()) != elem || elem.isInteger(1))
    return emitOpError("compares f32, f16, bf16 or i32 elements of one type");
  DistShape shape = r;
  shape.elem = elem;
  // per_row against per_col: the fragment of their rows and columns.
  for (Value v : {getLhs(), getRhs()})
    if (!broadcastsTo(v.getType(), shape, elem))
      return emitOpError() << "operand " << v.getType() << " does not broadcast to " << getType();
  if (!distShape(getLhs().getType()) && !distShape(getRhs().getType()))
    return emitOpError("needs at least one fragment, per_row or per_col operand");
  return success();
}

LogicalResult FragSelectOp::verify() {
  DistShape r = *distShape(getType());
  if (r.elem.isInteger(1))
    return emitOpError("chooses between values, not masks");
  DistShape mask = r;
  mask.elem = IntegerType::get(getContext(), 1);
  if (!broadcastsTo(getCond().getType(), mask, mask.elem))
    return emitOpError() << "condition " << getCond().getType() << " does not broadcast to "
                         << getType();
  // select(m, a, b) with a distributed mask broadcasts scalar a and b.
  return verifyElementwise(*this, {getA(), getB()}, getType(),
                           distShape(getCond().getType()).has_value());
}

LogicalResult StorePerRowOp::verify() {
  auto ptr = cast<PtrType>(getPtr().getType());
  Type elem = getValue().getType().getElementType();
  if (elem.isInteger(1))
    return emitOpError("stores values, not masks");
  if (ptr.getElementType() != elem)
    return emitOpError("pointer and per_row element types differ");
  if (ptr.getSpace() != AddressSpace::global && ptr.getSpace() != AddressSpace::shared)
    return emitOpError("stores to global or shared memory");
  return success();
}

LogicalResult FragSplatOp::verify() {
  if (distShape(getType())->elem != getValue().getType())
    return emitOpError("splats a scalar of the result's element type");
  return success();
}

bool mlir::tile::hasApproxForm(FragMathFn fn) {
  switch (fn) {
  case FragMathFn::exp2:
  case FragMathFn::exp:
  case FragMathFn::log2:
  case FragMathFn::log:
  case FragMathFn::sqrt:
  case FragMathFn::rsqrt:
  case FragMathFn::sin:
  case FragMathFn::cos:
  case FragMathFn::tanh:
    return true;
  default: // abs is exact; erf, log1p, ..., erfc are only libdevice's
    return false;
  }
}

LogicalResult FragMathOp::verify() {
  Type elem = distShape(getType())->elem;
  if (getFn() == FragMathFn::abs) {
    if (!elem.isF32() && !elem.isF16() && !elem.isBF16() && !elem.isInteger(32))
      return emitOpError("abs takes f32, f16, bf16 or i32 elements");
    if (getApprox())
      return emitOpError("abs has no approximate form");
    return success();
  }
  if (!elem.isF32())
    return emitOpError() << stringifyFragMathFn(getFn()) << " takes f32 elements";
  if (getApprox() && !hasApproxForm(getFn()))
    return emitOpError() << stringifyFragMathFn(getFn()) << " has no approximate form";
  return success();
}
