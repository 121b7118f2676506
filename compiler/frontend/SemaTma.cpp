//===- SemaTma.cpp - tensor parameters, n-D shared tiles, TMA copies -------===//
//
// `A: tensor<T>[M, 64]` parameters (their named extents become hidden i32
// parameters), `shared<T>[R, C]` arrays indexed `t[i, j]` (row major), and
// the TMA builtins copy_async / prefetch_tensor. The compiler chooses every
// tile's swizzle, panels and alignment here (docs/reference/tma-and-rings.md "TMA tiles"),
// and records the box and swizzle each tensor map must be encoded with.
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "tilec/Target/ClusterGeometry.h"

#include <algorithm>
#include <sstream>

namespace tile::frontend {

std::string badCountConstant(const Decl &c, int64_t max, const std::string &maxText,
                             const std::string &what) {
  if (c.kind == DeclKind::TypeParam)
    return what + " is a type parameter (here " + scalarName(c.typeValue) + "), not an integer";
  if (c.constIsFloat || c.type.isFloat())
    return what + " is " + (c.type.isScalar() ? "an " + c.type.str() : std::string("a float")) +
           " constant (" + (std::ostringstream() << c.constFloat).str() + "), not an integer";
  if (c.type.isBool())
    return what + " is an i1 constant (" + (c.constInt ? "true" : "false") + "), not an integer";
  if (c.constInt < 1 || c.constInt > max)
    return what + " is the constant " + std::to_string(c.constInt) + ", not an integer from 1 to " +
           maxText;
  return "";
}

void Sema::checkTensorParams() {
  KernelAST &k = *kernel_;
  std::unordered_map<std::string, Decl *> hidden;
  for (TensorParamSyntax &t : k.tensorParams) {
    Decl &p = *k.params[t.param];
    if (t.elem == ScalarKind::I1)
      error(k.paramTypes[t.param].loc, "tensors of i1 are not supported",
            "TMA moves bytes: use an i8 tensor for booleans");
    for (unsigned dim = 0; dim < t.extents.size(); ++dim) {
      TensorExtentSyntax &e = t.extents[dim];
      if (e.name.empty())
        continue;
      if (auto it = hidden.find(e.name); it != hidden.end()) {
        e.hidden = it->second; // one value, checked equal at launch
        continue;
      }
      // A `const` or a compile-time parameter is the extent's value, as a
      // literal would be (the template's own parameters are declared later).
      if (const Decl *c = compileTimeConstant(e.name)) {
        if (std::string why =
                badCountConstant(*c, int64_t(1) << 32, "2^32",
                                 "tensor extent '" + e.name + "' of '" + p.name + "'");
            !why.empty()) {
          error(e.loc, why,
                "a tensor extent is an integer from 1 to 2^32: a literal, an integer `const`, a "
                "compile-time value parameter, or a new name (filled from the tensor at launch)");
          continue;
        }
        e.literal = c->constInt;
        e.name.clear();
        k.paramTypes[t.param].type.dims[dim] = *e.literal;
        p.type.dims[dim] = *e.literal;
        continue;
      }
      if (Decl *other = lookup(e.name)) {
        error(e.loc,
              "tensor extent '" + e.name + "' of '" + p.name + "' has the name of parameter '" +
                  other->name + "'",
              "an extent name declares an i32 value filled from the tensor at launch; rename one");
        continue;
      }
      auto d = std::make_unique<Decl>();
      d->kind = DeclKind::Param;
      d->name = e.name;
      d->loc = e.loc;
      d->type = Type::i32();
      d->paramIndex = (int)(k.params.size() + k.hiddenParams.size());
      declare(*d);
      e.hidden = d.get();
      hidden[e.name] = d.get();
      k.hiddenSources.push_back({t.param, dim});
      k.hiddenParams.push_back(std::move(d));
    }
  }
}

namespace {
/// The tiles named by copy_async anywhere in `e`: a copy nested in another
/// expression (`let x = copy_async(..)`, an operand) is checked like one
/// written as a statement, which then reports that it has no value.
void collectCopyTiles(const ExprAST &e, std::unordered_set<std::string> &names) {
  if (auto *c = e.as<CallExpr>(); c && c->callee == "copy_async")
    for (const ExprPtr &a : c->args)
      if (auto *v = a->as<VarRefExpr>())
        names.insert(v->name);
  forEachOperand(e, [&](const ExprAST &x) { collectCopyTiles(x, names); });
}

/// Whether `e` is `thread_id(..) == K`, `role_thread_id() == K`,
/// `lane_id() == K`, `elect_one()` or a conjunction with one of them: true in
/// at most one thread of a warp. Names bound by `let` (or to a function's
/// argument) stand for their values, at every level: `let t = thread_id();
/// let first = t == 0; if first && ok`.
bool singleThreadCond(const Sema &sema, const ExprAST &cond) {
  const ExprAST &e = sema.boundValue(cond);
  if (auto *c = e.as<CallExpr>())
    return c->callee == "elect_one";
  auto *b = e.as<BinaryExpr>();
  if (!b)
    return false;
  if (b->op == BinaryOp::LogicalAnd)
    return singleThreadCond(sema, *b->lhs) || singleThreadCond(sema, *b->rhs);
  if (b->op != BinaryOp::Eq)
    return false;
  auto isLane = [&](const ExprAST &x) {
    auto *c = sema.boundValue(x).as<CallExpr>();
    return c && (c->builtin == Builtin::ThreadId || c->builtin == Builtin::LaneId ||
                 c->builtin == Builtin::RoleThreadId);
  };
  auto isConst = [&](const ExprAST &x) { return sema.boundValue(x).is<IntLiteralExpr>(); };
  return (isLane(*b->lhs) && isConst(*b->rhs)) || (isLane(*b->rhs) && isConst(*b->lhs));
}

/// Whether `e` reads the CTA's position along cluster axis `axis` (3 = any).
bool readsClusterPosition(const ExprAST &e, int axis) {
  if (auto *c = e.as<CallExpr>()) {
    if (c->builtin == Builtin::ClusterRank)
      return true;
    if (c->builtin == Builtin::BlockInCluster && (axis == 3 || c->axis == axis))
      return true;
    for (const ExprPtr &a : c->args)
      if (readsClusterPosition(*a, axis))
        return true;
    return false;
  }
  if (auto *u = e.as<UnaryExpr>())
    return readsClusterPosition(*u->operand, axis);
  if (auto *b = e.as<BinaryExpr>())
    return readsClusterPosition(*b->lhs, axis) || readsClusterPosition(*b->rhs, axis);
  if (auto *c = e.as<CastExpr>())
    return readsClusterPosition(*c->operand, axis);
  return false;
}

std::string dimsStr(const std::vector<int64_t> &d) {
  std::string r = "[";
  for (size_t i = 0; i < d.size(); ++i)
    r += (i ? ", " : "") + std::to_string(d[i]);
  return r + "]";
}
} // namespace

bool Sema::checkPlainArrayUse(const ExprAST &e, const char *what) {
  auto *ref = e.as<VarRefExpr>();
  const SharedArrayStmt *a = ref && ref->decl ? ref->decl->array : nullptr;
  if (!a || (a->dims.size() < 2 && !a->isTmaTile))
    return true;
  error(e.loc,
        std::string(what) + " cannot take '" + a->decl->name +
            "': " + (a->isTmaTile ? "a TMA tile's elements are swizzled" : "it is an n-D array"),
        "index it by its own name (`" + a->decl->name +
            "[i, j]`), which applies its layout; a plain view would not");
  return false;
}

void Sema::collectTmaTileNames(const Block &body) {
  forEachExprIn(body, [&](const ExprAST &e) { collectCopyTiles(e, tmaTileNames_); });
  collectMmaTileNames(body); // SemaMma.cpp: mma operands are read with the tile layout
}

bool Sema::inSingleThread() const {
  for (const ExprAST *g : ifGuards_)
    if (singleThreadCond(*this, *g))
      return true;
  return false;
}

bool Sema::underGuardInError() const {
  for (const ExprAST *g : ifGuards_)
    if (g->type.isInvalid())
      return true;
  return false;
}

bool Sema::checkArrayDims(SharedArrayStmt &s) {
  const char *hint = "n-D shared arrays have constant dimensions: `shared<T>[R, C]`";
  if (s.distributed) {
    error(s.moreDims.front()->loc, "dshared arrays have one dimension", "declare dshared<T>[N]");
    return false;
  }
  if (!s.constantCount) {
    error(s.count->loc, "the dimensions of an n-D shared array must be constants", hint);
    return false;
  }
  s.dims = {*s.constantCount};
  int64_t total = *s.constantCount;
  for (ExprPtr &d : s.moreDims) {
    Type t = checkValue(d, nullptr, "");
    if (t.isInvalid())
      return false;
    bool overflow = false;
    std::optional<int64_t> v =
        t.isInteger() && !t.isBool() ? foldConstant(*d, overflow) : std::nullopt;
    if (!v || overflow || *v <= 0) {
      error(d->loc, "shared array dimension must be a positive integer constant", hint);
      return false;
    }
    if (__builtin_mul_overflow(total, *v, &total)) {
      error(d->loc, "shared array size overflows", "use smaller dimensions");
      return false;
    }
    s.dims.push_back(*v);
  }
  s.constantCount = total;
  return true;
}

bool Sema::chooseTileLayout(SharedArrayStmt &s) {
  namespace T = ::tile::target;
  if (!s.constantCount) {
    error(s.count->loc, "a tile that copy_async moves needs constant dimensions",
          "TMA boxes are fixed when the tensor map is encoded: give the size as a constant");
    return false;
  }
  std::vector<int64_t> dims = s.dims.empty() ? std::vector<int64_t>{*s.constantCount} : s.dims;
  if ((int)dims.size() > T::kTmaMaxRank) {
    error(s.loc, "a TMA tile has at most 5 dimensions", "reshape the tile");
    return false;
  }
  int64_t elem = byteSize(s.elem.type.scalar);
  int64_t innerBytes = dims.back() * elem;
  if (innerBytes % T::kTmaBoxInnerBytesMultiple != 0) {
    error(s.loc,
          "the inner dimension of tile '" + s.decl->name + "' is " + std::to_string(innerBytes) +
              " bytes, not a multiple of 16",
          "TMA moves rows in 16-byte units: make the last dimension a multiple of " +
              std::to_string(T::kTmaBoxInnerBytesMultiple / elem));
    return false;
  }
  s.isTmaTile = true;
  s.panelElems = dims.back();
  if (innerBytes == 128 || innerBytes == 64 || innerBytes == 32) {
    s.swizzleBytes = (int)innerBytes;
  } else if (innerBytes > T::kTmaMaxSwizzleBytes && innerBytes % T::kTmaMaxSwizzleBytes == 0) {
    // CUTLASS's K-major atom: 128-byte wide panels, one TMA box each.
    s.swizzleBytes = T::kTmaMaxSwizzleBytes;
    s.panelElems = T::kTmaMaxSwizzleBytes / elem;
  }
  s.alignBytes = s.swizzleBytes ? T::kTmaSharedAlign128BSwizzle : T::kTmaSharedAlign;
  for (size_t i = 0; i + 1 < dims.size(); ++i)
    if (dims[i] > T::kTmaMaxBoxDim) {
      error(s.loc,
            "dimension " + std::to_string(i) + " of tile '" + s.decl->name + "' is " +
                std::to_string(dims[i]) + ", over TMA's box limit of 256",
            "split the tile into several tiles of at most 256 rows");
      return false;
    }
  if (s.panelElems > T::kTmaMaxBoxDim) {
    error(s.loc,
          "the inner dimension of tile '" + s.decl->name + "' is " + std::to_string(dims.back()) +
              " elements, over TMA's box limit of 256",
          "use at most 256 elements (or a multiple of 128 bytes, copied in panels)");
    return false;
  }
  return true;
}

Type Sema::inferIndexNd(IndexExpr &e, const Type &base) {
  std::vector<ExprPtr *> idx{&e.index};
  for (ExprPtr &m : e.moreIndices)
    idx.push_back(&m);
  auto resolveAll = [&] {
    for (ExprPtr *i : idx) {
      infer(*i);
      abandonUntyped(*i);
    }
  };
  if (base.isInvalid()) {
    resolveAll();
    return Type::invalid();
  }
  if (base.isTensor()) {
    error(e.loc, "a tensor parameter is not indexable here",
          "`A[c0, c1]` names a TMA box origin: use it only as the global side of copy_async or "
          "prefetch_tensor; element loads and stores need a `symmetric tensor<T>[...]` "
          "parameter");
    resolveAll();
    return Type::invalid();
  }
  if (base.kind != Type::SharedArray || base.dims.size() < 2) {
    error(e.loc, "only n-D shared arrays take several indices, found " + base.str(),
          elementAccessHint(base, "index pointers and 1-D arrays with one index `a[i]`"));
    resolveAll();
    return Type::invalid();
  }
  if (idx.size() != 1 && idx.size() != base.dims.size()) {
    error(e.loc,
          base.str() + " takes " + std::to_string(base.dims.size()) +
              " indices (or one row-major "
              "linear index), got " +
              std::to_string(idx.size()),
          "write one index per dimension, outermost first: `t[i, j]`");
    resolveAll();
    return Type::invalid();
  }
  e.space = AddressSpace::Shared;
  bool ok = true;
  for (size_t k = 0; k < idx.size(); ++k) {
    Type t = infer(*idx[k]);
    if (t.isUntyped())
      t = finalize(*idx[k]);
    if (t.isInvalid()) {
      ok = false;
      continue;
    }
    if (!t.isInteger() || t.isBool()) {
      error((*idx[k])->loc, "index must be an integer, found " + t.str(),
            nonScalarHint(t, "convert it with `as i32` or `as i64`"));
      ok = false;
      continue;
    }
    bool overflow = false;
    std::optional<int64_t> v = foldConstant(**idx[k], overflow);
    int64_t limit = idx.size() == 1 ? *base.staticLength : base.dims[k];
    if (overflow || (v && (*v < 0 || *v >= limit))) {
      error((*idx[k])->loc,
            overflow ? std::string("index overflows")
                     : "index " + std::to_string(*v) + " is out of bounds for dimension " +
                           std::to_string(k) + " of " + base.str(),
            "valid indices are 0 .. " + std::to_string(limit - 1));
      ok = false;
    }
  }
  return ok ? Type::scalarTy(base.scalar) : Type::invalid();
}

TensorParamSyntax *Sema::checkTensorRef(ExprPtr &a, CallExpr &call) {
  auto *ix = a->as<IndexExpr>();
  auto *ref = ix ? ix->base->as<VarRefExpr>() : nullptr;
  if (ix && !ref && ix->base->is<CallExpr>() && ix->base->as<CallExpr>()->callee == "peer") {
    ref = peerTensorBase(*ix, call); // SemaPeer.cpp: peer(A, d)[c...]
    if (!ref) {
      for (ExprPtr &m : ix->moreIndices)
        resolveOnly(m);
      resolveOnly(ix->index);
      return nullptr;
    }
  }
  Decl *d = ref ? lookup(ref->name) : nullptr;
  if (!d || !d->type.isTensor()) {
    error(a->loc, "'" + call.callee + "' needs a tensor box `A[c0, c1, ...]` here",
          "name a tensor<T>[...] kernel parameter indexed by the box origin, outermost first");
    resolveOnly(a);
    return nullptr;
  }
  ref->decl = d;
  ref->type = d->type;
  ix->base->type = d->type;
  ix->use = IndexUse::Address;
  ix->space = AddressSpace::Global;
  std::vector<ExprPtr *> idx{&ix->index};
  for (ExprPtr &m : ix->moreIndices)
    idx.push_back(&m);
  bool ok = true;
  if (idx.size() != d->type.dims.size()) {
    error(ix->loc,
          "tensor '" + d->name + "' has rank " + std::to_string(d->type.dims.size()) + ", got " +
              std::to_string(idx.size()) + " coordinates",
          "give one i32 coordinate per dimension, outermost first");
    ok = false;
  }
  Type i32 = Type::i32();
  for (ExprPtr *i : idx)
    if (checkValue(*i, &i32, "tensor coordinate", "TMA coordinates are i32: convert with `as i32`")
            .isInvalid())
      ok = false;
  a->type = Type::voidTy();
  if (!ok)
    return nullptr;
  for (TensorParamSyntax &t : kernel_->tensorParams)
    if (t.param == d->paramIndex)
      return &t;
  return nullptr;
}

/// dim(t, d): the d-th extent (outermost = 0) of a shared array, an i32
/// constant (a 1-D array has dim(t, 0) = len(t) when constant).
Type Sema::checkDimCall(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 2, 2))
    return Type::invalid();
  Type t = infer(e.args[0]);
  Type i32 = Type::i32();
  Type dt = checkValue(e.args[1], &i32, "dimension of dim()", "write a constant, e.g. dim(t, 1)");
  if (t.isInvalid() || dt.isInvalid())
    return Type::invalid();
  std::vector<int64_t> dims = t.dims;
  if (dims.empty() && t.kind == Type::SharedArray && t.staticLength)
    dims = {*t.staticLength};
  if (t.kind != Type::SharedArray || dims.empty()) {
    error(e.args[0]->loc, "dim() needs a shared array of constant dimensions, found " + t.str(),
          "use len() for arrays sized at launch");
    return Type::invalid();
  }
  // A constant in every copy of the enclosing unrolled loops (`dim(t, j)`
  // with `for j in 0 .. 2 unroll`), each copy checked.
  bool overflow = false;
  std::optional<std::vector<int64_t>> ds = foldEveryCopy(*e.args[1], overflow);
  bool inRange = ds && !overflow;
  for (int64_t d : ds ? *ds : std::vector<int64_t>{})
    inRange = inRange && d >= 0 && d < (int64_t)dims.size();
  if (!inRange) {
    error(e.args[1]->loc,
          "dim() of " + t.str() + " takes a constant dimension from 0 to " +
              std::to_string(dims.size() - 1),
          "dimensions count from the outermost, 0 (a literal, a `const` or an unrolled loop's "
          "variable)");
    return Type::invalid();
  }
  int64_t d = ds->front();
  bool one = std::all_of(ds->begin(), ds->end(), [&](int64_t x) { return dims[x] == dims[d]; });
  e.axis = (int)d;
  e.tma.extent = one ? dims[d] : -1; // MLIRGen emits the constant (-1: each copy's)
  return Type::i32();
}

