// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-dsmem-lifetime{check-only}))' -split-input-file -verify-diagnostics

// tilec --no-auto-sync: the same analysis reports what it would have inserted.
tile.kernel @unordered(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.store %c0, %h : i32, !tile.ptr<i32, shared>
  %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  // expected-error @+4 {{DSMEM access is not ordered after the peer CTA initialises its shared memory}}
  // expected-note @+3 {{hint: add cluster_sync() between the shared-memory initialisation and the first remote access}}
  // expected-error @+2 {{a CTA may exit while peers still access its shared memory}}
  // expected-note @+1 {{hint: add cluster_sync() after the last remote access}}
  %old = tile.atomic_rmw add %r, %c1 {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster>, i32
  tile.return
}

// -----

// Entry ordered by the user, exit not.
tile.kernel @no_exit_barrier(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  // expected-error @+2 {{a CTA may exit while peers still access its shared memory}}
  // expected-note @+1 {{hint: add cluster_sync() after the last remote access}}
  tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
  tile.return
}

// -----

// Both barriers written: no error.
tile.kernel @ordered(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
  tile.cluster_arrive
  tile.cluster_wait
  tile.return
}
