// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-place-mma-waits))' | FileCheck %s

// tile-place-mma-waits: MLIRGen gives each mma of a turn its default group
// (commit_group + wait_group 0 right after it, or nothing in a consume block
// that leaves it to the block's end); the pass moves a statement's wait past
// the hand-over, commits the mmas the consume block leaves in flight as
// groups of their own (in each branch of an `if`), counts them in the wait,
// and drops a consume block's closing commit_group (and a nested block's
// wait_group 0) that the turn made redundant.

// Deferral: the wait of `sc = mma(...)` goes after the store of its result
// (the end of the statement) and before the next statement; in the second
// turn, whose last statement it is, after the hand-over.
// CHECK-LABEL: tile.kernel @deferral
// CHECK: tile.turn_wait
// CHECK: %[[S:.*]] = tile.mma
// CHECK-NEXT: tile.wgmma_commit
// CHECK-NEXT: tile.store %[[S]], %[[SC:[0-9a-z_]+]]
// CHECK-NEXT: tile.wgmma_wait 0 {tile.sync = "wgmma.wait_group.sync.aligned 0: the mma of the turn's statement completes before the next statement reads registers
// CHECK-NEXT: tile.store %{{.*}}, %[[M:[0-9a-z_]+]]
// CHECK: tile.turn_pass
// CHECK: tile.turn_wait
// CHECK: tile.mma
// CHECK-NEXT: tile.wgmma_commit
// CHECK-NEXT: tile.store
// CHECK-NOT: tile.wgmma_wait
// CHECK: tile.turn_pass
// CHECK-NEXT: tile.wgmma_wait 0
// CHECK: tile.role_end

