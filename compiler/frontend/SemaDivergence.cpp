//===- SemaDivergence.cpp - barriers and mbarriers under divergent control -===//
//
// Kernel-wide checks on the checked AST, run when the kernel has no
// errors:
//
//  - Barriers in divergent control flow (warnings). `sync_threads()` waits for
//    every thread of the CTA, `cluster_sync()`/`cluster_arrive()`/
//    `cluster_wait()` for every thread of the cluster (PTX ISA 9.7.13.1 bar,
//    9.7.13.3 barrier.cluster). Under a condition, or in a loop whose trip
//    count, differs between those threads, or after a `return` some of them
//    take, the threads that skip the barrier deadlock (or silently
//    desynchronise) the others. The levels and what each barrier tolerates
//    are the rules table of tilec/Uniformity.h, the one the sync passes'
//    IR analysis applies too (compiler/transforms/Uniformity.h): thread
//    ids, lane ids, loads and atomics differ between threads, warp ids
//    between warps; block ids, the cluster rank and `h.local`/`h.local_base`
//    between CTAs; literals, kernel parameters, dimensions and the cluster
//    id are the same everywhere. Such a cluster barrier is not counted for
//    the DSMEM lifetime rule, and such a CTA barrier is emitted as
//    non-aligned `barrier.sync`. A `var` is as divergent as its initializer,
//    every value assigned to it and the control of each assignment (a
//    fixpoint over the kernel: inferVarLevels; the IR analysis follows the
//    slot the var becomes the same way), so `var u = first; while u < units
//    { ...; u += n }` is uniform and its barriers are `.aligned`; any
//    variable a divergent `break` may leave at different iterations is not.
//
//  - elect_one() (elect.sync, every lane of the warp together) in control
//    flow that lanes of a warp may take differently (warning); warp_id() and
//    warpgroup_rank() are warp-uniform, so `if warp_id() == 0 { if
//    elect_one() ...` is fine. Inside a role of a warpgroups block, control
//    starts uniform over the role and sync_threads() is the role's barrier.
//
//  - Multicast box origins (errors): the same walk with uniformity taken over
//    the CTAs of a multicast group (GroupMode): every CTA of the group loads
//    1/C of one box, so an origin that may differ between them is rejected.
//
//  - Waits no arrival reaches (errors, static clusters; the evaluation is in
//    SemaSync.cpp, checkWaitsReachArrivals). For each CTA rank r
//    the conditions are evaluated with cluster_rank() = r (and
//    block_in_cluster, cluster_size): a wait(b) that rank r may reach while
//    no arrive/arrive_expect_tx on its b can run (a local one that rank r
//    never reaches, a remote one whose target rank is never r) never
//    completes. store_async only completes bytes; it never arrives.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"
#include "tilec/Uniformity.h"

#include "tilec/Target/ClusterGeometry.h"

#include <algorithm>
#include <unordered_map>

namespace tile::frontend {

namespace {

// Over which threads a value is the same, and what each construct
// tolerates: tilec/Uniformity.h. PerWarp values (warp_id(), a vote over the
// whole warp) are enough for elect_one() and warp collectives, not for a
// barrier; PerWarpgroup ones (warpgroup_rank()) for mma, whose wgmma needs
// the warpgroup.
using namespace ::tile::uniformity;

/// Why control flow is divergent: the condition (or return) that made it so.
struct Divergence {
  Level level = Uniform;
  Location where;
};

/// Uniformity over a multicast group instead of the CTA: the CTAs of one
/// cluster that differ only in their position along `axis` (3 = all). Their
/// position along the other axes, the cluster id and everything uniform are
/// the same in all of them.
struct GroupMode {
  int axis;
  int64_t dims[3];                                                 // the static cluster shape
  std::function<std::optional<int64_t>(const ExprAST &)> constant; // folds with cluster sizes
  bool varies(int a) const { return (axis == 3 || axis == a) && dims[a] > 1; }
};

class DivergenceWalker {
public:
  explicit DivergenceWalker(DiagnosticEngine &diags, const GroupMode *group = nullptr)
      : diags_(diags), group_(group) {}
  /// The multicast axes of the copies walked (those with a group of several CTAs).
  std::vector<int> multicastAxes;

