//===- SemaInflight.cpp - mma groups left in flight by consume blocks -----===//
//
// consume ... inflight(n): 0 <= n < stages; the accumulators of its mma are
// used only by mma until the enclosing loop ends (their registers are being
// written by wgmma groups still in flight), and anchor(MODE) says where the
// last group is waited for (docs/reference/mma.md).
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace T = ::tile::target;

namespace {
/// Names the fragment variables used as mma accumulators in `b`.
void collectAccumulators(const Block &b, std::unordered_set<const Decl *> &out);
void collectAccumulators(const ExprAST &e, std::unordered_set<const Decl *> &out) {
  if (auto *c = e.as<CallExpr>(); c && c->builtin == Builtin::Mma && c->args.size() == 3)
    if (auto *v = c->args[2]->as<VarRefExpr>(); v && v->decl)
      out.insert(v->decl);
}
void collectAccumulators(const Block &b, std::unordered_set<const Decl *> &out) {
  for (const StmtPtr &s : b) {
    if (auto *a = s->as<AssignStmt>())
      collectAccumulators(*a->value, out);
    else if (auto *es = s->as<ExprStmtAST>())
      collectAccumulators(*es->expr, out);
    else if (auto *f = s->as<ForStmt>())
      collectAccumulators(f->body, out);
    else if (auto *w = s->as<WhileStmt>())
      collectAccumulators(w->body, out);
    else if (auto *i = s->as<IfStmt>()) {
      collectAccumulators(i->thenBody, out);
      collectAccumulators(i->elseBody, out);
    } else if (auto *r = s->as<RingAccessStmt>()) {
      collectAccumulators(r->body, out);
    }
  }
}

/// The first use of one of `accs` in `e` other than as mma's accumulator.
const ExprAST *nonMmaUse(const ExprAST &e, const std::unordered_set<const Decl *> &accs) {
  if (auto *v = e.as<VarRefExpr>())
    return v->decl && accs.count(v->decl) ? &e : nullptr;
  if (auto *c = e.as<CallExpr>()) {
    // An mma in error was reported, and is no program: its operands are not
    // uses (`acc = mma(acc, ...)`, an f32 a, is one error, not two).
    if (c->builtin == Builtin::Mma && c->type.isInvalid())
      return nullptr;
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (c->builtin == Builtin::Mma && i == 2 && c->args[i]->is<VarRefExpr>())
        continue;
      if (const ExprAST *u = nonMmaUse(*c->args[i], accs))
        return u;
    }
    for (const NamedArg &na : c->namedArgs)
      if (const ExprAST *u = nonMmaUse(*na.expr, accs))
        return u;
    return nullptr;
  }
  const ExprAST *use = nullptr;
  forEachOperand(e, [&](const ExprAST &x) {
    if (!use)
      use = nonMmaUse(x, accs);
  });
  return use;
}

const ExprAST *nonMmaUse(const Block &b, const std::unordered_set<const Decl *> &accs) {
  for (const StmtPtr &s : b) {
    const ExprAST *u = nullptr;
    if (auto *a = s->as<AssignStmt>()) {
      auto *call = a->value->as<CallExpr>();
      bool mmaUpdate = call && call->builtin == Builtin::Mma && a->target->is<VarRefExpr>();
      if (!mmaUpdate)
        u = nonMmaUse(*a->target, accs);
      if (!u)
        u = nonMmaUse(*a->value, accs);
    } else if (auto *es = s->as<ExprStmtAST>()) {
      u = nonMmaUse(*es->expr, accs);
    } else if (auto *l = s->as<LetStmt>()) {
      u = nonMmaUse(*l->init, accs);
    } else if (auto *f = s->as<ForStmt>()) {
      for (const ExprAST *x : {f->start.get(), f->end.get(), f->step.get()})
        if (x && !u)
          u = nonMmaUse(*x, accs);
      if (!u)
        u = nonMmaUse(f->body, accs);
    } else if (auto *r = s->as<ReturnStmt>()) {
      if (r->value)
        u = nonMmaUse(*r->value, accs);
      for (const ExprPtr &v : r->values)
        if (!u)
          u = nonMmaUse(*v, accs);
    } else if (auto *w = s->as<WhileStmt>()) {
      u = nonMmaUse(*w->cond, accs);
      if (!u)
        u = nonMmaUse(w->body, accs);
    } else if (auto *i = s->as<IfStmt>()) {
      u = nonMmaUse(*i->cond, accs);
      if (!u)
        u = nonMmaUse(i->thenBody, accs);
      if (!u)
        u = nonMmaUse(i->elseBody, accs);
    } else if (auto *r = s->as<RingAccessStmt>()) {
      u = nonMmaUse(r->body, accs);
    }
    if (u)
      return u;
  }
  return nullptr;
}

