// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --canonicalize --cse | FileCheck %s --check-prefix=PURE

// A global pointer and its address convert as ptrtoint/inttoptr of
// addrspace(1) (a global address is a generic one, PTX ISA 6.4.1). Both ops
// are pure: an unused one goes, two equal ones are one.

// CHECK-LABEL: llvm.func @k(
// PURE-LABEL: tile.kernel @k(
tile.kernel @k(%table: !tile.ptr<i64, global>, %out: !tile.ptr<f32, global>, %i: i32) {
  // CHECK: %[[E:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
  // CHECK: %[[A:.*]] = llvm.load %[[E]]
  // CHECK: %[[P:.*]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr<1>
  // CHECK: llvm.load
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
  %e = tile.ptr_add %table, %i : !tile.ptr<i64, global>, i32
  %a = tile.load %e : !tile.ptr<i64, global> -> i64
  // PURE: tile.global_ptr
  // PURE-NOT: tile.global_ptr
  %p = tile.global_ptr %a : !tile.ptr<f32, global>
  %p2 = tile.global_ptr %a : !tile.ptr<f32, global>
  %unused = tile.global_address %p2 : !tile.ptr<f32, global>
  %v = tile.load %p : !tile.ptr<f32, global> -> f32
  tile.store %v, %out : f32, !tile.ptr<f32, global>
  %back = tile.global_address %out : !tile.ptr<f32, global>
  tile.store %back, %table : i64, !tile.ptr<i64, global>
  tile.return
}