  void walkBlock(const Block &block, Divergence control) {
    for (const StmtPtr &s : block)
      control = walkStmt(*s, control);
  }

  /// The level of every `var` of `body` (a join over its initializer and
  /// assignments, which a later statement may feed back into an earlier one
  /// through a loop): quiet walks until no level rises. Monotone over five
  /// levels, so it ends; past kMaxPasses (huge generated kernels) every var
  /// and user call is taken as per-thread, the conservative answer.
  void inferVarLevels(const Block &body) {
    constexpr int kMaxPasses = 16;
    quiet_ = true;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      raised_ = false;
      levels_.clear();
      returnControl_ = {};
      walkBlock(body, {});
      if (!raised_)
        break;
      if (pass + 1 == kMaxPasses)
        varsPerThread_ = true;
    }
    quiet_ = false;
    levels_.clear();
    returnControl_ = {};
  }

private:
  /// Joins `l` into the inferred level of var `d`; returns the joined level.
  Level varLevel(const Decl *d, Level l) {
    if (varsPerThread_)
      return PerThread;
    return joinLevel(varLevels_[d], l);
  }

  Level joinLevel(Level &known, Level l) {
    if (l > known) {
      known = l;
      raised_ = true;
    }
    return known;
  }

  /// Walks one statement under `control`; returns the control of the
  /// statements after it (raised by a `return` taken under a divergent one).
  Divergence walkStmt(const StmtAST &s, Divergence control) {
    switch (s.kind()) {
    case StmtAST::Let: {
      auto &l = *s.as<LetStmt>();
      visitExpr(*l.init, control); // first: the level of a call in it is its walk's
      Level init = level(*l.init);
      if (l.decl->kind == DeclKind::Let)
        lets_[l.decl.get()] = l.init.get();
      if (l.decl->kind == DeclKind::Var)
        init = varLevel(l.decl.get(), std::max(init, control.level));
      levels_[l.decl.get()] = init;
      break;
    }
    case StmtAST::Assign: {
      auto &a = *s.as<AssignStmt>();
      visitExpr(*a.target, control);
      visitExpr(*a.value, control);
      if (auto *v = a.target->as<VarRefExpr>(); v && v->decl && v->decl->kind == DeclKind::Var) {
        // `x op= e` reads x too: level(*a.target) is x's level.
        Level l = singleThread_ ? PerThread
                                : std::max({level(*a.value), level(*a.target), control.level});
        levels_[v->decl] = varLevel(v->decl, l);
        for (Loop *loop : loops_)
          loop->assigned.push_back(v->decl);
      }
      break;
    }
    case StmtAST::ExprStmt:
      visitExpr(*s.as<ExprStmtAST>()->expr, control);
      break;
    case StmtAST::If: {
      auto &i = *s.as<IfStmt>();
      if (i.turnRole)
        judgeTurn(i, control);
      visitExpr(*i.cond, control);
      Divergence inner = raise(control, condLevel(*i.cond), i.cond->loc);
      walkBlock(i.thenBody, inner);
      walkBlock(i.elseBody, inner);
      break;
    }
    case StmtAST::While: {
      auto &w = *s.as<WhileStmt>();
      visitExpr(*w.cond, control);
      Divergence inner = raise(control, condLevel(*w.cond), w.cond->loc);
      walkLoopBody(w.body, inner);
      break;
    }
    case StmtAST::For: {
      auto &f = *s.as<ForStmt>();
      for (const ExprAST *e : {f.start.get(), f.end.get(), f.step.get()})
        if (e)
          visitExpr(*e, control);
      Level bounds = level(*f.end);
      if (f.forKind != ForKind::Range)
        bounds = PerThread; // starts at the thread's id
      if (f.start)
        bounds = std::max(bounds, level(*f.start));
      if (f.step)
        bounds = std::max(bounds, level(*f.step));
      levels_[f.loopVar.get()] = bounds;
      Divergence inner = raise(control, bounds, f.forKind == ForKind::Range ? f.end->loc : f.loc);
      walkLoopBody(f.body, inner);
      break;
    }
    case StmtAST::Return: {
      // Threads that return stop arriving at later barriers: what follows is
      // divergent as far as this return's control is.
      returnControl_ = raise(returnControl_, control.level, control.where);
      // In an inlined function: the call's value is as divergent as every
      // value it returns, and as the control of each return.
      auto &r = *s.as<ReturnStmt>();
      if (r.value) {
        visitExpr(*r.value, control);
        if (!inlineStack_.empty())
          joinLevel(callLevels_[inlineStack_.back()], std::max(level(*r.value), control.level));
      }
      break;
    }
    case StmtAST::Ring:
      break;
    case StmtAST::Produce:
    case StmtAST::Consume:
      // Entered by every thread of the role (SemaRings.cpp rejects one under
      // an `if`); a produce body then runs in one elected thread, so what it
      // assigns differs between the role's threads.
      singleThread_ += s.kind() == StmtAST::Produce;
      walkBlock(s.as<RingAccessStmt>()->body, control);
      singleThread_ -= s.kind() == StmtAST::Produce;
      break;
    case StmtAST::Warpgroups:
      // Each role is entered by its whole warpgroups: inside it, control is
      // uniform over the role's threads (its sync_threads() is the role's
      // barrier). A return in one role does not reach the others.
      for (const auto &r : s.as<WarpgroupsStmt>()->roles) {
        Divergence saved = returnControl_;
        walkBlock(r->body, control);
        returnControl_ = saved;
      }
      break;
    case StmtAST::Break:
    case StmtAST::Continue:
      // Like a return, for the rest of this iteration: threads that left do
      // not reach what follows. A break also keeps them out of every later
      // iteration, so the whole body is divergent that far (walkLoopBody).
      if (!loops_.empty()) {
        Loop &loop = *loops_.back();
        loop.exitControl = raise(loop.exitControl, control.level, control.where);
        if (s.kind() == StmtAST::Break)
          loop.breakControl = raise(loop.breakControl, control.level, control.where);
      }
      break;
    default:
      break;
    }
    Divergence after = control;
    if (returnControl_.level > after.level)
      after = returnControl_;
    if (!loops_.empty() && loops_.back()->exitControl.level > after.level)
      after = loops_.back()->exitControl;
    return after;
  }

