//===- MLIRGenRoles.cpp - warp roles: tile.role, role ids, elect, barriers --===//
//
// `warpgroups { ... }` becomes one tile.warpgroup_id (warp-uniform
// %tid.x / 128) and one tile.role per role, in order, at the kernel's top
// level (Sema made the block the kernel's last statement, with nothing that
// may return before it). Role ids are arithmetic on that index and %tid.x;
// sync_threads() inside a role is tile.named_barrier over the role's threads.
// `turn { ... }` is tile.turn_wait (this warpgroup's barrier), the body,
// tile.turn_pass (the next warpgroup's, rank order, the last to 0); a role
// with turns starts with warpgroup 0 handing the first turn to itself and
// ends with it taking the last hand-over (TileRoleOps.td). The body's mmas
// keep their default groups; tile-place-mma-waits places a turn's waits.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "tilec/Target/TargetFacts.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

namespace target = ::tile::target;

void MLIRGenImpl::genWarpgroups(const fe::WarpgroupsStmt &s) {
  Location l = loc(s.loc);
  Type i32 = builder.getI32Type();
  warpgroupIndex = WarpgroupIdOp::create(builder, l, i32);
  for (const auto &r : s.roles) {
    Location rl = loc(r->loc);
    auto role = RoleOp::create(builder, rl, warpgroupIndex, builder.getStringAttr(r->name),
                               builder.getI32IntegerAttr(r->firstWarpgroup),
                               builder.getI32IntegerAttr(r->numWarpgroups),
                               r->regs ? builder.getI32IntegerAttr(*r->regs) : IntegerAttr(),
                               builder.getI32IntegerAttr(r->barrierId));
    OpBuilder::InsertionGuard guard(builder);
    Block *body = builder.createBlock(&role.getBody());
    builder.setInsertionPointToEnd(body);
    auto end = RoleEndOp::create(builder, rl);
    builder.setInsertionPoint(end);
    const fe::RoleAST *outer = currentRole;
    currentRole = r.get();
    auto genBody = [&] {
      if (r->firstTurnBarrier)
        genTurnEnd(rl, *r, /*entry=*/true);
      genBlock(r->body, 0);
      if (r->firstTurnBarrier)
        genTurnEnd(rl, *r, /*entry=*/false);
      genRingTails(rl); // MLIRGenRings.cpp: a producing role waits for its last stages
    };
    if (r->onlyProduces) {
      // Each produce runs in one elected thread and nothing else in the body
      // is observable: the whole body runs in that thread, elected once (the
      // other threads leave instead of looping for nothing beside the
      // consumers, and no loop iteration re-converges the warp to elect).
      genInElectedThread(rl, [&] {
        inElectedThread = true;
        genBody();
        inElectedThread = false;
      });
    } else {
      genBody();
    }
    currentRole = outer;
  }
}

Value MLIRGenImpl::genRoleCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  Type i32 = builder.getI32Type();
  using BI = fe::Builtin;
  if (e.builtin == BI::ElectOne)
    return genElectOne(l);
  const fe::RoleAST &role = *e.role; // Sema: role ids only inside a role
  switch (e.builtin) {
  case BI::WarpgroupRank:
    // A role of one warpgroup has rank 0 in every thread: a constant, so
    // that a decision on it is uniform (tile-check-divergence reads the IR
    // before folding).
    if (role.numWarpgroups == 1)
      return intConst(l, i32, 0);
    return arith::SubIOp::create(builder, l, warpgroupIndex, intConst(l, i32, role.firstWarpgroup));
  case BI::RoleThreadId: {
    Value tid = sreg(l, SpecialReg::tid_x);
    return arith::SubIOp::create(builder, l, tid,
                                 intConst(l, i32, role.firstWarpgroup * target::kWarpgroupSize));
  }
  default: // RoleThreads
    return intConst(l, i32, role.threads());
  }
}

void MLIRGenImpl::genTurn(const fe::IfStmt &s) {
  Location l = loc(s.loc);
  const fe::RoleAST &role = *s.turnRole;
  Type i32 = builder.getI32Type();
  auto first = builder.getI32IntegerAttr(role.firstTurnBarrier);
  auto groups = builder.getI32IntegerAttr(role.numWarpgroups);
  Value rank = // the warpgroup's rank in the role
      arith::SubIOp::create(builder, l, warpgroupIndex, intConst(l, i32, role.firstWarpgroup));
  TurnWaitOp::create(builder, l, rank, first, groups);
  // Each mma with its default wait: where a turn's waits go (deferred past
  // the hand-over, mmas left in flight as groups of their own) is
  // tile-place-mma-waits' decision.
  genBlock(s.thenBody, 0);
  // The next warpgroup in rank order; the last hands over to warpgroup 0.
  Value next = arith::AddIOp::create(builder, l, rank, intConst(l, i32, 1));
  Value wrap = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, next,
                                     intConst(l, i32, role.numWarpgroups));
  next = arith::SelectOp::create(builder, l, wrap, intConst(l, i32, 0), next);
  TurnPassOp::create(builder, l, next, first, groups);
}

