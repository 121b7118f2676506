//===- SemaFragment.cpp - the fragment algebra: broadcasting, math, masks ===//
//
// Distributed values are fragments `frag<T>[M, N]` (one warpgroup's wgmma
// accumulator), `per_row<T>[M]` (one value per row) and `per_col<T>[N]`
// (one value per column) (docs/reference/mma.md "The fragment algebra"):
//  - element-wise `+ - * /`, comparisons, min, max, fma, select: every
//    operand is a distributed value or a scalar of the element type
//    (literals adapt). Shapes broadcast: a per_row[M] value stands for
//    every column of an [M, N] fragment, a per_col[N] value for every row, a
//    per_row with a per_col gives the [M, N] fragment; otherwise shapes and
//    element types must be equal;
//  - comparisons give a mask (i1 elements) of the broadcast shape, which
//    only `select(m, a, b)` reads;
//  - exp2, exp, log2, log (f32), abs (f32, f16, bf16) element-wise, with
//    the scalar builtins' `approx`;
//  - row_max(f), row_sum(f): an f32 fragment's rows reduced, a per_row<f32>;
//  - frag_row(f), frag_col(f): the i32 row / column indices of f's elements
//    (a per_row<i32>[M], a per_col<i32>[N]) for masks and position biases;
//    i32 values take + - * / % << >> & | ^ min max abs and comparisons with
//    the scalar integer rules; a per_row<i32> and a per_col<i32> give a
//    frag<i32>[M, N] (`frag_col(s) - frag_row(s)`, the ALiBi distance);
//  - `as`: f32 <-> f16 <-> bf16 <-> i32 element-wise (fragments, per_row
//    and per_col values);
//  - load_per_col(p, f): column c of f's columns is p[c] (a column bias);
//    load_per_row(p, f): row r of f's rows is p[r] (a row scale).
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"
#include <algorithm>
#include <vector>

