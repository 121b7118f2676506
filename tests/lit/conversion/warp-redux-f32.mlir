// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// An f32 tile.redux (WarpToNVVM.cpp): no redux.sync .f32 on sm_90, so five
// shfl.sync.bfly steps (xor 16, 8, 4, 2, 1; c = 31, one 32-lane segment),
// each followed by an fadd without fast-math flags (never contracted) or by
// llvm.minimumnum / llvm.maximumnum, the `min`/`max` builtins' intrinsics.
// An i32 stays one redux.sync.
// CHECK-LABEL: llvm.func @redux_f32(
tile.kernel @redux_f32(%x: f32, %i: i32, %out: !tile.ptr<f32, global>, %iout: !tile.ptr<i32, global>) attributes {req_threads = array<i32: 32>} {
  %full = arith.constant -1 : i32
  // CHECK: %[[C31:.*]] = llvm.mlir.constant(31 : i32)
  // CHECK-NEXT: %[[C16:.*]] = llvm.mlir.constant(16 : i32)
  // CHECK-NEXT: %[[P16:.*]] = nvvm.shfl.sync{{ +}}bfly %{{.*}}, %arg0, %[[C16]], %[[C31]] : f32 -> f32
  // CHECK-NEXT: %[[S16:.*]] = llvm.fadd %arg0, %[[P16]] : f32
  // CHECK-NEXT: llvm.mlir.constant(8 : i32)
  // CHECK-NEXT: nvvm.shfl.sync{{ +}}bfly %{{.*}}, %[[S16]], %{{.*}}, %[[C31]] : f32 -> f32
  // CHECK-NEXT: llvm.fadd
  // CHECK-NEXT: llvm.mlir.constant(4 : i32)
  // CHECK-NEXT: nvvm.shfl.sync{{ +}}bfly
  // CHECK-NEXT: llvm.fadd
  // CHECK-NEXT: llvm.mlir.constant(2 : i32)
  // CHECK-NEXT: nvvm.shfl.sync{{ +}}bfly
  // CHECK-NEXT: llvm.fadd
  // CHECK-NEXT: llvm.mlir.constant(1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync{{ +}}bfly
  // CHECK-NEXT: llvm.fadd
  // CHECK-NOT: nvvm.redux.sync
  // CHECK-NOT: fastmath
  %s = tile.redux add %x, %full : f32
  // CHECK-COUNT-5: llvm.call_intrinsic "llvm.minimumnum"
  %lo = tile.redux min %x, %full : f32
  // CHECK-COUNT-5: llvm.call_intrinsic "llvm.maximumnum"
  %hi = tile.redux max %x, %full : f32
  // CHECK: nvvm.redux.sync add %{{.*}}, %{{.*}} : i32 -> i32
  %r = tile.redux add %i, %full : i32
  %a = arith.addf %s, %lo : f32
  %b = arith.addf %a, %hi : f32
  tile.store %b, %out : f32, !tile.ptr<f32, global>
  tile.store %r, %iout : i32, !tile.ptr<i32, global>
  tile.return
}
