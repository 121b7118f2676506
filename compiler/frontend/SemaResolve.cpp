//===- SemaResolve.cpp - names that stand for other expressions -----------===//
//
// Some names refer to no storage: `inf` and `nan` (unless the program
// declares them) are float literals, a `const` reads as its value, and
// `s.NAME` on a ring stage s is the stage's tile. Each is replaced by what it
// stands for here, in one step over a statement's own expressions that runs
// before the statement is checked (and over a constant's value and a kernel
// attribute before those are checked). So checking never replaces a name: a
// checker may hold a pointer to a node (`v = target->as<VarRefExpr>()`)
// while it infers the node or its parent, and the node is still there. The
// one replacement left to checking is the adaptation of an integer literal
// to a float type (adapt), which replaces only that literal node.
//
// The step runs in the statement's scopes: a declaration shadows `inf`,
// `nan` or a constant for the statements after it only. A name as the
// target of an assignment is a place, not a value, and is left alone:
// checkAssign says why `inf = 1` or `N += 1` assigns nothing.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <cmath>

namespace tile::frontend {

bool Sema::namesValue(const VarRefExpr &v) const {
  if (v.ringStageTile)
    return false;
  Decl *d = lookup(v.name);
  return d ? d->kind == DeclKind::Const : v.name == "inf" || v.name == "nan";
}

bool Sema::resolveName(ExprPtr &e) {
  if (auto *v = e->as<VarRefExpr>()) {
    if (!v->ringStageTile)
      if (Decl *d = lookup(v->name); d && d->kind == DeclKind::TypeParam) {
        reportTypeAsValue(*v, *d);
        return true;
      }
    if (!namesValue(*v))
      return false;
    Location at = v->loc;
    int depth = v->depth;
    if (Decl *d = lookup(v->name)) {
      e = constantLiteral(*d, at); // a constant reads as its value
    } else {
      // `inf` / `nan`: contextual names (docs/reference/lexical.md), float literals.
      double value = v->name == "inf" ? HUGE_VAL : std::nan("");
      e = std::make_unique<FloatLiteralExpr>(at, value);
    }
    e->depth = depth;
    return true;
  }
  if (auto *m = e->as<MemberExpr>(); m && m->base->is<VarRefExpr>())
    if (Decl *d = lookup(m->base->as<VarRefExpr>()->name);
        d && (d->kind == DeclKind::Ring || d->kind == DeclKind::RingStage)) {
      resolveRingMember(e, *d); // SemaRings.cpp
      return true;
    }
  return false;
}

void Sema::reportTypeAsValue(VarRefExpr &v, const Decl &d) {
  if (v.typeAsValueReported)
    return;
  v.typeAsValueReported = true;
  error(v.loc,
        "'" + v.name + "' is a type parameter (here " + scalarName(d.typeValue) +
            "), not a value",
        "use it where a type is written: `x as " + v.name + "`, `zeros<" + v.name +
            ">[M, N]`, `shared<" + v.name + ">[N]`, `tensor<" + v.name +
            ">[...]`; a value parameter is declared `P: i32`");
  diags_.note(d.loc, "'" + v.name + "' is declared here");
}

void Sema::resolveNames(ExprPtr &e) {
  if (!e || resolveTypeQuery(e) || resolveName(e)) // SemaTemplates.cpp: size_of(T), T == f16
    return;
  switch (e->kind()) {
  case ExprAST::Unary:
    resolveNames(e->as<UnaryExpr>()->operand);
    break;
  case ExprAST::Binary: {
    auto &b = *e->as<BinaryExpr>();
    resolveNames(b.lhs);
    resolveNames(b.rhs);
    break;
  }
  case ExprAST::Cast:
    resolveNames(e->as<CastExpr>()->operand);
    break;
  case ExprAST::Index: {
    auto &i = *e->as<IndexExpr>();
    resolveNames(i.base);
    resolveNames(i.index);
    for (ExprPtr &m : i.moreIndices)
      resolveNames(m);
    break;
  }
  case ExprAST::Member:
    resolveNames(e->as<MemberExpr>()->base);
    break;
  case ExprAST::Call: {
    auto &c = *e->as<CallExpr>();
    // cache_policy(evict_first, ...): the priority is a bare word, never a
    // value (SemaCache.cpp), even where a constant has that name.
    for (size_t i = c.callee == "cache_policy" ? 1 : 0; i < c.args.size(); ++i)
      resolveNames(c.args[i]);
    for (NamedArg &na : c.namedArgs)
      resolveNames(na.expr);
    break;
  }
  case ExprAST::Vector:
    for (ExprPtr &x : e->as<VectorExpr>()->elems)
      resolveNames(x);
    break;
  case ExprAST::Select: {
    auto &s = *e->as<SelectExpr>();
    resolveNames(s.cond);
    resolveNames(s.trueValue);
    resolveNames(s.falseValue);
    break;
  }
  case ExprAST::IntLiteral:
  case ExprAST::FloatLiteral:
  case ExprAST::BoolLiteral:
  case ExprAST::VarRef:
    break;
  }
}

namespace {
/// Whether `e` holds a name that no check has looked up: undeclared, and
/// not yet reported.
bool holdsUncheckedName(const ExprAST &e) {
  if (auto *v = e.as<VarRefExpr>())
    return !v->decl && !v->ringStageTile && !v->unknownReported && !v->typeAsValueReported;
  bool found = false;
  forEachOperand(e, [&](const ExprAST &x) { found = found || holdsUncheckedName(x); });
  return found;
}
} // namespace

bool namedArgTakesValue(const std::string &name) {
  return name == "row_stride" || name == "rows" || name == "cols" || name == "policy" ||
         name == "mask" || name == "width" || name == "vector" || name == "fraction" ||
         name == "prefetch";
}

void Sema::reportUncheckedNames(CallExpr &e) {
  // A call rejected before it read one of its named values still reports a
  // name there that means nothing, as it reports its other errors; a word
  // (`order = acquire`, `multicast = x`) is the builtin's to judge.
  for (NamedArg &na : e.namedArgs)
    if (namedArgTakesValue(na.name) && na.expr && holdsUncheckedName(*na.expr))
      resolveOnly(na.expr);
}

void Sema::resolveStmtNames(StmtAST &s) {
  switch (s.kind()) {
  case StmtAST::Let:
    resolveNames(s.as<LetStmt>()->init);
    break;
  case StmtAST::SharedArray: {
    auto &a = *s.as<SharedArrayStmt>();
    resolveNames(a.count);
    for (ExprPtr &d : a.moreDims)
      resolveNames(d);
    break;
  }
  case StmtAST::MBarrier:
    resolveNames(s.as<MBarrierStmt>()->arraySizeExpr);
    resolveNames(s.as<MBarrierStmt>()->count);
    break;
  case StmtAST::Assign: {
    auto &a = *s.as<AssignStmt>();
    if (!a.target->is<VarRefExpr>()) // `p[N] = x`: the element's indices are values
      resolveNames(a.target);
    resolveNames(a.value);
    break;
  }
  case StmtAST::For: {
    auto &f = *s.as<ForStmt>();
    resolveNames(f.start);
    resolveNames(f.end);
    resolveNames(f.step);
    resolveNames(f.unrollFactor);
    break;
  }
  case StmtAST::If:
    resolveNames(s.as<IfStmt>()->cond);
    break;
  case StmtAST::While:
    resolveNames(s.as<WhileStmt>()->cond);
    break;
  case StmtAST::ExprStmt:
    resolveNames(s.as<ExprStmtAST>()->expr);
    break;
  case StmtAST::Return:
    resolveNames(s.as<ReturnStmt>()->value);
    for (ExprPtr &v : s.as<ReturnStmt>()->values)
      resolveNames(v);
    break;
  case StmtAST::Warpgroups:
    for (auto &role : s.as<WarpgroupsStmt>()->roles)
      for (NamedArg &a : role->args)
        resolveNames(a.expr);
    break;
  case StmtAST::Ring:
    resolveNames(s.as<RingStmt>()->stagesExpr);
    for (RingMember &m : s.as<RingStmt>()->members)
      for (ExprPtr &d : m.dims)
        resolveNames(d);
    break;
  case StmtAST::Produce:
  case StmtAST::Consume:
    resolveNames(s.as<RingAccessStmt>()->inflightExpr);
    resolveNames(s.as<RingAccessStmt>()->anchorCond);
    break;
  case StmtAST::Const:
    resolveNames(s.as<ConstStmt>()->init);
    break;
  case StmtAST::LocalArray:
    resolveNames(s.as<LocalArrayStmt>()->count);
    break;
  case StmtAST::Break:
  case StmtAST::Continue:
    break;
  }
}

std::pair<std::string, std::string> Sema::whyNotAssignable(const Decl &d, bool element) const {
  const std::string &x = d.name;
  // What changes a copy instead: a `var` holding the value.
  std::string copy = element ? "copy it into a `var` and assign that one's element: `var w = " +
                                   x + "; w[0] = ...`"
                             : "copy it into a `var` and assign that: `var y = " + x + "`";
  switch (d.kind) {
  case DeclKind::Let:
    if (auto f = fnParams_.find(&d); f != fnParams_.end()) // bound to the call's argument
      return {"a parameter of '" + f->second->name + "' (a parameter is a value)", copy};
    return {"a 'let' binding", element ? "declare it with `var " + x + " = ...` to assign its elements"
                                       : "declare a mutable local with `var " + x + " = ...`"};
  case DeclKind::Param:
    return {"a kernel parameter", copy};
  case DeclKind::LoopVar:
    return {"a loop variable", "the loop sets it for each iteration; " + copy};
  case DeclKind::SharedArray:
  case DeclKind::DSharedArray:
    return {"a shared array", "assign its elements: `" + x + "[i] = ...`"};
  case DeclKind::LocalArray:
    return {"a register array", "assign its elements: `" + x + "[i] = ...`"};
  case DeclKind::MBarrier:
    return {"an mbarrier", "an mbarrier changes only through arrive, expect_tx and wait"};
  case DeclKind::Ring:
  case DeclKind::RingStage:
    return {d.kind == DeclKind::Ring ? "a ring" : "a ring stage",
            "a ring's tiles are written by the copies of its produce blocks"};
  case DeclKind::Const:
    return {"a constant", "a constant is fixed at compile time: " + copy};
  case DeclKind::Var:
  case DeclKind::TypeParam:
    break;
  }
  return {"not a variable", copy};
}

} // namespace tile::frontend
