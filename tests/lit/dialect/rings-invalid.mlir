// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Every verifier check of the ring ops.

tile.kernel @no_stages() {
  // expected-error @+1 {{has 0 stages; a ring needs at least 1}}
  %r = tile.ring "r" {stages = 0 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.return
}

// -----

tile.kernel @no_members() {
  // expected-error @+1 {{needs at least one member tile}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [], member_strides = array<i64>, member_alignments = array<i64>, tx_bytes = 0 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.return
}

// -----

tile.kernel @member_mismatch() {
  // expected-error @+1 {{has 2 member types but 1 strides and 2 alignments}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16, f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128, 128>, tx_bytes = 256 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.return
}

// -----

tile.kernel @bad_stride() {
  // expected-error @+1 {{member 0 has stride 0; a stage's tile needs at least one element}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 0>, member_alignments = array<i64: 128>, tx_bytes = 0 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.return
}

// -----

tile.kernel @bad_alignment() {
  // expected-error @+1 {{member 0 has alignment 96; alignments are powers of two}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 96>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.return
}

// -----

tile.kernel @tx_range() {
  // expected-error @+1 {{tx_bytes 1048576 is outside the mbarrier tx-count range 0..1048575}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 524288>, member_alignments = array<i64: 128>, tx_bytes = 1048576 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.return
}

// -----

tile.kernel @axis_range() attributes {cluster_dims = array<i32: 2, 1, 1>} {
  // expected-error @+1 {{multicast_axis 4 is not an axis (0..2 = x..z, 3 = the whole cluster)}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64, multicast_axis = 4 : i32} : !tile.ring
  tile.return
}

// -----

tile.kernel @multicast_dynamic() attributes {cluster_dynamic} {
  // expected-error @+1 {{multicasts, but its kernel has no static cluster shape}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64, multicast_axis = 0 : i32} : !tile.ring
  tile.return
}

// -----

tile.kernel @multicast_one_cta() attributes {cluster_dims = array<i32: 2, 1, 1>} {
  // expected-error @+1 {{multicasts along axis 1, which has one CTA in the 2x1x1 cluster}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64, multicast_axis = 1 : i32} : !tile.ring
  tile.return
}

// -----

tile.kernel @release_count() attributes {cluster_dims = array<i32: 16, 1, 1>} {
  // expected-error @+1 {{needs 1048576 releases per phase; an mbarrier counts at most 1048575}}
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 65536 : i64, multicast_axis = 0 : i32} : !tile.ring
  tile.return
}

// -----

tile.kernel @produce_consumer_cursor() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{needs a producer cursor}}
  tile.ring_produce %r, %c {
  ^bb0(%full: !tile.ptr<i64, shared>, %a: !tile.ptr<f16, shared>):
  }
  tile.return
}

// -----

tile.kernel @member_type() {
  %c = tile.ring_cursor {producer} : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{body argument 1 must be a shared pointer to 'f16' (member 0 of ring 'r')}}
  tile.ring_produce %r, %c {
  ^bb0(%full: !tile.ptr<i64, shared>, %a: !tile.ptr<f32, shared>):
  }
  tile.return
}

// -----

tile.kernel @member_count() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16, bf16], member_strides = array<i64: 64, 64>, member_alignments = array<i64: 128, 128>, tx_bytes = 256 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{body takes 2 arguments; ring 'r' needs the stage index and 2 member tiles}}
  tile.ring_consume %r, %c {
  ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
  }
  tile.return
}

// -----

tile.kernel @stage_type() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{body argument 0 (the stage index) must be 'i32'}}
  tile.ring_consume %r, %c {
  ^bb0(%stage: i64, %a: !tile.ptr<f16, shared>):
  }
  tile.return
}

// -----

tile.kernel @inflight() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{inflight 2 is outside 0..1 (ring 'r' has 2 stages)}}
  tile.ring_consume %r, %c attributes {inflight = 2 : i64} {
  ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
  }
  tile.return
}

// -----

tile.kernel @wait_anchor_name() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{wait_anchor 'first' is none of none, reduce, last}}
  tile.ring_consume %r, %c attributes {wait_anchor = "first"} {
  ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
  }
  tile.return
}

// -----

tile.kernel @wait_anchor_inflight() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{wait_anchor needs inflight 0}}
  tile.ring_consume %r, %c attributes {inflight = 1 : i64, wait_anchor = "reduce"} {
  ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
  }
  tile.return
}

// -----

tile.kernel @release_outside() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  %s = arith.constant 0 : i32
  // expected-error @+1 {{must be inside a tile.ring_consume of the same cursor with inflight > 0}}
  tile.ring_release %r, %c[%s] back 1
  tile.return
}

// -----

tile.kernel @release_back() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 3 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.ring_consume %r, %c attributes {inflight = 1 : i64} {
  ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
    // expected-error @+1 {{back 3 is outside 1..2}}
    tile.ring_release %r, %c[%stage] back 3
  }
  tile.return
}

// -----

tile.kernel @tail_consumer() {
  %c = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  // expected-error @+1 {{needs a producer cursor}}
  tile.ring_tail %r, %c
  tile.return
}

// -----

tile.kernel @cursor_two_rings() {
  // expected-error @+1 {{is used with two rings; each ring side has its own cursor}}
  %c = tile.ring_cursor {producer} : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  %q = tile.ring "q" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.ring_tail %r, %c
  tile.ring_tail %q, %c
  tile.return
}
