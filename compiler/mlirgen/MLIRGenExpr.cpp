//===- MLIRGenExpr.cpp - typed tile AST -> tile/arith: expressions --------===//
#include "MLIRGenImpl.h"
#include "FloatBits.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "tilec/Target/TargetFacts.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

const ArrayInfo &MLIRGenImpl::distArray(const fe::ExprAST &e) {
  auto *ref = e.as<fe::VarRefExpr>();
  return arrays[ref->decl->array];
}

/// h.local_base of CTA `rank` (this CTA when rank is null): rank * per_block.
Value MLIRGenImpl::localBase(Location l, const ArrayInfo &a, Value rank) {
  Type t = a.count.getType();
  if (!rank)
    rank = sreg(l, SpecialReg::cluster_ctarank);
  return arith::MulIOp::create(builder, l, castInt(l, rank, t, true), a.perBlock);
}

/// Elements CTA `rank` owns: clamp(N - local_base, 0, per_block).
Value MLIRGenImpl::localLength(Location l, const ArrayInfo &a, Value rank) {
  Type t = a.count.getType();
  Value rest = arith::SubIOp::create(builder, l, a.count, localBase(l, a, rank));
  Value lo = arith::MaxSIOp::create(builder, l, rest, intConst(l, t, 0));
  return arith::MinSIOp::create(builder, l, lo, a.perBlock);
}

/// An expression of array type (shared array, view) as a pointer + length.
View MLIRGenImpl::genView(const fe::ExprAST &e) {
  Location l = loc(e.loc);
  if (auto *ref = e.as<fe::VarRefExpr>()) {
    if (ref->decl->kind == fe::DeclKind::SharedArray) {
      const ArrayInfo &a = arrays[ref->decl->array];
      return {a.base, a.count};
    }
    return views.lookup(ref->decl);
  }
  if (auto *m = e.as<fe::MemberExpr>()) { // h.local
    const ArrayInfo &a = distArray(*m->base);
    return {a.base, localLength(l, a)};
  }
  auto *call = e.as<fe::CallExpr>(); // remote(a, rank)
  Value rank = castInt(l, genExpr(*call->args[1]), builder.getI32Type());
  const fe::ExprAST &src = *call->args[0];
  View v;
  if (auto *m = src.as<fe::MemberExpr>()) {
    const ArrayInfo &a = distArray(*m->base);
    v = {a.base, localLength(l, a, rank)}; // the peer's part of h
  } else {
    v = genView(src);
  }
  auto clusterPtr = PtrType::get(
      builder.getContext(), cast<PtrType>(v.ptr.getType()).getElementType(), AddressSpace::cluster);
  return {MapaOp::create(builder, l, clusterPtr, v.ptr, rank), v.len};
}

