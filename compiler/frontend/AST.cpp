//===- AST.cpp - names of AST enums ----------------------------------------===//
#include "tilec/frontend/AST.h"
#include "CudaNames.h"
#include "NearestNames.h"
#include "tile/nearest_names.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

namespace tile::frontend {

const char *declKindName(DeclKind k) {
  switch (k) {
  case DeclKind::Param:
    return "param";
  case DeclKind::Let:
    return "let";
  case DeclKind::Var:
    return "var";
  case DeclKind::LoopVar:
    return "loopvar";
  case DeclKind::SharedArray:
    return "shared";
  case DeclKind::DSharedArray:
    return "dshared";
  case DeclKind::Ring:
    return "ring";
  case DeclKind::RingStage:
    return "ring stage";
  case DeclKind::MBarrier:
    return "mbarrier";
  case DeclKind::TypeParam:
    return "type parameter";
  case DeclKind::Const:
    return "const";
  case DeclKind::LocalArray:
    return "local";
  }
  return "?";
}

const char *unaryOpSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  }
  return "?";
}

const char *binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::LogicalAnd:
    return "&&";
  case BinaryOp::LogicalOr:
    return "||";
  }
  return "?";
}

bool isComparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le ||
         op == BinaryOp::Gt || op == BinaryOp::Ge;
}

bool isShift(BinaryOp op) { return op == BinaryOp::Shl || op == BinaryOp::Shr; }

void forEachStmtIn(const Block &b, const std::function<void(const StmtAST &)> &f) {
  for (const StmtPtr &s : b) {
    f(*s);
    if (auto *fs = s->as<ForStmt>()) {
      forEachStmtIn(fs->body, f);
    } else if (auto *w = s->as<WhileStmt>()) {
      forEachStmtIn(w->body, f);
    } else if (auto *i = s->as<IfStmt>()) {
      forEachStmtIn(i->thenBody, f);
      forEachStmtIn(i->elseBody, f);
    } else if (auto *g = s->as<WarpgroupsStmt>()) {
      for (const auto &role : g->roles)
        forEachStmtIn(role->body, f);
    } else if (auto *ra = s->as<RingAccessStmt>()) {
      forEachStmtIn(ra->body, f);
    }
  }
}

void forEachExprIn(const Block &b, const std::function<void(const ExprAST &)> &f) {
  auto expr = [&](const ExprPtr &e) {
    if (e)
      f(*e);
  };
  forEachStmtIn(b, [&](const StmtAST &s) {
    if (auto *es = s.as<ExprStmtAST>()) {
      expr(es->expr);
    } else if (auto *l = s.as<LetStmt>()) {
      expr(l->init);
    } else if (auto *a = s.as<AssignStmt>()) {
      expr(a->target);
      expr(a->value);
    } else if (auto *r = s.as<ReturnStmt>()) {
      expr(r->value);
      for (const ExprPtr &v : r->values)
        expr(v);
    } else if (auto *fs = s.as<ForStmt>()) {
      expr(fs->start);
      expr(fs->end);
      expr(fs->step);
    } else if (auto *w = s.as<WhileStmt>()) {
      expr(w->cond);
    } else if (auto *i = s.as<IfStmt>()) {
      expr(i->cond);
    }
  });
}

void forEachOperand(const ExprAST &e, const std::function<void(const ExprAST &)> &fn) {
  auto f = [&](const ExprAST *x) {
    if (x)
      fn(*x);
  };
  if (auto *u = e.as<UnaryExpr>()) {
    f(u->operand.get());
  } else if (auto *b = e.as<BinaryExpr>()) {
    f(b->lhs.get());
    f(b->rhs.get());
  } else if (auto *c = e.as<CastExpr>()) {
    f(c->operand.get());
  } else if (auto *ix = e.as<IndexExpr>()) {
    f(ix->base.get());
    f(ix->index.get());
    for (const ExprPtr &m : ix->moreIndices)
      f(m.get());
  } else if (auto *m = e.as<MemberExpr>()) {
    f(m->base.get());
  } else if (auto *v = e.as<VectorExpr>()) {
    for (const ExprPtr &x : v->elems)
      f(x.get());
  } else if (auto *call = e.as<CallExpr>()) {
    for (const ExprPtr &a : call->args)
      f(a.get());
    for (const NamedArg &na : call->namedArgs)
      f(na.expr.get());
  } else if (auto *sel = e.as<SelectExpr>()) {
    f(sel->cond.get());
    f(sel->trueValue.get());
    f(sel->falseValue.get());
  }
}

