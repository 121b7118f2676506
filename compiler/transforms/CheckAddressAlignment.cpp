//===- CheckAddressAlignment.cpp - accesses known to be misaligned --------===//
//
// ld/st/atom of B bytes needs an address that is a multiple of B (PTX ISA
// 6.4.1 "Addresses as Operands"; .v2/.v4 vectors move up to 16 bytes); a
// misaligned one traps at run time (CUDA_ERROR_MISALIGNED_ADDRESS) and the
// context is lost. Every address comes from an origin the compiler or the
// runtime keeps aligned (a pointer parameter as its `addressAlign` requires,
// a shared array or tile) plus offsets: where the offsets' known low bits
// put an access off a multiple of its bytes on some way its pointer may
// come, this pass reports an error at the access (once per source
// position: an unrolled copy is one statement). Runs after canonicalization,
// when unrolled loop variables are constants; an offset whose low bits are
// not known is the kernel's to keep aligned and is not reported.
//
//===----------------------------------------------------------------------===//
#include "AddressAlignment.h"
#include "tilec/Passes.h"

#include "tile/Dialect/Hint.h"
#include "tile/Dialect/TileAttributes.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKADDRESSALIGNMENT
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// "parameter 'p'", "the shared array", "the shared tile".
std::string describeOrigin(KernelOp kernel, Value origin) {
  if (auto arg = dyn_cast<BlockArgument>(origin)) {
    auto param = kernel.getArgAttrOfType<DictionaryAttr>(arg.getArgNumber(), attr::kParam);
    auto name = param ? dyn_cast_or_null<StringAttr>(param.get("name")) : StringAttr();
    return name ? "parameter '" + name.str() + "'" : "the pointer parameter";
  }
  return "the shared array";
}

/// "load of vec<f32, 4> (16 bytes)", "atomic of 8 bytes".
std::string describeAccess(Operation *op, int64_t align) {
  Type value;
  std::string text = "access";
  if (auto load = dyn_cast<LoadOp>(op))
    value = load.getResult().getType(), text = "load";
  else if (auto store = dyn_cast<StoreOp>(op))
    value = store.getValue().getType(), text = "store";
  else if (isa<StoreAsyncOp>(op))
    text = "store_async";
  else if (isa<AtomicRMWOp, AtomicCASOp>(op))
    text = "atomic";
  llvm::raw_string_ostream os(text);
  // Integers are signless here: their vectors are named by size (u8 or i8).
  auto vec = dyn_cast_or_null<VectorType>(value);
  if (vec && isa<FloatType>(vec.getElementType()))
    os << " of vec<" << vec.getElementType() << ", " << vec.getNumElements() << "> ("
       << vec.getNumElements() * scalarByteWidth(vec.getElementType()) << " bytes)";
  else if (vec)
    os << " of " << vec.getNumElements() << " " << vec.getElementType().getIntOrFloatBitWidth()
       << "-bit integers (" << vec.getNumElements() * scalarByteWidth(vec.getElementType())
       << " bytes)";
  else
    os << " of " << align << " bytes";
  return text;
}

struct CheckAddressAlignmentPass
    : mlir::tile::impl::TileCheckAddressAlignmentBase<CheckAddressAlignmentPass> {
  void runOnOperation() override {
    markAllAnalysesPreserved(); // reports only
    KernelOp kernel = getOperation();
    AddressOrigins origins(kernel);
    bool failedAny = false;
    llvm::DenseSet<const void *> reported;
    kernel.walk([&](MemoryAccessOpInterface access) {
      Value ptr = access.getAccessPtr();
      const PointerOrigins *held = ptr ? origins.of(ptr) : nullptr;
      if (!held)
        return;
      const int64_t align = accessAlignment(access);
      const unsigned need = llvm::countr_zero(static_cast<uint64_t>(align));
      // Named, not bound: a lambda below captures them (C++17 cannot
      // capture a structured binding).
      for (const auto &entry : *held) {
        const Value origin = entry.first;
        const OffsetResidues residues = entry.second;
        std::optional<uint64_t> off; // bytes past a multiple of `align`
        residues.forEach([&](unsigned bits, uint64_t residue) {
          unsigned m = std::min(bits, need);
          if (!off && (residue & ((uint64_t{1} << m) - 1)) != 0)
            off = residue & ((uint64_t{1} << m) - 1);
        });
        if (!off)
          continue;
        failedAny = true;
        Operation *op = access.getOperation();
        if (!reported.insert(op->getLoc().getAsOpaquePointer()).second)
          return;
        const std::string what = describeOrigin(kernel, origin);
        const bool onlyWay = [&] {
          int ways = 0;
          residues.forEach([&](unsigned, uint64_t) { ++ways; });
          return ways == 1 && held->size() == 1;
        }();
        const int64_t elementBytes = scalarByteWidth(cast<PtrType>(ptr.getType()).getElementType());
        InFlightDiagnostic d = op->emitError()
                               << "misaligned access: this " << describeAccess(op, align) << " is "
                               << *off << " bytes past a multiple of " << align
                               << " from the start of " << what
                               << (onlyWay ? "" : ", on one of the ways its pointer may come")
                               << ": it would trap (ld/st of " << align << " bytes needs an address "
                               << "that is a multiple of " << align << ")";
        if (!isa<BlockArgument>(origin))
          d.attachNote(origin.getLoc()) << "the shared array, 16-byte aligned, is declared here";
        std::string hint = "start the access at an element index that is a multiple of " +
                           std::to_string(elementBytes > 0 ? std::max<int64_t>(align / elementBytes, 1) : 1) +
                           " from the start of " + what;
        if (isa<BlockArgument>(origin))
          hint += " (an offset pointer counts: `(p + 1)[i * 4]` is `p[i * 4 + 1]`)";
        attachHint(d, hint + ", or move fewer bytes per access");
      }
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
