//===- MLIRGenPeer.cpp - multi-GPU: peers, semaphores, the exit protocol ---===//
//
// Multi-GPU (docs/reference/multi-gpu.md, docs/lowering.md "Multi-GPU"):
//  - device_rank() / device_count(): the hidden $rank / $world parameters;
//  - peer(A, d) in copy_async: entry d of A$peer_maps (tile.peer_tensor_map);
//  - A[i, j] / peer(A, d)[i, j]: entry $rank / d of A$peers + the row-major
//    offset (tile.peer_base, tile.global_ptr, tile.ptr_add);
//  - signal(sem[i], n) / signal(peer(sem[i], d), n): red.release.sys.global.add.u64
//    (a release atomic: tile-place-bulk-waits completes this thread's TMA
//    stores, `wait_group 0`, before it);
//  - wait(sem[i], v): tile.sem_wait (acquire.sys probes, fence.proxy.async.global);
//  - the exit protocol at the end of every kernel with a semaphore.
// Indices and devices outside their range trap with a message (one compare
// each, always checked).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"
#include "tile/kernel_info.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

namespace {
using PK = ::tile::HiddenPeerInfo::Kind;

void explainOp(Operation *op, StringRef why) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSyncAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), why));
}
} // namespace

Value MLIRGenImpl::peerValue(int kind, int param) {
  const fe::Decl *d = kernelAST->peerParam(kind, param);
  return d ? values.lookup(d) : Value();
}

/// A range check. In a kernel with wgmma the trap prints nothing: any call
/// (vprintf) in the function makes ptxas serialise every wgmma (C7510).
void MLIRGenImpl::trapUnless(Location l, Value ok, const std::string &message, ValueRange args,
                             bool silent) {
  silent = silent || kernelAST->usesMma;
  Value bad = arith::XOrIOp::create(builder, l, ok, boolConst(l, true));
  auto check = scf::IfOp::create(builder, l, bad, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(check.thenBlock()->getTerminator());
  if (silent)
    TrapOp::create(builder, l);
  else
    HangTrapOp::create(builder, l, builder.getStringAttr(message), args);
}

Value MLIRGenImpl::checkedDevice(Location l, const fe::ExprAST &device) {
  Value d = castInt(l, genExpr(device), builder.getI32Type());
  Value world = peerValue((int)PK::DeviceCount, -1);
  // Unsigned: a negative device is as far out of range as one >= world.
  Value ok = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, d, world);
  trapUnless(l, ok,
             "tilec: peer(..., d) at " + sourcePosition(device.loc) +
                 ": device %d is outside [0, device_count() = %d)\n",
             ValueRange{d, world});
  return d;
}

Value MLIRGenImpl::genPeerTensorMap(const fe::CallExpr &copy, Value ownMap) {
  if (!copy.tma.peerDevice)
    return ownMap;
  Location l = loc(copy.loc);
  Value d = checkedDevice(l, *copy.tma.peerDevice);
  const fe::ExprAST &tensorArg =
      *copy.args[copy.tma.isStore || copy.builtin == fe::Builtin::PrefetchTensor ? 0 : 1];
  const auto *peerCall = tensorArg.as<fe::IndexExpr>()->base->as<fe::CallExpr>();
  const fe::Decl *a = peerCall->args[0]->as<fe::VarRefExpr>()->decl;
  Value maps = peerValue((int)PK::PeerMaps, a->paramIndex);
  return PeerTensorMapOp::create(builder, l, ownMap.getType(), maps, d);
}

