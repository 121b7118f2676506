//===- TileWarpOps.cpp - verifiers of the warp-level ops -------------------===//
#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Matchers.h"

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

/// An f32 reduction is a butterfly of shfl.sync.bfly (PTX has no float
/// redux.sync on sm_90): add, min or max, over every lane of the warp, since
/// each step reads lane ^ m whether or not it is in a mask.
LogicalResult ReduxOp::verify() {
  if (!getValue().getType().isF32())
    return success();
  ReduxKind k = getKind();
  if (k != ReduxKind::add && k != ReduxKind::min && k != ReduxKind::max)
    return emitOpError() << "of an f32 is add, min or max, not " << stringifyReduxKind(k);
  APInt mask;
  if (!matchPattern(getMask(), m_ConstantInt(&mask)) || !mask.isAllOnes())
    return emitOpError() << "of an f32 reads every lane: its mask must be the constant -1";
  return success();
}
