//===- SyncDecisions.h - orders and scopes the lowering reads -*- C++ -*-===//
//
// The lowering decides no memory order or scope of its own: the sync passes
// decide them (tile-sync-defaults, in both --auto-sync and --no-auto-sync
// mode) and the patterns only read them, through these helpers, so that a
// missing decision fails loudly at the op instead of becoming a default.
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_SYNCDECISIONS_H
#define TILEC_CONVERSION_SYNCDECISIONS_H

#include "tile/Dialect/TileDialect.h"

namespace mlir::tile {

/// The scope of an mbarrier op; tile-sync-defaults sets every one (a peer's
/// mbarrier, or one a peer or st.async completes, is `.cluster`).
inline FailureOr<MemoryScope> requireScope(Operation *op, std::optional<MemoryScope> scope) {
  if (scope)
    return *scope;
  return op->emitOpError("internal error: no memory scope reached the lowering "
                         "(tile-sync-defaults decides it)");
}

/// The order of an mbarrier arrive or wait. Orders the source left open are
/// not in the IR yet (issue #7 item 2 moves them into the sync passes); until
/// then the documented defaults of TileOps.td apply, here and nowhere else:
/// an arrive releases (PTX ISA 9.7.13.15.13), a wait acquires (9.7.13.15.16).
inline MemoryOrder arriveOrder(std::optional<MemoryOrder> order) {
  return order.value_or(MemoryOrder::release);
}
inline MemoryOrder waitOrder(std::optional<MemoryOrder> order) {
  return order.value_or(MemoryOrder::acquire);
}

} // namespace mlir::tile

#endif
