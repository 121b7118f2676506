//===- SemaPeer.cpp - multi-GPU: symmetric tensors, peers, semaphores ------===//
//
// `symmetric tensor` and
// `semaphore[S]` parameters, device_rank() / device_count(), peer(A, d) as
// the global side of copy_async, element access `A[i, j]` / `peer(A, d)[i, j]`
// on symmetric tensors, signal and wait on semaphores. The hidden
// parameters the runtime fills (tile::HiddenPeerInfo) are declared here once
// the body is checked, so a kernel only gets those it uses (the exit protocol
// of MLIRGenPeer.cpp uses the first semaphore's peers, epoch, rank and size).
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"
#include "tile/kernel_info.h"

namespace tile::frontend {

namespace {
using PK = ::tile::HiddenPeerInfo::Kind;

const char *kNeedsSymmetric =
    "declare a `symmetric tensor<T>[...]` or `semaphore[S]` parameter: the runtime fills the "
    "device's rank and count from their communicator";

bool isSemaphoreIndex(const ExprAST &e, Sema &s);
} // namespace

void Sema::checkSemaphoreParams() {
  KernelAST &k = *kernel_;
  for (SemaphoreParamSyntax &s : k.semaphoreParams) {
    if (s.countName.empty())
      continue;
    // A `const` or a compile-time parameter is the count's value, as a
    // literal would be (as for tensor extents).
    if (const Decl *c = compileTimeConstant(s.countName)) {
      if (std::string why = badCountConstant(*c, 0x7fffffff, "2^31-1",
                                             "semaphore count '" + s.countName + "' of '" +
                                                 k.params[s.param]->name + "'");
          !why.empty()) {
        error(s.countLoc, why,
              "a semaphore count is an integer from 1 to 2^31-1: a literal, an integer "
              "`const`, a compile-time value parameter, or a new name (filled from the host's "
              "tile::Semaphores at launch)");
        continue;
      }
      s.countLiteral = c->constInt;
      s.countName.clear();
      k.paramTypes[s.param].type = Type::semaphore(c->constInt);
      k.params[s.param]->type = Type::semaphore(c->constInt);
      continue;
    }
    if (Decl *other = lookup(s.countName)) {
      error(s.countLoc,
            "semaphore count '" + s.countName + "' of '" + k.params[s.param]->name +
                "' has the name of '" + other->name + "'",
            "a count name declares an i32 value filled from the host's tile::Semaphores at "
            "launch; rename one");
      continue;
    }
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::Param;
    d->name = s.countName;
    d->loc = s.countLoc;
    d->type = Type::i32();
    declare(*d);
    s.countDecl = d.get();
    addPeerParam(std::move(d), (int)PK::SemaphoreCount, s.param);
  }
}

void Sema::addPeerParam(std::unique_ptr<Decl> d, int kind, int param) {
  KernelAST &k = *kernel_;
  d->paramIndex = (int)(k.params.size() + k.hiddenParams.size() + k.peerParams.size());
  PeerParam p;
  p.decl = std::move(d);
  p.kind = kind;
  p.param = param;
  k.peerParams.push_back(std::move(p));
}

bool Sema::hasPeerParams() const {
  for (const TensorParamSyntax &t : kernel_->tensorParams)
    if (t.symmetric)
      return true;
  return !kernel_->semaphoreParams.empty();
}

void Sema::notePeerUse(const Location &loc) {
  if (!peerUsed_)
    firstPeerUse_ = loc;
  peerUsed_ = true;
}

void Sema::finishPeerParams() {
  KernelAST &k = *kernel_;
  if (peerUsed_ && !hasPeerParams())
    error(firstPeerUse_, "multi-GPU builtins need a symmetric tensor or semaphore parameter",
          kNeedsSymmetric);
  auto add = [&](const std::string &name, bool u64, PK kind, int param) {
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::Param;
    d->name = name;
    d->loc = k.loc;
    d->type = u64 ? Type::scalarTy(ScalarKind::U64) : Type::i32();
    addPeerParam(std::move(d), (int)kind, param);
  };
  for (const TensorParamSyntax &t : k.tensorParams) {
    if (t.symmetric && t.peerElements)
      add(k.params[t.param]->name + "$peers", true, PK::PeerPointers, t.param);
    if (t.symmetric && t.peerCopies)
      add(k.params[t.param]->name + "$peer_maps", true, PK::PeerMaps, t.param);
  }
  for (const SemaphoreParamSyntax &s : k.semaphoreParams) {
    add(k.params[s.param]->name + "$peers", true, PK::SemaphorePeers, s.param);
    add(k.params[s.param]->name + "$epoch", true, PK::SemaphoreEpoch, s.param);
  }
  if ((peerUsed_ && hasPeerParams()) || !k.semaphoreParams.empty()) {
    add("$rank", false, PK::DeviceRank, -1);
    add("$world", false, PK::DeviceCount, -1);
  }
  peerUsed_ = false;
}

bool Sema::isPeerCall(CallExpr &e) {
  if (e.callee == "device_rank" || e.callee == "device_count" || e.callee == "peer" ||
      e.callee == "signal")
    return true;
  if (e.callee != "wait" || e.args.empty())
    return false;
  auto *p = e.args[0]->as<CallExpr>();
  return isSemaphoreIndex(*e.args[0], *this) || (p && p->callee == "peer");
}

namespace {
/// `sem[i]` with sem a semaphore parameter.
bool isSemaphoreIndex(const ExprAST &e, Sema &s) {
  auto *ix = e.as<IndexExpr>();
  auto *ref = ix ? ix->base->as<VarRefExpr>() : nullptr;
  Decl *d = ref ? s.lookup(ref->name) : nullptr;
  return d && d->type.kind == Type::Semaphore;
}
} // namespace

/// `sem[i]`: the semaphore parameter and the checked i32 index; -1 after an error.
int Sema::checkSemaphoreRef(ExprPtr &a, CallExpr &call, const ExprAST *&index) {
  auto *ix = a->as<IndexExpr>();
  auto *ref = ix ? ix->base->as<VarRefExpr>() : nullptr;
  Decl *d = ref ? lookup(ref->name) : nullptr;
  if (!d || d->type.kind != Type::Semaphore || !ix->moreIndices.empty()) {
    error(a->loc, "'" + call.callee + "' needs a semaphore counter `sem[i]` here",
          "name a `semaphore[S]` kernel parameter indexed by one i32 counter index");
    resolveOnly(a);
    return -1;
  }
  ref->decl = d;
  ref->type = d->type;
  ix->use = IndexUse::Address;
  ix->space = AddressSpace::Global;
  Type i32 = Type::i32();
  if (checkValue(ix->index, &i32, "semaphore index",
                 "counter indices are i32: convert with `as i32`")
          .isInvalid())
    return -1;
  bool overflow = false;
  std::optional<int64_t> c = foldConstant(*ix->index, overflow);
  if (c && !overflow && (*c < 0 || (d->type.staticLength && *c >= *d->type.staticLength))) {
    error(ix->index->loc,
          "counter index " + std::to_string(*c) + " is outside " + d->type.str() + " '" + d->name +
              "'",
          "valid indices are 0 .. S-1");
    return -1;
  }
  a->type = Type::voidTy();
  index = ix->index.get();
  return d->paramIndex;
}

/// A device number (i32; checked against device_count() at run time).
bool Sema::checkDeviceArg(ExprPtr &d) {
  Type i32 = Type::i32();
  if (checkValue(d, &i32, "device", "devices are numbered 0 .. device_count()-1 (i32)").isInvalid())
    return false;
  bool overflow = false;
  std::optional<int64_t> c = foldConstant(*d, overflow);
  if (c && !overflow && *c < 0) {
    error(d->loc, "device " + std::to_string(*c) + " is negative",
          "devices are numbered 0 .. device_count()-1");
    return false;
  }
  return true;
}

/// signal's n / wait's v: a u64, an i32 (>= 0, checked at run time) or a
/// non-negative literal (u64).
bool Sema::checkCounterValue(ExprPtr &v, CallExpr &call) {
  Type t = infer(v);
  if (t.isInvalid())
    return false;
  if (t.isUntyped()) {
    Type u64 = Type::scalarTy(ScalarKind::U64);
    bool overflow = false;
    std::optional<int64_t> c = foldConstant(*v, overflow);
    if (c && *c < 0) {
      error(v->loc, "'" + call.callee + "' takes a count >= 0, found " + std::to_string(*c),
            "semaphore counters only count up (a u64 compare)");
      return false;
    }
    return !checkValue(v, &u64, "counter value").isInvalid();
  }
  if (t.isScalar() && (t.scalar == ScalarKind::U64 || t.scalar == ScalarKind::I32)) {
    finalize(v);
    return true;
  }
  error(v->loc, "'" + call.callee + "' takes a u64 or an i32 >= 0, found " + t.str(),
        "convert with `as u64`");
  return false;
}

Type Sema::checkPeerCall(CallExpr &e) {
  const std::string &c = e.callee;
  notePeerUse(e.loc);
  if (!checkNoNamedArgs(e))
    return Type::invalid();
  if (c == "device_rank" || c == "device_count") {
    e.builtin = c == "device_rank" ? Builtin::DeviceRank : Builtin::DeviceCount;
    return checkArgCount(e, 0, 0) ? Type::i32() : Type::invalid();
  }
  if (c == "peer") {
    e.builtin = Builtin::Peer;
    error(e.loc, "peer(...) is used only indexed, as the tensor of copy_async, or in signal",
          "write `peer(A, d)[i, j]` (an element), `copy_async(peer(A, d)[c0, c1], tile)`, "
          "`copy_async(tile, peer(A, d)[c0, c1])` or `signal(peer(sem[i], d), n)`");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
  if (c == "signal") {
    e.builtin = Builtin::Signal;
    if (!checkArgCount(e, 2, 2))
      return Type::invalid();
    ExprPtr *semArg = &e.args[0];
    bool ok = true;
    if (auto *p = e.args[0]->as<CallExpr>(); p && p->callee == "peer") {
      p->builtin = Builtin::Peer;
      if (p->args.size() != 2 || !p->namedArgs.empty()) {
        error(p->loc, "peer takes 2 arguments: peer(sem[i], d)",
              "write `signal(peer(sem[i], d), n)`");
        resolveOnly(e.args[1]);
        return Type::invalid();
      }
      semArg = &p->args[0];
      ok = checkDeviceArg(p->args[1]);
      e.sem.device = p->args[1].get();
      p->type = Type::voidTy();
    }
    e.sem.param = checkSemaphoreRef(*semArg, e, e.sem.index);
    ok = checkCounterValue(e.args[1], e) && ok;
    e.sem.value = e.args[1].get();
    return ok && e.sem.param >= 0 ? Type::voidTy() : Type::invalid();
  }
  // wait(sem[i], v): only on this device's counters.
  e.builtin = Builtin::SemWait;
  if (!checkArgCount(e, 2, 2))
    return Type::invalid();
  if (auto *p = e.args[0]->as<CallExpr>()) {
    p->builtin = Builtin::Peer;
    error(
        e.args[0]->loc, "wait only on this device's semaphore, not on a peer's",
        "write `wait(sem[i], v)`; the peer signals this device with `signal(peer(sem[i], d), n)`");
    for (ExprPtr &a : p->args)
      resolveOnly(a);
    resolveOnly(e.args[1]);
    return Type::invalid();
  }
  e.sem.param = checkSemaphoreRef(e.args[0], e, e.sem.index);
  bool ok = checkCounterValue(e.args[1], e);
  e.sem.value = e.args[1].get();
  kernel_->waitsOnSemaphore = true;
  return ok && e.sem.param >= 0 ? Type::voidTy() : Type::invalid();
}

/// `peer(A, d)[c...]` as the tensor of copy_async / prefetch_tensor: the
/// VarRef of A (a symmetric tensor), with d checked and recorded.
VarRefExpr *Sema::peerTensorBase(IndexExpr &ix, CallExpr &call) {
  auto *p = ix.base->as<CallExpr>();
  if (!p || p->callee != "peer")
    return nullptr;
  TensorParamSyntax *t = peerTensorArg(*p, "box");
  if (!t)
    return nullptr;
  call.tma.peerDevice = p->args[1].get();
  t->peerCopies = true;
  return p->args[0]->as<VarRefExpr>();
}

TensorParamSyntax *Sema::peerTensorArg(CallExpr &p, const char *what) {
  p.builtin = Builtin::Peer;
  notePeerUse(p.loc);
  if (p.args.size() == 2 && p.args[0]->is<IndexExpr>() && isSemaphoreIndex(*p.args[0], *this)) {
    error(p.loc, std::string("peer(sem[i], d) is a semaphore counter, not a tensor ") + what,
          "signal a peer's counter with `signal(peer(sem[i], d), n)`");
    return nullptr;
  }
  if (p.args.size() != 2 || !p.namedArgs.empty()) {
    error(p.loc, "peer takes 2 arguments: peer(A, d)",
          "A a symmetric tensor parameter, d the device (i32)");
    for (ExprPtr &a : p.args)
      resolveOnly(a);
    return nullptr;
  }
  auto *ref = p.args[0]->as<VarRefExpr>();
  Decl *d = ref ? lookup(ref->name) : nullptr;
  TensorParamSyntax *t = nullptr;
  if (d && d->type.isTensor())
    for (TensorParamSyntax &s : kernel_->tensorParams)
      if (s.param == d->paramIndex)
        t = &s;
  if (!t || !t->symmetric) {
    error(p.args[0]->loc,
          d && d->type.isTensor()
              ? "tensor '" + d->name + "' is not symmetric: peer() needs every rank's part"
              : "peer() needs a symmetric tensor parameter here",
          "declare the parameter `" + (d ? d->name : std::string("A")) +
              ": symmetric tensor<T>[...]` and pass a SymmetricBuffer's symmetricTensor(...)");
    resolveOnly(p.args[1]);
    return nullptr;
  }
  if (!checkDeviceArg(p.args[1]))
    return nullptr;
  ref->decl = d;
  ref->type = d->type;
  p.type = d->type;
  return t;
}

namespace {
/// The symmetric tensor parameter `e` names (a VarRef), or null.
TensorParamSyntax *symmetricParam(const ExprAST &e, Sema &s, KernelAST &k) {
  auto *ref = e.as<VarRefExpr>();
  Decl *d = ref ? s.lookup(ref->name) : nullptr;
  if (!d || !d->type.isTensor())
    return nullptr;
  for (TensorParamSyntax &t : k.tensorParams)
    if (t.param == d->paramIndex && t.symmetric)
      return &t;
  return nullptr;
}
} // namespace

bool Sema::isTensorElement(IndexExpr &e) {
  auto *p = e.base->as<CallExpr>();
  return (p && p->callee == "peer") || symmetricParam(*e.base, *this, *kernel_);
}

/// An element of this rank's part (`A[i, j]`) or of rank d's (`peer(A, d)[i,
/// j]`): one integer index per dimension, outermost first; a constant index
/// must lie inside a literal extent (a run-time one is checked, and traps).
Type Sema::checkTensorElement(IndexExpr &e) {
  std::vector<ExprPtr *> idx{&e.index};
  for (ExprPtr &m : e.moreIndices)
    idx.push_back(&m);
  auto resolveIndices = [&] {
    for (ExprPtr *i : idx)
      resolveOnly(*i);
    return Type::invalid();
  };
  TensorParamSyntax *t = nullptr;
  if (auto *p = e.base->as<CallExpr>()) {
    t = peerTensorArg(*p, "element");
    if (!t)
      return resolveIndices();
  } else {
    t = symmetricParam(*e.base, *this, *kernel_);
    auto *ref = e.base->as<VarRefExpr>();
    ref->decl = lookup(ref->name);
    ref->type = ref->decl->type;
    notePeerUse(e.loc); // the own part is entry $rank of A$peers
  }
  const Decl &a = *kernel_->params[t->param];
  e.base->type = a.type;
  e.space = AddressSpace::Global;
  if (idx.size() != t->extents.size()) {
    error(e.loc,
          "tensor '" + a.name + "' has rank " + std::to_string(t->extents.size()) + ", got " +
              std::to_string(idx.size()) + (idx.size() == 1 ? " index" : " indices"),
          "give one index per dimension, outermost first: `" + a.name + "[i, j]`");
    return resolveIndices();
  }
  bool ok = true;
  for (size_t k = 0; k < idx.size(); ++k) {
    Type it = infer(*idx[k]);
    if (it.isUntyped())
      it = finalize(*idx[k]);
    if (it.isInvalid()) {
      ok = false;
      continue;
    }
    if (!it.isInteger() || it.isBool()) {
      error((*idx[k])->loc, "index must be an integer, found " + it.str(),
            nonScalarHint(it, "convert it with `as i32` or `as i64`"));
      ok = false;
      continue;
    }
    bool overflow = false;
    std::optional<int64_t> v = foldConstant(**idx[k], overflow);
    const std::optional<int64_t> &extent = t->extents[k].literal;
    if (overflow || (v && (*v < 0 || (extent && *v >= *extent)))) {
      error((*idx[k])->loc,
            overflow ? std::string("index overflows")
                     : "index " + std::to_string(*v) + " is out of bounds for dimension " +
                           std::to_string(k) + " of symmetric tensor '" + a.name + "' (extent " +
                           (extent ? std::to_string(*extent) : t->extents[k].name) + ")",
            extent ? "valid indices are 0 .. " + std::to_string(*extent - 1)
                   : "indices start at 0 (a run-time index outside the extent traps)");
      ok = false;
    }
  }
  t->peerElements = true;
  return ok ? Type::scalarTy(t->elem) : Type::invalid();
}

} // namespace tile::frontend
