//===- SemaMma.cpp - fragments, operand views, mma, inflight ---------------===//
//
// Fragments and mma (docs/reference/mma.md "Fragments and `mma`"):
//  - zeros<T>[M, N] / frag<T>[M, N]: M a multiple of 64, N a multiple of 8
//    in 8..256 (wgmma's m64nNk16 shapes, tilec/Target/TargetFacts.h), T f32, f16, bf16.
//  - mma(a, b, acc): a is a [M, K] view with K inner (a tile, rows(t, i, n)
//    of one) or trans() of a [K, M] one; b a [K, N] view (MN-major) or
//    trans() of an [N, K] one (K-major); f16 or bf16 operands of one type,
//    or fp8 ones (e4m3/e5m2, any mix) both K-major from shared tiles;
//    an f32 or f16 accumulator; K a multiple of 16 (32 for fp8). Operand tiles get the
//    TMA tile layout (SemaTma.cpp chooseTileLayout: the mma reads them with
//    descriptors of that swizzle), which must be swizzled (32/64/128 bytes).
//  - Only whole warpgroups run mma: inside a role, or in a kernel with an
//    exact threads(T), T a multiple of 128 (the converged-control rule is
//    the IR's, tile-check-divergence).
//  - consume ... inflight(n): 0 <= n < stages; the accumulators of its
//    mma are used only by mma until the enclosing loop ends (their
//    registers are being written by wgmma groups still in flight).
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace T = ::tile::target;

namespace {
/// The tiles named as mma operands anywhere in `e`: an mma is an expression
/// like any other, so it may stand in a `let`, an assignment, an argument of
/// another call (`max(x, mma(...))`, `store(p, mma(...), ...)`), either side
/// of an operator (`mma(..) + mma(..)`), a select, an index, a vector
/// literal or a condition. Its operand tiles get the wgmma (TMA) layout
/// wherever it stands; the walk reaches every subexpression.
void collectMmaTiles(const ExprAST &e, std::unordered_set<std::string> &names) {
  auto *c = e.as<CallExpr>();
  bool view = c && (c->callee == "rows" || c->callee == "trans");
  if (c && (view || c->callee == "mma"))
    for (size_t i = 0; i < c->args.size() && i < (view ? 1u : 2u); ++i) {
      // cols(t, j, n) only as (part of) an mma operand: elsewhere cols()
      // takes a fragment.
      const ExprAST *x = c->args[i].get();
      for (auto *v = x->as<CallExpr>(); v && v->callee == "cols" && !v->args.empty();
           v = x->as<CallExpr>())
        x = v->args[0].get();
      if (auto *v = x->as<VarRefExpr>())
        names.insert(v->name);
    }
  forEachOperand(e, [&](const ExprAST &x) { collectMmaTiles(x, names); });
}
} // namespace

void Sema::collectMmaTileNames(const Block &b) {
  // A helper function's body sees only its parameters, and a view parameter
  // is no operand tile (checkMmaOperand), so an mma in a function never
  // names a kernel's tile.
  forEachExprIn(b, [&](const ExprAST &e) { collectMmaTiles(e, tmaTileNames_); });
}

bool Sema::checkFragmentShape(const Location &loc, ScalarKind k, int64_t m, int64_t n) {
  const char *hint = "a fragment is frag<T>[M, N] with T f32, f16 or bf16 (e4m3 or e5m2: mma's "
                     "operand a), M a multiple of 64 and N a multiple of 8 in 8..256 "
                     "(wgmma.m64nNk16)";
  if (k != ScalarKind::F32 && k != ScalarKind::F16 && k != ScalarKind::BF16 && !isFp8Kind(k)) {
    error(loc, std::string("no fragment of ") + scalarName(k) + " elements",
          isIntegerKind(k) ? std::string(hint) +
                                 "; tilec has no integer mma (wgmma .s8/.u8 into s32): "
                                 "accumulate in f32 from e4m3, f16 or bf16 operands"
                           : std::string(hint));
    return false;
  }
  if (isFp8Kind(k) && n % T::kWgmmaK8Bit != 0) {
    error(loc, "an fp8 fragment has a multiple of 32 columns, found N = " + std::to_string(n),
          "an fp8 fragment is register operand a of wgmma.m64nNk32: its columns are K, read in "
          "steps of 32");
    return false;
  }
  if (m < T::kWgmmaM || m % T::kWgmmaM != 0 || m > 4 * T::kWgmmaM) {
    error(loc, "fragment rows M = " + std::to_string(m) + " must be 64, 128, 192 or 256", hint);
    return false;
  }
  if (n < T::kWgmmaMinN || n > T::kWgmmaMaxN || n % T::kWgmmaNStep != 0) {
    error(loc, "fragment columns N = " + std::to_string(n) + " must be a multiple of 8 in 8..256",
          hint);
    return false;
  }
  return true;
}