/// Symmetric tensors are dense row-major (the runtime checks it at launch):
/// element (i0, ..., in) of rank r's part is at table[r] + sizeof(T) *
/// (((i0 * E1) + i1) * E2 + ...). Every index is checked against its extent
/// (one unsigned compare each, so a negative one fails too) and d against
/// device_count(); the access itself is an ordinary global one, as through a
/// ptr<T, global> (weak unless load/store/atomic_* say otherwise).
Value MLIRGenImpl::genTensorElementAddress(const fe::IndexExpr &e) {
  Location l = loc(e.loc);
  auto i32 = builder.getI32Type(), i64 = builder.getI64Type();
  const auto *peerCall = e.base->as<fe::CallExpr>();
  const fe::Decl *a = (peerCall ? peerCall->args[0] : e.base)->as<fe::VarRefExpr>()->decl;
  Value rank = peerCall ? checkedDevice(l, *peerCall->args[1]) : peerValue((int)PK::DeviceRank, -1);
  const fe::TensorParamSyntax *t = nullptr;
  for (const fe::TensorParamSyntax &s : kernelAST->tensorParams)
    if (s.param == a->paramIndex)
      t = &s;
  std::vector<const fe::ExprAST *> idx{e.index.get()};
  for (const fe::ExprPtr &m : e.moreIndices)
    idx.push_back(m.get());
  SmallVector<Value> indices, extents;
  Value ok = boolConst(l, true), linear;
  std::string shown, extentsShown;
  for (size_t k = 0; k < idx.size(); ++k) {
    Value i = castInt(l, genExpr(*idx[k]), i64, idx[k]->type.isUnsigned());
    const fe::TensorExtentSyntax &x = t->extents[k];
    Value extent = x.literal ? intConst(l, i32, *x.literal) : values.lookup(x.hidden);
    Value extent64 = arith::ExtUIOp::create(builder, l, i64, extent);
    ok = arith::AndIOp::create(
        builder, l, ok, arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, i, extent64));
    linear = linear ? arith::AddIOp::create(builder, l,
                                            arith::MulIOp::create(builder, l, linear, extent64), i)
                          .getResult()
                    : i;
    indices.push_back(i);
    extents.push_back(extent);
    shown += (k ? ", " : "") + std::string("%lld");
    extentsShown += (k ? ", " : "") + std::string("%d");
  }
  SmallVector<Value> args(indices);
  args.append(extents);
  trapUnless(l, ok,
             "tilec: " + std::string(peerCall ? "peer(" + a->name + ", d)" : a->name) +
                 "[...] at " + sourcePosition(e.loc) + ": index (" + shown +
                 ") is outside the extents [" + extentsShown + "]\n",
             args);
  Value base =
      PeerBaseOp::create(builder, l, i64, peerValue((int)PK::PeerPointers, a->paramIndex), rank);
  auto ptrType = PtrType::get(builder.getContext(), scalarType(t->elem), AddressSpace::global);
  Value ptr = GlobalPtrOp::create(builder, l, ptrType, base);
  return PtrAddOp::create(builder, l, ptrType, ptr, linear);
}

/// The global address of counter `index` of semaphore `param` on `device`
/// (null: this rank), with the index checked against S.
Value MLIRGenImpl::semaphoreCounter(Location l, int param, const fe::ExprAST &index,
                                    const fe::ExprAST *device) {
  auto i32 = builder.getI32Type(), i64 = builder.getI64Type();
  const fe::Decl &sem = *kernelAST->params[param];
  Value i = castInt(l, genExpr(index), i32);
  Value count = semaphoreCount(l, param);
  Value ok = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, i, count);
  trapUnless(l, ok,
             "tilec: " + sem.name + "[i] at " + sourcePosition(index.loc) +
                 ": counter index %d is outside [0, %d)\n",
             ValueRange{i, count});
  Value base = values.lookup(&sem);
  if (device)
    base = PeerBaseOp::create(builder, l, i64, peerValue((int)PK::SemaphorePeers, param),
                              checkedDevice(l, *device));
  Value wide = arith::ExtUIOp::create(builder, l, i64, i);
  Value offset = arith::MulIOp::create(builder, l, wide, intConst(l, i64, 8));
  Value addr = arith::AddIOp::create(builder, l, base, offset);
  return GlobalPtrOp::create(builder, l,
                             PtrType::get(builder.getContext(), i64, AddressSpace::global), addr);
}

Value MLIRGenImpl::semaphoreCount(Location l, int param) {
  for (const fe::SemaphoreParamSyntax &s : kernelAST->semaphoreParams)
    if (s.param == param)
      return s.countDecl ? values.lookup(s.countDecl)
                         : intConst(l, builder.getI32Type(), *s.countLiteral);
  return intConst(l, builder.getI32Type(), 0);
}

