//===- SemaCache.cpp - cache hints on load/store, cache_policy() ----------===//
//
// `load(LOC, cache =, evict =, prefetch =, policy =, vector =)` and
// `store(LOC, V, cache =, evict =, policy =)`. Which combinations PTX accepts
// is the one table of tilec/Target/CacheRules.h; here each hint is parsed,
// the table asked, and a refusal reported at the argument it is about.
// A load/store with hints (or a vector) and no `order =` is a plain (weak)
// access like `p[i]`: `.nc` and the cache operators exist only on weak ones.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

bool isMemoryHintName(const std::string &name) {
  return name == "cache" || name == "evict" || name == "prefetch" || name == "policy" ||
         name == "vector";
}

static std::optional<cache::Op> parseCacheOp(const std::string &s) {
  static const cache::Op all[] = {cache::Op::Ca, cache::Op::Cg, cache::Op::Cs, cache::Op::Lu,
                                  cache::Op::Cv, cache::Op::Nc, cache::Op::Wb, cache::Op::Wt};
  for (cache::Op op : all)
    if (s == cache::opName(op))
      return op;
  return std::nullopt;
}

static std::optional<cache::Evict> parseEvict(const std::string &s) {
  if (s == "normal")
    return cache::Evict::Normal;
  if (s == "first")
    return cache::Evict::First;
  if (s == "last")
    return cache::Evict::Last;
  if (s == "unchanged")
    return cache::Evict::Unchanged;
  if (s == "no_allocate")
    return cache::Evict::NoAllocate;
  return std::nullopt;
}

/// A named argument's value as a constant integer (prefetch = 256, vector = 4).
std::optional<int64_t> Sema::namedArgConstant(NamedArg &na, const std::string &hint) {
  Type t = infer(na.expr);
  if (t.isUntyped())
    t = finalize(na.expr);
  if (t.isInvalid())
    return std::nullopt;
  bool overflow = false;
  std::optional<int64_t> v = t.isInteger() ? foldConstant(*na.expr, overflow) : std::nullopt;
  if (!v || overflow) {
    error(na.valueLoc, "'" + na.name + "' must be a constant integer", hint);
    return std::nullopt;
  }
  return v;
}

bool Sema::takeMemoryHints(CallExpr &e) {
  bool ok = true;
  bool isLoad = e.builtin == Builtin::Load, isStore = e.builtin == Builtin::Store;
  for (size_t i = 0; i < e.namedArgs.size(); ++i) {
    NamedArg &na = e.namedArgs[i];
    if (!isMemoryHintName(na.name))
      continue;
    if (!isLoad && !isStore) {
      error(na.loc, "'" + e.callee + "' takes no '" + na.name + "' argument",
            "cache hints and vectors apply to load and store; atomics take `order =` and "
            "`scope =`");
      resolveOnly(na.expr);
      ok = false;
      continue;
    }
    if (na.name == "cache") {
      std::optional<cache::Op> op = na.value.empty() ? std::nullopt : parseCacheOp(na.value);
      if (!op || (isLoad && !cache::isLoadOp(*op)) || (isStore && !cache::isStoreOp(*op))) {
        error(na.valueLoc,
              na.value.empty() ? std::string("expected a cache operator name")
                               : "'" + na.value + "' is not a " + (isLoad ? "load" : "store") +
                                     " cache operator",
              isLoad ? "loads take cache = ca, cg, cs, lu, cv or nc (ld.global.nc)"
                     : "stores take cache = wb, cg, cs or wt");
        ok = false;
      } else {
        e.hints.cache = *op;
      }
    } else if (na.name == "evict") {
      std::optional<cache::Evict> ev = na.value.empty() ? std::nullopt : parseEvict(na.value);
      if (!ev) {
        error(na.valueLoc,
              na.value.empty() ? std::string("expected an eviction priority name")
                               : "unknown eviction priority '" + na.value + "'",
              "evict = normal, first, last, unchanged or no_allocate (PTX .L1::evict_*)");
        ok = false;
      } else {
        e.hints.evict = *ev;
      }
    } else if (na.name == "prefetch") {
      std::optional<int64_t> v = namedArgConstant(na, "write prefetch = 64, 128 or 256 (bytes)");
      if (!v) {
        ok = false;
      } else if (*v != 64 && *v != 128 && *v != 256) {
        error(na.valueLoc, "prefetch = " + std::to_string(*v) + " is not an L2 prefetch size",
              "write prefetch = 64, 128 or 256 (bytes)");
        ok = false;
      } else {
        e.hints.prefetch = (int)*v;
      }
    } else if (na.name == "policy") {
      Type t = infer(na.expr);
      if (t.isUntyped())
        t = finalize(na.expr);
      if (t.isInvalid()) {
        ok = false;
      } else if (t.kind != Type::CachePolicy) {
        error(na.valueLoc, "'policy' must be a cache policy, found " + t.str(),
              "make one with `let P = cache_policy(evict_first, fraction = 1.0)`");
        ok = false;
      } else {
        e.hints.policyArg = (int)i;
      }
    } else { // vector
      if (!isLoad) {
        error(na.loc, "store takes no 'vector' argument",
              "a store of a vector value (vec<T, N>, f16x2, `{a, b}`) is a vector store");
        resolveOnly(na.expr);
        ok = false;
        continue;
      }
      std::optional<int64_t> v = namedArgConstant(na, "write vector = 2, 4, 8, 16 or 32");
      if (!v) {
        ok = false;
      } else if (*v != 2 && *v != 4 && *v != 8 && *v != 16 && *v != 32) {
        error(na.valueLoc, "vector = " + std::to_string(*v) + " is not a vector width",
              "a vector load moves 2, 4, 8, 16 or 32 elements of 4, 8, 16 or 32 bytes in all: "
              "vector = 4, 8, 16 or 32 for 1-byte elements, 2, 4, 8 or 16 for 2-byte, 2, 4 or 8 "
              "for 4-byte, 2 or 4 for 8-byte ones");
        ok = false;
      } else {
        e.hints.vector = (int)*v;
      }
    }
  }
  return ok;
}

