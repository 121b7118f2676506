//===- SemaCall.cpp - builtin calls, memory orders and scopes --------------===//
//
// Order/scope rules follow the PTX memory model: ld takes .relaxed/.acquire,
// st takes .relaxed/.release, atom/red take any of them; `sc` is lowered as
// fence.sc followed by the access. A scope must cover the address space: a
// shared::cluster access by a cta-scoped atomic would not be morally strong
// with respect to the peer CTA that owns the memory.
//
//===----------------------------------------------------------------------===//
#include "CudaNames.h"
#include "NearestNames.h"
#include "SemaImpl.h"

#include "tilec/Target/ClusterGeometry.h"

#include <functional>

namespace tile::frontend {

bool Sema::checkArgCount(CallExpr &e, size_t min, size_t max) {
  size_t n = e.args.size();
  if (n >= min && n <= max)
    return true;
  std::string want =
      min == max ? std::to_string(min) : std::to_string(min) + " or " + std::to_string(max);
  // The hint writes the call's form (a porter's habit, `wait(bar, phase)`,
  // meets the one tile takes); the same table names every builtin.
  Builtin b = builtinFromName(e.callee);
  std::string signature = b == Builtin::Unknown ? "" : builtinSignature(b);
  error(e.loc,
        "'" + e.callee + "' takes " + want + " argument" + (max == 1 && min == 1 ? "" : "s") +
            ", got " + std::to_string(n),
        signature.empty()
            ? "see docs/reference/builtins.md for the builtin's signature"
            : "write `" + signature.substr(0, signature.find(" (")) + "`" +
                  (signature.find(" (") == std::string::npos
                       ? std::string()
                       : signature.substr(signature.find(" ("))) +
                  " (docs/reference/builtins.md)" +
                  // CUDA's `__shfl_xor_sync(mask, v, m)`, one argument more.
                  (isWarpCollective(b) && n == max + 1
                       ? "; CUDA's mask is the first argument, tile's a named one: `" + e.callee +
                             (max == 0 ? "(" : "(..., ") + "mask = M)` (default: the full warp)"
                       : ""));
  for (ExprPtr &a : e.args) // still resolve names so uses are annotated
    resolveOnly(a);
  return false;
}

void Sema::resolveOnly(ExprPtr &e) {
  if (auto *v = e->as<VectorExpr>()) {
    for (ExprPtr &x : v->elems)
      resolveOnly(x);
    return;
  }
  infer(e);
  finalize(e);
}

void Sema::resolveArgsOfUnknownCall(CallExpr &e) {
  // `dot(a, trans(b))`: the call was meant as a product, so an operand view
  // in it is not also an error of its own; its arguments are still checked.
  std::function<void(ExprPtr &)> resolve = [&](ExprPtr &a) {
    auto *view = a->as<CallExpr>();
    if (view && (view->callee == "trans" || view->callee == "rows") && !lookup(view->callee)) {
      for (ExprPtr &x : view->args)
        resolve(x);
      return;
    }
    resolveOnly(a);
  };
  for (ExprPtr &a : e.args)
    resolve(a);
}

bool Sema::checkNoNamedArgs(CallExpr &e) {
  if (e.namedArgs.empty())
    return true;
  // The hint writes the call's form from the one table of builtins, as
  // checkArgCount does: a porter's `row_max(f, rows = n)` meets what the
  // builtin takes, and where the named argument it tried belongs.
  Builtin b = builtinFromName(e.callee);
  std::string form = b == Builtin::Unknown ? "" : builtinSignature(b);
  error(e.namedArgs[0].loc, "'" + e.callee + "' takes no named arguments",
        (form.empty() ? std::string("it takes its arguments by position")
                      : "write `" + form + "`: its arguments go by position") +
            "; each builtin's form in docs/reference/builtins.md lists the named arguments it "
            "takes (`order =` and `scope =` on memory operations and mbarriers, `rows =` on "
            "fragment stores and loads, ...)");
  return false;
}

std::string Sema::nearestCallees(const std::string &name) const {
  std::vector<std::string> fns;
  for (const auto &f : functions_)
    fns.push_back(f.first);
  std::string list;
  for (const std::string &n : nearestNames(name, fns, 5))
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

std::string Sema::closestCallee(const std::string &name) const {
  std::string guess = closestBuiltin(name);
  std::vector<std::string> fns;
  for (const auto &f : functions_)
    fns.push_back(f.first);
  std::sort(fns.begin(), fns.end());
  std::vector<std::string> fn = nearestAmong(name, fns, 1, name.size() / 3);
  if (fn.empty())
    return guess;
  if (guess.empty()) // the file's `fn Helper` for `helper(...)`, as a builtin would be
    return fn[0];
  return nearestAmong(name, {guess, fn[0]}, 1, SIZE_MAX)[0];
}

Type Sema::inferCall(CallExpr &e) {
  // One owner for every call's named arguments given twice: a builtin that
  // reads the first (or the last) `cols =` must not see a second one.
  for (size_t i = 0; i < e.namedArgs.size(); ++i) {
    auto first = std::find_if(e.namedArgs.begin(), e.namedArgs.begin() + i,
                              [&](const NamedArg &na) { return na.name == e.namedArgs[i].name; });
    if (first == e.namedArgs.begin() + i)
      continue;
    NamedArg &again = e.namedArgs[i];
    error(again.loc, "duplicate '" + again.name + "' argument",
          "give " + again.name + " = ... at most once");
    diags_.note(first->loc, "'" + again.name + "' is first given here");
    // Dropped unread: its value may be a name only the builtin knows (`cg`).
    e.namedArgs.erase(e.namedArgs.begin() + i--);
  }
  if (isPeerCall(e)) { // SemaPeer.cpp
    e.role = curRole_;
    return checkPeerCall(e);
  }
  e.builtin = builtinFromName(e.callee);
  Builtin b = e.builtin;
  if (refusedFunctions_.count(e.callee)) {
    // The call means the refused function, not the builtin: checking it as
    // the builtin would only report arguments the function takes.
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
  if (b == Builtin::Unknown) {
    if (auto fn = functions_.find(e.callee); fn != functions_.end())
      return inferInlinedCall(e, *fn->second);
  }
  if (!e.typeArgs.empty()) { // f<T>(...) names a function with type parameters
    error(e.typeArgs[0].loc,
          "'" + e.callee + "' takes no type arguments" +
              (b == Builtin::Unknown ? std::string(" (it is not a function of this file)")
                                     : std::string(" (it is a builtin)")),
          "type arguments `f<T>(...)` are given to a function declared `fn f<T: type>(...)`");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
  if (b == Builtin::Unknown && e.callee == "row_vector" && !lookup(e.callee)) {
    // A per-column vector is not a row: the name says which way it broadcasts.
    error(e.loc, "unknown function 'row_vector'",
          "a value per column of a fragment is `load_per_col(p, f)`, a per_col<T>[N] that "
          "broadcasts along the rows: `acc + load_per_col(bias + n0, acc)`");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
  if (b == Builtin::Unknown && !lookup(e.callee)) {
    // CUDA's intrinsics and C's conversions `float(x)`: what tile writes.
    std::optional<CudaName> cuda = cudaFunction(e.callee);
    std::optional<std::string> type = cuda ? std::nullopt : typeWordAsValue(e.callee);
    if (cuda || type) {
      if (cuda)
        error(e.loc, cudaNameMessage("function", e.callee, *cuda), cuda->hint);
      else
        error(e.loc, "'" + e.callee + "' is a type, not a function",
              conversionHint(e.callee, *type));
      resolveArgsOfUnknownCall(e);
      return Type::invalid();
    }
  }
  if (b == Builtin::Unknown) {
    Decl *d = lookup(e.callee);
    std::string guess = closestCallee(e.callee);
    error(e.loc,
          (d ? "'" + e.callee + "' is not a function" : "unknown function '" + e.callee + "'") +
              (guess.empty() ? "" : "; did you mean '" + guess + "'?"),
          e.callee == "mbarrier"
              ? "declare mbarriers at the top of the kernel: `let b = mbarrier(COUNT)` or "
                "`let s = mbarrier[N](COUNT)`"
          : isKernelName(e.callee)
              ? "'" + e.callee + "' is a kernel: kernels are launched by the host, not called; "
                "move the shared code into a `fn` that both call"
              : "the nearest names are " + nearestCallees(e.callee) +
                    " (docs/reference/builtins.md lists every builtin); or define it at file "
                    "level with `fn " +
                    e.callee + "(...) { ... }`");
    resolveArgsOfUnknownCall(e);
    return Type::invalid();
  }
  e.role = curRole_;
  if (curRole_ && rejectInRole(e))
    return Type::invalid();
  if (isRoleBuiltin(b))
    return checkRoleCall(e);
  if (isFragmentStore(e)) // store(tile or p, fragment): SemaEpilogue.cpp
    return checkFragmentStore(e);
  if (b == Builtin::FragRow || b == Builtin::FragCol)
    return checkFragmentIndexCall(e);
  if (b == Builtin::LoadPerCol || b == Builtin::LoadPerRow)
    return checkLoadPerCol(e);
  if (b == Builtin::LoadFrag)
    return checkLoadFrag(e);
  if (b == Builtin::RowMax || b == Builtin::RowSum)
    return checkRowReduction(e);
  if (b == Builtin::Select)
    return checkSelectCall(e);
  if (b == Builtin::Cols)
    return checkFragmentCols(e);
  if (isMemoryBuiltin(b) && rejectLocalArrayAccess(e))
    return Type::invalid();
  if (isMemoryBuiltin(b))
    return checkMemoryCall(e);
  if (isMBarrierBuiltin(b))
    return checkMBarrierCall(e);
  if (b == Builtin::StoreAsync)
    return checkStoreAsync(e);
  if (b == Builtin::CopyAsync || b == Builtin::PrefetchTensor || b == Builtin::Dim)
    return checkTmaCall(e);
  if (b == Builtin::CachePolicy)
    return checkCachePolicy(e);
  if (b == Builtin::Pack)
    return checkPack(e);
  if (b == Builtin::Zeros || b == Builtin::Mma || isTileViewBuiltin(b))
    return checkMmaCall(e); // SemaMma.cpp
  if (b == Builtin::Fence || b == Builtin::FenceProxyAsync || b == Builtin::FenceMBarrierInit ||
      b == Builtin::ClusterArrive || b == Builtin::ClusterWait)
    return checkFenceCall(e);
  if (b == Builtin::Bitcast || b == Builtin::Popc || b == Builtin::Clz || b == Builtin::Ctz ||
      b == Builtin::Brev || b == Builtin::Bfind)
    return checkBitCall(e);
  if (b == Builtin::MulHi)
    return checkMulHi(e);
  if (b == Builtin::Nanosleep)
    return checkNanosleep(e);
  if (b == Builtin::StaticAssert)
    return checkStaticAssert(e); // SemaConst.cpp
  if (isWarpBuiltin(b))
    return checkWarpCall(e);
  if (isMathBuiltin(b))
    return checkMathCall(e);
  if (!checkNoNamedArgs(e))
    return Type::invalid();

  if (isIdBuiltin(b)) {
    if (!checkArgCount(e, 0, 1))
      return Type::invalid();
    if (!e.args.empty()) {
      auto *lit = e.args[0]->as<IntLiteralExpr>();
      if (!lit || lit->constant || lit->negated || lit->magnitude > 2) { // a literal, as written
        error(e.args[0]->loc, "axis of '" + e.callee + "' must be the literal 0, 1 or 2",
              "write `" + e.callee + "(0)` for x, 1 for y, 2 for z");
        infer(e.args[0]);
        abandonUntyped(e.args[0]);
        return Type::invalid();
      }
      e.axis = (int)lit->magnitude;
      lit->value = e.axis;
      lit->type = Type::i32();
    }
    return Type::i32();
  }

  switch (b) {
  case Builtin::ClusterRank:
  case Builtin::ClusterSize:
  case Builtin::LaneId:
  case Builtin::WarpId:
    return checkArgCount(e, 0, 0) ? Type::i32() : Type::invalid();
  case Builtin::SyncThreads:
    return checkArgCount(e, 0, 0) ? Type::voidTy() : Type::invalid();
  case Builtin::SyncThreadsCount:
  case Builtin::SyncThreadsAnd:
  case Builtin::SyncThreadsOr: {
    if (!checkArgCount(e, 1, 1))
      return Type::invalid();
    Type i1 = Type::i1();
    if (checkValue(e.args[0], &i1, "predicate of " + e.callee,
                   "the barrier reduces conditions; compare the value, e.g. `x != 0`")
            .isInvalid())
      return Type::invalid();
    return b == Builtin::SyncThreadsCount ? Type::i32() : i1;
  }
  case Builtin::ClusterSync:
    if (!checkArgCount(e, 0, 0) || !requireCluster(e.loc, "cluster_sync()"))
      return Type::invalid();
    return Type::voidTy();
  case Builtin::Min:
  case Builtin::Max:
  case Builtin::Clamp: {
    size_t n = b == Builtin::Clamp ? 3 : 2;
    if (!checkArgCount(e, n, n))
      return Type::invalid();
    // The first typed argument fixes the type; literals adapt to it.
    Type t = Type::untypedInt();
    bool bad = false;
    // Vector literals of literals last: they take the vector type of the
    // others (`max(h, {0.0, 0.0})` with h an f16x2).
    std::vector<ExprPtr *> order;
    for (ExprPtr &a : e.args)
      if (!isLiteralVector(*a))
        order.push_back(&a);
    for (ExprPtr &a : e.args)
      if (isLiteralVector(*a))
        order.push_back(&a);
    Location typedLoc = e.loc; // the argument that fixed t: where a wrong type is reported
    for (ExprPtr *ap : order) {
      ExprPtr &a = *ap;
      Type at = t.isVector() && isLiteralVector(*a) &&
                        t.lanes == (int)a->as<VectorExpr>()->elems.size()
                    ? checkValue(a, &t, "")
                    : infer(a);
      if (at.isInvalid()) {
        bad = true;
      } else if (!at.isUntyped() && t.isUntyped()) {
        t = at;
        typedLoc = a->loc;
      } else if (at.kind == Type::UntypedFloat && t.kind == Type::UntypedInt) {
        t = at;
      }
    }
    if (bad) {
      for (ExprPtr &a : e.args)
        abandonUntyped(a);
      return Type::invalid();
    }
    if (anyFragmentArg(e)) // min/max of fragments: SemaEpilogue.cpp
      return checkFragmentArgs(e);
    if (t.isUntyped())
      t = Type::scalarTy(t.kind == Type::UntypedFloat ? ScalarKind::F32 : ScalarKind::I32);
    if (!checkNotFp8(typedLoc, t, e.callee)) {
      for (ExprPtr &a : e.args)
        abandonUntyped(a);
      return Type::invalid();
    }
    bool floatVector = t.isVector() && isFloatKind(t.scalar); // min/max.f16x2, element-wise
    if ((!t.isScalar() && !floatVector) || t.isBool()) {
      error(typedLoc, "'" + e.callee + "' needs integer or float arguments, found " + t.str(),
            "min, max and clamp compare numbers");
      for (ExprPtr &a : e.args)
        abandonUntyped(a);
      return Type::invalid();
    }
    if (!argsOfOneType(e, t))
      bad = true;
    return bad ? Type::invalid() : t;
  }
  case Builtin::Len: {
    if (!checkArgCount(e, 1, 1))
      return Type::invalid();
    Type t = infer(e.args[0]);
    if (t.isUntyped())
      finalize(e.args[0]);
    if (t.isInvalid())
      return t;
    if (!t.isArray()) {
      error(e.args[0]->loc, "len() needs a shared array, view or dshared array, found " + t.str(),
            t.isPointer() ? "pointers carry no length; pass the count as a kernel parameter"
                          : "len() gives the element count of an array declared with "
                            "shared<T>[N] or dshared<T>[N], or of a view such as h.local");
      return Type::invalid();
    }
    return Type::scalarTy(t.lengthType);
  }
  case Builtin::Remote: {
    if (!checkArgCount(e, 2, 2))
      return Type::invalid();
    Type a = infer(e.args[0]);
    if (a.isUntyped())
      finalize(e.args[0]);
    Type i32 = Type::i32();
    Type r = infer(e.args[1]);
    if (r.isUntyped())
      r = adapt(e.args[1], i32) ? i32 : Type::invalid();
    bool clusterOk = requireCluster(e.loc, "remote()");
    if (a.isInvalid() || r.isInvalid() || !clusterOk)
      return Type::invalid();
    if (a.kind == Type::MBarrierArray) {
      std::string name = e.args[0]->is<VarRefExpr>() ? e.args[0]->as<VarRefExpr>()->name : "s";
      error(e.args[0]->loc, "remote() takes one mbarrier, not an mbarrier array",
            "pick the mbarrier first: `remote(" + name + "[i], r)`");
      return Type::invalid();
    }
    if (a.kind == Type::MBarrier && a.space == AddressSpace::Cluster) {
      error(e.args[0]->loc, "remote() needs this CTA's mbarrier, found a remote one",
            "write `remote(b, r)` with the local mbarrier `b`");
      return Type::invalid();
    }
    if (!checkPlainArrayUse(*e.args[0], "remote()"))
      return Type::invalid();
    if (a.kind == Type::DistArray) {
      error(e.args[0]->loc, "remote() takes a CTA-local shared array, not a dshared array",
            "index the dshared array directly (`h[i]` reaches the owner CTA), or use "
            "`remote(h.local, rank)`");
      return Type::invalid();
    }
    if (!((a.kind == Type::SharedArray) ||
          (a.kind == Type::ArrayView && a.space == AddressSpace::Shared) ||
          a.kind == Type::MBarrier)) {
      error(e.args[0]->loc, "remote() needs a shared array or `h.local`, found " + a.str(),
            "remote(a, rank) maps this CTA's shared array `a` to the same array in CTA `rank`");
      return Type::invalid();
    }
    if (!r.isInteger() || r.isBool()) {
      error(e.args[1]->loc, "CTA rank of remote() must be an integer, found " + r.str(),
            "use cluster_rank()-based i32 ranks");
      return Type::invalid();
    }
    // Any constant rank (`2`, `4 + 4`, `1 << 3`) is range-checked, not only a literal.
    bool overflow = false;
    std::optional<int64_t> rank = foldConstant(*e.args[1], overflow);
    if (overflow) {
      error(e.args[1]->loc, "CTA rank of remote() overflows",
            "ranks go from 0 to cluster_size() - 1");
      return Type::invalid();
    }
    if (rank && (*rank < 0 || kernel_->cluster.kind == ClusterAttr::Static)) {
      int64_t n = cluster::ctaCount(kernel_->cluster.dims);
      if (*rank < 0 || *rank >= n) {
        error(e.args[1]->loc,
              "CTA rank " + std::to_string(*rank) +
                  (kernel_->cluster.kind == ClusterAttr::Static
                       ? " is outside the cluster of " + std::to_string(n) + " CTA" +
                             (n == 1 ? "" : "s")
                       : " is negative"),
              "ranks go from 0 to cluster_size() - 1");
        return Type::invalid();
      }
    }
    e.space = AddressSpace::Cluster;
    if (a.kind == Type::MBarrier)
      return Type::mbarrier(AddressSpace::Cluster);
    return Type::array(Type::ArrayView, a.scalar, AddressSpace::Cluster, a.lengthType,
                       a.staticLength);
  }
  default:
    break;
  }
  return Type::invalid();
}

static std::optional<MemOrder> parseOrder(const std::string &s) {
  if (s == "relaxed")
    return MemOrder::Relaxed;
  if (s == "acquire")
    return MemOrder::Acquire;
  if (s == "release")
    return MemOrder::Release;
  if (s == "acq_rel")
    return MemOrder::AcqRel;
  if (s == "sc")
    return MemOrder::Sc;
  return std::nullopt;
}

static std::optional<MemScope> parseScope(const std::string &s) {
  if (s == "cta")
    return MemScope::Cta;
  if (s == "cluster")
    return MemScope::Cluster;
  if (s == "gpu")
    return MemScope::Gpu;
  if (s == "sys")
    return MemScope::Sys;
  return std::nullopt;
}

bool Sema::parseOrderScope(CallExpr &e, bool allowOrder, bool allowScope,
                           std::optional<MemOrder> &order, std::optional<MemScope> &scope,
                           Location &orderLoc, Location &scopeLoc) {
  bool ok = true;
  std::string takes = allowOrder && allowScope ? "`order =` and `scope =`"
                      : allowOrder             ? "only `order =`"
                                               : "only `scope =`";
  for (const NamedArg &na : e.namedArgs) {
    bool isOrder = na.name == "order", isScope = na.name == "scope";
    if ((isOrder && !allowOrder) || (isScope && !allowScope)) {
      error(na.loc, "'" + e.callee + "' takes no '" + na.name + "' argument",
            e.builtin == Builtin::ExpectTx
                ? "PTX's expect_tx is always relaxed; it takes only `scope =`"
                : "'" + e.callee + "' takes " + takes);
      ok = false;
    } else if (isOrder) {
      order = na.value.empty() ? std::nullopt : parseOrder(na.value);
      orderLoc = na.valueLoc;
      e.orderGiven = true;
      if (!order) {
        error(na.valueLoc,
              na.value.empty() ? std::string("expected an order name")
                               : "unknown memory order '" + na.value + "'",
              "orders are relaxed, acquire, release, acq_rel, sc");
        ok = false;
        order = MemOrder::Relaxed;
      }
    } else if (isScope) {
      scope = na.value.empty() ? std::nullopt : parseScope(na.value);
      scopeLoc = na.valueLoc;
      e.scopeGiven = true;
      if (!scope) {
        error(na.valueLoc,
              na.value.empty() ? std::string("expected a scope name")
                               : "unknown memory scope '" + na.value + "'",
              "scopes are cta, cluster, gpu, sys");
        ok = false;
        scope = MemScope::Gpu;
      }
    } else if (isMemoryHintName(na.name) && isMemoryBuiltin(e.builtin)) {
      continue; // takeMemoryHints (SemaCache.cpp) reads these
    } else {
      // What the call takes, nearest first: `vec = 8` is `vector = 8`.
      std::vector<std::string> names;
      if (allowOrder)
        names.push_back("order");
      if (allowScope)
        names.push_back("scope");
      if (e.builtin == Builtin::Load)
        names.push_back("vector");
      if (e.builtin == Builtin::Load || e.builtin == Builtin::Store)
        names.insert(names.end(), {"cache", "evict", "prefetch", "policy"});
      std::string list;
      for (size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + ("`" + names[i] + " =`");
      std::vector<std::string> near = nearestAmong(na.name, names, 1, 3);
      error(na.loc, "unknown named argument '" + na.name + "'",
            (near.empty() ? std::string() : "did you mean `" + near[0] + " =`? ") + "'" + e.callee +
                "' takes " + (names.size() == 1 ? "only " : "") + list);
      ok = false;
    }
  }
  return ok;
}

Type Sema::checkMemoryCall(CallExpr &e) {
  Builtin b = e.builtin;
  size_t nargs = b == Builtin::Load ? 1 : b == Builtin::AtomicCas ? 3 : 2;
  if (!checkArgCount(e, nargs, nargs))
    return Type::invalid();
  // Named arguments.
  std::optional<MemOrder> order;
  std::optional<MemScope> scope;
  Location orderLoc, scopeLoc;
  bool ok = parseOrderScope(e, true, true, order, scope, orderLoc, scopeLoc);
  ok = takeMemoryHints(e) && ok;
  e.order = order.value_or(MemOrder::Relaxed);
  if (order) {
    bool allowed = true;
    if (b == Builtin::Load)
      allowed =
          *order == MemOrder::Relaxed || *order == MemOrder::Acquire || *order == MemOrder::Sc;
    else if (b == Builtin::Store)
      allowed =
          *order == MemOrder::Relaxed || *order == MemOrder::Release || *order == MemOrder::Sc;
    if (!allowed) {
      error(orderLoc, std::string("order '") + orderName(*order) + "' is not valid for " + e.callee,
            b == Builtin::Load ? "loads take relaxed, acquire or sc"
                               : "stores take relaxed, release or sc");
      ok = false;
    }
  }

  // The location: an element access whose address is used.
  auto *loc = e.args[0]->as<IndexExpr>();
  Type elem;
  if (!loc) {
    // One error for the argument: its own (`load(nope)`: the unknown
    // name), else its shape; its literals take no type (`load(5000000000)`
    // is a misplaced location, not a literal too wide for i32).
    size_t errorsBefore = diags_.numErrors();
    infer(e.args[0]);
    abandonUntyped(e.args[0]);
    if (diags_.numErrors() == errorsBefore)
      error(e.args[0]->loc,
            "the first argument of " + e.callee + " must be an element access like `p[i]`",
            "write `" + e.callee + "(p[i], ...)`");
    ok = false;
  } else {
    elem = inferIndex(*loc, IndexUse::Address);
    loc->type = elem;
    if (elem.isInvalid())
      ok = false;
  }
  // store and every atomic write the location generically: never a ring's
  // tile (SemaRings.cpp owns the rule).
  if (!elem.isInvalid() && b != Builtin::Load &&
      !checkRingTileWrite(*loc->base, e.loc, "'" + e.callee + "'")) {
    elem = Type::invalid();
    ok = false;
  }
  if (!elem.isInvalid() && elem.kind == Type::MBarrier) {
    error(loc->loc, e.callee + " cannot access an mbarrier",
          "mbarriers are used only through arrive, arrive_expect_tx, expect_tx, wait and "
          "store_async");
    elem = Type::invalid();
    ok = false;
  }
  if (!elem.isInvalid()) {
    e.space = loc->space;
    ScalarKind k = elem.scalar;
    if (isAtomic(b)) {
      // u32/u64: atom.min.u32 / atom.max.u64 compare unsigned; f64 add is
      // atom.add.f64 (sm_60+), f16 and bf16 add atom.add.noftz.f16 (sm_70+)
      // and .bf16 (sm_90).
      bool floatAdd = k == ScalarKind::F32 || k == ScalarKind::F64 || k == ScalarKind::F16 ||
                      k == ScalarKind::BF16;
      bool typeOk = k == ScalarKind::I32 || k == ScalarKind::I64 || k == ScalarKind::U32 ||
                    k == ScalarKind::U64 || (floatAdd && b == Builtin::AtomicAdd);
      if (!typeOk) {
        error(loc->loc, e.callee + " does not support elements of type " + elem.str(),
              b == Builtin::AtomicAdd
                  ? "atomics take i32, i64, u32, u64, f16, bf16, f32 or f64 elements"
                  : "this atomic takes i32, i64, u32 or u64 elements (f16, bf16, f32 and f64 "
                    "support atomic_add only)");
        ok = false;
      }
    }
  }
  // Defaults: the narrowest scope that covers the address space.
  // Symmetric tensor elements (SemaPeer.cpp) are shared with other devices.
  MemScope minScope = e.space == AddressSpace::Shared     ? MemScope::Cta
                      : e.space == AddressSpace::Cluster  ? MemScope::Cluster
                      : loc && loc->base->type.isTensor() ? MemScope::Sys
                                                          : MemScope::Gpu;
  if (!elem.isInvalid() && scope && e.space == AddressSpace::Cluster && *scope == MemScope::Cta) {
    error(scopeLoc, "scope 'cta' does not cover cluster shared memory",
          "use scope = cluster (or wider) for accesses to another CTA's shared memory");
    ok = false;
  }
  e.scope = scope.value_or(minScope);

  if (!elem.isInvalid() && !checkMemoryHints(e, order.has_value()))
    ok = false;
  if (!elem.isInvalid() && b == Builtin::Load && e.hints.vector) {
    elem = checkVectorLoad(e, *loc, elem);
    if (elem.isInvalid())
      ok = false;
  }

  // Values.
  for (size_t i = 1; i < e.args.size(); ++i) {
    if (!elem.isInvalid() && b == Builtin::Store) {
      if (!checkStoreValue(e, loc, elem))
        ok = false;
      continue;
    }
    if (elem.isInvalid()) {
      infer(e.args[i]);
      abandonUntyped(e.args[i]);
      continue;
    }
    Type v = checkValue(e.args[i], &elem, "value of " + e.callee,
                        "convert the value with `as " + std::string(scalarName(elem.scalar)) + "`");
    if (v.isInvalid())
      ok = false;
  }
  // With cache hints or a vector and no `order =`, the access is plain
  // (weak) like `p[i]` (SemaCache.cpp).
  if (!order && (e.hints.any() || e.hints.vector))
    e.order = MemOrder::Weak;
  if (!ok)
    return Type::invalid();
  return b == Builtin::Store ? Type::voidTy() : elem;
}

} // namespace tile::frontend

namespace tile::frontend {
bool Sema::argsOfOneType(CallExpr &e, const Type &t) {
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    ExprPtr &a = e.args[i];
    if (a->type.isUntyped()) {
      if (!adapt(a, t))
        ok = false;
    } else if (a->type != t) {
      error(a->loc,
            "argument " + std::to_string(i + 1) + " of '" + e.callee + "' has type " +
                a->type.str() + ", expected " + t.str(),
            "all arguments of " + e.callee + " have one type; convert with `as`");
      ok = false;
    }
  }
  return ok;
}
} // namespace tile::frontend
