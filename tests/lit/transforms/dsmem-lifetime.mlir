// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-dsmem-lifetime))' -split-input-file | FileCheck %s

// Histogram shape: init, remote adds, then reading what peers added.
// Entry: arrive right after the initialising loop, wait right before the first
// remote access (the sreg between them is independent work).
// Exit: arrive after the last remote access, wait before the loop that reads
// this CTA's peer-written bins.
// CHECK-LABEL: tile.kernel @histogram
// CHECK:       scf.for
// CHECK:         tile.store
// CHECK:       {{^ *}}}
// CHECK-NEXT:  tile.cluster_arrive {tile.auto, tile.sync = "cluster arrive after this CTA initialises
// CHECK-NEXT:  %[[R:.*]] = tile.sreg cluster_ctarank
// CHECK-NEXT:  tile.cluster_wait {tile.sync = "cluster wait before the first access to a peer's shared memory"}
// CHECK-NEXT:  scf.for
// CHECK:         tile.atomic_rmw
// CHECK:       {{^ *}}}
// CHECK-NEXT:  tile.cluster_arrive {tile.auto, tile.sync = "cluster arrive after this CTA's last access
// CHECK-NEXT:  %{{.*}} = arith.constant
// CHECK-NEXT:  tile.cluster_wait {tile.sync = "cluster wait before reading what peers wrote
// CHECK-NEXT:  scf.for
// CHECK:         tile.load
// CHECK-NOT:   tile.cluster
// CHECK:       tile.return
tile.kernel @histogram(%bins: !tile.ptr<i32, global>, %n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %h = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  scf.for %i = %c0 to %c64 step %c1 : i32 {
    %p = tile.ptr_add %h, %i : !tile.ptr<i32, shared>, i32
    tile.store %c0, %p : i32, !tile.ptr<i32, shared>
  }
  %rank = tile.sreg cluster_ctarank : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %peer = arith.andi %i, %c1 : i32
    %r = tile.mapa %h, %peer : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    %old = tile.atomic_rmw add %r, %c1 {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster>, i32
  }
  %c2 = arith.constant 2 : i32
  scf.for %i = %c0 to %c64 step %c1 : i32 {
    %p = tile.ptr_add %h, %i : !tile.ptr<i32, shared>, i32
    %v = tile.load %p : !tile.ptr<i32, shared> -> i32
    %g = tile.ptr_add %bins, %i : !tile.ptr<i32, global>, i32
    tile.store %v, %g : i32, !tile.ptr<i32, global>
  }
  tile.return
}

// -----

// User barriers that already order the remote accesses: nothing inserted,
// including a barrier at the end of the loop body that does the remote access.
// CHECK-LABEL: tile.kernel @covered
// CHECK-COUNT-2: tile.cluster_sync
// CHECK-NOT:   tile.cluster_arrive
// CHECK-NOT:   tile.cluster_wait
tile.kernel @covered(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.store %c0, %buf : i32, !tile.ptr<i32, shared>
  tile.cluster_sync
  scf.for %i = %c0 to %n step %c1 : i32 {
    %r = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %i, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
  }
  tile.return
}

// -----

// A remote access after a covered loop still needs its own exit barrier (the
// loop may run zero times); with nothing to read afterwards the wait sits at exit.
// CHECK-LABEL: tile.kernel @after_loop
// CHECK:       scf.for
// CHECK-NEXT:    tile.store
// CHECK-NEXT:    tile.cluster_sync
// CHECK-NEXT:  {{^ *}}}
// CHECK-NEXT:  tile.store %{{.*}}, %{{.*}} : i32, !tile.ptr<i32, cluster>
// CHECK-NEXT:  tile.cluster_arrive {tile.auto
// CHECK-NEXT:  tile.cluster_wait {tile.sync = "cluster wait before exit
// CHECK-NEXT:  tile.return
tile.kernel @after_loop(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.cluster_sync
  %r = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.store %i, %r : i32, !tile.ptr<i32, cluster>
    tile.cluster_sync
  }
  tile.store %c0, %r : i32, !tile.ptr<i32, cluster>
  tile.return
}

// -----

// No cluster, or no remote access: nothing to do.
// CHECK-LABEL: tile.kernel @local_only
// CHECK-NOT:   tile.cluster
tile.kernel @local_only() attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  tile.store %c0, %buf : i32, !tile.ptr<i32, shared>
  tile.return
}