void MLIRGenImpl::genTurnEnd(Location l, const fe::RoleAST &role, bool entry) {
  Type i32 = builder.getI32Type();
  auto first = builder.getI32IntegerAttr(role.firstTurnBarrier);
  auto groups = builder.getI32IntegerAttr(role.numWarpgroups);
  Value rank = // the warpgroup's rank in the role
      arith::SubIOp::create(builder, l, warpgroupIndex, intConst(l, i32, role.firstWarpgroup));
  Value zero = intConst(l, i32, 0);
  Value isFirst = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, rank, zero);
  auto op = scf::IfOp::create(builder, l, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(op.thenBlock()->getTerminator());
  if (entry) // warpgroup 0 has the first turn: its own arrival opens it
    TurnPassOp::create(builder, l, zero, first, groups);
  else // the last warpgroup's final hand-over: barrier first completes again
    TurnWaitOp::create(builder, l, zero, first, groups);
}

void MLIRGenImpl::genRoleBarrier(Location l, const fe::RoleAST &role) {
  NamedBarrierOp::create(builder, l, role.barrierId, role.threads(), /*aligned=*/false);
}

Value MLIRGenImpl::genBarrierReduction(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  Value pred = genExpr(*e.args[0]);
  BarrierReduction kind = e.builtin == fe::Builtin::SyncThreadsCount ? BarrierReduction::popc
                          : e.builtin == fe::Builtin::SyncThreadsAnd ? BarrierReduction::and_
                                                                     : BarrierReduction::or_;
  Type result = kind == BarrierReduction::popc ? builder.getI32Type() : builder.getI1Type();
  auto reduction = BarrierReductionAttr::get(builder.getContext(), kind);
  if (e.role) // inside a role: the role's named barrier, as sync_threads()
    return NamedBarrierOp::create(builder, l, result, pred, e.role->barrierId, e.role->threads(),
                                  reduction, /*aligned=*/false)
        .getResult();
  return BarrierOp::create(builder, l, result, pred, reduction, /*aligned=*/false).getResult();
}

std::pair<Value, Value> MLIRGenImpl::roleLinearThread(Location l) {
  Type i32 = builder.getI32Type();
  // Operands built in named steps: argument evaluation order is unspecified,
  // and the IR (and its tests) must not depend on the host compiler.
  Value first = intConst(l, i32, currentRole->firstWarpgroup * target::kWarpgroupSize);
  Value tidX = sreg(l, SpecialReg::tid_x);
  Value tid = arith::SubIOp::create(builder, l, tidX, first);
  return {tid, intConst(l, i32, currentRole->threads())};
}

Value MLIRGenImpl::genElectOne(Location l) {
  return ElectOneOp::create(builder, l, builder.getI1Type());
}

Value MLIRGenImpl::genInFirstWarpOfRole(Location l) {
  Type i32 = builder.getI32Type();
  if (currentRole) {
    // The role's first warp: %tid.x in [first * 128, first * 128 + 32).
    Value tid = sreg(l, SpecialReg::tid_x);
    Value rel = arith::SubIOp::create(
        builder, l, tid, intConst(l, i32, currentRole->firstWarpgroup * target::kWarpgroupSize));
    return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, rel,
                                 intConst(l, i32, target::kWarpSize));
  }
  Value tid = linearThread(l).first;
  return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, tid,
                               intConst(l, i32, target::kWarpSize));
}

void MLIRGenImpl::genInElectedThread(Location l, const std::function<void()> &body) {
  if (inElectedThread) // already there (a role that only produces)
    return body();
  auto warp = scf::IfOp::create(builder, l, genInFirstWarpOfRole(l), /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(warp.thenBlock()->getTerminator());
  auto lane = scf::IfOp::create(builder, l, genElectOne(l), /*withElseRegion=*/false);
  builder.setInsertionPoint(lane.thenBlock()->getTerminator());
  body();
}
