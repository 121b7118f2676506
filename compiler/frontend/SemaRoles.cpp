//===- SemaRoles.cpp - warp roles: warpgroups blocks and their builtins ----===//
//
// Warp roles. `warpgroups { NAME(warpgroups = n, regs = r) { ... } }`
// splits the CTA into roles of whole warpgroups (128 threads), in the order
// written: the first role runs in warpgroups 0 .. n0-1, the next from n0, ...
// Rules (docs/reference/roles.md "Warp roles"):
//  - one block per kernel, at the top level, and the last statement (after
//    setmaxnreg the warpgroups have different register budgets; code after
//    the block would be compiled to the smallest one);
//  - the kernel has an exact 1-D threads(T) with T = sum of n * 128;
//  - regs: a multiple of 8 in 24..256 (PTX setmaxnreg); at most one role
//    omits it (it keeps the entry count); the roles' registers fit in the
//    CTA's pool: sum of regs * threads <= entry registers * T <= 65536,
//    where entry = 65536 / T rounded down to 8 (target.h): a setmaxnreg.inc
//    beyond the pool waits forever;
//  - sync_threads() in a role is the role's named barrier (id 1 + role index,
//    count = the role's threads); cluster barriers in a role are errors (the
//    other roles never arrive);
//  - `turn { ... }` (checkTurn) in a role of n >= 2 warpgroups: the body runs
//    one warpgroup at a time in rank order. The role gets n named barriers
//    from id 9 on (target::kFirstTurnBarrier; all roles' turns share 9..15);
//    no return/break/continue leaves the body, turns do not nest, a produce
//    block neither holds one nor is in one, and (tile-check-divergence) the
//    turn is reached under control uniform over the role.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "tilec/Target/ClusterGeometry.h"

#include <unordered_map>

namespace tile::frontend {

namespace target = ::tile::target;

/// The named barrier of role `index`: 0 is the CTA-wide `bar.sync 0`, so
/// roles take 1.. (at most 8 roles: 1024 / 128); 9..15 stay free for other
/// compiler-owned barriers.
static int roleBarrierId(size_t index) { return 1 + (int)index; }

/// The `return` in s (at any depth), or nullptr.
static const StmtAST *findReturn(const StmtAST &s) {
  if (s.is<ReturnStmt>())
    return &s;
  auto inBlock = [](const Block &b) -> const StmtAST * {
    for (const StmtPtr &x : b)
      if (const StmtAST *r = findReturn(*x))
        return r;
    return nullptr;
  };
  if (auto *f = s.as<ForStmt>())
    return inBlock(f->body);
  if (auto *w = s.as<WhileStmt>())
    return inBlock(w->body);
  if (auto *i = s.as<IfStmt>()) {
    if (const StmtAST *r = inBlock(i->thenBody))
      return r;
    return inBlock(i->elseBody);
  }
  return nullptr;
}

/// Where a statement starts in the source: an assignment's location is its
/// operator, so take its target's leftmost name.
static Location statementStart(const StmtAST &s) {
  if (auto *a = s.as<AssignStmt>()) {
    const ExprAST *e = a->target.get();
    while (auto *i = e->as<IndexExpr>())
      e = i->base.get();
    return e->loc;
  }
  return s.loc;
}

bool Sema::isRoleBuiltin(Builtin b) {
  return b == Builtin::WarpgroupRank || b == Builtin::RoleThreadId || b == Builtin::RoleThreads ||
         b == Builtin::ElectOne;
}

bool Sema::rejectInRole(CallExpr &e) {
  Builtin b = e.builtin;
  bool roleBarrier = b == Builtin::SyncThreads || b == Builtin::SyncThreadsCount ||
                     b == Builtin::SyncThreadsAnd || b == Builtin::SyncThreadsOr;
  if (roleBarrier && turn_) {
    // Warpgroup r runs the body between its turn barrier's bar.sync and the
    // bar.arrive that lets r + 1 in: the role's barrier would wait for the
    // threads of warpgroups that wait for this one's hand-over.
    error(e.loc,
          e.callee + "() inside a turn: the barrier of role '" + curRole_->name + "' waits for " +
              "all its " + std::to_string(curRole_->threads()) +
              " threads, but one warpgroup runs the turn at a time and the others wait for it "
              "to finish (a deadlock)",
          "end the turn before the barrier and start another after it: `turn { ... }` then `" +
              e.callee + (b == Builtin::SyncThreads ? "()" : "(p)") + "` then `turn { ... }`");
    diags_.note(turn_->loc, "the turn is here");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return true;
  }
  if (b != Builtin::ClusterSync && b != Builtin::ClusterArrive && b != Builtin::ClusterWait)
    return false;
  error(e.loc,
        e.callee + "() inside role '" + curRole_->name +
            "': barrier.cluster waits for every thread of the cluster, and the other roles never "
            "arrive at it",
        "synchronise the cluster before the warpgroups block, or between roles with mbarriers "
        "(arrive(remote(b, r)) / wait(b))");
  for (ExprPtr &a : e.args)
    resolveOnly(a);
  return true;
}

Type Sema::checkRoleCall(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 0, 0))
    return Type::invalid();
  if (e.builtin == Builtin::ElectOne)
    return Type::i1();
  if (!curRole_) {
    error(e.loc, e.callee + "() is only defined inside a role of a warpgroups block",
          "write it inside `warpgroups { NAME(...) { ... } }`; outside roles use thread_id(), "
          "warp_id() and block_dim()");
    return Type::invalid();
  }
  return Type::i32();
}

