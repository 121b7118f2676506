//===- TileWarpOps.cpp - verifiers of the warp-level ops -------------------===//
#include "tile/Dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

/// vote.sync.ballot.b32 gives the 32-bit mask of voting lanes; .any/.all a
/// predicate (PTX ISA 9.7.13.7).
LogicalResult VoteOp::verify() {
  bool ballot = getKind() == VoteKind::ballot;
  if (ballot != getResult().getType().isInteger(32))
    return emitOpError() << stringifyVoteKind(getKind()) << " gives "
                         << (ballot ? "an i32 mask" : "an i1");
  return success();
}
