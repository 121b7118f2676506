//===- AddressAlignment.cpp - how far from aligned each address may be ----===//
#include "AddressAlignment.h"
#include "KnownBits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/bit.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

OffsetResidues OffsetResidues::plus(unsigned bits, uint64_t residue) const {
  OffsetResidues sum;
  forEach([&](unsigned b, uint64_t r) {
    unsigned m = std::min(b, bits);
    sum.mask |= 1u << index(m, (r + residue) & ((uint64_t{1} << m) - 1));
  });
  return sum;
}

namespace {

/// What is known of `index` x `elementBytes` modulo 16, as (bits, residue).
std::pair<unsigned, uint64_t> offsetBits(Value index, int64_t elementBytes) {
  const unsigned e = llvm::countr_zero(static_cast<uint64_t>(elementBytes));
  const unsigned max = OffsetResidues::kMaxBits;
  if (e >= max)
    return {max, 0};
  for (unsigned j = max - e; j > 0; --j)
    if (std::optional<uint64_t> low = knownLowBits(index, j))
      return {j + e, (*low * static_cast<uint64_t>(elementBytes)) & ((uint64_t{1} << (j + e)) - 1)};
  return {e, 0};
}

/// The same for the byte offset of a shared tile's element from the tile's
/// start (TileLayoutAttr): the swizzle moves 16-byte chunks only, and with
/// panel rows of whole chunks the low four bits are the inner index's.
std::pair<unsigned, uint64_t> tileElementBits(TileElementOp element) {
  TileLayoutAttr layout = element.getLayout();
  const int64_t bytes = scalarByteWidth(cast<PtrType>(element.getType()).getElementType());
  if (bytes <= 0 || element.getIndices().empty())
    return {0, 0};
  if ((layout.getPanel() * bytes) % 16 != 0)
    return {static_cast<unsigned>(llvm::countr_zero(static_cast<uint64_t>(bytes))), 0};
  return offsetBits(element.getIndices().back(), bytes);
}

/// The `var` slot `p` points into.
LocalVarOp localSlot(Value p) {
  while (auto add = p.getDefiningOp<PtrAddOp>())
    p = add.getBase();
  return p.getDefiningOp<LocalVarOp>();
}

bool joinInto(PointerOrigins &into, const PointerOrigins &from) {
  bool changed = false;
  for (auto [origin, residues] : from)
    changed |= into[origin].join(residues);
  return changed;
}

} // namespace

AddressOrigins::AddressOrigins(KernelOp kernel) {
  const auto aligned = OffsetResidues::exact(OffsetResidues::kMaxBits, 0);
  for (BlockArgument arg : kernel.getArguments())
    if (isa<PtrType>(arg.getType()))
      values[arg][arg] = aligned;
  // Static shared arrays are at least 16-byte aligned, dynamic ones at
  // 16-byte offsets of the 16-byte aligned dynamic window.
  kernel.walk([&](SharedAllocOp alloc) { values[alloc.getResult()][alloc.getResult()] = aligned; });
  // Each round only adds ways, from 31 per origin: a fixed point comes; the
  // round cap keeps a pathological kernel linear (fewer rounds only know
  // fewer ways: fewer requirements and reports).
  constexpr unsigned kMaxRounds = 16;
  for (unsigned round = 0; round < kMaxRounds && sweep(kernel); ++round) {
  }
}

const PointerOrigins *AddressOrigins::of(Value ptr) const {
  auto it = values.find(ptr);
  return it == values.end() ? nullptr : &it->second;
}

bool AddressOrigins::flow(Value to, Value from, unsigned bits, uint64_t residue) {
  auto it = values.find(from);
  if (it == values.end())
    return false;
  PointerOrigins moved; // `values[to]` may rehash the map
  for (auto [origin, residues] : it->second)
    moved[origin] = residues.plus(bits, residue);
  return joinInto(values[to], moved);
}

