// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-dsmem-lifetime))' -split-input-file | FileCheck %s

// The lifetime rule counts a cluster barrier in a loop when every thread of
// every CTA runs the loop alike (UniformityAnalysis): a while loop over a
// `var` (a tile.local_var slot) that only cluster-uniform values reach keeps
// its barrier, so nothing is added after it.
// CHECK-LABEL: tile.kernel @while_over_uniform_var
// CHECK: scf.while
// CHECK: tile.cluster_sync
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
tile.kernel @while_over_uniform_var(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %slot = tile.local_var -> !tile.ptr<i32, local>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  tile.store %c0, %slot : i32, !tile.ptr<i32, local>
  scf.while : () -> () {
    %u = tile.load %slot : !tile.ptr<i32, local> -> i32
    %more = arith.cmpi slt, %u, %n : i32
    scf.condition(%more)
  } do {
    %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
    %u = tile.load %slot : !tile.ptr<i32, local> -> i32
    %next = arith.addi %u, %c1 : i32
    tile.store %next, %slot : i32, !tile.ptr<i32, local>
    scf.yield
  }
  tile.return
}

// -----

// The same loop over a var that a CTA's rank reaches through the loop: the
// CTAs leave it at different iterations, so the barrier in it does not
// count and the compiler adds its own after the loop.
// CHECK-LABEL: tile.kernel @while_over_rank_var
// CHECK: scf.while
// CHECK: tile.cluster_sync
// CHECK: }
// CHECK-NEXT: tile.cluster_arrive
// CHECK-NEXT: tile.cluster_wait
// CHECK-NEXT: tile.return
tile.kernel @while_over_rank_var(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %slot = tile.local_var -> !tile.ptr<i32, local>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  tile.store %c0, %slot : i32, !tile.ptr<i32, local>
  scf.while : () -> () {
    %u = tile.load %slot : !tile.ptr<i32, local> -> i32
    %more = arith.cmpi slt, %u, %n : i32
    scf.condition(%more)
  } do {
    %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
    %u = tile.load %slot : !tile.ptr<i32, local> -> i32
    %rank = tile.sreg cluster_ctarank : i32
    %next = arith.addi %u, %rank : i32
    tile.store %next, %slot : i32, !tile.ptr<i32, local>
    scf.yield
  }
  tile.return
}
