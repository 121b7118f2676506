// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// tile.mma of i8 tiles into an i32 accumulator -> nvvm.wgmma.mma_async with
// k = 32 per instruction (K/32 per 64-row block), D s32 without an overflow
// mode (wgmma's s32 sums wrap: no .satfinite), A and B .s8 or .u8 from the
// op's a_unsigned / b_unsigned (i8 is signless), both K-major (A row, B col
// in NVVM's spelling). The accumulator is a struct of 32-bit integer
// registers. The descriptors are those of a K-major 128B tile, as for fp8.

// CHECK-LABEL: llvm.func @mma_s8(
// CHECK: llvm.mlir.constant(4611686293305360384 : i64)
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<s32>, <zero>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32, i32,
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}k = 32>, D[<s32>, <one>], A[<s8>
// CHECK-NOT: nvvm.wgmma.mma_async
tile.kernel @mma_s8(%n: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<i8, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<i8, shared>
  %row = arith.constant 0 : i32
  %acc = tile.frag_zeros : !tile.frag<64x128xi32>
  tile.wgmma_fence
  %r = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 128>,
      b_layout = #tile.layout<[128, 128], swizzle = 128, panel = 128>, k = 128}
      : !tile.frag<64x128xi32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  tile.wgmma_commit
  tile.wgmma_wait 0
  tile.return
}

// The signedness of each operand: u8 x s8, s8 x u8, u8 x u8.
// CHECK-LABEL: llvm.func @mma_signedness(
// CHECK: nvvm.wgmma.mma_async {{.*}}D[<s32>, <zero>], A[<u8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}}D[<s32>, <zero>], A[<s8>, <one>, <row>], B[<u8>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}}D[<s32>, <zero>], A[<u8>, <one>, <row>], B[<u8>, <one>, <col>]
tile.kernel @mma_signedness(%n: i32) {
  %a = tile.shared_alloc {static_count = 2048 : i64} -> !tile.ptr<i8, shared>
  %b = tile.shared_alloc {static_count = 2048 : i64} -> !tile.ptr<i8, shared>
  %row = arith.constant 0 : i32
  %acc = tile.frag_zeros : !tile.frag<64x64xi32>
  tile.wgmma_fence
  %r0 = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true, a_unsigned,
      a_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>,
      b_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>, k = 32}
      : !tile.frag<64x64xi32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  %r1 = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true, b_unsigned,
      a_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>,
      b_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>, k = 32}
      : !tile.frag<64x64xi32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  %r2 = tile.mma %acc, %a[%row], %b[%row] {a_k_major = true, b_k_major = true, a_unsigned,
      b_unsigned, a_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>,
      b_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>, k = 32}
      : !tile.frag<64x64xi32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  tile.wgmma_commit
  tile.wgmma_wait 0
  tile.return
}

// An i32 fragment stored through a pointer: one st.v2 of two i32 per
// column pair (<2 x i32>, 8-byte aligned), as an f32 fragment's <2 x f32>.
// CHECK-LABEL: llvm.func @store_i32(
// CHECK: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<1>
// CHECK-NOT: vector<2xf32>
tile.kernel @store_i32(%p: !tile.ptr<i32, global>) {
  %acc = tile.frag_zeros : !tile.frag<64x8xi32>
  %ld = arith.constant 8 : i64
  %t = tile.sreg tid_x : i32
  tile.frag_store %acc, %p, %ld, %t : !tile.frag<64x8xi32>, !tile.ptr<i32, global>
  tile.return
}