/// Address of `base[index]`. Elements of a dshared array live in CTA
/// index / per_block at offset index % per_block (reached through mapa).
Value MLIRGenImpl::genAddress(const fe::IndexExpr &e) {
  Location l = loc(e.loc);
  const fe::Type &bt = e.base->type;
  if (bt.isTensor()) // A[i, j] / peer(A, d)[i, j] on a symmetric tensor (MLIRGenPeer.cpp)
    return genTensorElementAddress(e);
  if (bt.dims.size() > 1 || !e.moreIndices.empty() ||
      (bt.kind == fe::Type::SharedArray && e.base->is<fe::VarRefExpr>() &&
       e.base->as<fe::VarRefExpr>()->decl->array &&
       e.base->as<fe::VarRefExpr>()->decl->array->isTmaTile))
    return genTileAddress(e);
  if (bt.kind == fe::Type::LocalArray)
    return genLocalAddress(e);
  if (bt.kind == fe::Type::DistArray) {
    const ArrayInfo &a = distArray(*e.base);
    Value index = genExpr(*e.index);
    Type t = index.getType().getIntOrFloatBitWidth() >= a.count.getType().getIntOrFloatBitWidth()
                 ? index.getType()
                 : a.count.getType();
    index = castInt(l, index, t, e.index->type.isUnsigned());
    Value perBlock = castInt(l, a.perBlock, t);
    // per_block is 0 when a run-time N is 0 (then every index is out of
    // bounds); dividing by at least 1 keeps udiv/urem defined (LLVM: udiv by
    // 0 is undefined behaviour). A constant per_block is already >= 1.
    if (!a.perBlock.getDefiningOp<arith::ConstantOp>())
      perBlock = arith::MaxUIOp::create(builder, l, perBlock, intConst(l, t, 1));
    // Unsigned: in-range indices are non-negative, and division by a
    // constant per_block becomes a multiply.
    Value owner = arith::DivUIOp::create(builder, l, index, perBlock);
    Value offset = arith::RemUIOp::create(builder, l, index, perBlock);
    auto clusterPtr =
        PtrType::get(builder.getContext(), scalarType(bt.scalar), AddressSpace::cluster);
    Value peer =
        MapaOp::create(builder, l, clusterPtr, a.base, castInt(l, owner, builder.getI32Type()));
    return PtrAddOp::create(builder, l, peer.getType(), peer, offset);
  }
  Value base = bt.isPointer() ? genExpr(*e.base) : genView(*e.base).ptr;
  Value index = genExpr(*e.index);
  // The element offset is signed (a GEP index): an unsigned index is
  // zero-extended first, so u32 indices >= 2^31 reach forward.
  if (e.index->type.isUnsigned() && index.getType().getIntOrFloatBitWidth() < 64)
    index = castInt(l, index, builder.getI64Type(), /*isUnsigned=*/true);
  return PtrAddOp::create(builder, l, base.getType(), base, index);
}

Value MLIRGenImpl::genExpr(const fe::ExprAST &e) {
  Location l = loc(e.loc);
  // An array where Sema took a pointer: its first element.
  if (e.type.kind == fe::Type::SharedArray || e.type.kind == fe::Type::ArrayView)
    return genView(e).ptr;
  switch (e.kind()) {
  case fe::ExprAST::IntLiteral: {
    auto *lit = e.as<fe::IntLiteralExpr>();
    Type t = scalarType(e.type.scalar);
    if (e.type.isFloat())
      return arith::ConstantOp::create(builder, l, t, builder.getFloatAttr(t, double(lit->value)));
    return intConst(l, t, lit->value);
  }
  case fe::ExprAST::FloatLiteral: {
    Type t = scalarType(e.type.scalar);
    double v = e.as<fe::FloatLiteralExpr>()->value;
    Value c = arith::ConstantOp::create(builder, l, t, builder.getFloatAttr(t, v));
    return std::isnan(v) ? pinFloatBits(builder, l, c) : c; // `nan`, or a constant's NaN
  }
  case fe::ExprAST::BoolLiteral:
    return boolConst(l, e.as<fe::BoolLiteralExpr>()->value);
  case fe::ExprAST::VarRef: {
    const fe::Decl *d = e.as<fe::VarRefExpr>()->decl;
    if (d->kind == fe::DeclKind::Var)
      return loadWeak(l, slots.lookup(d));
    return values.lookup(d);
  }
  case fe::ExprAST::Unary:
    return genUnary(*e.as<fe::UnaryExpr>());
  case fe::ExprAST::Binary:
    return genBinary(*e.as<fe::BinaryExpr>());
  case fe::ExprAST::Cast:
    return genCast(*e.as<fe::CastExpr>());
  case fe::ExprAST::Index: {
    auto &index = *e.as<fe::IndexExpr>();
    if (index.base->type.isVector()) { // v[k]: k is a constant (Sema), folded by canonicalize
      Value lane = castInt(l, genExpr(*index.index), builder.getI32Type());
      Value base = genExpr(*index.base); // an fp8 vector is read as bytes
      Value x = LLVM::ExtractElementOp::create(builder, l, fp8Storage(l, base), lane);
      return fp8FromStorage(l, x, cast<VectorType>(base.getType()).getElementType());
    }
    return loadWeak(l, genAddress(index));
  }
  case fe::ExprAST::Member: { // h.local_base (h.local is a view: genView), v.x
    auto &m = *e.as<fe::MemberExpr>();
    if (m.member == fe::MemberKind::VectorLane)
      return genVectorLane(l, genExpr(*m.base), m.lane);
    return localBase(l, distArray(*m.base));
  }
  case fe::ExprAST::Call:
    return genCall(*e.as<fe::CallExpr>());
  case fe::ExprAST::Vector: // store_async's VALUE is read by genSyncCall
    return genVector(l, e.type, e.as<fe::VectorExpr>()->elems);
  case fe::ExprAST::Select:
    return genSelect(*e.as<fe::SelectExpr>());
  }
  return nullptr;
}