  /// A loop body under `inner`. Barriers in it are judged once the whole body
  /// is walked: a `break` anywhere in it (under a divergent condition) makes
  /// every iteration after the first divergent, the statements before the
  /// break included. Judged barriers of a nested loop pass to the enclosing
  /// loop, whose breaks raise them again.
  void walkLoopBody(const Block &body, Divergence inner) {
    Loop loop;
    loops_.push_back(&loop);
    walkBlock(body, inner);
    loops_.pop_back();
    // Threads that break out at different iterations keep different values
    // of what the loop assigns.
    for (const Decl *d : loop.assigned)
      levels_[d] = varLevel(d, loop.breakControl.level);
    for (auto &[call, control] : loop.barriers)
      judgeBarrier(*call, raise(control, loop.breakControl.level, loop.breakControl.where));
    for (auto &[turn, control] : loop.turns)
      judgeTurn(*turn, raise(control, loop.breakControl.level, loop.breakControl.where));
  }

  /// A turn (SemaRoles.cpp) is a chain of named barriers between the
  /// role's warpgroups: each must pass it as often as the others, in the
  /// same order, or the next warpgroup waits forever. Unlike a barrier
  /// some threads may skip (a warning), this is an error: a condition that
  /// differs within the role (warpgroup_rank(), thread ids) always splits
  /// the warpgroups' passes.
  void judgeTurn(const IfStmt &t, const Divergence &control) {
    if (quiet_ || group_)
      return;
    if (!loops_.empty()) {
      loops_.back()->turns.push_back({&t, control});
      return;
    }
    if (control.level <= kCtaBarrierMax)
      return;
    diags_.error(t.loc,
                 "turn in role '" + t.turnRole->name +
                     "' in control flow that its warpgroups may take differently: each "
                     "warpgroup waits for the previous one's pass, so every warpgroup must pass "
                     "every turn equally often",
                 "move the turn where the whole role reaches it (conditions and loop bounds "
                 "the same in all its warpgroups), and branch inside its body");
    diags_.note(control.where, "this decision differs between the role's threads");
  }

