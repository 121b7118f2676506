//===- SemaShared.cpp - shared memory: arrays, mbarriers, static size -----===//
// Shared arrays and mbarriers declared in a kernel: their counts (constants or
// sizes the host can evaluate from parameters), the static shared-memory total
// against the target's limit, and DSMEM arrays' cluster requirement.
#include "SemaImpl.h"

#include "tilec/Target/ClusterGeometry.h"

namespace tile::frontend {

/// Literals, constants and operators on them only (no kernel parameter).
static bool isConstantOnly(const ExprAST &e) {
  if (e.constant)
    return true;
  switch (e.kind()) {
  case ExprAST::IntLiteral:
    return true;
  case ExprAST::Unary:
    return isConstantOnly(*e.as<UnaryExpr>()->operand);
  case ExprAST::Cast:
    return isConstantOnly(*e.as<CastExpr>()->operand);
  case ExprAST::Binary:
    return isConstantOnly(*e.as<BinaryExpr>()->lhs) && isConstantOnly(*e.as<BinaryExpr>()->rhs);
  case ExprAST::Call: {
    auto &c = *e.as<CallExpr>();
    if (c.callee != "min" && c.callee != "max" && c.callee != "clamp")
      return false;
    for (const ExprPtr &a : c.args)
      if (!isConstantOnly(*a))
        return false;
    return true;
  }
  default:
    return false;
  }
}

static bool isParamDerivedCount(const ExprAST &e, Sema &sema, std::string &why, Location &where) {
  if (const Decl *c = e.constant) { // a constant's value (resolveNames): as the name was
    if (c->type.isUnsigned()) {
      // The host evaluates sizes with signed operators (kernel_info.h SizeExpr).
      why = "'" + c->name + "' is unsigned (" + c->type.str() + "); sizes use signed parameters";
      where = e.loc;
      return false;
    }
    return true; // a constant of another type is reported when the count is typed
  }
  switch (e.kind()) {
  case ExprAST::IntLiteral:
    return true;
  case ExprAST::VarRef: {
    auto &v = *e.as<VarRefExpr>();
    Decl *d = sema.lookup(v.name);
    if (d && d->kind != DeclKind::Param && d->kind != DeclKind::Const) {
      why = "'" + v.name + "' is a " + declKindName(d->kind) + ", not a kernel parameter";
      where = e.loc;
      return false;
    }
    if (d && d->type.isUnsigned()) {
      // The host evaluates sizes with signed operators (kernel_info.h SizeExpr).
      why = "'" + v.name + "' is unsigned (" + d->type.str() + "); sizes use signed parameters";
      where = e.loc;
      return false;
    }
    return true; // unknown names are reported when the count is typed
  }
  case ExprAST::Unary:
    if (e.as<UnaryExpr>()->op == UnaryOp::Not) {
      why = "`!` gives a bool, not a count";
      where = e.loc;
      return false;
    }
    return isParamDerivedCount(*e.as<UnaryExpr>()->operand, sema, why, where);
  case ExprAST::BoolLiteral:
    why = "a bool is not a count";
    where = e.loc;
    return false;
  case ExprAST::Binary: {
    auto &b = *e.as<BinaryExpr>();
    return isParamDerivedCount(*b.lhs, sema, why, where) &&
           isParamDerivedCount(*b.rhs, sema, why, where);
  }
  case ExprAST::Cast: {
    auto &c = *e.as<CastExpr>();
    if (c.target.type.isUnsigned() || c.target.type.isScalar(ScalarKind::F64)) {
      why = std::string("sizes are computed in signed integers, not ") +
            scalarName(c.target.type.scalar);
      where = e.loc;
      return false;
    }
    return isParamDerivedCount(*c.operand, sema, why, where);
  }
  case ExprAST::Call:
    // min/max/clamp of constants is a constant (the whole count folds);
    // of a kernel parameter it is no rule the host evaluates.
    if (isConstantOnly(e))
      return true;
    why = e.as<CallExpr>()->callee == "min" || e.as<CallExpr>()->callee == "max" ||
                  e.as<CallExpr>()->callee == "clamp"
              ? "min/max/clamp of a kernel parameter is no size the host evaluates"
              : "this expression is not a constant or a kernel parameter";
    where = e.loc;
    return false;
  default:
    why = "this expression is not a constant or a kernel parameter";
    where = e.loc;
    return false;
  }
}

bool Sema::checkCountExpr(ExprAST &e, const std::string &what) {
  std::string why;
  Location where;
  if (isParamDerivedCount(e, *this, why, where))
    return true;
  if (where.line == 0) { // every rejection names its place; this keeps the rule if one does not
    where = e.loc;
    why = "this expression is not a constant or a kernel parameter";
  }
  error(where, what + " must be built from constants and kernel parameters: " + why,
        "sizes are fixed at launch: use integer literals, integer kernel parameters and + - * / % "
        "<< >>");
  return false;
}

void Sema::checkSharedArray(SharedArrayStmt &s, bool kernelTopLevel) {
  Decl &d = *s.decl;
  const char *what = s.distributed ? "dshared" : "shared";
  d.array = &s;
  bool ok = true;
  if (!kernelTopLevel) {
    error(s.loc, std::string(what) + " arrays must be declared at the top level of the kernel body",
          "move the declaration out of the enclosing loop or if");
    ok = false;
  }
  if (s.elem.type.scalar == ScalarKind::I1) {
    error(s.elem.loc, std::string(what) + " arrays of i1 are not supported",
          "store booleans as i8");
    ok = false;
  }
  if (s.distributed && !requireCluster(s.loc, "a dshared array"))
    ok = false;
  Type countTy = Type::invalid();
  if (checkCountExpr(*s.count)) {
    countTy = checkValue(s.count, nullptr, "");
    if (!countTy.isInvalid() && (!countTy.isInteger() || countTy.isBool())) {
      error(s.count->loc,
            std::string(what) + " array size must be an integer, found " + countTy.str(),
            "cast it, e.g. `n as i32`");
      countTy = Type::invalid();
    } else if (countTy.isUnsigned()) {
      // The runtime evaluates the size rule (kernel_info.h SizeExpr) with
      // signed operators only; an unsigned size would read differently there.
      error(s.count->loc,
            std::string(what) + " array size must be a signed integer, found " + countTy.str(),
            "convert it: `n as i32` (or `as i64`)");
      countTy = Type::invalid();
    }
  }
  if (countTy.isInvalid())
    ok = false;
  ScalarKind lenTy = countTy.isInvalid() ? ScalarKind::I32 : countTy.scalar;
  if (ok && !checkConstantOps(*s.count))
    ok = false;
  if (ok) {
    bool overflow = false;
    s.constantCount = foldConstant(*s.count, overflow);
    if (overflow) {
      error(s.count->loc, std::string(what) + " array size overflows",
            "use a smaller constant size");
      ok = false;
      s.constantCount.reset();
    } else if (s.constantCount && *s.constantCount <= 0) {
      error(s.count->loc,
            std::string(what) + " array size must be positive, found " +
                std::to_string(*s.constantCount),
            "give the number of elements, at least 1");
      ok = false;
      s.constantCount.reset();
    }
  }
  if (ok && !s.moreDims.empty() && !checkArrayDims(s))
    ok = false;
  if (ok && tmaTileNames_.count(d.name) && !s.distributed && !chooseTileLayout(s))
    ok = false;
  if (ok && s.constantCount) {
    if (!s.distributed) {
      s.staticPerBlock = s.constantCount;
    } else if (kernel_->cluster.kind == ClusterAttr::Static) {
      int64_t n = cluster::ctaCount(kernel_->cluster.dims);
      if (n >= 1)
        s.staticPerBlock = (*s.constantCount + n - 1) / n;
    }
  }
  if (s.staticPerBlock) {
    int64_t bytes = 0;
    if (__builtin_mul_overflow(*s.staticPerBlock, (int64_t)byteSize(s.elem.type.scalar), &bytes))
      bytes = INT64_MAX / 2;
    if (addStaticSmem(s.loc, bytes, s.alignBytes)) {
      s.isStatic = true;
      s.staticBytes = bytes;
    }
  }
  if (ok && !s.isStatic)
    s.dynamicIndex = dynamicCount_++;
  d.type = Type::array(s.distributed ? Type::DistArray : Type::SharedArray, s.elem.type.scalar,
                       s.distributed ? AddressSpace::Cluster : AddressSpace::Shared, lenTy,
                       s.constantCount);
  d.type.dims = s.dims;
  if (!ok)
    d.type = Type::invalid();
  else
    kernel_->sharedArrays.push_back(&s);
  declare(d);
}

bool Sema::addStaticSmem(const Location &loc, int64_t bytes, int64_t align) {
  int64_t before = kernel_->staticSharedBytes;
  int64_t aligned = (before + align - 1) / align * align;
  int64_t total = bytes > target::kMaxSharedBytesPerBlock ? bytes : aligned + bytes;
  if (total > target::kMaxSharedBytesPerBlock) {
    error(loc,
          "static shared memory of kernel '" + kernel_->name + "' reaches " +
              std::to_string(total) + " bytes, over the per-block limit of " +
              std::to_string(target::kMaxSharedBytesPerBlock) + " bytes (" +
              std::to_string(target::kMaxSharedBytesPerBlock / 1024) + " KB)",
          "shrink the arrays, or size one with a kernel parameter to use dynamic shared memory");
    return false;
  }
  kernel_->staticSharedBytes = total;
  return true;
}

void Sema::checkMBarrier(MBarrierStmt &s, bool kernelTopLevel) {
  Decl &d = *s.decl;
  d.mbarrier = &s;
  s.index = (int)kernel_->mbarriers.size();
  kernel_->mbarriers.push_back(&s);
  if (!kernelTopLevel)
    error(s.loc, "mbarriers must be declared at the top level of the kernel body",
          "move the declaration out of the enclosing loop or if");
  if (s.arraySizeExpr) {
    // `mbarrier[N]` with N a constant expression (a `const`, a template
    // kernel's value parameter), as a ring's stage count.
    bool reported = false;
    std::optional<int64_t> n = integerConstant(s.arraySizeExpr, reported);
    const char *hint = "write `let NAME = mbarrier[N](COUNT)` with N an integer constant from 1 "
                       "to 64 (a literal, a `const` or a kernel's value parameter)";
    s.arraySize = 1; // keeps the checks of its uses meaningful after an error
    if (!n) {
      if (!reported)
        error(s.arraySizeLoc, "mbarrier array size must be an integer constant from 1 to 64",
              hint);
    } else if (*n < 1 || *n > 64) {
      error(s.arraySizeLoc,
            "mbarrier array size " + std::to_string(*n) + " is out of range (1 to 64)", hint);
    } else {
      s.arraySize = *n;
    }
  }
  if (checkCountExpr(*s.count, "mbarrier count")) {
    Type i32 = Type::i32();
    Type t = checkValue(s.count, &i32, "mbarrier count", "convert it with `as i32`");
    if (!t.isInvalid() && checkConstantOps(*s.count)) {
      bool overflow = false;
      std::optional<int64_t> c = foldConstant(*s.count, overflow);
      if (overflow || (c && (*c < 1 || *c > target::kMaxMBarrierArrivals))) {
        error(s.count->loc,
              overflow ? std::string("mbarrier count overflows")
                       : "mbarrier count " + std::to_string(*c) + " is out of range (1 to " +
                             std::to_string(target::kMaxMBarrierArrivals) + ")",
              "the count is the number of arrivals that complete a phase, at least 1");
      } else {
        s.constantCount = c;
      }
    }
  }
  // The declaration at a 16-byte offset (a multiple of the mbarrier alignment).
  static_assert(16 % target::kMBarrierAlign == 0);
  addStaticSmem(s.loc, target::kMBarrierBytes * s.arraySize.value_or(1));
  d.type = s.arraySize ? Type::mbarrierArray(*s.arraySize) : Type::mbarrier(AddressSpace::Shared);
  declare(d);
}

} // namespace tile::frontend
