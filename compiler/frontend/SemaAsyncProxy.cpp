//===- SemaAsyncProxy.cpp - TMA-filled tiles and ring counts ---------------===//
//
// Two kernel-wide checks of what the async proxy writes, run on the checked
// AST of a kernel without errors:
//
//  - A tile that a copy_async fills is written by the TMA unit until the
//    phase of the copy's mbarrier completes; only a wait on that mbarrier
//    (mbarrier.try_wait, acquire: PTX ISA 9.7.13.15.16) makes the bytes
//    visible to the waiting thread. A generic access of the tile that some
//    path reaches between the copy and a wait on its mbarrier races the copy
//    (checkTmaReadsBeforeWait: a forward dataflow over statements, loops to
//    a fixpoint, so a read in iteration i + 1 of what iteration i waited for
//    is fine and a read before the first wait is not).
//
//  - A ring whose producer fills more stages than its consumers release (or
//    the reverse) deadlocks: the producer's exit waits for every stage it
//    filled to be released, a consumer for a stage that is never filled.
//    With constant trip counts the checker counts both sides
//    (checkRingCounts).
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <map>
#include <optional>
#include <unordered_set>

namespace tile::frontend {

namespace {

/// The TMA loads in flight at a program point, for one thread's view of the
/// CTA: Pending (issued, some path reaches here without a wait on its
/// mbarrier), PartWaited (waited on some paths, or by the role that issued
/// it: a thread that waited hands the bytes on at the next CTA barrier or
/// through an mbarrier it arrives on after its wait), Waited (complete).
/// Copies never issued are absent.
enum Status { Waited = 0, PartWaited = 1, Pending = 2 };
using CopyState = std::map<const CallExpr *, Status>;

/// Joins the state of another path into `into`.
void join(CopyState &into, const CopyState &other) {
  for (auto &[copy, st] : other) {
    auto it = into.find(copy);
    if (it == into.end()) {
      into.emplace(copy, st);
      continue;
    }
    Status a = it->second, b = st;
    if ((a == Pending && b == Waited) || (a == Waited && b == Pending))
      it->second = PartWaited;
    else
      it->second = std::max(a, b);
  }
}

const Decl *tileOf(const ExprAST &e) {
  auto *ref = e.as<VarRefExpr>();
  return ref && ref->decl && ref->decl->array ? ref->decl : nullptr;
}

bool isTmaLoad(const CallExpr &c) {
  return c.builtin == Builtin::CopyAsync && !c.tma.isStore && c.args.size() == 3;
}

/// The element of an mbarrier array `bars[i]` when `i` is an integer
/// literal (constants are literals after name resolution), else nullopt.
std::optional<int64_t> constantElement(const ExprAST &e) {
  const ExprAST *x = &e;
  if (auto *c = x->as<CallExpr>(); c && c->builtin == Builtin::Remote && !c->args.empty())
    x = c->args[0].get();
  if (auto *i = x->as<IndexExpr>(); i && i->index)
    if (auto *lit = i->index->as<IntLiteralExpr>())
      return lit->value;
  return std::nullopt;
}

std::optional<int64_t> tripCount(Sema &sema, const ForStmt &f);

class TmaReadWalker {
public:
  TmaReadWalker(DiagnosticEngine &diags, Sema &sema) : diags_(diags), sema_(sema) {}

  /// Returns the state after `block`; `reach` false after a return/break.
  CopyState walkBlock(const Block &block, CopyState st) {
    for (const StmtPtr &s : block) {
      if (!reach_)
        break;
      st = walkStmt(*s, std::move(st));
    }
    return st;
  }

private:
  struct Loop {
    CopyState exits;     // states at `break`
    CopyState continues; // states at `continue`
  };