/// The variables assigned anywhere in `b` (fragments and vectors are
/// assigned whole: the target is the variable).
void collectAssigned(const Block &b, std::unordered_set<const Decl *> &out) {
  for (const StmtPtr &s : b) {
    if (auto *a = s->as<AssignStmt>()) {
      if (auto *v = a->target->as<VarRefExpr>(); v && v->decl)
        out.insert(v->decl);
    } else if (auto *f = s->as<ForStmt>()) {
      collectAssigned(f->body, out);
    } else if (auto *w = s->as<WhileStmt>()) {
      collectAssigned(w->body, out);
    } else if (auto *i = s->as<IfStmt>()) {
      collectAssigned(i->thenBody, out);
      collectAssigned(i->elseBody, out);
    } else if (auto *r = s->as<RingAccessStmt>()) {
      collectAssigned(r->body, out);
    }
  }
}

bool mentions(const ExprAST &e, const Decl *d) {
  if (auto *v = e.as<VarRefExpr>())
    return v->decl == d;
  bool found = false;
  forEachOperand(e, [&](const ExprAST &x) { found = found || mentions(x, d); });
  return found;
}

/// The mma `call`, bound to `d` by statement i of b, is chained: the next
/// statement of b that names d is `d = mma(x, y, d)` of the same wgmma
/// shape, x and y not naming d, and the statements between are simple ones
/// (`let`, assignments, expression statements) that do not name it. Its
/// registers are then touched only by the next wgmma of the same accumulator,
/// which PTX allows without a wait (PTX ISA 9.7.15.5: accumulator accesses
/// across wgmma.mma_async of the same shape are ordered), so `o = mma(q, t,
/// zeros); o = mma(p, s.v, o)` is one group, waited for once.
bool chainedToNextMma(const Block &b, size_t i, const Decl *d, const CallExpr &call) {
  for (size_t j = i + 1; j < b.size(); ++j) {
    const StmtAST &s = *b[j];
    if (auto *a = s.as<AssignStmt>()) {
      auto *target = a->target->as<VarRefExpr>();
      auto *next = a->value->as<CallExpr>();
      if (target && target->decl == d) {
        if (!next || next->builtin != Builtin::Mma || next->args.size() != 3 ||
            next->type.isInvalid() || next->mma.instrK != call.mma.instrK)
          return false;
        auto *acc = next->args[2]->as<VarRefExpr>();
        return acc && acc->decl == d && !mentions(*next->args[0], d) &&
               !mentions(*next->args[1], d);
      }
      if (mentions(*a->target, d) || mentions(*a->value, d))
        return false;
    } else if (auto *l = s.as<LetStmt>()) {
      if (mentions(*l->init, d))
        return false;
    } else if (auto *es = s.as<ExprStmtAST>()) {
      if (mentions(*es->expr, d))
        return false;
    } else {
      return false;
    }
  }
  return false;
}

/// Marks the mmas of a consume block whose registers the block touches
/// before its commit and wait; their group is committed and waited for right
/// after them (MLIRGenMma.cpp). Conservative: anywhere in the block, except
/// for an mma chained to the next one of its accumulator (above).
///  - The result is read, other than as an mma accumulator (PTX ISA
///    9.7.15.5: reading a wgmma's registers before a wait_group that covers
///    it is undefined): `let t = mma(...)` read by `t as f16`, or an mma
///    nested in another expression (`waitAfter`).
///  - A is a fragment variable (the .rs form) that the block assigns (PTX
///    ISA 9.7.15.5: A's registers may not change until the group completes;
///    the new value of a loop-carried variable shares its registers):
///    `o = mma(p, s.v, o)` then `p = x as f16` (`waitForA`). Assigned after
///    the block, the mma stays in flight until the block's wait.
class MmaResultReads {
public:
  explicit MmaResultReads(const Block &body) : body(body) { collectAssigned(body, assigned); }
  void block(Block &b) {
    for (size_t i = 0; i < b.size(); ++i) {
      chained = nullptr;
      const Decl *bound = nullptr;
      const ExprAST *value = nullptr;
      if (auto *a = b[i]->as<AssignStmt>()) {
        auto *v = a->target->as<VarRefExpr>();
        bound = v ? v->decl : nullptr;
        value = a->value.get();
      } else if (auto *l = b[i]->as<LetStmt>()) {
        bound = l->decl.get();
        value = l->init.get();
      }
      auto *call = value ? value->as<CallExpr>() : nullptr;
      if (bound && call && call->builtin == Builtin::Mma && chainedToNextMma(b, i, bound, *call))
        chained = bound;
      stmt(*b[i]);
    }
  }

private:
  const Block &body;
  std::unordered_set<const Decl *> assigned;
  /// The variable the current statement's mma is bound to when that mma is
  /// chained to the next one of its accumulator (chainedToNextMma).
  const Decl *chained = nullptr;
  /// `let a = p` in the block, p a variable: a names p's registers.
  std::unordered_map<const Decl *, const Decl *> aliases;

