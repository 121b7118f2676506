// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// tile.mma of fp8 tiles -> nvvm.wgmma.mma_async with k = 32 per instruction
// (K/32 per 64-row block), the operands' own types (e4m3 x e5m2 mixes), both
// K-major (A row, B col in NVVM's spelling). The descriptors are those of a
// K-major 128B tile (0x4000004000010000: LBO 16, SBO 1024, mode 1); a k32
// step moves the start 32 bytes like a k16 step of 16-bit elements.

// CHECK-LABEL: llvm.func @mma_fp8(
// CHECK: llvm.mlir.constant(4611686293305360384 : i64)
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}k = 32
// CHECK-NOT: nvvm.wgmma.mma_async
tile.kernel @mma_fp8(%n: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f8E5M2, shared>
  %row = arith.constant 0 : i32
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  tile.wgmma_fence
  %r = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 128>,
      b_layout = #tile.layout<[128, 128], swizzle = 128, panel = 128>, k = 128}
      : !tile.frag<64x128xf32>, !tile.ptr<f8E4M3FN, shared>, !tile.ptr<f8E5M2, shared>
  tile.wgmma_commit
  tile.wgmma_wait 0
  tile.return
}

// A 128-row accumulator: two row blocks per k32 step, K = 64: 4 wgmmas.
// CHECK-LABEL: llvm.func @mma_fp8_m128(
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 32>{{.*}}A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
tile.kernel @mma_fp8_m128(%n: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %row = arith.constant 0 : i32
  %acc = tile.frag_zeros : !tile.frag<128x64xf32>
  tile.wgmma_fence
  %r = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[128, 64], swizzle = 64, panel = 64>,
      b_layout = #tile.layout<[64, 64], swizzle = 64, panel = 64>, k = 64}
      : !tile.frag<128x64xf32>, !tile.ptr<f8E4M3FN, shared>, !tile.ptr<f8E4M3FN, shared>
  tile.wgmma_commit
  tile.wgmma_wait 0
  tile.return
}
