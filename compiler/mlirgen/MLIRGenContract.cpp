//===- MLIRGenContract.cpp - the host contract on tile.kernel ---------------===//
//
// MLIRGen translates what the checker settled about a kernel's interface into
// the contract attributes of HostContract.h: one list, built here, is both
// the kernel's argument list and its parameter descriptions, so the order of
// the declared and the hidden parameters is defined once. The dynamic
// shared-memory rule is the count expression of each dynamic array as Sema
// typed it, so the runtime evaluates what genSharedArray generates: the same
// operators on the same types, with dshared's ceil-division by the cluster
// size left to the evaluator (DynamicSharedArray::distributed).
//===----------------------------------------------------------------------===//
#include "MLIRGenContract.h"
#include "tile/Dialect/Hint.h"
#include "tile/Dialect/HostContract.h"

#include "mlir/IR/Builders.h"


using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;
namespace fe = ::tile::frontend;
using ::tile::ScalarType;
using ::tile::SizeExpr;

namespace {

ScalarType contractScalar(fe::ScalarKind k) {
  switch (k) {
  case fe::ScalarKind::I1:
    return ScalarType::I1;
  case fe::ScalarKind::I8:
    return ScalarType::I8;
  case fe::ScalarKind::I16:
    return ScalarType::I16;
  case fe::ScalarKind::I32:
    return ScalarType::I32;
  case fe::ScalarKind::I64:
    return ScalarType::I64;
  case fe::ScalarKind::F16:
    return ScalarType::F16;
  case fe::ScalarKind::BF16:
    return ScalarType::BF16;
  case fe::ScalarKind::F32:
    return ScalarType::F32;
  case fe::ScalarKind::U8:
    return ScalarType::U8;
  case fe::ScalarKind::U16:
    return ScalarType::U16;
  case fe::ScalarKind::U32:
    return ScalarType::U32;
  case fe::ScalarKind::U64:
    return ScalarType::U64;
  case fe::ScalarKind::F64:
    return ScalarType::F64;
  case fe::ScalarKind::E4M3:
    return ScalarType::E4M3;
  case fe::ScalarKind::E5M2:
    return ScalarType::E5M2;
  }
  return ScalarType::I32;
}

SizeExpr::Op binaryOp(fe::BinaryOp op) {
  using B = fe::BinaryOp;
  using O = SizeExpr::Op;
  switch (op) {
  case B::Add:
    return O::Add;
  case B::Sub:
    return O::Sub;
  case B::Mul:
    return O::Mul;
  case B::Div:
    return O::Div;
  case B::Rem:
    return O::Rem;
  case B::Shl:
    return O::Shl;
  case B::Shr:
    return O::Shr;
  case B::BitAnd:
    return O::And;
  case B::BitOr:
    return O::Or;
  case B::BitXor:
    return O::Xor;
  case B::Eq:
    return O::Eq;
  case B::Ne:
    return O::Ne;
  case B::Lt:
    return O::Lt;
  case B::Le:
    return O::Le;
  case B::Gt:
    return O::Gt;
  case B::Ge:
    return O::Ge;
  case B::LogicalAnd:
    return O::LogicalAnd;
  case B::LogicalOr:
    return O::LogicalOr;
  }
  return O::Add;
}

/// The count expression; Sema admits only literals, parameters, unary and
/// binary operators and casts in it (Sema::checkCountExpr). `ok` is cleared
/// on anything else.
SizeExpr sizeExpr(const fe::ExprAST &e, bool &ok) {
  ScalarType type = contractScalar(e.type.scalar);
  switch (e.kind()) {
  case fe::ExprAST::IntLiteral: {
    const auto &lit = *static_cast<const fe::IntLiteralExpr *>(&e);
    SizeExpr r = SizeExpr::literal(type, lit.value);
    r.fvalue = static_cast<double>(lit.value); // as genExpr builds a float-typed one
    return r;
  }
  case fe::ExprAST::FloatLiteral: {
    SizeExpr r = SizeExpr::literal(type, 0);
    r.fvalue = static_cast<const fe::FloatLiteralExpr *>(&e)->value;
    return r;
  }
  case fe::ExprAST::BoolLiteral:
    return SizeExpr::literal(ScalarType::I1,
                             static_cast<const fe::BoolLiteralExpr *>(&e)->value ? 1 : 0);
  case fe::ExprAST::VarRef: {
    const fe::Decl *d = static_cast<const fe::VarRefExpr *>(&e)->decl;
    if (!d || d->kind != fe::DeclKind::Param)
      break;
    return SizeExpr::paramRef(type, d->paramIndex);
  }
  case fe::ExprAST::Unary: {
    const auto &u = *static_cast<const fe::UnaryExpr *>(&e);
    SizeExpr::Op op = u.op == fe::UnaryOp::Neg   ? SizeExpr::Op::Neg
                      : u.op == fe::UnaryOp::Not ? SizeExpr::Op::Not
                                                 : SizeExpr::Op::BitNot;
    return SizeExpr::unary(op, type, sizeExpr(*u.operand, ok));
  }
  case fe::ExprAST::Binary: {
    const auto &b = *static_cast<const fe::BinaryExpr *>(&e);
    return SizeExpr::binary(binaryOp(b.op), type, sizeExpr(*b.lhs, ok), sizeExpr(*b.rhs, ok));
  }
  case fe::ExprAST::Cast:
    return SizeExpr::unary(SizeExpr::Op::Cast, type,
                           sizeExpr(*static_cast<const fe::CastExpr *>(&e)->operand, ok));
  default:
    break;
  }
  // Sema rejected everything else; reaching here is a compiler bug, which
  // is reported rather than described as a wrong rule.
  ok = false;
  return SizeExpr::literal(type, 0);
}

/// A tensor parameter, with what SemaTma.cpp decided (the box every copy
/// moves, the tiles' swizzle).
::tile::TensorParamInfo tensorInfo(const fe::KernelAST &k, int index) {
  ::tile::TensorParamInfo t;
  for (const fe::TensorParamSyntax &s : k.tensorParams) {
    if (s.param != index)
      continue;
    t.element = contractScalar(s.elem);
    for (const fe::TensorExtentSyntax &e : s.extents) {
      ::tile::TensorParamInfo::Extent x;
      x.name = e.name;
      x.literal = e.literal;
      x.hiddenParam = e.hidden ? e.hidden->paramIndex : -1;
      t.extents.push_back(std::move(x));
    }
    for (int64_t b : s.box)
      t.box.push_back(static_cast<unsigned>(b));
    t.swizzle = static_cast<::tile::TmaSwizzle>(s.swizzleBytes);
    t.symmetric = s.symmetric;
  }
  return t;
}

/// A semaphore parameter: a u64, its count a literal or the hidden
/// SemaphoreCount parameter.
::tile::SemaphoreParamInfo semaphoreInfo(const fe::KernelAST &k, int index) {
  ::tile::SemaphoreParamInfo s;
  for (const fe::SemaphoreParamSyntax &x : k.semaphoreParams) {
    if (x.param != index)
      continue;
    s.count.literal = x.countLiteral;
    s.count.name = x.countName;
    s.count.hiddenParam = x.countDecl ? x.countDecl->paramIndex : -1;
  }
  return s;
}

} // namespace

