// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-test-uniformity))' -split-input-file -o /dev/null 2>&1 | FileCheck %s

// The uniformity analysis (compiler/transforms/Uniformity.h) follows
// loop-carried values to a fixpoint: `var`s (tile.local_var slots),
// scf.for iteration arguments and scf.while's carried values. A remark per
// barrier (its control and whether `.aligned` is proven), per region op (how
// far its decision differs) and per slot load.

// A while loop over a var that only uniform values reach: the loop and its
// barrier are uniform (before, every while loop was taken as divergent).
// while_over_uniform_var: the remarks in order (with -split-input-file, each chunk's).
// CHECK: uniformity.mlir:[[#@LINE+9]]:3: remark: decides uniform
// CHECK: uniformity.mlir:[[#@LINE+9]]:10: remark: slot uniform
// CHECK: uniformity.mlir:[[#@LINE+12]]:5: remark: control uniform, aligned
// CHECK: uniformity.mlir:[[#@LINE+12]]:10: remark: slot uniform
tile.kernel @while_over_uniform_var(%n: i32, %step: i32) {
  %slot = tile.local_var -> !tile.ptr<i32, local>
  %c0 = arith.constant 0 : i32
  %first = tile.sreg nclusterid_x : i32
  tile.store %first, %slot : i32, !tile.ptr<i32, local>
  scf.while : () -> () {
    %u = tile.load %slot : !tile.ptr<i32, local> -> i32
    %more = arith.cmpi slt, %u, %n : i32
    scf.condition(%more)
  } do {
    tile.barrier
    %u = tile.load %slot : !tile.ptr<i32, local> -> i32
    %next = arith.addi %u, %step : i32
    tile.store %next, %slot : i32, !tile.ptr<i32, local>
    scf.yield
  }
  tile.return
}

// -----

// A thread id that reaches the test only through two iterations of the
// loop: the fixpoint finds it, and the barrier under the test is divergent.
// carried_thread_id: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides uniform
// CHECK: remark: slot per-thread
// CHECK: remark: decides per-thread
// CHECK: remark: control per-thread, not aligned
tile.kernel @carried_thread_id(%n: i32) {
  %a = tile.local_var -> !tile.ptr<i32, local>
  %b = tile.local_var -> !tile.ptr<i32, local>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.store %c0, %a : i32, !tile.ptr<i32, local>
  tile.store %c0, %b : i32, !tile.ptr<i32, local>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %av = tile.load %a : !tile.ptr<i32, local> -> i32
    %pos = arith.cmpi sgt, %av, %c0 : i32
    scf.if %pos {
      tile.barrier
    }
    %bv = tile.load %b : !tile.ptr<i32, local> -> i32
    tile.store %bv, %a : i32, !tile.ptr<i32, local>
    %tid = tile.sreg tid_x : i32
    tile.store %tid, %b : i32, !tile.ptr<i32, local>
  }
  tile.return
}

// -----

// scf.for iteration arguments: a uniform accumulator stays uniform; one fed
// a thread id from the previous iteration does not. A loop's results are as
// divergent as its trip count too.
// for_iter_args: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides uniform
// CHECK: remark: decides uniform
// CHECK: remark: control uniform, aligned
// CHECK: remark: decides per-thread
// CHECK: remark: control per-thread, not aligned
// CHECK: remark: decides per-cta
// CHECK: remark: control per-cta, aligned
tile.kernel @for_iter_args(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%u = %c0, %t = %c0) -> (i32, i32) : i32 {
    %uz = arith.cmpi eq, %u, %c0 : i32
    scf.if %uz {
      tile.barrier
    }
    %tz = arith.cmpi eq, %t, %c0 : i32
    scf.if %tz {
      tile.barrier
    }
    %nu = arith.addi %u, %n : i32
    %tid = tile.sreg tid_x : i32
    scf.yield %nu, %tid : i32, i32
  }
  %cta = tile.sreg ctaid_x : i32
  %last = arith.cmpi eq, %r#0, %cta : i32
  scf.if %last {
    tile.barrier
  }
  tile.return
}

// -----

// scf.while carried values: the count stays uniform; the results of a loop
// whose condition is per-thread are per-thread.
// while_carried: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides uniform
// CHECK: remark: control uniform, aligned
// CHECK: remark: decides per-thread
// CHECK: remark: decides per-thread
// CHECK: remark: control per-thread, not aligned
tile.kernel @while_carried(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %done = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%j: i32):
    tile.barrier
    %next = arith.addi %j, %c1 : i32
    scf.yield %next : i32
  }
  %tid = tile.sreg tid_x : i32
  %out = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %i, %tid : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%j: i32):
    %next = arith.addi %j, %c1 : i32
    scf.yield %next : i32
  }
  %z = arith.cmpi eq, %out, %done : i32
  scf.if %z {
    tile.barrier
  }
  tile.return
}

// -----