  static Divergence raise(Divergence d, Level l, const Location &where) {
    if (l > d.level)
      return {l, where};
    return d;
  }

  Level level(const ExprAST &e) {
    switch (e.kind()) {
    case ExprAST::IntLiteral:
    case ExprAST::FloatLiteral:
    case ExprAST::BoolLiteral:
      return levelOf(Source::Constant);
    case ExprAST::VarRef: {
      const Decl *d = e.as<VarRefExpr>()->decl;
      if (!d)
        return PerThread;
      if (d->kind == DeclKind::Param || d->kind == DeclKind::SharedArray ||
          d->kind == DeclKind::DSharedArray || d->kind == DeclKind::MBarrier)
        return levelOf(Source::Param);
      auto it = levels_.find(d);
      return it == levels_.end() ? PerThread : it->second;
    }
    case ExprAST::Unary:
      return level(*e.as<UnaryExpr>()->operand);
    case ExprAST::Cast:
      return level(*e.as<CastExpr>()->operand);
    case ExprAST::Binary: {
      auto &b = *e.as<BinaryExpr>();
      if (group_ && groupQuotient(b))
        return Uniform;
      return std::max(level(*b.lhs), level(*b.rhs));
    }
    case ExprAST::Select: {
      auto &sel = *e.as<SelectExpr>();
      return std::max({level(*sel.cond), level(*sel.trueValue), level(*sel.falseValue)});
    }
    case ExprAST::Member: // h.local_base, len(h.local): per CTA
      return levelOf(Source::CtaPosition);
    case ExprAST::Call: {
      auto &c = *e.as<CallExpr>();
      if (c.inlined) { // a user function: what its walk found (visitExpr runs first)
        auto it = callLevels_.find(&c);
        return it == callLevels_.end() || varsPerThread_ ? PerThread : it->second;
      }
      if (symmetricIds_ && (c.builtin == Builtin::ThreadId || c.builtin == Builtin::LaneId ||
                            c.builtin == Builtin::WarpId || c.builtin == Builtin::WarpgroupRank ||
                            c.builtin == Builtin::RoleThreadId || c.builtin == Builtin::ElectOne))
        return Uniform;
      if (group_ && (c.builtin == Builtin::BlockId || c.builtin == Builtin::BlockInCluster))
        return group_->varies(c.axis) ? levelOf(Source::CtaPosition) : Uniform;
      switch (c.builtin) {
      case Builtin::BlockDim:
      case Builtin::GridDim:
      case Builtin::ClusterSize:
      case Builtin::ClusterId:
      case Builtin::ClusterDim:
      case Builtin::NumClusters:
        return levelOf(Source::GridShape);
      case Builtin::BlockId:
      case Builtin::ClusterRank:
      case Builtin::BlockInCluster:
        return levelOf(Source::CtaPosition);
      case Builtin::RoleThreads:
      case Builtin::DeviceRank: // launch parameters, one value per grid
      case Builtin::DeviceCount:
        return levelOf(Source::GridShape);
      case Builtin::WarpgroupRank:
        return levelOf(Source::WarpgroupIndex); // the linear thread id / 128
      case Builtin::WarpId:
        return levelOf(Source::WarpIndex); // the linear thread id / 32
      case Builtin::VoteAny:
      case Builtin::VoteAll:
      case Builtin::VoteBallot:
      case Builtin::ReduxAdd:
      case Builtin::ReduxMin:
      case Builtin::ReduxMax:
      case Builtin::ReduxAnd:
      case Builtin::ReduxOr:
      case Builtin::ReduxXor:
        // The same in every lane of the mask: warp-uniform over a full warp.
        return findNamedArg(c, "mask") ? levelOf(Source::Unknown) : levelOf(Source::WarpVote);
      case Builtin::Min:
      case Builtin::Max:
      case Builtin::Clamp:
      case Builtin::Len:
      case Builtin::Bitcast:
      case Builtin::Popc:
      case Builtin::Clz:
      case Builtin::Brev:
      case Builtin::Bfind: {
        Level l = levelOf(Source::Constant);
        for (const ExprPtr &a : c.args)
          l = std::max(l, level(*a));
        return l;
      }
      case Builtin::ThreadId:
      case Builtin::LaneId:
      case Builtin::RoleThreadId:
        return levelOf(Source::ThreadIndex);
      case Builtin::ElectOne:
        return levelOf(Source::ElectedLane);
      default:
        return levelOf(Source::Unknown); // loads, atomics, math functions
      }
    }
    default:
      return levelOf(Source::MemoryLoad); // element loads
    }
  }