Type Sema::checkMmaCall(CallExpr &e) {
  switch (e.builtin) {
  case Builtin::Zeros: {
    // Call syntax (`zeros()`, `zeros(64, 128)`) reaches here too, without
    // the element type and shape only `zeros<T>[M, N]` supplies.
    if (!e.typeArg || e.args.size() != 2) {
      error(e.loc, "zeros needs its element type and shape: `zeros<T>[M, N]`",
            "e.g. `var acc = zeros<f32>[64, 256]` (a fragment of 64 x 256 f32 zeros)");
      for (ExprPtr &a : e.args)
        resolveOnly(a);
      return Type::invalid();
    }
    bool ok = checkNoNamedArgs(e);
    int64_t dims[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      Type t = checkValue(e.args[i], nullptr, "");
      bool overflow = false;
      std::optional<int64_t> v;
      if (!t.isInvalid() && t.isInteger())
        v = foldConstant(*e.args[i], overflow);
      if (!v || overflow) {
        if (!t.isInvalid())
          error(e.args[i]->loc, "the dimensions of zeros<T>[M, N] must be integer constants",
                "write literals or `const` names: zeros<f32>[64, BN]");
        ok = false;
        continue;
      }
      dims[i] = *v;
    }
    if (!ok || !checkFragmentShape(e.loc, e.typeArg->type.scalar, dims[0], dims[1]))
      return Type::invalid();
    return Type::fragment(e.typeArg->type.scalar, dims[0], dims[1]);
  }
  case Builtin::Mma:
    return checkMma(e);
  default:
    error(e.loc, "'" + e.callee + "(...)' is an operand view, taken only by mma(...)",
          "write it as an operand: `acc = mma(rows(s.a, wg, 64), trans(s.b), acc)`");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
}

/// The block index and the constant extent of rows(t, i, n) or
/// cols(t, j, n). `n` is a positive constant; whether it fits the tile's
/// swizzle atoms is checked once the tile is known. False after an error.
bool Sema::checkMmaViewArgs(CallExpr &view, bool columns, ExprPtr *&index, int64_t &n) {
  const char *form = columns ? "cols(t, j, n)" : "rows(t, i, n)";
  view.builtin = columns ? Builtin::Cols : Builtin::Rows;
  if (!checkNoNamedArgs(view) || !checkArgCount(view, 3, 3))
    return false;
  Type it = checkValue(view.args[1], nullptr, "");
  if (it.isUntyped())
    it = finalize(view.args[1]);
  if (!it.isInvalid() && (!it.isInteger() || it.isBool())) {
    error(view.args[1]->loc,
          std::string("the ") + (columns ? "column" : "row") + " block of " + form +
              " must be an integer, found " + it.str(),
          columns ? "columns j*n .. j*n+n-1 of the tile: j is an integer"
                  : "rows i*n .. i*n+n-1 of the tile: i is an integer");
    return false;
  }
  Type nt = checkValue(view.args[2], nullptr, "");
  bool overflow = false;
  std::optional<int64_t> nv;
  if (!nt.isInvalid() && nt.isInteger())
    nv = foldConstant(*view.args[2], overflow);
  if (columns && (!nv || overflow || *nv <= 0)) {
    error(view.args[2]->loc, "the column count n of cols(t, j, n) must be a positive constant",
          "a view is whole swizzle atoms: cols(t, wg, 64) of a 128-byte swizzled f16 tile");
    return false;
  }
  if (!columns && (!nv || overflow || *nv < 8 || *nv % 8 != 0)) {
    error(view.args[2]->loc, "the row count n of rows(t, i, n) must be a constant multiple of 8",
          "a view starts on an 8-row swizzle atom: rows(t, i, 64)");
    return false;
  }
  if (it.isInvalid())
    return false;
  n = *nv;
  index = &view.args[1];
  return true;
}

/// A constant block index of a view must keep it inside the tile's `extent`
/// (a runtime one is not checked, like shared indexing).
bool Sema::checkMmaViewBounds(const ExprAST &index, int64_t n, int64_t extent,
                              const std::string &tileName, bool columns) {
  bool overflow = false;
  auto i = foldConstant(index, overflow);
  if (!i || overflow || (*i >= 0 && (*i + 1) * n <= extent))
    return true;
  error(index.loc,
        std::string(columns ? "cols(" : "rows(") + tileName + ", " + std::to_string(*i) + ", " +
            std::to_string(n) + ") is outside the tile's " + std::to_string(extent) +
            (columns ? " columns" : " rows"),
        columns ? "the view is columns j*n .. j*n+n-1" : "the view is rows i*n .. i*n+n-1");
  return false;
}

/// One operand of mma: TILE, rows(TILE, i, n), cols(TILE, j, n) (either
/// inside the other too) or trans(...) of those. Fills `op`; false after an
/// error.
bool Sema::checkMmaOperand(ExprPtr &arg, CallExpr::MmaOperand &op, const char *which) {
  std::string hint = std::string("operand ") + which +
                     " is a 2-D shared tile, rows(TILE, i, n) or cols(TILE, j, n) of one, or "
                     "trans(...) of those";
  if (std::string(which) == "a") // wgmma's .rs form (PTX ISA 9.7.15.5.2): A from registers
    hint += "; or an f16, bf16 or fp8 fragment [M, K] in registers, "
            "`mma(p as f16, trans(s.v), acc)`";
  ExprPtr *at = &arg;
  auto *view = (*at)->as<CallExpr>();
  if (view && view->callee == "trans") {
    view->builtin = Builtin::Trans;
    if (!checkNoNamedArgs(*view) || !checkArgCount(*view, 1, 1))
      return false;
    op.transposed = true;
    at = &view->args[0];
    view = (*at)->as<CallExpr>();
  }
  // cols(TILE, j, n) of a shared tile is a column view; cols(f, j, w) of a
  // fragment is the fragment builtin (an operand a in registers).
  auto isTileColumnView = [&](const CallExpr *c) {
    if (!c || c->callee != "cols" || c->args.size() != 3)
      return false;
    auto *ref = c->args[0]->as<VarRefExpr>();
    Decl *d = !ref ? nullptr : ref->decl ? ref->decl : lookup(ref->name);
    return d && d->array;
  };
  // rows(...) and cols(...), at most one of each, either inside the other.
  ExprPtr *rowIndex = nullptr, *colIndex = nullptr;
  int64_t rowCount = 0, colCount = 0;
  const ExprAST *colCountArg = nullptr;
  for (int depth = 0; depth < 2 && view; ++depth) {
    bool rows = view->callee == "rows" && !rowIndex;
    auto *inner = view->args.empty() ? nullptr : view->args[0]->as<CallExpr>();
    bool cols =
        !colIndex && (isTileColumnView(view) || (view->callee == "cols" && view->args.size() == 3 &&
                                                 inner && inner->callee == "rows"));
    if (!rows && !cols)
      break;
    if (!checkMmaViewArgs(*view, cols, cols ? colIndex : rowIndex, cols ? colCount : rowCount))
      return false;
    if (cols)
      colCountArg = view->args[2].get();
    at = &view->args[0];
    view = (*at)->as<CallExpr>();
  }
  // A tile is named (`t`, `s.a`); anything else may be a fragment value
  // (operand a in registers), whose inference must not count as a wgmma read.
  bool named = (*at)->is<VarRefExpr>() || (*at)->is<MemberExpr>();
  inferringMmaOperand_ = named; // a ring stage named here is read by wgmma only
  Type t = infer(*at);
  inferringMmaOperand_ = false;
  if (t.isInvalid())
    return false;
  if (t.isFragment())
    return checkMmaRegisterOperand(**at, t, op, which, at != &arg);
  auto *ref = (*at)->as<VarRefExpr>();
  SharedArrayStmt *tile = ref && ref->decl ? ref->decl->array : nullptr;
  if (!tile || t.kind != Type::SharedArray || tile->dims.size() != 2) {
    error((*at)->loc,
          std::string("operand ") + which + " of mma must be a 2-D shared tile, found " + t.str(),
          hint);
    return false;
  }
  int64_t elemBytes = byteSize(tile->elem.type.scalar);
  if (!tile->isTmaTile || !tile->swizzleBytes) {
    int64_t inner = tile->dims[1] * elemBytes;
    error((*at)->loc,
          "tile '" + tile->decl->name + "' has no wgmma layout: its rows are " +
              std::to_string(inner) + " bytes, not 32, 64, 128 or a multiple of 128",
          elemBytes == 1
              ? "wgmma reads 32/64/128-byte swizzled rows (the TMA layout): make the inner "
                "dimension of an fp8 tile 32, 64, 128 or a multiple of 128 elements"
              : "wgmma reads 32/64/128-byte swizzled rows (the TMA layout): make the inner "
                "dimension of a 16-bit tile 16, 32, 64 or a multiple of 64 elements");
    return false;
  }
  op.tile = tile;
  op.viewRows = rowIndex ? rowCount : tile->dims[0];
  op.viewCols = colIndex ? colCount : tile->dims[1];
  if (rowIndex) {
    op.rowBlock = rowIndex->get();
    if (!checkMmaViewBounds(**rowIndex, rowCount, tile->dims[0], tile->decl->name, false))
      return false;
  }
  if (colIndex) {
    // A descriptor's start moves along the inner dimension by whole swizzle
    // atoms only (MN-major: the LBO is the panel stride, PTX ISA
    // 9.7.15.5.1.2), so every view j*n .. j*n+n-1 is whole atoms when n is.
    int64_t atom = tile->swizzleBytes / elemBytes;
    if (colCount % atom != 0) {
      error(colCountArg->loc,
            "the column count n of cols(" + tile->decl->name + ", j, " + std::to_string(colCount) +
                ") must be a multiple of the tile's " + std::to_string(atom) +
                "-element swizzle atom",
            "a wgmma descriptor starts on a swizzle atom (" + std::to_string(tile->swizzleBytes) +
                " bytes of a row): cols(" + tile->decl->name + ", j, " + std::to_string(atom) +
                ")");
      return false;
    }
    op.colBlock = colIndex->get();
    if (!checkMmaViewBounds(**colIndex, colCount, tile->dims[1], tile->decl->name, true))
      return false;
  }
  return true;
}

/// Operand a as a fragment in registers (wgmma's .rs form): a 16-bit
/// fragment [M, K], not a view of one.
bool Sema::checkMmaRegisterOperand(const ExprAST &frag, Type t, CallExpr::MmaOperand &op,
                                   const char *which, bool viewed) {
  const char *hint = "operand a may be an f16, bf16 or fp8 fragment [M, K] (wgmma reads A from "
                     "registers): convert an f32 one first, `mma(p as f16, trans(s.v), acc)`";
  if (std::string(which) != "a") {
    error(frag.loc, "operand b of mma must be a shared tile, found " + t.str(),
          "wgmma reads B from shared memory only; A may come from registers");
    return false;
  }
  if (viewed) {
    error(frag.loc, "a fragment operand is taken whole: no rows() or trans() of it",
          "wgmma reads a register A only as it is held, [M, K] (slice it with cols(f, j, w)); "
          "for a transposed product such as dV = P^T dO compute the transpose itself "
          "(S^T = mma(k, trans(q), zeros<f32>[...]): its rows are the keys), or store the fragment into a shared "
          "tile (`store(t, f as bf16)`) and pass `trans(t)`");
    return false;
  }
  if (t.scalar != ScalarKind::F16 && t.scalar != ScalarKind::BF16 && !isFp8Kind(t.scalar)) {
    error(frag.loc,
          "operand a in registers must be an f16, bf16 or fp8 fragment, found " + t.str(), hint);
    return false;
  }
  op.inRegisters = true;
  op.viewRows = t.dims[0];
  return true;
}

Type Sema::checkMma(CallExpr &e) {
  // Marked before the checks: a consume whose mma has an error still issues
  // one, so its inflight(N) is not reported again as "no mma".
  // An mma in a nested consume is the enclosing blocks' too: their closing
  // waits cover what the inner block leaves in flight.
  if (ringAccess_ && !ringAccess_->isProduce()) {
    ringAccess_->mmaInBody = true;
    for (RingAccessStmt *c = ringAccess_; c; c = c->enclosing)
      c->issuesMma = true;
  }
  if (!e.namedArgs.empty()) {
    error(e.namedArgs[0].loc, "'mma' takes no named arguments",
          "mma(a, b, acc) takes its operands and the accumulator by position (a: a shared tile, "
          "a view or an f16, bf16 or fp8 fragment; b: a shared tile or a view)");
    return Type::invalid();
  }
  if (!checkArgCount(e, 3, 3))
    return Type::invalid();
  bool ok = checkMmaOperand(e.args[0], e.mma.a, "a");
  ok = checkMmaOperand(e.args[1], e.mma.b, "b") && ok;
  Type acc = checkValue(e.args[2], nullptr, "");
  if (!acc.isInvalid() && !acc.isFragment()) {
    error(e.args[2]->loc, "the accumulator of mma must be a fragment, found " + acc.str(),
          "start it with `var acc = zeros<f32>[M, N]`");
    ok = false;
  }
  if (!ok || acc.isInvalid())
    return Type::invalid();
  const char *wgHint = "mma is run by a whole warpgroup: put it in a role of a warpgroups block, "
                       "or give the kernel an exact threads(T) with T a multiple of 128";
  if (!curRole_ &&
      (!kernel_->threads.present || kernel_->threads.dims[1] != 1 ||
       kernel_->threads.dims[2] != 1 || kernel_->threads.dims[0] % T::kWarpgroupSize != 0)) {
    error(e.loc, "mma outside a role needs a kernel of whole warpgroups", wgHint);
    return Type::invalid();
  }
  const CallExpr::MmaOperand &a = e.mma.a, &b = e.mma.b;
  const Type aType = e.args[0]->type;
  ScalarKind ea = a.inRegisters ? aType.scalar : a.tile->elem.type.scalar,
             eb = b.tile->elem.type.scalar;
  bool fp8 = isFp8Kind(ea) && isFp8Kind(eb);
  if (!fp8 && (ea != eb || (ea != ScalarKind::F16 && ea != ScalarKind::BF16))) {
    // What to write depends on the kinds: tilec offers no tf32 or integer
    // wgmma (.tf32, .s8/.u8), so a pair of those is stored in another type,
    // not "converted on the other side".
    std::string hint;
    if (ea == ScalarKind::F32 || eb == ScalarKind::F32)
      hint = "tilec has no tf32 mma (wgmma .tf32): store the f32 operands as bf16 (or f16), "
             "`x as bf16` where they are written, and keep an f32 accumulator";
    else if (isIntegerKind(ea) || isIntegerKind(eb))
      hint = "tilec has no integer mma (wgmma .s8/.u8 with an s32 accumulator): store the "
             "operands as e4m3 with a scale (an f32 accumulator), or as f16 / bf16";
    else
      hint = "wgmma.mma_async multiplies f16 x f16, bf16 x bf16 or fp8 x fp8 (e4m3 and e5m2 "
             "in any mix); convert the other operand where it is stored";
    error(e.loc,
          std::string("mma operands must both be f16, both bf16 or both fp8, found ") +
              scalarName(ea) + " and " + scalarName(eb),
          hint);
    return Type::invalid();
  }
  // fp8 wgmma has no transpose: both operands are read K-major (PTX ISA
  // "wgmma.mma_async": imm-trans-a/b are for .f16/.bf16 only).
  if (fp8 && a.transposed) {
    error(e.args[0]->loc, "fp8 wgmma needs A K-major, found trans() of a [K, M] tile",
          "store A as [M, K] (K inner, as TMA loads it from a row-major A) and pass it "
          "without trans");
    return Type::invalid();
  }
  if (fp8 && !b.transposed) {
    error(e.args[1]->loc, "fp8 wgmma needs B K-major, found a [K, N] tile (N inner)",
          "store B as [N, K] (K inner: a column-major B, or B transposed once) and pass "
          "trans(b)");
    return Type::invalid();
  }
  if (acc.scalar != ScalarKind::F32 && acc.scalar != ScalarKind::F16) {
    error(e.args[2]->loc, "the accumulator must be frag<f32> or frag<f16>, found " + acc.str(),
          "convert after the product: `acc as bf16`");
    return Type::invalid();
  }
  // wgmma's .f16 accumulator takes .f16 or fp8 operands only (PTX ISA
  // "wgmma.mma_async": .bf16 x .bf16 has .dtype .f32); ptxas rejects the rest.
  if (acc.scalar == ScalarKind::F16 && ea == ScalarKind::BF16) {
    error(e.args[2]->loc, "bf16 operands need an f32 accumulator, found " + acc.str(),
          "wgmma multiplies bf16 x bf16 into f32 only: accumulate in frag<f32> and convert "
          "after the product (`acc as f16`)");
    return Type::invalid();
  }
  // Shapes: a is [M, K] (K-major) or trans of [K, M]; b is [K, N] or trans of [N, K].
  int64_t aInner = a.inRegisters ? aType.dims[1] : a.viewCols, bInner = b.viewCols;
  int64_t m = a.transposed ? aInner : a.viewRows, ka = a.transposed ? a.viewRows : aInner;
  int64_t n = b.transposed ? b.viewRows : bInner, kb = b.transposed ? bInner : b.viewRows;
  int64_t am = acc.dims[0], an = acc.dims[1];
  auto shape = [](int64_t r, int64_t c) {
    return "[" + std::to_string(r) + ", " + std::to_string(c) + "]";
  };
  if (ka != kb) {
    error(e.loc, "mma operands disagree on K: a is " + shape(m, ka) + ", b is " + shape(kb, n),
          "a is [M, K] and b is [K, N] (trans([N, K]) for a K-major b)");
    return Type::invalid();
  }
  if (m != am || n != an) {
    error(e.loc,
          "mma of " + shape(m, ka) + " x " + shape(kb, n) + " does not fit the accumulator " +
              acc.str(),
          "the accumulator is [M, N]: take rows(t, i, M) of a larger tile, or resize it");
    return Type::invalid();
  }
  if (int64_t step = T::wgmmaK(byteSize(ea)); ka % step != 0) {
    std::string s = std::to_string(step);
    error(e.loc, "mma's K = " + std::to_string(ka) + " is not a multiple of " + s,
          "wgmma.m64nNk" + s + " steps K by " + s + (fp8 ? " for fp8" : "") +
              ": pad the tiles' K to a multiple of " + s);
    return Type::invalid();
  }
  if (acc.dims[0] > 2 * T::kWgmmaM) {
    error(e.args[2]->loc, "mma accumulators have 64 or 128 rows, found " + acc.str(),
          "split the product over warpgroups: rows(t, warpgroup_rank(), 64)");
    return Type::invalid();
  }
  e.mma.k = ka;
  kernel_->usesMma = true; // range checks trap without printf (MLIRGenPeer.cpp)
  if (ringAccess_ && !ringAccess_->isProduce()) {
    e.mma.inConsume = true;
    for (RingAccessStmt *c = ringAccess_; c; c = c->enclosing)
      c->mmaReadsRegisterA |= a.inRegisters;
  }
  return acc;
}

namespace {
/// Names the fragment variables used as mma accumulators in `b`.
void collectAccumulators(const Block &b, std::unordered_set<const Decl *> &out);
void collectAccumulators(const ExprAST &e, std::unordered_set<const Decl *> &out) {
  if (auto *c = e.as<CallExpr>(); c && c->builtin == Builtin::Mma && c->args.size() == 3)
    if (auto *v = c->args[2]->as<VarRefExpr>(); v && v->decl)
      out.insert(v->decl);
}
void collectAccumulators(const Block &b, std::unordered_set<const Decl *> &out) {
  for (const StmtPtr &s : b) {
    if (auto *a = s->as<AssignStmt>())
      collectAccumulators(*a->value, out);
    else if (auto *es = s->as<ExprStmtAST>())
      collectAccumulators(*es->expr, out);
    else if (auto *f = s->as<ForStmt>())
      collectAccumulators(f->body, out);
    else if (auto *w = s->as<WhileStmt>())
      collectAccumulators(w->body, out);
    else if (auto *i = s->as<IfStmt>()) {
      collectAccumulators(i->thenBody, out);
      collectAccumulators(i->elseBody, out);
    } else if (auto *r = s->as<RingAccessStmt>()) {
      collectAccumulators(r->body, out);
    }
  }
}

/// The first use of one of `accs` in `e` other than as mma's accumulator.
const ExprAST *nonMmaUse(const ExprAST &e, const std::unordered_set<const Decl *> &accs) {
  if (auto *v = e.as<VarRefExpr>())
    return v->decl && accs.count(v->decl) ? &e : nullptr;
  if (auto *c = e.as<CallExpr>()) {
    // An mma in error was reported, and is no program: its operands are not
    // uses (`acc = mma(acc, ...)`, an f32 a, is one error, not two).
    if (c->builtin == Builtin::Mma && c->type.isInvalid())
      return nullptr;
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (c->builtin == Builtin::Mma && i == 2 && c->args[i]->is<VarRefExpr>())
        continue;
      if (const ExprAST *u = nonMmaUse(*c->args[i], accs))
        return u;
    }
    for (const NamedArg &na : c->namedArgs)
      if (const ExprAST *u = nonMmaUse(*na.expr, accs))
        return u;
    return nullptr;
  }
  const ExprAST *use = nullptr;
  forEachOperand(e, [&](const ExprAST &x) {
    if (!use)
      use = nonMmaUse(x, accs);
  });
  return use;
}

const ExprAST *nonMmaUse(const Block &b, const std::unordered_set<const Decl *> &accs) {
  for (const StmtPtr &s : b) {
    const ExprAST *u = nullptr;
    if (auto *a = s->as<AssignStmt>()) {
      auto *call = a->value->as<CallExpr>();
      bool mmaUpdate = call && call->builtin == Builtin::Mma && a->target->is<VarRefExpr>();
      if (!mmaUpdate)
        u = nonMmaUse(*a->target, accs);
      if (!u)
        u = nonMmaUse(*a->value, accs);
    } else if (auto *es = s->as<ExprStmtAST>()) {
      u = nonMmaUse(*es->expr, accs);
    } else if (auto *l = s->as<LetStmt>()) {
      u = nonMmaUse(*l->init, accs);
    } else if (auto *f = s->as<ForStmt>()) {
      for (const ExprAST *x : {f->start.get(), f->end.get(), f->step.get()})
        if (x && !u)
          u = nonMmaUse(*x, accs);
      if (!u)
        u = nonMmaUse(f->body, accs);
    } else if (auto *r = s->as<ReturnStmt>()) {
      if (r->value)
        u = nonMmaUse(*r->value, accs);
      for (const ExprPtr &v : r->values)
        if (!u)
          u = nonMmaUse(*v, accs);
    } else if (auto *w = s->as<WhileStmt>()) {
      u = nonMmaUse(*w->cond, accs);
      if (!u)
        u = nonMmaUse(w->body, accs);
    } else if (auto *i = s->as<IfStmt>()) {
      u = nonMmaUse(*i->cond, accs);
      if (!u)
        u = nonMmaUse(i->thenBody, accs);
      if (!u)
        u = nonMmaUse(i->elseBody, accs);
    } else if (auto *r = s->as<RingAccessStmt>()) {
      u = nonMmaUse(r->body, accs);
    }
    if (u)
      return u;
  }
  return nullptr;
}

/// The variables assigned anywhere in `b` (fragments and vectors are
/// assigned whole: the target is the variable).
void collectAssigned(const Block &b, std::unordered_set<const Decl *> &out) {
  for (const StmtPtr &s : b) {
    if (auto *a = s->as<AssignStmt>()) {
      if (auto *v = a->target->as<VarRefExpr>(); v && v->decl)
        out.insert(v->decl);
    } else if (auto *f = s->as<ForStmt>()) {
      collectAssigned(f->body, out);
    } else if (auto *w = s->as<WhileStmt>()) {
      collectAssigned(w->body, out);
    } else if (auto *i = s->as<IfStmt>()) {
      collectAssigned(i->thenBody, out);
      collectAssigned(i->elseBody, out);
    } else if (auto *r = s->as<RingAccessStmt>()) {
      collectAssigned(r->body, out);
    }
  }
}

/// Marks the mmas of a consume block whose registers the block touches
/// before its commit and wait; their group is committed and waited for right
/// after them (MLIRGenMma.cpp). Conservative: anywhere in the block.
///  - The result is read, other than as an mma accumulator (PTX ISA
///    9.7.15.5: reading a wgmma's registers before a wait_group that covers
///    it is undefined): `let t = mma(...)` read by `t as f16`, or an mma
///    nested in another expression (`waitAfter`).
///  - A is a fragment variable (the .rs form) that the block assigns (PTX
///    ISA 9.7.15.5: A's registers may not change until the group completes;
///    the new value of a loop-carried variable shares its registers):
///    `o = mma(p, s.v, o)` then `p = x as f16` (`waitForA`). Assigned after
///    the block, the mma stays in flight until the block's wait.
class MmaResultReads {
public:
  explicit MmaResultReads(const Block &body) : body(body) { collectAssigned(body, assigned); }
  void block(Block &b) {
    for (StmtPtr &s : b)
      stmt(*s);
  }

private:
  const Block &body;
  std::unordered_set<const Decl *> assigned;
  /// `let a = p` in the block, p a variable: a names p's registers.
  std::unordered_map<const Decl *, const Decl *> aliases;

  /// Whether the fragment variable A names (directly or through a `let` of
  /// the block) is assigned in the block.
  bool registerAAssigned(const ExprAST &a) const {
    auto *v = a.as<VarRefExpr>();
    if (!v || !v->decl)
      return false;
    auto it = aliases.find(v->decl);
    return assigned.count(it != aliases.end() ? it->second : v->decl) != 0;
  }

  void stmt(StmtAST &s) {
    if (auto *a = s.as<AssignStmt>()) {
      auto *v = a->target->as<VarRefExpr>();
      expr(*a->value, v ? v->decl : nullptr, false);
      expr(*a->target, nullptr, false);
    } else if (auto *l = s.as<LetStmt>()) {
      if (auto *v = l->init->as<VarRefExpr>(); v && v->decl && l->decl) {
        auto it = aliases.find(v->decl);
        aliases[l->decl.get()] = it != aliases.end() ? it->second : v->decl;
      }
      expr(*l->init, l->decl.get(), false);
    } else if (auto *es = s.as<ExprStmtAST>()) {
      expr(*es->expr, nullptr, false);
    } else if (auto *f = s.as<ForStmt>()) {
      block(f->body);
    } else if (auto *w = s.as<WhileStmt>()) {
      expr(*w->cond, nullptr, false);
      block(w->body);
    } else if (auto *i = s.as<IfStmt>()) {
      expr(*i->cond, nullptr, false);
      block(i->thenBody);
      block(i->elseBody);
    } else if (auto *r = s.as<RingAccessStmt>()) {
      block(r->body); // a nested consume: its mmas are read against the whole block
    }
  }
  /// `boundTo`: the variable e (when it is the whole right-hand side) is
  /// stored to; `accumulator`: e is an enclosing mma's accumulator.
  void expr(ExprAST &e, const Decl *boundTo, bool accumulator) {
    if (auto *c = e.as<CallExpr>()) {
      bool isMma = c->builtin == Builtin::Mma;
      if (isMma && !accumulator) {
        c->mma.waitForA =
            c->mma.a.inRegisters && !c->args.empty() && registerAAssigned(*c->args[0]);
        c->mma.waitAfter =
            !boundTo || nonMmaUse(body, {boundTo}) != nullptr || c->mma.waitForA;
      }
      for (size_t i = 0; i < c->args.size(); ++i)
        expr(*c->args[i], nullptr, isMma && i == 2);
      return;
    }
    if (auto *u = e.as<UnaryExpr>())
      return expr(*u->operand, nullptr, false);
    if (auto *b = e.as<BinaryExpr>()) {
      expr(*b->lhs, nullptr, false);
      return expr(*b->rhs, nullptr, false);
    }
    if (auto *c = e.as<CastExpr>())
      return expr(*c->operand, nullptr, false);
    if (auto *s = e.as<SelectExpr>()) {
      for (ExprAST *x : {s->cond.get(), s->trueValue.get(), s->falseValue.get()})
        expr(*x, nullptr, false);
      return;
    }
    if (auto *i = e.as<IndexExpr>()) {
      expr(*i->base, nullptr, false);
      expr(*i->index, nullptr, false);
      for (ExprPtr &x : i->moreIndices)
        expr(*x, nullptr, false);
      return;
    }
    if (auto *m = e.as<MemberExpr>())
      return expr(*m->base, nullptr, false);
    if (auto *v = e.as<VectorExpr>())
      for (ExprPtr &x : v->elems)
        expr(*x, nullptr, false);
  }
};
} // namespace

