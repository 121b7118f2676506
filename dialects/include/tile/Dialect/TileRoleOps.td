//===- TileRoleOps.td - warp roles, elect, named barriers ------*- tablegen -*-===//
//
// Warp roles: a kernel body ends in a set of roles, each run by a
// contiguous range of warpgroups (128 threads each) with its own register
// budget (setmaxnreg). Included from TileOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_ROLE_OPS_TD
#define TILE_ROLE_OPS_TD

def Tile_WarpgroupIdOp : Tile_Op<"warpgroup_id", [Pure]> {
  let summary = "index of the calling thread's warpgroup in the CTA, warp-uniform";
  let description = [{ `%tid.x / 128`, broadcast from lane 0 of the warp with
    `shfl.sync.idx` so that ptxas sees a warp-uniform value (the branch into a
    role and the `.aligned` instructions in it are then uniform). Needs a
    1-D block: warps are formed from consecutive `%tid.x`. }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_RoleOp : Tile_Op<"role", [HasParent<"KernelOp">]> {
  let summary = "code run only by the warpgroups [first, first + count) of the CTA";
  let description = [{
    `warpgroup` is the tile.warpgroup_id of the thread. The role's threads
    enter the region after `setmaxnreg.{inc,dec}.sync.aligned.u32 regs` when
    `regs` is given (dec when regs is below the kernel's entry count, else
    inc; PTX ISA 9.7.19.5 setmaxnreg); the others skip it. `barrier_id` is the
    named barrier (1..15) over the role's count * 128 threads that a
    `tile.named_barrier` inside it uses. A kernel with roles gets `.maxntid`
    (or keeps its `.reqntid`) and `.minnctapersm 1`: without them ptxas
    ignores setmaxnreg (advisory C7508).
  }];
  let arguments = (ins I32:$warpgroup, StrAttr:$role_name, I32Attr:$first_warpgroup,
                       I32Attr:$num_warpgroups, OptionalAttr<I32Attr>:$regs,
                       I32Attr:$barrier_id);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    $role_name `(` $warpgroup `)` attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Threads of the role: num_warpgroups * 128.
    int64_t getNumThreads();
  }];
}

def Tile_RoleEndOp : Tile_Op<"role_end", [Pure, HasParent<"RoleOp">, Terminator]> {
  let summary = "end of a role: its threads continue after the tile.role";
  let assemblyFormat = "attr-dict";
}

def Tile_ElectOneOp : Tile_Op<"elect_one"> {
  let summary = "elect.sync with a full mask: true in exactly one lane of the warp";
  let description = [{ PTX ISA 9.7.13.x elect.sync: every lane of the warp
    must execute it together (the frontend warns when it is reached in
    control flow that lanes take differently). Not Pure: two calls are two
    elections, and it must not move across control flow. }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_NamedBarrierOp : Tile_Op<"named_barrier"> {
  let summary = "barrier `id` over `count` threads: `bar.sync id, count` when aligned";
  let description = [{ PTX ISA 9.7.13.1: `barrier.sync{.aligned} id, count`;
    count is a multiple of the warp size. Emitted for `sync_threads()` inside
    a role (id = the role's barrier_id, count = its threads). `aligned` is set
    by tile-sync-semantics only where control flow is warp-uniform. With a
    predicate and a `reduction` it is `barrier.red{.aligned} id, count`, the
    role's `sync_threads_count/and/or` (as tile.barrier's): the result is the
    same in every thread of the role. }];
  let arguments = (ins Optional<I1>:$pred, I32Attr:$barrier_id, I32Attr:$num_threads,
                       OptionalAttr<Tile_BarrierReductionAttr>:$reduction, UnitAttr:$aligned);
  let results = (outs Optional<AnyTypeOf<[I1, I32]>>:$result);
  let assemblyFormat = [{
    $barrier_id `,` $num_threads (`reduce` $reduction^ $pred `:` type($result))? attr-dict
  }];
  let builders = [
    OpBuilder<(ins "int32_t":$barrierId, "int32_t":$numThreads, "bool":$aligned), [{
      build($_builder, $_state, ::mlir::Type(), ::mlir::Value(), barrierId, numThreads,
            BarrierReductionAttr(), aligned);
    }]>
  ];
  let hasVerifier = 1;
}

// `turn { ... }`: the warpgroups of a role run a region one at a time in
// rank order (FlashAttention-3's inter-warpgroup ping-pong: one warpgroup
// issues its mmas while the other runs its softmax). Warpgroup r of the
// role owns named barrier first_barrier + r over 2 x 128 threads: it waits
// there (bar.sync: its own 128 threads) for the previous warpgroup's arrival
// (bar.arrive: 128 more), runs the region, then arrives at the next one's.
// Warpgroup 0 is handed the first turn by its own arrival at role entry and
// takes the last warpgroup's final hand-over at role exit, so every barrier
// completes exactly as often as it is waited on and none is left half-arrived.
class Tile_TurnOp<string mnemonic, string summ, string desc> : Tile_Op<mnemonic> {
  let summary = summ;
  let description = desc;
  let arguments = (ins I32:$warpgroup, I32Attr:$first_barrier, I32Attr:$warpgroups);
  let assemblyFormat = "$warpgroup attr-dict";
  let hasVerifier = 1;
}

def Tile_TurnWaitOp : Tile_TurnOp<"turn_wait",
    "wait for warpgroup `warpgroup`'s turn: bar.sync first_barrier + warpgroup, 256",
    [{ PTX ISA 9.7.13.1 `barrier.sync.aligned id, 256` with id =
    first_barrier + warpgroup (a register operand): the calling warpgroup's
    128 threads plus the 128 of the previous warpgroup's `tile.turn_pass`.
    Executed by whole warpgroups in control flow uniform over the role (the
    frontend checks it), hence the aligned form. Inside a tile.role of
    `warpgroups` warpgroups. }]>;

def Tile_TurnPassOp : Tile_TurnOp<"turn_pass",
    "hand the turn to warpgroup `warpgroup`: bar.arrive first_barrier + warpgroup, 256",
    [{ PTX ISA 9.7.13.1 `barrier.arrive.aligned id, 256` (`bar.arrive`): the
    calling warpgroup's 128 threads arrive at the barrier warpgroup
    `warpgroup` of the role waits at, without waiting. }]>;

#endif // TILE_ROLE_OPS_TD
