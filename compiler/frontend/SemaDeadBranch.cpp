//===- SemaDeadBranch.cpp - names in the branch `if const` does not take --===//
//
// `if const COND { A } else { B }` checks and emits only the branch COND
// selects. The other one is not type-checked (it may be written for another
// instance: `x * y` on fp8 operands), but, as in C++'s `if constexpr`, what
// does not depend on the instance is still checked: every name it uses
// must exist. Type parameters are replaced before parsing, so in tile every
// name is independent of the instance: a variable, constant or parameter
// in scope or declared in the branch, a function of the file, or a builtin.
// A misspelt name in a branch that one instance never takes would
// otherwise be found only by the instance that takes it (or never).
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <unordered_set>

namespace tile::frontend {

namespace {
/// Every name a statement of b declares (anywhere in b, at any depth): a
/// use of one of them is taken as known even before its declaration, so
/// the check reports only names that exist nowhere.
void collectDeclared(const Block &b, std::unordered_set<std::string> &out) {
  auto add = [&](const std::unique_ptr<Decl> &d) {
    if (d)
      out.insert(d->name);
  };
  forEachStmtIn(b, [&](const StmtAST &s) {
    if (auto *l = s.as<LetStmt>()) {
      add(l->decl);
      for (const std::unique_ptr<Decl> &d : l->tupleDecls)
        add(d);
    }
    else if (auto *a = s.as<SharedArrayStmt>())
      add(a->decl);
    else if (auto *m = s.as<MBarrierStmt>())
      add(m->decl);
    else if (auto *c = s.as<ConstStmt>())
      add(c->decl);
    else if (auto *la = s.as<LocalArrayStmt>())
      add(la->decl);
    else if (auto *r = s.as<RingStmt>())
      add(r->decl);
    else if (auto *f = s.as<ForStmt>())
      add(f->loopVar);
    else if (auto *ra = s.as<RingAccessStmt>())
      add(ra->stage);
  });
}
} // namespace

void Sema::checkDeadBranchNames(const Block &b, const Location &cond) {
  if (b.empty())
    return;
  std::unordered_set<std::string> declared;
  collectDeclared(b, declared);
  auto known = [&](const std::string &n) {
    return declared.count(n) || lookup(n) || functions_.count(n) || isKernelName(n) ||
           builtinFromName(n) != Builtin::Unknown || scalarFromName(n) || // `T == f16`
           n == "device_rank" || n == "device_count" || n == "peer" || n == "signal"; // SemaPeer
  };
  int reported = 0;
  auto report = [&](const Location &at, const std::string &msg, const std::string &hint) {
    if (reported++ >= 8)
      return; // a branch written for another file: a few are enough
    error(at, msg, hint);
    diags_.note(cond, "in the branch that this `if const` does not take: it is not "
                      "type-checked, but the names it uses must exist");
  };
  std::function<void(const ExprAST &, bool)> visit = [&](const ExprAST &e, bool bareWord) {
    if (auto *v = e.as<VarRefExpr>()) {
      // inf/nan; a bare word some arguments take (cache_policy's priority).
      if (!bareWord && !v->ringStageTile && v->name != "inf" && v->name != "nan" &&
          !known(v->name)) {
        std::string near = nearestVisibleName(v->name);
        report(v->loc,
               "unknown name '" + v->name + "'" +
                   (near.empty() ? "" : "; did you mean '" + near + "'?"),
               "declare it with `let`/`var` before the `if const`, or add a kernel parameter");
      }
      return;
    }
    if (auto *c = e.as<CallExpr>()) {
      bool query = c->callee == "size_of" || c->callee == "is_float" || c->callee == "is_int";
      if (!query && !known(c->callee)) {
        std::string guess = closestCallee(c->callee);
        report(c->loc,
               "unknown function '" + c->callee + "'" +
                   (guess.empty() ? "" : "; did you mean '" + guess + "'?"),
               "the nearest names are " + nearestCallees(c->callee) +
                   " (docs/reference/builtins.md lists every builtin); or define it at file "
                   "level with `fn`");
      }
      for (size_t i = 0; i < c->args.size(); ++i)
        visit(*c->args[i], query || (i == 0 && c->callee == "cache_policy"));
      // `row_stride = ld` is a value; `order = acquire`, `multicast = x` words.
      for (const NamedArg &na : c->namedArgs)
        if (na.expr)
          visit(*na.expr, !na.value.empty() && !namedArgTakesValue(na.name)); // SemaResolve.cpp
      return;
    }
    if (auto *m = e.as<MemberExpr>()) {
      visit(*m->base, false);
      return;
    }
    forEachOperand(e, [&](const ExprAST &x) { visit(x, false); });
  };
  forEachExprIn(b, [&](const ExprAST &e) { visit(e, false); });
  // The rings a produce/consume names.
  std::function<void(const Block &)> rings = [&](const Block &blk) {
    for (const StmtPtr &s : blk) {
      if (auto *ra = s->as<RingAccessStmt>()) {
        if (!known(ra->ringName))
          report(ra->ringLoc, "unknown ring '" + ra->ringName + "'",
                 "declare it at the top of the kernel: `let " + ra->ringName +
                     " = pipeline[STAGES] { NAME: shared<T>[R, C] }`");
        rings(ra->body);
      } else if (auto *f = s->as<ForStmt>())
        rings(f->body);
      else if (auto *w = s->as<WhileStmt>())
        rings(w->body);
      else if (auto *i = s->as<IfStmt>()) {
        rings(i->thenBody);
        rings(i->elseBody);
      } else if (auto *g = s->as<WarpgroupsStmt>()) {
        for (const auto &role : g->roles)
          rings(role->body);
      }
    }
  };
  rings(b);
}

} // namespace tile::frontend
