//===- AddressAlignment.h - how far from aligned each address may be ------===//
//
// PTX requires every ld/st/atom address to be aligned to the bytes it
// accesses (PTX ISA 6.4.1 "Addresses as Operands"); a misaligned one traps
// at run time (CUDA_ERROR_MISALIGNED_ADDRESS, the context is lost). Which
// bytes an address is off is known only from its origin: a pointer kernel
// parameter (aligned as the runtime checks before the launch), a shared
// array or tile (16-byte aligned by their layout), plus the offsets added on
// the way, as far as the arithmetic that computes them shows their low bits.
// One analysis serves both consumers: the kernel info's `addressAlign` of
// each parameter and the check that reports an access known to be off.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_ADDRESSALIGNMENT_H
#define TILEC_TRANSFORMS_ADDRESSALIGNMENT_H

#include "tile/Dialect/TileDialect.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <vector>

namespace mlir::tile {

/// What may be known of a byte offset modulo the widest access (16 bytes:
/// ld/st.v4.b32, .v2.b64), one entry per way the offset may come: its low
/// `bits` bits (0 to 4) are `residue`. The 31 possible (bits, residue)
/// pairs are the bits of a mask.
class OffsetResidues {
public:
  static constexpr unsigned kMaxBits = 4;

  static OffsetResidues exact(unsigned bits, uint64_t residue) {
    OffsetResidues r;
    r.mask = 1u << index(bits, residue);
    return r;
  }
  bool empty() const { return mask == 0; }
  /// Adds the ways of `other`; true when that changed anything.
  bool join(OffsetResidues other) {
    uint32_t before = mask;
    mask |= other.mask;
    return mask != before;
  }
  /// The offsets after adding an offset known as (bits, residue).
  OffsetResidues plus(unsigned bits, uint64_t residue) const;
  /// Calls f(bits, residue) for every way.
  template <typename F> void forEach(F f) const {
    for (unsigned b = 0; b <= kMaxBits; ++b)
      for (uint64_t r = 0; r < (uint64_t{1} << b); ++r)
        if (mask & (1u << index(b, r)))
          f(b, r);
  }

private:
  static unsigned index(unsigned bits, uint64_t residue) {
    return (1u << bits) - 1 + static_cast<unsigned>(residue);
  }
  uint32_t mask = 0;
};

/// Per origin a pointer may come from: the offsets it may have from it.
using PointerOrigins = llvm::SmallDenseMap<Value, OffsetResidues, 2>;

/// The origins of every pointer value of a kernel, solved over the whole
/// kernel at once: through `p[i]` (ptr_add), a shared tile's element, mapa,
/// `c ? p : q`, an `if`'s and a loop's results, a loop's carried values and
/// `var`s (a load of a local slot holds what any store to it holds). Each
/// way is a possible execution, as each access is assumed to run. A pointer
/// loaded from memory or made otherwise has no origin: nothing is known of
/// it, and it puts no requirement on anything.
class AddressOrigins {
public:
  explicit AddressOrigins(KernelOp kernel);
  /// nullptr where nothing is known of `ptr`.
  const PointerOrigins *of(Value ptr) const;

private:
  bool sweep(KernelOp kernel);
  bool flow(Value to, Value from, unsigned bits = OffsetResidues::kMaxBits,
            uint64_t residue = 0);

  llvm::DenseMap<Value, PointerOrigins> values;
  llvm::DenseMap<Operation *, PointerOrigins> slots;
};

/// The alignment (bytes, a power of two, at most 16) one access of `access`
/// needs: the largest power of two dividing the bytes it moves.
int64_t accessAlignment(MemoryAccessOpInterface access);

/// For each argument of `kernel`: the byte alignment its address must have
/// for the kernel's memory accesses through it to be aligned (1 for an
/// argument that is not a pointer or is not accessed). An access `p[i]` of B
/// bytes fixes p's low bits as far as the offset's are known: p must be a
/// multiple of the largest power of two dividing both B and the offsets'
/// known multiple. (An access known to be off, whatever p is, is reported by
/// tile-check-address-alignment and counts for nothing here.)
std::vector<int64_t> requiredAddressAlignments(KernelOp kernel);

} // namespace mlir::tile

#endif
