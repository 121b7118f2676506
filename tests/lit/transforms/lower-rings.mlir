// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-lower-rings))' -split-input-file | FileCheck %s

// The ring becomes its member tile (S stages), S full and S empty
// mbarriers; each cursor two zeroed slots (phase, stage). The init counts
// 1 arrival (full) and 4 consumer warps (empty) per stage. A produce waits
// empty[stage] at phase ^ 1 in one elected thread of the first warp, then
// arrive.expect_tx(full[stage]) and the body; a consume waits full[stage]
// at phase, runs the body, bar.warp.sync, lane 0 releases empty[stage];
// each access advances the cursor (stage + 1, wrapping at 2 with the phase
// flipped). The tail waits the last 2 stages.
// CHECK-LABEL: tile.kernel @local
// CHECK:      %[[CPHASE:.*]] = tile.local_var
// CHECK-NEXT: %[[CSTAGE:.*]] = tile.local_var
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: tile.store %[[Z]], %[[CSTAGE]]
// CHECK-NEXT: tile.store %[[Z]], %[[CPHASE]]
// CHECK:      %[[PPHASE:.*]] = tile.local_var
// CHECK-NEXT: %[[PSTAGE:.*]] = tile.local_var
// CHECK:      %[[TILE:.*]] = tile.shared_alloc {alignment = 128 : i64, static_count = 2048 : i64} -> !tile.ptr<f16, shared>
// CHECK-NEXT: %[[FULL:.*]] = tile.shared_alloc {static_count = 2 : i64} -> !tile.ptr<i64, shared>
// CHECK-NEXT: %[[EMPTY:.*]] = tile.shared_alloc {static_count = 2 : i64} -> !tile.ptr<i64, shared>
// CHECK:      scf.if
// CHECK:        %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK:        %[[F0:.*]] = tile.ptr_add %[[FULL]]
// CHECK-NEXT:   tile.mbarrier_init %[[F0]], %[[ONE]]
// CHECK-NEXT:   %[[E0:.*]] = tile.ptr_add %[[EMPTY]]
// CHECK-NEXT:   tile.mbarrier_init %[[E0]], %[[FOUR]]
// CHECK:        tile.mbarrier_init
// CHECK-NEXT:   tile.ptr_add
// CHECK-NEXT:   tile.mbarrier_init
// CHECK-NEXT: }
// CHECK:      scf.for
// CHECK-NEXT:   %[[S:.*]] = tile.load %[[PSTAGE]]
// CHECK-NEXT:   %[[P:.*]] = tile.load %[[PPHASE]]
// CHECK-NEXT:   %[[FS:.*]] = tile.ptr_add %[[FULL]], %[[S]]
// CHECK-NEXT:   %[[ES:.*]] = tile.ptr_add %[[EMPTY]], %[[S]]
// CHECK:        %[[OFF:.*]] = arith.muli %[[S]], %{{.*}} : i32
// CHECK-NEXT:   %[[SLOT:.*]] = tile.ptr_add %[[TILE]], %[[OFF]]
// CHECK:        %[[TID:.*]] = tile.sreg  tid_x
// CHECK:        arith.cmpi ult, %[[TID]]
// CHECK:        tile.elect_one
// CHECK:          %[[PAR:.*]] = arith.xori %[[P]], %{{.*}} : i32
// CHECK:          tile.mbarrier_wait %[[ES]] parity %[[PAR]] {order = #tile<order acquire>, scope = #tile<scope cta>, {{.*}}tile.name = "r.empty"
// CHECK:          tile.mbarrier_arrive %[[FS]] expect_tx %{{.*}} {order = #tile<order release>, scope = #tile<scope cta>
// CHECK-NEXT:     tile.store %{{.*}}, %[[SLOT]]
// CHECK:        %[[S2:.*]] = tile.load %[[PSTAGE]]
// CHECK-NEXT:   %[[P2:.*]] = tile.load %[[PPHASE]]
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[S2]], %[[C1]]
// CHECK-NEXT:   %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:   %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %[[C2]]
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[NS:.*]] = arith.select %[[WRAP]], %[[C0]], %[[NEXT]]
// CHECK-NEXT:   tile.store %[[NS]], %[[PSTAGE]]
// CHECK-NEXT:   %[[C1B:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[FLIP:.*]] = arith.xori %[[P2]], %[[C1B]]
// CHECK-NEXT:   %[[NP:.*]] = arith.select %[[WRAP]], %[[FLIP]], %[[P2]]
// CHECK-NEXT:   tile.store %[[NP]], %[[PPHASE]]
// CHECK-NEXT:   %[[CS:.*]] = tile.load %[[CSTAGE]]
// CHECK-NEXT:   %[[CP:.*]] = tile.load %[[CPHASE]]
// CHECK-NEXT:   %[[CF:.*]] = tile.ptr_add %[[FULL]], %[[CS]]
// CHECK-NEXT:   %[[CE:.*]] = tile.ptr_add %[[EMPTY]], %[[CS]]
// CHECK:        tile.mbarrier_wait %[[CF]] parity %[[CP]] {order = #tile<order acquire>, scope = #tile<scope cta>, {{.*}}tile.name = "r.full"
// CHECK-NEXT:   tile.load
// CHECK-NEXT:   %[[LANE:.*]] = tile.sreg  laneid
// CHECK:        arith.cmpi ult, %[[LANE]]
// CHECK:        tile.sync_warp %{{.*}} {tile.shared_only
// CHECK-NEXT:   scf.if
// CHECK-NEXT:     tile.mbarrier_arrive %[[CE]] {order = #tile<order release>, scope = #tile<scope cta>, tile.shared_only
// CHECK:        tile.store %{{.*}}, %[[CSTAGE]]
// CHECK:        tile.store %{{.*}}, %[[CPHASE]]
// CHECK:      tile.elect_one
// CHECK:        scf.for
// CHECK:          tile.mbarrier_wait {{.*}}tile.hang_note = "ring 'r' empty barrier of the stage; its phase completes with 4 consumer warp releases; the producer's exit waits
// CHECK-NOT:  tile.ring
tile.kernel @local(%n: i32) attributes {req_threads = array<i32: 128, 1, 1>} {
  %cc = tile.ring_cursor : !tile.ring_cursor
  %pc = tile.ring_cursor {producer} : !tile.ring_cursor
  %r = tile.ring "r" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 1024>, member_alignments = array<i64: 128>, tx_bytes = 2048 : i64, consumer_warps = 4 : i64} : !tile.ring
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = arith.constant 1.0 : f16
  %tid = tile.sreg tid_x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  scf.if %first {
    tile.ring_init %r
  }
  tile.barrier
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.ring_produce %r, %pc {
    ^bb0(%full: !tile.ptr<i64, shared>, %a: !tile.ptr<f16, shared>):
      tile.store %x, %a : f16, !tile.ptr<f16, shared>
    }
    tile.ring_consume %r, %cc {
    ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
      %v = tile.load %a : !tile.ptr<f16, shared> -> f16
    }
  }
  tile.ring_tail %r, %pc
  tile.return
}

