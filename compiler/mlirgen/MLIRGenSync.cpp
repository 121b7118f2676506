//===- MLIRGenSync.cpp - mbarriers, st.async, fences, cluster barriers -----===//
//
// mbarriers are i64 objects in static shared memory. The compiler initialises
// them (thread 0 of the CTA, on kernel entry after every shared allocation,
// see genKernel) and a CTA barrier makes the init visible to the
// CTA; the sync passes add the fence.mbarrier_init + cluster barrier when
// peers or st.async complete them.
// Orders and scopes the source did not write stay unset for the passes to
// choose; waits carry no parity (tile-mbarrier-phases derives it).
//===----------------------------------------------------------------------===//
#include "MLIRGenContract.h"
#include "MLIRGenImpl.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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
  Value first =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, tid, intConst(l, i32, 0));
  auto init = scf::IfOp::create(builder, l, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(init.thenBlock()->getTerminator());
    for (const fe::MBarrierStmt *s : kernelAST->mbarriers) {
      Location sl = loc(s->loc);
      Value base = mbarriers[s];
      Value count = castInt(sl, genExpr(*s->count), i32);
      for (int64_t i = 0, n = s->arraySize.value_or(1); i < n; ++i) {
        Value ptr = i == 0
                        ? base
                        : PtrAddOp::create(builder, sl, base.getType(), base, intConst(sl, i32, i))
                              .getResult();
        auto init = MBarrierInitOp::create(builder, sl, ptr, count);
        // A count from the arguments is the runtime's to check at launch.
        if (!s->constantCount)
          (void)setMBarrierCountContract(init, *s);
      }
    }
    genRingInits(); // MLIRGenRings.cpp
  }
  BarrierOp::create(builder, l, /*aligned=*/false);
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
    ctx->getLoadedDialect<TileDialect>()->getNameAttrHelper().setAttr(
        wait, builder.getStringAttr(mbarrierName(*e.args[0])));
    return nullptr;
  }
  case BI::StoreAsync:
    genStoreAsync(e);
    return nullptr;
  case BI::Fence:
    FenceOp::create(builder, l, orderAttr, scopeAttr); // open ones: tile-sync-semantics

    return nullptr;
  case BI::FenceProxyAsync:
    FenceProxyAsyncOp::create(builder, l);
    return nullptr;
  case BI::FenceMBarrierInit:
    FenceMBarrierInitOp::create(builder, l);
    return nullptr;
  case BI::ClusterArrive:
    ClusterArriveOp::create(builder, l, orderAttr, /*aligned=*/false);
    return nullptr;
  case BI::ClusterWait:
    ClusterWaitOp::create(builder, l, /*aligned=*/false);
    return nullptr;
  default:
    return nullptr;
  }
}