namespace tile::frontend {

bool fragmentShapeArg(Sema &s, CallExpr &e, size_t i, Type &frag); // SemaEpilogue.cpp

namespace T = ::tile::target;

namespace {

bool isValueElementKind(ScalarKind k) {
  return k == ScalarKind::F32 || k == ScalarKind::F16 || k == ScalarKind::BF16;
}

const char *kAlgebraHint = "fragments, per_row and per_col values take + - * /, comparisons, "
                           "unary -, min, max, fma, exp2, exp, log2, log, sqrt, rsqrt, sin, cos, tanh, erf, "
                           "pow, abs, select and `as` (i32 ones also % << >> & | ^)";

/// The shape two distributed types broadcast to (rows of a per_row, columns
/// of a per_col, both of a fragment); `a` when they do not (the operand
/// check reports it).
Type broadcast(const Type &a, const Type &b) {
  if (!b.isDistributed() || a.kind == b.kind)
    return a;
  if (!a.isDistributed())
    return b;
  if (a.isFragment())
    return a;
  if (b.isFragment())
    return b;
  const Type &row = a.kind == Type::PerRow ? a : b, &col = a.kind == Type::PerRow ? b : a;
  return Type::fragment(a.scalar, row.dims[0], col.dims[0]);
}

/// Whether distributed `t` broadcasts to `shape` (ignoring element types).
bool fits(const Type &t, const Type &shape) {
  if (t.kind == shape.kind)
    return t.dims == shape.dims;
  if (!shape.isFragment())
    return false;
  return t.kind == Type::PerRow ? t.dims[0] == shape.dims[0] : t.dims[0] == shape.dims[1];
}

} // namespace

bool Sema::anyFragmentArg(const CallExpr &e) {
  for (const ExprPtr &a : e.args)
    if (a->type.isDistributed())
      return true;
  return false;
}

bool Sema::checkFragmentOperand(ExprPtr &x, const Type &t, const Type &shape,
                                const std::string &what) {
  if (t.isInvalid())
    return false;
  std::string elemName = scalarName(shape.scalar);
  if (t.isDistributed()) {
    if (fits(t, shape) && t.scalar == shape.scalar)
      return true;
    error(x->loc, what + " is " + t.str() + ", expected " + shape.str(),
          !fits(t, shape) ? "element-wise operations need fragments of one shape (a per_row[M] "
                            "value broadcasts along the columns of an [M, N] fragment, a "
                            "per_col[N] value along its rows)"
          : t.isMask()    ? "a mask (a comparison's result) is read only by `select(m, a, b)`"
                          : "convert one side with `as " + elemName + "`");
    return false;
  }
  Type elem = Type::scalarTy(shape.scalar);
  if (t.isUntyped())
    return adapt(x, elem);
  if (t != elem) {
    error(x->loc, what + " is " + t.str() + ", expected " + shape.str() + " or " + elem.str(),
          t.isScalar() ? "a scalar stands for every element and must have the fragment's "
                         "element type: convert it with `as " +
                             elemName + "`"
                       : "fragments combine with fragments of their shape and with scalars");
    return false;
  }
  return true;
}

Type Sema::checkFragmentBinary(BinaryExpr &e, const Type &l, const Type &r) {
  std::string sp = binaryOpSpelling(e.op);
  bool arith = e.op == BinaryOp::Add || e.op == BinaryOp::Sub || e.op == BinaryOp::Mul ||
               e.op == BinaryOp::Div;
  // % << >> & | ^: the scalar integer rules, on i32 elements only.
  bool integerOnly = e.op == BinaryOp::Rem || e.op == BinaryOp::Shl || e.op == BinaryOp::Shr ||
                     e.op == BinaryOp::BitAnd || e.op == BinaryOp::BitOr ||
                     e.op == BinaryOp::BitXor;
  bool cmp = isComparison(e.op);
  auto bail = [&] {
    for (ExprPtr *x : {&e.lhs, &e.rhs})
      abandonUntyped(*x);
    return Type::invalid();
  };
  // An fp8 fragment is reported alone (its scalar would not adapt either).
  if (l.isInvalid() || r.isInvalid() ||
      !checkNotFp8Fragment(e.lhs->loc, l, "the left operand of '" + sp + "'") ||
      !checkNotFp8Fragment(e.rhs->loc, r, "the right operand of '" + sp + "'"))
    return bail();
  const Type &first = l.isDistributed() ? l : r;
  if (!arith && !cmp && !integerOnly) {
    error(e.loc, "'" + sp + "' cannot be applied to " + first.str(), kAlgebraHint);
    return bail();
  }
  for (const Type *side : {&l, &r})
    if (side->isMask()) {
      error(e.loc, "'" + sp + "' cannot be applied to the mask " + side->str(),
            "a comparison gives a mask; choose values with `select(m, a, b)`, or nest selects "
            "for two conditions");
      return bail();
    }
  Type shape = broadcast(first, l.isDistributed() ? r : l);
  if (integerOnly && shape.scalar != ScalarKind::I32) {
    error(e.loc, "'" + sp + "' cannot be applied to " + first.str(),
          "% << >> & | ^ take i32 elements (indices: `frag_col(s) - frag_row(s)`)");
    return bail();
  }
  bool ok = checkFragmentOperand(e.lhs, l, shape, "the left operand of '" + sp + "'");
  ok = checkFragmentOperand(e.rhs, r, shape, "the right operand of '" + sp + "'") && ok;
  if (!ok)
    return Type::invalid();
  return cmp ? shape.withScalar(ScalarKind::I1) : shape;
}

Type Sema::checkFragmentCast(CastExpr &e, const Type &from, const Type &to) {
  if (from.isUntyped())
    finalize(e.operand);
  if (!checkNotFp8Fragment(e.loc, from, "`as`"))
    return Type::invalid();
  bool vector = from.kind == Type::PerRow || from.kind == Type::PerCol;
  // To fp8: mma's register operand A (cvt.rn.satfinite, then the bytes move
  // to wgmma's 8-bit A layout), whole k32 steps of columns.
  if (from.isFragment() && !from.isMask() && isValueElementKind(from.scalar) && to.isScalar() &&
      isFp8Kind(to.scalar)) {
    if (from.dims[1] % T::kWgmmaK8Bit == 0)
      return from.withScalar(to.scalar);
    error(e.loc,
          "an fp8 fragment has a multiple of 32 columns, " + from.str() + " has " +
              std::to_string(from.dims[1]),
          "fp8 wgmma reads register A in k32 steps: make the fragment's columns (the mma's K) a "
          "multiple of 32");
    return Type::invalid();
  }
  auto convertible = [](ScalarKind k) { return isValueElementKind(k) || k == ScalarKind::I32; };
  if (from.isDistributed() && !from.isMask() && to.isScalar() && convertible(to.scalar) &&
      convertible(from.scalar))
    return from.withScalar(to.scalar);
  if (from.isDistributed() && to == from)
    return to;
  error(e.loc, "cannot cast " + from.str() + " to " + to.str(),
        from.isMask()       ? "a mask is read only by `select(m, a, b)`"
        : vector            ? "a per_row or per_col value converts element-wise to f32, f16, bf16 "
                              "or i32: `m as f16`"
        : from.isFragment() ? "a fragment converts element-wise to f32, f16, bf16 or i32 (`acc as "
                              "f16`), or to e4m3 / e5m2 as mma's operand a"
                            : "only fragments, per_row and per_col values convert to them");
  return Type::invalid();
}

/// min, max, fma, select and the math functions of isFragmentMathBuiltin
/// with a distributed argument (the arguments already inferred).
Type Sema::checkFragmentArgs(CallExpr &e) {
  Builtin b = e.builtin;
  bool math = isFragmentMathBuiltin(b);
  auto bail = [&] {
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  };
  if (b != Builtin::Min && b != Builtin::Max && b != Builtin::Fma && b != Builtin::Select &&
      !math) {
    error(e.loc, "'" + e.callee + "' does not take fragments", kAlgebraHint);
    return bail();
  }
  for (size_t i = 0; i < e.args.size(); ++i)
    if (!checkNotFp8Fragment(e.args[i]->loc, e.args[i]->type,
                             "argument " + std::to_string(i + 1) + " of '" + e.callee + "'"))
      return bail();
  // select's condition is a mask (or an i1 scalar); the values follow.
  size_t first = b == Builtin::Select ? 1 : 0;
  Type shape;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type &t = e.args[i]->type;
    if (!t.isDistributed())
      continue;
    if (i >= first && shape.isInvalid())
      shape = t;
  }
  for (size_t i = first; i < e.args.size(); ++i)
    if (!shape.isInvalid())
      shape = broadcast(shape, e.args[i]->type);
  if (b == Builtin::Select) {
    const Type &m = e.args[0]->type;
    if (m.isDistributed() && !m.isMask()) {
      error(e.args[0]->loc, "the condition of select is " + m.str() + ", not a mask",
            "compare to get a mask: `select(s < 0.0, 0.0, s)`");
      return bail();
    }
    if (!m.isDistributed() && !m.isBool() && !m.isInvalid()) {
      error(e.args[0]->loc, "the condition of select must be a mask or an i1, found " + m.str(),
            "compare to get a mask: `select(frag_col(s) < n, s, -inf)`");
      return bail();
    }
    if (shape.isInvalid()) { // select(mask, scalar, scalar): the mask's shape
      Type v = e.args[1]->type.isUntyped() ? e.args[2]->type : e.args[1]->type;
      ScalarKind k = v.isScalar() ? v.scalar : ScalarKind::F32;
      shape = m.withScalar(k);
    } else if (m.isDistributed()) {
      shape = broadcast(shape, m).withScalar(shape.scalar);
    }
  }
  if (shape.isMask()) {
    error(e.loc, "'" + e.callee + "' takes values, not masks",
          "a mask is read only as the condition of `select(m, a, b)`");
    return bail();
  }
  bool ok = true;
  if (b == Builtin::Select && e.args[0]->type.isDistributed() &&
      !fits(e.args[0]->type, shape)) {
    error(e.args[0]->loc,
          "the condition of select is " + e.args[0]->type.str() + ", expected " +
              shape.withScalar(ScalarKind::I1).str(),
          "the mask has the shape of the values (or broadcasts to it)");
    ok = false;
  }
  for (size_t i = first; i < e.args.size(); ++i)
    ok = checkFragmentOperand(e.args[i], e.args[i]->type, shape,
                              "argument " + std::to_string(i + 1) + " of '" + e.callee + "'") &&
         ok;
  if (!ok)
    return Type::invalid();
  if (math) {
    bool transcendental = b != Builtin::Abs;
    if (transcendental ? shape.scalar != ScalarKind::F32
                       : !isValueElementKind(shape.scalar) && shape.scalar != ScalarKind::I32) {
      error(e.args[0]->loc,
            "'" + e.callee + "' of " + shape.str() + ": element-wise " + e.callee + " takes " +
                (transcendental ? "f32" : "f32, f16, bf16 or i32") + " elements",
            !transcendental        ? "convert with `as f32`"
            : isTwoArgumentMath(b) ? "convert first: `" + e.callee + "(x as f32, y as f32)`"
                                   : "convert first: `" + e.callee + "(x as f32)`");
      return Type::invalid();
    }
    if (mathNeedsLibdevice(b, e.approx) && !opts_.libdeviceFound) {
      error(e.loc,
            "'" + e.callee + "' needs libdevice (CUDA's math library), which was not found" +
                (opts_.libdevicePath.empty() ? std::string() : " at " + opts_.libdevicePath),
            std::string("install the CUDA toolkit or pass --libdevice=PATH/libdevice.10.bc") +
                (isLibdeviceOnlyMath(b) ? "" : "; `approx = true` needs no libdevice"));
      return Type::invalid();
    }
  } else if (b != Builtin::Select && b != Builtin::Min && b != Builtin::Max &&
             !isValueElementKind(shape.scalar)) {
    error(e.loc, "'" + e.callee + "' of " + shape.str() + " needs float elements",
          "convert with `as f32`");
    return Type::invalid();
  }
  return shape;
}

