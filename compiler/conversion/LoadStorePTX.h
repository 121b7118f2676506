//===- LoadStorePTX.h - the one builder of ld/st instructions ---*- C++ -*-===//
//
// Every ld/st that is not a plain LLVM load/store (an ordered access, or one
// with cache hints) is composed here, so each qualifier's position follows the
// PTX ISA syntax in one place (9.7.9.8 ld, 9.7.9.9 st, 9.7.9.10 ld.global.nc):
//
//   ld{.sem.scope}{.ss}{.cop}{.L1::evict_*}{.L2::cache_hint}{.L2::NB}{.vN}.type
//   ld.global.nc{.L1::evict_*}{.L2::cache_hint}{.L2::NB}{.vN}.type
//   st{.sem.scope}{.ss}{.cop}{.L1::evict_*}{.L2::cache_hint}{.vN}.type
//
// MLIR 22's NVVM dialect has no op for these forms, so they are inline PTX.
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_LOADSTOREPTX_H
#define TILEC_CONVERSION_LOADSTOREPTX_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile::ptx {

/// Bytes one access of `type` (a scalar or a vector of scalars) moves.
int64_t accessBytes(Type type);

/// The qualifiers of one ld/st besides its operands.
struct LdStForm {
  bool isLoad = true;
  MemoryOrder order = MemoryOrder::weak;
  MemoryScope scope = MemoryScope::gpu;
  AddressSpace space = AddressSpace::global;
  std::optional<CacheOp> cache;
  std::optional<EvictionPriority> evict;
  std::optional<uint32_t> prefetch;
  Value policy; // the converted i64 of tile.create_policy, or null
};

/// `ld…` of a `type` value from `ptr` (an LLVM pointer); the result has `type`.
Value emitLoad(OpBuilder &b, Location loc, const LdStForm &form, Value ptr, Type type);
/// `st…` of `value` to `ptr`.
void emitStore(OpBuilder &b, Location loc, const LdStForm &form, Value ptr, Value value);

} // namespace mlir::tile::ptx

#endif