  CopyState walkStmt(const StmtAST &s, CopyState st) {
    switch (s.kind()) {
    case StmtAST::Let:
      visit(*s.as<LetStmt>()->init, st, false);
      break;
    case StmtAST::Assign: {
      auto &a = *s.as<AssignStmt>();
      visit(*a.value, st, false);
      visit(*a.target, st, true);
      break;
    }
    case StmtAST::ExprStmt:
      visit(*s.as<ExprStmtAST>()->expr, st, false);
      break;
    case StmtAST::If: {
      auto &i = *s.as<IfStmt>();
      visit(*i.cond, st, false);
      CopyState a = walkBranch(i.thenBody, st);
      bool reachA = reach_;
      reach_ = true;
      CopyState b = walkBranch(i.elseBody, st);
      bool reachB = reach_;
      reach_ = reachA || reachB;
      if (!reachA)
        return b;
      if (!reachB)
        return a;
      join(a, b);
      return a;
    }
    case StmtAST::For: {
      auto &f = *s.as<ForStmt>();
      for (const ExprAST *e : {f.start.get(), f.end.get(), f.step.get()})
        if (e)
          visit(*e, st, false);
      std::optional<int64_t> trips = tripCount(sema_, f);
      return walkLoop(f.body, nullptr, std::move(st), trips && *trips > 0);
    }
    case StmtAST::While: {
      auto &w = *s.as<WhileStmt>();
      visit(*w.cond, st, false);
      return walkLoop(w.body, w.cond.get(), std::move(st));
    }
    case StmtAST::Return:
      if (auto *v = s.as<ReturnStmt>()->value.get())
        visit(*v, st, false);
      for (const ExprPtr &v : s.as<ReturnStmt>()->values)
        visit(*v, st, false);
      if (!fnReturns_.empty())
        join(fnReturns_.back(), st);
      reach_ = false;
      return {};
    case StmtAST::Break:
    case StmtAST::Continue:
      if (!loops_.empty())
        join(s.kind() == StmtAST::Break ? loops_.back()->exits : loops_.back()->continues, st);
      reach_ = false;
      return {};
    case StmtAST::Produce:
    case StmtAST::Consume:
      return walkBlock(s.as<RingAccessStmt>()->body, std::move(st));
    case StmtAST::Warpgroups: {
      // Roles run at the same time: a copy another role issues may be in
      // flight anywhere in this one, until this role waits for it.
      // A role that waits for its own copies may hand them on through
      // another mbarrier: there they count as waited on some paths only.
      auto &g = *s.as<WarpgroupsStmt>();
      std::vector<std::vector<const CallExpr *>> issued(g.roles.size());
      std::vector<std::unordered_set<const MBarrierStmt *>> waited(g.roles.size());
      for (size_t r = 0; r < g.roles.size(); ++r)
        collect(g.roles[r]->body, issued[r], waited[r]);
      CopyState after;
      bool any = false;
      for (size_t r = 0; r < g.roles.size(); ++r) {
        CopyState in = st;
        for (size_t o = 0; o < g.roles.size(); ++o)
          if (o != r)
            for (const CallExpr *c : issued[o]) {
              Status status = waited[o].count(mbarrierDeclOf(*c->args[2])) ? PartWaited : Pending;
              auto [it, fresh] = in.emplace(c, status);
              if (!fresh)
                it->second = std::max(it->second, status);
            }
        reach_ = true;
        CopyState out = walkBlock(g.roles[r]->body, std::move(in));
        if (reach_) {
          join(after, out);
          any = true;
        }
      }
      reach_ = any;
      return after;
    }
    default:
      break;
    }
    return st;
  }

  CopyState walkBranch(const Block &b, const CopyState &st) { return walkBlock(b, st); }

  /// A loop body to a fixpoint: the head joins the entry and every way back
  /// (the end of the body, continue); after the loop, the head (the loop may
  /// stop there) and every break.
  /// A loop that runs at least once (`runsOnce`: constant bounds) leaves
  /// after an iteration only: the entry state does not reach its exit.
  CopyState walkLoop(const Block &body, const ExprAST *cond, CopyState entry,
                     bool runsOnce = false) {
    CopyState head = entry, back;
    Loop loop;
    for (int pass = 0; pass < 8; ++pass) {
      loop = Loop();
      loops_.push_back(&loop);
      reach_ = true;
      CopyState out = walkBlock(body, head);
      bool fell = reach_;
      loops_.pop_back();
      back = CopyState();
      if (fell)
        join(back, out);
      join(back, loop.continues);
      CopyState next = entry;
      join(next, back);
      if (cond)
        visit(*cond, next, false);
      if (next == head)
        break;
      head = std::move(next);
    }
    reach_ = true;
    CopyState exit = runsOnce ? std::move(back) : std::move(head);
    join(exit, loop.exits);
    return exit;
  }

