// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-check-divergence))' -split-input-file -verify-diagnostics

// tile-check-divergence: barriers, collectives, mma, turns and multicast
// boxes judged by the uniformity analysis the sync passes read. Each
// diagnostic has a hint and a note at the decision that makes its control
// divergent: a condition, a loop bound, or the condition under which an exit
// flag (tile.exit_flag) was set.

// Uniform control: nothing to report.
tile.kernel @uniform(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %big = arith.cmpi sgt, %n, %c1 : i32
  scf.if %big {
    tile.barrier
    tile.cluster_sync
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.barrier
  }
  tile.return
}

// -----

// A barrier under a thread-dependent condition; a cluster barrier under a
// CTA-dependent one.
tile.kernel @barriers(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %tid = tile.sreg tid_x : i32
  // expected-note @+1 {{this decision differs between threads}}
  %few = arith.cmpi slt, %tid, %n : i32
  scf.if %few {
    // expected-warning @+2 {{sync_threads() in control flow that threads of the block may take differently: threads that do not reach it deadlock the others}}
    // expected-note @+1 {{hint: move it where every thread of the block reaches it; here it is the non-aligned barrier.sync}}
    tile.barrier
  }
  %rank = tile.sreg cluster_ctarank : i32
  // expected-note @+1 {{this decision differs between CTAs}}
  %first = arith.cmpi eq, %rank, %c0 : i32
  scf.if %first {
    // expected-warning @+2 {{cluster_sync() in control flow that CTAs of the cluster may take differently}}
    // expected-note @+1 {{hint: move it where every thread of every CTA reaches it}}
    tile.cluster_sync
  }
  tile.return
}

// -----

// After a return some threads take (the exit flag set under a per-thread
// condition): the note is at that condition, not at the guard that reads
// the flag.
tile.kernel @after_return(%n: i32) {
  %returned = tile.local_var {tile.exit_flag} -> !tile.ptr<i1, local>
  %false = arith.constant false
  %true = arith.constant true
  tile.store %false, %returned : i1, !tile.ptr<i1, local>
  %tid = tile.sreg tid_x : i32
  // expected-note @+1 {{this decision differs between threads}}
  %done = arith.cmpi sge, %tid, %n : i32
  scf.if %done {
    tile.store %true, %returned : i1, !tile.ptr<i1, local>
  }
  %r = tile.load %returned : !tile.ptr<i1, local> -> i1
  %go = arith.xori %r, %true : i1
  scf.if %go {
    // expected-warning @+2 {{sync_threads() in control flow that threads of the block may take differently}}
    // expected-note @+1 {{hint: move it}}
    tile.barrier
  }
  tile.return
}

// -----

// A slot without tile.exit_flag is a `var`: the note is at the condition
// that reads it.
tile.kernel @var_condition(%n: i32) {
  %y = tile.local_var -> !tile.ptr<i32, local>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.store %c0, %y : i32, !tile.ptr<i32, local>
  %tid = tile.sreg tid_x : i32
  %few = arith.cmpi slt, %tid, %n : i32
  scf.if %few {
    tile.store %c1, %y : i32, !tile.ptr<i32, local>
  }
  %v = tile.load %y : !tile.ptr<i32, local> -> i32
  // expected-note @+1 {{this decision differs between threads}}
  %zero = arith.cmpi eq, %v, %c0 : i32
  scf.if %zero {
    // expected-warning @+2 {{sync_threads() in control flow that threads of the block may take differently}}
    // expected-note @+1 {{hint: move it}}
    tile.barrier
  }
  tile.return
}

// -----

// A while loop over a slot only uniform values reach is uniform; one a
// thread id reaches through an earlier iteration is not.
tile.kernel @while_over_var(%n: i32, %step: i32) {
  %u = tile.local_var -> !tile.ptr<i32, local>
  %x = tile.local_var -> !tile.ptr<i32, local>
  %c0 = arith.constant 0 : i32
  tile.store %c0, %u : i32, !tile.ptr<i32, local>
  tile.store %c0, %x : i32, !tile.ptr<i32, local>
  scf.while : () -> () {
    %a = tile.load %u : !tile.ptr<i32, local> -> i32
    %more = arith.cmpi slt, %a, %n : i32
    scf.condition(%more)
  } do {
    tile.barrier
    %a = tile.load %u : !tile.ptr<i32, local> -> i32
    %next = arith.addi %a, %step : i32
    tile.store %next, %u : i32, !tile.ptr<i32, local>
    scf.yield
  }
  scf.while : () -> () {
    %a = tile.load %x : !tile.ptr<i32, local> -> i32
    // expected-note @+1 {{this decision differs between threads}}
    %more = arith.cmpi slt, %a, %n : i32
    scf.condition(%more)
  } do {
    // expected-warning @+2 {{sync_threads() in control flow that threads of the block may take differently}}
    // expected-note @+1 {{hint: move it}}
    tile.barrier
    %tid = tile.sreg tid_x : i32
    tile.store %tid, %x : i32, !tile.ptr<i32, local>
    scf.yield
  }
  tile.return
}

