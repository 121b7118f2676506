// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-split-cluster-barriers,tile-sync-semantics))' -split-input-file | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-split-cluster-barriers))' -split-input-file | FileCheck %s --check-prefix=SPLIT

// The split leaves the arrive's order open (tile.auto): relaxed vs release
// is decided by tile-sync-semantics, the one owner of sync decisions.
// SPLIT-LABEL: tile.kernel @relaxed
// SPLIT:       tile.cluster_arrive {aligned, tile.auto, tile.sync = "cluster_sync() split: arrive"}
// SPLIT-LABEL: tile.kernel @release
// SPLIT:       tile.cluster_arrive {aligned, tile.auto, tile.sync = "cluster_sync() split: arrive"}

// Nothing written generically is read afterwards (only st.async fills the
// buffer; the kernel writes global memory it never reads): relaxed arrive.
// The arrive stays after the read of the buffer (peers overwrite it after
// their wait); the wait moves down past the pure computation that follows.
// CHECK-LABEL: tile.kernel @relaxed
// CHECK:       tile.load %{{.*}} : !tile.ptr<i32, shared>
// CHECK-NEXT:  tile.store
// CHECK-NEXT:  tile.cluster_arrive {aligned, order = #tile<order relaxed>, tile.sync = "cluster_sync() split: arrive (relaxed: nothing written before it is read after the wait)"}
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.muli
// CHECK-NEXT:  tile.cluster_wait {aligned, tile.sync = "cluster_sync() split: wait"}
// CHECK-NEXT:  tile.store
// CHECK-NOT:   tile.cluster_sync
tile.kernel @relaxed(%out: !tile.ptr<i32, global>, %x: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.store_async (%x), %rb, %rbar : (i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.store %v, %out : i32, !tile.ptr<i32, global>
  tile.cluster_sync
  %a = arith.addi %x, %c1 : i32
  %m = arith.muli %a, %a : i32
  tile.store %m, %out : i32, !tile.ptr<i32, global>
  tile.return
}

// -----

// A generic write to shared memory that is read after the barrier: release.
// Pure computation before the barrier lets the arrive move up past it.
// CHECK-LABEL: tile.kernel @release
// CHECK:       tile.store %{{.*}} : i32, !tile.ptr<i32, shared>
// CHECK-NEXT:  tile.cluster_arrive {aligned, order = #tile<order release>, tile.sync = "cluster_sync() split: arrive (release: memory written before it is read after the wait)"}
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  tile.cluster_wait
// CHECK-NEXT:  tile.load
tile.kernel @release(%x: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  tile.store %x, %buf : i32, !tile.ptr<i32, shared>
  %a = arith.addi %x, %x : i32
  tile.cluster_sync
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.return
}

// -----

// User-written arrive/wait keep their semantics; mbarrier operations the source
// left open get the weakest correct ones.
// CHECK-LABEL: tile.kernel @mbarriers
// CHECK:       tile.cluster_arrive {aligned, order = #tile<order release>}
// CHECK-NEXT:  tile.cluster_wait {aligned}
// CHECK:       tile.mbarrier_arrive %{{.*}} expect_tx %{{.*}} {order = #tile<order relaxed>, scope = #tile<scope cluster>
// CHECK:       tile.mbarrier_expect_tx %{{.*}} {scope = #tile<scope cluster>}
// CHECK:       tile.mbarrier_arrive %{{.*}} {order = #tile<order release>, scope = #tile<scope cta>} :
// CHECK:       tile.mbarrier_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>, tile.sync = "mbarrier wait: acquire.cluster
// CHECK:       tile.mbarrier_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cta>} :
tile.kernel @mbarriers(%x: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %local = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  tile.cluster_arrive
  tile.cluster_wait
  tile.mbarrier_arrive %bar expect_tx %c4 : !tile.ptr<i64, shared>
  tile.mbarrier_expect_tx %bar, %c4 : !tile.ptr<i64, shared>
  tile.mbarrier_arrive %local {order = #tile<order release>} : !tile.ptr<i64, shared>
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.store_async (%x), %rb, %rbar : (i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  tile.mbarrier_wait %bar : !tile.ptr<i64, shared>
  tile.mbarrier_wait %local : !tile.ptr<i64, shared>
  tile.return
}

// -----

// Barriers under thread-dependent control flow stay unaligned (the warp may be
// split); under a uniform loop (bounds from parameters) they are aligned.
// CHECK-LABEL: tile.kernel @divergence
// CHECK:       scf.if
// CHECK-NEXT:    tile.cluster_arrive {order = #tile<order relaxed>, tile.sync
// CHECK-NEXT:    tile.cluster_wait {tile.sync
// CHECK:       scf.for
// CHECK-NEXT:    tile.cluster_arrive {aligned
// CHECK-NEXT:    tile.cluster_wait {aligned
tile.kernel @divergence(%n: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %tid = tile.sreg tid_x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  scf.if %first {
    tile.cluster_sync
  }
  %bid = tile.sreg ctaid_x : i32
  %end = arith.addi %n, %bid : i32
  scf.for %i = %c0 to %end step %c1 : i32 {
    tile.cluster_sync
  }
  tile.return
}
