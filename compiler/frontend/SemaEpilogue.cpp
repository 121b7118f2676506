//===- SemaEpilogue.cpp - element-wise math, conversion and stores of fragments ===//
//
// The epilogue of a warpgroup GEMM works on its accumulator `frag<T>[M, N]`
// (docs/reference/mma.md "Epilogue on fragments"); the element-wise algebra
// (operators, math, masks, row reductions, indices, column loads) is
// SemaFragment.cpp (load_frag with the per_row / per_col loads). Here:
//  - `cols(f, j, w)`: a column slice;
//  - `store(t, f)` / `store(rows(t, i, n), f)`: into a 2-D shared tile (or
//    n of its rows) through its layout; `store(p, f, row_stride = ld)`:
//    element [r, c] to p[r * ld + c].
// Fragments hold f32, f16 or bf16 elements, so every operation here is a
// float operation with the scalar float semantics.
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

namespace tile::frontend {

namespace {

std::string shapeStr(const Type &f) {
  return "[" + std::to_string(f.dims[0]) + ", " + std::to_string(f.dims[1]) + "]";
}

} // namespace

/// Whether `e` reads which thread, lane, warp or warpgroup runs it (through
/// the names bound by `let` or to a function's argument, Sema::boundValue).
static bool namesThread(const Sema &sema, const ExprAST &x) {
  auto rec = [&](const ExprAST &y) { return namesThread(sema, y); };
  const ExprAST &e = sema.boundValue(x);
  if (auto *c = e.as<CallExpr>()) {
    switch (c->builtin) {
    case Builtin::ThreadId:
    case Builtin::LaneId:
    case Builtin::WarpId:
    case Builtin::RoleThreadId:
    case Builtin::WarpgroupRank:
    case Builtin::ElectOne:
      return true;
    default:
      break;
    }
  }
  bool any = false;
  forEachOperand(e, [&](const ExprAST &y) { any = any || rec(y); });
  return any;
}

bool Sema::inThreadSelectingIf() const {
  for (const ExprAST *g : ifGuards_)
    if (namesThread(*this, *g))
      return true;
  return false;
}

bool isFragmentStore(const CallExpr &e) {
  return e.builtin == Builtin::Store && !e.args.empty() && !e.args[0]->is<IndexExpr>();
}

/// The fragment argument `i` that gives a builtin its shape.
bool fragmentShapeArg(Sema &s, CallExpr &e, size_t i, Type &frag) {
  Type t = s.infer(e.args[i]);
  if (t.isInvalid())
    return false;
  if (t.isUntyped())
    s.finalize(e.args[i]);
  if (t.isFragment()) {
    frag = t;
    return s.checkNotFp8Fragment(e.args[i]->loc, t, "'" + e.callee + "'");
  }
  if (e.builtin == Builtin::Cols && t.kind == Type::SharedArray) { // cols(t, j, n) of a tile
    s.error(e.loc, "'cols(...)' of a shared tile is an operand view, taken only by mma(...)",
            "write it as an operand: `acc = mma(trans(cols(s.a, wg, 64)), trans(s.b), acc)`");
    return false;
  }
  s.error(e.args[i]->loc,
          "'" + e.callee + "' takes the fragment whose shape it copies, found " +
              e.args[i]->type.str(),
          "pass the accumulator, e.g. `" + e.callee +
              (e.builtin == Builtin::LoadPerCol   ? "(bias, acc)`"
               : e.builtin == Builtin::LoadPerRow ? "(scale + m0, acc)`"
               : e.builtin == Builtin::Cols    ? "(acc, 0, 128)`"
                                               : "(acc)`"));
  return false;
}

/// cols(f, j, w): columns j*w .. j*w+w-1 of fragment f, a fragment of w
/// columns (no data moves: a thread's registers of an 8-column block are
/// contiguous in the wgmma layout, so this is a subrange of them).
Type Sema::checkFragmentCols(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 3, 3))
    return Type::invalid();
  Type frag;
  if (!fragmentShapeArg(*this, e, 0, frag))
    return Type::invalid();
  // j and w are constants in every copy of the enclosing unrolled loops (j
  // may differ between copies: MLIRGen takes each copy's; w is the result's
  // type, so it is one value).
  std::vector<int64_t> v[2];
  const char *what[2] = {"column block j", "column count w"};
  for (int i = 0; i < 2; ++i) {
    Type t = checkValue(e.args[i + 1], nullptr, "");
    if (t.isUntyped())
      t = finalize(e.args[i + 1]);
    bool overflow = false;
    std::optional<std::vector<int64_t>> c;
    if (!t.isInvalid() && t.isInteger() && !t.isBool() && !checkConstantOps(*e.args[i + 1]))
      return Type::invalid(); // a constant operand's error (`1 / 0`), reported once
    if (!t.isInvalid() && t.isInteger() && !t.isBool())
      c = foldEveryCopy(*e.args[i + 1], overflow);
    bool varies = i == 1 && c && std::any_of(c->begin(), c->end(),
                                             [&](int64_t x) { return x != c->front(); });
    if (!c || overflow || varies) {
      error(e.args[i + 1]->loc,
            std::string("the ") + what[i] + " of cols(f, j, w) must be an integer constant" +
                (varies ? " (one value in every copy of the unrolled loop: it is the result's "
                          "width)"
                        : ""),
            "a fragment's columns are registers: which ones must be known at compile time "
            "(a literal, a `const`, a template parameter or an unrolled loop's variable)");
      return Type::invalid();
    }
    v[i] = std::move(*c);
  }
  int64_t w = v[1].front();
  if (!checkFragmentShape(e.args[2]->loc, frag.scalar, frag.dims[0], w))
    return Type::invalid();
  for (int64_t j : v[0])
    if (j < 0 || j >= frag.dims[1] / w) { // (j + 1) * w > columns, without overflow
      int64_t first = 0;
      bool huge = __builtin_mul_overflow(j, w, &first) || first > INT64_MAX - w;
      error(e.args[1]->loc,
            "cols(f, " + std::to_string(j) + ", " + std::to_string(w) + ") selects columns " +
                (huge ? "past the 64-bit range"
                      : std::to_string(first) + ".." + std::to_string(first + w - 1)) +
                " of " + frag.str(),
            "j * w + w must not exceed the fragment's " + std::to_string(frag.dims[1]) +
                " columns");
      return Type::invalid();
    }
  // One value: the columns are fixed. Several (j varies with an unrolled
  // loop's variable): -1, and MLIRGen takes each copy's j.
  e.firstColumn = v[0].size() == 1 ? v[0].front() * w : -1;
  return Type::fragment(frag.scalar, frag.dims[0], w);
}