namespace {
constexpr const char *kTilePerStageHint =
    "a TMA tile has its own (swizzled) layout, so each stage is a tile of its own: a ring, "
    "`let r = pipeline[3] { a: shared<T>[R, C] }`, whose stage `s.a` produce fills, or one "
    "`let t0 = shared<T>[R, C]` per stage";
} // namespace

Type Sema::checkTmaCall(CallExpr &e) {
  namespace T = ::tile::target;
  if (e.builtin == Builtin::Dim)
    return checkDimCall(e);
  bool prefetch = e.builtin == Builtin::PrefetchTensor;
  if (!checkArgCount(e, prefetch ? 1 : 2, prefetch ? 1 : 3))
    return Type::invalid();
  // Named arguments: multicast (loads only).
  bool ok = true;
  Location mcLoc;
  for (NamedArg &na : e.namedArgs) {
    if (na.name == "multicast" && !prefetch) {
      static const char *axes[] = {"x", "y", "z", "all"};
      int axis = -1;
      for (int i = 0; i < 4; ++i)
        if (na.value == axes[i])
          axis = i;
      if (axis < 0) {
        error(na.valueLoc, "multicast must be x, y, z or all",
              "multicast = x shares the tile with the CTAs of this CTA's cluster row");
        ok = false;
      }
      e.tma.multicastAxis = axis;
      mcLoc = na.loc;
    } else {
      error(na.loc, "'" + e.callee + "' takes no named argument '" + na.name + "'",
            prefetch ? "prefetch_tensor takes only the box" : "copy_async takes `multicast =`");
      ok = false;
    }
  }
  if (prefetch) {
    TensorParamSyntax *t = checkTensorRef(e.args[0], e);
    if (t)
      e.tma.tensorParam = t->param;
    return ok && t ? Type::voidTy() : Type::invalid();
  }
  // Which side is the tensor: copy_async(TILE, A[..], BAR) or copy_async(A[..], TILE).
  bool isStore = e.args[0]->is<IndexExpr>();
  // An element of a shared array where the tile goes, with the tensor box
  // second (`copy_async(tiles[s], A[r, 0], full[s])`, a stage picked from an
  // n-D array as a CUDA port picks `&smem[s][0][0]`): a load into part of
  // an array, which TMA cannot address (a tile has its own swizzled layout),
  // not a store.
  auto namesTensor = [&](const ExprAST &x) {
    auto *ix = x.as<IndexExpr>();
    auto *ref = ix ? ix->base->as<VarRefExpr>() : nullptr;
    const Decl *d = ref ? lookup(ref->name) : nullptr;
    return (d && d->type.isTensor()) ||
           (ix && ix->base->is<CallExpr>() && ix->base->as<CallExpr>()->callee == "peer");
  };
  if (isStore && !namesTensor(*e.args[0]) && namesTensor(*e.args[1])) {
    auto *ix = e.args[0]->as<IndexExpr>();
    auto *ref = ix->base->as<VarRefExpr>();
    std::string name = ref ? ref->name : "the array";
    error(e.args[0]->loc,
          "copy_async loads into a whole shared tile, not an element or a part of '" + name + "'",
          kTilePerStageHint);
    // The rest resolved without cascades: the box, the indices, the mbarrier.
    checkTensorRef(e.args[1], e);
    for (ExprPtr &m : ix->moreIndices)
      resolveOnly(m);
    resolveOnly(ix->index);
    if (e.args.size() == 3)
      checkMBarrierOperand(e, 2, true);
    return Type::invalid();
  }
  e.tma.isStore = isStore;
  if (isStore && e.args.size() != 2) {
    error(e.loc, "a TMA store takes no mbarrier", "write `copy_async(A[c0, c1], TILE)`");
    ok = false;
  }
  if (!isStore && e.args.size() != 3 && !inRingProduce()) {
    error(e.loc, "a TMA load completes on an mbarrier: copy_async(TILE, A[c...], BAR)",
          "declare `let bar = mbarrier(1)`, pass it, then `arrive(bar)` and `wait(bar)`");
    ok = false;
  }
  if (isStore && e.tma.multicastAxis >= 0) {
    error(mcLoc, "multicast applies to TMA loads only", "remove `multicast =` from the store");
    ok = false;
  }
  ExprPtr &tileArg = e.args[isStore ? 1 : 0];
  ExprPtr &tensorArg = e.args[isStore ? 0 : 1];
  TensorParamSyntax *tensor = checkTensorRef(tensorArg, e);
  inferringTmaStoreTile_ = isStore;
  Type tileTy = infer(tileArg);
  inferringTmaStoreTile_ = false;
  auto *tileRef = tileArg->as<VarRefExpr>();
  SharedArrayStmt *tile = tileRef && tileRef->decl ? tileRef->decl->array : nullptr;
  if (!tileTy.isInvalid() &&
      (!tile || tileTy.kind != Type::SharedArray || tileRef->decl->kind != DeclKind::SharedArray)) {
    auto *part = tileArg->as<IndexExpr>();
    auto *partOf = part ? part->base->as<VarRefExpr>() : nullptr;
    if (partOf)
      error(tileArg->loc,
            std::string("copy_async ") + (isStore ? "stores" : "loads into") +
                " a whole shared tile, not an element or a part of '" + partOf->name + "'",
            kTilePerStageHint);
    else
      error(tileArg->loc, "copy_async needs a shared tile, found " + tileTy.str(),
            "declare the tile at the top of the kernel: `let t = shared<T>[R, C]`");
    ok = false;
    tile = nullptr;
  }
  if (e.args.size() == 3 && !isStore && checkMBarrierOperand(e, 2, true).isInvalid())
    ok = false;
  if (!ok || !tensor || !tile || !tile->isTmaTile)
    return Type::invalid();
  if (!checkRingCopy(e, *tile)) // SemaRings.cpp
    return Type::invalid();
  e.tma.tile = tile;
  e.tma.tensorParam = tensor->param;
  const Decl &tp = *kernel_->params[tensor->param];
  std::vector<int64_t> dims =
      tile->dims.empty() ? std::vector<int64_t>{*tile->constantCount} : tile->dims;
  if (tensor->elem != tile->elem.type.scalar || dims.size() > tensor->extents.size()) {
    error(e.loc,
          "tile '" + tile->decl->name + "' (" + tileTy.str() + ") does not match tensor '" +
              tp.name + "' (" + tp.type.str() + ")",
          "a TMA copy moves a box of the tensor's element type into a tile of the box's shape; "
          "a tile of lower rank than the tensor takes a box whose leading extents are 1");
    return Type::invalid();
  }
  // The box: the tile (one panel of it), or a 1/C slice for multicast. A
  // tile of lower rank than the tensor is the box with its leading extents
  // 1 (an NHWC image row into a [pixels, channels] tile): the same bytes in
  // shared memory, so the tile keeps its own rank for indexing and mma.
  const size_t lead = tensor->extents.size() - dims.size();
  std::vector<int64_t> box(lead, 1);
  box.insert(box.end(), dims.begin(), dims.end());
  box.back() = tile->panelElems;
  int64_t tileBytes = *tile->constantCount * byteSize(tile->elem.type.scalar);
  if (e.tma.multicastAxis >= 0) {
    if (kernel_->cluster.kind != ClusterAttr::Static) {
      error(mcLoc, "multicast needs a kernel with a static cluster(X, Y, Z)",
            "the multicast mask is computed from the cluster shape at compile time");
      return Type::invalid();
    }
    int axis = e.tma.multicastAxis;
    int64_t c = cluster::groupSize(kernel_->cluster.dims, axis);
    if (c < 1) // an invalid cluster shape, already reported
      return Type::invalid();
    if (dims[0] % c != 0) {
      error(mcLoc,
            "multicast over " + std::to_string(c) + " CTAs splits the outermost dimension of '" +
                tile->decl->name + "' (" + std::to_string(dims[0]) + ") into unequal slices",
            "make the tile's first dimension a multiple of the multicast group size");
      return Type::invalid();
    }
    box[lead] = dims[0] / c;
    int64_t rowsPerSlice = box[lead];
    for (size_t i = 1; i + 1 < dims.size(); ++i)
      rowsPerSlice *= dims[i];
    int64_t sliceBytes = rowsPerSlice * tile->panelElems * byteSize(tile->elem.type.scalar);
    if (c > 1 && ((tile->swizzleBytes && rowsPerSlice % T::kTmaSwizzleRows != 0) ||
                  sliceBytes % T::kTmaSharedAlign != 0)) {
      error(mcLoc,
            "a 1/" + std::to_string(c) + " slice of tile '" + tile->decl->name + "' (" +
                std::to_string(rowsPerSlice) + " rows, " + std::to_string(sliceBytes) +
                " bytes per panel) does not start on a " +
                (tile->swizzleBytes ? "swizzle atom (8 rows)" : "128-byte boundary"),
            "use more rows per tile, or multicast to fewer CTAs");
      return Type::invalid();
    }
    auto *ix = tensorArg->as<IndexExpr>();
    bool reads = readsClusterPosition(*ix->index, axis);
    for (ExprPtr &m : ix->moreIndices)
      reads = reads || readsClusterPosition(*m, axis);
    if (reads) {
      error(tensorArg->loc,
            "the box origin of a multicast copy depends on the CTA's position in the cluster",
            "every CTA of the multicast group must name the same box; each loads 1/C of it");
      return Type::invalid();
    }
    if (c > 1)
      requireCluster(mcLoc, "multicast");
  }
  if (!isStore) {
    if (MBarrierStmt *m = e.args.size() > 2 ? mbarrierDeclOf(*e.args[2]) : nullptr)
      tmaBarriers_[m].push_back(&e);
    e.tma.bytes = tileBytes;
    if (tileBytes > T::kMaxMBarrierTxBytes) {
      error(e.loc,
            "copy_async of tile '" + tile->decl->name + "' completes " + std::to_string(tileBytes) +
                " bytes on one mbarrier phase, over the limit of 2^20-1",
            "use smaller tiles");
      return Type::invalid();
    }
  } else {
    kernel_->usesTmaStore = true;
  }
  // Every copy through one tensor uses one box and swizzle (one tensor map).
  if (tensor->firstCopy) {
    if (tensor->box != box || tensor->swizzleBytes != tile->swizzleBytes) {
      error(e.loc,
            "copy through '" + tp.name + "' with box " + dimsStr(box) + " and swizzle " +
                std::to_string(tile->swizzleBytes) + " B differs from an earlier copy's box " +
                dimsStr(tensor->box) + " and swizzle " + std::to_string(tensor->swizzleBytes) +
                " B",
            "one tensor parameter is one tensor map: use tiles of one shape, or pass the tensor "
            "twice");
      diags_.note(tensor->firstCopy->loc, "the earlier copy is here");
      return Type::invalid();
    }
  } else {
    tensor->box = box;
    tensor->swizzleBytes = tile->swizzleBytes;
    tensor->firstCopy = &e;
  }
  // Inside a role, a TMA store the role's threads reach together (after they
  // wrote the tile, e.g. with fragment stores) is issued by one elected
  // thread between two barriers of the role (MLIRGenEpilogue.cpp).
  // Under a condition that failed to check, which threads run this is
  // unknown: the condition's error is the only one.
  if (underGuardInError())
    return Type::voidTy();
  if (isStore && curRole_ && !inSingleThread()) {
    if (inThreadSelectingIf()) {
      error(e.loc,
            "this TMA store in role '" + curRole_->name +
                "' is neither issued by one thread nor reached by the whole role",
            "issue it in one thread (`if role_thread_id() == 0`, after the role's "
            "`sync_threads()`), or where every thread of the role reaches it (the compiler then "
            "adds the barrier and elects the issuing thread)");
      return Type::invalid();
    }
    e.tma.roleCollective = true;
    return Type::voidTy();
  }
  if (!inSingleThread() && !inRingProduce()) {
    error(e.loc, "copy_async here would be issued by every thread",
          "a TMA copy is issued by one thread: wrap it in `if thread_id() == 0 { ... }` (or "
          "`if elect_one()` in one warp)");
    return Type::invalid();
  }
  return Type::voidTy();
}

