//===- KernelInfo.cpp - the host's view of checked kernels ----------------===//
//
// The dynamic shared-memory rule is the count expression of each dynamic
// array as Sema typed it, so the runtime evaluates what MLIRGen generates
// (compiler/mlirgen/MLIRGen.cpp, genSharedArray): the same operators on the
// same types, with dshared's ceil-division by the cluster size left to the
// evaluator (DynamicSharedArray::distributed).
//===----------------------------------------------------------------------===//
#include "KernelInfo.h"

#include "tilec/Target/TargetFacts.h"

#include <stdexcept>

namespace tile::driver {
namespace fe = ::tile::frontend;

namespace {

ScalarType scalarType(fe::ScalarKind k) {
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
/// binary operators and casts in it (Sema::checkCountExpr).
SizeExpr sizeExpr(const fe::ExprAST &e) {
  ScalarType type = scalarType(e.type.scalar);
  switch (e.kind()) {
  case fe::ExprAST::IntLiteral: {
    const auto &lit = *static_cast<const fe::IntLiteralExpr *>(&e);
    SizeExpr r = SizeExpr::literal(type, lit.value);
    r.fvalue = static_cast<double>(lit.value); // as MLIRGen builds a float-typed one
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
    return SizeExpr::unary(op, type, sizeExpr(*u.operand));
  }
  case fe::ExprAST::Binary: {
    const auto &b = *static_cast<const fe::BinaryExpr *>(&e);
    return SizeExpr::binary(binaryOp(b.op), type, sizeExpr(*b.lhs), sizeExpr(*b.rhs));
  }
  case fe::ExprAST::Cast:
    return SizeExpr::unary(SizeExpr::Op::Cast, type,
                           sizeExpr(*static_cast<const fe::CastExpr *>(&e)->operand));
  default:
    break;
  }
  // Sema rejected everything else; reaching here is a compiler bug, which
  // compile() reports as an error rather than describing a wrong rule.
  throw std::logic_error("kernel info: a dynamic shared-array size the checker should have "
                         "rejected");
}

/// A tensor parameter: a 128-byte, 64-byte aligned CUtensorMap, with what
/// SemaTma.cpp decided (the box every copy moves, the tiles' swizzle).
TensorParamInfo tensorInfo(const fe::KernelAST &k, int index, KernelParamInfo &param) {
  param.size = ::tile::target::kTensorMapBytes;
  param.align = ::tile::target::kTensorMapAlign;
  TensorParamInfo t;
  for (const fe::TensorParamSyntax &s : k.tensorParams) {
    if (s.param != index)
      continue;
    t.element = scalarType(s.elem);
    for (const fe::TensorExtentSyntax &e : s.extents) {
      TensorParamInfo::Extent x;
      x.name = e.name;
      x.literal = e.literal;
      x.hiddenParam = e.hidden ? e.hidden->paramIndex : -1;
      t.extents.push_back(std::move(x));
    }
    for (int64_t b : s.box)
      t.box.push_back(static_cast<unsigned>(b));
    t.swizzle = static_cast<TmaSwizzle>(s.swizzleBytes);
    t.symmetric = s.symmetric;
  }
  return t;
}

/// A semaphore parameter (issue #10): a u64, its count a literal or the
/// hidden SemaphoreCount parameter.
SemaphoreParamInfo semaphoreInfo(const fe::KernelAST &k, int index, KernelParamInfo &param) {
  param.scalar = ScalarType::U64;
  param.size = param.align = 8;
  SemaphoreParamInfo s;
  for (const fe::SemaphoreParamSyntax &x : k.semaphoreParams) {
    if (x.param != index)
      continue;
    s.count.literal = x.countLiteral;
    s.count.name = x.countName;
    s.count.hiddenParam = x.countDecl ? x.countDecl->paramIndex : -1;
  }
  return s;
}

std::array<unsigned, 3> dims(const std::array<int, 3> &d) {
  return {static_cast<unsigned>(d[0]), static_cast<unsigned>(d[1]), static_cast<unsigned>(d[2])};
}

} // namespace

std::vector<KernelInfo> collectKernelInfo(const fe::ModuleAST &module) {
  std::vector<KernelInfo> kernels;
  for (const auto &k : module.kernels) {
    KernelInfo info;
    info.name = k->name;
    info.sourceName = k->sourceName;
    info.templateArgs = k->templateArgs;
    for (const auto &p : k->params) {
      KernelParamInfo param;
      param.name = p->name;
      param.isPointer = p->type.isPointer();
      param.scalar = scalarType(p->type.scalar);
      // A pointer is a .u64; an i1 a .u8 (PTX has no 1-bit parameters).
      param.size = param.isPointer ? 8 : scalarBytes(param.scalar);
      param.align = param.size;
      if (p->type.isTensor())
        param.tensor = tensorInfo(*k, p->paramIndex, param);
      if (p->type.kind == fe::Type::Semaphore) // issue #10: the u64 base of the counters
        param.semaphore = semaphoreInfo(*k, p->paramIndex, param);
      info.params.push_back(std::move(param));
    }
    for (size_t i = 0; i < k->hiddenParams.size(); ++i) {
      KernelParamInfo param;
      param.name = k->hiddenParams[i]->name;
      param.scalar = ScalarType::I32;
      param.size = param.align = 4;
      param.hidden = HiddenExtentInfo{k->hiddenSources[i].first, k->hiddenSources[i].second};
      info.params.push_back(std::move(param));
    }
    for (const fe::PeerParam &p : k->peerParams) { // issue #10 (SemaPeer.cpp)
      KernelParamInfo param;
      // A named count is declared as its name (S) in the kernel; the
      // parameter is sem$count (SPEC10), like sem$peers.
      param.name = p.kind == static_cast<int>(HiddenPeerInfo::Kind::SemaphoreCount)
                       ? k->params[p.param]->name + "$count"
                       : p.decl->name;
      param.scalar = scalarType(p.decl->type.scalar);
      param.size = param.align = scalarBytes(param.scalar);
      param.peer = HiddenPeerInfo{static_cast<HiddenPeerInfo::Kind>(p.kind), p.param};
      info.params.push_back(std::move(param));
    }
    info.spinsOnPeers = k->waitsOnSemaphore;
    if (!k->semaphoreParams.empty())
      info.exitSemaphore = k->semaphoreParams.front().param;
    switch (k->cluster.kind) {
    case fe::ClusterAttr::None:
      info.cluster = KernelInfo::Cluster::None;
      break;
    case fe::ClusterAttr::Static:
      info.cluster = KernelInfo::Cluster::Fixed;
      info.clusterDims = dims(k->cluster.dims);
      break;
    case fe::ClusterAttr::Dynamic:
      info.cluster = KernelInfo::Cluster::Launch;
      break;
    }
    if (k->threads.present)
      info.threads = dims(k->threads.dims);
    if (k->bounds.maxThreads)
      info.maxThreads = static_cast<unsigned>(*k->bounds.maxThreads);
    if (k->bounds.minBlocks)
      info.minBlocks = static_cast<unsigned>(*k->bounds.minBlocks);
    info.staticSharedBytes = static_cast<size_t>(k->staticSharedBytes);
    for (const fe::SharedArrayStmt *a : k->sharedArrays) {
      if (a->isStatic)
        continue;
      DynamicSharedArray array;
      array.name = a->decl->name;
      array.element = scalarType(a->elem.type.scalar);
      array.elementSize = scalarBytes(array.element);
      array.distributed = a->distributed;
      array.count = sizeExpr(*a->count);
      info.dynamicShared.push_back(std::move(array));
    }
    kernels.push_back(std::move(info));
  }
  return kernels;
}

} // namespace tile::driver
