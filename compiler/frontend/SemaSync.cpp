//===- SemaSync.cpp - mbarriers, st.async, fences, split cluster barriers --===//
//
// The mbarrier builtins. mbarrier operands are `b`, `s[i]` (type mbarrier, space shared)
// and `remote(b, r)` / `remote(s[i], r)` (type mbarrier<cluster>). Users never
// write init or parity: the compiler initialises every mbarrier and tracks the
// phase of every wait.
//
// Besides typing, this file holds the kernel-wide sync checks that can be
// decided statically (checkMBarrierUses): a wait on an mbarrier nothing
// arrives on, and expect_tx byte counts that differ from what the store_async
// calls completing on the mbarrier deliver; and, per CTA rank of a static
// cluster, waits that no arrival reaches (checkWaitsReachArrivals).
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "tilec/Target/ClusterGeometry.h"

namespace tile::frontend {

namespace {
/// The index expression of `s[i]` / `remote(s[i], r)`; nullptr for a single mbarrier.
const ExprAST *mbarrierIndexOf(const ExprAST &e) {
  if (auto *i = e.as<IndexExpr>())
    return i->index.get();
  if (auto *c = e.as<CallExpr>(); c && c->builtin == Builtin::Remote && !c->args.empty())
    return mbarrierIndexOf(*c->args[0]);
  return nullptr;
}

/// Whether two mbarrier-array indices name the same element: 1 yes, 0 no, -1 unknown.
int sameIndex(const ExprAST *a, const ExprAST *b) {
  if (!a || !b)
    return a == b ? 1 : -1;
  auto *la = a->as<IntLiteralExpr>(), *lb = b->as<IntLiteralExpr>();
  if (la && lb)
    return la->value == lb->value ? 1 : 0;
  auto *va = a->as<VarRefExpr>(), *vb = b->as<VarRefExpr>();
  if (va && vb && va->decl && va->decl == vb->decl)
    return 1;
  return -1;
}
} // namespace

MBarrierStmt *mbarrierDeclOf(const ExprAST &e) {
  if (auto *v = e.as<VarRefExpr>())
    return v->decl && v->decl->kind == DeclKind::MBarrier ? v->decl->mbarrier : nullptr;
  if (auto *i = e.as<IndexExpr>())
    return mbarrierDeclOf(*i->base);
  if (auto *c = e.as<CallExpr>(); c && c->builtin == Builtin::Remote && !c->args.empty())
    return mbarrierDeclOf(*c->args[0]);
  return nullptr;
}

Type Sema::checkMBarrierOperand(CallExpr &e, size_t i, bool localOnly) {
  ExprPtr &a = e.args[i];
  Type t = infer(a);
  if (t.isUntyped())
    t = finalize(a);
  if (t.isInvalid())
    return t;
  if (t.kind == Type::MBarrierArray) {
    std::string name = a->is<VarRefExpr>() ? a->as<VarRefExpr>()->name : "s";
    error(a->loc, e.callee + "() needs an mbarrier, found " + t.str(),
          "pick one mbarrier of the array: `" + name + "[i]`");
    return Type::invalid();
  }
  if (!t.isMBarrier()) {
    error(a->loc, e.callee + "() needs an mbarrier, found " + t.str(),
          "declare one at the top of the kernel with `let b = mbarrier(COUNT)`");
    return Type::invalid();
  }
  if (localOnly && t.space == AddressSpace::Cluster) {
    error(a->loc, e.callee + "() needs this CTA's mbarrier, not a remote one",
          e.builtin == Builtin::Wait ? "wait on this CTA's mbarrier (`wait(b)`); peers arrive on "
                                       "it with `arrive(remote(b, r))`"
                                     : "expect bytes on this CTA's mbarrier; peers complete them "
                                       "with `store_async(..., remote(b, r))`");
    return Type::invalid();
  }
  return t;
}

Type Sema::checkMBarrierCall(CallExpr &e) {
  Builtin b = e.builtin;
  bool withBytes = b == Builtin::ArriveExpectTx || b == Builtin::ExpectTx;
  size_t n = withBytes ? 2 : 1;
  if (!checkArgCount(e, n, n))
    return Type::invalid();
  std::optional<MemOrder> order;
  std::optional<MemScope> scope;
  Location orderLoc, scopeLoc;
  bool ok = parseOrderScope(e, b != Builtin::ExpectTx, true, order, scope, orderLoc, scopeLoc);

  Type bar = checkMBarrierOperand(e, 0, /*localOnly=*/b != Builtin::Arrive);
  bool remote = !bar.isInvalid() && bar.space == AddressSpace::Cluster;
  if (bar.isInvalid())
    ok = false;
  else
    e.space = bar.space;

  // Orders: arrive is a release (or relaxed) operation, wait an acquire (or relaxed) one.
  if (order) {
    bool allowed = b == Builtin::Wait
                       ? (*order == MemOrder::Relaxed || *order == MemOrder::Acquire)
                       : (*order == MemOrder::Relaxed || *order == MemOrder::Release);
    if (!allowed) {
      error(orderLoc, std::string("order '") + orderName(*order) + "' is not valid for " + e.callee,
            e.callee + (b == Builtin::Wait ? " takes order = relaxed or acquire"
                                           : " takes order = relaxed or release"));
      ok = false;
    }
  }
  if (scope) {
    if (*scope != MemScope::Cta && *scope != MemScope::Cluster) {
      error(scopeLoc, std::string("scope '") + scopeName(*scope) + "' is not valid for " + e.callee,
            "mbarrier operations take scope = cta or cluster");
      ok = false;
    } else if (remote && *scope == MemScope::Cta) {
      error(scopeLoc, "scope 'cta' does not cover cluster shared memory",
            "use scope = cluster for an mbarrier in another CTA");
      ok = false;
    }
  }
  // Only what the user wrote: an open order/scope is decided on the IR, by
  // tile-sync-semantics, the one owner of that decision.
  if (order)
    e.order = *order;
  if (scope)
    e.scope = *scope;

  // Transaction bytes: an i32, in 0 .. 2^20-1 when constant.
  std::optional<int64_t> bytes;
  if (withBytes) {
    Type i32 = Type::i32();
    Type t = checkValue(e.args[1], &i32, "byte count of " + e.callee, "convert it with `as i32`");
    if (t.isInvalid() || !checkConstantOps(*e.args[1])) {
      ok = false;
    } else {
      bool overflow = false;
      bytes = foldConstant(*e.args[1], overflow);
      if (overflow || (bytes && (*bytes < 0 || *bytes > target::kMaxMBarrierTxBytes))) {
        error(e.args[1]->loc,
              overflow
                  ? std::string("transaction byte count overflows")
                  : "transaction byte count " + std::to_string(*bytes) + " is out of range (0 to " +
                        std::to_string(target::kMaxMBarrierTxBytes) + ")",
              "one phase of an mbarrier expects at most " +
                  std::to_string(target::kMaxMBarrierTxBytes) + " bytes");
        ok = false;
        bytes.reset();
      }
    }
  }

  // Even a call in error counts as an arrival (no cascading "nothing arrives").
  if (MBarrierStmt *d = mbarrierDeclOf(*e.args[0])) {
    MBarrierUses &u = mbarrierUses_[d];
    if (b == Builtin::Arrive || b == Builtin::ArriveExpectTx)
      u.arrived = true;
    if (b == Builtin::Wait && !bar.isInvalid())
      u.waits.push_back(&e);
    if (withBytes && !bar.isInvalid())
      u.expects.push_back({&e, ok ? bytes : std::nullopt});
  }
  return ok ? Type::voidTy() : Type::invalid();
}

Type Sema::checkStoreAsync(CallExpr &e) {
  if (!checkArgCount(e, 3, 3))
    return Type::invalid();
  bool ok = checkNoNamedArgs(e);
  if (!requireCluster(e.loc, "store_async()"))
    ok = false;
  e.space = AddressSpace::Cluster;
  e.order = MemOrder::Weak;
  e.scope = MemScope::Cluster;

  // DST: one element of another CTA's shared memory.
  Type elem;
  auto *dst = e.args[0]->as<IndexExpr>();
  if (dst) {
    elem = inferIndex(*dst, IndexUse::Address);
    dst->type = elem;
  } else {
    infer(e.args[0]);
    abandonUntyped(e.args[0]);
  }
  if (!dst || elem.kind == Type::MBarrier) {
    error(e.args[0]->loc,
          "the first argument of store_async must be an element access like `remote(a, r)[i]`",
          "store_async writes into another CTA's shared array: `remote(a, r)[i]` or a dshared "
          "element `h[i]`");
    elem = Type::invalid();
  } else if (!elem.isInvalid() && dst->space != AddressSpace::Cluster) {
    error(dst->loc,
          std::string("store_async writes to another CTA's shared memory, found an element in ") +
              spaceName(dst->space) + " memory",
          "write `remote(a, r)[i]` (shared array `a` in CTA r) or `h[i]` (a dshared element)");
    elem = Type::invalid();
  } else if (!elem.isInvalid() && !elem.isScalar(ScalarKind::I32) &&
             !elem.isScalar(ScalarKind::F32) && !elem.isScalar(ScalarKind::I64)) {
    error(dst->loc, "store_async does not support elements of type " + elem.str(),
          "store_async takes i32, f32 or i64 elements");
    elem = Type::invalid();
  }
  if (elem.isInvalid())
    ok = false;

  // VALUE: a scalar of the element type or a vector literal of 1, 2 or 4 (64-bit: 1 or 2) of them.
  int64_t width = 1;
  if (elem.isInvalid()) {
    resolveOnly(e.args[1]);
  } else if (auto *vec = e.args[1]->as<VectorExpr>()) {
    width = (int64_t)vec->elems.size();
    bool wide = bitWidth(elem.scalar) == 64;
    if (wide ? width > 2 : (width != 1 && width != 2 && width != 4)) {
      error(vec->loc,
            "store_async of " + elem.str() + " elements takes " + (wide ? "1 or 2" : "1, 2 or 4") +
                " values, found " + std::to_string(width),
            "st.async stores one, two or four 32-bit values, or one or two 64-bit values; split "
            "the store");
      ok = false;
    }
    for (size_t k = 0; k < vec->elems.size(); ++k) {
      Type v =
          checkValue(vec->elems[k], &elem, "value " + std::to_string(k + 1) + " of store_async",
                     "convert the value with `as " + std::string(scalarName(elem.scalar)) + "`");
      if (v.isInvalid())
        ok = false;
    }
    vec->type = elem;
  } else {
    Type v = checkValue(e.args[1], &elem, "value of store_async",
                        "convert the value with `as " + std::string(scalarName(elem.scalar)) + "`");
    if (v.isInvalid())
      ok = false;
  }

  // B: the receiving CTA's mbarrier, which completes the transaction bytes.
  Type bar = checkMBarrierOperand(e, 2, /*localOnly=*/false);
  if (!bar.isInvalid() && bar.space != AddressSpace::Cluster) {
    error(e.args[2]->loc, "store_async() needs a remote mbarrier, found " + bar.str(),
          "st.async completes on the receiving CTA's mbarrier: `remote(b, r)` with the "
          "destination's rank r");
    bar = Type::invalid();
  }
  if (bar.isInvalid())
    ok = false;
  if (ok && !checkStoreAsyncPlacement(e, *dst, width, elem.scalar))
    ok = false;
  if (ok)
    e.asyncBytes = width * byteSize(elem.scalar);
  if (MBarrierStmt *d = mbarrierDeclOf(*e.args[2])) {
    MBarrierUses &u = mbarrierUses_[d];
    u.arrived = true;
    if (ok)
      u.stores.push_back({&e, curBlock_, inSingleThread()});
    else
      u.storeUnknown = true;
  }
  return ok ? Type::voidTy() : Type::invalid();
}

namespace {
/// The shared array a store_async destination's base comes from: `a` of
/// `remote(a, r)`, `h` of `remote(h.local, r)` and of `h` itself; nullptr for
/// a view bound to a name (its length type still carries a constant length).
const SharedArrayStmt *arrayOfDestination(const ExprAST &base) {
  const ExprAST *e = &base;
  if (auto *c = e->as<CallExpr>(); c && c->builtin == Builtin::Remote && !c->args.empty())
    e = c->args[0].get();
  if (auto *m = e->as<MemberExpr>())
    e = m->base.get();
  auto *v = e->as<VarRefExpr>();
  return v && v->decl ? v->decl->array : nullptr;
}

/// The CTA rank expression of `remote(x, r)`; nullptr for anything else.
const ExprAST *remoteRankOf(const ExprAST &e) {
  auto *c = e.as<CallExpr>();
  return c && c->builtin == Builtin::Remote && c->args.size() == 2 ? c->args[1].get() : nullptr;
}
} // namespace

bool Sema::checkStoreAsyncPlacement(CallExpr &e, IndexExpr &dst, int64_t width, ScalarKind elem) {
  bool overflow = false;
  std::optional<int64_t> folded = foldConstant(*dst.index, overflow);
  // A known index and its value, as two scalars: GCC's -Wmaybe-uninitialized
  // misreads an optional's payload here.
  bool indexKnown = folded && !overflow;
  int64_t index = indexKnown ? *folded : 0;
  const Type &baseTy = dst.base->type;
  bool distributed = baseTy.kind == Type::DistArray;
  const SharedArrayStmt *array = arrayOfDestination(*dst.base);
  std::optional<int64_t> perBlock = array ? array->staticPerBlock : std::nullopt;
  // Elements the destination can hold: the array's length, or for a peer's
  // part of a dshared array (remote(h.local, r)) at most per_block.
  std::optional<int64_t> length = baseTy.staticLength;
  if (!distributed && array && array->distributed)
    length = perBlock;
  int64_t bytes = width * byteSize(elem);
  std::string vec = width == 1 ? "" : ".v" + std::to_string(width);
  std::string what =
      width == 1 ? "store_async" : "store_async of " + std::to_string(width) + " values";

  if (indexKnown && width > 1) {
    int64_t last = index + width - 1;
    // A scalar index out of range is reported by inferIndex already.
    if (length && (index < 0 || last >= *length)) {
      error(dst.index->loc,
            what + " at index " + std::to_string(index) + " writes elements " +
                std::to_string(index) + " .. " + std::to_string(last) + ", past the end of " +
                (length == baseTy.staticLength
                     ? baseTy.str()
                     : "the " + std::to_string(*length) + " elements of each CTA's part"),
            "a vector of " + std::to_string(width) + " starts at an index from 0 to " +
                std::to_string(*length - width) + "; store fewer values or start earlier");
      return false;
    }
    // Arrays start 16-byte aligned (docs/reference/memory.md, layout rule), so the
    // address is aligned when the element offset in the CTA's array is.
    std::optional<int64_t> offset;
    if (!distributed)
      offset = index;
    else if (perBlock)
      offset = index % *perBlock;
    if (offset && *offset % width != 0) {
      error(dst.index->loc,
            what + " at element offset " + std::to_string(*offset) + " is misaligned: st.async" +
                vec + ".b" + std::to_string(bitWidth(elem)) +
                (bytes == 8 ? " needs an " : " needs a ") + std::to_string(bytes) +
                "-byte aligned address",
            "start the vector at " +
                std::string(distributed ? "an offset in the owner's part" : "an index") +
                " that is a multiple of " + std::to_string(width) +
                ", or store the values separately");
      return false;
    }
  }

  // The CTA the stored elements land in must hold the mbarrier: st.async
  // completes its bytes on an mbarrier in the destination CTA (PTX ISA
  // 9.7.9.12 st.async).
  bool rankOverflow = false;
  std::optional<int64_t> barRank;
  if (const ExprAST *r = remoteRankOf(*e.args[2]))
    barRank = foldConstant(*r, rankOverflow);
  std::optional<int64_t> firstOwner, lastOwner;
  if (distributed && indexKnown && perBlock && index >= 0) {
    firstOwner = index / *perBlock;
    lastOwner = (index + width - 1) / *perBlock;
  } else if (!distributed) {
    if (const ExprAST *r = remoteRankOf(*dst.base))
      firstOwner = lastOwner = foldConstant(*r, rankOverflow);
  }
  if (firstOwner && lastOwner && *firstOwner != *lastOwner) {
    error(dst.index->loc,
          what + " at element " + std::to_string(index) + " of a dshared array spans CTAs " +
              std::to_string(*firstOwner) + " and " + std::to_string(*lastOwner) + " (" +
              std::to_string(perBlock.value_or(0)) + " elements per CTA)",
          "one st.async writes into one CTA: keep the vector inside one CTA's part, or store the "
          "values separately");
    return false;
  }
  if (!rankOverflow && barRank && firstOwner && *firstOwner != *barRank) {
    error(e.args[2]->loc,
          "store_async writes into CTA " + std::to_string(*firstOwner) +
              " but completes on the mbarrier of CTA " + std::to_string(*barRank),
          "st.async completes its bytes on an mbarrier in the CTA it writes to: give the mbarrier "
          "rank " +
              std::to_string(*firstOwner));
    return false;
  }
  return true;
}

Type Sema::checkFenceCall(CallExpr &e) {
  Builtin b = e.builtin;
  if (!checkArgCount(e, 0, 0))
    return Type::invalid();
  bool ok = true;
  switch (b) {
  case Builtin::Fence: {
    std::optional<MemOrder> order;
    std::optional<MemScope> scope;
    Location orderLoc, scopeLoc;
    ok = parseOrderScope(e, true, true, order, scope, orderLoc, scopeLoc);
    if (order && *order != MemOrder::AcqRel && *order != MemOrder::Sc) {
      error(orderLoc, std::string("order '") + orderName(*order) + "' is not valid for fence",
            "fence takes order = acq_rel or sc");
      ok = false;
    }
    if (order) // open ones: tile-sync-semantics
      e.order = *order;
    if (scope)
      e.scope = *scope;
    break;
  }
  case Builtin::ClusterArrive: {
    std::optional<MemOrder> order;
    std::optional<MemScope> scope;
    Location orderLoc, scopeLoc;
    ok = parseOrderScope(e, true, false, order, scope, orderLoc, scopeLoc);
    if (order && *order != MemOrder::Relaxed && *order != MemOrder::Release) {
      error(orderLoc,
            std::string("order '") + orderName(*order) + "' is not valid for cluster_arrive",
            "cluster_arrive takes order = relaxed or release");
      ok = false;
    }
    ok = requireCluster(e.loc, "cluster_arrive()") && ok;
    if (order) // an open one: tile-sync-semantics
      e.order = *order;
    e.scope = MemScope::Cluster;
    break;
  }
  case Builtin::ClusterWait:
    ok = checkNoNamedArgs(e);
    ok = requireCluster(e.loc, "cluster_wait()") && ok;
    e.order = MemOrder::Acquire;
    e.scope = MemScope::Cluster;
    break;
  case Builtin::FenceMBarrierInit:
    ok = checkNoNamedArgs(e);
    e.order = MemOrder::Release;
    e.scope = MemScope::Cluster;
    break;
  default: // FenceProxyAsync
    ok = checkNoNamedArgs(e);
    e.order = MemOrder::Weak;
    e.scope = MemScope::Cta;
    break;
  }
  return ok ? Type::voidTy() : Type::invalid();
}

namespace {
/// cluster_rank(), cluster_size(), cluster_dim(axis) and block_in_cluster(axis)
/// in the CTA of rank `rank` of a static cluster of `dims`; nullopt for any
/// other call.
std::optional<int64_t> clusterBuiltinAtRank(const CallExpr &c, const std::array<int, 3> &dims,
                                            int64_t rank) {
  switch (c.builtin) {
  case Builtin::ClusterRank:
    return rank;
  case Builtin::ClusterSize:
    return cluster::ctaCount(dims);
  case Builtin::ClusterDim:
    return dims[c.axis];
  case Builtin::BlockInCluster:
    return cluster::coordinate(dims, rank, c.axis);
  default:
    return std::nullopt;
  }
}
} // namespace

/// Whether `remote(b, r)` names a different CTA for every sender rank of
/// the kernel's static cluster (r a function of the rank the checker can
/// evaluate, e.g. `cluster_rank() ^ 1`): then each CTA's mbarrier receives
/// from one CTA at most. A constant rank (every CTA stores into one), a
/// rank that depends on run-time values, or a dynamic cluster: false.
bool Sema::onePeerPerReceiver(const ExprAST &bar) {
  auto *remote = bar.as<CallExpr>();
  if (!remote || remote->builtin != Builtin::Remote || remote->args.size() != 2 ||
      kernel_->cluster.kind != ClusterAttr::Static)
    return false;
  int64_t ranks = cluster::ctaCount(kernel_->cluster.dims);
  if (!cluster::isLegalSize(ranks))
    return false;
  int64_t rank = 0;
  ConstantLeaf leaf = [&](const ExprAST &e) -> std::optional<int64_t> {
    const ExprAST &v = boundValue(e);
    if (&v != &e) { // a `let`: its value
      bool overflow = false;
      std::optional<int64_t> r = foldConstant(v, overflow, &leaf);
      return overflow ? std::nullopt : r;
    }
    auto *c = e.as<CallExpr>();
    return c ? clusterBuiltinAtRank(*c, kernel_->cluster.dims, rank) : std::nullopt;
  };
  std::set<int64_t> targets;
  for (rank = 0; rank < ranks; ++rank) {
    bool overflow = false;
    std::optional<int64_t> t = foldConstant(*remote->args[1], overflow, &leaf);
    if (!t || overflow || !targets.insert(*t).second)
      return false;
  }
  return true;
}

void Sema::checkMBarrierUses() {
  for (MBarrierStmt *m : kernel_->mbarriers) {
    auto it = mbarrierUses_.find(m);
    if (it == mbarrierUses_.end())
      continue;
    MBarrierUses &u = it->second;
    const std::string &name = m->decl->name;

    if (!u.arrived && !u.waits.empty()) {
      CallExpr &w = *u.waits.front();
      error(w.loc,
            "wait() on '" + name + "' never completes: nothing in kernel '" + kernel_->name +
                "' arrives on it",
            "arrive on it with `arrive(" + name + (m->arraySize ? "[i]" : "") +
                ")` or `arrive_expect_tx(" + name + (m->arraySize ? "[i]" : "") +
                ", BYTES)`, or let a peer complete it with `store_async(..., remote(" + name +
                (m->arraySize ? "[i]" : "") + ", r))`");
    }

    // expect_tx vs the bytes the store_async calls on this mbarrier deliver.
    if (u.stores.empty() || u.storeUnknown)
      continue;
    for (const MBarrierUses::Expect &x : u.expects) {
      if (!x.bytes)
        continue;
      // For an array, only the store_asyncs on the same element count; give up
      // when that cannot be decided statically.
      const ExprAST *xi = mbarrierIndexOf(*x.call->args[0]);
      std::vector<const MBarrierUses::Async *> same;
      bool unknown = false;
      for (const MBarrierUses::Async &st : u.stores) {
        int r = sameIndex(xi, mbarrierIndexOf(*st.call->args[2]));
        if (r < 0)
          unknown = true;
        else if (r == 1)
          same.push_back(&st);
      }
      if (unknown || same.empty())
        continue;
      // One phase receives each statement's bytes once only when one thread
      // runs it and one CTA sends to each receiver: several threads, or
      // several CTAs storing into one CTA (`remote(full, 0)` from every
      // rank of a cluster reduction), deliver it several times per phase.
      if (!std::all_of(same.begin(), same.end(), [&](const MBarrierUses::Async *st) {
            return st->oneThread && onePeerPerReceiver(*st->call->args[2]);
          }))
        continue;
      int64_t delivered = 0;
      bool sameBlock = true;
      for (const MBarrierUses::Async *st : same) {
        delivered += st->call->asyncBytes;
        sameBlock &= st->block == same.front()->block;
      }
      if (same.size() > 1 && !sameBlock)
        continue; // in different blocks: not every phase sees all of them
      if (delivered == *x.bytes)
        continue;
      // TMA loads on the same mbarrier expect their own bytes (SemaTma.cpp
      // checkTmaBarriers): the phase waits for their sum plus this expect_tx.
      int64_t copied = 0;
      if (auto c = tmaBarriers_.find(m); c != tmaBarriers_.end())
        for (const CallExpr *copy : c->second)
          copied += copy->tma.bytes;
      std::string sum =
          copied ? "; with the " + std::to_string(copied) +
                       " bytes the copy_async calls expect themselves, one phase would wait for " +
                       std::to_string(copied + *x.bytes) + " bytes and receive " +
                       std::to_string(copied + delivered) + ": " +
                       (*x.bytes > delivered ? "it never completes" : "it completes early")
                 : "";
      error(x.call->args[1]->loc,
            "expect_tx of " + std::to_string(*x.bytes) + " bytes on '" + name +
                "', but the store_async calls on it deliver " + std::to_string(delivered) +
                " bytes" + sum,
            "expect exactly the bytes that complete one phase of '" + name + "' (" +
                std::to_string(delivered) + "), or change what the store_async calls send" +
                (copied ? " (copy_async expects its own bytes)" : ""));
      for (const MBarrierUses::Async *st : same)
        diags_.note(st->call->loc, "this store_async delivers " +
                                       std::to_string(st->call->asyncBytes) + " bytes to '" + name +
                                       "'");
    }
  }
}

namespace {
/// Reachability of a statement for one CTA rank: No, or Maybe.
struct RankedUse {
  const CallExpr *call;
  std::vector<bool> reaches;                   // per rank: may run there
  std::vector<std::optional<int64_t>> target;  // remote arrive: target rank per source rank
  std::vector<std::optional<int64_t>> element; // mbarrier array element per rank (nullopt: any)
};

} // namespace

/// Waits no arrival reaches, per CTA rank of a static cluster (moved with
/// the walk of checkDivergence, which runs it once the kernel is free of errors).
void Sema::checkWaitsReachArrivals() {
  KernelAST &k = *kernel_;
  // Waits that no arrival reaches, per CTA rank of a static cluster (one rank
  // without a cluster).
  int64_t ranks = 1;
  if (k.cluster.kind == ClusterAttr::Dynamic)
    return;
  if (k.cluster.kind == ClusterAttr::Static)
    ranks = cluster::ctaCount(k.cluster.dims);
  if (!cluster::isLegalSize(ranks))
    return;

  std::unordered_map<const Decl *, const ExprAST *> lets; // let bindings, for the evaluator
  int64_t rank = 0;
  ConstantLeaf leaf = [&](const ExprAST &e) -> std::optional<int64_t> {
    if (auto *v = e.as<VarRefExpr>()) {
      auto it = lets.find(v->decl);
      bool overflow = false;
      return it == lets.end() ? std::nullopt : foldConstant(*it->second, overflow, &leaf);
    }
    auto *c = e.as<CallExpr>();
    return c ? clusterBuiltinAtRank(*c, k.cluster.dims, rank) : std::nullopt;
  };
  auto value = [&](const ExprAST &e) {
    bool overflow = false;
    std::optional<int64_t> v = foldConstant(e, overflow, &leaf);
    return overflow ? std::nullopt : v;
  };

  // Every mbarrier call, with whether each rank may run it.
  std::unordered_map<const CallExpr *, RankedUse> uses;
  std::vector<const CallExpr *> order;
  std::function<void(const ExprAST &, bool)> visit;
  std::function<bool(const Block &, bool)> walk; // returns: still reachable after the block
  visit = [&](const ExprAST &e, bool reach) {
    if (auto *c = e.as<CallExpr>()) {
      bool arrival = c->builtin == Builtin::Arrive || c->builtin == Builtin::ArriveExpectTx;
      if (arrival || c->builtin == Builtin::Wait || c->builtin == Builtin::StoreAsync) {
        RankedUse &u = uses[c];
        if (!u.call) {
          u = {c, std::vector<bool>(ranks, false), std::vector<std::optional<int64_t>>(ranks),
               std::vector<std::optional<int64_t>>(ranks)};
          order.push_back(c);
        }
        u.reaches[rank] = u.reaches[rank] || reach;
        const ExprAST *bar =
            c->args.empty() ? nullptr : c->args[c->builtin == Builtin::StoreAsync ? 2 : 0].get();
        auto *remote = bar ? bar->as<CallExpr>() : nullptr;
        if (remote && remote->builtin == Builtin::Remote && remote->args.size() == 2) {
          if (arrival)
            u.target[rank] = value(*remote->args[1]);
          bar = remote->args[0].get();
        }
        if (auto *ix = bar ? bar->as<IndexExpr>() : nullptr; ix && ix->index)
          u.element[rank] = value(*ix->index);
      }
      if (c->inlined) // a return inside the function ends only the function
        walk(c->inlined->body, reach);
    }
    forEachOperand(e, [&](const ExprAST &x) { visit(x, reach); });
  };
  walk = [&](const Block &block, bool reach) {
    for (const StmtPtr &sp : block) {
      const StmtAST &s = *sp;
      if (auto *l = s.as<LetStmt>()) {
        if (l->decl->kind == DeclKind::Let)
          lets[l->decl.get()] = l->init.get();
        visit(*l->init, reach);
      } else if (auto *x = s.as<ExprStmtAST>()) {
        visit(*x->expr, reach);
      } else if (auto *a = s.as<AssignStmt>()) {
        visit(*a->target, reach);
        visit(*a->value, reach);
      } else if (auto *i = s.as<IfStmt>()) {
        visit(*i->cond, reach);
        std::optional<int64_t> c = value(*i->cond);
        // A branch this rank cannot take walks unreachable (and ends so); when
        // every branch it can take returns, nothing after the `if` runs.
        bool thenOn = walk(i->thenBody, reach && (!c || *c != 0));
        bool elseOn = walk(i->elseBody, reach && (!c || *c == 0));
        reach = thenOn || elseOn;
      } else if (auto *w = s.as<WhileStmt>()) {
        visit(*w->cond, reach);
        std::optional<int64_t> c = value(*w->cond);
        walk(w->body, reach && (!c || *c != 0));
      } else if (auto *f = s.as<ForStmt>()) {
        for (const ExprAST *e : {f->start.get(), f->end.get(), f->step.get()})
          if (e)
            visit(*e, reach);
        std::optional<int64_t> lo = f->start ? value(*f->start) : std::nullopt, hi = value(*f->end);
        bool empty = f->forKind == ForKind::Range && lo && hi && *lo >= *hi;
        walk(f->body, reach && !empty);
      } else if (auto *r = s.as<RingAccessStmt>()) {
        reach = walk(r->body, reach);
      } else if (s.is<ReturnStmt>() || s.is<BreakStmt>() || s.is<ContinueStmt>()) {
        if (auto *r = s.as<ReturnStmt>(); r && r->value)
          visit(*r->value, reach);
        if (auto *r = s.as<ReturnStmt>())
          for (const ExprPtr &v : r->values)
            visit(*v, reach);
        return false; // a definite return (or loop exit) for this rank: the rest of the
                      // block never runs
      } else if (auto *g = s.as<WarpgroupsStmt>()) {
        // Every role runs in every CTA; a role's return ends only that role.
        bool any = false;
        for (const auto &r : g->roles)
          any = walk(r->body, reach) || any;
        reach = any;
      }
    }
    return reach;
  };
  for (rank = 0; rank < ranks; ++rank)
    walk(k.body, true);

  auto reportWaitWithoutArrival = [&](const MBarrierStmt &m, const RankedUse &wait, int64_t r,
                                      std::optional<int64_t> element,
                                      const std::vector<const RankedUse *> &arrivals) {
    std::string name = m.decl->name + (element ? "[" + std::to_string(*element) + "]" : "");
    auto onElement = [&](const RankedUse *a) {
      return !element || std::any_of(a->element.begin(), a->element.end(),
                                     [&](auto e) { return !e || *e == *element; });
    };
    bool named = std::any_of(arrivals.begin(), arrivals.end(), onElement);
    std::string in =
        k.cluster.kind == ClusterAttr::Static ? " in CTA rank " + std::to_string(r) : "";
    diags_.error(wait.call->loc,
                 "wait() on '" + name + "' never completes" + in + ": no arrive on " +
                     (in.empty() ? "'" : "that CTA's '") + name + "' can run" +
                     (arrivals.empty() ? " (store_async completes bytes but does not arrive)" : ""),
                 arrivals.empty()
                     ? "a phase completes when its arrivals are done and its bytes arrived: add "
                       "`arrive_expect_tx(" +
                           name + ", BYTES)` in the waiting CTA"
                 : !named
                     ? "no arrive names that element: arrive on '" + name +
                           "' where its phase's work is issued, or wait on the element that is "
                           "arrived on"
                     : "arrive in every CTA that waits (move the arrive out of the condition that "
                       "excludes this CTA), or wait only where arrivals happen");
    for (const RankedUse *a : arrivals)
      if (onElement(a))
        diags_.note(a->call->loc,
                    "this arrival on '" + name + "' does not reach " +
                        (in.empty() ? std::string("this CTA") : "CTA rank " + std::to_string(r)));
  };
  for (MBarrierStmt *m : k.mbarriers) {
    std::vector<const RankedUse *> waits, arrivals;
    bool stores = false;
    for (const CallExpr *c : order) {
      if (mbarrierDeclOf(*c->args[c->builtin == Builtin::StoreAsync ? 2 : 0]) != m)
        continue;
      const RankedUse &u = uses[c];
      if (c->builtin == Builtin::Wait)
        waits.push_back(&u);
      else if (c->builtin == Builtin::StoreAsync)
        stores = true;
      else
        arrivals.push_back(&u);
    }
    if (waits.empty() || (arrivals.empty() && !stores))
      continue; // nothing arrives at all: checkMBarrierUses reported it
    // Whether an arrival that rank s may run can reach `element` of rank r's
    // mbarrier (an element that is not constant may be any).
    auto reachesElement = [&](const RankedUse &a, int64_t s, int64_t r,
                              std::optional<int64_t> element) {
      if (!a.reaches[s])
        return false;
      if (element && a.element[s] && *a.element[s] != *element)
        return false;
      if (a.call->space != AddressSpace::Cluster)
        return s == r;
      return !a.target[s] || *a.target[s] == r;
    };
    bool reported = false;
    for (int64_t r = 0; r < ranks && !reported; ++r) {
      for (const RankedUse *wait : waits) {
        if (!wait->reaches[r])
          continue;
        bool arrives = false;
        for (const RankedUse *a : arrivals)
          for (int64_t s = 0; s < ranks && !arrives; ++s)
            arrives = reachesElement(*a, s, r, wait->element[r]);
        if (arrives)
          continue;
        reportWaitWithoutArrival(*m, *wait, r, wait->element[r], arrivals);
        reported = true; // one report per mbarrier
        break;
      }
    }
  }
}

} // namespace tile::frontend