// -----

// Multicast along x in a 2x1x1 cluster, consumed in a role: the empty
// barriers count 4 warps x 2 CTAs; the produce's empty wait (and the
// tail's) is at cluster scope; lane q < 2 of each warp releases the q-th
// CTA's slot through mapa: rank + (lane - %cluster_ctaid.x).
// CHECK-LABEL: tile.kernel @multicast
// CHECK:      %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK:      tile.mbarrier_init %{{.*}}, %[[EIGHT]]
// CHECK:      tile.role "producer"
// CHECK:        arith.subi %{{.*}}, %{{.*}} : i32
// CHECK:        tile.elect_one
// CHECK:        tile.mbarrier_wait {{.*}}scope = #tile<scope cluster>{{.*}}tile.name = "m.empty"
// CHECK:        tile.mbarrier_wait {{.*}}scope = #tile<scope cluster>{{.*}}tile.name = "m.empty"
// CHECK:      tile.role "consumer"
// CHECK:        tile.mbarrier_wait {{.*}}scope = #tile<scope cta>{{.*}}tile.name = "m.full"
// CHECK:        %[[LANE:.*]] = tile.sreg  laneid
// CHECK-NEXT:   %[[G:.*]] = arith.constant 2 : i32
// CHECK-NEXT:   arith.cmpi ult, %[[LANE]], %[[G]]
// CHECK:        tile.sync_warp
// CHECK:        scf.if
// CHECK-NEXT:     %[[RANK:.*]] = tile.sreg  cluster_ctarank
// CHECK-NEXT:     %[[POS:.*]] = tile.sreg  cluster_ctaid_x
// CHECK-NEXT:     %[[D:.*]] = arith.subi %[[LANE]], %[[POS]]
// CHECK-NEXT:     %[[T:.*]] = arith.addi %[[RANK]], %[[D]]
// CHECK-NEXT:     %[[R:.*]] = tile.mapa %{{.*}}, %[[T]]
// CHECK-NEXT:     tile.mbarrier_arrive %[[R]] {order = #tile<order release>, scope = #tile<scope cluster>
tile.kernel @multicast(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>, max_threads = array<i32: 256, 1, 1>} {
  %cc = tile.ring_cursor : !tile.ring_cursor
  %pc = tile.ring_cursor {producer} : !tile.ring_cursor
  %r = tile.ring "m" {stages = 3 : i64, member_types = [bf16], member_strides = array<i64: 4096>, member_alignments = array<i64: 1024>, tx_bytes = 8192 : i64, consumer_warps = 4 : i64, multicast_axis = 0 : i32} : !tile.ring
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %tid = tile.sreg tid_x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  scf.if %first {
    tile.ring_init %r
  }
  tile.barrier
  %wg = tile.warpgroup_id : i32
  tile.role "producer"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 1 : i32} {
    tile.ring_produce %r, %pc {
    ^bb0(%full: !tile.ptr<i64, shared>, %a: !tile.ptr<bf16, shared>):
    }
    tile.ring_tail %r, %pc
    tile.role_end
  }
  tile.role "consumer"(%wg) attributes {first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, barrier_id = 2 : i32} {
    tile.ring_consume %r, %cc {
    ^bb0(%stage: i32, %a: !tile.ptr<bf16, shared>):
      %v = tile.load %a : !tile.ptr<bf16, shared> -> bf16
    }
    tile.role_end
  }
  tile.return
}