/// A counter value as u64: an i32 must be >= 0 (checked), then widened.
Value MLIRGenImpl::counterValue(Location l, const fe::ExprAST &v, const char *what) {
  Value x = genExpr(v);
  if (x.getType().isInteger(64))
    return x;
  Value ok =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::sge, x, intConst(l, x.getType(), 0));
  trapUnless(l, ok,
             std::string("tilec: ") + what + " at " + sourcePosition(v.loc) +
                 ": the i32 count %d is negative\n",
             ValueRange{x});
  return arith::ExtUIOp::create(builder, l, builder.getI64Type(), x);
}

Value MLIRGenImpl::genPeerCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  switch (e.builtin) {
  case fe::Builtin::DeviceRank:
    return peerValue((int)PK::DeviceRank, -1);
  case fe::Builtin::DeviceCount:
    return peerValue((int)PK::DeviceCount, -1);
  case fe::Builtin::Signal: {
    Value counter = semaphoreCounter(l, e.sem.param, *e.sem.index, e.sem.device);
    Value n = counterValue(l, *e.sem.value, "signal");
    auto red = AtomicRMWOp::create(builder, l, n.getType(), AtomicKind::add, counter, n,
                                   MemoryOrder::release, MemoryScope::sys);
    explainOp(red, "red.release.sys.global.add.u64: signal publishes this thread's earlier "
                   "writes (and, after its bulk-group wait, its TMA stores) to every device");
    return nullptr;
  }
  case fe::Builtin::SemWait: {
    Value counter = semaphoreCounter(l, e.sem.param, *e.sem.index, nullptr);
    Value v = counterValue(l, *e.sem.value, "wait");
    Value index = castInt(l, genExpr(*e.sem.index), builder.getI32Type());
    auto wait = SemWaitOp::create(builder, l, counter, v, index, peerValue((int)PK::DeviceRank, -1),
                                  builder.getStringAttr(kernelAST->params[e.sem.param]->name));
    explainOp(wait, "ld.acquire.sys spin, then fence.proxy.async.global: TMA loads after the "
                    "wait see what the signalling device published");
    return nullptr;
  }
  default:
    return nullptr;
  }
}