void Sema::checkConsumeInflight(RingAccessStmt &s) {
  if (s.isProduce())
    return;
  s.drainLoop = loops_.empty() ? nullptr : loops_.back();
  // A nested consume's mmas are marked with its outermost block's (after
  // it: every read up to that block's end counts).
  if (s.issuesMma && !s.enclosing)
    MmaResultReads(s.body).block(s.body);
  checkConsumeAnchor(s);
  if (!s.inflightExpr)
    return;
  const char *hint = "write `consume r as s inflight(N) { acc = mma(...) }` with a constant N, "
                     "0 <= N < the ring's stages";
  Type t = checkValue(s.inflightExpr, nullptr, "");
  bool overflow = false;
  std::optional<int64_t> n;
  if (!t.isInvalid() && t.isInteger())
    n = foldConstant(*s.inflightExpr, overflow);
  if (!n || overflow) {
    if (!t.isInvalid())
      error(s.inflightExpr->loc, "inflight(N) needs an integer constant", hint);
    return;
  }
  if (!s.ring)
    return;
  if (*n < 0 || *n >= s.ring->stages || *n > T::kWgmmaMaxInflight) {
    error(s.inflightExpr->loc,
          "inflight(" + std::to_string(*n) + ") on ring '" + s.ringName + "' of " +
              std::to_string(s.ring->stages) + " stages",
          "each group in flight keeps its stage unreleased: N must be below the stages (and at "
          "most " +
              std::to_string(T::kWgmmaMaxInflight) + ")");
    return;
  }
  if (*n > 0 && (s.enclosing || s.enclosesConsume)) {
    error(s.inflightExpr->loc,
          "inflight(" + std::to_string(*n) + ") on a consume " +
              (s.enclosing ? "nested in another consume" : "with a consume nested in it"),
          "nested consume blocks release their stages at their own ends: write `consume r as "
          "s` (inflight(0))");
    return;
  }
  s.inflight = *n;
  if (*n > 0 && !s.issuesMma) {
    error(s.inflightLoc, "inflight(" + std::to_string(*n) + ") on a consume that issues no mma",
          "inflight delays stage releases behind wgmma groups; without mma write `consume r as s`");
    return;
  }
  // PTX ISA 9.7.15.5: the registers of A may not change until the wgmma
  // group that reads them completed; a group left in flight would see the
  // next iteration overwrite them.
  if (*n > 0 && s.mmaReadsRegisterA) {
    error(s.inflightLoc,
          "inflight(" + std::to_string(*n) + ") on a consume whose mma reads A from registers",
          "A's registers must stay unchanged until its wgmma group completes: write `consume r "
          "as s` (inflight(0)), or keep A in a shared tile");
    return;
  }
  if (*n > 0) // the loop's later statements are not checked yet: after the body
    inflightConsumes_.push_back(&s);
}

