//===- TileEpilogueOps.td - element-wise math and stores of fragments -*- tablegen -*-===//
//
// The epilogue of a warpgroup GEMM on its accumulator fragment
// (`!tile.frag<MxNxT>`, the wgmma D fragment of PTX ISA 9.7.15.5.1, "Matrix
// fragments for wgmma.mma_async.m64nNk16"): element-wise arithmetic with
// fragments and scalars, conversion (cvt.rn on pairs), the row/column index
// of every element, a broadcast row vector (column bias), and the stores
// into a shared tile (stmatrix for 16-bit elements, honouring the tile's
// #tile.layout) or to global memory. Every op that depends on which
// elements a thread holds takes the thread's index in its block (`thread`):
// only thread % 128 (the warp within the warpgroup and the lane) matters.
// Included by TileOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_EPILOGUE_OPS_TD
#define TILE_EPILOGUE_OPS_TD

def Tile_FragArithKind : I32EnumAttr<"FragArithKind", "element-wise fragment operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>, I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"div", 3>, I32EnumAttrCase<"min", 4>, I32EnumAttrCase<"max", 5>,
    I32EnumAttrCase<"rem", 6>, I32EnumAttrCase<"shl", 7>, I32EnumAttrCase<"shr", 8>,
    I32EnumAttrCase<"pow", 9>, I32EnumAttrCase<"and_", 10, "and">, I32EnumAttrCase<"or_", 11, "or">,
    I32EnumAttrCase<"xor_", 12, "xor">, I32EnumAttrCase<"atan2", 13>, I32EnumAttrCase<"hypot", 14>,
    I32EnumAttrCase<"fmod", 15>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_FragArithKindAttr : EnumAttr<Tile_Dialect, Tile_FragArithKind, "frag_arith_kind">;

// A fragment, a per-row or per-column value, or a scalar of the result's
// element type (broadcast to every element). The broadcasting rule is one
// function (verifyBroadcastOperand, TileEpilogueOps.cpp).
def Tile_Distributed : AnyTypeOf<[Tile_ValueFragType, Tile_PerRowType, Tile_PerColType]>;
def Tile_FragOrScalar : AnyTypeOf<[Tile_ValueFragType, Tile_PerRowType, Tile_PerColType,
                                   F16, BF16, F32, I32, I1]>;

