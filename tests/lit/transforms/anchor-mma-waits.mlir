// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-anchor-mma-waits{anchor=last}))' | FileCheck %s --check-prefix=LAST
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-anchor-mma-waits{anchor=reduce}))' | FileCheck %s --check-prefix=REDUCE
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-anchor-mma-waits))' | FileCheck %s --check-prefix=NONE
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-anchor-mma-waits{anchor=first}))' 2>&1 | FileCheck %s --check-prefix=BAD

// tile-anchor-mma-waits gives a consume block's closing wait_group 0 an
// `after` value when an earlier wait of the block left groups in flight:
// last, the f32 value with the longest chain behind it (through the block's
// variables); reduce, the first f32 reduction. Not anchored: a block that
// computed nothing since its in-flight wait, a block whose wait follows its
// mmas, a block with inflight(n > 0), and every block with anchor=none.

// LAST-LABEL: tile.kernel @blocks
// LAST: tile.wgmma_wait 1
// LAST: %[[MAX:[0-9]+]] = tile.frag_reduce  max
// LAST: %[[SUM:[0-9]+]] = tile.frag_reduce  sum
// LAST: %[[L:[0-9]+]] = tile.frag_arith  add %{{[0-9]+}}, %[[SUM]]
// LAST: tile.wgmma_wait 0 after %[[L]] : !tile.per_row<64xf32> {tile.sync = "closing; issued after `after` (tilec --mma-wait-anchor), so that the groups left in flight run under the block's work up to it"}
// LAST: tile.wgmma_wait 1
// LAST-NEXT: tile.wgmma_wait 0 {tile.sync = "nothing computed"}
// LAST: tile.wgmma_commit
// LAST-NEXT: tile.wgmma_wait 0 {tile.sync = "after the mmas"}
// LAST: tile.wgmma_wait 1 {tile.sync = "inflight"}
// REDUCE-LABEL: tile.kernel @blocks
// REDUCE: %[[MAX:[0-9]+]] = tile.frag_reduce  max
// REDUCE: tile.wgmma_wait 0 after %[[MAX]] : !tile.per_row<64xf32>
// REDUCE-NOT: wgmma_wait 0 after
// NONE-NOT: wgmma_wait 0 after
// BAD: error: tile-anchor-mma-waits: anchor 'first' is none of none, reduce, last
module {
  tile.kernel @blocks(%out: !tile.ptr<f32, global>, %n: i32) attributes {req_threads = array<i32: 128, 1, 1>} {
    %cur = tile.ring_cursor : !tile.ring_cursor
    %vs = tile.local_var -> !tile.ptr<!tile.per_row<64xf32>, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 4096 : i64} -> !tile.ptr<f16, shared>
    %ring = tile.ring "ring" {consumer_warps = 1 : i64, member_alignments = array<i64: 1024>, member_strides = array<i64: 4096>, member_types = [f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 8192 : i64} : !tile.ring
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %j = %c0 to %n step %c1 : i32 {
      tile.ring_consume %ring, %cur attributes {mma_only_reads} {
      ^bb0(%stage: i32, %k: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, b_k_major = true, b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        %o = tile.mma %z, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, b_k_major = true, b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        tile.wgmma_wait 1
        %m = tile.frag_reduce  max %s : !tile.frag<64x64xf32> -> !tile.per_row<64xf32>
        tile.store %m, %vs {scope = #tile<scope cta>} : !tile.per_row<64xf32>, !tile.ptr<!tile.per_row<64xf32>, local>
        %sum = tile.frag_reduce  sum %s : !tile.frag<64x64xf32> -> !tile.per_row<64xf32>
        %old = tile.load %vs {scope = #tile<scope cta>} : !tile.ptr<!tile.per_row<64xf32>, local> -> !tile.per_row<64xf32>
        %l = tile.frag_arith  add %old, %sum : !tile.per_row<64xf32>, !tile.per_row<64xf32> -> !tile.per_row<64xf32>
        tile.wgmma_wait 0 {tile.sync = "closing"}
      }
      tile.ring_consume %ring, %cur attributes {mma_only_reads} {
      ^bb0(%stage: i32, %k: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, b_k_major = true, b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        tile.wgmma_wait 1
        tile.wgmma_wait 0 {tile.sync = "nothing computed"}
      }
      tile.ring_consume %ring, %cur attributes {mma_only_reads} {
      ^bb0(%stage: i32, %k: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, b_k_major = true, b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        tile.wgmma_wait 0 {tile.sync = "after the mmas"}
      }
      tile.ring_consume %ring, %cur attributes {inflight = 1 : i64, mma_only_reads} {
      ^bb0(%stage: i32, %k: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, b_k_major = true, b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        tile.wgmma_wait 0
        %m = tile.frag_reduce  max %s : !tile.frag<64x64xf32> -> !tile.per_row<64xf32>
        tile.wgmma_wait 1 {tile.sync = "inflight"}
      }
    }
    tile.return
  }
}