  /// Every TMA load (with its mbarrier) in `b` and the mbarriers it waits
  /// on, nested blocks included.
  static void collect(const Block &b, std::vector<const CallExpr *> &out,
                      std::unordered_set<const MBarrierStmt *> &waits) {
    std::function<void(const ExprAST &)> expr = [&](const ExprAST &e) {
      if (auto *c = e.as<CallExpr>()) {
        if (isTmaLoad(*c) && tileOf(*c->args[0]) && mbarrierDeclOf(*c->args[2]))
          out.push_back(c);
        if (c->builtin == Builtin::Wait && !c->args.empty())
          waits.insert(mbarrierDeclOf(*c->args[0]));
        if (c->inlined)
          collect(c->inlined->body, out, waits);
      }
      forEachOperand(e, expr);
    };
    forEachExprIn(b, expr);
  }

  /// Visits an expression in evaluation order: tile accesses are checked
  /// against `st`, then the call's own effect applies (a copy is issued, a
  /// wait completes, a CTA barrier publishes what one thread waited for).
  void visit(const ExprAST &e, CopyState &st, bool write) {
    if (auto *ref = e.as<VarRefExpr>()) {
      access(*ref, st, write ? "written" : "read");
      return;
    }
    if (auto *ix = e.as<IndexExpr>()) {
      visit(*ix->base, st, write);
      visit(*ix->index, st, false);
      for (const ExprPtr &m : ix->moreIndices)
        visit(*m, st, false);
      return;
    }
    auto *c = e.as<CallExpr>();
    if (!c) { // every operand, in evaluation order
      forEachOperand(e, [&](const ExprAST &x) { visit(x, st, false); });
      return;
    }
    // len() and dim() read no element.
    if (c->builtin == Builtin::Len || c->builtin == Builtin::Dim)
      return;
    bool writes = c->builtin == Builtin::Store || isAtomic(c->builtin);
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (i == 0 && isTmaLoad(*c))
        continue; // the copy's own destination
      if (c->builtin == Builtin::CopyAsync && i == 2)
        continue; // the mbarrier
      visit(*c->args[i], st, writes && i == 0);
    }
    for (const NamedArg &na : c->namedArgs)
      visit(*na.expr, st, false);
    if (c->inlined) {
      fnReturns_.emplace_back();
      bool outer = reach_;
      CopyState out = walkBlock(c->inlined->body, st);
      if (reach_)
        join(fnReturns_.back(), out);
      st = std::move(fnReturns_.back());
      fnReturns_.pop_back();
      reach_ = outer;
    }
    if (isTmaLoad(*c)) {
      if (tileOf(*c->args[0]) && mbarrierDeclOf(*c->args[2]))
        st[c] = Pending;
    } else if (c->builtin == Builtin::Wait && !c->args.empty()) {
      // A wait on an element of an mbarrier array completes the copies on
      // that element: on any element when either index is not a constant.
      // A wait on another mbarrier may be the hand-off from a thread that
      // waited for the copy (one that only some paths waited for).
      MBarrierStmt *m = mbarrierDeclOf(*c->args[0]);
      std::optional<int64_t> element = constantElement(*c->args[0]);
      for (auto &[copy, s] : st) {
        if (s == PartWaited) {
          s = Waited;
          continue;
        }
        if (!m || mbarrierDeclOf(*copy->args[2]) != m)
          continue;
        std::optional<int64_t> copyElement = constantElement(*copy->args[2]);
        if (!element || !copyElement || *element == *copyElement)
          s = Waited;
      }
    } else if (c->builtin == Builtin::SyncThreads || c->builtin == Builtin::SyncThreadsCount ||
               c->builtin == Builtin::SyncThreadsAnd || c->builtin == Builtin::SyncThreadsOr ||
               c->builtin == Builtin::ClusterSync ||
               c->builtin == Builtin::ClusterWait) {
      for (auto &[copy, s] : st)
        if (s == PartWaited)
          s = Waited;
    }
  }

  void access(const VarRefExpr &ref, const CopyState &st, const char *how) {
    const Decl *tile = tileOf(ref);
    if (!tile)
      return;
    for (auto &[copy, s] : st) {
      if (s == Waited || tileOf(*copy->args[0]) != tile)
        continue;
      if (!reported_.insert(&ref).second)
        return;
      MBarrierStmt *m = mbarrierDeclOf(*copy->args[2]);
      std::string bar = m->decl->name;
      if (std::optional<int64_t> element = constantElement(*copy->args[2]))
        bar += "[" + std::to_string(*element) + "]";
      diags_.error(ref.loc,
                   "tile '" + tile->name + "' is " + how + " before the wait on mbarrier '" + bar +
                       "' that its copy_async (line " + std::to_string(copy->loc.line) +
                       ") completes on" +
                       (s == PartWaited ? " (only some paths or another role wait, and no "
                                          "sync_threads() or other wait follows)"
                                        : ""),
                   "the TMA copy writes the tile asynchronously until the phase of '" + bar +
                       "' completes: `wait(" + bar +
                       ")` first (or, where one thread waits, sync_threads() after its wait)");
      diags_.note(copy->loc,
                  "the copy_async into '" + tile->name + "' completing on '" + bar + "' is here");
      return;
    }
  }