/// select(m, a, b): of fragments, per_row or per_col values (a mask or an i1
/// condition) here; of scalars, pointers and vectors in checkValueSelect.
Type Sema::checkSelectCall(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 3, 3))
    return Type::invalid();
  // A vector of literals is inferred last: it takes the other value's
  // vector type (`select(c, h, {0.0, 0.0})` with h an f16x2).
  bool ok = !infer(e.args[0]).isInvalid();
  for (size_t i = 1; i < 3; ++i)
    if (!isLiteralVector(*e.args[i]) && infer(e.args[i]).isInvalid())
      ok = false;
  if (ok && anyFragmentArg(e)) {
    for (size_t i = 1; i < 3; ++i)
      if (isLiteralVector(*e.args[i]) && infer(e.args[i]).isInvalid())
        ok = false;
    if (ok)
      return checkFragmentArgs(e);
  }
  if (!ok) {
    for (ExprPtr &a : e.args)
      abandonUntyped(a);
    return Type::invalid();
  }
  return checkValueSelect(e);
}

/// frag_row(f) / frag_col(f): the i32 index of every row / column of f.
Type Sema::checkFragmentIndexCall(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 1, 1))
    return Type::invalid();
  Type frag;
  if (!fragmentShapeArg(*this, e, 0, frag))
    return Type::invalid();
  return e.builtin == Builtin::FragRow ? Type::perRow(ScalarKind::I32, frag.dims[0])
                                       : Type::perCol(ScalarKind::I32, frag.dims[1]);
}