// -----

// inflight(1): no release after the body; the body's tile.ring_release
// releases (stage + 4 - 1) mod 4, relaxed (only wgmma read the slot); the
// drain releases (stage + 4 - count + j) mod 4 for j < count.
// CHECK-LABEL: tile.kernel @inflight
// CHECK:      %[[S:.*]] = tile.load
// CHECK:      tile.mbarrier_wait {{.*}}tile.name = "w.full"
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[S]], %[[C3]]
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[I:.*]] = arith.remui %[[B]], %[[C4]]
// CHECK-NEXT: %[[E:.*]] = tile.ptr_add %{{.*}}, %[[I]]
// CHECK:      tile.mbarrier_arrive %[[E]] {order = #tile<order relaxed>, scope = #tile<scope cta>
// CHECK:      arith.xori
// CHECK-NEXT: arith.select
// CHECK-NEXT: tile.store
// CHECK-NEXT: %[[DS:.*]] = tile.load
// CHECK-NEXT: arith.constant 0
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %arg1
// CHECK-NEXT:   %[[C4B:.*]] = arith.constant 4 : i32
// CHECK-NEXT:   %[[A:.*]] = arith.addi %[[DS]], %[[C4B]]
// CHECK-NEXT:   %[[BK:.*]] = arith.subi %[[A]], %arg1
// CHECK:        %[[AJ:.*]] = arith.addi %[[BK]], %[[J]]
// CHECK-NEXT:   %[[C4C:.*]] = arith.constant 4 : i32
// CHECK-NEXT:   arith.remui %[[AJ]], %[[C4C]] : i32
// CHECK:        tile.mbarrier_arrive {{.*}}order = #tile<order relaxed>
tile.kernel @inflight(%n: i32, %pending: i32) attributes {req_threads = array<i32: 128, 1, 1>} {
  %cc = tile.ring_cursor : !tile.ring_cursor
  %r = tile.ring "w" {stages = 4 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 128 : i64, consumer_warps = 4 : i64} : !tile.ring
  tile.ring_consume %r, %cc attributes {inflight = 1 : i64, mma_only_reads} {
  ^bb0(%stage: i32, %a: !tile.ptr<f16, shared>):
    tile.ring_release %r, %cc[%stage] back 1 {mma_only_reads}
  }
  tile.ring_drain %r, %cc, %pending {mma_only_reads}
  tile.return
}

// -----

// A ring nobody produces or consumes keeps its barriers uninitialised.
// CHECK-LABEL: tile.kernel @unused
// CHECK-NOT:  tile.mbarrier_init
// CHECK:      tile.return
tile.kernel @unused() {
  %r = tile.ring "u" {stages = 2 : i64, member_types = [f16], member_strides = array<i64: 64>, member_alignments = array<i64: 128>, tx_bytes = 0 : i64, consumer_warps = 0 : i64} : !tile.ring
  tile.ring_init %r
  tile.return
}
