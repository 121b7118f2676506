// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-insert-fences))' -split-input-file | FileCheck %s

// st.async completes %bar in a peer: one fence after the last init of the
// block, executed by the init thread.
// CHECK-LABEL: tile.kernel @st_async
// CHECK:       scf.if
// CHECK-NEXT:    tile.mbarrier_init %[[A:.*]], %{{.*}}
// CHECK-NEXT:    tile.mbarrier_init
// CHECK-NEXT:    tile.fence_mbarrier_init {tile.sync = "fence.mbarrier_init.release.cluster: a peer or st.async completes this mbarrier"}
// CHECK-NEXT:  }
// CHECK-NOT:   tile.fence_mbarrier_init
tile.kernel @st_async(%x: i32, %first: i1) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %other = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  scf.if %first {
    tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
    tile.mbarrier_init %other, %c1 : !tile.ptr<i64, shared>
  }
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.store_async (%x), %rb, %rbar : (i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  tile.return
}

// -----

// A remote arrive needs the fence too; an existing fence is not duplicated.
// CHECK-LABEL: tile.kernel @remote_arrive
// CHECK:       tile.mbarrier_init
// CHECK-NEXT:  tile.fence_mbarrier_init{{$}}
// CHECK-NOT:   tile.fence_mbarrier_init
tile.kernel @remote_arrive() attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
  tile.fence_mbarrier_init
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.mbarrier_arrive %rbar : !tile.ptr<i64, cluster>
  tile.return
}

// -----

// Only this CTA's threads use the mbarrier: the CTA barrier after the init is
// enough, no fence.
// CHECK-LABEL: tile.kernel @local
// CHECK-NOT:   tile.fence_mbarrier_init
tile.kernel @local() {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
  tile.barrier
  tile.mbarrier_arrive %bar : !tile.ptr<i64, shared>
  tile.return
}

// -----

// The user's fence after the `if` that holds the init (MLIRGen puts inits
// under `if thread_id() == 0`) is run by the init thread after the init:
// no second fence inside the `if`.
// CHECK-LABEL: tile.kernel @fence_after_enclosing_if
// CHECK:       scf.if
// CHECK-NEXT:    tile.mbarrier_init
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.fence_mbarrier_init{{$}}
// CHECK-NOT:   tile.fence_mbarrier_init
tile.kernel @fence_after_enclosing_if(%first: i1) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  scf.if %first {
    tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
  }
  tile.fence_mbarrier_init
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.mbarrier_arrive %rbar : !tile.ptr<i64, cluster>
  tile.return
}
