//===- AddressAlignment.h - the alignment pointer parameters must have ---===//
#ifndef TILEC_TRANSFORMS_ADDRESSALIGNMENT_H
#define TILEC_TRANSFORMS_ADDRESSALIGNMENT_H

#include "tile/Dialect/TileDialect.h"

#include <vector>

namespace mlir::tile {

/// For each argument of `kernel`: the byte alignment its address must have
/// for the kernel's memory accesses through it to be aligned (1 for an
/// argument that is not a pointer or is not accessed). PTX requires every
/// ld/st/atom address to be aligned to the bytes it accesses (PTX ISA 6.4.1
/// "Addresses as Operands"); an access `p[i]` of B bytes fixes p's low bits
/// as far as the index is a known multiple: p must be a multiple of
/// gcd(B, element bytes x 2^(known trailing zero bits of i)). A misaligned
/// argument traps at run time (CUDA_ERROR_MISALIGNED_ADDRESS, the context is
/// lost); the runtime refuses it before the launch instead.
std::vector<int64_t> requiredAddressAlignments(KernelOp kernel);

} // namespace mlir::tile

#endif