/// docs/lowering.md "Multi-GPU", guarantee 4. Counters [0, S) start every launch
/// at 0: after every thread of the CTA is done, one thread per CTA counts the
/// CTA in [S] (acq_rel at gpu scope: the last CTA sees every other CTA's
/// work); the last CTA resets [0, S] (relaxed), then tells every peer it is
/// done with red.release.sys on the peer's [S+1] (the reset happens before
/// it), and waits until every peer told it the same for this launch
/// ([S+1] >= epoch * (device_count() - 1)): no peer's next launch can signal
/// into (or write the buffers of) this rank's running launch.
void MLIRGenImpl::genExitProtocol(Location l) {
  if (kernelAST->semaphoreParams.empty())
    return;
  auto i32 = builder.getI32Type(), i64 = builder.getI64Type();
  int param = kernelAST->semaphoreParams.front().param;
  const fe::Decl &sem = *kernelAST->params[param];
  auto ptrType = PtrType::get(builder.getContext(), i64, AddressSpace::global);
  Value base = values.lookup(&sem);
  Value s64 = arith::ExtUIOp::create(builder, l, i64, semaphoreCount(l, param));
  auto counterAt = [&](Value b, Value slot64) {
    Value addr = arith::AddIOp::create(
        builder, l, b, arith::MulIOp::create(builder, l, slot64, intConst(l, i64, 8)));
    return GlobalPtrOp::create(builder, l, ptrType, addr).getResult();
  };
  explainOp(BarrierOp::create(builder, l, /*aligned=*/false),
            "exit protocol: every thread of the CTA is done before the CTA counts itself");
  Value tid = linearThread(l).first;
  Value first = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, tid,
                                      intConst(l, tid.getType(), 0));
  auto one = scf::IfOp::create(builder, l, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(one.thenBlock()->getTerminator());
  Value arrival = counterAt(base, s64);
  auto old = AtomicRMWOp::create(builder, l, i64, AtomicKind::add, arrival, intConst(l, i64, 1),
                                 MemoryOrder::acq_rel, MemoryScope::gpu);
  explainOp(old, "exit protocol: atom.acq_rel.gpu counts this CTA; the last one resets");
  Value nx = sreg(l, SpecialReg::nctaid_x), ny = sreg(l, SpecialReg::nctaid_y),
        nz = sreg(l, SpecialReg::nctaid_z);
  Value ctas = arith::MulIOp::create(builder, l, arith::MulIOp::create(builder, l, nx, ny), nz);
  Value ctas64 = arith::ExtUIOp::create(builder, l, i64, ctas);
  Value lastOld = arith::SubIOp::create(builder, l, ctas64, intConst(l, i64, 1));
  Value isLast =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, old.getResult(), lastOld);
  auto last = scf::IfOp::create(builder, l, isLast, /*withElseRegion=*/false);
  builder.setInsertionPoint(last.thenBlock()->getTerminator());
  Value zero64 = intConst(l, i64, 0), one64 = intConst(l, i64, 1);
  Value slots = arith::AddIOp::create(builder, l, s64, one64); // [0, S] inclusive
  auto reset = scf::ForOp::create(builder, l, zero64, slots, one64);
  {
    OpBuilder::InsertionGuard g2(builder);
    builder.setInsertionPoint(reset.getBody()->getTerminator());
    StoreOp::create(builder, l, zero64, counterAt(base, reset.getInductionVar()),
                    MemoryOrder::relaxed, MemoryScope::gpu);
  }
  Value rank = peerValue((int)PK::DeviceRank, -1), world = peerValue((int)PK::DeviceCount, -1);
  Value exitSlot = arith::AddIOp::create(builder, l, s64, one64);
  Value peer0 = intConst(l, i32, 0), step = intConst(l, i32, 1);
  auto peers = scf::ForOp::create(builder, l, peer0, world, step);
  {
    OpBuilder::InsertionGuard g2(builder);
    builder.setInsertionPoint(peers.getBody()->getTerminator());
    Value p = peers.getInductionVar();
    Value other = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, p, rank);
    auto ifOther = scf::IfOp::create(builder, l, other, /*withElseRegion=*/false);
    builder.setInsertionPoint(ifOther.thenBlock()->getTerminator());
    Value peerBase =
        PeerBaseOp::create(builder, l, i64, peerValue((int)PK::SemaphorePeers, param), p);
    auto red = AtomicRMWOp::create(builder, l, i64, AtomicKind::add, counterAt(peerBase, exitSlot),
                                   one64, MemoryOrder::release, MemoryScope::sys);
    explainOp(red, "exit protocol: red.release.sys tells the peer this rank's launch is done "
                   "(after the reset)");
  }
  Value epoch = peerValue((int)PK::SemaphoreEpoch, param);
  Value peersCount = arith::ExtUIOp::create(
      builder, l, i64, arith::SubIOp::create(builder, l, world, intConst(l, i32, 1)));
  Value target = arith::MulIOp::create(builder, l, epoch, peersCount);
  Value exitSlot32 = arith::TruncIOp::create(builder, l, i32, exitSlot);
  auto wait = SemWaitOp::create(builder, l, counterAt(base, exitSlot), target, exitSlot32, rank,
                                builder.getStringAttr(sem.name));
  explainOp(wait, "exit protocol: wait until every peer finished this launch");
  // --debug-hangs names it (a peer that never ends this launch leaves it here).
  builder.getContext()->getLoadedDialect<TileDialect>()->getHangNoteAttrHelper().setAttr(
      wait, builder.getStringAttr("the exit protocol: every peer must finish this launch; "
                                  "the counter is the peers' arrivals"));
}

/// FILE:LINE:COL for a trap message ('%' escaped: it is a printf format).
std::string MLIRGenImpl::sourcePosition(const fe::Location &l) const {
  return escapePrintfText((l.file.empty() ? file : l.file.str()) + ":" + std::to_string(l.line) +
                          ":" + std::to_string(l.col));
}

size_t MLIRGenImpl::leadingTmaStoreIfs(const fe::Block &body) {
  size_t n = 0;
  for (const fe::StmtPtr &st : body) {
    auto *i = st->as<fe::IfStmt>();
    if (!i || !i->elseBody.empty() || i->thenBody.empty())
      return n;
    for (const fe::StmtPtr &inner : i->thenBody) {
      auto *es = inner->as<fe::ExprStmtAST>();
      auto *c = es ? es->expr->as<fe::CallExpr>() : nullptr;
      if (!c || c->builtin != fe::Builtin::CopyAsync)
        return n;
    }
    ++n;
  }
  return n;
}