Value MLIRGenImpl::genUnary(const fe::UnaryExpr &e) {
  if (e.type.isDistributed()) // MLIRGenEpilogue.cpp
    return genFragmentNeg(e);
  Location l = loc(e.loc);
  Value v = genExpr(*e.operand);
  Type t = v.getType();
  switch (e.op) {
  case fe::UnaryOp::Neg:
    if (isa<FloatType>(getElementTypeOrSelf(t)))
      return arith::NegFOp::create(builder, l, v);
    return arith::SubIOp::create(builder, l, intConst(l, t, 0), v);
  case fe::UnaryOp::Not:
  case fe::UnaryOp::BitNot:
    return arith::XOrIOp::create(builder, l, v, intConst(l, t, -1));
  }
  return v;
}

Value MLIRGenImpl::genBinary(const fe::BinaryExpr &e) {
  Location l = loc(e.loc);
  if (e.type.isDistributed()) // MLIRGenEpilogue.cpp
    return genFragmentBinary(e);
  if (e.op == fe::BinaryOp::LogicalAnd || e.op == fe::BinaryOp::LogicalOr)
    return genShortCircuit(e);
  Value lhs = genExpr(*e.lhs), rhs = genExpr(*e.rhs);
  return genBinaryOp(l, e.op, lhs, rhs, e.lhs->type);
}