/// row_max(f) / row_sum(f) of an f32 fragment.
Type Sema::checkRowReduction(CallExpr &e) {
  if (!checkNoNamedArgs(e) || !checkArgCount(e, 1, 1))
    return Type::invalid();
  Type frag;
  if (!fragmentShapeArg(*this, e, 0, frag))
    return Type::invalid();
  if (frag.scalar != ScalarKind::F32) {
    error(e.args[0]->loc, "'" + e.callee + "' reduces an f32 fragment, found " + frag.str(),
          frag.isMask()
              ? std::string("a mask is read only by select: reduce the values it selects, `") +
                    e.callee + "(select(m, s, " + (e.builtin == Builtin::RowMax ? "-inf" : "0.0") +
                    "))`"
              : "reduce the f32 accumulator, or convert: `" + e.callee + "(f as f32)`");
    return Type::invalid();
  }
  return Type::perRow(ScalarKind::F32, frag.dims[0]);
}

bool Sema::sharedArrayAsPointer(const ExprAST &e, const Type &t, int64_t count, bool &ok) {
  ok = true;
  bool flat = (t.kind == Type::SharedArray && t.dims.size() <= 1) ||
              (t.kind == Type::ArrayView && t.space == AddressSpace::Shared);
  if (!flat)
    return false;
  if (auto *v = e.as<VarRefExpr>(); v && v->decl && v->decl->array && v->decl->array->isTmaTile)
    return false; // laid out for TMA: not one element after another
  if (t.staticLength && *t.staticLength < count) {
    error(e.loc,
          t.str() + " has " + std::to_string(*t.staticLength) + " elements, fewer than the " +
              std::to_string(count) + " values this reaches",
          "one element per row (load_per_row, a per_row store) or column (load_per_col) of "
          "the fragment: declare the array with at least that many");
    ok = false;
  }
  return true;
}