SmallVector<KernelParam>
mlir::tile::mlirgen::kernelParams(MLIRContext *ctx, const fe::KernelAST &k,
                                  function_ref<Type(const fe::Type &)> valueType) {
  SmallVector<KernelParam> params;
  for (const auto &p : k.params) {
    ::tile::KernelParamInfo info;
    info.name = p->name;
    info.isPointer = p->type.isPointer();
    info.scalar = contractScalar(p->type.scalar);
    if (p->type.isTensor())
      info.tensor = tensorInfo(k, p->paramIndex);
    if (p->type.kind == fe::Type::Semaphore) { // the u64 base of the counters
      info.scalar = ScalarType::U64;
      info.semaphore = semaphoreInfo(k, p->paramIndex);
    }
    params.push_back({valueType(p->type), std::move(info), p.get()});
  }
  // Tensor extents given by name, filled by the runtime from the tensors:
  // i32, as TMA coordinates are .s32.
  for (size_t i = 0; i < k.hiddenParams.size(); ++i) {
    ::tile::KernelParamInfo info;
    info.name = k.hiddenParams[i]->name;
    info.scalar = ScalarType::I32;
    info.hidden = ::tile::HiddenExtentInfo{k.hiddenSources[i].first, k.hiddenSources[i].second};
    params.push_back({IntegerType::get(ctx, 32), std::move(info), k.hiddenParams[i].get()});
  }
  // Multi-GPU values (SemaPeer.cpp): i32 or u64, filled by the runtime.
  for (const fe::PeerParam &p : k.peerParams) {
    ::tile::KernelParamInfo info;
    // A named count is declared as its name (S) in the kernel; the
    // parameter is sem$count, like sem$peers.
    info.name = p.kind == static_cast<int>(::tile::HiddenPeerInfo::Kind::SemaphoreCount)
                    ? k.params[p.param]->name + "$count"
                    : p.decl->name;
    info.scalar = contractScalar(p.decl->type.scalar);
    info.peer = ::tile::HiddenPeerInfo{static_cast<::tile::HiddenPeerInfo::Kind>(p.kind), p.param};
    params.push_back({valueType(p.decl->type), std::move(info), p.decl.get()});
  }
  return params;
}