  /// The level of a branch condition. In group mode a test of the thread's
  /// position in its CTA (`thread_id() == 0`, `elect_one()`: how every copy
  /// is issued) picks the same threads in every CTA of the group, so the
  /// values assigned under it are not made different between the CTAs.
  Level condLevel(const ExprAST &e) {
    symmetricIds_ = group_ != nullptr;
    Level l = level(e);
    symmetricIds_ = false;
    return l;
  }

  /// The axis `e` is the block id along (block_id(a), a cast of it, a `let`
  /// bound to one), or -1.
  int blockIdAxis(const ExprAST &e) const {
    if (auto *c = e.as<CallExpr>())
      return c->builtin == Builtin::BlockId ? c->axis : -1;
    if (auto *k = e.as<CastExpr>())
      return blockIdAxis(*k->operand);
    if (auto *v = e.as<VarRefExpr>()) {
      auto it = lets_.find(v->decl);
      return it == lets_.end() ? -1 : blockIdAxis(*it->second);
    }
    return -1;
  }

  /// `block_id(a) / D` (or `>> k`) with D a multiple of the cluster's extent
  /// along a: block_id(a) = cluster_id(a) * X + block_in_cluster(a) with 0 <=
  /// block_in_cluster(a) < X, so the quotient is cluster_id(a) / (D / X), the
  /// same in every CTA of the cluster (the GEMM samples' `block_id() /
  /// cluster_size()`).
  bool groupQuotient(const BinaryExpr &b) const {
    if (b.op != BinaryOp::Div && b.op != BinaryOp::Shr)
      return false;
    int a = blockIdAxis(*b.lhs);
    if (a < 0)
      return false;
    std::optional<int64_t> d = group_->constant(*b.rhs);
    if (!d || *d < 0 || (b.op == BinaryOp::Shr && *d > 30))
      return false;
    int64_t divisor = b.op == BinaryOp::Shr ? int64_t(1) << *d : *d;
    return divisor > 0 && group_->dims[a] > 0 && divisor % group_->dims[a] == 0;
  }