/// `a && b` / `a || b` evaluate b only when needed (`i < n && p[i] > 0`).
Value MLIRGenImpl::genShortCircuit(const fe::BinaryExpr &e) {
  Location l = loc(e.loc);
  bool isAnd = e.op == fe::BinaryOp::LogicalAnd;
  Value lhs = genExpr(*e.lhs);
  auto op = scf::IfOp::create(builder, l, builder.getI1Type(), lhs, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPointToStart(isAnd ? op.thenBlock() : op.elseBlock());
  scf::YieldOp::create(builder, l, genExpr(*e.rhs));
  builder.setInsertionPointToStart(isAnd ? op.elseBlock() : op.thenBlock());
  scf::YieldOp::create(builder, l, boolConst(l, !isAnd));
  return op.getResult(0);
}

/// `lhs op rhs` on values of the operand type `type` (pointer + integer
/// offsets by elements).
Value MLIRGenImpl::genBinaryOp(Location l, fe::BinaryOp op, Value lhs, Value rhs,
                               const fe::Type &type) {
  using B = fe::BinaryOp;
  if (type.isVector())
    return genVectorArith(l, op, lhs, rhs);
  if (type.isPointer()) {
    if (op == B::Sub)
      rhs = arith::SubIOp::create(builder, l, intConst(l, rhs.getType(), 0), rhs);
    return PtrAddOp::create(builder, l, lhs.getType(), lhs, rhs);
  }
  if (type.isFloat()) {
    switch (op) {
    // Contractible under --fmad (the default): a product feeding a sum may
    // become one fma.rn (docs/reference/operators.md "Floats").
    case B::Add:
      return arith::AddFOp::create(builder, l, lhs, rhs, contractFlags());
    case B::Sub:
      return arith::SubFOp::create(builder, l, lhs, rhs, contractFlags());
    case B::Mul:
      return arith::MulFOp::create(builder, l, lhs, rhs, contractFlags());
    case B::Div:
      return arith::DivFOp::create(builder, l, lhs, rhs);
    default:
      break;
    }
    // Ordered comparisons, except != which is true for NaN (as in C).
    arith::CmpFPredicate pred = arith::CmpFPredicate::OEQ;
    switch (op) {
    case B::Eq:
      pred = arith::CmpFPredicate::OEQ;
      break;
    case B::Ne:
      pred = arith::CmpFPredicate::UNE;
      break;
    case B::Lt:
      pred = arith::CmpFPredicate::OLT;
      break;
    case B::Le:
      pred = arith::CmpFPredicate::OLE;
      break;
    case B::Gt:
      pred = arith::CmpFPredicate::OGT;
      break;
    case B::Ge:
      pred = arith::CmpFPredicate::OGE;
      break;
    default:
      break;
    }
    return arith::CmpFOp::create(builder, l, pred, lhs, rhs);
  }
  if (fe::isShift(op) && rhs.getType() != lhs.getType())
    rhs = shiftAmountAs(l, rhs, lhs.getType());
  if (type.isUnsigned()) {
    switch (op) {
    case B::Div:
      return genDivRemU(l, /*isRem=*/false, lhs, rhs);
    case B::Rem:
      return genDivRemU(l, /*isRem=*/true, lhs, rhs);
    case B::Shr:
      return genShrU(l, lhs, rhs);
    case B::Lt:
      return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, lhs, rhs);
    case B::Le:
      return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ule, lhs, rhs);
    case B::Gt:
      return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ugt, lhs, rhs);
    case B::Ge:
      return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::uge, lhs, rhs);
    default:
      break; // + - * << & | ^ == != are sign-agnostic
    }
  }
  switch (op) {
  case B::Add:
    return arith::AddIOp::create(builder, l, lhs, rhs);
  case B::Sub:
    return arith::SubIOp::create(builder, l, lhs, rhs);
  case B::Mul:
    return arith::MulIOp::create(builder, l, lhs, rhs);
  case B::Div:
    return genDivRem(l, /*isRem=*/false, lhs, rhs);
  case B::Rem:
    return genDivRem(l, /*isRem=*/true, lhs, rhs);
  case B::Shl:
    return genShift(l, /*left=*/true, lhs, rhs);
  case B::Shr:
    return genShift(l, /*left=*/false, lhs, rhs);
  case B::BitAnd:
    return arith::AndIOp::create(builder, l, lhs, rhs);
  case B::BitOr:
    return arith::OrIOp::create(builder, l, lhs, rhs);
  case B::BitXor:
    return arith::XOrIOp::create(builder, l, lhs, rhs);
  case B::LogicalAnd:
    return arith::AndIOp::create(builder, l, lhs, rhs);
  case B::LogicalOr:
    return arith::OrIOp::create(builder, l, lhs, rhs);
  default:
    break;
  }
  arith::CmpIPredicate pred = arith::CmpIPredicate::eq;
  switch (op) {
  case B::Ne:
    pred = arith::CmpIPredicate::ne;
    break;
  case B::Lt:
    pred = arith::CmpIPredicate::slt;
    break;
  case B::Le:
    pred = arith::CmpIPredicate::sle;
    break;
  case B::Gt:
    pred = arith::CmpIPredicate::sgt;
    break;
  case B::Ge:
    pred = arith::CmpIPredicate::sge;
    break;
  default:
    break;
  }
  return arith::CmpIOp::create(builder, l, pred, lhs, rhs);
}

