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