  /// In group mode, a multicast copy along the group's axis: every
  /// coordinate of its box origin must be the same in every CTA of the group.
  void checkMulticastOrigin(const CallExpr &c) {
    if (c.builtin != Builtin::CopyAsync || c.tma.isStore || c.tma.multicastAxis < 0 ||
        c.args.size() < 2)
      return;
    if (!group_) {
      multicastAxes.push_back(c.tma.multicastAxis);
      return;
    }
    auto *box = c.args[1]->as<IndexExpr>();
    if (quiet_ || c.tma.multicastAxis != group_->axis || !box)
      return;
    std::vector<const ExprAST *> coords{box->index.get()};
    for (const ExprPtr &m : box->moreIndices)
      coords.push_back(m.get());
    static const char *axisNames[] = {"x", "y", "z", "all"};
    std::string axis = axisNames[group_->axis];
    for (size_t i = 0; i < coords.size(); ++i) {
      Level l = level(*coords[i]);
      if (l == Uniform)
        continue;
      std::string why = l == PerCta ? "it depends on the CTA's position " +
                                          (group_->axis == 3 ? "in the cluster" : "along " + axis)
                                    : "it is a per-thread value (a thread id, a loaded value, or "
                                      "a variable assigned under such control)";
      diags_.error(coords[i]->loc,
                   "coordinate " + std::to_string(i) +
                       " of the box of this multicast copy_async (multicast = " + axis +
                       ") may differ between the CTAs of its multicast group: " + why,
                   "every CTA of the group must name the same box: each loads 1/C of it and "
                   "multicasts it to the others; build the origin from cluster_id(), the "
                   "position along another cluster axis, loop counters and parameters");
      return;
    }
  }

  void visitExpr(const ExprAST &e, const Divergence &control) {
    if (auto *c = e.as<CallExpr>()) {
      checkMulticastOrigin(*c);
      checkBarrier(*c, control);
      for (const ExprPtr &a : c->args)
        visitExpr(*a, control);
      if (c->inlined)
        walkInlined(*c, control);
    } else if (auto *b = e.as<BinaryExpr>()) {
      visitExpr(*b->lhs, control);
      visitExpr(*b->rhs, control);
    } else if (auto *u = e.as<UnaryExpr>()) {
      visitExpr(*u->operand, control);
    } else if (auto *k = e.as<CastExpr>()) {
      visitExpr(*k->operand, control);
    } else if (auto *sel = e.as<SelectExpr>()) {
      visitExpr(*sel->cond, control);
      visitExpr(*sel->trueValue, control);
      visitExpr(*sel->falseValue, control);
    } else if (auto *i = e.as<IndexExpr>()) {
      visitExpr(*i->base, control);
      visitExpr(*i->index, control);
    }
  }

  /// A user function's body, inlined at this call: its parameters are as
  /// divergent as the arguments; its `return` ends only the function.
  void walkInlined(const CallExpr &c, const Divergence &control) {
    const InlinedCall &in = *c.inlined;
    for (size_t i = 0; i < in.params.size() && i < c.args.size(); ++i)
      levels_[in.params[i].get()] = level(*c.args[i]);
    Divergence outerReturn = returnControl_;
    returnControl_ = {};
    size_t before = diags_.diagnostics().size();
    callLevels_.try_emplace(&c, Uniform);
    inlineStack_.push_back(&c);
    walkBlock(in.body, control);
    inlineStack_.pop_back();
    returnControl_ = outerReturn;
    if (diags_.diagnostics().size() != before)
      diags_.note(c.loc, "in the call of '" + in.fn->name + "' here");
  }

  void checkBarrier(const CallExpr &c, const Divergence &control) { judgeBarrier(c, control); }