Value MLIRGenImpl::genCast(const fe::CastExpr &e) {
  Location l = loc(e.loc);
  Value v = genExpr(*e.operand);
  const fe::Type &from = e.operand->type;
  if (e.type.isDistributed()) // MLIRGenEpilogue.cpp
    return genFragmentCast(e, v);
  if (e.type.isVector())
    return genVectorCast(l, v, e.type);
  if (from.kind == fe::Type::SharedArray || from.kind == fe::Type::ArrayView)
    return v; // `s as ptr<T, shared>`: its first element
  // A global pointer and its 64-bit address (Sema allows no other pointer cast).
  if (e.type.isPointer())
    return GlobalPtrOp::create(builder, l, valueType(e.type), v);
  if (from.isPointer())
    return GlobalAddressOp::create(builder, l, builder.getI64Type(), v);
  Type to = scalarType(e.type.scalar);
  if (v.getType() == to)
    return v;
  if (fe::isFp8Kind(from.scalar) || fe::isFp8Kind(e.type.scalar)) // MLIRGenFp8.cpp
    return genFp8Cast(l, v, to);
  if (from.isInteger() && e.type.isInteger())
    return castInt(l, v, to, from.isUnsigned()); // the source's signedness extends
  if (from.isInteger() && from.isUnsigned())
    return arith::UIToFPOp::create(builder, l, to, v);
  if (from.isInteger()) // i1 -> float is rejected by Sema
    return arith::SIToFPOp::create(builder, l, to, v);
  if (e.type.isInteger()) {
    if (e.type.isUnsigned() || from.isScalar(fe::ScalarKind::F64))
      return genFloatToIntAny(l, v, to, e.type.isUnsigned());
    return genFloatToInt(l, v, to);
  }
  // A NaN's bits after a conversion are the GPU's (FloatBits.h): no folder
  // converts a NaN it made.
  v = readFloatBits(builder, *module, l, v);
  // f64 <-> f16/bf16/f32: one rounding (cvt.rn.f16.f64 and friends).
  if (from.isScalar(fe::ScalarKind::F64) || e.type.isScalar(fe::ScalarKind::F64))
    return v.getType().getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(builder, l, to, v))
               : Value(arith::TruncFOp::create(builder, l, to, v));
  // float -> float: through f32 (f16 <-> bf16 has no direct conversion).
  if (v.getType().getIntOrFloatBitWidth() == 16 && to.getIntOrFloatBitWidth() == 16)
    v = arith::ExtFOp::create(builder, l, builder.getF32Type(), v);
  if (v.getType().getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(builder, l, to, v);
  return arith::TruncFOp::create(builder, l, to, v);
}

MemoryOrder MLIRGenImpl::order(fe::MemOrder o) {
  switch (o) {
  case fe::MemOrder::Weak:
    return MemoryOrder::weak;
  case fe::MemOrder::Relaxed:
    return MemoryOrder::relaxed;
  case fe::MemOrder::Acquire:
    return MemoryOrder::acquire;
  case fe::MemOrder::Release:
    return MemoryOrder::release;
  case fe::MemOrder::AcqRel:
    return MemoryOrder::acq_rel;
  case fe::MemOrder::Sc:
    return MemoryOrder::sc;
  }
  return MemoryOrder::relaxed;
}

MemoryScope MLIRGenImpl::scope(fe::MemScope s) {
  switch (s) {
  case fe::MemScope::Cta:
    return MemoryScope::cta;
  case fe::MemScope::Cluster:
    return MemoryScope::cluster;
  case fe::MemScope::Gpu:
    return MemoryScope::gpu;
  case fe::MemScope::Sys:
    return MemoryScope::sys;
  }
  return MemoryScope::gpu;
}

Value MLIRGenImpl::idRegister(Location l, SpecialReg x, int axis) {
  return sreg(l, static_cast<SpecialReg>(static_cast<int>(x) + axis));
}

