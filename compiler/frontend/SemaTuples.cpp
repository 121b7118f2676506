//===- SemaTuples.cpp - functions with several results --------------------===//
//
// `fn f(...) -> (T1, T2, ...)` returns several values with `return (a, b,
// ...)` (or `return g(...)` of a function with the same results). Its call is
// not a value: it is bound by `let (x, y) = f(...)` (or `var`), assigned by
// `(x, p[i]) = f(...)` (parsed as such a let of hidden names plus one
// assignment per target), forwarded by `return`, or called as a statement.
// The inlining itself is inferInlinedCall's (SemaAbstr.cpp); each value is a
// value of the function's result type, as a single result is. boundValue
// follows a name to the expression it stands for, through single and
// several results, for the guard checks.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>

namespace tile::frontend {

std::string valuesText(const std::vector<Type> &types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i)
    s += (i ? ", " : "") + types[i].str();
  return s + ")";
}

namespace {
/// `(a, b, c)` with n names: the shape of a binding in a hint.
std::string namesText(size_t n) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::string(1, char('a' + i % 26));
  return s + ")";
}
} // namespace

const FnAST *Sema::calledFunction(const ExprAST &e) const {
  auto *c = e.as<CallExpr>();
  if (!c || builtinFromName(c->callee) != Builtin::Unknown)
    return nullptr;
  auto it = functions_.find(c->callee);
  return it == functions_.end() ? nullptr : it->second;
}

Type Sema::inferValues(ExprPtr &e) {
  tupleCallAllowed_ = calledFunction(*e) != nullptr;
  Type t = infer(e);
  tupleCallAllowed_ = false;
  return t;
}

bool Sema::rejectValuesCall(const CallExpr &e, const FnAST &fn, bool allowed) {
  if (fn.results.empty() || allowed)
    return false;
  std::vector<Type> types;
  for (const TypeSyntax &t : fn.results)
    types.push_back(t.type);
  error(e.loc,
        "function '" + fn.name + "' returns " + std::to_string(types.size()) + " values " +
            valuesText(types) + ": its call is not one value",
        "bind them: `let " + namesText(types.size()) + " = " + fn.name +
            "(...)`, or assign them to variables: `" + namesText(types.size()) + " = " + fn.name +
            "(...)`");
  diags_.note(fn.loc, "'" + fn.name + "' is defined here");
  return true;
}

void Sema::checkTupleLet(LetStmt &s) {
  s.decl->type = Type::invalid(); // the holder: no name refers to it
  auto declareAll = [&](const std::vector<Type> *types) {
    for (size_t i = 0; i < s.tupleDecls.size(); ++i) {
      Decl &d = *s.tupleDecls[i];
      d.type = types ? (*types)[i] : Type::invalid();
      if (d.name == "_")
        continue;
      declare(d);
    }
  };
  std::string what = s.decl->kind == DeclKind::Var ? "var" : "let";
  const FnAST *fn = calledFunction(*s.init);
  size_t n = s.tupleDecls.size();
  if (!fn) {
    error(s.init->loc,
          "`" + what + " " + namesText(n) + " = ...` takes a call of a function that returns " +
              std::to_string(n) + " values",
          "declare the function with several results: `fn f(...) -> (T1, T2)`, returning "
          "`return (x, y)`; bind one value with `" +
              what + " a = ...`");
    resolveOnly(s.init);
    declareAll(nullptr);
    return;
  }
  Type t = inferValues(s.init);
  auto *call = s.init->as<CallExpr>();
  if (t.isInvalid() || !call->inlined) {
    declareAll(nullptr);
    return;
  }
  const std::vector<Type> &results = call->inlined->results;
  if (results.size() != n) {
    std::string found = results.empty() ? (call->inlined->result.kind == Type::Void
                                               ? std::string("no value")
                                               : "one value (" + call->inlined->result.str() + ")")
                                         : std::to_string(results.size()) + " values " +
                                               valuesText(results);
    error(s.init->loc,
          "function '" + fn->name + "' returns " + found + ", not " + std::to_string(n),
          results.empty() ? "bind one value with `" + what + " a = " + fn->name + "(...)`"
                          : "name every value, in order (`_` for one not kept): `" + what + " " +
                                namesText(results.size()) + " = " + fn->name + "(...)`");
    diags_.note(fn->loc, "'" + fn->name + "' is defined here");
    declareAll(nullptr);
    return;
  }
  declareAll(&results);
  // `var (a, b)` names may change before a guard reads them (the holder is
  // a let either way; each name carries let or var).
  for (size_t i = 0; i < n; ++i)
    if (s.tupleDecls[i]->kind != DeclKind::Var && results[i].isScalar())
      boundResults_[s.tupleDecls[i].get()] = {call, i};
}