  /// Warns about a barrier under divergent `control`; inside a loop, the
  /// judgement waits for the end of the loop body (walkLoopBody).
  void judgeBarrier(const CallExpr &c, const Divergence &control) {
    if (quiet_ || group_) // group mode reports multicast origins only
      return;
    if (!loops_.empty()) {
      loops_.back()->barriers.push_back({&c, control});
      return;
    }
    if (isWarpCollective(c.builtin))
      return checkWarpCollective(c, control);
    if (c.builtin == Builtin::ElectOne) {
      if (control.level <= kWarpCollectiveMax)
        return;
      diags_.warning(c.loc,
                     "elect_one() in control flow that lanes of a warp may take differently: "
                     "elect.sync needs every lane of the warp (the lanes that skip it hang or "
                     "make the result undefined)",
                     "call it where the whole warp is converged, e.g. under `if warp_id() == 0` "
                     "or at the top of a role");
      diags_.note(control.where, "this decision differs between lanes");
      return;
    }
    if (c.builtin == Builtin::RowMax || c.builtin == Builtin::RowSum) {
      // The quad exchange is shfl.sync.bfly with a full member mask (PTX ISA
      // 9.7.9.9: every lane in membermask must execute the same shfl.sync).
      if (control.level <= kWarpCollectiveMax)
        return;
      diags_.error(c.loc,
                   "'" + c.callee +
                       "' in control flow that lanes of a warp may take differently: its "
                       "quad exchange (shfl.sync) needs every lane of the warp",
                   "reduce where the whole warpgroup runs (outside conditions on thread or "
                   "lane ids), then select the result");
      diags_.note(control.where, "this decision differs between lanes");
      return;
    }
    // (A per_row store is plain stores by one lane per quad: no collective.)
    if (c.builtin == Builtin::Mma || (c.builtin == Builtin::Store && isFragmentStore(c) &&
                                      c.args.size() == 2 && c.args[1]->type.isFragment())) {
      // wgmma.*.sync.aligned: every thread of the warpgroup executes the same
      // instruction (PTX ISA 9.7.15.5: "mandatory .sync.aligned").
      if (control.level <= kWarpgroupCollectiveMax)
        return;
      diags_.error(c.loc,
                   std::string(c.builtin == Builtin::Mma ? "mma" : "a fragment store") +
                       " in control flow that threads of a warpgroup may take differently: "
                       "wgmma runs in all 128 threads of the warpgroup together",
                   "put the condition outside the warpgroup (a role, a loop bound the whole "
                   "warpgroup shares, `if warpgroup_rank() == 0`), not on thread or warp ids");
      diags_.note(control.where, "this decision differs within a warpgroup");
      return;
    }
    // A TMA store the whole role issues (SemaTma.cpp) contains the role's
    // barrier: the same rule as its sync_threads().
    bool cta = c.builtin == Builtin::SyncThreads ||
               (c.builtin == Builtin::CopyAsync && c.tma.roleCollective);
    bool cluster = c.builtin == Builtin::ClusterSync || c.builtin == Builtin::ClusterArrive ||
                   c.builtin == Builtin::ClusterWait;
    if ((cta && control.level <= kCtaBarrierMax) || (cluster && control.level <= kClusterBarrierMax) ||
        (!cta && !cluster))
      return;
    std::string between = control.level > PerCta ? "threads" : "CTAs";
    if (cta && c.role) {
      diags_.warning(c.loc,
                     c.callee + "() in role '" + c.role->name +
                         "' in control flow that its threads may take differently: " +
                         (c.builtin == Builtin::CopyAsync
                              ? "a TMA store of the whole role waits at the role's barrier over "
                              : "it is the role's barrier over ") +
                         std::to_string(c.role->threads()) +
                         " threads, and threads that do not reach it deadlock the others",
                     "move it where every thread of the role reaches it");
      diags_.note(control.where, "this decision differs between threads");
      return;
    }
    diags_.warning(
        c.loc,
        c.callee + "() in control flow that " + between + " of the " + (cta ? "block" : "cluster") +
            " may take differently: threads that do not reach it " +
            (cta ? "deadlock the others" : "deadlock or desynchronise the cluster"),
        cta ? std::string("move it where every thread of the block reaches it; here it is the "
                          "non-aligned barrier.sync")
            : std::string(
                  "move it where every thread of every CTA reaches it; here it does not count "
                  "as the cluster barrier that keeps peers' shared memory alive"));
    diags_.note(control.where, "this decision differs between " + between);
  }

