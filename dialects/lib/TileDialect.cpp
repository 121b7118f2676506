//===- TileDialect.cpp - dialect, types and attributes ---------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tile/Dialect/Hint.h"
#include "tile/Dialect/TileAttributes.h"

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
  // A `var` of a fragment is a local slot of the whole fragment
  // (SROA keeps it in registers).
  if (isa<FragType, PerRowType, PerColType>(elementType)) {
    if (space != AddressSpace::local)
      return emitError() << "fragments and per_row/per_col values are pointees only in local "
                            "memory (a `var`)";
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
      elementType.isBF16() || elementType.isF32() || elementType.isF64() ||
      isa<Float8E4M3FNType, Float8E5M2Type>(elementType))
    return success();
  return emitError() << "a !tile.ptr points to i1, i8, i16, i32, i64, f16, bf16, f32, f64, "
                        "f8E4M3FN, f8E5M2 or (in local memory) a pointer, not "
                     << elementType;
}

int64_t mlir::tile::scalarByteWidth(Type type) {
  if (auto vec = dyn_cast<VectorType>(type)) // a vec<T, N> in a `var` slot
    return vec.getNumElements() * scalarByteWidth(vec.getElementType());
  if (isa<PtrType>(type))
    return 8; // a pointer held in a `var` (local memory only); 8 covers every space
  if (isa<FragType, PerRowType, PerColType>(type))
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
// Discardable attributes: every tile.* attribute an op carries is declared
// (TileBase.td, or the host contract's, TileAttributes.h), has its declared
// type and sits on an op it means something on.
//===----------------------------------------------------------------------===//

LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute named) {
  StringRef name = named.getName().getValue();
  Attribute value = named.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitOpError() << "attribute '" << name << "' must be " << what;
  };
  if (name == SyncAttrHelper::getNameStr() || name == NameAttrHelper::getNameStr())
    return expect(isa<StringAttr>(value), "a string");
  if (name == AutoAttrHelper::getNameStr() || name == SharedOnlyAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  // What --debug-hangs reads off a wait it bounds (DebugHangs.cpp).
  if (name == HangNoteAttrHelper::getNameStr())
    return expect(isa<StringAttr>(value) && isa<MBarrierWaitOp, SemWaitOp>(op),
                  "a string on a tile.mbarrier_wait or tile.sem_wait");
  if (name == ExitFlagAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value) && isa<LocalVarOp>(op), "a unit attribute on a tile.local_var");
  if (name == HangStageAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value) && isa<MBarrierWaitOp>(op),
                  "a unit attribute on a tile.mbarrier_wait");
  if (name == HostRecordAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value) && isa<HangTrapOp>(op),
                  "a unit attribute on a tile.hang_trap");
  // The host contract: the verifiers of the ops that carry it check the
  // contents (HostContract.h).
  if (name == attr::kInstance || name == attr::kSpinsOnPeers)
    return expect(isa<KernelOp>(op), "on a tile.kernel");
  if (name == attr::kSharedArray)
    return expect(isa<SharedAllocOp>(op), "on a tile.shared_alloc");
  if (name == attr::kMBarrierCount)
    return expect(isa<MBarrierInitOp>(op), "on a tile.mbarrier_init");
  if (name == attr::kParam)
    return op->emitOpError() << "attribute '" << name << "' belongs on a tile.kernel argument";
  return op->emitOpError() << "'" << name << "' is not an attribute of the tile dialect";
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

std::optional<std::string> mlir::tile::hintOf(Diagnostic &note) {
  for (const DiagnosticArgument &arg : note.getMetadata())
    if (arg.getKind() == DiagnosticArgument::DiagnosticArgumentKind::Attribute)
      if (auto dict = dyn_cast<DictionaryAttr>(arg.getAsAttribute()))
        if (auto text = dict.getAs<StringAttr>(kHintKey))
          return text.getValue().str();
  return std::nullopt;
}