bool Sema::fragmentRowsThroughArray(const ExprAST &e, const Type &t, const Type &frag,
                                    NamedArg &stride, bool &ok) {
  if (!sharedArrayAsPointer(e, t, 0, ok))
    return false;
  bool overflow = false;
  std::optional<int64_t> ld = foldConstant(*stride.expr, overflow);
  int64_t need = 0;
  if (ld && !overflow && *ld > 0 && t.staticLength &&
      !__builtin_mul_overflow(frag.dims[0] - 1, *ld, &need) &&
      !__builtin_add_overflow(need, frag.dims[1], &need) && *t.staticLength < need) {
    error(e.loc,
          t.str() + " has " + std::to_string(*t.staticLength) + " elements, fewer than the " +
              std::to_string(need) + " that rows of " + std::to_string(frag.dims[1]) +
              " elements " + std::to_string(*ld) + " apart reach",
          "declare the array with at least (rows - 1) * row_stride + columns elements");
    ok = false;
  }
  return true;
}

/// The `rows = n` of load_per_row, the `cols = n` of load_per_col, or both
/// of load_frag (`limit`: the one name, or null for load_frag's two):
/// entries from n on are not read and hold 0. Any other named argument is an
/// error naming the ones the call takes (one given twice, the parser's).
bool Sema::checkLoadLimit(CallExpr &e, const char *limit, const char *form) {
  std::vector<NamedArg *> limits;
  for (NamedArg &na : e.namedArgs) {
    bool frag = e.builtin == Builtin::LoadFrag;
    if (na.name == "row_stride" && frag)
      continue;
    bool named = limit ? na.name == limit : na.name == "rows" || na.name == "cols";
    if (named) {
      limits.push_back(&na);
    } else {
      error(na.loc, "'" + e.callee + "' takes no '" + na.name + "' argument",
            std::string("`") + form + "`: entries from n on are not read and hold 0");
      for (ExprPtr &a : e.args)
        resolveOnly(a);
      return false;
    }
  }
  Type i32 = Type::scalarTy(ScalarKind::I32);
  for (NamedArg *na : limits)
    if (checkValue(na->expr, &i32, na->name,
                   "the number of leading " + na->name + " to read, an i32 (`n as i32`)")
            .isInvalid())
      return false;
  return true;
}

Type Sema::checkLoadPerCol(CallExpr &e) {
  bool row = e.builtin == Builtin::LoadPerRow;
  if (!checkLoadLimit(e, row ? "rows" : "cols",
                      row ? "load_per_row(p, f, rows = n)" : "load_per_col(p, f, cols = n)") ||
      !checkArgCount(e, 2, 2))
    return Type::invalid();
  Type p = infer(e.args[0]);
  if (p.isUntyped())
    p = finalize(e.args[0]);
  Type frag;
  bool ok = fragmentShapeArg(*this, e, 1, frag);
  if (p.isInvalid() || !ok)
    return Type::invalid();
  bool fits = true;
  // Values (f32, f16, bf16) or i32 indices (a row's label or length,
  // compared with frag_col / frag_row): the per_row / per_col element types.
  bool loadable = isValueElementKind(p.scalar) || p.scalar == ScalarKind::I32;
  if (loadable &&
      sharedArrayAsPointer(*e.args[0], p, row ? frag.dims[0] : frag.dims[1], fits)) {
    if (!fits)
      return Type::invalid();
    e.space = AddressSpace::Shared;
    return row ? Type::perRow(p.scalar, frag.dims[0]) : Type::perCol(p.scalar, frag.dims[1]);
  }
  if (!p.isPointer() || (p.space != AddressSpace::Global && p.space != AddressSpace::Shared) ||
      !loadable) {
    error(e.args[0]->loc,
          "'" + e.callee + "' reads " + (row ? "consecutive values" : "a row") +
              " of f32, f16, bf16 or i32 through a global or shared pointer or a 1-D shared "
              "array, "
              "found " + p.str(),
          row ? "pass the first row's element, e.g. `load_per_row(scale + m0, acc)` with scale a "
                "ptr<f32, global>"
              : "pass the first column's element, e.g. `load_per_col(bias + n0, acc)` with bias a "
                "ptr<f32, global>");
    return Type::invalid();
  }
  e.space = p.space;
  return row ? Type::perRow(p.scalar, frag.dims[0]) : Type::perCol(p.scalar, frag.dims[1]);
}