/// `rows(t, i, n)` as the target of a fragment store: i an integer, n a
/// positive constant; the rows i*n .. i*n+n-1 inside the tile when i is
/// constant (a run-time i is unchecked, like shared indexing). Sets `tileRef`
/// to t and `rows` to n; false after an error.
bool Sema::checkStoreRowsView(CallExpr &view, ExprPtr *&tileRef, int64_t &rows) {
  view.builtin = Builtin::Rows;
  if (!checkNoNamedArgs(view) || !checkArgCount(view, 3, 3))
    return false;
  Type it = checkValue(view.args[1], nullptr, "");
  if (it.isInvalid())
    return false;
  if (!it.isInteger() || it.isBool()) {
    error(view.args[1]->loc, "the row block of rows(t, i, n) must be an integer, found " + it.str(),
          "rows i*n .. i*n+n-1 of the tile: i is an integer");
    return false;
  }
  Type nt = checkValue(view.args[2], nullptr, "");
  bool overflow = false;
  std::optional<int64_t> n;
  if (!nt.isInvalid() && nt.isInteger() && !nt.isBool())
    n = foldConstant(*view.args[2], overflow);
  if (!n || overflow || *n <= 0) {
    if (!nt.isInvalid())
      error(view.args[2]->loc, "the row count n of rows(t, i, n) must be a positive constant",
            "the fragment's rows: `rows(out, warpgroup_rank(), 64)`");
    return false;
  }
  rows = *n;
  tileRef = &view.args[0];
  return true;
}

