// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-insert-fences,tile-dsmem-lifetime,tile-split-cluster-barriers,tile-sync-semantics))' -split-input-file | FileCheck %s

// A new op joins every sync rule by implementing the op interfaces of
// TileInterfaces.td, without any pass naming it: tile_test ops (a test-only
// dialect of tile-opt) get exactly the decisions of the built-in op whose
// semantics they declare. Each pair below has the same CHECK lines.

// --- An async-proxy write into a peer's shared memory that completes
// transaction bytes on the peer's mbarrier (what st.async declares).
// insert-fences: the mbarrier is peer-completed, so its init is fenced;
// dsmem-lifetime: the entry barrier follows the init and its fence; the write
// is a remote access; sync-semantics: the wait is acquire.cluster; relaxation:
// the async write is not a generic one, so the split arrive is relaxed.

// CHECK-LABEL: tile.kernel @builtin_st_async
// CHECK:       tile.mbarrier_init
// CHECK-NEXT:  tile.fence_mbarrier_init
// CHECK-NEXT:  tile.cluster_arrive {aligned, order = #tile<order relaxed>, tile.sync = "cluster arrive after this CTA initialises
// CHECK:       tile.cluster_wait {aligned, tile.sync = "cluster wait before the first access to a peer's shared memory"}
// CHECK-NEXT:  tile.store_async
// CHECK-NEXT:  tile.mbarrier_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>
// CHECK:       tile.cluster_arrive {aligned, order = #tile<order relaxed>, tile.sync = "cluster_sync() split: arrive (relaxed
tile.kernel @builtin_st_async(%x: i32, %out: !tile.ptr<i32, global>) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.store_async (%x), %rb, %rbar : (i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  tile.mbarrier_wait %bar : !tile.ptr<i64, shared>
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.store %v, %out : i32, !tile.ptr<i32, global>
  tile.cluster_sync
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @test_async_write_tx
// CHECK:       tile.mbarrier_init
// CHECK-NEXT:  tile.fence_mbarrier_init
// CHECK-NEXT:  tile.cluster_arrive {aligned, order = #tile<order relaxed>, tile.sync = "cluster arrive after this CTA initialises
// CHECK:       tile.cluster_wait {aligned, tile.sync = "cluster wait before the first access to a peer's shared memory"}
// CHECK-NEXT:  tile_test.async_write_tx
// CHECK-NEXT:  tile.mbarrier_wait %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>
// CHECK:       tile.cluster_arrive {aligned, order = #tile<order relaxed>, tile.sync = "cluster_sync() split: arrive (relaxed
tile.kernel @test_async_write_tx(%x: i32, %out: !tile.ptr<i32, global>) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile_test.async_write_tx %x, %rb, %rbar : !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  tile.mbarrier_wait %bar : !tile.ptr<i64, shared>
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.store %v, %out : i32, !tile.ptr<i32, global>
  tile.cluster_sync
  tile.return
}

// -----

// --- A weak generic-proxy write into a peer's shared memory (what a store
// through a shared::cluster pointer declares). dsmem-lifetime: entry barrier
// before it; split: the arrive moves up past the addition but not past the
// write (it is not pure computation); relaxation: peer memory is written and
// read generically, so the arrive is a release.

// CHECK-LABEL: tile.kernel @builtin_remote_store
// CHECK:       tile.cluster_arrive {aligned, order = #tile<order release>, tile.sync = "cluster arrive after
// CHECK-NEXT:  tile.cluster_wait {aligned, tile.sync = "cluster wait before the first access to a peer's shared memory"}
// CHECK-NEXT:  tile.store %{{.*}} : i32, !tile.ptr<i32, cluster>
// CHECK-NEXT:  tile.cluster_arrive {aligned, order = #tile<order release>, tile.sync = "cluster_sync() split: arrive (release
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  tile.cluster_wait
// CHECK-NEXT:  tile.load
tile.kernel @builtin_remote_store(%x: i32, %out: !tile.ptr<i32, global>) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %c1 = arith.constant 1 : i32
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  tile.store %x, %rb : i32, !tile.ptr<i32, cluster>
  %a = arith.addi %x, %c1 : i32
  tile.cluster_sync
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.store %v, %out : i32, !tile.ptr<i32, global>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @test_generic_write
// CHECK:       tile.cluster_arrive {aligned, order = #tile<order release>, tile.sync = "cluster arrive after
// CHECK-NEXT:  tile.cluster_wait {aligned, tile.sync = "cluster wait before the first access to a peer's shared memory"}
// CHECK-NEXT:  tile_test.generic_write %{{.*}} : !tile.ptr<i32, cluster>
// CHECK-NEXT:  tile.cluster_arrive {aligned, order = #tile<order release>, tile.sync = "cluster_sync() split: arrive (release
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  tile.cluster_wait
// CHECK-NEXT:  tile.load
tile.kernel @test_generic_write(%x: i32, %out: !tile.ptr<i32, global>) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %c1 = arith.constant 1 : i32
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  tile_test.generic_write %x, %rb : !tile.ptr<i32, cluster>
  %a = arith.addi %x, %c1 : i32
  tile.cluster_sync
  %v = tile.load %buf : !tile.ptr<i32, shared> -> i32
  tile.store %v, %out : i32, !tile.ptr<i32, global>
  tile.return
}