bool Sema::checkMemoryHints(CallExpr &e, bool orderGiven) {
  if (!e.hints.any())
    return true;
  cache::Access a;
  a.isLoad = e.builtin == Builtin::Load;
  a.space = e.space == AddressSpace::Global   ? cache::Space::Global
            : e.space == AddressSpace::Shared ? cache::Space::Shared
                                              : cache::Space::Cluster;
  a.ordered = orderGiven;
  a.op = e.hints.cache;
  a.evict = e.hints.evict;
  a.prefetch = e.hints.prefetch;
  a.policy = e.hints.policyArg >= 0;
  std::optional<cache::Violation> v = cache::check(a);
  if (!v)
    return true;
  const char *name = v->at == cache::Hint::Cache      ? "cache"
                     : v->at == cache::Hint::Evict    ? "evict"
                     : v->at == cache::Hint::Prefetch ? "prefetch"
                                                      : "policy";
  Location where = e.loc;
  for (const NamedArg &na : e.namedArgs)
    if (na.name == name)
      where = na.loc;
  error(where, v->message, v->hint);
  return false;
}

Type Sema::checkCachePolicy(CallExpr &e) {
  bool ok = true;
  const char *hint = "write `cache_policy(evict_first | evict_last | evict_normal | "
                     "evict_unchanged, fraction = 1.0)`";
  if (e.args.size() != 1) {
    error(e.loc, "'cache_policy' takes 1 argument, got " + std::to_string(e.args.size()), hint);
    for (NamedArg &na : e.namedArgs)
      resolveOnly(na.expr);
    return Type::invalid();
  }
  // The priority is a bare name, not a value: it is never looked up.
  auto *name = e.args[0]->as<VarRefExpr>();
  std::optional<cache::Evict> primary;
  if (name) {
    if (name->name == "evict_first")
      primary = cache::Evict::First;
    else if (name->name == "evict_last")
      primary = cache::Evict::Last;
    else if (name->name == "evict_normal")
      primary = cache::Evict::Normal;
    else if (name->name == "evict_unchanged")
      primary = cache::Evict::Unchanged;
  }
  e.args[0]->type = Type::voidTy();
  if (!primary) {
    error(e.args[0]->loc, "the first argument of cache_policy is an L2 eviction priority",
          std::string(hint) + " (createpolicy.fractional.L2::<priority>)");
    ok = false;
  } else {
    e.policyPrimary = *primary;
  }
  for (NamedArg &na : e.namedArgs) {
    if (na.name != "fraction") {
      error(na.loc, "unknown named argument '" + na.name + "' of cache_policy",
            "cache_policy takes only `fraction =`");
      resolveOnly(na.expr);
      ok = false;
      continue;
    }
    Type f32 = Type::scalarTy(ScalarKind::F32);
    Type t = checkValue(na.expr, &f32, "fraction of cache_policy", "write a literal like 0.5");
    std::optional<ConstValue> c = t.isInvalid() ? std::nullopt : evalConstant(*na.expr);
    if (t.isInvalid()) {
      ok = false;
    } else if (!c) {
      error(na.valueLoc, "the fraction of cache_policy must be a constant",
            "createpolicy takes an immediate fraction; write a literal like 0.5");
      ok = false;
    } else if (!(c->f > 0.0 && c->f <= 1.0)) {
      error(na.valueLoc, "the fraction of cache_policy must be in (0, 1]",
            "it is the share of accesses the priority applies to; 1.0 applies it to all");
      ok = false;
    } else {
      e.policyFraction = c->f;
    }
  }
  return ok ? Type::cachePolicy() : Type::invalid();
}

} // namespace tile::frontend