Type Sema::checkFragmentStore(CallExpr &e) {
  if (!checkArgCount(e, 2, 2))
    return Type::invalid();
  for (const NamedArg &na : e.namedArgs)
    if (na.name != "row_stride" && na.name != "rows" && na.name != "cols") {
      error(na.loc, "store of a fragment takes no '" + na.name + "' argument",
            "`store(p, acc, row_stride = ld)` to memory (`rows = n` / `cols = n`: only rows / "
            "columns below n), `store(tile, acc)` into a shared tile");
      for (ExprPtr &a : e.args)
        resolveOnly(a);
      return Type::invalid();
    }
  // The destination: `rows(t, i, n)` (checked here: rows() is no value),
  // else an expression (a tile or a pointer).
  ExprPtr *tileRef = &e.args[0];
  std::optional<int64_t> viewRows;
  bool ok = true;
  auto *view = e.args[0]->as<CallExpr>();
  if (view && view->callee == "trans") {
    error(view->loc, "a fragment store does not transpose",
          "store into the tile itself or `rows(t, i, n)` of it");
    ok = false;
  } else if (view && view->callee == "rows") {
    int64_t n = 0;
    ok = checkStoreRowsView(*view, tileRef, n);
    viewRows = n;
  }
  Type dst = ok ? infer(*tileRef) : Type::invalid();
  if (dst.isUntyped()) { // a literal is no destination: that is the error, not its range
    abandonUntyped(*tileRef);
    error(e.args[0]->loc, "the first argument of store must be an element access like `p[i]`",
          "write `store(p[i], value)`");
    resolveOnly(e.args[1]);
    return Type::invalid();
  }
  if (!dst.isInvalid() && !checkRingTileWrite(**tileRef, e.loc, "a fragment store"))
    dst = Type::invalid();
  Type v = infer(e.args[1]);
  if (v.isUntyped())
    v = finalize(e.args[1]);
  if (dst.isInvalid() || v.isInvalid())
    return Type::invalid();
  NamedArg *stride = nullptr, *rowsArg = nullptr, *colsArg = nullptr;
  for (NamedArg &na : e.namedArgs)
    if (na.name == "row_stride")
      stride = &na;
    else if (na.name == "rows")
      rowsArg = &na;
    else if (na.name == "cols")
      colsArg = &na;
  // `cols = n`: columns n.. of a fragment are not stored (a matrix's column
  // tail: a GEMM's last N tile). Only a fragment through memory has columns
  // to leave out: a per_row value has one per row, a shared tile is stored
  // whole.
  if (colsArg) {
    Type i32 = Type::scalarTy(ScalarKind::I32);
    Type ct = checkValue(colsArg->expr, &i32, "cols",
                         "the number of leading columns to store, an i32 (`n as i32`)");
    if (ct.isInvalid())
      return Type::invalid();
    if (viewRows || !stride || v.kind == Type::PerRow) {
      error(colsArg->loc,
            "`cols = n` limits a fragment store through a pointer or a 1-D shared array",
            v.kind == Type::PerRow
                ? "a per_row value has one value per row and no columns: `rows = n` limits it"
                : "a store into a shared tile writes all of its columns; store through memory "
                  "(`store(p, acc, row_stride = ld, cols = n)`) or select the values first");
      return Type::invalid();
    }
  }
  // `rows = n`: rows n.. of the value are not stored (a tail of query rows
  // that another CTA's output follows). Through memory only: a shared tile
  // is the value's own shape.
  if (rowsArg) {
    Type i32 = Type::scalarTy(ScalarKind::I32);
    Type rt = checkValue(rowsArg->expr, &i32, "rows",
                         "the number of leading rows to store, an i32 (`n as i32`)");
    if (rt.isInvalid())
      return Type::invalid();
    bool throughMemory = !viewRows && (v.kind == Type::PerRow || stride);
    if (!throughMemory) {
      error(rowsArg->loc, "`rows = n` limits a store through a pointer or a 1-D shared array",
            "a store into a shared tile writes all of its rows; store through memory "
            "(`store(p, acc, row_stride = ld, rows = n)`) or select the values first");
      return Type::invalid();
    }
  }
  if (v.kind == Type::PerRow && !v.isMask()) {
    // store(p, r): row i's value to p[i] (the log-sum-exp of attention);
    // p may be a 1-D shared array (its first element).
    bool fits = true;
    if (!stride && !viewRows && dst.scalar == v.scalar &&
        sharedArrayAsPointer(**tileRef, dst, v.dims[0], fits)) {
      if (!fits)
        return Type::invalid();
      e.space = AddressSpace::Shared;
      return Type::voidTy();
    }
    if (stride || viewRows || !dst.isPointer() ||
        (dst.space != AddressSpace::Global && dst.space != AddressSpace::Shared) ||
        dst.scalar != v.scalar) {
      error(e.args[0]->loc,
            "a per_row value is stored through a ptr<" + std::string(scalarName(v.scalar)) +
                ", global|shared> or a 1-D shared array, found " + dst.str() +
                (stride ? " with row_stride" : ""),
            "write `store(p, r)`: row i's value goes to p[i]");
      return Type::invalid();
    }
    e.space = dst.space;
    return Type::voidTy();
  }
  if (!checkNotFp8Fragment(e.args[1]->loc, v, "store"))
    return Type::invalid();
  if (v.isMask()) {
    error(e.args[1]->loc, "a mask (" + v.str() + ") is not stored",
          "store the values it selects: `select(m, 1.0, 0.0)` is a float " +
              std::string(v.kind == Type::PerRow ? "per_row (`store(p, r)`)"
                                                 : "value to store like any other"));
    return Type::invalid();
  }
  if (v.kind == Type::PerCol) {
    error(e.args[1]->loc,
          "a per_col value (" + v.str() + ") is not stored: each column is held by the 8 quads "
          "of every 64 rows, and no store picks one of them",
          "store a fragment that holds it, `store(p, f * 0.0 + c, row_stride = ld)` (every row "
          "the same), or compute the value per row and `store(p, r)` it");
    return Type::invalid();
  }
  if (!v.isFragment()) {
    error(e.args[0]->loc, "the first argument of store must be an element access like `p[i]`",
          "write `store(p[i], ...)`; only a fragment is stored into a tile `store(t, acc)` or "
          "through a pointer `store(p, acc, row_stride = ld)`");
    return Type::invalid();
  }
  if (dst.isPointer() && !viewRows) {
    if (!stride) {
      error(e.args[0]->loc, "storing a fragment through a pointer needs its row stride",
            "write `store(p, acc, row_stride = ld)`: element [r, c] goes to p[r * ld + c]");
      return Type::invalid();
    }
    if (dst.space != AddressSpace::Global && dst.space != AddressSpace::Shared) {
      error(e.args[0]->loc, "a fragment is stored to global or shared memory, not " + dst.str(),
            "pass a ptr<T, global>");
      return Type::invalid();
    }
    if (dst.scalar != v.scalar) {
      error(e.args[1]->loc,
            "the fragment has elements of type " + std::string(scalarName(v.scalar)) +
                ", the pointer " + scalarName(dst.scalar),
            "convert it first: `store(p, acc as " + std::string(scalarName(dst.scalar)) +
                ", row_stride = ld)`");
      return Type::invalid();
    }
    if (!checkFragmentRowStride(*stride, v.dims[1], /*load=*/false))
      return Type::invalid();
    e.space = dst.space;
    return Type::voidTy();
  }
  // A 1-D shared array (or view) with row_stride: through its first element,
  // as a per_row store and load_per_col take it.
  bool arrayOk = true;
  if (stride && !viewRows && fragmentRowsThroughArray(**tileRef, dst, v, *stride, arrayOk)) {
    if (!arrayOk)
      return Type::invalid();
    if (dst.scalar != v.scalar) {
      error(e.args[1]->loc,
            "the fragment has elements of type " + std::string(scalarName(v.scalar)) +
                ", the array " + scalarName(dst.scalar),
            "convert it first: `store(a, acc as " + std::string(scalarName(dst.scalar)) +
                ", row_stride = ld)`");
      return Type::invalid();
    }
    if (!checkFragmentRowStride(*stride, v.dims[1], /*load=*/false))
      return Type::invalid();
    e.space = AddressSpace::Shared;
    return Type::voidTy();
  }
  if (stride) {
    error(stride->loc, "row_stride is for stores through a pointer",
          "a shared tile has its own row length: `store(tile, acc)`");
    return Type::invalid();
  }
  auto *ref = (*tileRef)->as<VarRefExpr>();
  SharedArrayStmt *tile = ref && ref->decl ? ref->decl->array : nullptr;
  if (!tile || tile->distributed || dst.kind != Type::SharedArray || tile->dims.size() != 2) {
    error((*tileRef)->loc,
          "a fragment is stored into a 2-D shared tile, `rows(t, i, n)` of one, or through a "
          "pointer with `row_stride =`; found " +
              dst.str(),
          "declare the tile `let out = shared<f16>[128, 128]` and write `store(out, acc)`, or "
          "`store(p, acc, row_stride = ld)` to global memory");
    return Type::invalid();
  }
  int64_t rows = viewRows.value_or(tile->dims[0]);
  if (viewRows && !checkRowsInTile(*e.args[0]->as<CallExpr>(), *tile, rows))
    return Type::invalid();
  if (tile->elem.type.scalar != v.scalar) {
    error(e.args[1]->loc,
          "the fragment has elements of type " + std::string(scalarName(v.scalar)) + ", tile '" +
              tile->decl->name + "' " + scalarName(tile->elem.type.scalar),
          "convert it first: `store(" + tile->decl->name + ", acc as " +
              scalarName(tile->elem.type.scalar) + ")`");
    return Type::invalid();
  }
  if (rows != v.dims[0] || tile->dims[1] != v.dims[1]) {
    error(e.loc,
          "shape mismatch: a " + shapeStr(v) + " fragment into " + std::to_string(rows) +
              " rows of " + std::to_string(tile->dims[1]) + " columns",
          "the destination has the fragment's shape: a [" + std::to_string(v.dims[0]) + ", " +
              std::to_string(v.dims[1]) + "] tile or `rows(t, i, " + std::to_string(v.dims[0]) +
              ")` of a tile with " + std::to_string(v.dims[1]) + " columns");
    return Type::invalid();
  }
  e.space = AddressSpace::Shared;
  return Type::voidTy();
}

