//===- TileDialect.cpp - dialect, types and attributes ---------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tile/Dialect/HostContract.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/TileDialect.cpp.inc"
#include "tile/Dialect/TileEnums.cpp.inc"
#include "tile/Dialect/TileInterfaces.cpp.inc"
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

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType,
                              AddressSpace space) {
  if (auto inner = dyn_cast<PtrType>(elementType)) {
    if (space != AddressSpace::local)
      return emitError() << "pointers are stored only in local memory, not in "
                         << stringifyAddressSpace(space) << " memory";
    return success();
  }
  // A `var` of a fragment (issue #9) is a local slot of the whole fragment
  // (SROA keeps it in registers).
  if (isa<FragType>(elementType)) {
    if (space != AddressSpace::local)
      return emitError() << "fragments are pointees only in local memory (a `var`)";
    return success();
  }
  // A `var` of a vector type (vec<T, N>, f16x2) is a local slot of the vector.
  if (auto vec = dyn_cast<VectorType>(elementType)) {
    if (space != AddressSpace::local)
      return emitError() << "vectors are pointees only in local memory (a `var`), not in "
                         << stringifyAddressSpace(space) << " memory";
    return success();
  }
  if (elementType.isInteger(1) || elementType.isInteger(8) || elementType.isInteger(16) ||
      elementType.isInteger(32) || elementType.isInteger(64) || elementType.isF16() ||
      elementType.isBF16() || elementType.isF32() || elementType.isF64())
    return success();
  return emitError() << "a !tile.ptr points to i1, i8, i16, i32, i64, f16, bf16, f32, f64 or (in "
                        "local memory) a pointer, not "
                     << elementType;
}

int64_t mlir::tile::scalarByteWidth(Type type) {
  if (auto vec = dyn_cast<VectorType>(type)) // a vec<T, N> in a `var` slot
    return vec.getNumElements() * scalarByteWidth(vec.getElementType());
  if (isa<PtrType>(type))
    return 8; // a pointer held in a `var` (local memory only); 8 covers every space
  if (isa<FragType>(type))
    return 4; // a fragment in a `var` slot: aligned as its 32-bit registers
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

std::string mlir::tile::escapePrintfText(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    out.push_back(c);
    if (c == '%')
      out.push_back('%');
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Discardable attributes: every tile.* attribute is declared (TileBase.td)
// and has its declared type; the host contract's dictionaries are well formed.
//===----------------------------------------------------------------------===//

LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitOpError() << "attribute '" << name << "' must be " << what;
  };
  if (name == SyncAttrHelper::getNameStr() || name == NameAttrHelper::getNameStr() ||
      name == HangNoteAttrHelper::getNameStr())
    return expect(isa<StringAttr>(value), "a string");
  if (name == AutoAttrHelper::getNameStr() || name == SharedOnlyAttrHelper::getNameStr() ||
      name == HangStageAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  if (name == SpinsOnPeersAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value) && isa<KernelOp>(op), "a unit attribute on a tile.kernel");
  std::string error;
  if (name == InstanceAttrHelper::getNameStr()) {
    auto dict = dyn_cast<DictionaryAttr>(value);
    if (failed(expect(dict && isa<KernelOp>(op), "a dictionary on a tile.kernel")))
      return failure();
    std::string source;
    ::tile::TemplateArgs args;
    if (!decodeInstance(dict, source, args, error))
      return op->emitOpError() << error;
    return success();
  }
  if (name == SharedArrayAttrHelper::getNameStr()) {
    auto dict = dyn_cast<DictionaryAttr>(value);
    auto alloc = dyn_cast<SharedAllocOp>(op);
    if (failed(expect(dict && alloc && !alloc.getStaticCount(),
                      "a dictionary on a dynamic tile.shared_alloc")))
      return failure();
    if (!decodeSharedArray(dict, error))
      return op->emitOpError() << error;
    return success();
  }
  if (name == ParamAttrHelper::getNameStr())
    return op->emitOpError() << "attribute '" << name << "' belongs on a kernel argument";
  return op->emitOpError() << "'" << name << "' is not an attribute of the tile dialect";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned region, unsigned arg,
                                                    NamedAttribute attr) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (attr.getName().getValue() != ParamAttrHelper::getNameStr() || !kernel || region != 0)
    return op->emitOpError() << "'" << attr.getName().getValue()
                             << "' is not an argument attribute of the tile dialect";
  auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
  if (!dict)
    return op->emitOpError() << "argument " << arg << ": '" << attr.getName().getValue()
                             << "' must be a dictionary";
  std::string error;
  if (!decodeParam(dict, kernel.getArgumentTypes()[arg], error))
    return op->emitOpError() << "argument " << arg << ": " << error;
  return success();
}

//===----------------------------------------------------------------------===//
// Hints: a diagnostic's fix, as a note whose metadata holds it.
//===----------------------------------------------------------------------===//

static constexpr llvm::StringLiteral kHintKey = "tile.hint";

void mlir::tile::attachHint(InFlightDiagnostic &diagnostic, const Twine &hint) {
  Diagnostic *reported = diagnostic.getUnderlyingDiagnostic();
  if (!reported) // already reported or abandoned
    return;
  std::string text = hint.str();
  Diagnostic &note = reported->attachNote();
  note << "hint: " << text;
  MLIRContext *ctx = reported->getLocation().getContext();
  note.getMetadata().push_back(DiagnosticArgument(DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, kHintKey), StringAttr::get(ctx, text))})));
}

std::optional<std::string> mlir::tile::hintOf(const Diagnostic &note) {
  for (const DiagnosticArgument &arg :
       const_cast<Diagnostic &>(note).getMetadata()) // getMetadata() has no const overload
    if (arg.getKind() == DiagnosticArgument::DiagnosticArgumentKind::Attribute)
      if (auto dict = dyn_cast<DictionaryAttr>(arg.getAsAttribute()))
        if (auto text = dict.getAs<StringAttr>(kHintKey))
          return text.getValue().str();
  return std::nullopt;
}
