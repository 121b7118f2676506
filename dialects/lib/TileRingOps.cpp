//===- TileRingOps.cpp - verifiers of the ring ops -------------------------===//
#include "tile/Dialect/TileDialect.h"

#include "tilec/Target/ClusterGeometry.h"

#include <array>

using namespace mlir;
using namespace mlir::tile;

namespace cluster = ::tile::cluster;

/// mbarrier arrival counts and tx-counts are 20-bit (PTX ISA 9.7.13.15.1:
/// count in 1 .. 2^20 - 1; tx-count in 0 .. 2^20 - 1).
static constexpr int64_t kMaxMBarrierCount = (int64_t(1) << 20) - 1;

/// The enclosing kernel's static cluster shape (1, 1, 1 without a cluster).
static std::optional<std::array<int64_t, 3>> clusterShape(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  return kernel ? kernel.getStaticClusterShape() : std::nullopt;
}

int64_t RingOp::getGroupSize() {
  std::optional<int32_t> axis = getMulticastAxis();
  if (!axis)
    return 1;
  auto shape = clusterShape(*this);
  return shape ? cluster::groupSize(*shape, *axis) : 1;
}

LogicalResult RingOp::verify() {
  if (getRingName().empty())
    return emitOpError("needs a name");
  int64_t stages = getStages();
  if (stages < 1)
    return emitOpError() << "has " << stages << " stages; a ring needs at least 1";
  size_t n = getMemberTypes().size();
  if (n == 0)
    return emitOpError("needs at least one member tile");
  if (getMemberStrides().size() != n || getMemberAlignments().size() != n)
    return emitOpError() << "has " << n << " member types but " << getMemberStrides().size()
                         << " strides and " << getMemberAlignments().size() << " alignments";
  for (size_t i = 0; i < n; ++i) {
    Type elem = cast<TypeAttr>(getMemberTypes()[i]).getValue();
    if (!elem.isIntOrFloat())
      return emitOpError() << "member " << i << " has type " << elem << "; members hold scalars";
    if (getMemberStrides()[i] < 1)
      return emitOpError() << "member " << i << " has stride " << getMemberStrides()[i]
                           << "; a stage's tile needs at least one element";
    int64_t align = getMemberAlignments()[i];
    if (align < 1 || (align & (align - 1)))
      return emitOpError() << "member " << i << " has alignment " << align
                           << "; alignments are powers of two";
  }
  // I64Attr getters are unsigned: read them as the signed values written.
  int64_t tx = getTxBytes(), warps = getConsumerWarps();
  if (tx < 0 || tx > kMaxMBarrierCount)
    return emitOpError() << "tx_bytes " << tx << " is outside the mbarrier tx-count range 0.."
                         << kMaxMBarrierCount;
  if (warps < 0)
    return emitOpError() << "consumer_warps " << warps << " is negative";
  if (std::optional<int32_t> axis = getMulticastAxis()) {
    if (!cluster::isMulticastAxis(*axis))
      return emitOpError() << "multicast_axis " << *axis
                           << " is not an axis (0..2 = x..z, 3 = the whole cluster)";
    auto shape = clusterShape(*this);
    if (!shape)
      return emitOpError("multicasts, but its kernel has no static cluster shape");
    if (cluster::groupSize(*shape, *axis) < 2)
      return emitOpError() << "multicasts along axis " << *axis << ", which has one CTA in the "
                           << (*shape)[0] << "x" << (*shape)[1] << "x" << (*shape)[2] << " cluster";
  }
  if (int64_t(getReleaseCount()) > kMaxMBarrierCount)
    return emitOpError() << "needs " << getReleaseCount()
                         << " releases per phase; an mbarrier counts at most " << kMaxMBarrierCount;
  return success();
}

/// The ring and cursor operands of an access: a tile.ring and a cursor of
/// the right side, or an error on `op`.
static FailureOr<RingOp> accessRing(Operation *op, bool producer) {
  auto ring = op->getOperand(0).getDefiningOp<RingOp>();
  if (!ring)
    return op->emitOpError("needs a ring defined by tile.ring"), failure();
  auto cursor = op->getOperand(1).getDefiningOp<RingCursorOp>();
  if (!cursor)
    return op->emitOpError("needs a cursor defined by tile.ring_cursor"), failure();
  if (cursor.getProducer() != producer)
    return op->emitOpError() << "needs a " << (producer ? "producer" : "consumer") << " cursor",
           failure();
  return ring;
}