/// `row_stride = ld` of a fragment stored or loaded through a pointer
/// (element [r, c] at p[r * ld + c]): an integer; a constant one even (each
/// thread moves pairs of adjacent elements with one vector access) and at
/// least the fragment's columns.
bool Sema::checkFragmentRowStride(NamedArg &stride, int64_t cols, bool load) {
  Type st = checkValue(stride.expr, nullptr, "row_stride");
  if (st.isInvalid())
    return false;
  if (!st.isInteger() || st.isBool()) {
    error(stride.valueLoc, "row_stride must be an integer, found " + st.str(),
          "the distance in elements between two rows");
    return false;
  }
  bool overflow = false;
  std::optional<int64_t> k = foldConstant(*stride.expr, overflow);
  if (k && !overflow && (*k % 2 != 0 || *k < cols)) {
    error(stride.valueLoc,
          "row_stride " + std::to_string(*k) +
              (*k % 2 ? " is odd"
                      : " is less than the fragment's " + std::to_string(cols) + " columns"),
          *k % 2 ? std::string("each thread ") + (load ? "loads" : "stores") +
                       " pairs of adjacent elements with one vector " + (load ? "load" : "store") +
                       ", which needs every row to start on a multiple of 2 elements"
                 : std::string("rows would overlap: the stride is at least the row length"));
    return false;
  }
  return true;
}

/// `rows(t, i, n)` with a constant i (in every copy of the unrolled loops
/// around it: `for i in 0 .. 4 unroll`): rows i*n .. i*n+n-1 must lie in the
/// tile (a run-time i is the kernel's to keep in range).
bool Sema::checkRowsInTile(const CallExpr &rowsView, const SharedArrayStmt &tile, int64_t rows) {
  bool overflow = false;
  std::optional<std::vector<int64_t>> is = foldEveryCopy(*rowsView.args[1], overflow);
  if (!is || overflow)
    return true;
  for (int64_t i : *is) {
    // i < dims / rows is (i + 1) * rows <= dims without overflowing for a huge i.
    if (i >= 0 && i < tile.dims[0] / rows)
      continue;
    error(rowsView.args[1]->loc,
          "rows(" + tile.decl->name + ", " + std::to_string(i) + ", " + std::to_string(rows) +
              ") is outside the tile's " + std::to_string(tile.dims[0]) + " rows",
          "the view is rows i*n .. i*n+n-1");
    return false;
  }
  return true;
}

} // namespace tile::frontend