void Sema::checkTmaBarriers() {
  // One phase of such an mbarrier waits for the sum of what its sources
  // expect: each copy_async's own expect_tx of its tile's bytes, plus the
  // user's expect_tx. The copies deliver their bytes; so the user's expect_tx
  // must be exactly the bytes the other sources deliver (a peer's
  // store_async: checkMBarrierUses compares those, naming the copies' bytes).
  // With no other source, any expect_tx is counted twice (PTX ISA 9.7.13.15:
  // the phase completes when the pending arrivals and the tx-count reach 0).
  for (MBarrierStmt *m : kernel_->mbarriers) { // declaration order: stable messages
    auto c = tmaBarriers_.find(m);
    auto it = mbarrierUses_.find(m);
    if (c == tmaBarriers_.end() || it == mbarrierUses_.end() || it->second.expects.empty())
      continue;
    const std::vector<CallExpr *> &copies = c->second;
    const MBarrierUses &u = it->second;
    if (!u.stores.empty() || u.storeUnknown)
      continue;
    const CallExpr &copy = *copies.front();
    const std::string &name = m->decl->name;
    for (const MBarrierUses::Expect &x : u.expects) {
      if (x.bytes && *x.bytes == 0) // counts nothing
        continue;
      std::string extra = x.bytes ? std::to_string(*x.bytes) + " bytes" : "bytes";
      std::string total =
          x.bytes ? " (" + std::to_string(copy.tma.bytes + *x.bytes) + " expected, " +
                        std::to_string(copy.tma.bytes) + " delivered)"
                  : "";
      error(x.call->loc,
            "'" + x.call->callee + "' on '" + name + "' would count " + extra +
                " a copy_async already expects: nothing else delivers bytes to '" + name +
                "', so the phase would never complete" + total,
            "copy_async issues mbarrier.expect_tx of its tile's bytes itself; use `arrive(" + name +
                ")` instead (an expect_tx on it counts only the bytes a peer's store_async "
                "delivers)");
      diags_.note(copy.loc, "the copy_async completing on '" + name + "' expects its " +
                                std::to_string(copy.tma.bytes) + " bytes here");
    }
  }
}

} // namespace tile::frontend
