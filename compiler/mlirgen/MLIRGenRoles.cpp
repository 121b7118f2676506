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
// ends with it taking the last hand-over (TileRoleOps.td).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

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
  // A statement that is one mma (`x = mma(...)`, `let x = mma(...)`) reads
  // nothing of its own result: its wait may move to the next statement.
  // `mmas` gets the mma and the variable it is stored to.
  using MmaStore = std::pair<const fe::CallExpr *, const fe::Decl *>;
  auto wholeMma = [](const fe::StmtAST &st, SmallVectorImpl<MmaStore> &mmas) {
    const fe::ExprAST *value = nullptr;
    const fe::Decl *target = nullptr;
    if (auto *a = st.as<fe::AssignStmt>(); a && a->op == fe::AssignOp::Assign) {
      value = a->value.get();
      if (auto *v = a->target->as<fe::VarRefExpr>())
        target = v->decl;
    } else if (auto *let = st.as<fe::LetStmt>()) {
      value = let->init.get();
      target = let->decl.get();
    }
    auto *c = value ? value->as<fe::CallExpr>() : nullptr;
    if (!c || c->builtin != fe::Builtin::Mma)
      return false;
    mmas.push_back({c, target});
    return true;
  };
  // ... or an `if` whose branches are each one assignment of an mma
  // (`if j > 0 { o = mma(p, s.v, o) }`).
  auto ifOfMma = [&](const fe::StmtAST &st, SmallVectorImpl<MmaStore> &mmas) {
    auto *i = st.as<fe::IfStmt>();
    if (!i || i->isTurn || i->thenBody.size() != 1 || i->elseBody.size() > 1)
      return false;
    for (const fe::Block *b : {&i->thenBody, &i->elseBody})
      if (!b->empty() && ((*b)[0]->as<fe::LetStmt>() || !wholeMma(*(*b)[0], mmas)))
        return false;
    return true;
  };
  // Variables the mma whose wait is deferred stores (its registers are in
  // flight until the wait).
  SmallPtrSet<const fe::Decl *, 4> pendingStores;
  auto notPending = [&](const fe::ExprAST &e) {
    if (auto *c = e.as<fe::CallExpr>(); c && c->builtin == fe::Builtin::Zeros)
      return true;
    auto *v = e.as<fe::VarRefExpr>();
    return v && v->decl && !pendingStores.count(v->decl);
  };
  // An mma the consume block leaves in flight (Sema: no `waitAfter`, so the
  // block touches its accumulator and register A only after its own wait)
  // that reads and writes no register of the deferred mma.
  auto leftInFlight = [&](const MmaStore &m) {
    const fe::CallExpr &c = *m.first;
    return c.mma.inConsume && !c.mma.waitAfter && m.second && !pendingStores.count(m.second) &&
           c.args.size() == 3 && notPending(*c.args[2]) &&
           (!c.mma.a.inRegisters || notPending(*c.args[0]));
  };
  bool straight = true; // no statement may return or leave the iteration
  for (const auto &st : s.thenBody)
    straight = straight && !stmtMayReturn(*st) && !stmtLeavesIteration(*st);
  // Groups committed after the deferred one: mmas left in flight, each
  // committed as its own group after its statement, so the deferred wait is
  // `wait_group newer` and they run on under what follows until the
  // block's wait (FlashAttention-3: S_j = Q K_j^T and O += P V issued in one
  // turn, then the softmax of S_j under the P V). An `if` of an mma commits
  // in each of its branches (an empty group where a branch has no mma: the
  // count stays exact). A commit_group after the `if` follows the merge of
  // its paths (with and without wgmmas, or two with): ptxas cannot close the
  // group on a branch's last wgmma there and issues a dummy wgmma
  // (HGMMA.64x8x16, advisory C7519) on every path, the newest group, which
  // `wait_group newer` then leaves pending in place of the mma it meant to.
  auto genIfOfMmaCommitted = [&](const fe::IfStmt &i) {
    Value cond = genExpr(*i.cond);
    auto op = scf::IfOp::create(builder, loc(i.loc), cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(op.thenBlock()->getTerminator());
    genBlock(i.thenBody, 0);
    genTurnInFlightCommit(loc(i.loc));
    builder.setInsertionPoint(op.elseBlock()->getTerminator());
    genBlock(i.elseBody, 0);
    genTurnInFlightCommit(loc(i.loc));
  };
  int64_t newer = 0;
  SmallVector<const fe::CallExpr *, 2> inFlight; // the mmas of those `newer` groups
  if (!straight) {
    genBlock(s.thenBody, 0);
  } else {
    for (const auto &st : s.thenBody) {
      SmallVector<MmaStore> mmas;
      if (turnMmaWaitDue && (wholeMma(*st, mmas) || ifOfMma(*st, mmas)) &&
          llvm::all_of(mmas, leftInFlight)) {
        if (auto *i = st->as<fe::IfStmt>()) {
          genIfOfMmaCommitted(*i);
        } else {
          genStmt(*st);
          genTurnInFlightCommit(loc(st->loc));
        }
        ++newer;
        for (const MmaStore &m : mmas)
          inFlight.push_back(m.first);
        continue;
      }
      if (turnMmaWaitDue)
        genTurnMmaWait(loc(st->loc), newer, inFlight);
      newer = 0;
      inFlight.clear();
      pendingStores.clear();
      mmas.clear();
      turnDefersMmaWait = wholeMma(*st, mmas);
      genStmt(*st);
      if (turnMmaWaitDue)
        for (const MmaStore &m : mmas)
          pendingStores.insert(m.second);
      turnDefersMmaWait = false;
    }
  }
  // The next warpgroup in rank order; the last hands over to warpgroup 0.
  Value next = arith::AddIOp::create(builder, l, rank, intConst(l, i32, 1));
  Value wrap = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, next,
                                     intConst(l, i32, role.numWarpgroups));
  next = arith::SelectOp::create(builder, l, wrap, intConst(l, i32, 0), next);
  TurnPassOp::create(builder, l, next, first, groups);
  if (turnMmaWaitDue)
    genTurnMmaWait(l, newer, inFlight);
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
