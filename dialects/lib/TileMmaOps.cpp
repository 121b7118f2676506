//===- TileMmaOps.cpp - fragment type and wgmma op verifiers ---------------===//
#include "tile/Dialect/MmaSignedness.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/IntegerMma.h"
#include "tilec/Target/TargetFacts.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;
namespace target = ::tile::target;

//===----------------------------------------------------------------------===//
// !tile.frag<MxNxT>
//===----------------------------------------------------------------------===//

Type FragType::parse(AsmParser &parser) {
  SmallVector<int64_t, 2> dims;
  Type elem;
  if (parser.parseLess() || parser.parseDimensionList(dims, /*allowDynamic=*/false) ||
      parser.parseType(elem) || parser.parseGreater())
    return {};
  if (dims.size() != 2) {
    parser.emitError(parser.getNameLoc(), "a fragment has two dimensions (rows x cols)");
    return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, parser.getContext(),
                    dims[0], dims[1], elem);
}

void FragType::print(AsmPrinter &printer) const {
  printer << "<" << getRows() << "x" << getCols() << "x" << getElementType() << ">";
}

LogicalResult FragType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t rows,
                               int64_t cols, Type elem) {
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
  if (!elem.isF32() && !elem.isF16() && !elem.isBF16() && !elem.isInteger(32) &&
      !elem.isInteger(1) && !fp8)
    return emitError() << "fragment elements are f32, f16, bf16, i32 (indices), i1 (a mask) or "
                          "fp8 (register A), not "
                       << elem;
  if (rows < target::kWgmmaM || rows % target::kWgmmaM != 0)
    return emitError() << "fragment rows must be a positive multiple of 64, not " << rows;
  // An fp8 fragment is register A of .m64nNk32 steps (FragType).
  if (fp8 && cols % target::wgmmaK(1) != 0)
    return emitError() << "an fp8 fragment's cols must be a multiple of " << target::wgmmaK(1)
                       << ", not " << cols;
  if (cols < target::kWgmmaMinN || cols > target::kWgmmaMaxN || cols % target::kWgmmaNStep != 0)
    return emitError() << "fragment cols must be a multiple of 8 in 8..256, not " << cols;
  return success();
}

int64_t FragType::getElementsPerThread() const {
  return target::wgmmaFragmentElements(getRows(), getCols());
}

int64_t FragType::getRegistersPerThread() const {
  return isFp8() ? getElementsPerThread() / 4
         : isPacked() ? getElementsPerThread() / 2
                      : getElementsPerThread();
}

//===----------------------------------------------------------------------===//
// !tile.per_row<MxT>, !tile.per_col<NxT>
//===----------------------------------------------------------------------===//

static bool isVectorElement(Type elem) {
  return elem.isF32() || elem.isF16() || elem.isBF16() || elem.isInteger(32) ||
         elem.isInteger(1);
}

/// `<` N `x` T `>`.
static bool parseExtent(AsmParser &parser, int64_t &n, Type &elem) {
  SmallVector<int64_t, 1> dims;
  if (parser.parseLess() || parser.parseDimensionList(dims, /*allowDynamic=*/false) ||
      parser.parseType(elem) || parser.parseGreater())
    return false;
  if (dims.size() != 1) {
    parser.emitError(parser.getNameLoc(), "one extent: <NxT>");
    return false;
  }
  n = dims[0];
  return true;
}

/// per_row and per_col share their syntax, `<NxT>`.
template <typename DistributedType>
static Type parseDistributed(AsmParser &parser) {
  int64_t n;
  Type elem;
  if (!parseExtent(parser, n, elem))
    return {};
  return DistributedType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                                     parser.getContext(), n, elem);
}

static void printDistributed(AsmPrinter &printer, int64_t n, Type elem) {
  printer << "<" << n << "x" << elem << ">";
}

Type PerRowType::parse(AsmParser &parser) { return parseDistributed<PerRowType>(parser); }

void PerRowType::print(AsmPrinter &printer) const {
  printDistributed(printer, getRows(), getElementType());
}

LogicalResult PerRowType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t rows,
                                 Type elem) {
  if (!isVectorElement(elem))
    return emitError() << "per_row elements are f32, f16, bf16, i32 or i1, not " << elem;
  if (rows < target::kWgmmaM || rows % target::kWgmmaM != 0)
    return emitError() << "per_row rows must be a positive multiple of 64, not " << rows;
  return success();
}

int64_t PerRowType::getElementsPerThread() const { return getRows() / target::kWgmmaM * 2; }

Type PerColType::parse(AsmParser &parser) { return parseDistributed<PerColType>(parser); }

void PerColType::print(AsmPrinter &printer) const {
  printDistributed(printer, getCols(), getElementType());
}