  DiagnosticEngine &diags_;
  Sema &sema_;
  bool reach_ = true;
  std::vector<Loop *> loops_;
  std::vector<CopyState> fnReturns_; // inlined calls: the states at their returns
  std::unordered_set<const VarRefExpr *> reported_;
};

/// The number of times a `for i in a .. b step s` body runs, when a, b and
/// s are constants (docs/reference/statements.md: a, a+s, ... below b; none when s <= 0).
std::optional<int64_t> tripCount(Sema &sema, const ForStmt &f) {
  if (f.forKind != ForKind::Range || f.hasBreak || f.hasContinue || !f.start)
    return std::nullopt;
  bool overflow = false;
  std::optional<int64_t> a = sema.foldConstant(*f.start, overflow);
  std::optional<int64_t> b = sema.foldConstant(*f.end, overflow);
  std::optional<int64_t> s = f.step ? sema.foldConstant(*f.step, overflow) : int64_t(1);
  if (overflow || !a || !b || !s)
    return std::nullopt;
  if (*s <= 0 || *a >= *b)
    return 0;
  __int128 span = (__int128)*b - *a;
  return (int64_t)((span + *s - 1) / *s);
}

} // namespace

void Sema::checkTmaReadsBeforeWait() {
  TmaReadWalker walker(diags_, *this);
  walker.walkBlock(kernel_->body, {});
}

void Sema::checkRingCounts() {
  struct Count {
    std::optional<int64_t> n = 0; // nullopt: not constant
    const RingAccessStmt *first = nullptr;
  };
  std::unordered_map<const RingStmt *, Count> counts[2]; // [isProduce]
  std::function<void(const Block &, std::optional<int64_t>)> walk =
      [&](const Block &b, std::optional<int64_t> times) {
        for (const StmtPtr &s : b) {
          if (auto *r = s->as<RingAccessStmt>()) {
            if (!r->ring)
              continue;
            Count &c = counts[r->isProduce()][r->ring];
            if (!c.first)
              c.first = r;
            if (!c.n || !times || __builtin_add_overflow(*c.n, *times, &*c.n))
              c.n = std::nullopt;
            walk(r->body, times); // a consume nested in a consume of another ring
          } else if (auto *f = s->as<ForStmt>()) {
            std::optional<int64_t> n = tripCount(*this, *f), inner;
            int64_t product = 0;
            if (n && times && !__builtin_mul_overflow(*n, *times, &product))
              inner = product;
            walk(f->body, inner);
          } else if (auto *w = s->as<WhileStmt>()) {
            walk(w->body, std::nullopt);
          } else if (auto *i = s->as<IfStmt>()) {
            walk(i->thenBody, std::nullopt);
            walk(i->elseBody, std::nullopt);
          } else if (auto *g = s->as<WarpgroupsStmt>()) {
            for (const auto &role : g->roles)
              walk(role->body, times);
          }
        }
      };
  walk(kernel_->body, int64_t(1));
  for (RingStmt *r : kernel_->rings) {
    const Count &p = counts[1][r], &c = counts[0][r];
    if (!p.first || !c.first || !p.n || !c.n || *p.n == *c.n)
      continue;
    const std::string &name = r->decl->name;
    bool more = *p.n > *c.n;
    error(r->loc,
          "ring '" + name + "' is produced " + std::to_string(*p.n) + " times but consumed " +
              std::to_string(*c.n) + " times",
          more ? "the producer would wait forever at its exit for the release of the stages "
                 "nobody consumes: make every produce meet one consume (the same trip counts)"
               : "a consumer would wait forever for a stage nobody fills: make every consume "
                 "meet one produce (the same trip counts)");
    diags_.note(p.first->loc,
                "'" + name + "' is produced here (" + std::to_string(*p.n) + " times in all)");
    diags_.note(c.first->loc,
                "'" + name + "' is consumed here (" + std::to_string(*c.n) + " times in all)");
  }
}

} // namespace tile::frontend