void Sema::checkTupleReturn(ReturnStmt &s, const FnAST &fn, const Type &result,
                            const std::vector<Type> &results) {
  if (results.empty()) {
    if (!s.values.empty()) {
      error(s.loc,
            "function '" + fn.name + "' returns " +
                (fn.result ? "one value (" + result.str() + ")" : std::string("no value")) +
                ", not " + std::to_string(s.values.size()),
            fn.result ? "return one value, or declare several results: `fn " + fn.name +
                            "(...) -> (T1, T2)`"
                      : "declare the results: `fn " + fn.name + "(...) -> (T1, T2)`");
      for (ExprPtr &v : s.values)
        resolveOnly(v);
    }
    return;
  }
  std::string shape = std::to_string(results.size()) + " values " + valuesText(results);
  if (s.values.empty() && s.value) {
    // `return g(...)`: a function with the same results passes them on.
    const FnAST *g = calledFunction(*s.value);
    Type t = g ? inferValues(s.value) : Type::invalid();
    auto *call = s.value->as<CallExpr>();
    if (!g) {
      infer(s.value);
      finalize(s.value);
    } else if (t.isInvalid() || !call->inlined) {
      return;
    } else if (call->inlined->results == results) {
      return;
    } else if (!call->inlined->results.empty()) {
      // Several values of other types (or another number): nothing converts.
      const std::vector<Type> &given = call->inlined->results;
      error(s.value->loc,
            "function '" + fn.name + "' returns " + shape + ", but '" + g->name + "' returns " +
                std::to_string(given.size()) + " values " + valuesText(given),
            "`return " + g->name + "(...)` passes on values of the same types only: bind them "
            "(`let " + namesText(given.size()) + " = " + g->name + "(...)`) and return them "
            "converted with `as`");
      return;
    }
    error(s.value->loc, "function '" + fn.name + "' returns " + shape + ": `return` needs all of them",
          "write `return " + namesText(results.size()) +
              "`, or return a call of a function with these results");
    return;
  }
  if (s.values.size() != results.size()) {
    error(s.loc,
          "function '" + fn.name + "' returns " + shape + ", found " +
              (s.values.empty() ? std::string("none") : std::to_string(s.values.size())),
          "write `return " + namesText(results.size()) + "`");
    for (ExprPtr &v : s.values)
      resolveOnly(v);
    return;
  }
  for (size_t i = 0; i < results.size(); ++i)
    checkValue(s.values[i], &results[i], "returned value " + std::to_string(i + 1),
               "convert explicitly with `as`");
}

namespace {
/// The return statement of an inlined call whose body is `let`s and one
/// `return`: what the call's value(s) are; null for any other body (a
/// branch or a loop may return something else).
const ReturnStmt *onlyReturn(const CallExpr &c) {
  const Block &body = c.inlined->body;
  auto *r = body.empty() ? nullptr : body.back()->as<ReturnStmt>();
  if (!r || !std::all_of(body.begin(), body.end() - 1,
                         [](const StmtPtr &st) { return st->is<LetStmt>(); }))
    return nullptr;
  return r;
}
} // namespace

const ExprAST &Sema::boundValue(const ExprAST &e) const {
  const ExprAST *x = &e;
  // A chain is at most as long as the bindings (each names an earlier one).
  // A call of a function whose body is `let`s and one `return v` (`fn
  // leader() -> i1 { return role_thread_id() == 0 }`) is v; value i of
  // `let (a, b) = f()` is the i-th of f's `return (x, y)` (or of the call
  // `return g()` forwards).
  size_t limit = boundValues_.size() + boundResults_.size() + size_t(inlinedCalls_);
  for (size_t n = 0; n <= limit; ++n) {
    if (auto *c = x->as<CallExpr>(); c && c->inlined) {
      const ReturnStmt *r = onlyReturn(*c);
      if (!r || !r->value || !c->inlined->results.empty())
        return *x;
      x = r->value.get();
      continue;
    }
    auto *v = x->as<VarRefExpr>();
    if (!v || !v->decl)
      return *x;
    if (auto it = boundValues_.find(v->decl); it != boundValues_.end()) {
      x = it->second;
      continue;
    }
    auto res = boundResults_.find(v->decl);
    if (res == boundResults_.end())
      return *x;
    auto [call, index] = res->second;
    for (const ReturnStmt *r = call->inlined ? onlyReturn(*call) : nullptr; r;) {
      if (index < r->values.size()) {
        x = r->values[index].get();
        break;
      }
      // `return g(...)`: g's values, in the same positions.
      auto *g = r->value ? r->value->as<CallExpr>() : nullptr;
      r = g && g->inlined && ++n <= limit ? onlyReturn(*g) : nullptr;
      if (!r)
        return *x;
    }
    if (x == v)
      return *x;
  }
  return *x;
}

} // namespace tile::frontend