LogicalResult PerColType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t cols,
                                 Type elem) {
  if (!isVectorElement(elem))
    return emitError() << "per_col elements are f32, f16, bf16, i32 or i1, not " << elem;
  if (cols < target::kWgmmaMinN || cols > target::kWgmmaMaxN || cols % target::kWgmmaNStep != 0)
    return emitError() << "per_col cols must be a multiple of 8 in 8..256, not " << cols;
  return success();
}

int64_t PerColType::getElementsPerThread() const { return getCols() / 8 * 2; }

int64_t mlir::tile::DistShape::elements() const {
  switch (kind) {
  case Frag:
    return target::wgmmaFragmentElements(rows, cols);
  case Row:
    return rows / target::kWgmmaM * 2;
  case Col:
    return cols / 8 * 2;
  }
  return 0;
}

std::optional<DistShape> mlir::tile::distShape(Type t) {
  if (auto f = dyn_cast<FragType>(t))
    return DistShape{DistShape::Frag, f.getRows(), f.getCols(), f.getElementType()};
  if (auto r = dyn_cast<PerRowType>(t))
    return DistShape{DistShape::Row, r.getRows(), 0, r.getElementType()};
  if (auto c = dyn_cast<PerColType>(t))
    return DistShape{DistShape::Col, 0, c.getCols(), c.getElementType()};
  return std::nullopt;
}

bool mlir::tile::broadcastsTo(Type operand, const DistShape &result, Type elem) {
  std::optional<DistShape> o = distShape(operand);
  if (!o)
    return !elem || operand == elem;
  if (elem && o->elem != elem)
    return false;
  if (o->kind == result.kind)
    return o->rows == result.rows && o->cols == result.cols;
  if (result.kind != DistShape::Frag)
    return false;
  return o->kind == DistShape::Row ? o->rows == result.rows : o->cols == result.cols;
}

//===----------------------------------------------------------------------===//
// tile.mma, tile.wgmma_wait
//===----------------------------------------------------------------------===//

/// An mma operand tile: 2-D, 16-bit elements, swizzled (the descriptor's
/// swizzle modes read 32/64/128-byte swizzled rows; a plain row-major tile
/// is no wgmma canonical layout), `rows` view rows from the start.
static bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

static LogicalResult verifyOperand(Operation *op, StringRef name, Value tile, TileLayoutAttr layout,
                                   Type elem) {
  // fp8 operands mix freely (.e4m3 x .e5m2), and so do i8 ones (.s8 x .u8:
  // the signedness is the op's attribute); 16-bit ones are of one type.
  Type own = cast<PtrType>(tile.getType()).getElementType();
  if (own != elem && !(isFp8(own) && isFp8(elem)))
    return op->emitOpError() << "operand " << name << " elements differ from the other operand's";
  if (layout.getShape().size() != 2)
    return op->emitOpError() << "operand " << name << " must be a 2-D tile";
  int64_t sw = layout.getSwizzle();
  if (sw != 32 && sw != 64 && sw != 128)
    return op->emitOpError() << "operand " << name << " must be a 32/64/128-byte swizzled tile";
  if (layout.getPanel() * scalarByteWidth(own) != sw)
    return op->emitOpError() << "operand " << name << "'s panel must be the swizzle span";
  return success();
}

/// The operand's inner dimension against the extent the product reads of it
/// (K when K-major, M or N when MN-major): the whole dimension, or with `col`
/// a column view of whole swizzle atoms. A descriptor's start address moves
/// along the inner dimension by whole panels only (MN-major: the LBO is the
/// panel stride; PTX ISA 9.7.15.5.1.2, the canonical layouts), so a view
/// starting inside an atom would read another atom's swizzled rows.
static LogicalResult verifyInnerExtent(Operation *op, StringRef name, TileLayoutAttr layout,
                                       int64_t extent, Value col, StringRef extentName) {
  int64_t inner = layout.getShape()[1], panel = layout.getPanel();
  if (!col) {
    if (inner != extent)
      return op->emitOpError() << "operand " << name << "'s inner dimension must be " << extentName;
    return success();
  }
  if (extent % panel != 0 || extent > inner)
    return op->emitOpError() << "a column view of operand " << name
                             << " is whole swizzle atoms: " << extentName << " (" << extent
                             << ") must be a multiple of the panel (" << panel
                             << ") and at most the inner dimension (" << inner << ")";
  APInt c;
  if (matchPattern(col, m_ConstantInt(&c))) {
    int64_t first = c.getSExtValue();
    if (first < 0 || first % panel != 0 || first + extent > inner)
      return op->emitOpError() << "column view of operand " << name << " at " << first
                               << " must start on a panel (" << panel << " elements) and end by "
                               << inner;
  }
  return success();
}

