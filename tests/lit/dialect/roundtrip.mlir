// RUN: tile-opt %s | tile-opt | FileCheck %s
// Every tile op prints in a form it parses back.

// CHECK-LABEL: tile.kernel @all_ops(
// CHECK-SAME: attributes {cluster_dims = array<i32: 2>, max_threads = array<i32: 256>}
tile.kernel @all_ops(%g: !tile.ptr<i32, global>, %n: i32) attributes {cluster_dims = array<i32: 2>, max_threads = array<i32: 256>} {
  // CHECK: tile.shared_alloc %{{.*}} : i32 -> !tile.ptr<i32, shared>
  %s = tile.shared_alloc %n : i32 -> !tile.ptr<i32, shared>
  // CHECK: tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<f32, shared>
  %f = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<f32, shared>
  // CHECK: tile.local_var -> !tile.ptr<i64, local>
  %v = tile.local_var -> !tile.ptr<i64, local>
  // CHECK: tile.sreg cluster_ctarank : i32
  %r = tile.sreg cluster_ctarank : i32
  // CHECK: tile.ptr_add %{{.*}}, %{{.*}} : !tile.ptr<i32, shared>, i32
  %p = tile.ptr_add %s, %r : !tile.ptr<i32, shared>, i32
  // CHECK: tile.mapa %{{.*}}, %{{.*}} : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %q = tile.mapa %p, %r : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  // CHECK: tile.load %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>} : !tile.ptr<i32, cluster> -> i32
  %x = tile.load %q {order = #tile<order acquire>, scope = #tile<scope cluster>} : !tile.ptr<i32, cluster> -> i32
  // CHECK: tile.store %{{.*}}, %{{.*}} : i32, !tile.ptr<i32, global>
  tile.store %x, %g : i32, !tile.ptr<i32, global>
  // CHECK: tile.atomic_rmw max %{{.*}}, %{{.*}} {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster>, i32
  %o = tile.atomic_rmw max %q, %x {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster>, i32
  // CHECK: tile.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} {order = #tile<order acq_rel>} : !tile.ptr<i32, global>, i32
  %c = tile.atomic_cas %g, %x, %o {order = #tile<order acq_rel>} : !tile.ptr<i32, global>, i32
  // CHECK: tile.barrier
  tile.barrier
  // CHECK: tile.cluster_sync
  tile.cluster_sync
  // CHECK: tile.cluster_arrive {order = #tile<order relaxed>}
  tile.cluster_arrive {order = #tile<order relaxed>}
  // CHECK: tile.cluster_wait
  tile.cluster_wait
  tile.return
}

// CHECK-LABEL: tile.kernel @dynamic_cluster(
// CHECK-SAME: cluster_dynamic
tile.kernel @dynamic_cluster() attributes {cluster_dynamic} {
  tile.cluster_sync
  tile.return
}

// A barrier that reduces a predicate (barrier.red): `reduce KIND %p : T`,
// the CTA's and a named barrier's.
// CHECK-LABEL: tile.kernel @barrier_reduce(
// CHECK: %{{.*}} = tile.barrier reduce popc %[[P:.*]] : i32
// CHECK: %{{.*}} = tile.barrier reduce and %[[P]] : i1 {aligned}
// CHECK: %{{.*}} = tile.named_barrier 1, 128 reduce or %[[P]] : i1
// CHECK: tile.named_barrier 1, 128{{$}}
// CHECK: tile.barrier{{$}}
tile.kernel @barrier_reduce(%p: i1) {
  %n = tile.barrier reduce popc %p : i32
  %a = tile.barrier reduce and %p : i1 {aligned}
  %o = tile.named_barrier 1, 128 reduce or %p : i1
  tile.named_barrier 1, 128
  tile.barrier
  tile.return
}
