// RUN: tile-opt %s -split-input-file -verify-diagnostics

tile.kernel @no_cluster() {
  // expected-error @+1 {{needs a kernel launched in clusters}}
  tile.cluster_sync
  tile.return
}

// -----

// expected-error @+1 {{cluster of 32 exceeds the limit of 16}}
tile.kernel @too_big() attributes {cluster_dims = array<i32: 32>} {
  tile.return
}

// -----

// expected-error @+1 {{threads of 2048 exceeds the limit of 1024}}
tile.kernel @too_many_threads() attributes {max_threads = array<i32: 2048>} {
  tile.return
}

// -----

tile.kernel @load_release(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{a load cannot have release semantics}}
  %x = tile.load %p {order = #tile<order release>} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

tile.kernel @store_acquire(%p: !tile.ptr<i32, global>, %v: i32) {
  // expected-error @+1 {{a store cannot have acquire semantics}}
  tile.store %v, %p {order = #tile<order acquire>} : i32, !tile.ptr<i32, global>
  tile.return
}

// -----

tile.kernel @mismatch(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{value type 'f32' does not match the pointee type 'i32'}}
  %x = tile.load %p : !tile.ptr<i32, global> -> f32
  tile.return
}

// -----

tile.kernel @weak_atomic(%p: !tile.ptr<i32, global>, %v: i32) {
  // expected-error @+1 {{atomics are at least relaxed}}
  %x = tile.atomic_rmw add %p, %v {order = #tile<order weak>} : !tile.ptr<i32, global>, i32
  tile.return
}

// -----

tile.kernel @float_min(%p: !tile.ptr<f32, global>, %v: f32) {
  // expected-error @+1 {{floating-point atomics support only add and exch}}
  %x = tile.atomic_rmw min %p, %v : !tile.ptr<f32, global>, f32
  tile.return
}

// -----

tile.kernel @alloc_in_loop(%n: i32) {
  %c = arith.constant true
  scf.if %c {
    // expected-error @+1 {{must be in the entry block of a tile.kernel}}
    %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  }
  tile.return
}

// -----

tile.kernel @mapa_no_cluster(%n: i32) {
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  // expected-error @+1 {{needs a kernel launched in clusters}}
  %q = tile.mapa %s, %n : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  tile.return
}

// -----

tile.kernel @both_counts(%n: i32) {
  // expected-error @+1 {{needs exactly one of a static count or a dynamic count operand}}
  %s = tile.shared_alloc %n : i32 {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @ordered_bool(%p: !tile.ptr<i1, global>) {
  // expected-error @+1 {{accesses with a memory order need 8-, 16-, 32- or 64-bit values}}
  %x = tile.load %p {order = #tile<order relaxed>} : !tile.ptr<i1, global> -> i1
  tile.return
}