bool Sema::checkRoleArgs(RoleAST &role) {
  bool ok = true, sawGroups = false, sawRegs = false;
  for (NamedArg &a : role.args) {
    bool groups = a.name == "warpgroups", regs = a.name == "regs";
    if (!groups && !regs) {
      error(a.loc, "unknown role argument '" + a.name + "'",
            "a role takes `warpgroups = N` (default 1) and `regs = R` (setmaxnreg)");
      ok = false;
      continue;
    }
    if ((groups && sawGroups) || (regs && sawRegs)) {
      error(a.loc, "duplicate role argument '" + a.name + "'", "give each argument once");
      ok = false;
      continue;
    }
    (groups ? sawGroups : sawRegs) = true;
    Type i32 = Type::i32();
    Type t = checkValue(a.expr, &i32, "role argument '" + a.name + "'", "use an integer constant");
    bool overflow = false;
    std::optional<int64_t> v;
    bool reported = t.isInvalid(); // a constant operand's error counts as reported
    if (!reported && !(reported = !checkConstantOps(*a.expr)))
      v = foldConstant(*a.expr, overflow);
    if (!v || overflow) {
      if (!reported)
        error(a.valueLoc, "role argument '" + a.name + "' must be an integer constant",
              "the warpgroups of a role and its registers are fixed at compile time");
      ok = false;
      continue;
    }
    if (groups) {
      int64_t most = target::kMaxThreadsPerBlock / target::kWarpgroupSize;
      if (*v < 1 || *v > most) {
        error(a.valueLoc,
              "a role of " + std::to_string(*v) + " warpgroups: give 1 to " + std::to_string(most),
              "a warpgroup is " + std::to_string(target::kWarpgroupSize) +
                  " threads; a CTA has at most " + std::to_string(most));
        ok = false;
      } else {
        role.numWarpgroups = (int)*v;
      }
    } else if (*v < target::kMinSetMaxNReg || *v > target::kMaxSetMaxNReg ||
               *v % target::kRegisterGranule != 0) {
      error(a.valueLoc,
            "regs = " + std::to_string(*v) + " is not a multiple of " +
                std::to_string(target::kRegisterGranule) + " in " +
                std::to_string(target::kMinSetMaxNReg) + ".." +
                std::to_string(target::kMaxSetMaxNReg),
            "setmaxnreg takes a register count per thread that is a multiple of 8 from 24 to 256 "
            "(PTX ISA setmaxnreg)");
      ok = false;
    } else {
      role.regs = (int)*v;
    }
  }
  return ok;
}