// The warp index (linear thread id / 32) is the same in every lane of a
// warp: a barrier under it may be `.aligned`; the warpgroup index (/ 128,
// or >> 7) likewise; the lane of a warp (% 32) is not. %tid.x is the linear
// id only in a block the bounds prove one-dimensional.
// warp_index: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides per-warp
// CHECK: remark: control per-warp, aligned
// CHECK: remark: decides per-warpgroup
// CHECK: remark: control per-warpgroup, aligned
// CHECK: remark: decides per-thread
// CHECK: remark: control per-thread, not aligned
tile.kernel @warp_index(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %c32 = arith.constant 32 : i32
  %tid = tile.sreg tid_x : i32
  %warp = arith.divui %tid, %c32 : i32
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %w0 {
    tile.named_barrier 1, 32
  }
  %wg = arith.shrui %tid, %c7 : i32
  %g0 = arith.cmpi eq, %wg, %c0 : i32
  scf.if %g0 {
    tile.named_barrier 2, 128
  }
  %lane = arith.remui %tid, %c32 : i32
  %l0 = arith.cmpi eq, %lane, %c0 : i32
  scf.if %l0 {
    tile.named_barrier 3, 32
  }
  tile.return
}

// -----

// A role is entered by whole warpgroups; a var it assigns and reads is
// measured from the role's entry (slots are private to the thread: only
// the role's own threads store to it), so a loop over it keeps the role's
// barrier `.aligned`. A slot whose address escapes (here: into pointer
// arithmetic) is unknown: per-thread.
// role_loop: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides per-warpgroup
// CHECK: remark: decides uniform
// CHECK: remark: slot uniform
// CHECK: remark: control per-warpgroup, aligned
// CHECK: remark: slot per-thread
tile.kernel @role_loop(%n: i32) attributes {req_threads = array<i32: 128, 1, 1>} {
  %slot = tile.local_var -> !tile.ptr<i32, local>
  %esc = tile.local_var -> !tile.ptr<i32, local>
  %wg = tile.warpgroup_id : i32
  tile.role "only"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32} {
    %c0 = arith.constant 0 : i32
    tile.store %c0, %slot : i32, !tile.ptr<i32, local>
    scf.while : () -> () {
      %u = tile.load %slot : !tile.ptr<i32, local> -> i32
      %more = arith.cmpi slt, %u, %n : i32
      scf.condition(%more)
    } do {
      tile.named_barrier 1, 128
      %c1 = arith.constant 1 : i32
      tile.store %c1, %slot : i32, !tile.ptr<i32, local>
      scf.yield
    }
    %zero = arith.constant 0 : i32
    %alias = tile.ptr_add %esc, %zero : !tile.ptr<i32, local>, i32
    tile.store %zero, %alias : i32, !tile.ptr<i32, local>
    %e = tile.load %esc : !tile.ptr<i32, local> -> i32
    tile.role_end
  }
  tile.return
}

// -----

// Without bounds, %tid.x / 32 is not the warp index (a 48 x 2 block puts
// x = 32..47 and x = 0..15 in one warp); the linear index's quotient is.
// warp_index_3d: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides per-thread
// CHECK: remark: control per-thread, not aligned
// CHECK: remark: decides per-warp
// CHECK: remark: control per-warp, aligned
tile.kernel @warp_index_3d(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %tx = tile.sreg tid_x : i32
  %wx = arith.divui %tx, %c32 : i32
  %x0 = arith.cmpi eq, %wx, %c0 : i32
  scf.if %x0 {
    tile.named_barrier 1, 32
  }
  %nx = tile.sreg ntid_x : i32
  %ny = tile.sreg ntid_y : i32
  %ty = tile.sreg tid_y : i32
  %tz = tile.sreg tid_z : i32
  %zy = arith.muli %tz, %ny : i32
  %z = arith.addi %zy, %ty : i32
  %rows = arith.muli %z, %nx : i32
  %linear = arith.addi %rows, %tx : i32
  %warp = arith.divui %linear, %c32 : i32
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %w0 {
    tile.named_barrier 2, 32
  }
  tile.return
}

// -----

// The thread index is never negative: its signed quotient and shift are the
// warp and warpgroup index as the unsigned ones are, and a signed bound at
// the edge of a warp (`< 64`, `<= 95`) is a range of whole warps; one inside
// a warp (`<= 32`) is not.
// signed_warp_index: the remarks in order (with -split-input-file, each chunk's).
// CHECK: remark: decides per-warp
// CHECK: remark: control per-warp, aligned
// CHECK: remark: decides per-warpgroup
// CHECK: remark: control per-warpgroup, aligned
// CHECK: remark: decides per-warp
// CHECK: remark: control per-warp, aligned
// CHECK: remark: decides per-warp
// CHECK: remark: control per-warp, aligned
// CHECK: remark: decides per-thread
// CHECK: remark: control per-thread, not aligned
tile.kernel @signed_warp_index(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c95 = arith.constant 95 : i32
  %tid = tile.sreg tid_x : i32
  %warp = arith.divsi %tid, %c32 : i32
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %w0 {
    tile.named_barrier 1, 32
  }
  %wg = arith.shrsi %tid, %c7 : i32
  %g0 = arith.cmpi eq, %wg, %c0 : i32
  scf.if %g0 {
    tile.named_barrier 2, 128
  }
  %below = arith.cmpi slt, %tid, %c64 : i32
  scf.if %below {
    tile.named_barrier 3, 64
  }
  %upto = arith.cmpi sle, %tid, %c95 : i32
  scf.if %upto {
    tile.named_barrier 4, 96
  }
  %split = arith.cmpi sle, %tid, %c32 : i32
  scf.if %split {
    tile.named_barrier 5, 64
  }
  tile.return
}