Value MLIRGenImpl::genCall(const fe::CallExpr &e) {
  if (e.inlined)
    return genInlinedCall(e);
  Location l = loc(e.loc);
  using BI = fe::Builtin;
  if (isEpilogueCall(e)) // fragment math, rows/cols, row vectors, stores: MLIRGenEpilogue.cpp
    return genEpilogueCall(e);
  if (e.builtin >= BI::DeviceRank && e.builtin <= BI::SemWait) // MLIRGenPeer.cpp
    return genPeerCall(e);
  switch (e.builtin) {
  case BI::ThreadId:
    return idRegister(l, SpecialReg::tid_x, e.axis);
  case BI::BlockDim:
    return idRegister(l, SpecialReg::ntid_x, e.axis);
  case BI::BlockId:
    return idRegister(l, SpecialReg::ctaid_x, e.axis);
  case BI::GridDim:
    return idRegister(l, SpecialReg::nctaid_x, e.axis);
  case BI::ClusterRank:
    return sreg(l, SpecialReg::cluster_ctarank);
  case BI::ClusterSize:
    return sreg(l, SpecialReg::cluster_nctarank);
  case BI::ClusterId:
    return idRegister(l, SpecialReg::clusterid_x, e.axis);
  case BI::ClusterDim:
    return idRegister(l, SpecialReg::cluster_nctaid_x, e.axis);
  case BI::BlockInCluster:
    return idRegister(l, SpecialReg::cluster_ctaid_x, e.axis);
  case BI::NumClusters:
    return idRegister(l, SpecialReg::nclusterid_x, e.axis);
  case BI::LaneId:
    return sreg(l, SpecialReg::laneid);
  case BI::WarpId: {
    Value tid = linearThread(l).first;
    return arith::DivUIOp::create(builder, l, tid,
                                  intConst(l, builder.getI32Type(), ::tile::target::kWarpSize));
  }
  case BI::Min:
  case BI::Max: {
    Value a = genExpr(*e.args[0]), b = genExpr(*e.args[1]);
    return minMax(l, e.builtin == BI::Min, a, b, e.type.isUnsigned());
  }
  case BI::Select: { // of scalars, pointers or vectors (fragments: genEpilogueCall)
    // `c ? a : b` without its branch (genSelect): arith.select, which every
    // analysis of a chosen value (alignment, known bits, uniformity) reads.
    Value c = genExpr(*e.args[0]), a = genExpr(*e.args[1]), b = genExpr(*e.args[2]);
    return arith::SelectOp::create(builder, l, c, a, b);
  }
  case BI::Clamp: {
    Value x = genExpr(*e.args[0]), lo = genExpr(*e.args[1]), hi = genExpr(*e.args[2]);
    bool u = e.type.isUnsigned();
    return minMax(l, /*isMin=*/true, minMax(l, /*isMin=*/false, x, lo, u), hi, u);
  }
  case BI::Bitcast:
  case BI::Popc:
  case BI::Clz:
  case BI::Ctz:
  case BI::Brev:
  case BI::Bfind:
  case BI::MulHi:
    return genBitCall(e);
  case BI::StaticAssert: // checked by Sema; nothing runs
    return nullptr;
  case BI::Nanosleep: // the u32 / i32 count's bits
    NanosleepOp::create(builder, l, genExpr(*e.args[0]));
    return nullptr;
  case BI::Len: {
    const fe::ExprAST &a = *e.args[0];
    if (a.type.kind == fe::Type::DistArray)
      return distArray(a).count;
    return genView(a).len;
  }
  case BI::SyncThreads:
    if (e.role) { // inside a role: the role's named barrier
      genRoleBarrier(l, *e.role);
      return nullptr;
    }
    BarrierOp::create(builder, l, /*aligned=*/false);
    return nullptr;
  case BI::SyncThreadsCount:
  case BI::SyncThreadsAnd:
  case BI::SyncThreadsOr:
    return genBarrierReduction(e);
  case BI::ClusterSync:
    ClusterSyncOp::create(builder, l, /*aligned=*/false);
    return nullptr;
  case BI::Load:
    return genLoadCall(e);
  case BI::Store:
    genStoreCall(e);
    return nullptr;
  case BI::CachePolicy:
    return genCachePolicy(e);
  case BI::Pack:
    return genVector(l, e.type, e.args);
  case BI::AtomicCas: {
    Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
    Value cmp = genExpr(*e.args[1]), val = genExpr(*e.args[2]);
    return AtomicCASOp::create(builder, l, val.getType(), ptr, cmp, val, order(e.order),
                               scope(e.scope));
  }
  case BI::AtomicAdd:
    return genAtomic(e, AtomicKind::add);
  case BI::AtomicMin: // atom.min.u32 / .s32 by the element's signedness
    return genAtomic(e, e.type.isUnsigned() ? AtomicKind::umin : AtomicKind::min);
  case BI::AtomicMax:
    return genAtomic(e, e.type.isUnsigned() ? AtomicKind::umax : AtomicKind::max);
  case BI::AtomicExch:
    return genAtomic(e, AtomicKind::exch);
  case BI::AtomicAnd:
    return genAtomic(e, AtomicKind::and_);
  case BI::AtomicOr:
    return genAtomic(e, AtomicKind::or_);
  case BI::AtomicXor:
    return genAtomic(e, AtomicKind::xor_);
  case BI::CopyAsync:
  case BI::PrefetchTensor:
  case BI::Dim:
    return genTmaCall(e);
  case BI::Zeros:
  case BI::Mma:
    return genMmaCall(e); // MLIRGenMma.cpp
  case BI::Arrive:
  case BI::ArriveExpectTx:
  case BI::ExpectTx:
  case BI::Wait:
  case BI::StoreAsync:
  case BI::Fence:
  case BI::FenceProxyAsync:
  case BI::FenceMBarrierInit:
  case BI::ClusterArrive:
  case BI::ClusterWait:
    return genSyncCall(e);
  case BI::WarpgroupRank:
  case BI::RoleThreadId:
  case BI::RoleThreads:
  case BI::ElectOne:
    return genRoleCall(e);
  case BI::Unknown:
    break;
  default:
    if (fe::isWarpBuiltin(e.builtin))
      return genWarpCall(e);
    if (fe::isMathBuiltin(e.builtin))
      return genMathCall(e);
    break;
  }
  return nullptr;
}

