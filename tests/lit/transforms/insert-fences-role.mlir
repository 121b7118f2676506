// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-insert-fences))' | FileCheck %s

// Epilogue: a role's threads write a tile (a fragment store, a
// generic write) and one elected thread TMA-stores it after the role's named
// barrier: fence.proxy.async goes right before that tile.named_barrier, where
// every writer runs it (not before the store, where only the issuer would).
// CHECK-LABEL: tile.kernel @role_tma_store
// CHECK: tile.frag_store_tile
// CHECK-NEXT: tile.fence_proxy_async
// CHECK-SAME: tile.sync
// CHECK-NEXT: tile.named_barrier 1, 128
// CHECK: scf.if
// CHECK-NOT: tile.fence_proxy_async
// CHECK: tile.tma_store
tile.kernel @role_tma_store(%map: !tile.tensormap<f16, 2>) attributes {req_threads = array<i32: 128, 1, 1>} {
  %t = tile.shared_alloc {alignment = 1024 : i64, static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "epi"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32} {
    %f = tile.frag_zeros : !tile.frag<64x64xf16>
    %tid = tile.sreg tid_x : i32
    %c0 = arith.constant 0 : i32
    tile.frag_store_tile %f, %t[%c0], %tid <[64, 64], swizzle = 128, panel = 64> : !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
    tile.named_barrier 1, 128
    %e = tile.elect_one : i1
    scf.if %e {
      tile.tma_store %map[%c0, %c0], %t <[64, 64], swizzle = 128, panel = 64> : !tile.tensormap<f16, 2>, !tile.ptr<f16, shared>
    }
    tile.role_end
  }
  tile.return
}

// A tile one role writes and hands to another through a flag (a release
// store after the role's barrier, an acquire load in the reader) that the
// reader TMA-stores: the writers' fence goes before their named barrier,
// which orders them before the one-thread release; the reader gets none.
// CHECK-LABEL: tile.kernel @flag_to_tma_store
// CHECK: tile.store %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: tile.fence_proxy_async
// CHECK-SAME: tile.sync = "fence.proxy.async.shared::cta: generic writes of a tile before the release store that releases them
// CHECK-NEXT: tile.named_barrier 1, 128
// CHECK: tile.role "storer"
// CHECK-NOT: tile.fence_proxy_async
// CHECK: tile.tma_store
tile.kernel @flag_to_tma_store(%map: !tile.tensormap<f32, 2>) attributes {req_threads = array<i32: 256, 1, 1>} {
  %t = tile.shared_alloc {alignment = 128 : i64, static_count = 128 : i64} -> !tile.ptr<f32, shared>
  %flag = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %wg = tile.warpgroup_id : i32
  tile.role "writer"(%wg) attributes {barrier_id = 1 : i32, first_warpgroup = 0 : i32, num_warpgroups = 1 : i32} {
    %tid = tile.sreg tid_x : i32
    %p = tile.ptr_add %t, %tid : !tile.ptr<f32, shared>, i32
    %one = arith.constant 1.0 : f32
    tile.store %one, %p : f32, !tile.ptr<f32, shared>
    tile.named_barrier 1, 128
    %c0 = arith.constant 0 : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first {
      %c1 = arith.constant 1 : i32
      tile.store %c1, %flag {order = #tile<order release>, scope = #tile<scope cta>} : i32, !tile.ptr<i32, shared>
    }
    tile.role_end
  }
  tile.role "storer"(%wg) attributes {barrier_id = 2 : i32, first_warpgroup = 1 : i32, num_warpgroups = 1 : i32} {
    %f = tile.load %flag {order = #tile<order acquire>, scope = #tile<scope cta>} : !tile.ptr<i32, shared> -> i32
    %c0 = arith.constant 0 : i32
    tile.tma_store %map[%c0, %c0], %t <[4, 32], swizzle = 0, panel = 32> : !tile.tensormap<f32, 2>, !tile.ptr<f32, shared>
    tile.role_end
  }
  tile.return
}