/// load_frag(p, f, row_stride = ld): a fragment of f's shape and p's element
/// type whose element [r, c] is p[r * ld + c] (the inverse of
/// `store(p, f, row_stride = ld)`: the same pairs, one vector load each).
Type Sema::checkLoadFrag(CallExpr &e) {
  if (!checkArgCount(e, 2, 2))
    return Type::invalid();
  NamedArg *stride = nullptr;
  for (NamedArg &na : e.namedArgs) {
    if (na.name == "row_stride" && !stride) {
      stride = &na;
      continue;
    }
    if (na.name == "rows" || na.name == "cols")
      continue; // checkLoadLimit
    error(na.loc, "load_frag takes no '" + na.name + "' argument",
          "`load_frag(p, acc, row_stride = ld[, rows = n][, cols = n])`: element [r, c] is "
          "p[r * ld + c] (rows / columns from n on are not read and hold 0)");
    for (ExprPtr &a : e.args)
      resolveOnly(a);
    return Type::invalid();
  }
  if (!checkLoadLimit(e, nullptr, "load_frag(p, acc, row_stride = ld, rows = n, cols = n)"))
    return Type::invalid();
  // `rows(t, i, n)` of a shared tile (checked here: rows() is no value).
  ExprPtr *src = &e.args[0];
  std::optional<int64_t> viewRows;
  if (auto *view = e.args[0]->as<CallExpr>(); view && view->callee == "rows") {
    int64_t n = 0;
    if (!checkStoreRowsView(*view, src, n)) {
      resolveOnly(e.args[1]);
      return Type::invalid();
    }
    viewRows = n;
  }
  Type p = infer(*src);
  if (p.isUntyped())
    p = finalize(*src);
  Type frag;
  bool ok = fragmentShapeArg(*this, e, 1, frag);
  if (p.isInvalid() || !ok)
    return Type::invalid();
  if (viewRows || (p.kind == Type::SharedArray && p.dims.size() == 2))
    return checkLoadFragTile(e, *src, p, frag, viewRows);
  // A 1-D shared array (or view) stands for its first element.
  bool arrayOk = true;
  // f32, f16, bf16 and i32 (an integer GEMM's s32 partial sums) rows.
  bool loadable = isValueElementKind(p.scalar) || p.scalar == ScalarKind::I32;
  bool array =
      stride && loadable && fragmentRowsThroughArray(*e.args[0], p, frag, *stride, arrayOk);
  if (!arrayOk)
    return Type::invalid();
  if (!array &&
      (!p.isPointer() || (p.space != AddressSpace::Global && p.space != AddressSpace::Shared) ||
       !loadable)) {
    error(e.args[0]->loc,
          "'load_frag' reads f32, f16, bf16 or i32 rows through a global or shared pointer (or a "
          "1-D shared array), found " +
              p.str(),
          "pass the first element, e.g. `load_frag(W + row0 * ld, acc, row_stride = ld)` with W "
          "a ptr<f32, global>");
    return Type::invalid();
  }
  if (!stride) {
    error(e.loc, "load_frag needs the row stride",
          "write `load_frag(p, acc, row_stride = ld)`: element [r, c] is p[r * ld + c]");
    return Type::invalid();
  }
  if (!checkFragmentRowStride(*stride, frag.dims[1], /*load=*/true))
    return Type::invalid();
  e.space = array ? AddressSpace::Shared : p.space;
  return Type::fragment(p.scalar, frag.dims[0], frag.dims[1]);
}

