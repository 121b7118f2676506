//===- SyncDecisions.h - orders and scopes the lowering reads -*- C++ -*-===//
//
// The lowering decides no memory order or scope of its own: tile-sync-semantics
// decides every one the source left open (in --auto-sync and --no-auto-sync
// mode alike) and the patterns only read them, through these helpers, so that
// a missing decision fails loudly at the op instead of becoming a default.
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_SYNCDECISIONS_H
#define TILEC_CONVERSION_SYNCDECISIONS_H

#include "tile/Dialect/TileDialect.h"

namespace mlir::tile {

namespace detail {
inline void reportUndecided(Operation *op, StringRef what) {
  op->emitError() << "internal: no " << what << " decided for " << op->getName()
                  << " (tile-sync-semantics decides every open order and scope; run it before "
                     "lowering)";
}
} // namespace detail

/// The order tile-sync-semantics decided for op (mbarrier ops, fences,
/// cluster arrives), or failure (reported at op).
inline FailureOr<MemoryOrder> requireOrder(Operation *op, std::optional<MemoryOrder> order) {
  if (order)
    return *order;
  detail::reportUndecided(op, "order");
  return failure();
}

/// The scope tile-sync-semantics decided for op, or failure (reported at op).
inline FailureOr<MemoryScope> requireScope(Operation *op, std::optional<MemoryScope> scope) {
  if (scope)
    return *scope;
  detail::reportUndecided(op, "scope");
  return failure();
}

} // namespace mlir::tile

#endif