void Sema::checkConsumeAnchor(RingAccessStmt &s) {
  if (s.anchorName.empty())
    return;
  const char *hint = "write `anchor(reduce)`, `anchor(last)` or `anchor(none)`, optionally with "
                     "a compile-time condition: `anchor(reduce, D == 128)`";
  int mode = s.anchorName == "none" ? 0 : s.anchorName == "reduce" ? 1 : s.anchorName == "last" ? 2 : -1;
  if (mode < 0) {
    error(s.anchorLoc, "'" + s.anchorName + "' is not a wait anchor", hint);
    return;
  }
  if (s.anchorCond) {
    // An i1, as every condition (`anchor(reduce, N)` with N: i32 is no
    // condition: compare, `N != 0`).
    Type b = Type::i1();
    Type t = checkValue(s.anchorCond, &b, "condition of anchor(...)",
                        "compare explicitly, e.g. `anchor(reduce, D == 128)`");
    bool overflow = false;
    std::optional<int64_t> v;
    if (!t.isInvalid())
      v = foldConstant(*s.anchorCond, overflow);
    if (!v || overflow) {
      if (!t.isInvalid())
        error(s.anchorCond->loc, "the condition of anchor(...) must be a compile-time constant",
              hint);
      return;
    }
    if (*v == 0)
      mode = -1; // the command line's anchor
  }
  if (mode > 0 && !s.issuesMma) {
    error(s.anchorLoc, "anchor(" + s.anchorName + ") on a consume that issues no mma",
          "the anchor places the block's closing wgmma.wait_group; without mma there is none");
    return;
  }
  s.anchorMode = mode;
}

void Sema::checkInflightUses() {
  for (RingAccessStmt *c : inflightConsumes_)
    checkInflightUses(*c);
  inflightConsumes_.clear();
}

void Sema::checkInflightUses(RingAccessStmt &s) {
  // Until the loop ends (the drain), the accumulators' registers belong to
  // wgmma groups still in flight: only mma may touch them.
  const int64_t *n = &s.inflight;
  std::unordered_set<const Decl *> accs;
  collectAccumulators(s.body, accs);
  const Block *scope = &s.body;
  if (s.drainLoop) {
    if (auto *f = s.drainLoop->as<ForStmt>())
      scope = &f->body;
    else if (auto *w = s.drainLoop->as<WhileStmt>())
      scope = &w->body;
  }
  if (const ExprAST *u = nonMmaUse(*scope, accs)) {
    error(u->loc,
          "'" + u->as<VarRefExpr>()->name +
              "' is read or written while its wgmma groups may be "
              "in flight (consume inflight(" +
              std::to_string(*n) + "))",
          "use the accumulator after the loop around the consume: the compiler waits for every "
          "group there");
    diags_.note(s.inflightLoc, "the groups stay in flight from here");
  }
}

} // namespace tile::frontend
