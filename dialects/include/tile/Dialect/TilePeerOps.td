//===- TilePeerOps.td - multi-GPU peers and semaphores ----------*- tablegen -*-===//
//
// The addresses of other ranks' symmetric memory (tables the
// runtime uploads before the launch) and the semaphore wait of
// docs/reference/multi-gpu.md "Multi-GPU". Included by TileOps.td.
//===----------------------------------------------------------------------===//
#ifndef TILE_PEER_OPS_TD
#define TILE_PEER_OPS_TD

def Tile_PeerTensorMapOp : Tile_Op<"peer_tensor_map", [Pure]> {
  let summary = "the tensor map of rank `rank`'s part: entry `rank` of a peer map array";
  let description = [{ `maps` is the device address of device_count()
    128-byte CUtensorMaps, 64-byte aligned (the hidden A$peer_maps
    parameter); the result is the generic address of entry `rank`, which TMA
    instructions take like a grid-constant map's (PTX ISA 9.7.9.25: the
    tensor-map operand is a generic address of .param, .const or .global
    memory). The runtime writes the array before the launch: no
    fence.proxy.tensormap is needed. }];
  let arguments = (ins I64:$maps, I32:$rank);
  let results = (outs Tile_TensorMapType:$result);
  let assemblyFormat = "$maps `[` $rank `]` attr-dict `:` qualified(type($result))";
}

def Tile_PeerBaseOp : Tile_Op<"peer_base", [Pure]> {
  let summary = "entry `rank` of a table of u64 base addresses (ld.global.nc)";
  let description = [{ The table (a hidden `$peers` parameter) is written by
    the runtime before the launch and never during it: a non-coherent load,
    and the op is pure. }];
  let arguments = (ins I64:$table, I32:$rank);
  let results = (outs I64:$result);
  let assemblyFormat = "$table `[` $rank `]` attr-dict";
}

def Tile_SemWaitOp : Tile_Op<"sem_wait"> {
  let summary = "spin until a u64 counter in global memory is >= value, then fence.proxy.async.global";
  let description = [{ `ld.acquire.sys.global.u64` probes with `nanosleep`
    backoff between them (PTX ISA "Memory Consistency Model": the acquire
    synchronises with the peer's `red.release.sys`), then
    `fence.proxy.async.global`, so TMA loads issued after the wait see the
    data the peer published (ASYNC-DESIGN rule 10). `index` and `rank` only
    name the counter in --debug-hangs reports (tile-debug-hangs bounds the
    loop); `semaphore` is the parameter's name. }];
  let arguments = (ins Tile_PtrIn<"global">:$counter, I64:$value, I32:$index, I32:$rank,
                       StrAttr:$semaphore);
  let assemblyFormat = "$counter `,` $value `index` $index `rank` $rank attr-dict `:` qualified(type($counter))";
}

def Tile_FenceProxyAsyncGlobalOp : Tile_Op<"fence_proxy_async_global"> {
  let summary = "fence.proxy.async.global: order generic-proxy global accesses with the async proxy";
  let assemblyFormat = "attr-dict";
}

def Tile_TrapOp : Tile_Op<"trap"> {
  let summary = "trap: abort the launch (a range check that cannot print: no call may sit "
                "between a warpgroup's wgmma instructions, ptxas C7510)";
  let assemblyFormat = "attr-dict";
}

#endif // TILE_PEER_OPS_TD