bool AddressOrigins::sweep(KernelOp kernel) {
  bool changed = false;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto add = dyn_cast<PtrAddOp>(op)) {
      auto [bits, residue] = offsetBits(
          add.getOffset(), scalarByteWidth(cast<PtrType>(add.getType()).getElementType()));
      changed |= flow(add.getResult(), add.getBase(), bits, residue);
    } else if (auto element = dyn_cast<TileElementOp>(op)) {
      auto [bits, residue] = tileElementBits(element);
      changed |= flow(element.getResult(), element.getBase(), bits, residue);
    } else if (auto mapa = dyn_cast<MapaOp>(op)) {
      // The same offset in the peer's window (PTX ISA "mapa").
      changed |= flow(mapa.getResult(), mapa.getSource());
    } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      changed |= flow(sel.getResult(), sel.getTrueValue());
      changed |= flow(sel.getResult(), sel.getFalseValue());
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (LocalVarOp slot = localSlot(store.getPtr())) {
        auto it = values.find(store.getValue());
        if (it != values.end())
          changed |= joinInto(slots[slot.getOperation()], it->second);
      }
    } else if (auto load = dyn_cast<LoadOp>(op)) {
      if (LocalVarOp slot = localSlot(load.getPtr())) {
        PointerOrigins copy = slots[slot.getOperation()];
        changed |= joinInto(values[load.getResult()], copy);
      }
    } else if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      if (isa<scf::IfOp, scf::ForOp>(parent))
        for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
          changed |= flow(parent->getResult(i), v);
          if (auto loop = dyn_cast<scf::ForOp>(parent))
            changed |= flow(loop.getRegionIterArgs()[i], v);
        }
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [i, init] : llvm::enumerate(loop.getInitArgs())) {
        changed |= flow(loop.getRegionIterArgs()[i], init);
        changed |= flow(loop.getResult(i), init); // no iteration
      }
    }
  });
  return changed;
}

int64_t mlir::tile::accessAlignment(MemoryAccessOpInterface access) {
  Type value;
  if (auto load = dyn_cast<LoadOp>(access.getOperation()))
    value = load.getResult().getType();
  else if (auto store = dyn_cast<StoreOp>(access.getOperation()))
    value = store.getValue().getType();
  int64_t bytes;
  if (auto async = dyn_cast<StoreAsyncOp>(access.getOperation()))
    bytes = async.getByteCount(); // st.async.v2/.v4
  else if (auto vec = dyn_cast_or_null<VectorType>(value))
    bytes = vec.getNumElements() * scalarByteWidth(vec.getElementType());
  else if (value && value.isIntOrFloat())
    bytes = scalarByteWidth(value);
  else
    bytes = scalarByteWidth(cast<PtrType>(access.getAccessPtr().getType()).getElementType());
  if (bytes <= 0)
    return 1;
  // One ld/st moves at most 16 bytes (.v4.b32, .v2.b64): a wider value
  // needs no more.
  return std::min<int64_t>(int64_t{1} << llvm::countr_zero(static_cast<uint64_t>(bytes)),
                           int64_t{1} << OffsetResidues::kMaxBits);
}

std::vector<int64_t> mlir::tile::requiredAddressAlignments(KernelOp kernel) {
  std::vector<int64_t> align(kernel.getNumArguments(), 1);
  AddressOrigins origins(kernel);
  kernel.walk([&](MemoryAccessOpInterface access) {
    Value ptr = access.getAccessPtr();
    if (!ptr || !isa<PtrType>(ptr.getType()))
      return;
    const PointerOrigins *held = origins.of(ptr);
    if (!held)
      return;
    const unsigned need = llvm::countr_zero(static_cast<uint64_t>(accessAlignment(access)));
    for (auto [origin, residues] : *held) {
      auto param = dyn_cast<BlockArgument>(origin);
      if (!param || param.getOwner()->getParentOp() != kernel.getOperation())
        continue;
      residues.forEach([&](unsigned bits, uint64_t residue) {
        // The origin must be a multiple of 2^m for the offset's known
        // multiple to make the address one; a way known to be off whatever
        // the origin is was reported instead.
        unsigned m = std::min(bits, need);
        if ((residue & ((uint64_t{1} << m) - 1)) == 0)
          align[param.getArgNumber()] = std::max(align[param.getArgNumber()], int64_t{1} << m);
      });
    }
  });
  return align;
}
