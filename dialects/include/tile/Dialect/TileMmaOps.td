//===- TileMmaOps.td - fragments and wgmma ---------------------*- tablegen -*-===//
//
// The accumulator fragment of one warpgroup (`frag<T>[M, N]`) and
// the warpgroup matrix multiply on shared tiles (PTX ISA 9.7.15
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions"):
// tile.mma is acc += A * B with A and B read from shared tiles whose layout
// (#tile.layout: swizzle, 128-byte panels) gives the matrix descriptors,
// tile.mma_reg_a the same with A a 16-bit fragment in registers;
// wgmma_fence / wgmma_commit / wgmma_wait are placed by the compiler
// (the wgmma fence/commit/wait rule, PTX ISA 9.7.15.6). Included by TileOps.td.
//===----------------------------------------------------------------------===//
#ifndef TILE_MMA_OPS_TD
#define TILE_MMA_OPS_TD

def Tile_FragType : Tile_Type<"Frag", "frag"> {
  let summary = "one warpgroup's M x N accumulator fragment (wgmma D layout)";
  let description = [{
    `!tile.frag<64x128xf32>`: each of the warpgroup's 128 threads holds
    rows * cols / 128 elements laid out as PTX's wgmma D fragment (PTX ISA
    9.7.15.5.1, `tile::target::wgmmaFragmentCoord`); rows is a multiple of
    64 (64-row blocks, block 0 first), cols a multiple of 8 in 8..256.
    Lowered to an LLVM struct of rows*cols/128 f32 (f32) or rows*cols/256
    i32 each holding two packed 16-bit elements (f16, bf16): the operand
    and result form of nvvm.wgmma.mma_async. An i1 fragment (a mask, from
    tile.frag_cmp) is a struct of rows*cols/128 i1; only tile.frag_select
    reads it. An i32 fragment (indices: `col - row`, masks, position biases)
    is a struct of rows*cols/128 i32; it takes the integer element-wise ops,
    converts to floats, is stored and loaded like an f32 one, and is the
    .s32 accumulator of an integer tile.mma (never an operand). An fp8 fragment (f8E4M3FN, f8E5M2; cols a multiple of 32) is
    wgmma's register operand A instead (PTX ISA 9.7.15.5.1, the A fragment
    of .m64nNk32 for 8-bit types): per 64-row block and 32-column step s,
    register 4s + j of thread t holds row 16(t/32 % 4) + (t%32)/4 + 8(j%2),
    columns 32s + 16(j/2) + 4(t%4) + 0..3 (byte 0 first), rows*cols/512
    i32 per thread. It is made by tile.frag_convert and read by
    tile.mma_reg_a only (Tile_ValueFragType keeps it out of the algebra).
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$cols, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements each thread holds: rows * cols / 128.
    int64_t getElementsPerThread() const;
    /// 32-bit registers each thread holds (16-bit elements are packed in pairs).
    int64_t getRegistersPerThread() const;
    /// f16 / bf16: two elements per 32-bit register.
    bool isPacked() const { return getElementType().isF16() || getElementType().isBF16(); }
    /// e4m3 / e5m2: four elements per 32-bit register, in wgmma's register-A layout.
    bool isFp8() const {
      return ::llvm::isa<::mlir::Float8E4M3FNType, ::mlir::Float8E5M2Type>(getElementType());
    }
  }];
}

// A fragment the algebra, the stores and the accumulators take: not an fp8
// register-A operand (whose registers are not in the accumulator layout).
def Tile_ValueFragType : Type<
    And<[Tile_FragType.predicate,
         CPred<"!::llvm::cast<::mlir::tile::FragType>($_self).isFp8()">]>,
    "fragment in the accumulator layout (f32, f16, bf16 or i1 elements)",
    "::mlir::tile::FragType">;

// One value per row / per column of an M x N fragment, laid out as the
// fragment's registers repeat them (FragmentOps.td).
def Tile_PerRowType : Tile_Type<"PerRow", "per_row"> {
  let summary = "one value per row of an M-row fragment (two per thread per 64 rows)";
  let description = [{
    `!tile.per_row<128xf32>`: in the wgmma D layout thread t of the
    warpgroup holds, per 64-row block b, rows 64b + 16(t/32 % 4) + (t%32)/4
    and that + 8 (PTX ISA 9.7.15.5.1); a per_row value keeps exactly those
    two values per block: rows/64 * 2 elements per thread (element 2b + h is
    row 64b + 16w + l/4 + 8h), shared by the 4 threads of a quad. Elements
    f32, f16, bf16, i32 (row indices) or i1 (masks).
  }];
  let parameters = (ins "int64_t":$rows, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// rows / 64 * 2.
    int64_t getElementsPerThread() const;
  }];
}