// -----

// elect_one and a full-mask warp collective under lane-divergent control
// (warnings); with a mask naming the lanes, the collective is fine; under a
// warp-uniform condition, elect_one is fine.
tile.kernel @lanes(%n: i32) attributes {req_threads = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %full = arith.constant -1 : i32
  %tid = tile.sreg tid_x : i32
  %warp = arith.divui %tid, %c32 : i32
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %w0 {
    %e = tile.elect_one : i1
  }
  %lane = tile.sreg laneid : i32
  // expected-note @+1 {{this decision differs between lanes}}
  %low = arith.cmpi slt, %lane, %n : i32
  scf.if %low {
    // expected-warning @+2 {{elect_one() in control flow that lanes of a warp may take differently}}
    // expected-note @+1 {{hint: call it where the whole warp is converged}}
    %e = tile.elect_one : i1
  }
  // expected-note @+1 {{this decision differs between lanes}}
  %high = arith.cmpi sgt, %lane, %n : i32
  scf.if %high {
    // expected-warning @+2 {{vote_ballot() with the full-warp mask in control flow that lanes of a warp may take differently}}
    // expected-note @+1 {{hint: move it where every lane of the warp reaches it}}
    %b = tile.vote ballot %high, %full -> i32
    %m = tile.vote ballot %high, %b -> i32
  }
  tile.return
}

// -----

// A role's barrier: control is measured from the role's entry (whole
// warpgroups enter it), so a role-uniform condition is fine and a
// thread-dependent one is not.
tile.kernel @role(%n: i32) attributes {req_threads = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %wg = tile.warpgroup_id : i32
  tile.role "producer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32} {
    %big = arith.cmpi sgt, %n, %c0 : i32
    scf.if %big {
      tile.named_barrier 1, 128
    }
    %tid = tile.sreg tid_x : i32
    // expected-note @+1 {{this decision differs between threads}}
    %few = arith.cmpi slt, %tid, %n : i32
    scf.if %few {
      // expected-warning @+2 {{sync_threads() in role 'producer' in control flow that its threads may take differently: it is the role's barrier over 128 threads}}
      // expected-note @+1 {{hint: move it where every thread of the role reaches it}}
      tile.named_barrier 1, 128
    }
    tile.role_end
  }
  tile.return
}

// -----

// A multicast copy whose box origin depends on the CTA's position along the
// multicast axis (error); `block_id / cluster extent` and the position along
// another axis are the same in the whole group.
tile.kernel @multicast(%map: !tile.tensormap<f32, 2>) attributes {cluster_dims = array<i32: 2, 2, 1>} {
  %t = tile.shared_alloc {alignment = 1024 : i64, static_count = 512 : i64} -> !tile.ptr<f32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c2 = arith.constant 2 : i32
  %bx = tile.sreg ctaid_x : i32
  %q = arith.divui %bx, %c2 : i32
  // expected-error @+2 {{coordinate 1 of the box of this multicast copy_async (multicast = y) may differ between the CTAs of its multicast group: it depends on the CTA's position along y}}
  // expected-note @+1 {{hint: every CTA of the group must name the same box}}
  %by = tile.sreg ctaid_y : i32
  tile.tma_load %t, %map[%q, %by], %bar <[16, 32], swizzle = 128, panel = 32> {multicast_axis = 0 : i32} : !tile.ptr<f32, shared>, !tile.tensormap<f32, 2>, !tile.ptr<i64, shared>
  // expected-note @+1 {{the multicast copy_async whose box it is}}
  tile.tma_load %t, %map[%q, %by], %bar <[16, 32], swizzle = 128, panel = 32> {multicast_axis = 1 : i32} : !tile.ptr<f32, shared>, !tile.tensormap<f32, 2>, !tile.ptr<i64, shared>
  tile.return
}
