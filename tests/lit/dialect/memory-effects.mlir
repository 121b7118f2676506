// RUN: tile-opt %s --canonicalize --cse | FileCheck %s

// Memory effects of tile ops (ODS MemRead/MemWrite on the pointer operands):
// canonicalize and CSE keep every op that writes memory or synchronises.
// Only a weak load is a pure read: unused it goes, and two with no write
// between them merge, as LLVM treats a plain ld.

// CHECK-LABEL: tile.kernel @kept
tile.kernel @kept(%g: !tile.ptr<i32, global>, %x: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %rb = tile.mapa %buf, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  // An unused weak load is dropped; relaxed/acquire loads stay, unmerged.
  // CHECK-NOT: tile.load %{{.*}} : !tile.ptr<i32, global> -> i32
  %dead = tile.load %g : !tile.ptr<i32, global> -> i32
  // CHECK: tile.load %{{.*}} {order = #tile<order acquire>}
  // CHECK-NEXT: tile.load %{{.*}} {order = #tile<order acquire>}
  // CHECK-NEXT: tile.load %{{.*}} {order = #tile<order relaxed>}
  %a1 = tile.load %g {order = #tile<order acquire>} : !tile.ptr<i32, global> -> i32
  %a2 = tile.load %g {order = #tile<order acquire>} : !tile.ptr<i32, global> -> i32
  %r1 = tile.load %g {order = #tile<order relaxed>} : !tile.ptr<i32, global> -> i32
  // CHECK-NEXT: tile.store
  // CHECK-NEXT: tile.store {{.*}}order = #tile<order release>
  tile.store %x, %g : i32, !tile.ptr<i32, global>
  tile.store %x, %g {order = #tile<order release>} : i32, !tile.ptr<i32, global>
  // Unused atomics and CAS are writes: kept.
  // CHECK-NEXT: tile.atomic_rmw add
  // CHECK-NEXT: tile.atomic_cas
  %u1 = tile.atomic_rmw add %g, %x : !tile.ptr<i32, global>, i32
  %u2 = tile.atomic_cas %g, %x, %c1 : !tile.ptr<i32, global>, i32
  // mbarrier ops and st.async: kept; two identical try_waits stay two probes.
  // CHECK-NEXT: tile.mbarrier_init
  // CHECK-NEXT: tile.mbarrier_arrive
  // CHECK-NEXT: tile.mbarrier_expect_tx
  // CHECK-NEXT: tile.store_async
  // CHECK-NEXT: tile.mbarrier_try_wait
  // CHECK-NEXT: tile.mbarrier_try_wait
  // CHECK-NEXT: tile.mbarrier_wait
  tile.mbarrier_init %bar, %c1 : !tile.ptr<i64, shared>
  tile.mbarrier_arrive %bar {order = #tile<order release>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.mbarrier_expect_tx %bar, %c1 {scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.store_async (%x), %rb, %rbar : (i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  %t1 = tile.mbarrier_try_wait %bar, %c0 {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  %t2 = tile.mbarrier_try_wait %bar, %c0 {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.mbarrier_wait %bar parity %c0 {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.return
}

// Two weak loads merge when nothing writes between them; a wait, a barrier
// or a store between them keeps both.
// CHECK-LABEL: tile.kernel @weak_loads
// CHECK:      %[[A:.*]] = tile.load %[[G:.*]] : !tile.ptr<i32, global> -> i32
// CHECK-NEXT: tile.store %[[A]], %{{.*}}
// CHECK-NEXT: tile.store %[[A]], %{{.*}}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[B:.*]] = tile.load %[[G]]
// CHECK-NEXT: tile.store %[[B]]
// CHECK-NEXT: tile.mbarrier_wait
// CHECK-NEXT: %[[C:.*]] = tile.load %[[G]]
// CHECK-NEXT: tile.store %[[C]]
tile.kernel @weak_loads(%g: !tile.ptr<i32, global>, %out: !tile.ptr<i32, global>) {
  %c0 = arith.constant 0 : i32
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %v1 = tile.load %g : !tile.ptr<i32, global> -> i32
  %v2 = tile.load %g : !tile.ptr<i32, global> -> i32
  tile.store %v1, %out : i32, !tile.ptr<i32, global>
  tile.store %v2, %out : i32, !tile.ptr<i32, global>
  tile.barrier
  %v3 = tile.load %g : !tile.ptr<i32, global> -> i32
  tile.store %v3, %out : i32, !tile.ptr<i32, global>
  tile.mbarrier_wait %bar parity %c0 {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  %v4 = tile.load %g : !tile.ptr<i32, global> -> i32
  tile.store %v4, %out : i32, !tile.ptr<i32, global>
  tile.return
}
