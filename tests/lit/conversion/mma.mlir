// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// tile.mma -> nvvm.wgmma.mma_async per (k16 step, 64-row block), with the
// descriptors built from the layouts: constant part LBO>>4 << 16 | SBO>>4 << 32
// | mode << 62 or'ed with the start address >> 4 (14 bits); fence / commit /
// wait map one to one; the fragment is a struct of f32 (or packed i32).

// CHECK-LABEL: llvm.func @mma(
// CHECK: nvvm.wgmma.fence.aligned
// K-major a (128B): 0x4000004000010000; MN-major b, two panels of 64 rows:
// LBO 8192 -> 0x4000004002000000.
// CHECK-DAG: llvm.mlir.constant(4611686293305360384 : i64)
// CHECK-DAG: llvm.mlir.constant(4611686293338849280 : i64)
// CHECK-DAG: llvm.mlir.constant(16383 : i32)
// The accumulator is zeros: the first k step has scale-d = 0 (D not read).
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}D[<f32>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: llvm.extractvalue %{{.*}}[63] : !llvm.struct<(f32
tile.kernel @mma(%n: i32) {
  %a = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f16, shared>
  %row = arith.constant 0 : i32
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  tile.wgmma_fence
  %r = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = false,
      a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x128xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.wgmma_commit
  tile.wgmma_wait 1
  %e = tile.frag_extract %r[63] : !tile.frag<64x128xf32> -> f32
  tile.return
}

// bf16, K-major b (col), M = 128: two row blocks per k step; f16 packed
// extract: register 3, high half.
// CHECK-LABEL: llvm.func @mma_bf16(
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}D[<f32>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.extractvalue %{{.*}}[3] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
tile.kernel @mma_bf16(%n: i32) {
  %a = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<bf16, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<bf16, shared>
  %row = arith.constant 0 : i32
  %acc = tile.frag_zeros : !tile.frag<128x64xf32>
  %r = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[128, 32], swizzle = 64, panel = 32>,
      b_layout = #tile.layout<[64, 32], swizzle = 64, panel = 32>, k = 32}
      : !tile.frag<128x64xf32>, !tile.ptr<bf16, shared>, !tile.ptr<bf16, shared>
  %h = tile.frag_zeros : !tile.frag<64x16xf16>
  %e = tile.frag_extract %h[7] : !tile.frag<64x16xf16> -> f16
  tile.return
}

// A column view (a_col, b_col): the start address moves col / panel whole
// panels (each rows x 128 bytes: 8192 here) plus col % panel elements
// (0 for a view of whole atoms), with the tile's LBO and SBO unchanged.
// CHECK-LABEL: llvm.func @mma_cols(
// CHECK: %[[COL:.*]] = llvm.mul %arg0, %{{.*}} : i32
// CHECK: %[[SIX:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK: %[[P:.*]] = llvm.lshr %[[COL]], %[[SIX]] : i32
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(63 : i32) : i32
// CHECK: %[[W:.*]] = llvm.and %[[COL]], %[[MASK]] : i32
// CHECK: %[[PANEL:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK: llvm.mul %[[P]], %[[PANEL]] : i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: llvm.mul %[[W]], %[[TWO]] : i32
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
tile.kernel @mma_cols(%wg: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %row = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %col = arith.muli %wg, %c64 : i32
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %r = tile.mma %acc, %a[%row, %col], %b[%row] {a_k_major = false, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}
