//===- SemaUnroll.cpp - unrolled loops and the constants of their copies ---===//
//
// `for i in a .. b [step s] unroll` and `unroll(F)`: the factor and the
// values of a full unroll's variable (checkUnroll), found before the body is
// checked, so that inside the body the variable is a constant in each copy
// (foldEveryCopy: a vector element's index, cols(), dim(), a local array's
// index, the bounds of a nested unrolled loop). A loop whose bounds read the
// variables of enclosing unrolled loops (a triangular loop) has its values
// per copy of those (ForStmt::unrollDeps, unrolledByOuter); the copies are
// enumerated with that dependence (forEachUnrolledCopy), so each check sees
// only the copies the loops make. MLIRGen emits each copy with its values.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>
#include <functional>
#include <map>

namespace tile::frontend {

namespace {
constexpr int64_t kMaxFullUnroll = 1024; // iterations of `unroll`
constexpr int64_t kMaxUnrollFactor = 64; // F of `unroll(F)`

/// A `return` anywhere in the block (a loop unrolled by a factor cannot
/// have one: its copies are guarded by a trip count, not by each return).
bool containsReturn(const Block &b) {
  for (const StmtPtr &s : b) {
    if (s->is<ReturnStmt>())
      return true;
    if (auto *i = s->as<IfStmt>();
        i && (containsReturn(i->thenBody) || containsReturn(i->elseBody)))
      return true;
    if (auto *w = s->as<WhileStmt>(); w && containsReturn(w->body))
      return true;
    if (auto *f = s->as<ForStmt>(); f && containsReturn(f->body))
      return true;
  }
  return false;
}
} // namespace

/// After the body is checked, so that a `return` in a branch an `if const`
/// dropped does not count.
void Sema::checkUnrollReturn(ForStmt &s) {
  if (s.unrollFactorValue > 1 && containsReturn(s.body))
    error(s.unrollLoc, "a loop whose body may `return` cannot be unrolled by a factor",
          "unroll it completely (`unroll`), or move the return out of the loop");
}

void Sema::checkUnroll(ForStmt &s) {
  if (s.forKind != ForKind::Range) {
    error(s.unrollLoc, std::string("a ") + forKindName(s.forKind) + " loop cannot be unrolled",
          "unroll a counted loop `for i in A .. B unroll { }`");
    return;
  }
  if (s.loopVar->type.isInvalid())
    return;
  if (s.unrollFactor) {
    Type i32 = Type::i32();
    Type t = checkValue(s.unrollFactor, &i32, "unroll factor");
    if (t.isInvalid() || !checkConstantOps(*s.unrollFactor))
      return;
    bool overflow = false;
    std::optional<int64_t> f = foldConstant(*s.unrollFactor, overflow);
    std::string hint = "write `unroll(F)` with a constant F from 1 to " +
                       std::to_string(kMaxUnrollFactor) + ", or `unroll` to unroll completely";
    if (!f || overflow) {
      error(s.unrollFactor->loc, "unroll factor must be a compile-time constant", hint);
      return;
    }
    if (*f < 1 || *f > kMaxUnrollFactor) {
      error(s.unrollFactor->loc, "unroll factor " + std::to_string(*f) + " is out of range", hint);
      return;
    }
    s.unrollFactorValue = *f; // a `return` in the body: checkUnrollReturn, once it is checked
    return;
  }
  // Full unrolling: the bounds and the step must be constants, or read the
  // variables of enclosing unrolled loops (a triangular loop), which are
  // constants in each of their copies: then this loop's values are found
  // for each copy of those (unrollDeps, unrolledByOuter).
  std::vector<size_t> outer = unrolledLoopsIn(*s.start);
  for (const ExprPtr *e : {&s.end, &s.step})
    if (*e)
      for (size_t i : unrolledLoopsIn(**e))
        if (std::find(outer.begin(), outer.end(), i) == outer.end())
          outer.push_back(i);
  std::sort(outer.begin(), outer.end());
  std::vector<int64_t> current; // the enclosing loops' values in the copy being folded
  ConstantLeaf leaf = [&](const ExprAST &x) -> std::optional<int64_t> {
    auto *v = x.as<VarRefExpr>();
    if (!v)
      return std::nullopt;
    for (size_t i = 0; i < unrolled_.size(); ++i)
      if (unrolled_[i].first == v->decl)
        return current[i];
    const ExprAST &b = boundValue(x);
    bool ignored = false;
    return &b == &x ? std::nullopt : foldConstant(b, ignored, &leaf);
  };
  auto constant = [&](const ExprPtr &e, const char *what) -> std::optional<int64_t> {
    bool overflow = false;
    std::optional<int64_t> v = foldConstant(*e, overflow, outer.empty() ? nullptr : &leaf);
    if (!v || overflow)
      error(e->loc,
            std::string("the loop's ") + what + " must be a compile-time constant to unroll it",
            "use literals, `const` values and the variables of enclosing unrolled loops, or "
            "unroll by a factor: `unroll(4)`");
    return overflow ? std::nullopt : v;
  };
  // The values of one copy; false after an error.
  auto valuesOf = [&](std::vector<int64_t> &values) {
    std::optional<int64_t> a = constant(s.start, "start"), b = constant(s.end, "end");
    std::optional<int64_t> step = s.step ? constant(s.step, "step") : std::optional<int64_t>(1);
    if (!a || !b || !step || *step <= 0)
      return false;
    for (int64_t i = *a; i < *b;) {
      if ((int64_t)values.size() >= kMaxFullUnroll) {
        error(s.unrollLoc,
              "unrolling this loop completely makes more than " + std::to_string(kMaxFullUnroll) +
                  " copies of its body",
              "unroll by a factor instead: `unroll(4)`");
        return false;
      }
      values.push_back(i);
      if (__builtin_add_overflow(i, *step, &i))
        break;
    }
    return true;
  };
  if (outer.empty()) {
    std::vector<int64_t> values;
    if (valuesOf(values))
      s.unrolledValues = std::move(values);
    return;
  }
  std::vector<const Decl *> deps;
  for (size_t i : outer)
    deps.push_back(unrolled_[i].first);
  std::map<std::vector<int64_t>, std::vector<int64_t>> byOuter;
  std::vector<int64_t> all;
  bool ok = true;
  forEachUnrolledCopy(outer, [&](const std::vector<int64_t> &values) {
    current = values;
    std::vector<int64_t> key;
    for (size_t i : outer)
      key.push_back(values[i]);
    if (byOuter.count(key))
      return true;
    std::vector<int64_t> mine;
    if (!valuesOf(mine)) {
      ok = false;
      return false;
    }
    all.insert(all.end(), mine.begin(), mine.end());
    byOuter.emplace(std::move(key), std::move(mine));
    return true;
  });
  if (!ok)
    return;
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  s.unrollDeps = std::move(deps);
  s.unrolledByOuter = std::move(byOuter);
  s.unrolledValues = std::move(all);
}

std::vector<size_t> Sema::unrolledLoopsIn(const ExprAST &e) const {
  // The unrolled loop variables `e` reads, directly or through `let`s.
  std::vector<size_t> used;
  std::function<void(const ExprAST &)> collect = [&](const ExprAST &x) {
    if (auto *v = x.as<VarRefExpr>()) {
      for (size_t i = 0; i < unrolled_.size(); ++i)
        if (unrolled_[i].first == v->decl && std::find(used.begin(), used.end(), i) == used.end())
          used.push_back(i);
      const ExprAST &b = boundValue(x);
      if (&b != &x)
        collect(b);
      return;
    }
    forEachOperand(x, collect);
  };
  collect(e);
  return used;
}

void Sema::forEachUnrolledCopy(std::vector<size_t> loops,
                               const std::function<bool(const std::vector<int64_t> &)> &f) {
  // The loops the bounds of a dependent one read take part too, outer first.
  for (size_t k = 0; k < loops.size(); ++k)
    for (const Decl *d : unrolled_[loops[k]].second->unrollDeps)
      for (size_t i = 0; i < unrolled_.size(); ++i)
        if (unrolled_[i].first == d && std::find(loops.begin(), loops.end(), i) == loops.end())
          loops.push_back(i);
  std::sort(loops.begin(), loops.end());
  std::vector<int64_t> values(unrolled_.size(), 0);
  // At most the copies the enclosing loops make (4096, Sema::checkFor).
  std::function<bool(size_t)> walk = [&](size_t k) {
    if (k == loops.size())
      return f(values);
    const ForStmt &loop = *unrolled_[loops[k]].second;
    std::vector<int64_t> key;
    for (const Decl *d : loop.unrollDeps)
      for (size_t i = 0; i < unrolled_.size(); ++i)
        if (unrolled_[i].first == d)
          key.push_back(values[i]);
    for (int64_t v : loop.unrolledValuesFor(key)) {
      values[loops[k]] = v;
      if (!walk(k + 1))
        return false;
    }
    return true;
  };
  walk(0);
}

std::optional<std::vector<int64_t>> Sema::foldEveryCopy(const ExprAST &e, bool &overflow) {
  std::vector<int64_t> current;
  ConstantLeaf leaf = [&](const ExprAST &x) -> std::optional<int64_t> {
    auto *v = x.as<VarRefExpr>();
    if (!v)
      return std::nullopt;
    for (size_t i = 0; i < unrolled_.size(); ++i)
      if (unrolled_[i].first == v->decl)
        return current[i];
    const ExprAST &b = boundValue(x);
    if (&b == &x)
      return std::nullopt;
    return foldConstant(b, overflow, &leaf);
  };
  std::vector<int64_t> out;
  bool failed = false;
  forEachUnrolledCopy(unrolledLoopsIn(e), [&](const std::vector<int64_t> &values) {
    current = values;
    std::optional<int64_t> v = foldConstant(e, overflow, &leaf);
    if (!v || overflow || out.size() >= size_t(kMaxFullUnroll)) {
      failed = true; // every copy's value is one more operation
      return false;
    }
    out.push_back(*v);
    return true;
  });
  if (failed || out.empty())
    return std::nullopt;
  return out;
}

} // namespace tile::frontend
