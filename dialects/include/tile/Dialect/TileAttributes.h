//===- TileAttributes.h - names of the tile dialect's extra attributes -*- C++ -*-===//
//
// The host contract's attributes, which MLIRGen attaches besides those
// TileBase.td declares (tile.sync, tile.auto, tile.name, tile.shared_only, tile.exit_flag,
// tile.hang_note, tile.hang_stage, tile.host_record, read through
// TileDialect's generated helpers): every name is spelled here once, the
// verifiers of the ops that carry them check their shape (KernelOp and
// SharedAllocOp, HostContract.h), and the dialect's attribute verifier
// refuses any other tile.* name.
//===----------------------------------------------------------------------===//
#ifndef TILE_DIALECT_TILEATTRIBUTES_H
#define TILE_DIALECT_TILEATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tile::attr {

/// DictionaryAttr on every tile.kernel argument: the parameter's host contract.
constexpr llvm::StringLiteral kParam = "tile.param";
/// DictionaryAttr on a dynamic tile.shared_alloc: the array's name, element
/// and count rule.
constexpr llvm::StringLiteral kSharedArray = "tile.shared_array";
/// DictionaryAttr on each tile.mbarrier_init of an mbarrier declaration whose
/// count is built from kernel parameters: its name and count rule.
constexpr llvm::StringLiteral kMBarrierCount = "tile.mbarrier_count";
/// DictionaryAttr on an instance of a template kernel: its source and arguments.
constexpr llvm::StringLiteral kInstance = "tile.instance";
/// UnitAttr on a kernel that waits on a semaphore (every CTA must be co-resident).
constexpr llvm::StringLiteral kSpinsOnPeers = "tile.spins_on_peers";

} // namespace mlir::tile::attr

#endif // TILE_DIALECT_TILEATTRIBUTES_H
