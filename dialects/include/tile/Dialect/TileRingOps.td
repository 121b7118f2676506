//===- TileRingOps.td - pipeline rings ------------------------*- tablegen -*-===//
//
// A ring is S stages of a set of shared tiles, filled by a producer (TMA
// copies completing on the stage's full mbarrier) and released by its
// consumers (arrivals on the stage's empty mbarrier). The ops below carry
// the ring as the source wrote it; `tile-lower-rings` (the first pass of the
// sync pipeline) assigns the stage index and phase parity of every access
// and lowers the ring to shared allocations, mbarrier and mapa ops. Included
// from TileOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_RING_OPS_TD
#define TILE_RING_OPS_TD

def Tile_RingType : Tile_Type<"Ring", "ring"> {
  let summary = "a pipeline ring declared by tile.ring";
}

def Tile_RingCursorType : Tile_Type<"RingCursor", "ring_cursor"> {
  let summary = "one side's position in a ring (its stage index and phase)";
}

def Tile_RingOp : Tile_Op<"ring"> {
  let summary = "a ring of `stages` copies of its member tiles with full/empty mbarriers";
  let description = [{
    Member i is a shared tile of `member_types[i]` elements, `member_strides[i]`
    elements from one stage to the next, aligned to `member_alignments[i]`
    bytes. Each stage has a full mbarrier (one arrival, the producer's
    arrive.expect_tx of `tx_bytes`, plus the bytes landing in this CTA) and an
    empty mbarrier (one arrival per releasing warp: `consumer_warps` times the
    multicast group size). With `multicast_axis` (0..2 = x..z, 3 = the whole
    cluster) the copies multicast along that axis: each slot is written by
    the group's CTAs, and a consumer releases the slot of every CTA of its
    group. `release_per_warpgroup`: only wgmma reads the slots, so one warp
    per consumer warpgroup releases; `stored_by_tma`: a consume forwards a
    slot with a TMA store, whose read precedes the release (bar.warp.sync).
  }];
  let arguments = (ins StrAttr:$ring_name, I64Attr:$stages, TypeArrayAttr:$member_types,
                       DenseI64ArrayAttr:$member_strides, DenseI64ArrayAttr:$member_alignments,
                       I64Attr:$tx_bytes, I64Attr:$consumer_warps,
                       OptionalAttr<I32Attr>:$multicast_axis, UnitAttr:$release_per_warpgroup,
                       UnitAttr:$stored_by_tma);
  let results = (outs Tile_RingType:$ring);
  let assemblyFormat = "$ring_name attr-dict `:` qualified(type($ring))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// CTAs writing into each slot of this CTA (1 without multicast).
    int64_t getGroupSize();
    /// Arrivals that complete a phase of an empty barrier.
    int64_t getReleaseCount() { return getConsumerWarps() * getGroupSize(); }
  }];
}

def Tile_RingInitOp : Tile_Op<"ring_init"> {
  let summary = "mbarrier.init of the ring's full and empty barriers";
  let description = [{
    Placed in the kernel's mbarrier initialisation (one thread, before the
    CTA barrier that publishes it). A ring that is never produced or consumed
    has no barriers to initialise.
  }];
  let arguments = (ins Tile_RingType:$ring);
  let assemblyFormat = "$ring attr-dict";
}

def Tile_RingCursorOp : Tile_Op<"ring_cursor"> {
  let summary = "the stage index and phase of one side (producer or consumer) of a ring";
  let description = [{
    Every produce (with `producer`) or consume of one ring in one role goes
    through one cursor: its accesses take consecutive stages, and the phase
    flips each time the stage index wraps. Placed in the kernel's entry
    block, ahead of all control flow; every access that uses it names the
    same ring.
  }];
  let arguments = (ins UnitAttr:$producer);
  let results = (outs Tile_RingCursorType:$cursor);
  let assemblyFormat = "attr-dict `:` qualified(type($cursor))";
  let hasVerifier = 1;
}

def Tile_RingProduceOp : Tile_Op<"ring_produce", [SingleBlock, NoTerminator]> {
  let summary = "fill the cursor's next stage: wait until it is free, then run the body";
  let description = [{
    One elected thread (the first warp's; `elected`: the op already runs in
    one) waits on the stage's empty barrier, arrives on its full barrier with
    the ring's tx bytes and runs the body, whose TMA loads complete on that
    full barrier. Block arguments: the stage's full mbarrier, then one
    pointer per member tile (the stage's slot).
  }];
  let arguments = (ins Tile_RingType:$ring, Tile_RingCursorType:$cursor, UnitAttr:$elected);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$ring `,` $cursor (`elected` $elected^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Tile_RingConsumeOp : Tile_Op<"ring_consume", [SingleBlock, NoTerminator]> {
  let summary = "wait for the cursor's next stage, run the body, release the stage";
  let description = [{
    Every thread waits for the stage's full barrier, then runs the body.
    With `inflight` = 0 each consuming warp releases the stage after the body
    (after bar.warp.sync; lane q < group size arrives on the q-th multicast
    peer's empty barrier). With `inflight` = n > 0 wgmma groups stay in flight
    after the body and the body releases an earlier stage itself
    (tile.ring_release). `mma_only_reads`: no generic read of the slot (only
    wgmma reads, retired by wgmma.wait_group before the release, a TMA
    store's, awaited before it, or none), so the release is relaxed.
    `wait_anchor` (none, reduce or last): where tile-anchor-mma-waits keeps
    the body's closing wgmma wait, for this block alone (the pass's option
    otherwise). Block arguments: the stage index (i32), then one pointer per
    member tile.
  }];
  let arguments = (ins Tile_RingType:$ring, Tile_RingCursorType:$cursor,
                       DefaultValuedAttr<I64Attr, "0">:$inflight,
                       UnitAttr:$mma_only_reads,
                       OptionalAttr<StrAttr>:$wait_anchor);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$ring `,` $cursor attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Tile_RingReleaseOp : Tile_Op<"ring_release"> {
  let summary = "release the stage `back` stages before `stage` (a delayed release)";
  let description = [{
    Inside a tile.ring_consume with inflight n: releases stage
    (stage + S - back) mod S, whose wgmma group has retired.
  }];
  let arguments = (ins Tile_RingType:$ring, Tile_RingCursorType:$cursor, I32:$stage,
                       I64Attr:$back,
                       UnitAttr:$mma_only_reads);
  let assemblyFormat = "$ring `,` $cursor `[` $stage `]` `back` $back attr-dict";
  let hasVerifier = 1;
}

def Tile_RingDrainOp : Tile_Op<"ring_drain"> {
  let summary = "release the `count` stages the cursor consumed last, oldest first";
  let arguments = (ins Tile_RingType:$ring, Tile_RingCursorType:$cursor, I32:$count,
                       UnitAttr:$mma_only_reads);
  let assemblyFormat = "$ring `,` $cursor `,` $count attr-dict";
  let hasVerifier = 1;
}

def Tile_RingTailOp : Tile_Op<"ring_tail"> {
  let summary = "the producer waits until every stage it filled is released";
  let description = [{
    At the end of the producing role (or kernel): no peer still multicasts
    into or arrives on this CTA's slots after it exits. Runs in one elected
    thread (`elected`: the op already runs in one).
  }];
  let arguments = (ins Tile_RingType:$ring, Tile_RingCursorType:$cursor, UnitAttr:$elected);
  let assemblyFormat = "$ring `,` $cursor (`elected` $elected^)? attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_RING_OPS_TD
