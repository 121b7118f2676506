//===- TileWarpOps.td - warp-level operations ------------------*- tablegen -*-===//
//
// Data exchange and votes between the lanes of one warp (PTX ISA 9.7.9.6
// shfl.sync, 9.7.13.7 vote.sync, 9.7.13.11 redux.sync, 9.7.13.9 match.sync,
// 9.7.13.2 bar.warp.sync) and the lane-mask special registers (10.14-10.18).
// Every op names the participating lanes with `mask`; each lane in the mask
// must execute the same op with the same mask (the frontend's divergence
// check warns where it cannot be sure). Included by TileOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_WARP_OPS_TD
#define TILE_WARP_OPS_TD

def Tile_ShflKind : I32EnumAttr<"ShflKind", "shfl.sync mode", [
    I32EnumAttrCase<"up", 0>, I32EnumAttrCase<"down", 1>,
    I32EnumAttrCase<"bfly", 2>, I32EnumAttrCase<"idx", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ShflKindAttr : EnumAttr<Tile_Dialect, Tile_ShflKind, "shfl_kind">;

def Tile_VoteKind : I32EnumAttr<"VoteKind", "vote.sync mode", [
    I32EnumAttrCase<"any", 0>, I32EnumAttrCase<"all", 1>, I32EnumAttrCase<"ballot", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_VoteKindAttr : EnumAttr<Tile_Dialect, Tile_VoteKind, "vote_kind">;

def Tile_ReduxKind : I32EnumAttr<"ReduxKind", "redux.sync operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>, I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"umin", 3>, I32EnumAttrCase<"umax", 4>,
    I32EnumAttrCase<"and_", 5, "and">, I32EnumAttrCase<"or_", 6, "or">,
    I32EnumAttrCase<"xor_", 7, "xor">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ReduxKindAttr : EnumAttr<Tile_Dialect, Tile_ReduxKind, "redux_kind">;

def Tile_MatchKind : I32EnumAttr<"MatchKind", "match.sync mode", [
    I32EnumAttrCase<"any", 0>, I32EnumAttrCase<"all", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_MatchKindAttr : EnumAttr<Tile_Dialect, Tile_MatchKind, "match_kind">;

def Tile_LaneMaskKind : I32EnumAttr<"LaneMaskKind", "%lanemask_* register", [
    I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>, I32EnumAttrCase<"eq", 2>,
    I32EnumAttrCase<"ge", 3>, I32EnumAttrCase<"gt", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_LaneMaskKindAttr : EnumAttr<Tile_Dialect, Tile_LaneMaskKind, "lanemask_kind">;

// The warp ops are convergent: moving one into or out of control flow changes
// which lanes take part. They are modelled as having unknown effects (no
// Pure trait), so no MLIR pass moves, merges or deletes them.

def Tile_ShflOp : Tile_Op<"shfl", [AllTypesMatch<["value", "result"]>]> {
  let summary = "shfl.sync: read `value` of another lane of the warp";
  let description = [{
    `lane` is the source lane (`idx`), the distance (`up`, `down`) or the xor
    mask (`bfly`); PTX reads its low 5 bits. `width` (a power of two 1..32)
    splits the warp into segments that shuffle independently; the lowering
    forms PTX's `c` operand from it. A source lane outside the segment reads
    the lane's own value. Values narrower than 32 bits are widened, 64-bit
    values are moved as two 32-bit halves.
  }];
  let arguments = (ins Tile_ShflKindAttr:$kind, Tile_Scalar:$value, I32:$lane, I32:$width,
                       I32:$mask);
  let results = (outs Tile_Scalar:$result);
  let assemblyFormat = [{
    $kind $value `,` $lane `,` $width `,` $mask attr-dict `:` type($value)
  }];
}

def Tile_VoteOp : Tile_Op<"vote"> {
  let summary = "vote.sync.{any,all,ballot}.b32 over the lanes of `mask`";
  let arguments = (ins Tile_VoteKindAttr:$kind, I1:$pred, I32:$mask);
  let results = (outs AnyTypeOf<[I1, I32]>:$result);
  let assemblyFormat = "$kind $pred `,` $mask attr-dict `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReduxOp : Tile_Op<"redux", [AllTypesMatch<["value", "result"]>]> {
  let summary = "a warp reduction: redux.sync of an i32, a butterfly of an f32";
  let description = [{
    An i32 is `redux.sync.{add,min,max,umin,umax,and,or,xor}` over the lanes
    of `mask` (PTX ISA 9.7.13.11). PTX has no float redux.sync on sm_90, so an
    f32 `add`, `min` or `max` is a butterfly over the whole warp: five
    `shfl.sync.bfly` (xor 16, 8, 4, 2, 1) each followed by `add.f32` (one
    rounding, never contracted) or min/max (NaN ignored, as the `min` and
    `max` builtins). Both operands of every step are the same two values in
    the two lanes, so every lane ends with the same bits. A butterfly reads
    every lane, so an f32 reduction's mask must be the constant full warp
    (a lane outside a mask would be read undefined).
  }];
  let arguments = (ins Tile_ReduxKindAttr:$kind, AnyTypeOf<[I32, F32]>:$value, I32:$mask);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$kind $value `,` $mask attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Tile_MatchOp : Tile_Op<"match"> {
  let summary = "match.sync.{any,all}.b32/.b64: lanes of `mask` holding the same bits";
  let description = [{ The result is the mask of the lanes whose `value` has
    the same bits as this lane's (`any`), or `mask` when every lane of the mask
    agrees and 0 otherwise (`all`). Values narrower than 32 bits are
    zero-extended; floats compare their bits. }];
  let arguments = (ins Tile_MatchKindAttr:$kind, Tile_Scalar:$value, I32:$mask);
  let results = (outs I32:$result);
  let assemblyFormat = "$kind $value `,` $mask attr-dict `:` type($value)";
}

def Tile_SyncWarpOp : Tile_Op<"sync_warp"> {
  let summary = "bar.warp.sync: wait for the lanes of `mask` (and order their memory)";
  let arguments = (ins I32:$mask);
  let assemblyFormat = "$mask attr-dict";
}

def Tile_LaneMaskOp : Tile_Op<"lanemask", [Pure]> {
  let summary = "read %lanemask_lt/le/eq/ge/gt: the lanes below/at/above this one";
  let arguments = (ins Tile_LaneMaskKindAttr:$kind);
  let results = (outs I32:$result);
  let assemblyFormat = "$kind attr-dict";
}

#endif // TILE_WARP_OPS_TD