  /// Whether the fragment variable A names (directly or through a `let` of
  /// the block) is assigned in the block.
  bool registerAAssigned(const ExprAST &a) const {
    auto *v = a.as<VarRefExpr>();
    if (!v || !v->decl)
      return false;
    auto it = aliases.find(v->decl);
    return assigned.count(it != aliases.end() ? it->second : v->decl) != 0;
  }

  void stmt(StmtAST &s) {
    if (auto *a = s.as<AssignStmt>()) {
      auto *v = a->target->as<VarRefExpr>();
      expr(*a->value, v ? v->decl : nullptr, false);
      expr(*a->target, nullptr, false);
    } else if (auto *l = s.as<LetStmt>()) {
      if (auto *v = l->init->as<VarRefExpr>(); v && v->decl && l->decl) {
        auto it = aliases.find(v->decl);
        aliases[l->decl.get()] = it != aliases.end() ? it->second : v->decl;
      }
      expr(*l->init, l->decl.get(), false);
    } else if (auto *es = s.as<ExprStmtAST>()) {
      expr(*es->expr, nullptr, false);
    } else if (auto *f = s.as<ForStmt>()) {
      block(f->body);
    } else if (auto *w = s.as<WhileStmt>()) {
      expr(*w->cond, nullptr, false);
      block(w->body);
    } else if (auto *i = s.as<IfStmt>()) {
      expr(*i->cond, nullptr, false);
      block(i->thenBody);
      block(i->elseBody);
    } else if (auto *r = s.as<RingAccessStmt>()) {
      block(r->body); // a nested consume: its mmas are read against the whole block
    }
  }
  /// `boundTo`: the variable e (when it is the whole right-hand side) is
  /// stored to; `accumulator`: e is an enclosing mma's accumulator.
  void expr(ExprAST &e, const Decl *boundTo, bool accumulator) {
    if (auto *c = e.as<CallExpr>()) {
      bool isMma = c->builtin == Builtin::Mma;
      if (isMma && !accumulator) {
        c->mma.waitForA =
            c->mma.a.inRegisters && !c->args.empty() && registerAAssigned(*c->args[0]);
        c->mma.waitAfter = !boundTo ||
                           (boundTo != chained && nonMmaUse(body, {boundTo}) != nullptr) ||
                           c->mma.waitForA;
      }
      for (size_t i = 0; i < c->args.size(); ++i)
        expr(*c->args[i], nullptr, isMma && i == 2);
      return;
    }
    if (auto *u = e.as<UnaryExpr>())
      return expr(*u->operand, nullptr, false);
    if (auto *b = e.as<BinaryExpr>()) {
      expr(*b->lhs, nullptr, false);
      return expr(*b->rhs, nullptr, false);
    }
    if (auto *c = e.as<CastExpr>())
      return expr(*c->operand, nullptr, false);
    if (auto *s = e.as<SelectExpr>()) {
      for (ExprAST *x : {s->cond.get(), s->trueValue.get(), s->falseValue.get()})
        expr(*x, nullptr, false);
      return;
    }
    if (auto *i = e.as<IndexExpr>()) {
      expr(*i->base, nullptr, false);
      expr(*i->index, nullptr, false);
      for (ExprPtr &x : i->moreIndices)
        expr(*x, nullptr, false);
      return;
    }
    if (auto *m = e.as<MemberExpr>())
      return expr(*m->base, nullptr, false);
    if (auto *v = e.as<VectorExpr>())
      for (ExprPtr &x : v->elems)
        expr(*x, nullptr, false);
  }
};
} // namespace