void mlir::tile::mlirgen::setKernelContract(KernelOp kernel, const fe::KernelAST &k,
                                            ArrayRef<KernelParam> params) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  for (auto [i, p] : llvm::enumerate(params))
    kernel.setArgAttr(i, attr::kParam, encodeParam(ctx, p.info));
  if (!k.sourceName.empty()) {
    ::tile::TypeArgs types;
    for (const auto &[name, type] : k.templateTypeArgs)
      types.push_back({name, fe::scalarName(type)});
    kernel->setAttr(attr::kInstance, encodeInstance(ctx, k.sourceName, k.templateArgs, types));
  }
  if (k.waitsOnSemaphore) // every CTA of the grid must be co-resident
    kernel->setAttr(attr::kSpinsOnPeers, b.getUnitAttr());
}

/// The internal error of a count the checker admitted that is not a rule
/// the host can evaluate (Sema::checkCountExpr admits only such rules).
static LogicalResult notARule(Operation *op, const std::string &what) {
  InFlightDiagnostic d = op->emitError("internal error: " + what +
                                       " is not a rule the host can evaluate, but the checker "
                                       "accepted it");
  attachHint(d, "this is a tilec bug; please report it with the input file");
  return failure();
}

LogicalResult mlir::tile::mlirgen::setSharedArrayContract(SharedAllocOp alloc,
                                                          const fe::SharedArrayStmt &s) {
  ::tile::DynamicSharedArray array;
  array.name = s.decl->name;
  array.element = contractScalar(s.elem.type.scalar);
  array.elementSize = ::tile::scalarBytes(array.element);
  array.distributed = s.distributed;
  bool ok = true;
  array.count = sizeExpr(*s.count, ok);
  if (!ok && s.constantCount) { // a constant with min/max/clamp: its value is the rule
    array.count = SizeExpr::literal(contractScalar(s.count->type.scalar), *s.constantCount);
    ok = true;
  }
  if (!ok)
    return notARule(alloc, "the size of shared array '" + s.decl->name + "'");
  alloc->setAttr(attr::kSharedArray, encodeSharedArray(alloc.getContext(), array));
  return success();
}

LogicalResult mlir::tile::mlirgen::setMBarrierCountContract(MBarrierInitOp init,
                                                            const fe::MBarrierStmt &s) {
  ::tile::MBarrierCount m;
  m.name = s.decl->name;
  bool ok = true;
  m.count = sizeExpr(*s.count, ok);
  if (m.count.type != ScalarType::I32) // as genMBarrierInits converts it
    m.count = SizeExpr::unary(SizeExpr::Op::Cast, ScalarType::I32, std::move(m.count));
  if (!ok)
    return notARule(init, "the count of mbarrier '" + s.decl->name + "'");
  init->setAttr(attr::kMBarrierCount, encodeMBarrierCount(init.getContext(), m));
  return success();
}
