// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-dsmem-lifetime))' -split-input-file | FileCheck %s
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-dsmem-lifetime{check-only}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=CHECKONLY

// A cluster barrier counts for the exit rule only where every thread of every
// CTA of the cluster executes it. Under a rank test the CTAs that skip it may
// exit while peers still write into them: the pass adds its own arrive/wait.

// CHECK-LABEL: tile.kernel @rank_dependent
// CHECK: scf.if
// CHECK: tile.cluster_sync
// CHECK: }
// CHECK-NEXT: tile.cluster_arrive
// CHECK-SAME: tile.sync = "cluster arrive after this CTA's last access to a peer's shared memory"
// CHECK-NEXT: tile.cluster_wait
// CHECK-NEXT: tile.return
// CHECKONLY: dsmem-lifetime-divergent.mlir:26:5: error: a CTA may exit while peers still access its shared memory
tile.kernel @rank_dependent(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %rank = tile.sreg cluster_ctarank : i32
  %first = arith.cmpi eq, %rank, %c0 : i32
  scf.if %first {
    %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
  }
  tile.return
}

// -----

// The same under a thread test.
// CHECK-LABEL: tile.kernel @thread_dependent
// CHECK: scf.if
// CHECK: tile.cluster_sync
// CHECK: }
// CHECK-NEXT: tile.cluster_arrive
// CHECK-NEXT: tile.cluster_wait
// CHECKONLY: dsmem-lifetime-divergent.mlir:51:5: error: a CTA may exit while peers still access its shared memory
tile.kernel @thread_dependent(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %tid = tile.sreg tid_x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  scf.if %first {
    %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
  }
  tile.return
}

// -----

// A condition every thread of the cluster decides alike (a kernel parameter,
// the cluster id) keeps the barrier: nothing is added.
// CHECK-LABEL: tile.kernel @cluster_uniform
// CHECK: scf.if
// CHECK: tile.cluster_sync
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
tile.kernel @cluster_uniform(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %cid = tile.sreg clusterid_x : i32
  %s = arith.addi %cid, %n : i32
  %go = arith.cmpi sgt, %s, %c0 : i32
  scf.if %go {
    %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
  }
  tile.return
}

// -----

// A loop whose trip count differs between CTAs (bounded by the rank).
// CHECK-LABEL: tile.kernel @rank_loop
// CHECK: scf.for
// CHECK: tile.cluster_sync
// CHECK: }
// CHECK-NEXT: tile.cluster_arrive
// CHECK-NEXT: tile.cluster_wait
// CHECKONLY: dsmem-lifetime-divergent.mlir:100:5: error: a CTA may exit while peers still access its shared memory
tile.kernel @rank_loop(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %rank = tile.sreg cluster_ctarank : i32
  scf.for %i = %c0 to %rank step %c1 : i32 {
    %r = tile.mapa %h, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %c1, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
  }
  tile.return
}
// CHECKONLY-NOT: error