/// load_frag(t, f) / load_frag(rows(t, i, n), f): the inverse of
/// `store(t, f)`, element [r, c] from tile element [i*n + r, c] through the
/// tile's layout (its swizzle: a tile TMA or a fragment store wrote).
Type Sema::checkLoadFragTile(CallExpr &e, ExprPtr &tileRef, const Type &src, const Type &frag,
                             std::optional<int64_t> viewRows) {
  for (const NamedArg &na : e.namedArgs) {
    error(na.loc, "load_frag from a shared tile takes no '" + na.name + "' argument",
          "the tile has its own row length and reads whole: `load_frag(t, acc)` or "
          "`load_frag(rows(t, i, n), acc)`; `row_stride =`, `rows =` and `cols =` are for "
          "a pointer or a 1-D shared array");
    return Type::invalid();
  }
  auto *ref = tileRef->as<VarRefExpr>();
  SharedArrayStmt *tile = ref && ref->decl ? ref->decl->array : nullptr;
  if (!tile || tile->distributed || src.kind != Type::SharedArray || tile->dims.size() != 2) {
    error(tileRef->loc,
          "load_frag reads a 2-D shared tile, `rows(t, i, n)` of one, or a pointer with "
          "`row_stride =`; found " + src.str(),
          "declare the tile `let t = shared<bf16>[64, 64]` and write `load_frag(t, acc)`");
    return Type::invalid();
  }
  ScalarKind elem = tile->elem.type.scalar;
  if (!isValueElementKind(elem) && elem != ScalarKind::I32) {
    error(tileRef->loc,
          "load_frag reads f32, f16, bf16 or i32 tiles, found '" + tile->decl->name + "' of " +
              scalarName(elem),
          "fp8 and 8-bit integer tiles are mma operands (`mma(t, ...)`); convert through an f32 "
          "or 16-bit tile to compute on the values");
    return Type::invalid();
  }
  int64_t rows = viewRows.value_or(tile->dims[0]);
  if (viewRows && !checkRowsInTile(*e.args[0]->as<CallExpr>(), *tile, rows))
    return Type::invalid();
  if (rows != frag.dims[0] || tile->dims[1] != frag.dims[1]) {
    error(e.loc,
          "shape mismatch: a [" + std::to_string(frag.dims[0]) + ", " +
              std::to_string(frag.dims[1]) + "] fragment from " + std::to_string(rows) +
              " rows of " + std::to_string(tile->dims[1]) + " columns",
          "the source has the fragment's shape: a [" + std::to_string(frag.dims[0]) + ", " +
              std::to_string(frag.dims[1]) + "] tile or `rows(t, i, " +
              std::to_string(frag.dims[0]) + ")` of a tile with " + std::to_string(frag.dims[1]) +
              " columns");
    return Type::invalid();
  }
  e.space = AddressSpace::Shared;
  return Type::fragment(elem, frag.dims[0], frag.dims[1]);
}

/// The extents of a per_row / per_col annotation (those of a fragment).
bool Sema::checkDistributedShape(const Location &loc, const Type &t) {
  if (t.isFragment()) // a mask frag<i1>[M, N], indices frag<i32>[M, N]: a fragment's extents
    return checkFragmentShape(
        loc, t.isMask() || t.scalar == ScalarKind::I32 ? ScalarKind::F32 : t.scalar, t.dims[0],
        t.dims[1]);
  if (t.kind != Type::PerRow && t.kind != Type::PerCol)
    return true;
  bool row = t.kind == Type::PerRow;
  const char *hint = row ? "per_row<T>[M]: T f32, f16, bf16, i32 or i1, M 64, 128, 192 or 256"
                         : "per_col<T>[N]: T f32, f16, bf16, i32 or i1, N a multiple of 8 in 8..256";
  if (!isValueElementKind(t.scalar) && t.scalar != ScalarKind::I32 && t.scalar != ScalarKind::I1) {
    error(loc, std::string("no ") + (row ? "per_row" : "per_col") + " value of " +
                   scalarName(t.scalar) + " elements",
          hint);
    return false;
  }
  int64_t n = t.dims[0];
  bool good = row ? n >= T::kWgmmaM && n % T::kWgmmaM == 0 && n <= 4 * T::kWgmmaM
                  : n >= T::kWgmmaMinN && n <= T::kWgmmaMaxN && n % T::kWgmmaNStep == 0;
  if (!good) {
    error(loc, std::string(row ? "per_row rows M = " : "per_col columns N = ") + std::to_string(n) +
                   " is no fragment extent",
          hint);
    return false;
  }
  return true;
}

} // namespace tile::frontend
