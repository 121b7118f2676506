// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-check-role-handoffs))' -split-input-file -verify-diagnostics

// tile-check-role-handoffs: a shared tile one role writes with plain stores
// and another reads needs a chain of mbarrier arrives (after the writes) and
// waits (before the read) between them; roles run at the same time.

// The writer arrives after its store, the reader waits before its load.
tile.kernel @handed_over(%out: !tile.ptr<f32, global>) attributes {req_threads = array<i32: 256, 1, 1>} {
  %t = tile.shared_alloc {static_count = 128 : i64} -> !tile.ptr<f32, shared>
  %full = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "writer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    tile.mbarrier_arrive %full : !tile.ptr<i64, shared>
    tile.role_end
  }
  tile.role "reader"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    tile.mbarrier_wait %full : !tile.ptr<i64, shared>
    %tid = tile.sreg tid_x : i32
    %c128 = arith.constant 128 : i32
    %i = arith.subi %tid, %c128 : i32
    %p = tile.ptr_add %t, %i : !tile.ptr<f32, shared>, i32
    %v = tile.load %p : !tile.ptr<f32, shared> -> f32
    %q = tile.ptr_add %out, %i : !tile.ptr<f32, global>, i32
    tile.store %v, %q : f32, !tile.ptr<f32, global>
    tile.role_end
  }
  tile.return
}

// -----

// No mbarrier at all: a warning at the read, notes at the write and the tile.
tile.kernel @unordered(%out: !tile.ptr<f32, global>) attributes {req_threads = array<i32: 256, 1, 1>} {
  // expected-note @below {{the tile is declared here}}
  %t = tile.shared_alloc {static_count = 128 : i64} -> !tile.ptr<f32, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "writer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    // expected-note @below {{written here in role 'writer'}}
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    tile.named_barrier 1, 128
    tile.role_end
  }
  tile.role "reader"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %c128 = arith.constant 128 : i32
    %i = arith.subi %tid, %c128 : i32
    %p = tile.ptr_add %t, %i : !tile.ptr<f32, shared>, i32
    // expected-warning @below {{role 'reader' reads a shared tile that role 'writer' writes, with no mbarrier or release/acquire flag between the writes and this read}}
    // expected-note @below {{hint: arrive(bar) in 'writer' after the writes and wait(bar) in 'reader' before the read}}
    %v = tile.load %p : !tile.ptr<f32, shared> -> f32
    %q = tile.ptr_add %out, %i : !tile.ptr<f32, global>, i32
    tile.store %v, %q : f32, !tile.ptr<f32, global>
    tile.role_end
  }
  tile.return
}

// -----

// A chain through a third role (writer -> relay -> reader) orders the writes;
// the relaxed load and the atomic synchronise by themselves.
tile.kernel @chained(%out: !tile.ptr<f32, global>) attributes {req_threads = array<i32: 384, 1, 1>} {
  %t = tile.shared_alloc {static_count = 128 : i64} -> !tile.ptr<f32, shared>
  %flag = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %m1 = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %m2 = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "writer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    %c1 = arith.constant 1 : i32
    %old = tile.atomic_rmw add %flag, %c1 : !tile.ptr<i32, shared>, i32
    tile.mbarrier_arrive %m1 : !tile.ptr<i64, shared>
    tile.role_end
  }
  tile.role "relay"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    tile.mbarrier_wait %m1 : !tile.ptr<i64, shared>
    tile.mbarrier_arrive %m2 : !tile.ptr<i64, shared>
    tile.role_end
  }
  tile.role "reader"(%wg) attributes {barrier_id = 3 : i32, first_warpgroup = 2 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %f = tile.load %flag {order = #tile<order relaxed>, scope = #tile<scope cta>} : !tile.ptr<i32, shared> -> i32
    tile.mbarrier_wait %m2 : !tile.ptr<i64, shared>
    %tid = tile.sreg tid_x : i32
    %c256 = arith.constant 256 : i32
    %i = arith.subi %tid, %c256 : i32
    %p = tile.ptr_add %t, %i : !tile.ptr<f32, shared>, i32
    %v = tile.load %p : !tile.ptr<f32, shared> -> f32
    %q = tile.ptr_add %out, %i : !tile.ptr<f32, global>, i32
    tile.store %v, %q : f32, !tile.ptr<f32, global>
    tile.role_end
  }
  tile.return
}

// -----

// Each role in its own part of one allocation (elements 0..127 and
// 128..255, bounded from the roles' thread ids): no race.
tile.kernel @disjoint(%out: !tile.ptr<f32, global>) attributes {req_threads = array<i32: 256, 1, 1>} {
  %t = tile.shared_alloc {static_count = 256 : i64} -> !tile.ptr<f32, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "a"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    tile.role_end
  }
  tile.role "b"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %v = tile.load %p : !tile.ptr<f32, shared> -> f32
    tile.role_end
  }
  tile.return
}

// -----

// A flag written with release order after the writes and read with acquire
// order before the read hands the tile over as an mbarrier does.
tile.kernel @flag_handoff(%out: !tile.ptr<f32, global>) attributes {req_threads = array<i32: 256, 1, 1>} {
  %t = tile.shared_alloc {static_count = 128 : i64} -> !tile.ptr<f32, shared>
  %flag = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "writer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    %c1 = arith.constant 1 : i32
    tile.store %c1, %flag {order = #tile<order release>, scope = #tile<scope cta>} : i32, !tile.ptr<i32, shared>
    tile.role_end
  }
  tile.role "reader"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %f = tile.load %flag {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i32, shared> -> i32
    %tid = tile.sreg tid_x : i32
    %c128 = arith.constant 128 : i32
    %i = arith.subi %tid, %c128 : i32
    %p = tile.ptr_add %t, %i : !tile.ptr<f32, shared>, i32
    %v = tile.load %p : !tile.ptr<f32, shared> -> f32
    %q = tile.ptr_add %out, %i : !tile.ptr<f32, global>, i32
    tile.store %v, %q : f32, !tile.ptr<f32, global>
    tile.role_end
  }
  tile.return
}

// -----

// The release is on one flag, the acquire on another: no handoff.
tile.kernel @other_flag(%out: !tile.ptr<f32, global>) attributes {req_threads = array<i32: 256, 1, 1>} {
  // expected-note @below {{the tile is declared here}}
  %t = tile.shared_alloc {static_count = 128 : i64} -> !tile.ptr<f32, shared>
  %flag = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %go = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "writer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    // expected-note @below {{written here in role 'writer'}}
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    %c1 = arith.constant 1 : i32
    tile.store %c1, %flag {order = #tile<order release>, scope = #tile<scope cta>} : i32, !tile.ptr<i32, shared>
    tile.role_end
  }
  tile.role "reader"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32, regs = 128 : i32} {
    %f = tile.load %go {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i32, shared> -> i32
    %tid = tile.sreg tid_x : i32
    %c128 = arith.constant 128 : i32
    %i = arith.subi %tid, %c128 : i32
    %p = tile.ptr_add %t, %i : !tile.ptr<f32, shared>, i32
    // expected-warning @below {{role 'reader' reads a shared tile that role 'writer' writes, with no mbarrier or release/acquire flag between the writes and this read}}
    // expected-note @below {{hint: arrive(bar) in 'writer' after the writes}}
    %v = tile.load %p : !tile.ptr<f32, shared> -> f32
    %q = tile.ptr_add %out, %i : !tile.ptr<f32, global>, i32
    tile.store %v, %q : f32, !tile.ptr<f32, global>
    tile.role_end
  }
  tile.return
}
