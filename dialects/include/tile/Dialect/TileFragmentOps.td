//===- TileFragmentOps.td - the fragment algebra ---------------*- tablegen -*-===//
//
// Row reductions, comparisons, masks and element-wise math on accumulator
// fragments (`!tile.frag<MxNxT>`, the wgmma D layout of PTX ISA 9.7.15.5.1)
// and on the per-row / per-column values (`!tile.per_row<MxT>`,
// `!tile.per_col<NxT>`) a reduction gives or a column load reads. Operands
// broadcast by one rule (TileEpilogueOps.cpp, verifyBroadcastOperand): a
// fragment result takes fragments of its shape, per_row values of its rows,
// per_col values of its columns and scalars; a per_row (per_col) result
// takes per_row (per_col) values of its extent and scalars. Lowered in
// FragmentToNVVM.cpp. Included by TileOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_FRAGMENT_OPS_TD
#define TILE_FRAGMENT_OPS_TD

def Tile_FragReduceKind : I32EnumAttr<"FragReduceKind", "row reduction of a fragment", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"sum", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_FragReduceKindAttr : EnumAttr<Tile_Dialect, Tile_FragReduceKind, "frag_reduce_kind">;

def Tile_FragReduceOp : Tile_Op<"frag_reduce", [Pure]> {
  let summary = "the maximum or sum of every row of an f32 fragment (a per_row value)";
  let description = [{
    Each thread reduces the elements it holds of each of its rows (N/4 per
    row, in column order), then the 4 threads of a quad, which hold the
    same rows (lanes 4q .. 4q+3), combine theirs with
    shfl.sync.bfly.b32 1 and 2 (PTX ISA 9.7.9.9): every thread ends with
    the row's result. `max` is maxNum (a NaN is ignored unless all are
    NaN; max(-inf, x) = x), `sum` adds in a fixed order (so every thread of
    the quad gets the same bits), rounding each addition.
  }];
  let arguments = (ins Tile_ValueFragType:$value, Tile_FragReduceKindAttr:$kind);
  let results = (outs Tile_PerRowType:$result);
  let assemblyFormat = "$kind $value attr-dict `:` qualified(type($value)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_FragCmpPredicate : I32EnumAttr<"FragCmpPredicate", "comparison of fragment elements", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>, I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>, I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_FragCmpPredicateAttr : EnumAttr<Tile_Dialect, Tile_FragCmpPredicate, "frag_cmp_predicate">;

def Tile_FragCmpOp : Tile_Op<"frag_cmp", [Pure]> {
  let summary = "element-wise comparison: a mask (i1 elements) of the broadcast shape";
  let description = [{
    Floats compare as the scalar operators (ordered: a NaN makes every
    predicate but `ne` false); i32 (row/column indices) compare signed. The
    result is a fragment when either operand is one or one is per_row and the
    other per_col (the causal test `col <= row`), else of the operands' kind.
  }];
  let arguments = (ins Tile_FragOrScalar:$lhs, Tile_FragOrScalar:$rhs,
                       Tile_FragCmpPredicateAttr:$predicate);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_FragSelectOp : Tile_Op<"frag_select", [Pure]> {
  let summary = "element-wise choice: result = cond ? a : b (every operand broadcasts)";
  let arguments = (ins Tile_FragOrScalar:$cond, Tile_FragOrScalar:$a, Tile_FragOrScalar:$b);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = [{
    $cond `,` $a `,` $b attr-dict `:` type($cond) `,` type($a) `,` type($b) `->`
      qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_FragMathFn : I32EnumAttr<"FragMathFn", "element-wise math function", [
    I32EnumAttrCase<"exp2", 0>, I32EnumAttrCase<"exp", 1>, I32EnumAttrCase<"log2", 2>,
    I32EnumAttrCase<"log", 3>, I32EnumAttrCase<"abs", 4>, I32EnumAttrCase<"sqrt", 5>,
    I32EnumAttrCase<"rsqrt", 6>, I32EnumAttrCase<"sin", 7>, I32EnumAttrCase<"cos", 8>,
    I32EnumAttrCase<"tanh", 9>, I32EnumAttrCase<"erf", 10>, I32EnumAttrCase<"log1p", 11>,
    I32EnumAttrCase<"expm1", 12>, I32EnumAttrCase<"log10", 13>, I32EnumAttrCase<"exp10", 14>,
    I32EnumAttrCase<"cbrt", 15>, I32EnumAttrCase<"atan", 16>, I32EnumAttrCase<"asin", 17>,
    I32EnumAttrCase<"acos", 18>, I32EnumAttrCase<"sinh", 19>, I32EnumAttrCase<"cosh", 20>,
    I32EnumAttrCase<"erfc", 21>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_FragMathFnAttr : EnumAttr<Tile_Dialect, Tile_FragMathFn, "frag_math_fn">;

def Tile_FragMathOp : Tile_Op<"frag_math", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "element-wise exp2 / exp / log2 / log / abs / sqrt / rsqrt / sin / cos / tanh / erf / log1p / ... / erfc";
  let description = [{
    The scalar builtins' semantics per element (docs/reference/warp-and-math.md
    "Math functions", compiler/mlirgen/MLIRGenMath.cpp): without `approx` the
    accurate forms (libdevice __nv_exp2f, __nv_expf, __nv_log2f, __nv_logf,
    __nv_sinf, __nv_cosf, __nv_tanhf, __nv_erff; sqrt.rn; rsqrt as
    div.rn(1, sqrt.rn)); with `approx` the PTX .approx instructions
    (ex2.approx.ftz.f32, lg2.approx.f32, sqrt/rsqrt/sin/cos/tanh.approx.f32;
    exp and log scale by log2(e) / ln(2)). erf, log1p, expm1, log10, exp10,
    cbrt, atan, asin, acos, sinh, cosh and erfc are always libdevice's
    __nv_<fn>f (no PTX instruction computes them): they have no
    approximate form.
    Every function but abs takes f32 elements; abs is exact on f32, f16 and
    bf16 (abs.f16x2 on packed pairs) and on i32 (abs.s32: abs(MIN) = MIN).
  }];
  let arguments = (ins Tile_Distributed:$value, Tile_FragMathFnAttr:$fn, UnitAttr:$approx);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = "$fn $value attr-dict `:` qualified(type($value))";
  let hasVerifier = 1;
}

def Tile_FragSplatOp : Tile_Op<"frag_splat", [Pure]> {
  let summary = "a fragment, per_row or per_col value with every element `value`";
  let description = [{ A scalar written where a distributed value is
    declared (`var m: per_row<f32>[128] = -inf`). }];
  let arguments = (ins AnyTypeOf<[F16, BF16, F32, I32, I1]>:$value);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_StorePerRowOp : Tile_Op<"store_per_row", [Tile_MemoryAccessOpInterface]> {
  let summary = "store the thread's rows of a per_row value: row r to ptr[r]";
  let description = [{ Every thread that runs it stores its elements
    (element 2b + h to ptr[64b + 16w + l/4 + 8h]) with plain weak stores.
    The 4 threads of a quad hold the same rows, so MLIRGen runs it in the
    first lane of each quad only (one store per row). With `rows`, rows
    r >= rows (signed) are not stored. }];
  let arguments = (ins Tile_PerRowType:$value, Arg<Tile_PtrType, "", [MemWrite]>:$ptr,
                       I32:$thread, Optional<I32>:$rows);
  let assemblyFormat = [{
    $value `,` $ptr `,` $thread (`rows` $rows^)? attr-dict `:` qualified(type($value)) `,`
      qualified(type($ptr))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
  }];
}

#endif // TILE_FRAGMENT_OPS_TD