LogicalResult RingCursorOp::verify() {
  // One position in one ring: the stage index counts that ring's stages.
  Value ring;
  for (Operation *user : getCursor().getUsers()) {
    if (user->getNumOperands() < 2 || user->getOperand(1) != getCursor() ||
        !isa<RingType>(user->getOperand(0).getType()))
      return emitOpError() << "is used by '" << user->getName()
                           << "'; a cursor is used only by ring accesses";
    if (ring && user->getOperand(0) != ring)
      return emitOpError("is used with two rings; each ring side has its own cursor");
    ring = user->getOperand(0);
  }
  return success();
}

/// The body's block arguments: `first`, then a shared pointer per member
/// tile with the member's element type.
static LogicalResult verifyAccessBody(Operation *op, Region &body, RingOp ring, Type first,
                                      StringRef firstWhat) {
  Block &block = body.front();
  ArrayAttr members = ring.getMemberTypes();
  if (block.getNumArguments() != members.size() + 1)
    return op->emitOpError() << "body takes " << block.getNumArguments() << " arguments; ring '"
                             << ring.getRingName() << "' needs " << firstWhat << " and "
                             << members.size() << " member tiles";
  if (block.getArgument(0).getType() != first)
    return op->emitOpError() << "body argument 0 (" << firstWhat << ") must be " << first;
  for (size_t i = 0; i < members.size(); ++i) {
    Type elem = cast<TypeAttr>(members[i]).getValue();
    auto ptr = dyn_cast<PtrType>(block.getArgument(i + 1).getType());
    if (!ptr || ptr.getSpace() != AddressSpace::shared || ptr.getElementType() != elem)
      return op->emitOpError() << "body argument " << i + 1 << " must be a shared pointer to "
                               << elem << " (member " << i << " of ring '" << ring.getRingName()
                               << "')";
  }
  return success();
}

LogicalResult RingProduceOp::verify() {
  auto cr = accessRing(*this, /*producer=*/true);
  if (failed(cr))
    return failure();
  auto full = PtrType::get(getContext(), IntegerType::get(getContext(), 64), AddressSpace::shared);
  return verifyAccessBody(*this, getBody(), (*cr), full, "the stage's full mbarrier");
}

LogicalResult RingConsumeOp::verify() {
  auto cr = accessRing(*this, /*producer=*/false);
  if (failed(cr))
    return failure();
  RingOp ring = *cr;
  // A release delayed by n blocks needs n + 1 distinct stages in use: the
  // stage consumed now and the n whose groups may still be in flight.
  int64_t inflight = getInflight(), stages = ring.getStages();
  if (inflight < 0 || inflight > stages - 1)
    return emitOpError() << "inflight " << inflight << " is outside 0.." << stages - 1 << " (ring '"
                         << ring.getRingName() << "' has " << stages << " stages)";
  if (std::optional<StringRef> anchor = getWaitAnchor();
      anchor && *anchor != "none" && *anchor != "reduce" && *anchor != "last")
    return emitOpError() << "wait_anchor '" << *anchor << "' is none of none, reduce, last";
  if (getWaitAnchor() && inflight != 0)
    return emitOpError("wait_anchor needs inflight 0: with inflight > 0 the closing wait leaves "
                       "groups in flight on purpose");
  return verifyAccessBody(*this, getBody(), ring, IntegerType::get(getContext(), 32),
                          "the stage index");
}

LogicalResult RingReleaseOp::verify() {
  auto cr = accessRing(*this, /*producer=*/false);
  if (failed(cr))
    return failure();
  auto consume = (*this)->getParentOfType<RingConsumeOp>();
  if (!consume || consume.getCursor() != getCursor() || consume.getRing() != getRing() ||
      consume.getInflight() == 0)
    return emitOpError("must be inside a tile.ring_consume of the same cursor with inflight > 0");
  int64_t back = getBack(), stages = (*cr).getStages();
  if (back < 1 || back > stages - 1)
    return emitOpError() << "back " << back << " is outside 1.." << stages - 1;
  return success();
}

LogicalResult RingDrainOp::verify() {
  return success(succeeded(accessRing(*this, /*producer=*/false)));
}

LogicalResult RingTailOp::verify() {
  return success(succeeded(accessRing(*this, /*producer=*/true)));
}
