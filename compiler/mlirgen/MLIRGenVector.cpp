//===- MLIRGenVector.cpp - vectors, packed halves, cache-hinted ld/st -----===//
//
// A vec<T, N> value is a builtin vector<NxT>: built and read with
// llvm.insertelement / llvm.extractelement (no vector-dialect dependency),
// computed with arith on vectors (LLVM's NVPTX backend selects
// add/sub/mul/min/max.f16x2 and cvt.rn.f16x2.f32 for the 2 x f16 forms).
// load/store carry their cache hints as tile.load/tile.store attributes and
// a tile.create_policy operand.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tile::mlirgen {

Type MLIRGenImpl::vectorType(const fe::Type &t) {
  return VectorType::get({t.lanes}, scalarType(t.scalar));
}

Value MLIRGenImpl::genVector(Location l, const fe::Type &type,
                             const std::vector<fe::ExprPtr> &elems) {
  // An fp8 vector is built as bytes (LLVM has no vectors of f8).
  auto vt = cast<VectorType>(vectorType(type));
  bool fp8 = fe::isFp8Kind(type.scalar);
  Value v = LLVM::PoisonOp::create(
      builder, l, fp8 ? VectorType::get(vt.getShape(), builder.getI8Type()) : Type(vt));
  for (size_t i = 0; i < elems.size(); ++i) {
    Value idx = intConst(l, builder.getI32Type(), (int64_t)i);
    v = LLVM::InsertElementOp::create(builder, l, v, fp8Storage(l, genExpr(*elems[i])), idx);
  }
  return fp8FromStorage(l, v, vt);
}

Value MLIRGenImpl::genVectorLane(Location l, Value v, int lane) {
  Value bits = fp8Storage(l, v);
  Value x = LLVM::ExtractElementOp::create(builder, l, bits, intConst(l, builder.getI32Type(), lane));
  return fp8FromStorage(l, x, cast<VectorType>(v.getType()).getElementType());
}

/// `v[k] = x` / `v[k] op= x` on a `var` vector: the slot's vector with
/// element k replaced. k is a constant in every copy (Sema), so after
/// folding the insertelement has a constant lane and SROA keeps the vector
/// in registers, as for a read.
void MLIRGenImpl::genVectorElementAssign(const fe::AssignStmt &s, const fe::IndexExpr &target) {
  Location l = loc(s.loc);
  Value slot = slots.lookup(target.base->as<fe::VarRefExpr>()->decl);
  Value lane = castInt(l, genExpr(*target.index), builder.getI32Type());
  Value value = bindValue(l, genExpr(*s.value), s.target->type);
  Value vec = loadWeak(l, slot);
  if (std::optional<fe::BinaryOp> op = fe::assignBinaryOp(s.op)) {
    Value old = LLVM::ExtractElementOp::create(builder, l, fp8Storage(l, vec), lane);
    Value oldElem = fp8FromStorage(l, old, cast<VectorType>(vec.getType()).getElementType());
    value = genBinaryOp(l, *op, oldElem, value, s.target->type);
  }
  Value vecBits = fp8Storage(l, vec);
  Value valueBits = fp8Storage(l, value);
  Value bits = LLVM::InsertElementOp::create(builder, l, vecBits, valueBits, lane);
  storeWeak(l, fp8FromStorage(l, bits, vec.getType()), slot);
}

/// Element-wise float arithmetic; Sema allows + - * only.
Value MLIRGenImpl::genVectorArith(Location l, fe::BinaryOp op, Value lhs, Value rhs) {
  switch (op) {
  case fe::BinaryOp::Add:
    return arith::AddFOp::create(builder, l, lhs, rhs);
  case fe::BinaryOp::Sub:
    return arith::SubFOp::create(builder, l, lhs, rhs);
  default:
    return arith::MulFOp::create(builder, l, lhs, rhs);
  }
}

/// Float vector -> float vector of the same length, element-wise with the
/// scalar rules (f16 <-> bf16 through f32; narrowing rounds to nearest even).
Value MLIRGenImpl::genVectorCast(Location l, Value v, const fe::Type &to) {
  Type target = vectorType(to);
  if (v.getType() == target)
    return v;
  auto from = cast<VectorType>(v.getType());
  if (fe::isFp8Kind(to.scalar) || isa<Float8E4M3FNType, Float8E5M2Type>(from.getElementType()))
    return genFp8VectorCast(l, v, cast<VectorType>(target)); // MLIRGenFp8.cpp
  unsigned fromBits = from.getElementTypeBitWidth(), toBits = bitWidth(to.scalar);
  if (fromBits == 16 && toBits == 16) {
    v = arith::ExtFOp::create(builder, l, VectorType::get(from.getShape(), builder.getF32Type()),
                              v);
    fromBits = 32;
  }
  if (fromBits < toBits)
    return arith::ExtFOp::create(builder, l, target, v);
  return arith::TruncFOp::create(builder, l, target, v);
}

static std::optional<CacheOp> cacheOpOf(::tile::cache::Op op) {
  if (op == ::tile::cache::Op::None)
    return std::nullopt;
  return static_cast<CacheOp>(static_cast<int>(op) - 1); // same order after None
}

static std::optional<EvictionPriority> evictOf(::tile::cache::Evict ev) {
  if (ev == ::tile::cache::Evict::None)
    return std::nullopt;
  return static_cast<EvictionPriority>(static_cast<int>(ev) - 1);
}

Value MLIRGenImpl::genLoadCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
  Type type = e.hints.vector ? vectorType(e.type) : cast<PtrType>(ptr.getType()).getElementType();
  const fe::MemoryHints &h = e.hints;
  // The policy (an inline `cache_policy(...)` included) is computed before the load.
  Value policy = h.policyArg >= 0 ? genExpr(*e.namedArgs[h.policyArg].expr) : Value();
  auto op = LoadOp::create(builder, l, type, ptr, order(e.order), scope(e.scope));
  if (auto c = cacheOpOf(h.cache))
    op.setCache(*c);
  if (auto ev = evictOf(h.evict))
    op.setEvict(*ev);
  if (h.prefetch)
    op.setPrefetch(static_cast<uint32_t>(h.prefetch));
  if (policy)
    op.getPolicyMutable().assign(policy);
  return op;
}

void MLIRGenImpl::genStoreCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
  Value value = genExpr(*e.args[1]);
  const fe::MemoryHints &h = e.hints;
  Value policy = h.policyArg >= 0 ? genExpr(*e.namedArgs[h.policyArg].expr) : Value();
  auto op = StoreOp::create(builder, l, value, ptr, order(e.order), scope(e.scope));
  if (auto c = cacheOpOf(h.cache))
    op.setCache(*c);
  if (auto ev = evictOf(h.evict))
    op.setEvict(*ev);
  if (policy)
    op.getPolicyMutable().assign(policy);
}

Value MLIRGenImpl::genCachePolicy(const fe::CallExpr &e) {
  auto primary = evictOf(e.policyPrimary);
  return CreatePolicyOp::create(builder, loc(e.loc), builder.getI64Type(),
                                primary.value_or(EvictionPriority::evict_normal),
                                APFloat(static_cast<float>(e.policyFraction)));
}

} // namespace mlir::tile::mlirgen