void Sema::checkConsumeInflight(RingAccessStmt &s) {
  if (s.isProduce())
    return;
  s.drainLoop = loops_.empty() ? nullptr : loops_.back();
  // A nested consume's mmas are marked with its outermost block's (after
  // it: every read up to that block's end counts).
  if (s.issuesMma && !s.enclosing)
    MmaResultReads(s.body).block(s.body);
  checkConsumeAnchor(s);
  if (!s.inflightExpr)
    return;
  const char *hint = "write `consume r as s inflight(N) { acc = mma(...) }` with a constant N, "
                     "0 <= N < the ring's stages";
  Type t = checkValue(s.inflightExpr, nullptr, "");
  bool overflow = false;
  std::optional<int64_t> n;
  if (!t.isInvalid() && t.isInteger())
    n = foldConstant(*s.inflightExpr, overflow);
  if (!n || overflow) {
    if (!t.isInvalid())
      error(s.inflightExpr->loc, "inflight(N) needs an integer constant", hint);
    return;
  }
  if (!s.ring)
    return;
  if (*n < 0 || *n >= s.ring->stages || *n > T::kWgmmaMaxInflight) {
    error(s.inflightExpr->loc,
          "inflight(" + std::to_string(*n) + ") on ring '" + s.ringName + "' of " +
              std::to_string(s.ring->stages) + " stages",
          "each group in flight keeps its stage unreleased: N must be below the stages (and at "
          "most " +
              std::to_string(T::kWgmmaMaxInflight) + ")");
    return;
  }
  if (*n > 0 && (s.enclosing || s.enclosesConsume)) {
    error(s.inflightExpr->loc,
          "inflight(" + std::to_string(*n) + ") on a consume " +
              (s.enclosing ? "nested in another consume" : "with a consume nested in it"),
          "nested consume blocks release their stages at their own ends: write `consume r as "
          "s` (inflight(0))");
    return;
  }
  s.inflight = *n;
  if (*n > 0 && !s.issuesMma) {
    error(s.inflightLoc, "inflight(" + std::to_string(*n) + ") on a consume that issues no mma",
          "inflight delays stage releases behind wgmma groups; without mma write `consume r as s`");
    return;
  }
  // PTX ISA 9.7.15.5: the registers of A may not change until the wgmma
  // group that reads them completed; a group left in flight would see the
  // next iteration overwrite them.
  if (*n > 0 && s.mmaReadsRegisterA) {
    error(s.inflightLoc,
          "inflight(" + std::to_string(*n) + ") on a consume whose mma reads A from registers",
          "A's registers must stay unchanged until its wgmma group completes: write `consume r "
          "as s` (inflight(0)), or keep A in a shared tile");
    return;
  }
  if (*n > 0) // the loop's later statements are not checked yet: after the body
    inflightConsumes_.push_back(&s);
}

void Sema::checkConsumeAnchor(RingAccessStmt &s) {
  if (s.anchorName.empty())
    return;
  const char *hint = "write `anchor(reduce)`, `anchor(last)` or `anchor(none)`, optionally with "
                     "a compile-time condition: `anchor(reduce, D == 128)`";
  int mode = s.anchorName == "none" ? 0 : s.anchorName == "reduce" ? 1 : s.anchorName == "last" ? 2 : -1;
  if (mode < 0) {
    error(s.anchorLoc, "'" + s.anchorName + "' is not a wait anchor", hint);
    return;
  }
  if (s.anchorCond) {
    // An i1, as every condition (`anchor(reduce, N)` with N: i32 is no
    // condition: compare, `N != 0`).
    Type b = Type::i1();
    Type t = checkValue(s.anchorCond, &b, "condition of anchor(...)",
                        "compare explicitly, e.g. `anchor(reduce, D == 128)`");
    bool overflow = false;
    std::optional<int64_t> v;
    if (!t.isInvalid())
      v = foldConstant(*s.anchorCond, overflow);
    if (!v || overflow) {
      if (!t.isInvalid())
        error(s.anchorCond->loc, "the condition of anchor(...) must be a compile-time constant",
              hint);
      return;
    }
    if (*v == 0)
      mode = -1; // the command line's anchor
  }
  if (mode > 0 && !s.issuesMma) {
    error(s.anchorLoc, "anchor(" + s.anchorName + ") on a consume that issues no mma",
          "the anchor places the block's closing wgmma.wait_group; without mma there is none");
    return;
  }
  s.anchorMode = mode;
}

void Sema::checkInflightUses() {
  for (RingAccessStmt *c : inflightConsumes_)
    checkInflightUses(*c);
  inflightConsumes_.clear();
}

void Sema::checkInflightUses(RingAccessStmt &s) {
  // Until the loop ends (the drain), the accumulators' registers belong to
  // wgmma groups still in flight: only mma may touch them.
  const int64_t *n = &s.inflight;
  std::unordered_set<const Decl *> accs;
  collectAccumulators(s.body, accs);
  const Block *scope = &s.body;
  if (s.drainLoop) {
    if (auto *f = s.drainLoop->as<ForStmt>())
      scope = &f->body;
    else if (auto *w = s.drainLoop->as<WhileStmt>())
      scope = &w->body;
  }
  if (const ExprAST *u = nonMmaUse(*scope, accs)) {
    error(u->loc,
          "'" + u->as<VarRefExpr>()->name +
              "' is read or written while its wgmma groups may be "
              "in flight (consume inflight(" +
              std::to_string(*n) + "))",
          "use the accumulator after the loop around the consume: the compiler waits for every "
          "group there");
    diags_.note(s.inflightLoc, "the groups stay in flight from here");
  }
}

} // namespace tile::frontend
