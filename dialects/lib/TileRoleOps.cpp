//===- TileRoleOps.cpp - verifiers of the warp-role ops --------------------===//
#include "tile/Dialect/TileDialect.h"

#include "tilec/Target/TargetFacts.h"

using namespace mlir;
using namespace mlir::tile;

namespace target = ::tile::target;

int64_t RoleOp::getNumThreads() { return int64_t(getNumWarpgroups()) * target::kWarpgroupSize; }

LogicalResult RoleOp::verify() {
  int64_t first = getFirstWarpgroup(), count = getNumWarpgroups();
  constexpr int64_t maxGroups = target::kMaxThreadsPerBlock / target::kWarpgroupSize;
  if (first < 0 || count < 1 || first + count > maxGroups)
    return emitOpError() << "warpgroups [" << first << ", " << first + count << ") are outside the "
                         << maxGroups << " warpgroups a CTA can have";
  if (auto regs = getRegs()) {
    int64_t r = *regs;
    if (r < target::kMinSetMaxNReg || r > target::kMaxSetMaxNReg || r % target::kRegisterGranule)
      return emitOpError() << "regs " << r << " is not a multiple of " << target::kRegisterGranule
                           << " in " << target::kMinSetMaxNReg << ".." << target::kMaxSetMaxNReg
                           << " (PTX setmaxnreg)";
  }
  int64_t id = getBarrierId();
  if (id < 1 || id >= target::kNumNamedBarriers)
    return emitOpError() << "barrier_id " << id << " is not in 1.." << target::kNumNamedBarriers - 1
                         << " (0 is the CTA-wide barrier)";
  if (getBody().empty())
    return emitOpError("needs a body");
  // The role's threads are a part of the CTA: a barrier that waits for every
  // thread of the CTA or of the cluster deadlocks (the other roles never
  // arrive at it).
  Operation *bad = nullptr;
  getBody().walk([&](Operation *op) {
    if (isa<BarrierOp, ClusterSyncOp, ClusterArriveOp, ClusterWaitOp>(op) && !bad)
      bad = op;
  });
  if (bad)
    return bad->emitOpError() << "inside tile.role \"" << getRoleName()
                              << "\": it waits for threads the role does not have (use "
                                 "tile.named_barrier over the role's threads)";
  return success();
}

LogicalResult NamedBarrierOp::verify() {
  int64_t id = getBarrierId(), n = getNumThreads();
  if (id < 0 || id >= target::kNumNamedBarriers)
    return emitOpError() << "barrier id " << id << " is not in 0.."
                         << target::kNumNamedBarriers - 1;
  if (n < target::kWarpSize || n > target::kMaxThreadsPerBlock || n % target::kWarpSize)
    return emitOpError() << "thread count " << n << " is not a multiple of " << target::kWarpSize
                         << " in " << target::kWarpSize << ".." << target::kMaxThreadsPerBlock
                         << " (PTX bar.sync)";
  return verifyBarrierReduction(*this, getPred(), getReduction(), getResult());
}

/// The turn barriers first .. first + warpgroups - 1 are named barriers of
/// the CTA other than 0 (CTA-wide) and the role's own, and the role has
/// exactly `warpgroups` warpgroups to alternate.
static LogicalResult verifyTurn(Operation *op, int64_t first, int64_t groups) {
  auto role = op->getParentOfType<RoleOp>();
  if (!role)
    return op->emitOpError("outside a tile.role: a turn alternates between a role's warpgroups");
  if (groups < 2 || groups != role.getNumWarpgroups())
    return op->emitOpError() << "warpgroups " << groups << " is not the "
                             << role.getNumWarpgroups() << " (>= 2) of its tile.role \""
                             << role.getRoleName() << "\"";
  if (first < 1 || first + groups > target::kNumNamedBarriers)
    return op->emitOpError() << "barriers " << first << ".." << first + groups - 1
                             << " are not in 1.." << target::kNumNamedBarriers - 1;
  int64_t own = role.getBarrierId();
  if (own >= first && own < first + groups)
    return op->emitOpError() << "barriers " << first << ".." << first + groups - 1
                             << " include the role's own barrier " << own;
  return success();
}

LogicalResult TurnWaitOp::verify() {
  return verifyTurn(*this, getFirstBarrier(), getWarpgroups());
}

LogicalResult TurnPassOp::verify() {
  return verifyTurn(*this, getFirstBarrier(), getWarpgroups());
}