void Sema::checkWarpgroups(WarpgroupsStmt &s, bool kernelTopLevel) {
  KernelAST &k = *kernel_;
  bool place = true;
  if (!kernelTopLevel) {
    error(s.loc, "a warpgroups block must be at the top level of the kernel body",
          "move it out of the enclosing loop, if or role");
    place = false;
  } else if (k.warpgroups) {
    error(s.loc, "kernel '" + k.name + "' has a second warpgroups block",
          "put every role into one warpgroups block");
    diags_.note(k.warpgroups->loc, "the first warpgroups block is here");
    place = false;
  } else {
    k.warpgroups = &s;
    // Every thread enters the block: a thread that returned before it would
    // leave its warp short for setmaxnreg.sync.aligned and its role short
    // for the role's barrier.
    for (size_t i = 0; curBlock_ && i < curBlock_->size() && (*curBlock_)[i].get() != &s; ++i)
      if (const StmtAST *r = findReturn(*(*curBlock_)[i])) {
        error(r->loc, "return before the warpgroups block of kernel '" + k.name + "'",
              "every thread must reach the warpgroups block (setmaxnreg is executed by whole "
              "warps, a role's sync_threads() by all its threads); return inside a role instead");
        diags_.note(s.loc, "the warpgroups block is here");
        break;
      }
    // The last statement of the kernel: what follows would run in every
    // warpgroup with the smallest register budget of the roles.
    for (size_t i = 0; curBlock_ && i + 1 < curBlock_->size(); ++i)
      if ((*curBlock_)[i].get() == &s) {
        const StmtAST &next = *(*curBlock_)[i + 1];
        if (next.is<WarpgroupsStmt>())
          break; // reported as a second warpgroups block
        error(statementStart(next),
              "statement after the warpgroups block of kernel '" + k.name + "'",
              "the warpgroups block ends the kernel: after setmaxnreg each warpgroup has its "
              "role's registers; move this code before the block or into the roles");
        diags_.note(s.loc, "the warpgroups block is here");
        break;
      }
  }

  // The roles, in order: warpgroups, registers, barrier ids, names.
  bool argsOk = true;
  int64_t groups = 0;
  std::unordered_map<std::string, RoleAST *> names;
  const RoleAST *withoutRegs = nullptr;
  for (size_t i = 0; i < s.roles.size(); ++i) {
    RoleAST &r = *s.roles[i];
    auto [it, inserted] = names.emplace(r.name, &r);
    if (!inserted) {
      error(r.loc, "redefinition of role '" + r.name + "'", "give every role a distinct name");
      diags_.note(it->second->loc, "previous definition of '" + r.name + "' is here");
    }
    if (!checkRoleArgs(r))
      argsOk = false;
    r.firstWarpgroup = (int)groups;
    r.barrierId = roleBarrierId(i);
    groups += r.numWarpgroups;
    if (!r.regs && argsOk) {
      if (withoutRegs) {
        error(r.loc, "roles '" + withoutRegs->name + "' and '" + r.name + "' both omit regs",
              "give `regs = R` to all roles but one (that one keeps the register count the "
              "kernel starts with)");
        argsOk = false;
      }
      withoutRegs = &r;
    }
  }

  int64_t threads = groups * target::kWarpgroupSize;
  if (place && argsOk) {
    if (!k.threads.present) {
      error(s.loc,
            "kernel '" + k.name + "' has warp roles but no threads(" + std::to_string(threads) +
                ")",
            "add threads(" + std::to_string(threads) +
                ") after the parameter list: the roles take " + std::to_string(groups) +
                " warpgroups of " + std::to_string(target::kWarpgroupSize) + " threads");
    } else if (k.threads.dims[1] != 1 || k.threads.dims[2] != 1) {
      error(k.threads.loc,
            "warp roles need a 1-D block, found threads(" + std::to_string(k.threads.dims[0]) +
                ", " + std::to_string(k.threads.dims[1]) + ", " +
                std::to_string(k.threads.dims[2]) + ")",
            "write threads(" + std::to_string(threads) +
                "): warpgroups are formed from consecutive x thread ids");
    } else if (k.threads.dims[0] != threads) {
      error(s.loc,
            "the roles take " + std::to_string(groups) + " warpgroups (" + std::to_string(threads) +
                " threads), but kernel '" + k.name + "' has threads(" +
                std::to_string(k.threads.dims[0]) + ")",
            "make threads() the sum of the roles' warpgroups times " +
                std::to_string(target::kWarpgroupSize) + ", or change the roles");
      diags_.note(k.threads.loc, "threads() is here");
    } else {
      // The CTA's register pool: setmaxnreg moves registers between warps
      // of the CTA, it never adds any.
      int64_t minBlocks = k.bounds.minBlocks.value_or(1);
      int64_t entry = target::entryRegistersPerThread(threads, minBlocks);
      int64_t pool = entry * threads, total = 0;
      std::string terms;
      for (auto &r : s.roles) {
        int64_t regs = r->regs.value_or(entry);
        total += regs * r->threads();
        terms += (terms.empty() ? "" : " + ") + std::to_string(regs) + " x " +
                 std::to_string(r->threads());
      }
      if (total > pool)
        error(s.loc,
              "the roles ask for " + std::to_string(total) + " registers (" + terms +
                  "), more than the " + std::to_string(pool) + " a CTA of " +
                  std::to_string(threads) + " threads holds (" + std::to_string(entry) +
                  " per thread at entry; at most " + std::to_string(target::kRegistersPerSM) +
                  " per SM" +
                  (minBlocks > 1 ? ", shared by min_blocks(" + std::to_string(minBlocks) + ") CTAs"
                                 : std::string()) +
                  ")",
              "lower some role's regs: a setmaxnreg.inc beyond the pool waits forever (e.g. 40 "
              "for one producer warpgroup and 232 for two consumer warpgroups at 384 threads)");
    }
  }

  roleVarReads_.clear();
  roleVarWrites_.clear();
  roleVarOrder_.clear();
  for (auto &r : s.roles) {
    RoleAST *outer = curRole_;
    curRole_ = r.get();
    pushScope();
    checkBlock(r->body, false);
    popScope();
    curRole_ = outer;
  }
  warnVarsAcrossRoles();
}

