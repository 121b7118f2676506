//===- MLIRGenWarp.cpp - warp-level operations -> tile warp ops -----------===//
//
// Positional arguments first, then the named ones in the order written;
// `mask` defaults to the full warp (0xffffffff) and `width` to 32.
//
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

Value MLIRGenImpl::genWarpCall(const fe::CallExpr &e) {
  using BI = fe::Builtin;
  Location l = loc(e.loc);
  Type i32 = builder.getI32Type();
  SmallVector<Value, 2> args;
  for (const fe::ExprPtr &a : e.args)
    args.push_back(genExpr(*a));
  Value mask, width;
  for (const fe::NamedArg &na : e.namedArgs)
    (na.name == "mask" ? mask : width) = genExpr(*na.expr);
  if (!mask)
    mask = intConst(l, i32, -1);
  if (!width)
    width = intConst(l, i32, 32);

  auto shfl = [&](ShflKind kind) {
    return ShflOp::create(builder, l, args[0].getType(), kind, args[0], args[1], width, mask)
        .getResult();
  };
  auto vote = [&](VoteKind kind, Type result) {
    return VoteOp::create(builder, l, result, kind, args[0], mask).getResult();
  };
  auto redux = [&](ReduxKind kind) {
    return ReduxOp::create(builder, l, args[0].getType(), kind, args[0], mask).getResult();
  };
  const bool isUnsigned = e.type.isUnsigned(); // redux.sync.min/max.u32 for a u32
  auto lanemask = [&](LaneMaskKind kind) {
    return LaneMaskOp::create(builder, l, i32, kind).getResult();
  };
  switch (e.builtin) {
  case BI::ShflUp:
    return shfl(ShflKind::up);
  case BI::ShflDown:
    return shfl(ShflKind::down);
  case BI::ShflXor:
    return shfl(ShflKind::bfly);
  case BI::ShflIdx:
    return shfl(ShflKind::idx);
  case BI::VoteAny:
    return vote(VoteKind::any, builder.getI1Type());
  case BI::VoteAll:
    return vote(VoteKind::all, builder.getI1Type());
  case BI::VoteBallot:
    return vote(VoteKind::ballot, i32);
  case BI::ReduxAdd:
    return redux(ReduxKind::add);
  case BI::ReduxMin:
    return redux(isUnsigned ? ReduxKind::umin : ReduxKind::min);
  case BI::ReduxMax:
    return redux(isUnsigned ? ReduxKind::umax : ReduxKind::max);
  case BI::ReduxAnd:
    return redux(ReduxKind::and_);
  case BI::ReduxOr:
    return redux(ReduxKind::or_);
  case BI::ReduxXor:
    return redux(ReduxKind::xor_);
  case BI::MatchAny:
    return MatchOp::create(builder, l, i32, MatchKind::any, args[0], mask).getResult();
  case BI::MatchAll:
    return MatchOp::create(builder, l, i32, MatchKind::all, args[0], mask).getResult();
  case BI::SyncWarp:
    SyncWarpOp::create(builder, l, mask);
    return nullptr;
  case BI::LaneMaskLt:
    return lanemask(LaneMaskKind::lt);
  case BI::LaneMaskLe:
    return lanemask(LaneMaskKind::le);
  case BI::LaneMaskEq:
    return lanemask(LaneMaskKind::eq);
  case BI::LaneMaskGe:
    return lanemask(LaneMaskKind::ge);
  case BI::LaneMaskGt:
    return lanemask(LaneMaskKind::gt);
  default:
    return nullptr;
  }
}
