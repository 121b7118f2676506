//===- MLIRGenSync.cpp - mbarriers, st.async, fences, cluster barriers -----===//
//
// mbarriers are i64 objects in static shared memory. The compiler initialises
// them (thread 0 of the CTA, on kernel entry after the last mbarrier's
// allocation, see genKernel) and a CTA barrier makes the init visible to the
// CTA; the sync passes add the fence.mbarrier_init + cluster barrier when
// peers or st.async complete them.
// Orders and scopes the source did not write stay unset for the passes to
// choose; waits carry no parity (tile-mbarrier-phases derives it).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

void MLIRGenImpl::genMBarrier(const fe::MBarrierStmt &s) {
  Location l = loc(s.loc);
  auto ptrType = PtrType::get(builder.getContext(), builder.getI64Type(), AddressSpace::shared);
  mbarriers[&s] = SharedAllocOp::create(builder, l, ptrType, Value(),
                                        builder.getI64IntegerAttr(s.arraySize.value_or(1)));
}

/// One thread initialises every mbarrier (PTX ISA 9.7.13.15.9 mbarrier.init),
/// then bar.sync publishes the inits to the CTA.
void MLIRGenImpl::genMBarrierInits(Location l) {
  Type i32 = builder.getI32Type();
  Value tid = linearThread(l).first;
  Value first = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, tid,
                                      intConst(l, i32, 0));
  auto init = scf::IfOp::create(builder, l, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(init.thenBlock()->getTerminator());
    for (const fe::MBarrierStmt *s : kernelAST->mbarriers) {
      Location sl = loc(s->loc);
      Value base = mbarriers[s];
      Value count = castInt(sl, genExpr(*s->count), i32);
      for (int64_t i = 0, n = s->arraySize.value_or(1); i < n; ++i) {
        Value ptr = i == 0 ? base
                           : PtrAddOp::create(builder, sl, base.getType(), base,
                                              intConst(sl, i32, i)).getResult();
        MBarrierInitOp::create(builder, sl, ptr, count);
      }
    }
  }
  BarrierOp::create(builder, l);
}

/// `b`, `b[i]` or `remote(b or b[i], rank)`.
Value MLIRGenImpl::genMBarrierRef(const fe::ExprAST &e) {
  Location l = loc(e.loc);
  if (auto *ref = e.as<fe::VarRefExpr>())
    return mbarriers[ref->decl->mbarrier];
  if (auto *index = e.as<fe::IndexExpr>()) {
    Value base = genMBarrierRef(*index->base);
    return PtrAddOp::create(builder, l, base.getType(), base, genExpr(*index->index));
  }
  auto &call = *e.as<fe::CallExpr>(); // remote()
  Value local = genMBarrierRef(*call.args[0]);
  Value rank = castInt(l, genExpr(*call.args[1]), builder.getI32Type());
  auto type = PtrType::get(builder.getContext(), builder.getI64Type(), AddressSpace::cluster);
  return MapaOp::create(builder, l, type, local, rank);
}

/// The mbarrier declaration an mbarrier expression names ("full", "slots[]").
static std::string mbarrierName(const fe::ExprAST &e) {
  if (auto *ref = e.as<fe::VarRefExpr>())
    return ref->name;
  if (auto *index = e.as<fe::IndexExpr>())
    return mbarrierName(*index->base) + "[]";
  return mbarrierName(*e.as<fe::CallExpr>()->args[0]);
}

Value MLIRGenImpl::genSyncCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  using BI = fe::Builtin;
  MLIRContext *ctx = builder.getContext();
  MemoryOrderAttr orderAttr = e.orderGiven ? MemoryOrderAttr::get(ctx, order(e.order)) : nullptr;
  MemoryScopeAttr scopeAttr = e.scopeGiven ? MemoryScopeAttr::get(ctx, scope(e.scope)) : nullptr;
  Type i32 = builder.getI32Type();
  switch (e.builtin) {
  case BI::Arrive:
  case BI::ArriveExpectTx: {
    Value mbar = genMBarrierRef(*e.args[0]);
    Value tx = e.builtin == BI::ArriveExpectTx ? castInt(l, genExpr(*e.args[1]), i32) : Value();
    MBarrierArriveOp::create(builder, l, mbar, tx, orderAttr, scopeAttr);
    return nullptr;
  }
  case BI::ExpectTx: {
    Value mbar = genMBarrierRef(*e.args[0]);
    MBarrierExpectTxOp::create(builder, l, mbar, castInt(l, genExpr(*e.args[1]), i32), scopeAttr);
    return nullptr;
  }
  case BI::Wait: {
    auto wait = MBarrierWaitOp::create(builder, l, genMBarrierRef(*e.args[0]), Value(), orderAttr,
                                       scopeAttr);
    wait->setAttr("tile.name", builder.getStringAttr(mbarrierName(*e.args[0])));
    return nullptr;
  }
  case BI::StoreAsync: {
    Value dst = genAddress(*e.args[0]->as<fe::IndexExpr>());
    SmallVector<Value> values;
    if (auto *vec = e.args[1]->as<fe::VectorExpr>())
      for (const auto &elem : vec->elems)
        values.push_back(genExpr(*elem));
    else
      values.push_back(genExpr(*e.args[1]));
    StoreAsyncOp::create(builder, l, dst, values, genMBarrierRef(*e.args[2]));
    return nullptr;
  }
  case BI::Fence:
    FenceOp::create(builder, l, order(e.order), scope(e.scope));
    return nullptr;
  case BI::FenceProxyAsync:
    FenceProxyAsyncOp::create(builder, l);
    return nullptr;
  case BI::FenceMBarrierInit:
    FenceMBarrierInitOp::create(builder, l);
    return nullptr;
  case BI::ClusterArrive:
    ClusterArriveOp::create(builder, l, /*relaxed=*/e.order == fe::MemOrder::Relaxed,
                            /*aligned=*/false);
    return nullptr;
  case BI::ClusterWait:
    ClusterWaitOp::create(builder, l, /*aligned=*/false);
    return nullptr;
  default:
    return nullptr;
  }
}