void Sema::noteRoleVarUse(const Decl *d, Location loc, bool write) {
  // Only a `var` declared before the block is visible in two roles (a
  // function's body sees its parameters only).
  if (!curRole_ || d->kind != DeclKind::Var)
    return;
  if (!roleVarReads_.count(d) && !roleVarWrites_.count(d))
    roleVarOrder_.push_back(d);
  auto &uses = (write ? roleVarWrites_ : roleVarReads_)[d];
  for (const auto &u : uses)
    if (u.first == curRole_)
      return;
  uses.push_back({curRole_, loc});
}

void Sema::warnVarsAcrossRoles() {
  for (const Decl *decl : roleVarOrder_) {
    auto w = roleVarWrites_.find(decl);
    if (w == roleVarWrites_.end())
      continue;
    for (const auto &[reader, readLoc] : roleVarReads_[decl]) {
      bool readerWrites = false;
      const std::pair<const RoleAST *, Location> *other = nullptr;
      for (const auto &write : w->second) {
        if (write.first == reader)
          readerWrites = true;
        else if (!other)
          other = &write;
      }
      if (readerWrites || !other || !roleVarWarned_.insert({readLoc.line, readLoc.col}).second)
        continue;
      diags_.warning(readLoc,
                     "'" + decl->name + "' is assigned in role '" + other->first->name +
                         "' but read in role '" + reader->name +
                         "': every thread has its own copy of a `var`, so role '" + reader->name +
                         "' reads its own value, never role '" + other->first->name + "''s",
                     "pass values between roles through shared memory: role '" +
                         other->first->name +
                         "' stores them, then arrives on an mbarrier that role '" + reader->name +
                         "' waits on before reading (docs/guide/4-roles.md)");
      diags_.note(other->second, "'" + decl->name + "' is assigned here, in role '" +
                                     other->first->name + "'");
    }
  }
}

void Sema::checkTurn(IfStmt &s) {
  const char *hint = "write `turn { ... }` in the body of a role of several warpgroups (e.g. "
                     "`consumer(warpgroups = 2)`): its warpgroups run the body one at a time";
  bool ok = true;
  if (!curRole_) {
    error(s.loc, "turn outside a role of a warpgroups block", hint);
    ok = false;
  } else if (curRole_->numWarpgroups < 2) {
    error(s.loc,
          "turn in role '" + curRole_->name +
              "' of one warpgroup: a turn alternates between the warpgroups of its role",
          "give the role `warpgroups = 2` or more, or drop the turn");
    ok = false;
  } else if (turn_) {
    error(s.loc, "turn inside a turn",
          "the inner turn would wait for a warpgroup that waits for this one to finish: write "
          "one turn around both parts");
    diags_.note(turn_->loc, "the enclosing turn is here");
    ok = false;
  } else if (ringAccess_ && ringAccess_->isProduce()) {
    error(s.loc, "turn inside a produce block",
          "a produce block runs in one thread; a turn needs the role's warpgroups: put the turn "
          "around the loop of produce blocks, or in a consume block");
    ok = false;
  }
  if (ok && !curRole_->firstTurnBarrier) {
    // Warpgroup r of the role waits at barrier first + r for its turn.
    int first = nextTurnBarrier_;
    nextTurnBarrier_ += curRole_->numWarpgroups;
    if (nextTurnBarrier_ > target::kNumNamedBarriers) {
      error(s.loc,
            "the turns of the roles need " +
                std::to_string(nextTurnBarrier_ - target::kFirstTurnBarrier) +
                " named barriers (one per warpgroup of each role with a turn), more than the " +
                std::to_string(target::kNumNamedBarriers - target::kFirstTurnBarrier) +
                " ids " + std::to_string(target::kFirstTurnBarrier) + ".." +
                std::to_string(target::kNumNamedBarriers - 1) + " left after the roles' own",
            "use turns in fewer roles, or roles of fewer warpgroups");
      ok = false;
    } else {
      curRole_->firstTurnBarrier = first;
    }
  }
  if (ok)
    s.turnRole = curRole_;
  IfStmt *outer = turn_;
  size_t outerLoops = turnLoops_, outerInlines = turnInlines_;
  turn_ = &s;
  turnLoops_ = loops_.size();
  turnInlines_ = inlineStack_.size();
  pushScope();
  checkBlock(s.thenBody, false);
  popScope();
  turn_ = outer;
  turnLoops_ = outerLoops;
  turnInlines_ = outerInlines;
}

} // namespace tile::frontend