def Tile_FragArithOp : Tile_Op<"frag_arith", [Pure]> {
  let summary = "element-wise + - * / % << >> & | ^ min max pow atan2 hypot fmod of fragments, per-row/per-column values and scalars";
  let description = [{
    `result[r, c] = lhs[r, c] OP rhs[r, c]`, a scalar operand standing for
    every element, a per_row operand of a fragment result for every column
    of its row, a per_col one for every row of its column (so a per_row and
    a per_col give the fragment of their rows and columns: `col - row`). A
    per_row or per_col result combines values of its own kind and scalars.
    i32 elements have the scalar integer rules of docs/reference/operators.md
    ("Integers"): + - * wrap, / and % truncate (x / 0 = -1, x % 0 = x,
    MIN / -1 = MIN, MIN % -1 = 0), min/max are signed, `shl` / `shr`
    (arithmetic) read the amount unsigned and give 0 / the sign fill from
    32 on, `and` / `or` / `xor` are bitwise; rem, shl, shr, and, or and xor
    take i32 only. The float semantics are the
    scalar ones ("Floats"): IEEE round-to-nearest-even per element, min/max
    are minNum/maxNum; `contract` lets a product feeding a sum become one
    fma.rn (the scalar `--fmad` rule). 16-bit fragments compute on packed
    pairs (add/mul/min/max.{f16x2,bf16x2}). `pow`, `atan2`, `hypot` and
    `fmod` take f32 only: the scalar function (libdevice __nv_powf,
    __nv_atan2f, __nv_hypotf, __nv_fmodf) per element, lhs the first
    argument (atan2's y).
  }];
  let arguments = (ins Tile_FragOrScalar:$lhs, Tile_FragOrScalar:$rhs,
                       Tile_FragArithKindAttr:$kind, UnitAttr:$contract);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_FragFmaOp : Tile_Op<"frag_fma", [Pure]> {
  let summary = "element-wise fused multiply-add (one rounding), broadcasting as tile.frag_arith";
  let arguments = (ins Tile_FragOrScalar:$a, Tile_FragOrScalar:$b, Tile_FragOrScalar:$c);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_FragNegOp : Tile_Op<"frag_neg", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "element-wise negation (flips every sign bit; i32: 0 - x)";
  let arguments = (ins Tile_Distributed:$value);
  let results = (outs Tile_Distributed:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($value))";
}

def Tile_FragConvertOp : Tile_Op<"frag_convert", [Pure]> {
  let summary = "element-wise conversion between f32, f16, bf16 (and i32 indices) of one shape, or to an fp8 register-A fragment";
  let description = [{ Narrowing rounds to nearest even (cvt.rn.f16x2.f32 /
    cvt.rn.bf16x2.f32 on each pair); widening is exact; f16 <-> bf16 goes
    through f32 (one rounding). Fragments, per_row and per_col values (the
    kind and extent are kept); i32 -> float is cvt.rn (exact below 2^24 for
    f32), float -> i32 cvt.rzi. A fragment converts to e4m3 / e5m2 with
    cvt.rn.satfinite.{e4m3,e5m2}x2.f32 on each pair (round to nearest even;
    beyond the largest finite, and e5m2's infinities, saturate; NaN stays
    NaN), and its bytes move within each quad (shfl.sync.idx) from the
    accumulator layout to wgmma's register-A layout (FragType). }];
  let arguments = (ins Tile_Distributed:$value);
  let results = (outs AnyTypeOf<[Tile_FragType, Tile_PerRowType, Tile_PerColType]>:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($value)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_FragColsOp : Tile_Op<"frag_cols", [Pure]> {
  let summary = "columns first .. first+N-1 of a fragment (N the result's columns)";
  let description = [{ In the wgmma accumulator layout a thread holds, per
    64-row block, the same number of registers for every 8-column block, in
    column-block order (PTX ISA 9.7.15.5.1, "Matrix fragments for
    wgmma.mma_async.m64nNk16"), so a slice of whole 8-column blocks is a
    subrange of registers per row block: no data moves. }];
  let arguments = (ins Tile_ValueFragType:$value, I64Attr:$first);
  let results = (outs Tile_ValueFragType:$result);
  let assemblyFormat = "$value `[` $first `]` attr-dict `:` qualified(type($value)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_FragCoordOp : Tile_Op<"frag_coord", [Pure]> {
  let summary = "the row (dim 0: per_row<Mxi32>) or column (dim 1: per_col<Nxi32>) indices";
  let description = [{ The indices a thread's elements have in the wgmma D
    layout: rows 64b + 16w + l/4 (+ 8), columns 8j + 2(l%4) (+ 1), with
    w = thread/32 % 4, l = thread % 32. }];
  let arguments = (ins I32:$thread, I32Attr:$dim);
  let results = (outs AnyTypeOf<[Tile_PerRowType, Tile_PerColType]>:$result);
  let assemblyFormat = "$dim `,` $thread attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_LoadPerColOp : Tile_Op<"load_per_col", [Tile_MemoryAccessOpInterface]> {
  let summary = "a per_col value whose column c is ptr[c] (a column bias)";
  let description = [{ Each thread loads only the columns it holds (N/4
    elements: the two columns of each of its N/8 pairs), with plain weak
    loads; every row it holds shares them. With `cols`, columns c >= cols
    (signed) are not read and hold 0: an array that ends inside the block
    of columns (the log-sum-exp of a sequence's last query block). }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$ptr, I32:$thread, Optional<I32>:$cols);
  let results = (outs Tile_PerColType:$result);
  let assemblyFormat = [{
    $ptr `,` $thread (`cols` $cols^)? attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
  }];
}

def Tile_LoadPerRowOp : Tile_Op<"load_per_row", [Tile_MemoryAccessOpInterface]> {
  let summary = "a per_row value whose row r is ptr[r] (a row scale)";
  let description = [{ Each thread loads only the rows it holds (2 per 64
    rows), with plain weak loads; the four threads of a quad load the same
    rows (one transaction each: the addresses coincide). With `rows`, rows
    r >= rows (signed) are not read and hold 0: a tail of rows past the end
    of the array. }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$ptr, I32:$thread, Optional<I32>:$rows);
  let results = (outs Tile_PerRowType:$result);
  let assemblyFormat = [{
    $ptr `,` $thread (`rows` $rows^)? attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
  }];
}

def Tile_FragStoreTileOp : Tile_Op<"frag_store_tile", [Tile_MemoryAccessOpInterface]> {
  let summary = "store a fragment into rows row0 .. row0+M-1 of a shared 2-D tile";
  let description = [{
    Element [r, c] goes to tile element [row0 + r, c] at the byte `layout`
    gives it (panels, swizzle), so TMA and wgmma read it back as written.
    16-bit fragments use `stmatrix.sync.aligned.m8n8.x4.shared.b16` (x2 for
    an odd last 8-column block): lane l gives the address of row l % 8 of
    8x8 matrix l / 8, and an 8-element row of 16 bytes is contiguous in
    every layout whose panel is a multiple of 8 elements (a swizzle moves
    whole 16-byte chunks). 32-bit fragments (f32, i32) store each thread's
    column pairs with st.shared.v2. A generic-proxy write: a TMA store of the tile needs
    fence.proxy.async (tile-insert-fences places it).
  }];
  let arguments = (ins Tile_ValueFragType:$value, Arg<Tile_PtrIn<"shared">, "", [MemWrite]>:$tile,
                       I32:$row0, I32:$thread, Tile_TileLayoutAttr:$layout);
  let assemblyFormat = [{
    $value `,` $tile `[` $row0 `]` `,` $thread $layout attr-dict `:` qualified(type($value)) `,`
      qualified(type($tile))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getPtr() { return getTile(); }
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
    /// Whether the 16-bit stmatrix form applies (else st.shared per pair).
    bool usesStMatrix();
  }];
}

def Tile_FragLoadTileOp : Tile_Op<"frag_load_tile", [Tile_MemoryAccessOpInterface]> {
  let summary = "load a fragment from rows row0 .. row0+M-1 of a shared 2-D tile";
  let description = [{
    The inverse of frag_store_tile: element [r, c] is tile element
    [row0 + r, c], read at the byte `layout` gives it (panels, swizzle), so a
    tile that TMA or frag_store_tile wrote is read back as it was written.
    16-bit fragments use `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (x2 for
    an odd last 8-column block), the inverse of frag_store_tile's stmatrix
    with the same lane addresses: a warp's collective. 32-bit fragments
    (f32, i32), and 16-bit ones whose panel is not a multiple of 8
    elements, load each thread's column pairs with one ld.shared each (a
    pair never leaves its 16-byte swizzle chunk). A generic-proxy read:
    after a TMA load of the tile, the mbarrier wait orders it.
  }];
  let arguments = (ins Arg<Tile_PtrIn<"shared">, "", [MemRead]>:$tile, I32:$row0, I32:$thread,
                       Tile_TileLayoutAttr:$layout);
  let results = (outs Tile_ValueFragType:$result);
  let assemblyFormat = [{
    $tile `[` $row0 `]` `,` $thread $layout attr-dict `:` qualified(type($tile)) `->`
      qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getPtr() { return getTile(); }
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
    /// Whether the 16-bit ldmatrix form applies (else ld.shared per pair).
    bool usesLdMatrix();
  }];
}

def Tile_FragStoreOp : Tile_Op<"frag_store", [Tile_MemoryAccessOpInterface,
                                                 AttrSizedOperandSegments]> {
  let summary = "store a fragment to a row-major matrix: element [r, c] at ptr[r * row_stride + c]";
  let description = [{ Each thread stores its column pairs with one vector
    store each (st.v2 of two f32 or i32, or st.b32 of an f16x2/bf16x2 pair): ptr must be
    aligned to two elements and row_stride even (Sema rejects an odd
    constant stride). With `rows`, the pairs of rows r >= rows (signed) are
    not stored: a tail of rows that another tile's output follows. With
    `cols`, the elements of columns c >= cols (signed) are not stored: a
    pair whose second column is past the end stores its first element
    alone (a matrix's column tail, e.g. a GEMM's last N tile). }];
  let arguments = (ins Tile_ValueFragType:$value, Arg<Tile_PtrType, "", [MemWrite]>:$ptr,
                       I64:$row_stride, I32:$thread, Optional<I32>:$rows, Optional<I32>:$cols);
  let assemblyFormat = [{
    $value `,` $ptr `,` $row_stride `,` $thread (`rows` $rows^)? (`cols` $cols^)? attr-dict `:`
      qualified(type($value)) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
  }];
}

def Tile_FragLoadOp : Tile_Op<"frag_load", [Tile_MemoryAccessOpInterface,
                                               AttrSizedOperandSegments]> {
  let summary = "load a fragment from a row-major matrix: element [r, c] is ptr[r * row_stride + c]";
  let description = [{ The inverse of frag_store: each thread loads its
    column pairs with one vector load each (ld.v2 of two f32 or i32, or ld.b32 of an
    f16x2/bf16x2 pair), so ptr must be aligned to two elements and
    row_stride even (Sema rejects an odd constant stride). Weak loads: a
    matrix another CTA wrote is read after an acquire (a flag, a counter).
    With `rows`, the pairs of rows r >= rows (signed) are not read and hold
    0, and with `cols` the elements of columns c >= cols (signed): the
    inverse of frag_store's `rows` and `cols`. }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$ptr, I64:$row_stride, I32:$thread,
                       Optional<I32>:$rows, Optional<I32>:$cols);
  let results = (outs Tile_ValueFragType:$result);
  let assemblyFormat = [{
    $ptr `,` $row_stride `,` $thread (`rows` $rows^)? (`cols` $cols^)? attr-dict `:`
      qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getScope() { return ::mlir::tile::MemoryScope::cta; }
  }];
}

#endif // TILE_EPILOGUE_OPS_TD