namespace {
struct BuiltinName {
  Builtin b;
  const char *name;
  const char *signature; // as docs/reference/builtins.md writes it
};
const BuiltinName kBuiltins[] = {
    {Builtin::ThreadId, "thread_id", "thread_id([axis])"},
    {Builtin::BlockDim, "block_dim", "block_dim([axis])"},
    {Builtin::BlockId, "block_id", "block_id([axis])"},
    {Builtin::GridDim, "grid_dim", "grid_dim([axis])"},
    {Builtin::ClusterRank, "cluster_rank", "cluster_rank()"},
    {Builtin::ClusterSize, "cluster_size", "cluster_size()"},
    {Builtin::ClusterId, "cluster_id", "cluster_id([axis])"},
    {Builtin::ClusterDim, "cluster_dim", "cluster_dim([axis])"},
    {Builtin::BlockInCluster, "block_in_cluster", "block_in_cluster([axis])"},
    {Builtin::NumClusters, "num_clusters", "num_clusters([axis])"},
    {Builtin::LaneId, "lane_id", "lane_id()"},
    {Builtin::WarpId, "warp_id", "warp_id()"},
    {Builtin::Min, "min", "min(a: T, b: T)"},
    {Builtin::Max, "max", "max(a: T, b: T)"},
    {Builtin::Clamp, "clamp", "clamp(x: T, lo: T, hi: T)"},
    {Builtin::Len, "len", "len(a)"},
    {Builtin::SyncThreads, "sync_threads", "sync_threads()"},
    {Builtin::SyncThreadsCount, "sync_threads_count", "sync_threads_count(p: i1)"},
    {Builtin::SyncThreadsAnd, "sync_threads_and", "sync_threads_and(p: i1)"},
    {Builtin::SyncThreadsOr, "sync_threads_or", "sync_threads_or(p: i1)"},
    {Builtin::ClusterSync, "cluster_sync", "cluster_sync()"},
    {Builtin::Remote, "remote", "remote(a, rank: I)"},
    {Builtin::Load, "load",
     "load(LOC[, order =, scope =, cache =, evict =, prefetch =, policy =, vector =])"},
    {Builtin::Store, "store", "store(LOC, VALUE[, order =, scope =, cache =, evict =, policy =])"},
    {Builtin::AtomicAdd, "atomic_add", "atomic_add(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicMin, "atomic_min", "atomic_min(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicMax, "atomic_max", "atomic_max(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicExch, "atomic_exch", "atomic_exch(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicAnd, "atomic_and", "atomic_and(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicOr, "atomic_or", "atomic_or(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicXor, "atomic_xor", "atomic_xor(LOC, VALUE[, order =, scope =])"},
    {Builtin::AtomicCas, "atomic_cas", "atomic_cas(LOC, COMPARE, VALUE[, order =, scope =])"},
    {Builtin::Arrive, "arrive", "arrive(B[, order =, scope =])"},
    {Builtin::ArriveExpectTx, "arrive_expect_tx",
     "arrive_expect_tx(B, BYTES: i32[, order =, scope =])"},
    {Builtin::ExpectTx, "expect_tx", "expect_tx(B, BYTES: i32[, scope =])"},
    {Builtin::Wait, "wait",
     "wait(B[, order =, scope =]) (no phase argument: the compiler tracks each "
     "mbarrier's phase); a semaphore: wait(sem[i], v)"},
    {Builtin::StoreAsync, "store_async", "store_async(DST, VALUE, B)"},
    {Builtin::Fence, "fence", "fence([order = acq_rel|sc, scope =])"},
    {Builtin::FenceProxyAsync, "fence_proxy_async", "fence_proxy_async()"},
    {Builtin::Nanosleep, "nanosleep", "nanosleep(ns: u32)"},
    {Builtin::StaticAssert, "static_assert", "static_assert(COND: a compile-time i1)"},
    {Builtin::FenceMBarrierInit, "fence_mbarrier_init", "fence_mbarrier_init()"},
    {Builtin::ClusterArrive, "cluster_arrive", "cluster_arrive([order = release|relaxed])"},
    {Builtin::ClusterWait, "cluster_wait", "cluster_wait()"},
    {Builtin::WarpgroupRank, "warpgroup_rank", "warpgroup_rank()"},
    {Builtin::RoleThreadId, "role_thread_id", "role_thread_id()"},
    {Builtin::RoleThreads, "role_threads", "role_threads()"},
    {Builtin::ElectOne, "elect_one", "elect_one()"},
    {Builtin::Bitcast, "bitcast", "bitcast<T>(x)"},
    {Builtin::Popc, "popc", "popc(x)"},
    {Builtin::Clz, "clz", "clz(x)"},
    {Builtin::Ctz, "ctz", "ctz(x)"},
    {Builtin::Brev, "brev", "brev(x)"},
    {Builtin::Bfind, "bfind", "bfind(x)"},
    {Builtin::MulHi, "mul_hi", "mul_hi(a: I, b: I)"},
    {Builtin::CopyAsync, "copy_async", "copy_async(TILE, A[c0, ...], B[, multicast = x|y|z|all])"},
    {Builtin::PrefetchTensor, "prefetch_tensor", "prefetch_tensor(A[c0, ...])"},
    {Builtin::Dim, "dim", "dim(t, d)"},
    {Builtin::ShflUp, "shfl_up", "shfl_up(v: T, d: i32[, width =, mask =])"},
    {Builtin::ShflDown, "shfl_down", "shfl_down(v: T, d: i32[, width =, mask =])"},
    {Builtin::ShflXor, "shfl_xor", "shfl_xor(v: T, m: i32[, width =, mask =])"},
    {Builtin::ShflIdx, "shfl_idx", "shfl_idx(v: T, src: i32[, width =, mask =])"},
    {Builtin::VoteAny, "vote_any", "vote_any(p: i1[, mask =])"},
    {Builtin::VoteAll, "vote_all", "vote_all(p: i1[, mask =])"},
    {Builtin::VoteBallot, "vote_ballot", "vote_ballot(p: i1[, mask =])"},
    {Builtin::ReduxAdd, "redux_add", "redux_add(v: i32[, mask =])"},
    {Builtin::ReduxMin, "redux_min", "redux_min(v: i32[, mask =])"},
    {Builtin::ReduxMax, "redux_max", "redux_max(v: i32[, mask =])"},
    {Builtin::ReduxAnd, "redux_and", "redux_and(v: i32[, mask =])"},
    {Builtin::ReduxOr, "redux_or", "redux_or(v: i32[, mask =])"},
    {Builtin::ReduxXor, "redux_xor", "redux_xor(v: i32[, mask =])"},
    {Builtin::MatchAny, "match_any", "match_any(v: T[, mask =])"},
    {Builtin::MatchAll, "match_all", "match_all(v: T[, mask =])"},
    {Builtin::SyncWarp, "sync_warp", "sync_warp([mask = m])"},
    {Builtin::LaneMaskLt, "lanemask_lt", "lanemask_lt()"},
    {Builtin::LaneMaskLe, "lanemask_le", "lanemask_le()"},
    {Builtin::LaneMaskEq, "lanemask_eq", "lanemask_eq()"},
    {Builtin::LaneMaskGe, "lanemask_ge", "lanemask_ge()"},
    {Builtin::LaneMaskGt, "lanemask_gt", "lanemask_gt()"},
    {Builtin::Fma, "fma", "fma(a, b, c)"},
    {Builtin::Abs, "abs", "abs(x)"},
    {Builtin::Sqrt, "sqrt", "sqrt(x)"},
    {Builtin::Rsqrt, "rsqrt", "rsqrt(x)"},
    {Builtin::Exp, "exp", "exp(x)"},
    {Builtin::Exp2, "exp2", "exp2(x)"},
    {Builtin::Log, "log", "log(x)"},
    {Builtin::Log2, "log2", "log2(x)"},
    {Builtin::Sin, "sin", "sin(x)"},
    {Builtin::Cos, "cos", "cos(x)"},
    {Builtin::Tanh, "tanh", "tanh(x)"},
    {Builtin::Erf, "erf", "erf(x)"},
    {Builtin::Pow, "pow", "pow(x, y)"},
    {Builtin::Log1p, "log1p", "log1p(x)"},
    {Builtin::Expm1, "expm1", "expm1(x)"},
    {Builtin::Log10, "log10", "log10(x)"},
    {Builtin::Exp10, "exp10", "exp10(x)"},
    {Builtin::Cbrt, "cbrt", "cbrt(x)"},
    {Builtin::Atan, "atan", "atan(x)"},
    {Builtin::Asin, "asin", "asin(x)"},
    {Builtin::Acos, "acos", "acos(x)"},
    {Builtin::Sinh, "sinh", "sinh(x)"},
    {Builtin::Cosh, "cosh", "cosh(x)"},
    {Builtin::Erfc, "erfc", "erfc(x)"},
    {Builtin::Atan2, "atan2", "atan2(y, x)"},
    {Builtin::Hypot, "hypot", "hypot(x, y)"},
    {Builtin::Fmod, "fmod", "fmod(x, y)"},
    {Builtin::Floor, "floor", "floor(x)"},
    {Builtin::Ceil, "ceil", "ceil(x)"},
    {Builtin::Round, "round", "round(x)"},
    {Builtin::Rint, "rint", "rint(x)"},
    {Builtin::Trunc, "trunc", "trunc(x)"},
    {Builtin::Copysign, "copysign", "copysign(a, b)"},
    {Builtin::CachePolicy, "cache_policy", "cache_policy(PRIORITY[, fraction = F])"},
    {Builtin::Pack, "pack", "pack(a, b, ...)"},
    {Builtin::Zeros, "zeros", "zeros<T>[M, N]"},
    {Builtin::Mma, "mma", "mma(a, b, acc)"},
    {Builtin::Rows, "rows", "rows(t, i, n)"},
    {Builtin::Trans, "trans", "trans(v)"},
    {Builtin::FragRow, "frag_row", "frag_row(f)"},
    {Builtin::FragCol, "frag_col", "frag_col(f)"},
    {Builtin::LoadPerCol, "load_per_col", "load_per_col(p, f[, cols = n])"},
    {Builtin::LoadPerRow, "load_per_row", "load_per_row(p, f[, rows = n])"},
    {Builtin::LoadFrag, "load_frag", "load_frag(p, f, row_stride = ld[, rows = n])"},
    {Builtin::Cols, "cols", "cols(f, j, w)"},
    {Builtin::RowMax, "row_max", "row_max(f)"},
    {Builtin::RowSum, "row_sum", "row_sum(f)"},
    {Builtin::Select, "select", "select(m, a, b)"},
};
} // namespace

bool isTileViewBuiltin(Builtin b) { return b == Builtin::Rows || b == Builtin::Trans; }

bool isFragmentMathBuiltin(Builtin b) {
  switch (b) {
  case Builtin::Exp2:
  case Builtin::Exp:
  case Builtin::Log2:
  case Builtin::Log:
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Sin:
  case Builtin::Cos:
  case Builtin::Tanh:
  case Builtin::Abs:
    return true;
  default:
    return isLibdeviceOnlyMath(b);
  }
}

bool isLibdeviceOnlyMath(Builtin b) {
  switch (b) {
  case Builtin::Erf:
  case Builtin::Pow:
  case Builtin::Log1p:
  case Builtin::Expm1:
  case Builtin::Log10:
  case Builtin::Exp10:
  case Builtin::Cbrt:
  case Builtin::Atan:
  case Builtin::Asin:
  case Builtin::Acos:
  case Builtin::Sinh:
  case Builtin::Cosh:
  case Builtin::Erfc:
  case Builtin::Atan2:
  case Builtin::Hypot:
  case Builtin::Fmod:
    return true;
  default:
    return false;
  }
}

const char *builtinSignature(Builtin b) {
  for (const BuiltinName &n : kBuiltins)
    if (n.b == b)
      return n.signature;
  return "";
}

const char *builtinName(Builtin b) {
  for (const BuiltinName &n : kBuiltins)
    if (n.b == b)
      return n.name;
  return "<unknown>";
}

Builtin builtinFromName(const std::string &name) {
  for (const BuiltinName &n : kBuiltins)
    if (name == n.name)
      return n.b;
  return Builtin::Unknown;
}

bool isTypeQueryName(const std::string &name) {
  return name == "size_of" || name == "is_float" || name == "is_int";
}

std::string builtinNameList() {
  std::string list;
  for (const BuiltinName &n : kBuiltins)
    list += (list.empty() ? "" : ", ") + std::string(n.name);
  return list;
}

using tile::editDistance; // (tile/nearest_names.h: header-only, shared with the runtime)

/// Edits between two names with case ignored, as the runtime's lookups
/// count them: `MIN` is `min` misspelled, not three edits from `abs`.
static size_t nameDistance(const std::string &a, const std::string &b) {
  auto lower = [](std::string s) {
    for (char &c : s)
      c = (char)std::tolower((unsigned char)c);
    return s;
  };
  return editDistance(lower(a), lower(b));
}

std::string closestBuiltin(const std::string &name) {
  // What other languages call a builtin, where edit distance would not find
  // it (Triton's where, PyTorch's matmul): the one table of CudaNames.h.
  if (std::string other = cudaNameBuiltin(name); !other.empty())
    return other;
  std::string best;
  if (name.size() < 3)
    return best; // too short for a meaningful guess
  size_t bestDistance = std::max<size_t>(1, name.size() / 3) + 1;
  for (const BuiltinName &n : kBuiltins) {
    size_t d = nameDistance(name, n.name);
    if (d < bestDistance) {
      bestDistance = d;
      best = n.name;
    }
  }
  return best;
}

std::vector<std::string> nearestNames(const std::string &name,
                                      const std::vector<std::string> &more, size_t count) {
  std::vector<std::string> all;
  for (const BuiltinName &n : kBuiltins)
    all.push_back(n.name);
  all.insert(all.end(), more.begin(), more.end());
  return nearestAmong(name, all, count, SIZE_MAX);
}

std::vector<std::string> nearestAmong(const std::string &name,
                                      const std::vector<std::string> &names, size_t count,
                                      size_t maxDistance) {
  struct Candidate {
    size_t distance, prefix;
    std::string name;
  };
  std::vector<Candidate> all;
  for (const std::string &n : names) {
    size_t prefix = 0;
    while (prefix < n.size() && prefix < name.size() && n[prefix] == name[prefix])
      ++prefix;
    size_t distance = nameDistance(name, n);
    if (distance <= maxDistance)
      all.push_back({distance, prefix, n});
  }
  std::sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) {
    if (a.distance != b.distance)
      return a.distance < b.distance;
    if (a.prefix != b.prefix)
      return a.prefix > b.prefix;
    return a.name < b.name;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < all.size() && out.size() < count; ++i)
    if (std::find(out.begin(), out.end(), all[i].name) == out.end())
      out.push_back(all[i].name);
  return out;
}

namespace {
/// Words of other languages, what tile writes instead (foreignWord,
/// foreignFileWord).
struct ForeignEntry {
  std::vector<const char *> words;
  const char *message; // "%" (if present) stands for the word
  const char *hint;
};

template <size_t N>
std::optional<ForeignWord> lookUpForeign(const ForeignEntry (&table)[N], const std::string &word) {
  for (const ForeignEntry &entry : table)
    for (const char *w : entry.words)
      if (word == w) {
        std::string message = entry.message;
        if (size_t at = message.find('%'); at != std::string::npos)
          message.replace(at, 1, word);
        return ForeignWord{message, entry.hint};
      }
  return std::nullopt;
}
} // namespace

std::optional<ForeignWord> foreignWord(const std::string &word) {
  static const ForeignEntry kTable[] = {
      {{"func", "function", "def", "fun", "proc", "void", "sub"},
       "functions are declared with `fn`, not '%'",
       "`fn NAME(PARAM: TYPE, ...) -> TYPE { ... }` at file level"},
      {{"elif", "elsif", "elseif"},
       "tile has no '%'; write `else if`",
       "`if a { } else if b { } else { }`"},
      {{"auto", "int", "float", "double", "unsigned", "long", "short", "char", "bool", "static",
        "mut", "val", "let_mut", "uint", "size_t"},
       "variables are declared with `let` or `var`, not '%'",
       "`let x: i32 = 1` (immutable) or `var acc = 0.0` (mutable)"},
      {{"switch", "match", "case", "do", "loop", "until", "goto", "try", "catch", "throw", "yield",
        "foreach"},
       "tile has no '%' statement",
       "statements are let, var, assignments, if/else, for, while, break, continue, return and "
       "builtin calls"},
      {{"__shared__"},
       "CUDA's __shared__ array is `let NAME = shared<T>[N]` in tile",
       "`__shared__ float s[256]` is `let s = shared<f32>[256]`; a 2-D `s[32][33]` is "
       "`shared<f32>[32, 33]`, indexed `s[i, j]`"},
      {{"and", "or", "not"},
       "there is no '%' operator",
       "the logical operators are `&&`, `||` and `!` (on i1 values: compare first, `x != 0`)"},
      {{"null", "nil", "nullptr", "NULL", "None", "undefined"},
       "there are no null pointers ('%')",
       "pointers come from kernel parameters; pass a count or a flag to mark absent data"},
  };
  std::optional<ForeignWord> found = lookUpForeign(kTable, word);
  // C's `float x = ...`: the binding with the type tile names it by.
  if (std::optional<std::string> type = cTypeName(word); found && type && !type->empty())
    found->hint = "C's `" + word + " x = ...` is `let x: " + *type + " = ...` (`var x: " + *type +
                  "` for one that changes)";
  return found;
}

std::optional<ForeignWord> foreignFileWord(const std::string &word) {
  static const ForeignEntry kTable[] = {
      {{"__global__"},
       "CUDA's __global__ function is a `kernel` in tile",
       "`kernel NAME(p: ptr<f32, global>, n: i32) threads(256) { ... }`: parameters are written "
       "`NAME: TYPE`, and the block shape is an attribute"},
      {{"__device__", "__host__", "__forceinline__", "__noinline__", "inline", "static",
        "constexpr"},
       "a device function is an `fn` in tile, not '%'",
       "`fn NAME(PARAM: TYPE, ...) -> TYPE { ... }` at file level (every call is inlined); a "
       "constant is `const NAME = VALUE`"},
      {{"template"},
       "tile has no templates",
       "compile-time parameters are written `kernel k<N: i32, T: type>(...)` (or `fn f<T: "
       "type>(...)`), and -D picks the instances: `tilec -D N=128 -D T=f16`"},
      {{"static_assert"},
       "static_assert is a statement, not a file-level declaration",
       "write it at the top of the kernel or `fn` whose constants it checks (`static_assert(BM % "
       "64 == 0)`): it is checked in each instance, with the instance's values"},
      {{"struct", "class", "union", "enum", "typedef", "using", "namespace", "import", "include",
        "module", "package", "extern"},
       "tile has no '%' declarations",
       "a file holds kernels, `fn` functions and `const` constants; pass the fields of a struct "
       "as separate parameters"},
  };
  if (auto found = lookUpForeign(kTable, word))
    return found;
  return foreignWord(word);
}

bool isAtomic(Builtin b) { return b >= Builtin::AtomicAdd && b <= Builtin::AtomicCas; }
bool isMemoryBuiltin(Builtin b) { return b == Builtin::Load || b == Builtin::Store || isAtomic(b); }

bool isIdBuiltin(Builtin b) {
  switch (b) {
  case Builtin::ThreadId:
  case Builtin::BlockDim:
  case Builtin::BlockId:
  case Builtin::GridDim:
  case Builtin::ClusterId:
  case Builtin::ClusterDim:
  case Builtin::BlockInCluster:
  case Builtin::NumClusters:
    return true;
  default:
    return false;
  }
}
bool isMBarrierBuiltin(Builtin b) {
  return b == Builtin::Arrive || b == Builtin::ArriveExpectTx || b == Builtin::ExpectTx ||
         b == Builtin::Wait;
}

bool isWarpBuiltin(Builtin b) {
  return static_cast<int>(b) >= static_cast<int>(Builtin::ShflUp) &&
         static_cast<int>(b) <= static_cast<int>(Builtin::LaneMaskGt);
}

bool isWarpCollective(Builtin b) {
  return isWarpBuiltin(b) && static_cast<int>(b) < static_cast<int>(Builtin::LaneMaskLt);
}

bool isMathBuiltin(Builtin b) {
  return static_cast<int>(b) >= static_cast<int>(Builtin::Fma) &&
         static_cast<int>(b) <= static_cast<int>(Builtin::Copysign);
}

const char *orderName(MemOrder o) {
  switch (o) {
  case MemOrder::Weak:
    return "weak";
  case MemOrder::Relaxed:
    return "relaxed";
  case MemOrder::Acquire:
    return "acquire";
  case MemOrder::Release:
    return "release";
  case MemOrder::AcqRel:
    return "acq_rel";
  case MemOrder::Sc:
    return "sc";
  }
  return "?";
}

const char *scopeName(MemScope s) {
  switch (s) {
  case MemScope::Cta:
    return "cta";
  case MemScope::Cluster:
    return "cluster";
  case MemScope::Gpu:
    return "gpu";
  case MemScope::Sys:
    return "sys";
  }
  return "?";
}

const char *assignOpSpelling(AssignOp op) {
  switch (op) {
  case AssignOp::Assign:
    return "=";
  case AssignOp::Add:
    return "+=";
  case AssignOp::Sub:
    return "-=";
  case AssignOp::Mul:
    return "*=";
  case AssignOp::Div:
    return "/=";
  case AssignOp::Rem:
    return "%=";
  case AssignOp::BitAnd:
    return "&=";
  case AssignOp::BitOr:
    return "|=";
  case AssignOp::BitXor:
    return "^=";
  case AssignOp::Shl:
    return "<<=";
  case AssignOp::Shr:
    return ">>=";
  }
  return "?";
}

std::optional<BinaryOp> assignBinaryOp(AssignOp op) {
  switch (op) {
  case AssignOp::Assign:
    return std::nullopt;
  case AssignOp::Add:
    return BinaryOp::Add;
  case AssignOp::Sub:
    return BinaryOp::Sub;
  case AssignOp::Mul:
    return BinaryOp::Mul;
  case AssignOp::Div:
    return BinaryOp::Div;
  case AssignOp::Rem:
    return BinaryOp::Rem;
  case AssignOp::BitAnd:
    return BinaryOp::BitAnd;
  case AssignOp::BitOr:
    return BinaryOp::BitOr;
  case AssignOp::BitXor:
    return BinaryOp::BitXor;
  case AssignOp::Shl:
    return BinaryOp::Shl;
  case AssignOp::Shr:
    return BinaryOp::Shr;
  }
  return std::nullopt;
}

const char *forKindName(ForKind k) {
  switch (k) {
  case ForKind::Range:
    return "range";
  case ForKind::BlockRange:
    return "block_range";
  case ForKind::GridRange:
    return "grid_range";
  }
  return "?";
}

} // namespace tile::frontend