// In flight: the mma left by its consume block, and the one in an `if`
// (the else branch is created to commit an empty group), are groups of their
// own; the wait after the hand-over is wait_group 2. The block's closing
// commit_group goes (every mma is committed), its wait_group 0 stays.
// CHECK-LABEL: tile.kernel @in_flight
// CHECK: tile.turn_wait
// CHECK: tile.mma
// CHECK-NEXT: tile.wgmma_commit {tile.sync = "read"}
// CHECK-NEXT: tile.store
// CHECK-NOT: tile.wgmma_wait
// CHECK: tile.mma_reg_a
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.wgmma_commit {tile.sync = "wgmma.commit_group.sync.aligned: this mma, which its consume block leaves in flight, is its own group
// CHECK: scf.if
// CHECK: tile.mma_reg_a
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.wgmma_commit {tile.sync = "wgmma.commit_group.sync.aligned: this mma, which its consume block leaves in flight
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.wgmma_commit {tile.sync = "wgmma.commit_group.sync.aligned: this mma, which its consume block leaves in flight
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NOT: tile.wgmma
// CHECK: tile.turn_pass
// CHECK-NEXT: tile.wgmma_wait 2 {tile.sync = "wgmma.wait_group.sync.aligned 2: the turn's mma whose result is read completes; the 2 newer group(s)
// CHECK: tile.frag_reduce
// CHECK-NOT: tile.wgmma_commit
// CHECK: tile.wgmma_wait 0 {tile.sync = "closing"}
// CHECK-NEXT: {{^ *[}]$}}

// A statement that reads the pending accumulator (the second mma's
// accumulator is `sc`) is not left in flight: the wait goes before it, the
// block's end keeps its commit_group for that mma.
// CHECK-LABEL: tile.kernel @reads_pending
// CHECK: tile.mma
// CHECK-NEXT: tile.wgmma_commit
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.wgmma_wait 0
// CHECK-NEXT: tile.load
// CHECK: tile.mma_reg_a
// CHECK-NEXT: tile.store
// CHECK-NEXT: arith.addi
// CHECK: tile.turn_pass
// CHECK-NOT: tile.wgmma_wait
// CHECK: tile.wgmma_commit {tile.sync = "closing commit"}
// CHECK-NEXT: tile.wgmma_wait 0 {tile.sync = "closing"}

// A turn whose body may leave early (it sets the exit flag of a loop around
// it): every wait stays where it is, and no group is added.
// CHECK-LABEL: tile.kernel @leaves_early
// CHECK: tile.mma
// CHECK-NEXT: tile.wgmma_commit
// CHECK-NEXT: tile.wgmma_wait 0 {tile.sync = "default"}
// CHECK-NEXT: tile.store
// CHECK: tile.mma_reg_a
// CHECK-NEXT: tile.store
// CHECK-NOT: tile.wgmma
// CHECK: tile.turn_pass
// CHECK-NEXT: arith.constant
// CHECK: tile.wgmma_commit {tile.sync = "closing commit"}
// CHECK-NEXT: tile.wgmma_wait 0 {tile.sync = "closing"}

// A consume nested in another whose turn leaves P V (reading the outer
// ring's stage) in flight ends with neither commit_group nor wait_group 0:
// the outer block waits for it. The outer block has nothing left to commit.
// CHECK-LABEL: tile.kernel @nested
// CHECK: tile.ring_consume %[[OUTER:[0-9a-z_]+]]
// CHECK: tile.ring_consume
// CHECK: tile.turn_pass
// CHECK-NEXT: tile.wgmma_wait 1
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NOT: tile.wgmma_commit
// CHECK: tile.wgmma_wait 0 {tile.sync = "outer closing"}
// CHECK-NEXT: {{^ *[}]$}}

// The same, but P V reads the nested block's own stage: that block keeps its
// wait_group 0 (the stage is released after it).
// CHECK-LABEL: tile.kernel @nested_own_ring
// CHECK: tile.turn_pass
// CHECK-NEXT: tile.wgmma_wait 1
// CHECK-NEXT: tile.wgmma_wait 0 {tile.sync = "inner closing"}
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NOT: tile.wgmma_commit
// CHECK: tile.wgmma_wait 0 {tile.sync = "outer closing"}

#la = #tile.layout<[128, 64], swizzle = 128, panel = 64>
#lb = #tile.layout<[64, 64], swizzle = 128, panel = 64>
module {
  tile.kernel @deferral(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
    %sc = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %m = tile.local_var -> !tile.ptr<i32, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 8192 : i64} -> !tile.ptr<f16, shared>
    %k = tile.shared_alloc {alignment = 1024 : i64, static_count = 4096 : i64} -> !tile.ptr<f16, shared>
    %wg = tile.warpgroup_id : i32
    tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
      %z = tile.frag_zeros : !tile.frag<64x64xf32>
      tile.wgmma_fence
      %s = tile.mma %z, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
      tile.wgmma_commit
      tile.wgmma_wait 0
      tile.store %s, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
      tile.store %n, %m : i32, !tile.ptr<i32, local>
      %n1 = arith.addi %wg, %c1 : i32
      %w1 = arith.cmpi eq, %n1, %c2 : i32
      %x1 = arith.select %w1, %c0, %n1 : i32
      tile.turn_pass %x1 {first_barrier = 9 : i32, warpgroups = 2 : i32}
      tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
      %z2 = tile.frag_zeros : !tile.frag<64x64xf32>
      tile.wgmma_fence
      %s2 = tile.mma %z2, %q[%c0], %k[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
      tile.wgmma_commit
      tile.wgmma_wait 0
      tile.store %s2, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
      %n2 = arith.addi %wg, %c1 : i32
      %w2 = arith.cmpi eq, %n2, %c2 : i32
      %x2 = arith.select %w2, %c0, %n2 : i32
      tile.turn_pass %x2 {first_barrier = 9 : i32, warpgroups = 2 : i32}
      tile.role_end
    }
    tile.return
  }

  tile.kernel @in_flight(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
    %cur = tile.ring_cursor : !tile.ring_cursor
    %p = tile.local_var -> !tile.ptr<!tile.frag<64x64xf16>, local>
    %sc = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %o = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 8192 : i64} -> !tile.ptr<f16, shared>
    %ring = tile.ring "ring" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024, 1024>, member_strides = array<i64: 4096, 4096>, member_types = [f16, f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 16384 : i64} : !tile.ring
    %wg = tile.warpgroup_id : i32
    tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      tile.ring_consume %ring, %cur attributes {mma_only_reads} {
      ^bb0(%stage: i32, %sk: !tile.ptr<f16, shared>, %sv: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %sk[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit {tile.sync = "read"}
        tile.wgmma_wait 0 {tile.sync = "read"}
        tile.store %s, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        %a = tile.load %p : !tile.ptr<!tile.frag<64x64xf16>, local> -> !tile.frag<64x64xf16>
        %acc = tile.load %o : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
        tile.wgmma_fence
        %pv = tile.mma_reg_a %acc, %a, %sv[%c0] {b_k_major = false, b_layout = #lb} : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
        tile.store %pv, %o : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        %go = arith.cmpi sgt, %n, %c0 : i32
        scf.if %go {
          %a2 = tile.load %p : !tile.ptr<!tile.frag<64x64xf16>, local> -> !tile.frag<64x64xf16>
          %acc2 = tile.load %o : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
          tile.wgmma_fence
          %pv2 = tile.mma_reg_a %acc2, %a2, %sv[%c0] {b_k_major = false, b_layout = #lb} : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
          tile.store %pv2, %o : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        }
        %n1 = arith.addi %wg, %c1 : i32
        %w1 = arith.cmpi eq, %n1, %c2 : i32
        %x1 = arith.select %w1, %c0, %n1 : i32
        tile.turn_pass %x1 {first_barrier = 9 : i32, warpgroups = 2 : i32}
        %r = tile.load %sc : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
        %mx = tile.frag_reduce  max %r : !tile.frag<64x64xf32> -> !tile.per_row<64xf32>
        tile.wgmma_commit {tile.sync = "closing commit"}
        tile.wgmma_wait 0 {tile.sync = "closing"}
      }
      tile.role_end
    }
    tile.return
  }

  tile.kernel @reads_pending(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
    %cur = tile.ring_cursor : !tile.ring_cursor
    %p = tile.local_var -> !tile.ptr<!tile.frag<64x64xf16>, local>
    %sc = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %o = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 8192 : i64} -> !tile.ptr<f16, shared>
    %ring = tile.ring "ring" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024, 1024>, member_strides = array<i64: 4096, 4096>, member_types = [f16, f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 16384 : i64} : !tile.ring
    %wg = tile.warpgroup_id : i32
    tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      tile.ring_consume %ring, %cur attributes {mma_only_reads} {
      ^bb0(%stage: i32, %sk: !tile.ptr<f16, shared>, %sv: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %sk[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        tile.wgmma_wait 0
        tile.store %s, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        %a = tile.load %p : !tile.ptr<!tile.frag<64x64xf16>, local> -> !tile.frag<64x64xf16>
        %acc = tile.load %sc : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
        tile.wgmma_fence
        %pv = tile.mma_reg_a %acc, %a, %sv[%c0] {b_k_major = false, b_layout = #lb} : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
        tile.store %pv, %o : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        %n1 = arith.addi %wg, %c1 : i32
        %w1 = arith.cmpi eq, %n1, %c2 : i32
        %x1 = arith.select %w1, %c0, %n1 : i32
        tile.turn_pass %x1 {first_barrier = 9 : i32, warpgroups = 2 : i32}
        tile.wgmma_commit {tile.sync = "closing commit"}
        tile.wgmma_wait 0 {tile.sync = "closing"}
      }
      tile.role_end
    }
    tile.return
  }

  tile.kernel @leaves_early(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
    %cur = tile.ring_cursor : !tile.ring_cursor
    %broke = tile.local_var {tile.exit_flag} -> !tile.ptr<i1, local>
    %p = tile.local_var -> !tile.ptr<!tile.frag<64x64xf16>, local>
    %sc = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %o = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 8192 : i64} -> !tile.ptr<f16, shared>
    %ring = tile.ring "ring" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024, 1024>, member_strides = array<i64: 4096, 4096>, member_types = [f16, f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 16384 : i64} : !tile.ring
    %wg = tile.warpgroup_id : i32
    tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %false = arith.constant false
      %true = arith.constant true
      tile.store %false, %broke : i1, !tile.ptr<i1, local>
      tile.ring_consume %ring, %cur attributes {mma_only_reads} {
      ^bb0(%stage: i32, %sk: !tile.ptr<f16, shared>, %sv: !tile.ptr<f16, shared>):
        tile.wgmma_fence
        tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
        %z = tile.frag_zeros : !tile.frag<64x64xf32>
        %s = tile.mma %z, %q[%c0], %sk[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
        tile.wgmma_commit
        tile.wgmma_wait 0 {tile.sync = "default"}
        tile.store %s, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        %a = tile.load %p : !tile.ptr<!tile.frag<64x64xf16>, local> -> !tile.frag<64x64xf16>
        %acc = tile.load %o : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
        tile.wgmma_fence
        %pv = tile.mma_reg_a %acc, %a, %sv[%c0] {b_k_major = false, b_layout = #lb} : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
        tile.store %pv, %o : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
        %stop = arith.cmpi sgt, %n, %c2 : i32
        scf.if %stop {
          tile.store %true, %broke : i1, !tile.ptr<i1, local>
        }
        %n1 = arith.addi %wg, %c1 : i32
        %w1 = arith.cmpi eq, %n1, %c2 : i32
        %x1 = arith.select %w1, %c0, %n1 : i32
        tile.turn_pass %x1 {first_barrier = 9 : i32, warpgroups = 2 : i32}
        %c3 = arith.constant 3 : i32
        tile.wgmma_commit {tile.sync = "closing commit"}
        tile.wgmma_wait 0 {tile.sync = "closing"}
      }
      tile.role_end
    }
    tile.return
  }

  tile.kernel @nested(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
    %kcur = tile.ring_cursor : !tile.ring_cursor
    %vcur = tile.ring_cursor : !tile.ring_cursor
    %p = tile.local_var -> !tile.ptr<!tile.frag<64x64xf16>, local>
    %sc = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %o = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 8192 : i64} -> !tile.ptr<f16, shared>
    %vring = tile.ring "v" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024>, member_strides = array<i64: 4096>, member_types = [f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 8192 : i64} : !tile.ring
    %kring = tile.ring "k" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024>, member_strides = array<i64: 4096>, member_types = [f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 8192 : i64} : !tile.ring
    %wg = tile.warpgroup_id : i32
    tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      tile.ring_consume %vring, %vcur attributes {mma_only_reads} {
      ^bb0(%vstage: i32, %sv: !tile.ptr<f16, shared>):
        tile.ring_consume %kring, %kcur attributes {mma_only_reads} {
        ^bb0(%kstage: i32, %sk: !tile.ptr<f16, shared>):
          tile.wgmma_fence
          tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
          %z = tile.frag_zeros : !tile.frag<64x64xf32>
          %s = tile.mma %z, %q[%c0], %sk[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
          tile.wgmma_commit
          tile.wgmma_wait 0
          tile.store %s, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
          %a = tile.load %p : !tile.ptr<!tile.frag<64x64xf16>, local> -> !tile.frag<64x64xf16>
          %acc = tile.load %o : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
          tile.wgmma_fence
          %pv = tile.mma_reg_a %acc, %a, %sv[%c0] {b_k_major = false, b_layout = #lb} : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
          tile.store %pv, %o : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
          %n1 = arith.addi %wg, %c1 : i32
          %w1 = arith.cmpi eq, %n1, %c2 : i32
          %x1 = arith.select %w1, %c0, %n1 : i32
          tile.turn_pass %x1 {first_barrier = 9 : i32, warpgroups = 2 : i32}
          tile.wgmma_commit {tile.sync = "inner closing commit"}
          tile.wgmma_wait 0 {tile.sync = "inner closing"}
        }
        tile.wgmma_commit {tile.sync = "outer closing commit"}
        tile.wgmma_wait 0 {tile.sync = "outer closing"}
      }
      tile.role_end
    }
    tile.return
  }

  tile.kernel @nested_own_ring(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
    %kcur = tile.ring_cursor : !tile.ring_cursor
    %vcur = tile.ring_cursor : !tile.ring_cursor
    %p = tile.local_var -> !tile.ptr<!tile.frag<64x64xf16>, local>
    %sc = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %o = tile.local_var -> !tile.ptr<!tile.frag<64x64xf32>, local>
    %q = tile.shared_alloc {alignment = 1024 : i64, static_count = 8192 : i64} -> !tile.ptr<f16, shared>
    %vring = tile.ring "v" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024>, member_strides = array<i64: 4096>, member_types = [f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 8192 : i64} : !tile.ring
    %kring = tile.ring "k" {consumer_warps = 2 : i64, member_alignments = array<i64: 1024>, member_strides = array<i64: 4096>, member_types = [f16], release_per_warpgroup, stages = 2 : i64, tx_bytes = 8192 : i64} : !tile.ring
    %wg = tile.warpgroup_id : i32
    tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      tile.ring_consume %vring, %vcur attributes {mma_only_reads} {
      ^bb0(%vstage: i32, %sv: !tile.ptr<f16, shared>):
        tile.ring_consume %kring, %kcur attributes {mma_only_reads} {
        ^bb0(%kstage: i32, %sk: !tile.ptr<f16, shared>):
          tile.wgmma_fence
          tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 2 : i32}
          %z = tile.frag_zeros : !tile.frag<64x64xf32>
          %s = tile.mma %z, %q[%c0], %sk[%c0] {a_k_major = true, a_layout = #la, b_k_major = true, b_layout = #lb, k = 64 : i64} : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
          tile.wgmma_commit
          tile.wgmma_wait 0
          tile.store %s, %sc : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
          %a = tile.load %p : !tile.ptr<!tile.frag<64x64xf16>, local> -> !tile.frag<64x64xf16>
          %acc = tile.load %o : !tile.ptr<!tile.frag<64x64xf32>, local> -> !tile.frag<64x64xf32>
          tile.wgmma_fence
          %pv = tile.mma_reg_a %acc, %a, %sk[%c0] {b_k_major = false, b_layout = #lb} : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
          tile.store %pv, %o : !tile.frag<64x64xf32>, !tile.ptr<!tile.frag<64x64xf32>, local>
          %n1 = arith.addi %wg, %c1 : i32
          %w1 = arith.cmpi eq, %n1, %c2 : i32
          %x1 = arith.select %w1, %c0, %n1 : i32
          tile.turn_pass %x1 {first_barrier = 9 : i32, warpgroups = 2 : i32}
          tile.wgmma_commit {tile.sync = "inner closing commit"}
          tile.wgmma_wait 0 {tile.sync = "inner closing"}
        }
        tile.wgmma_commit {tile.sync = "outer closing commit"}
        tile.wgmma_wait 0 {tile.sync = "outer closing"}
      }
      tile.role_end
    }
    tile.return
  }
}