def Tile_PerColType : Tile_Type<"PerCol", "per_col"> {
  let summary = "one value per column of an N-column fragment (N/4 per thread)";
  let description = [{
    `!tile.per_col<64xf32>`: thread t holds, per 8-column block j, columns
    8j + 2(t%4) and that + 1 of every row it holds (PTX ISA 9.7.15.5.1); a
    per_col value keeps those: cols/8 * 2 elements per thread (element 2j + k
    is column 8j + 2(t%4) + k). Elements f32, f16, bf16, i32 (column
    indices) or i1 (masks).
  }];
  let parameters = (ins "int64_t":$cols, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// cols / 8 * 2.
    int64_t getElementsPerThread() const;
  }];
}

def Tile_FragZerosOp : Tile_Op<"frag_zeros", [Pure]> {
  let summary = "a fragment of +0.0 (zeros<T>[M, N])";
  let results = (outs Tile_FragType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tile_FragExtractOp : Tile_Op<"frag_extract", [Pure]> {
  let summary = "element `index` of this thread's part of a fragment";
  let description = [{ Element e in 0 .. rows*cols/128 - 1 of the thread's
    registers (two per register for f16/bf16: element 2k is the low half of
    register k), at (row, col) = tile::target::wgmmaFragmentCoord. }];
  let arguments = (ins Tile_ValueFragType:$frag, I64Attr:$index);
  let results = (outs AnyTypeOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = "$frag `[` $index `]` attr-dict `:` qualified(type($frag)) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_MmaOp : Tile_Op<"mma", [AllTypesMatch<["acc", "result"]>,
    Tile_MemoryAccessOpInterface, AttrSizedOperandSegments]> {
  let summary = "acc += A * B on shared tiles (wgmma.mma_async, one warpgroup)";
  let description = [{
    A is rows * K of the tile `a` (its rows starting at `a_row`), K-major
    when `a_k_major` (the tile's inner dimension is K) else MN-major (the
    tile is [K, M], read transposed). B likewise: K-major (`b_k_major`: an
    [N, K] tile read transposed, rows from `b_row`) or MN-major ([K, N],
    rows = K from `b_row`). `k` is the K extent (a multiple of 16). With
    `a_col` (`b_col`) the operand is a column view: inner-dimension elements
    a_col .. a_col + extent - 1 (extent k when K-major, M (N) when MN-major)
    of a wider tile; the view is whole swizzle atoms (the extent and a
    constant a_col multiples of the layout's panel; a runtime one must be,
    as a runtime row is not bounds-checked), since a descriptor's start
    address moves along the inner dimension only by whole panels (MN-major:
    the LBO is the panel stride, PTX ISA 9.7.15.5.1.2). Lowered
    to M/64 * K/16 wgmma.mma_async.m64nNk16 with descriptors from the
    layouts; the surrounding wgmma fence / commit / wait are separate ops.
    Reads both tiles through the async proxy.
    i8 operands (wgmma's integer kind) accumulate into an i32 fragment in
    K/32 .m64nNk32.s32 steps, both K-major, N one of the integer shapes
    (tilec/Target/IntegerMma.h); each operand is .s8, or .u8 with the unit
    attribute `a_unsigned` / `b_unsigned` (MmaSignedness.h: i8 is
    signless). The s32 sums wrap modulo 2^32 (no .satfinite).
  }];
  let arguments = (ins Tile_ValueFragType:$acc,
                       Arg<Tile_PtrIn<"shared">, "", [MemRead]>:$a, I32:$a_row,
                       Optional<I32>:$a_col,
                       Arg<Tile_PtrIn<"shared">, "", [MemRead]>:$b, I32:$b_row,
                       Optional<I32>:$b_col,
                       Tile_TileLayoutAttr:$a_layout, Tile_TileLayoutAttr:$b_layout,
                       BoolAttr:$a_k_major, BoolAttr:$b_k_major, I64Attr:$k);
  let results = (outs Tile_ValueFragType:$result);
  let assemblyFormat = [{
    $acc `,` $a `[` $a_row (`,` $a_col^)? `]` `,` $b `[` $b_row (`,` $b_col^)? `]` attr-dict `:`
      qualified(type($acc)) `,`
      qualified(type($a)) `,` qualified(type($b))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // An async-proxy read of both operand tiles (PTX ISA 8.6 "Proxies": wgmma
    // reads shared memory through the async proxy), so tile-insert-fences
    // fences generic writes of either before it.
    ::mlir::Value getAccessPtr() { return getA(); }
    ::llvm::SmallVector<::mlir::Value, 1> getOtherAccessPtrs() { return {getB()}; }
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cta; }
    ::mlir::tile::MemoryProxy getAccessProxy() { return ::mlir::tile::MemoryProxy::async; }
  }];
}

def Tile_MmaRegAOp : Tile_Op<"mma_reg_a", [AllTypesMatch<["acc", "result"]>,
    Tile_MemoryAccessOpInterface]> {
  let summary = "acc += A * B with A in registers (wgmma.mma_async, .rs form)";
  let description = [{
    A is the fragment `a` (f16, bf16 or fp8, rows = the accumulator's,
    cols = K): for 16-bit types the wgmma A register fragment of a k16 step
    (PTX ISA 9.7.15.5.1) holds, per thread, the same (row, column) pairs in
    the same order as the D layout of a 16-column fragment, so step k reads
    registers 4k .. 4k+3 of each 64-row block of `a` unchanged; an fp8
    fragment already holds the k32 A layout (4 registers per step). B is
    read from the shared tile `b` as in tile.mma (K-major when `b_k_major`,
    a column view with `b_col`;
    fp8 B must be K-major: fp8 wgmma has no imm-trans-b). Lowered to
    M/64 * K/16 wgmma.mma_async.m64nNk16 (fp8: K/32 .m64nNk32) with A in
    registers;
    the registers of `a` must stay unchanged until the group completes, so
    the compiler only issues it with every group waited for before the
    registers can be reused (no inflight(n > 0)).
  }];
  let arguments = (ins Tile_ValueFragType:$acc, Tile_FragType:$a,
                       Arg<Tile_PtrIn<"shared">, "", [MemRead]>:$b, I32:$b_row,
                       Optional<I32>:$b_col,
                       Tile_TileLayoutAttr:$b_layout, BoolAttr:$b_k_major);
  let results = (outs Tile_ValueFragType:$result);
  let assemblyFormat = [{
    $acc `,` $a `,` $b `[` $b_row (`,` $b_col^)? `]` attr-dict `:` qualified(type($acc)) `,`
      qualified(type($a)) `,` qualified(type($b))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // An async-proxy read of the B tile (PTX ISA 8.6 "Proxies").
    ::mlir::Value getAccessPtr() { return getB(); }
    ::llvm::SmallVector<::mlir::Value, 1> getOtherAccessPtrs() { return {}; }
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cta; }
    ::mlir::tile::MemoryProxy getAccessProxy() { return ::mlir::tile::MemoryProxy::async; }
    /// K: the columns of `a`.
    int64_t getK() { return getA().getType().getCols(); }
  }];
}

def Tile_WgmmaFenceOp : Tile_Op<"wgmma_fence"> {
  let summary = "wgmma.fence.sync.aligned: order register/shared accesses before wgmma";
  let description = [{ PTX ISA 9.7.15.6.1: required before the first
    wgmma.mma_async and between a non-wgmma access of an accumulator
    register (or of the operand shared memory) and a wgmma that uses it. }];
  let assemblyFormat = "attr-dict";
}

def Tile_WgmmaCommitOp : Tile_Op<"wgmma_commit"> {
  let summary = "wgmma.commit_group.sync.aligned: close the pending wgmma group";
  let assemblyFormat = "attr-dict";
}

def Tile_WgmmaWaitOp : Tile_Op<"wgmma_wait"> {
  let summary = "wgmma.wait_group.sync.aligned N: at most N groups stay pending";
  let description = [{
    `after %v` (optional; an f32, or a per_row, per_col or fragment of f32):
    the wait is issued after %v is computed, in the SASS too. ptxas's
    scheduler treats WARPGROUP.DEPBAR as an instruction that is ready at
    once (it has no register operands) and hoists it to the first stall of
    the work before it, so a group left in flight under that work (a
    turn's P V under its own warpgroup's softmax) is waited for before the
    work instead of after it; it keeps the wait after a shared-memory store.
    The lowering emits one before the wait: a store of %v's first and last
    f32 element to an 8-byte shared word of its own (`tile$wait_anchor`),
    predicated on either being NaN (so it normally does not execute, and
    costs one setp and one issue slot).
  }];
  let arguments = (ins I64Attr:$pending, Optional<AnyType>:$after);
  let builders = [OpBuilder<(ins "int64_t":$pending), [{
    build($_builder, $_state, $_builder.getI64IntegerAttr(pending), ::mlir::Value());
  }]>];
  let assemblyFormat = "$pending (`after` $after^ `:` type($after))? attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_MMA_OPS_TD
