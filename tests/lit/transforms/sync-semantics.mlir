// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-sync-semantics))' -split-input-file | FileCheck %s

// tile-sync-semantics on its own: every order and scope the source left open
// is decided here (and only here); what the source wrote is kept.

// An mbarrier a peer completes (the remote arrive names it through mapa):
// its ops are .cluster. Nothing generic is written and read: open arrives
// are relaxed. Waits and try_waits are acquire.
// CHECK-LABEL: tile.kernel @peer_completed
// CHECK:       tile.mbarrier_arrive %{{.*}} {order = #tile<order relaxed>, scope = #tile<scope cluster>, tile.sync = "mbarrier arrive: relaxed (nothing written before it is read after the wait)"} : !tile.ptr<i64, cluster>
// CHECK:       tile.mbarrier_expect_tx %{{.*}} {scope = #tile<scope cluster>}
// CHECK:       tile.mbarrier_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>, tile.sync = "mbarrier wait: acquire.cluster
// CHECK:       tile.mbarrier_try_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>
// Written by the source: kept as written.
// CHECK:       tile.mbarrier_wait %{{.*}} {order = #tile<order relaxed>, scope = #tile<scope cluster>} :
tile.kernel @peer_completed(%x: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.mbarrier_arrive %rbar : !tile.ptr<i64, cluster>
  tile.mbarrier_expect_tx %bar, %c1 : !tile.ptr<i64, shared>
  tile.mbarrier_wait %bar parity %c0 : !tile.ptr<i64, shared>
  %done = tile.mbarrier_try_wait %bar, %c0 : !tile.ptr<i64, shared>
  tile.mbarrier_wait %bar parity %c0 {order = #tile<order relaxed>, scope = #tile<scope cluster>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

// Only this CTA completes the mbarrier: .cta. Shared memory is written and
// read generically: open arrives (mbarrier and compiler-inserted cluster
// arrives) are release; tile.auto is consumed.
// CHECK-LABEL: tile.kernel @local_publishing
// CHECK:       tile.mbarrier_arrive %{{.*}} {order = #tile<order release>, scope = #tile<scope cta>, tile.sync = "mbarrier arrive: release (memory written before it is read after the wait)"}
// CHECK:       tile.mbarrier_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cta>} :
// CHECK:       tile.cluster_arrive {order = #tile<order release>, tile.sync = "inserted (release: memory written before it is read after the wait)"}
// CHECK-NOT:   tile.auto
tile.kernel @local_publishing(%x: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c0 = arith.constant 0 : i32
  tile.store %x, %buf : i32, !tile.ptr<i32, shared>
  tile.mbarrier_arrive %bar : !tile.ptr<i64, shared>
  tile.mbarrier_wait %bar parity %c0 : !tile.ptr<i64, shared>
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.cluster_arrive {tile.auto, tile.sync = "inserted"}
  tile.cluster_wait
  tile.return
}

// -----

// Nothing published: a compiler-inserted cluster arrive is relaxed, but a
// cluster_arrive() the user wrote without an order keeps the language's
// default, release; a written order is kept. Fences left open are
// acq_rel.gpu; written ones are kept.
// CHECK-LABEL: tile.kernel @cluster_and_fences
// CHECK:       tile.cluster_arrive {order = #tile<order relaxed>, tile.sync = "cluster arrive (relaxed: nothing written before it is read after the wait)"}
// CHECK:       tile.cluster_arrive {order = #tile<order release>}
// CHECK:       tile.cluster_arrive {order = #tile<order relaxed>}
// CHECK:       tile.fence {order = #tile<order acq_rel>, scope = #tile<scope gpu>}
// CHECK:       tile.fence {order = #tile<order sc>, scope = #tile<scope cluster>}
// CHECK:       tile.fence {order = #tile<order acq_rel>, scope = #tile<scope sys>}
tile.kernel @cluster_and_fences() attributes {cluster_dims = array<i32: 2, 1, 1>} {
  tile.cluster_arrive {tile.auto}
  tile.cluster_wait
  tile.cluster_arrive
  tile.cluster_wait
  tile.cluster_arrive {order = #tile<order relaxed>}
  tile.cluster_wait
  tile.fence
  tile.fence {order = #tile<order sc>, scope = #tile<scope cluster>}
  tile.fence {scope = #tile<scope sys>}
  tile.return
}

// -----

// bar.sync only in warp-uniform control flow.
// CHECK-LABEL: tile.kernel @barriers
// CHECK:       tile.barrier {aligned}
// CHECK:       scf.if
// CHECK-NEXT:    tile.barrier {tile.sync = "barrier.sync 0, not bar.sync
tile.kernel @barriers() {
  tile.barrier
  %c0 = arith.constant 0 : i32
  %tid = tile.sreg tid_x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  scf.if %first {
    tile.barrier
  }
  tile.return
}