  /// A warp collective with the default full mask needs every lane of the
  /// warp (PTX: each lane of membermask executes the same instruction with
  /// the same mask; lanes that do not arrive hang bar.warp.sync and make
  /// shfl results undefined). Under control flow that lanes of a warp may
  /// take differently it must name the lanes that take part.
  void checkWarpCollective(const CallExpr &c, const Divergence &control) {
    if (control.level <= kWarpCollectiveMax || findNamedArg(c, "mask"))
      return;
    diags_.warning(c.loc,
                   c.callee + "() with the full-warp mask in control flow that lanes of a warp "
                              "may take differently: lanes that do not reach it leave it "
                              "undefined or hanging",
                   "move it where every lane of the warp reaches it, or pass the lanes that "
                   "do: `let m = vote_ballot(cond)` before the branch, then `mask = m`");
    diags_.note(control.where, "this decision differs between lanes");
  }

  /// The loop being walked: how divergent its exits (break/continue) are,
  /// and its barriers waiting to be judged.
  struct Loop {
    Divergence exitControl;  // break or continue: the rest of the iteration
    Divergence breakControl; // break: every later iteration
    std::vector<std::pair<const CallExpr *, Divergence>> barriers;
    std::vector<std::pair<const IfStmt *, Divergence>> turns;
    std::vector<const Decl *> assigned; // vars assigned in the body, nested loops included
  };

  DiagnosticEngine &diags_;
  // Group mode (multicast origins).
  const GroupMode *group_;                                 // null: uniformity over the CTA
  bool symmetricIds_ = false;                              // condLevel in group mode
  std::unordered_map<const Decl *, const ExprAST *> lets_; // let bindings: their initializers

  std::unordered_map<const Decl *, Level> levels_;
  std::unordered_map<const Decl *, Level> varLevels_;      // inferVarLevels: joined over passes
  std::unordered_map<const CallExpr *, Level> callLevels_; // user calls: their returns, joined
  std::vector<const CallExpr *> inlineStack_;              // the inlined calls being walked
  bool quiet_ = false;                                     // inferVarLevels' walks: no diagnostics
  int singleThread_ = 0;       // inside a produce body (one elected thread)
  bool raised_ = false;        // a var's level rose in this pass
  bool varsPerThread_ = false; // no fixpoint within the pass limit
  Divergence returnControl_;
  std::vector<Loop *> loops_;
};

} // namespace

void Sema::checkDivergence() {
  KernelAST &k = *kernel_;
  DivergenceWalker walker(diags_);
  walker.inferVarLevels(k.body);
  walker.walkBlock(k.body, {});

  // Multicast copies: each CTA of the group loads a 1/C slice of the box and
  // multicasts it to the others, so the box must be one box in all of them
  // (the same analysis, uniformity taken over the group's CTAs).
  if (k.cluster.kind == ClusterAttr::Static) {
    std::vector<int> axes = walker.multicastAxes;
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    const auto &d = k.cluster.dims;
    for (int axis : axes) {
      GroupMode group{axis, {d[0], d[1], d[2]}, nullptr};
      int64_t size = cluster::groupSize(d, axis);
      if (size < 2)
        continue; // a group of one CTA is a plain copy
      ConstantLeaf sizes = [&](const ExprAST &e) -> std::optional<int64_t> {
        auto *c = e.as<CallExpr>();
        if (c && c->builtin == Builtin::ClusterSize)
          return cluster::ctaCount(d);
        if (c && c->builtin == Builtin::ClusterDim)
          return d[c->axis];
        return std::nullopt;
      };
      group.constant = [&](const ExprAST &e) -> std::optional<int64_t> {
        bool overflow = false;
        std::optional<int64_t> v = foldConstant(e, overflow, &sizes);
        return overflow ? std::nullopt : v;
      };
      DivergenceWalker inGroup(diags_, &group);
      inGroup.inferVarLevels(k.body);
      inGroup.walkBlock(k.body, {});
    }
  }

  checkWaitsReachArrivals(); // SemaSync.cpp
}

} // namespace tile::frontend