Value MLIRGenImpl::genAtomic(const fe::CallExpr &e, AtomicKind kind) {
  Location l = loc(e.loc);
  Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
  Value val = genExpr(*e.args[1]);
  return AtomicRMWOp::create(builder, l, val.getType(), kind, ptr, val, order(e.order),
                             scope(e.scope));
}

/// Signed or unsigned integer / float min and max. Floats: a NaN operand
/// is ignored, signalling ones too, as PTX min/max do (f16x2: min.f16x2):
/// llvm.minimumnum, whose constant folding agrees; llvm.minnum (arith's
/// minnumf) selects the same instruction but folds min(sNaN, x) to NaN.
Value MLIRGenImpl::minMax(Location l, bool isMin, Value a, Value b, bool isUnsigned) {
  if (isa<FloatType>(getElementTypeOrSelf(a.getType())))
    return LLVM::CallIntrinsicOp::create(
               builder, l, a.getType(),
               builder.getStringAttr(isMin ? "llvm.minimumnum" : "llvm.maximumnum"),
               ValueRange{a, b})
        .getResult(0);
  if (isUnsigned)
    return isMin ? Value(arith::MinUIOp::create(builder, l, a, b))
                 : Value(arith::MaxUIOp::create(builder, l, a, b));
  return isMin ? Value(arith::MinSIOp::create(builder, l, a, b))
               : Value(arith::MaxSIOp::create(builder, l, a, b));
}