/// A lower bound on the trailing zero bits of every value v takes: enough to
/// prove `k * 4`, `i << 2`, `4 * i + 8` and counters of `for i in 0 .. n step 4`
/// multiples of a vector width.
static unsigned knownTrailingZeros(Value v, unsigned depth = 0) {
  unsigned width = v.getType().getIntOrFloatBitWidth();
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? width : c.countr_zero();
  if (depth > 16)
    return 0;
  auto tz = [&](Value x) { return knownTrailingZeros(x, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar()) // lb + k * step
      return std::min(tz(loop.getLowerBound()), tz(loop.getStep()));
    return 0;
  }
  Operation *def = v.getDefiningOp();
  if (isa<arith::AddIOp, arith::SubIOp, arith::OrIOp, arith::XOrIOp>(def))
    return std::min(tz(def->getOperand(0)), tz(def->getOperand(1)));
  if (isa<arith::MulIOp>(def))
    return std::min(width, tz(def->getOperand(0)) + tz(def->getOperand(1)));
  if (isa<arith::AndIOp>(def))
    return std::max(tz(def->getOperand(0)), tz(def->getOperand(1)));
  if (auto shl = dyn_cast<arith::ShLIOp>(def)) {
    APInt s;
    if (matchPattern(shl.getRhs(), m_ConstantInt(&s)) && s.ult(width))
      return std::min<unsigned>(width, tz(shl.getLhs()) + s.getZExtValue());
    return 0;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return std::min(width, tz(def->getOperand(0)));
  return 0;
}

static std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// Whether `a` and `b` hold the same value wherever both are defined: one SSA
/// value, equal constants, or one pure operation (name, properties, result)
/// of operands that are the same values in turn. A rank expression written
/// twice (`remote(t, r + 1)[i]` and `remote(b, r + 1)`) is generated twice;
/// this sees that both evaluate it alike (ids, parameters and `let` names
/// are pure or one SSA value).
static bool sameValue(Value a, Value b, int depth = 16) {
  if (a == b)
    return true;
  std::optional<int64_t> ca = constantOf(a), cb = constantOf(b);
  if (ca && cb)
    return *ca == *cb;
  auto ra = dyn_cast_or_null<OpResult>(a), rb = dyn_cast_or_null<OpResult>(b);
  if (depth == 0 || !ra || !rb || ra.getResultNumber() != rb.getResultNumber())
    return false;
  Operation *x = ra.getOwner(), *y = rb.getOwner();
  if (!isPure(x) || !isPure(y) || x->getNumRegions() || y->getNumRegions())
    return false;
  return OperationEquivalence::isEquivalentTo(
      x, y,
      [&](Value l, Value r) { return success(sameValue(l, r, depth - 1)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// `store_async(DST, VALUE, remote(b, r))`. Sema rejected every constant
/// placement that is out of bounds, misaligned or in the wrong CTA; what it
/// could not decide is settled here (docs/reference/sync.md, "store_async"):
///  - st.async writes into the CTA that holds the mbarrier (PTX ISA 9.7.9.12):
///    when the destination CTA (the remote() rank, or for a dshared element
///    the owners of the first and last element) is not provably the
///    mbarrier's, a run-time check traps with a report instead of storing
///    into one CTA and completing bytes in another;
///  - st.async.vN needs an address aligned to its size: a vector whose
///    element offset is not provably a multiple of N is stored as one vector
///    when the offset is aligned at run time, otherwise as N scalar st.async
///    to the same mbarrier, which complete the same number of bytes.
void MLIRGenImpl::genStoreAsync(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  const auto &dst = *e.args[0]->as<fe::IndexExpr>();
  SmallVector<Value> values;
  if (auto *vec = e.args[1]->as<fe::VectorExpr>())
    for (const auto &elem : vec->elems)
      values.push_back(genExpr(*elem));
  else
    values.push_back(genExpr(*e.args[1]));
  Value mbar = genMBarrierRef(*e.args[2]);
  Value barRank = mbar.getDefiningOp<MapaOp>().getRank();
  int64_t n = values.size();
  unsigned needZeros = llvm::Log2_64(n);
  Type i32 = builder.getI32Type();

  Value base, offset;          // the destination CTA's array and the element offset in it
  Value firstOwner, lastOwner; // the CTA(s) the elements land in, when not provably barRank
  bool provenAligned;
  const fe::Type &bt = dst.base->type;
  if (bt.kind == fe::Type::DistArray) {
    const ArrayInfo &a = distArray(*dst.base);
    Value index = genExpr(*dst.index);
    Type t = index.getType().getIntOrFloatBitWidth() >= a.count.getType().getIntOrFloatBitWidth()
                 ? index.getType()
                 : a.count.getType();
    index = castInt(l, index, t);
    Value perBlock = castInt(l, a.perBlock, t);
    Value owner = arith::DivUIOp::create(builder, l, index, perBlock);
    offset = arith::RemUIOp::create(builder, l, index, perBlock);
    auto clusterPtr =
        PtrType::get(builder.getContext(), scalarType(bt.scalar), AddressSpace::cluster);
    base = MapaOp::create(builder, l, clusterPtr, a.base, castInt(l, owner, i32));
    std::optional<int64_t> ci = constantOf(index), cpb = constantOf(perBlock),
                           cr = constantOf(barRank);
    bool provenOwner =
        ci && cpb && cr && *ci >= 0 && *ci / *cpb == *cr && (*ci + n - 1) / *cpb == *cr;
    if (!provenOwner) {
      firstOwner = castInt(l, owner, i32);
      lastOwner = n == 1
                      ? firstOwner
                      : castInt(l,
                                arith::DivUIOp::create(
                                    builder, l,
                                    arith::AddIOp::create(builder, l, index, intConst(l, t, n - 1)),
                                    perBlock),
                                i32);
    }
    provenAligned =
        knownTrailingZeros(perBlock) >= needZeros && knownTrailingZeros(index) >= needZeros;
  } else {
    View v = genView(*dst.base);
    base = v.ptr;
    offset = genExpr(*dst.index);
    Value rank = base.getDefiningOp<MapaOp>().getRank();
    if (!sameValue(rank, barRank))
      firstOwner = lastOwner = rank;
    provenAligned = knownTrailingZeros(offset) >= needZeros;
  }

  if (firstOwner) {
    Value first = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, firstOwner, barRank);
    Value last = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, lastOwner, barRank);
    Value wrong = arith::OrIOp::create(builder, l, first, last);
    auto check = scf::IfOp::create(builder, l, wrong, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(check.thenBlock()->getTerminator());
    auto trap = HangTrapOp::create(
        builder, l,
        builder.getStringAttr("tilec: " + sourcePosition(e.loc) +
                              ": store_async writes into CTA %d .. %d, but its mbarrier "
                              "is in CTA %d\n"),
        ValueRange{firstOwner, lastOwner, barRank});
    if (kernelAST->usesMma) // no call between wgmmas (C7510): the runtime's hang record
      builder.getContext()->getLoadedDialect<TileDialect>()->getHostRecordAttrHelper().setAttr(
          trap, builder.getUnitAttr());
  }

  auto store = [&](Value at, ValueRange vals) {
    StoreAsyncOp::create(builder, l, PtrAddOp::create(builder, l, base.getType(), base, at), vals,
                         mbar);
  };
  if (n == 1 || provenAligned) {
    store(offset, values);
    return;
  }
  Type t = offset.getType();
  Value low = arith::AndIOp::create(builder, l, offset, intConst(l, t, n - 1));
  Value aligned =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, low, intConst(l, t, 0));
  auto branch = scf::IfOp::create(builder, l, aligned, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  store(offset, values);
  builder.setInsertionPoint(branch.elseBlock()->getTerminator());
  for (int64_t k = 0; k < n; ++k)
    store(k == 0 ? offset
                 : arith::AddIOp::create(builder, l, offset, intConst(l, t, k)).getResult(),
          values[k]);
}