LogicalResult MmaOp::verify() {
  auto acc = getAcc().getType();
  Type elem = cast<PtrType>(getA().getType()).getElementType();
  bool integer = elem.isInteger(8);
  if (!elem.isF16() && !elem.isBF16() && !isFp8(elem) && !integer)
    return emitOpError("operands must be f16, bf16, fp8 (f8E4M3FN, f8E5M2) or i8");
  if ((isMmaOperandUnsigned(*this, false) || isMmaOperandUnsigned(*this, true)) && !integer)
    return emitOpError("a_unsigned / b_unsigned apply to i8 operands only");
  // wgmma's integer kind: .s8/.u8 operands, .s32 accumulator and nothing
  // else on either side (PTX ISA 9.7.15.5 "wgmma.mma_async").
  if (integer != acc.getElementType().isInteger(32))
    return emitOpError(integer ? "i8 operands need an i32 accumulator"
                               : "an i32 accumulator takes i8 operands only");
  if (integer && !target::isWgmmaIntegerN(acc.getCols()))
    return emitOpError("integer wgmma has no N = ")
           << acc.getCols() << " (8, 16, 24 or a multiple of 16 in 32..256)";
  if (!integer && !acc.getElementType().isF32() && !acc.getElementType().isF16())
    return emitOpError("the accumulator is f32 or f16");
  if (elem.isBF16() && !acc.getElementType().isF32()) // wgmma .bf16 has .dtype .f32 only
    return emitOpError("bf16 operands need an f32 accumulator");
  int64_t k = getK(), step = target::wgmmaK(scalarByteWidth(elem));
  if (k < step || k % step != 0)
    return emitOpError("k must be a positive multiple of ") << step;
  // 8-bit wgmma has no transpose immediates: both operands K-major.
  if ((isFp8(elem) || integer) && (!getAKMajor() || !getBKMajor()))
    return emitOpError(integer ? "i8 operands must both be K-major"
                               : "fp8 operands must both be K-major");
  if (failed(verifyOperand(*this, "a", getA(), getALayout(), elem)) ||
      failed(verifyOperand(*this, "b", getB(), getBLayout(), elem)))
    return failure();
  // K-major: the tile's inner dimension holds K; MN-major: it holds M (N).
  if (failed(verifyInnerExtent(*this, "a", getALayout(), getAKMajor() ? k : acc.getRows(),
                               getACol(), getAKMajor() ? "k" : "M")) ||
      failed(verifyInnerExtent(*this, "b", getBLayout(), getBKMajor() ? k : acc.getCols(),
                               getBCol(), getBKMajor() ? "k" : "N")))
    return failure();
  return success();
}

LogicalResult MmaRegAOp::verify() {
  FragType acc = getAcc().getType(), a = getA().getType();
  Type elem = a.getElementType();
  if (!elem.isF16() && !elem.isBF16() && !isFp8(elem))
    return emitOpError("operand a must be an f16, bf16 or fp8 fragment");
  if (!acc.getElementType().isF32() && !acc.getElementType().isF16())
    return emitOpError("the accumulator is f32 or f16");
  if (elem.isBF16() && !acc.getElementType().isF32()) // wgmma .bf16 has .dtype .f32 only
    return emitOpError("bf16 operands need an f32 accumulator");
  if (a.getRows() != acc.getRows())
    return emitOpError("operand a must have the accumulator's rows");
  int64_t k = a.getCols(), step = target::wgmmaK(scalarByteWidth(elem));
  if (k % step != 0)
    return emitOpError("operand a's columns (k) must be a multiple of ") << step;
  // fp8 wgmma has no imm-trans-b (PTX ISA "wgmma.mma_async": .f16/.bf16 only).
  if (isFp8(elem) && !getBKMajor())
    return emitOpError("an fp8 operand b must be K-major");
  if (failed(verifyOperand(*this, "b", getB(), getBLayout(), elem)))
    return failure();
  return verifyInnerExtent(*this, "b", getBLayout(), getBKMajor() ? k : acc.getCols(), getBCol(),
                           getBKMajor() ? "k" : "N");
}

LogicalResult WgmmaWaitOp::verify() {
  if (getPending() > target::kWgmmaMaxInflight)
    return emitOpError("pending must be 0..") << target::kWgmmaMaxInflight;
  if (Value after = getAfter()) {
    std::optional<DistShape> dist = distShape(after.getType());
    if (!(dist ? dist->elem : after.getType()).isF32())
      return emitOpError("'after' must be an f32, or a per_row, per_col or fragment of f32");
  }
  return success();
}

LogicalResult FragExtractOp::verify() {
  FragType frag = getFrag().getType();
  if (getType() != frag.getElementType())
    return emitOpError("result type must be the fragment's element type");
  if (getIndex() >= (uint64_t)frag.getElementsPerThread())
    return emitOpError("index must be below the elements per thread (")
           << frag.getElementsPerThread() << ")";
  return success();
}
