//===- TileTmaOps.td - tensor maps, tile layouts, TMA ops ------*- tablegen -*-===//
//
// The TMA half of the async proxy (PTX ISA 9.7.9.25 cp.async.bulk.tensor,
// 9.7.9.24 bulk groups, 9.7.9.26 prefetch): a tensor-map kernel argument,
// the layout of a shared tile (shape, swizzle, panels: what TMA writes and
// what a wgmma descriptor will read), the element address of a tile, and
// the copies. Included by TileOps.td.
//===----------------------------------------------------------------------===//
#ifndef TILE_TMA_OPS_TD
#define TILE_TMA_OPS_TD

def Tile_TensorMapType : Tile_Type<"TensorMap", "tensormap"> {
  let summary = "a CUtensorMap kernel parameter (128 bytes, grid-constant)";
  let description = [{ A `tensor<T>[...]` parameter: the runtime encodes the
    map at launch. Lowered to a `.param .align 64 .b8 [128]` byval argument
    marked `nvvm.grid_constant`, whose generic address TMA instructions take. }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
}

def Tile_TileLayoutAttr : AttrDef<Tile_Dialect, "TileLayout"> {
  let mnemonic = "layout";
  let summary = "row-major shared tile: shape, TMA swizzle span, panel width";
  let description = [{
    Element (i0, ..., in-1) of a tile of `shape` (outermost first) lives in
    panel p = in-1 / panel at byte
      p * rows * panel * E + (row * panel + in-1 % panel) * E
    where rows = shape[0] * ... * shape[n-2], row = the row-major index of
    (i0, ..., in-2) and E the element size; then the swizzle (`swizzle` =
    0, 32, 64 or 128 bytes) XORs the 16-byte chunk bits [4, 4+log2(swizzle/16))
    with the bits 3 places higher (bits [7, ...)), as TMA's CU_TENSOR_MAP_SWIZZLE
    modes and wgmma's descriptor swizzle modes do (the tile is 1024-byte
    aligned, so address bits and offset bits agree).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "int64_t":$swizzle,
                        "int64_t":$panel);
  let assemblyFormat = "`<` `[` $shape `]` `,` `swizzle` `=` $swizzle `,` `panel` `=` $panel `>`";
  let extraClassDeclaration = [{
    /// Rows of one panel: the product of every dimension but the last.
    int64_t getRows() const;
    /// Panels side by side along the inner dimension.
    int64_t getNumPanels() const { return getShape().back() / getPanel(); }
  }];
}

def Tile_TileElementOp : Tile_Op<"tile_element", [Pure,
    TypesMatchWith<"result has the type of base", "base", "result", "$_self">]> {
  let summary = "address of element [i0, ..., in-1] of a shared tile with a layout";
  let description = [{ Generic accesses of a tile go through this op, so
    they see the same (swizzled, panelled) bytes TMA reads and writes. }];
  let arguments = (ins Tile_PtrIn<"shared">:$base, Variadic<Tile_Int>:$indices,
                       Tile_TileLayoutAttr:$layout);
  let results = (outs Tile_PtrIn<"shared">:$result);
  let assemblyFormat = [{
    $base `[` $indices `]` $layout attr-dict `:` qualified(type($base)) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Tile_TmaLoadOp : Tile_Op<"tma_load", [
    Tile_MemoryAccessOpInterface, Tile_MBarrierCompletionOpInterface]> {
  let summary = "TMA load of a box of a tensor into a shared tile (cp.async.bulk.tensor)";
  let description = [{
    Copies the box at `coords` (element coordinates, outermost first) of the
    tensor map into `tile`, completing its bytes on `mbar` (complete_tx).
    One `cp.async.bulk.tensor` per panel of `layout`. With `multicast_axis`
    (0..2 for x, y, z, 3 for all) and the kernel's static cluster shape, each
    CTA of that axis group loads 1/C of the tile (a slice of the outermost
    dimension) and multicasts it to every CTA of the group (the mask is
    computed from %cluster_ctaid), so each CTA's mbarrier receives the whole
    tile's bytes. The compiler raises the expected transaction count by
    `getCompletedTxBytes()` first (mbarrier.expect_tx).
  }];
  let arguments = (ins Arg<Tile_PtrIn<"shared">, "", [MemWrite]>:$tile,
                       Tile_TensorMapType:$map, Variadic<I32>:$coords,
                       Arg<Tile_PtrIn<"shared">, "", [MemRead, MemWrite]>:$mbar,
                       Tile_TileLayoutAttr:$layout,
                       OptionalAttr<I32Attr>:$multicast_axis);
  let assemblyFormat = [{
    $tile `,` $map `[` $coords `]` `,` $mbar $layout attr-dict `:` qualified(type($tile)) `,`
      qualified(type($map)) `,` qualified(type($mbar))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes that land in this CTA's tile: the whole tile (peers deliver the
    /// other slices of a multicast).
    int64_t getTileBytes();
    ::mlir::Value getAccessPtr() { return getTile(); }
    bool readsMemory() { return false; }
    bool writesMemory() { return true; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cta; }
    ::mlir::tile::MemoryProxy getAccessProxy() { return ::mlir::tile::MemoryProxy::async; }
    bool completesRemotely() { return getMulticastAxis().has_value(); }
    bool completesArrival() { return false; }
    bool completesTxBytes() { return true; }
    std::optional<int64_t> getCompletedTxBytes() { return getTileBytes(); }
  }];
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [Tile_MemoryAccessOpInterface]> {
  let summary = "TMA store of a shared tile to a box of a tensor (bulk group)";
  let description = [{ `cp.async.bulk.tensor.global.shared::cta.bulk_group`,
    one per panel; the copy joins the thread's current bulk group (committed
    by tile.bulk_commit). An async-proxy read of `tile`. }];
  // The map stands for the global tensor the store writes: without that
  // effect the op would read as dead (it has no results).
  let arguments = (ins Arg<Tile_TensorMapType, "", [MemRead, MemWrite]>:$map, Variadic<I32>:$coords,
                       Arg<Tile_PtrIn<"shared">, "", [MemRead]>:$tile,
                       Tile_TileLayoutAttr:$layout);
  let assemblyFormat = [{
    $map `[` $coords `]` `,` $tile $layout attr-dict `:` qualified(type($map)) `,`
      qualified(type($tile))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getAccessPtr() { return getTile(); }
    bool readsMemory() { return true; }
    bool writesMemory() { return false; }
    ::mlir::tile::MemoryOrder getAccessOrder() { return ::mlir::tile::MemoryOrder::weak; }
    ::mlir::tile::MemoryScope getAccessScope() { return ::mlir::tile::MemoryScope::cta; }
    ::mlir::tile::MemoryProxy getAccessProxy() { return ::mlir::tile::MemoryProxy::async; }
  }];
}

def Tile_BulkCommitOp : Tile_Op<"bulk_commit"> {
  let summary = "cp.async.bulk.commit_group: close the thread's current bulk group";
  let assemblyFormat = "attr-dict";
}

def Tile_BulkWaitOp : Tile_Op<"bulk_wait"> {
  let summary = "cp.async.bulk.wait_group[.read] N";
  let description = [{ Waits until at most `pending` of the thread's bulk
    groups are incomplete; with `read`, only until their sources have been
    read (the source tile may be rewritten). }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$read);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_TmaPrefetchOp : Tile_Op<"tma_prefetch"> {
  let summary = "cp.async.bulk.prefetch.tensor.L2: bring a box into L2";
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$coords);
  let assemblyFormat = "$map `[` $coords `]` attr-dict `:` qualified(type($map))";
}

def Tile_TensorMapPrefetchOp : Tile_Op<"tensormap_prefetch"> {
  let summary = "prefetch.tensormap: bring the tensor map itself close to the SM";
  let arguments = (ins Tile_TensorMapType:$map);
  let assemblyFormat = "$map attr-dict `:` qualified(type($map))";
}

#endif // TILE_TMA_OPS_TD