namespace tile::frontend {

namespace {
/// Every arrive / arrive_expect_tx call of a kernel, with where it is.
struct ArrivalSite {
  const CallExpr *call;
  const RoleAST *role; // nullptr: outside roles (every thread of the CTA may run it)
  bool inLoop;         // may run more than once per thread
  bool everyThread = false; // a statement of the kernel's (role's) top level that no
                            // return before it skips: every thread of it runs it once
};

bool containsReturn(const Block &block);
bool containsReturn(const StmtAST &s) {
  if (s.is<ReturnStmt>())
    return true;
  if (auto *i = s.as<IfStmt>())
    return containsReturn(i->thenBody) || containsReturn(i->elseBody);
  if (auto *w = s.as<WhileStmt>())
    return containsReturn(w->body);
  if (auto *f = s.as<ForStmt>())
    return containsReturn(f->body);
  if (auto *r = s.as<RingAccessStmt>())
    return containsReturn(r->body);
  return false;
}
bool containsReturn(const Block &block) {
  for (const StmtPtr &s : block)
    if (containsReturn(*s))
      return true;
  return false;
}

void collectArrivals(const ExprAST &e, const RoleAST *role, bool inLoop,
                     std::vector<ArrivalSite> &out) {
  if (auto *c = e.as<CallExpr>()) {
    if (c->builtin == Builtin::Arrive || c->builtin == Builtin::ArriveExpectTx)
      out.push_back({c, role, inLoop});
    for (const ExprPtr &a : c->args)
      collectArrivals(*a, role, inLoop, out);
  } else if (auto *b = e.as<BinaryExpr>()) {
    collectArrivals(*b->lhs, role, inLoop, out);
    collectArrivals(*b->rhs, role, inLoop, out);
  } else if (auto *u = e.as<UnaryExpr>()) {
    collectArrivals(*u->operand, role, inLoop, out);
  } else if (auto *k = e.as<CastExpr>()) {
    collectArrivals(*k->operand, role, inLoop, out);
  }
}

void collectArrivals(const Block &block, const RoleAST *role, bool inLoop,
                     std::vector<ArrivalSite> &out, bool topLevel = false) {
  bool returned = false; // a statement before this one may return
  for (const StmtPtr &sp : block) {
    const StmtAST &s = *sp;
    bool every = topLevel && !inLoop && !returned;
    returned = returned || containsReturn(s);
    if (auto *l = s.as<LetStmt>()) {
      collectArrivals(*l->init, role, inLoop, out);
    } else if (auto *x = s.as<ExprStmtAST>()) {
      size_t first = out.size();
      collectArrivals(*x->expr, role, inLoop, out);
      if (every && out.size() == first + 1 && out.back().call == x->expr.get())
        out.back().everyThread = true;
    } else if (auto *a = s.as<AssignStmt>()) {
      collectArrivals(*a->value, role, inLoop, out);
    } else if (auto *i = s.as<IfStmt>()) {
      collectArrivals(*i->cond, role, inLoop, out);
      collectArrivals(i->thenBody, role, inLoop, out);
      collectArrivals(i->elseBody, role, inLoop, out);
    } else if (auto *w = s.as<WhileStmt>()) {
      collectArrivals(*w->cond, role, true, out);
      collectArrivals(w->body, role, true, out);
    } else if (auto *f = s.as<ForStmt>()) {
      collectArrivals(f->body, role, true, out);
    } else if (auto *g = s.as<WarpgroupsStmt>()) {
      for (const auto &r : g->roles)
        collectArrivals(r->body, r.get(), inLoop, out, every);
    }
  }
}
} // namespace

/// Each arrive call outside loops runs at most once per thread, so the
/// threads that can reach it bound its arrivals: a role's threads inside a
/// role, the CTA's outside (threads(T) needed), times the cluster size for
/// arrivals on a peer's mbarrier. A count above the sum of those bounds
/// never completes the first phase, so every wait on it hangs.
void Sema::checkMBarrierArrivalCounts() {
  KernelAST &k = *kernel_;
  std::vector<ArrivalSite> sites;
  collectArrivals(k.body, nullptr, false, sites, /*topLevel=*/true);
  int64_t blockThreads =
      k.threads.present ? (int64_t)k.threads.dims[0] * k.threads.dims[1] * k.threads.dims[2] : 0;
  int64_t clusterSize = 1;
  if (k.cluster.kind == ClusterAttr::Dynamic)
    clusterSize = 0; // unknown
  else if (k.cluster.kind == ClusterAttr::Static)
    clusterSize = cluster::ctaCount(k.cluster.dims);
  for (MBarrierStmt *m : k.mbarriers) {
    auto uses = mbarrierUses_.find(m);
    if (!m->constantCount || uses == mbarrierUses_.end() || uses->second.waits.empty())
      continue;
    // The converse: an arrive every thread of the block (of a role) runs
    // once, on this CTA's mbarrier, makes at least that many arrivals; more
    // than a phase takes complete a phase before the others arrived, so a
    // wait on it returns early and orders nothing (CUDA's `barrier
    // bar(1)` arrived on by the whole block).
    for (const ArrivalSite &site : sites) {
      int64_t threads = site.role ? site.role->threads() : blockThreads;
      if (!site.everyThread || site.call->args.empty() ||
          mbarrierDeclOf(*site.call->args[0]) != m || site.call->space == AddressSpace::Cluster ||
          threads <= *m->constantCount || m->arraySize)
        continue;
      std::string who = site.role ? "the " + std::to_string(threads) + " threads of role '" +
                                        site.role->name + "'"
                                  : "the " + std::to_string(threads) + " threads of the block";
      error(site.call->loc,
            "'" + site.call->callee + "' on '" + m->decl->name + "' runs once in each of " + who +
                ", but '" + m->decl->name + "' completes a phase with " +
                std::to_string(*m->constantCount) + " arrival" +
                (*m->constantCount == 1 ? "" : "s") +
                ": the phase completes before the others arrive, so a wait on it orders nothing",
            "count every arriving thread (`mbarrier(" + std::to_string(threads) +
                ")`), or arrive from one thread after the others are done (`sync_threads()`, "
                "then `if thread_id() == 0 { arrive(" +
                m->decl->name + ") }`)");
      diags_.note(m->decl->loc, "'" + m->decl->name + "' is declared here");
      break;
    }
    int64_t bound = 0;
    bool bounded = true;
    std::vector<const ArrivalSite *> mine;
    for (const ArrivalSite &site : sites) {
      if (site.call->args.empty() || mbarrierDeclOf(*site.call->args[0]) != m)
        continue;
      mine.push_back(&site);
      int64_t threads = site.role ? site.role->threads() : blockThreads;
      int64_t ctas = site.call->space == AddressSpace::Cluster ? clusterSize : 1;
      if (site.inLoop || threads == 0 || ctas == 0) {
        bounded = false;
        break;
      }
      bound += threads * ctas;
    }
    if (!bounded || mine.empty() || *m->constantCount <= bound)
      continue;
    const std::string &name = m->decl->name;
    error(m->count->loc,
          "mbarrier '" + name + "' needs " + std::to_string(*m->constantCount) +
              " arrivals per phase, but at most " + std::to_string(bound) +
              " can happen: its first phase never completes and every wait on it hangs",
          "count the threads that arrive once per phase (a role's sync_threads() or elect_one() "
          "changes who arrives): e.g. role_threads() of the arriving role, or 1 for one elected "
          "thread");
    for (const ArrivalSite *site : mine)
      diags_.note(site->call->loc,
                  "at most " + std::to_string(site->role ? site->role->threads() : blockThreads) +
                      " threads" +
                      (site->role ? " (role '" + site->role->name + "')" : std::string()) +
                      (site->call->space == AddressSpace::Cluster
                           ? " in each of " + std::to_string(clusterSize) + " CTAs"
                           : std::string()) +
                      " arrive here, once each");
  }
}

} // namespace tile::frontend
