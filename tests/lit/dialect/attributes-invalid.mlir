// RUN: tile-opt %s -split-input-file -verify-diagnostics
// Every tile.* attribute on an op is declared, has its declared type and sits
// on an op it means something on.

tile.kernel @note_not_string(%p: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{attribute 'tile.hang_note' must be a string on a tile.mbarrier_wait or tile.sem_wait}}
  tile.mbarrier_wait %bar parity %p {order = #tile<order acquire>, scope = #tile<scope cta>, tile.hang_note = 3 : i32} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @note_not_on_a_wait(%p: i32) {
  // expected-error @+1 {{attribute 'tile.hang_note' must be a string on a tile.mbarrier_wait or tile.sem_wait}}
  %c = arith.constant {tile.hang_note = "x"} 1 : i32
  tile.return
}

// -----

tile.kernel @stage_not_unit(%p: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{attribute 'tile.hang_stage' must be a unit attribute on a tile.mbarrier_wait}}
  tile.mbarrier_wait %bar parity %p {order = #tile<order acquire>, scope = #tile<scope cta>, tile.hang_stage = "0"} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @stage_on_a_sem_wait(%counter: !tile.ptr<i64, global>, %v: i64, %i: i32) {
  // expected-error @+1 {{attribute 'tile.hang_stage' must be a unit attribute on a tile.mbarrier_wait}}
  tile.sem_wait %counter, %v index %i rank %i {semaphore = "sem", tile.hang_stage} : !tile.ptr<i64, global>
  tile.return
}

// -----

tile.kernel @host_record_not_unit() {
  // expected-error @+1 {{attribute 'tile.host_record' must be a unit attribute on a tile.hang_trap}}
  tile.hang_trap "stuck\n" {tile.host_record = 1 : i32}
  tile.return
}

// -----

tile.kernel @host_record_on_a_barrier() attributes {max_threads = array<i32: 128>} {
  // expected-error @+1 {{attribute 'tile.host_record' must be a unit attribute on a tile.hang_trap}}
  tile.barrier {tile.host_record}
  tile.return
}

// -----

tile.kernel @sync_not_string() attributes {max_threads = array<i32: 128>} {
  // expected-error @+1 {{attribute 'tile.sync' must be a string}}
  tile.barrier {tile.sync}
  tile.return
}

// -----

tile.kernel @shared_only_not_unit() attributes {max_threads = array<i32: 128>} {
  // expected-error @+1 {{attribute 'tile.shared_only' must be a unit attribute}}
  tile.barrier {tile.shared_only = true}
  tile.return
}

// -----

tile.kernel @undeclared() attributes {max_threads = array<i32: 128>} {
  // expected-error @+1 {{'tile.aligned' is not an attribute of the tile dialect}}
  tile.barrier {tile.aligned}
  tile.return
}

// -----

tile.kernel @instance_off_a_kernel() attributes {max_threads = array<i32: 128>} {
  // expected-error @+1 {{attribute 'tile.spins_on_peers' must be on a tile.kernel}}
  tile.barrier {tile.spins_on_peers}
  tile.return
}

// -----

tile.kernel @param_on_an_op() attributes {max_threads = array<i32: 128>} {
  // expected-error @+1 {{attribute 'tile.param' belongs on a tile.kernel argument}}
  tile.barrier {tile.param = {}}
  tile.return
}

// -----

// tile.exit_flag marks a thread's return/break/continue flag: a tile.local_var.
tile.kernel @exit_flag_on_a_barrier() {
  // expected-error @+1 {{attribute 'tile.exit_flag' must be a unit attribute on a tile.local_var}}
  tile.barrier {tile.exit_flag}
  tile.return
}
