//===- SemaMma.cpp - fragments, operand views, mma -------------------------===//
//
// Fragments and mma (docs/reference/mma.md "Fragments and `mma`"):
//  - zeros<T>[M, N] / frag<T>[M, N]: M a multiple of 64, N a multiple of 8
//    in 8..256 (wgmma's m64nNk16 shapes, tilec/Target/TargetFacts.h), T f32,
//    f16, bf16 or i32 (the s32 accumulator of an integer mma).
//  - mma(a, b, acc): a is a [M, K] view with K inner (a tile, rows(t, i, n)
//    of one) or trans() of a [K, M] one; b a [K, N] view (MN-major) or
//    trans() of an [N, K] one (K-major); f16 or bf16 operands of one type,
//    or fp8 ones (e4m3/e5m2, any mix) both K-major from shared tiles;
//    an f32 or f16 accumulator; or i8/u8 ones (any mix) both K-major into
//    an i32 accumulator; K a multiple of 16 (32 for 8-bit operands). Operand tiles get the
//    TMA tile layout (SemaTma.cpp chooseTileLayout: the mma reads them with
//    descriptors of that swizzle), which must be swizzled (32/64/128 bytes).
//  - Only whole warpgroups run mma: inside a role, or in a kernel with an
//    exact threads(T), T a multiple of 128 (the converged-control rule is
//    the IR's, tile-check-divergence).
//  - consume ... inflight(n) and anchor(...): SemaInflight.cpp.
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include "tilec/Target/IntegerMma.h"

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
  const char *hint = "a fragment is frag<T>[M, N] with T f32, f16, bf16 or i32 (e4m3 or e5m2: "
                     "mma's operand a), M a multiple of 64 and N a multiple of 8 in 8..256 "
                     "(wgmma.m64nNk16)";
  if (k != ScalarKind::F32 && k != ScalarKind::F16 && k != ScalarKind::BF16 &&
      k != ScalarKind::I32 && !isFp8Kind(k)) {
    error(loc, std::string("no fragment of ") + scalarName(k) + " elements",
          isIntegerKind(k) ? std::string(hint) + "; an integer product accumulates in i32: "
                                                 "`zeros<i32>[M, N]` (wgmma .s8/.u8 into .s32)"
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

/// A constant block index of a view (in every copy of the unrolled loops
/// around it) must keep it inside the tile's `extent` (a runtime one is not
/// checked, like shared indexing).
bool Sema::checkMmaViewBounds(const ExprAST &index, int64_t n, int64_t extent,
                              const std::string &tileName, bool columns) {
  bool overflow = false;
  // Each copy of the unrolled loops around it (`for i in 0 .. 4 unroll`).
  std::optional<std::vector<int64_t>> is = foldEveryCopy(index, overflow);
  if (!is || overflow)
    return true;
  for (int64_t i : *is) {
    // i < extent / n is (i + 1) * n <= extent without overflowing for a huge i.
    if (i >= 0 && i < extent / n)
      continue;
    error(index.loc,
          std::string(columns ? "cols(" : "rows(") + tileName + ", " + std::to_string(i) + ", " +
              std::to_string(n) + ") is outside the tile's " + std::to_string(extent) +
              (columns ? " columns" : " rows"),
          columns ? "the view is columns j*n .. j*n+n-1" : "the view is rows i*n .. i*n+n-1");
    return false;
  }
  return true;
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

bool Sema::inWholeWarpgroups() const {
  return curRole_ ||
         (kernel_->threads.present && kernel_->threads.dims[1] == 1 &&
          kernel_->threads.dims[2] == 1 && kernel_->threads.dims[0] % T::kWarpgroupSize == 0);
}

/// A fragment, per_row or per_col value is spread over the 128 threads of a
/// warpgroup (the wgmma D layout): in a kernel of 64 threads half of its
/// rows would have no thread, so a load or store of it would silently touch
/// half. Reported once per kernel, at the first such value.
void Sema::checkDistributedThreads(const ExprAST &e) {
  if (!e.type.isDistributed() || distributedThreadsReported_ || inWholeWarpgroups())
    return;
  distributedThreadsReported_ = true;
  error(e.loc, e.type.str() + " value outside a role needs a kernel of whole warpgroups",
        "a fragment, per_row or per_col value is held by the 128 threads of a warpgroup (the "
        "wgmma layout): give the kernel an exact threads(T) with T a multiple of 128, or "
        "compute in a role of a warpgroups block");
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
  if (!inWholeWarpgroups()) {
    error(e.loc, "mma outside a role needs a kernel of whole warpgroups", wgHint);
    return Type::invalid();
  }
  const CallExpr::MmaOperand &a = e.mma.a, &b = e.mma.b;
  const Type aType = e.args[0]->type;
  ScalarKind ea = a.inRegisters ? aType.scalar : a.tile->elem.type.scalar,
             eb = b.tile->elem.type.scalar;
  bool fp8 = isFp8Kind(ea) && isFp8Kind(eb);
  // wgmma's integer kind: .s8 / .u8 in any mix (PTX ISA "wgmma.mma_async").
  auto isInt8 = [](ScalarKind k) { return k == ScalarKind::I8 || k == ScalarKind::U8; };
  bool integer = isInt8(ea) && isInt8(eb);
  if (!fp8 && !integer && (ea != eb || (ea != ScalarKind::F16 && ea != ScalarKind::BF16))) {
    // What to write depends on the kinds: tilec offers no tf32 wgmma
    // (.tf32), so a pair of f32 tiles is stored in another type, not
    // "converted on the other side".
    std::string hint;
    if (ea == ScalarKind::F32 || eb == ScalarKind::F32)
      hint = "tilec has no tf32 mma (wgmma .tf32): store the f32 operands as bf16 (or f16), "
             "`x as bf16` where they are written, and keep an f32 accumulator";
    else if (isIntegerKind(ea) || isIntegerKind(eb))
      hint = "wgmma's integer kind multiplies i8 or u8 tiles (in any mix) into an i32 "
             "accumulator: store both operands as i8 / u8 (quantized with a scale), or both "
             "as f16 / bf16";
    else
      hint = "wgmma.mma_async multiplies f16 x f16, bf16 x bf16, fp8 x fp8 (e4m3 and e5m2 "
             "in any mix) or i8/u8 x i8/u8; convert the other operand where it is stored";
    error(e.loc,
          std::string("mma operands must both be f16, both bf16, both fp8 or both i8/u8, "
                      "found ") +
              scalarName(ea) + " and " + scalarName(eb),
          hint);
    return Type::invalid();
  }
  // 8-bit wgmma has no transpose: both operands are read K-major (PTX ISA
  // "wgmma.mma_async": imm-trans-a/b are for .f16/.bf16 only).
  std::string kind8 = fp8 ? "fp8" : "integer";
  if ((fp8 || integer) && a.transposed) {
    error(e.args[0]->loc, kind8 + " wgmma needs A K-major, found trans() of a [K, M] tile",
          "store A as [M, K] (K inner, as TMA loads it from a row-major A) and pass it "
          "without trans");
    return Type::invalid();
  }
  if ((fp8 || integer) && !b.transposed) {
    error(e.args[1]->loc, kind8 + " wgmma needs B K-major, found a [K, N] tile (N inner)",
          "store B as [N, K] (K inner: a column-major B, or B transposed once) and pass "
          "trans(b)");
    return Type::invalid();
  }
  if (integer && acc.scalar != ScalarKind::I32) {
    error(e.args[2]->loc, "an integer mma accumulates in frag<i32>, found " + acc.str(),
          "wgmma multiplies i8 / u8 into s32 only: start it with `var acc = zeros<i32>[M, N]` "
          "and convert after the product (`acc as f32`)");
    return Type::invalid();
  }
  if (!integer && acc.scalar != ScalarKind::F32 && acc.scalar != ScalarKind::F16) {
    error(e.args[2]->loc, "the accumulator must be frag<f32> or frag<f16>, found " + acc.str(),
          acc.scalar == ScalarKind::I32
              ? "an i32 accumulator takes i8 or u8 operand tiles (wgmma .s8/.u8 into .s32)"
              : "convert after the product: `acc as bf16`");
    return Type::invalid();
  }
  // Integer wgmma has fewer shapes than the float kinds (PTX ISA
  // "wgmma.mma_async", .m64nNk32 for .s8/.u8).
  if (integer && !T::isWgmmaIntegerN(acc.dims[1])) {
    error(e.args[2]->loc,
          "integer wgmma has no N = " + std::to_string(acc.dims[1]) +
              ": N is 8, 16, 24 or a multiple of 16 in 32..256",
          "make the accumulator (and B's view) a multiple of 16 columns wide, e.g. " +
              std::to_string((acc.dims[1] + 15) / 16 * 16));
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
          "wgmma.m64nNk" + s + " steps K by " + s +
              (fp8       ? " for fp8"
               : integer ? " for i8/u8"
                         : "") +
              ": pad the tiles' K to a multiple of " + s);
    return Type::invalid();
  }
  if (acc.dims[0] > 2 * T::kWgmmaM) {
    error(e.args[2]->loc, "mma accumulators have 64 or 128 rows, found " + acc.str(),
          "split the product over warpgroups: rows(t, warpgroup_rank(), 64)");
    return Type::invalid();
  }
  e.mma.k = ka;
  e.mma.instrK = T::wgmmaK(byteSize(ea));
  kernel_->usesMma = true; // range checks trap without printf (MLIRGenPeer.cpp)
  if (ringAccess_ && !ringAccess_->isProduce()) {
    e.mma.inConsume = true;
    for (RingAccessStmt *c = ringAccess_; c; c = c->enclosing)
      c->mmaReadsRegisterA |= a.inRegisters;
  }
  return acc;
}

} // namespace tile::frontend
