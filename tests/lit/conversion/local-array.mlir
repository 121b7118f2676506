// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// Register arrays (LocalArrayToLLVM.cpp): one alloca of the whole array in
// the generic (local) address space, 16-byte aligned so that an array left in
// local memory can be read with vector loads; element accesses are GEPs that
// SROA turns into registers when every index is a constant.

// CHECK-LABEL: llvm.func @arrays(
// CHECK-SAME: %{{.*}}: i32, %[[V:.*]]: f32)
tile.kernel @arrays(%i: i32, %v: f32) {
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[R:.*]] = llvm.alloca %[[ONE]] x !llvm.array<4 x f32> {alignment = 16 : i64} : (i32) -> !llvm.ptr
  %r = tile.local_array "r"[4] -> !tile.ptr<f32, local>
  // CHECK: %[[T:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64> {alignment = 16 : i64} : (i32) -> !llvm.ptr
  %t = tile.local_array "t"[2] -> !tile.ptr<i64, local>
  %c1 = arith.constant 1 : i32
  // CHECK: %[[P:.*]] = llvm.getelementptr %[[R]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
  // CHECK: llvm.store %[[V]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr
  %p = tile.ptr_add %r, %c1 : !tile.ptr<f32, local>, i32
  tile.store %v, %p : f32, !tile.ptr<f32, local>
  // CHECK: llvm.getelementptr %[[T]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i64
  %q = tile.ptr_add %t, %i : !tile.ptr<i64, local>, i32
  %x = tile.load %q : !tile.ptr<i64, local> -> i64
  tile.return
}
