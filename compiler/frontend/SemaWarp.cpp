//===- SemaWarp.cpp - warp-level operations ---------------------------------===//
//
// shfl_up/down/xor/idx(v, lane, width = 32, mask = 0xffffffff),
// vote_any/all/ballot(pred, mask =), redux_add/min/max/and/or/xor(v: i32
// or u32, mask =), match_any/all(v, mask =), sync_warp(mask =), lanemask_lt/le/eq/
// ge/gt(). `mask` names the participating lanes (PTX `membermask`): every
// lane in it must execute the same operation with the same mask, and the
// executing lane must be in it (PTX ISA 9.7.9.6, 9.7.13.7, 9.7.13.9,
// 9.7.13.11). A constant mask of 0 names no lane and is an error; a constant
// width must be a power of two in 1..32 (a run-time one is rounded down to a
// power of two in the lowering: docs/reference/warp-and-math.md). Whether the lanes are
// converged is the IR's check (tile-check-divergence).
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace {
bool isShfl(Builtin b) {
  return b == Builtin::ShflUp || b == Builtin::ShflDown || b == Builtin::ShflXor ||
         b == Builtin::ShflIdx;
}
bool isVote(Builtin b) {
  return b == Builtin::VoteAny || b == Builtin::VoteAll || b == Builtin::VoteBallot;
}
bool isRedux(Builtin b) {
  return static_cast<int>(b) >= static_cast<int>(Builtin::ReduxAdd) &&
         static_cast<int>(b) <= static_cast<int>(Builtin::ReduxXor);
}
} // namespace

const NamedArg *findNamedArg(const CallExpr &e, const std::string &name) {
  for (const NamedArg &na : e.namedArgs)
    if (na.name == name)
      return &na;
  return nullptr;
}

Type Sema::checkWarpCall(CallExpr &e) {
  Builtin b = e.builtin;
  bool lanemask = !isWarpCollective(b);
  bool ok = true;
  Type i32 = Type::i32();

  // Named arguments: `mask =` on every collective, `width =` on shuffles.
  for (NamedArg &na : e.namedArgs) {
    bool known = (na.name == "mask" && !lanemask) || (na.name == "width" && isShfl(b));
    if (!known) {
      error(na.loc, "'" + e.callee + "' takes no '" + na.name + "' argument",
            lanemask    ? std::string("lanemask_*() take no arguments")
            : isShfl(b) ? std::string("shuffles take `width =` and `mask =`")
                        : "'" + e.callee + "' takes only `mask =`");
      infer(na.expr);
      abandonUntyped(na.expr);
      ok = false;
      continue;
    }
    Type t = checkValue(na.expr, &i32, na.name + " of " + e.callee,
                        "a " + na.name + " is an i32; convert it with `as i32`");
    if (t.isInvalid()) {
      ok = false;
      continue;
    }
    bool overflow = false;
    std::optional<int64_t> c = foldConstant(*na.expr, overflow);
    if (!c)
      continue;
    if (na.name == "mask" && (*c & 0xffffffff) == 0) {
      error(na.expr->loc, "a mask of 0 names no lane of the warp",
            "the mask must hold the executing lane; give the lanes that take part, e.g. "
            "`mask = vote_ballot(cond)`");
      ok = false;
    }
    if (na.name == "width" && (*c < 1 || *c > 32 || (*c & (*c - 1)) != 0)) {
      error(na.expr->loc, "shuffle width " + std::to_string(*c) + " is not a power of two in 1..32",
            "the warp splits into segments of width 1, 2, 4, 8, 16 or 32 lanes");
      ok = false;
    }
  }

  auto result = [&](Type t) { return ok ? t : Type::invalid(); };
  if (lanemask)
    return checkArgCount(e, 0, 0) ? result(i32) : Type::invalid();
  if (b == Builtin::SyncWarp)
    return checkArgCount(e, 0, 0) ? result(Type::voidTy()) : Type::invalid();
  if (isShfl(b)) {
    if (!checkArgCount(e, 2, 2))
      return Type::invalid();
    Type v = checkValue(e.args[0], nullptr, "value of " + e.callee);
    if (!v.isInvalid() && !v.isScalar()) {
      error(e.args[0]->loc, e.callee + " moves scalars, found " + v.str(),
            nonScalarHint(v, ""));
      v = Type::invalid();
    }
    std::string what = b == Builtin::ShflIdx   ? "source lane"
                       : b == Builtin::ShflXor ? "lane mask"
                                               : "lane distance";
    Type l = checkValue(e.args[1], &i32, what + " of " + e.callee,
                        "lanes are i32; convert with `as i32`");
    if (v.isInvalid() || l.isInvalid())
      return Type::invalid();
    return result(v);
  }
  if (!checkArgCount(e, 1, 1))
    return Type::invalid();
  if (isVote(b)) {
    Type i1 = Type::i1();
    Type p = checkValue(e.args[0], &i1, "predicate of " + e.callee,
                        "votes take a condition; compare the value, e.g. `x != 0`");
    if (p.isInvalid())
      return p;
    return result(b == Builtin::VoteBallot ? i32 : i1);
  }
  if (isRedux(b)) {
    // redux.sync takes .s32 and .u32 (PTX ISA 9.7.13.11): min/max compare as
    // the value's type says; the other operations see the same bits. An f32
    // add/min/max is a butterfly of shuffles over the whole warp (ReduxOp).
    Type v = checkValue(e.args[0], nullptr, "value of " + e.callee);
    const bool arith = b == Builtin::ReduxAdd || b == Builtin::ReduxMin || b == Builtin::ReduxMax;
    if (!v.isInvalid() && arith && v.isScalar(ScalarKind::F32)) {
      if (const NamedArg *m = findNamedArg(e, "mask")) {
        error(m->loc, "an f32 " + e.callee + " reduces the whole warp: it takes no mask",
              "it is a butterfly of shfl.sync.bfly, which reads every lane; leave the other "
              "lanes out by giving them the identity (`select(c, x, 0.0)` for add, -inf for "
              "max, inf for min)");
        return Type::invalid();
      }
      return result(v);
    }
    if (!v.isInvalid() && !v.isScalar(ScalarKind::I32) && !v.isScalar(ScalarKind::U32)) {
      error(e.args[0]->loc,
            "value of " + e.callee + " has type " + v.str() +
                (arith ? ", expected i32, u32 or f32" : ", expected i32 or u32"),
            nonScalarHint(v, arith ? "redux.sync reduces i32 and u32 values (min/max signed or "
                                     "unsigned by the type), a butterfly of shuffles f32 ones; "
                                     "convert a narrower integer with `as i32` or `as u32`, an "
                                     "f16 or bf16 with `as f32`, or reduce other types with "
                                     "shfl_xor"
                                   : "redux.sync's bitwise operations take i32 and u32 values; "
                                     "convert a narrower integer with `as i32` or `as u32`, "
                                     "or reduce other types with shfl_xor"));
      return Type::invalid();
    }
    return v.isInvalid() ? v : result(v);
  }
  // match_any / match_all: any scalar; the bits are compared.
  Type v = checkValue(e.args[0], nullptr, "value of " + e.callee);
  if (!v.isInvalid() && !v.isScalar()) {
    error(e.args[0]->loc, e.callee + " compares scalars, found " + v.str(),
          "compare an element or an index, not the pointer or array");
    return Type::invalid();
  }
  if (v.isInvalid())
    return v;
  return result(i32);
}

} // namespace tile::frontend
