// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// tile.frag_math log1p ... erfc and tile.frag_arith atan2 / hypot / fmod
// (FragmentToNVVM.cpp, EpilogueToNVVM.cpp): libdevice's __nv_<fn>f per
// element, one declaration per module; tilec links libdevice after this
// (tests/lit/ptx/math-libm.tile checks the PTX through ptxas). A 64 x 8
// fragment holds 4 elements per thread, a per_row value of 64 rows 2.

// CHECK-DAG: llvm.func @__nv_log1pf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_erfcf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_atan2f(f32, f32) -> f32
// CHECK-DAG: llvm.func @__nv_hypotf(f32, f32) -> f32
// CHECK-DAG: llvm.func @__nv_fmodf(f32, f32) -> f32
// CHECK-LABEL: llvm.func @libm(
// CHECK-COUNT-4: llvm.call @__nv_log1pf(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-2: llvm.call @__nv_erfcf(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-4: llvm.call @__nv_atan2f(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-COUNT-4: llvm.call @__nv_hypotf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-COUNT-4: llvm.call @__nv_fmodf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NOT: llvm.call @__nv_
// CHECK: llvm.return
tile.kernel @libm(%x: f32, %out: !tile.ptr<f32, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %rf = tile.frag_convert %r : !tile.per_row<64xi32> -> !tile.per_row<64xf32>
  %s = tile.frag_splat %x : f32 -> !tile.frag<64x8xf32>
  %a = tile.frag_math log1p %s : !tile.frag<64x8xf32>
  %e = tile.frag_math erfc %rf : !tile.per_row<64xf32>
  %b = tile.frag_arith atan2 %a, %x : !tile.frag<64x8xf32>, f32 -> !tile.frag<64x8xf32>
  %c = tile.frag_arith hypot %b, %e : !tile.frag<64x8xf32>, !tile.per_row<64xf32> -> !tile.frag<64x8xf32>
  %d = tile.frag_arith fmod %c, %b : !tile.frag<64x8xf32>, !tile.frag<64x8xf32> -> !tile.frag<64x8xf32>
  tile.frag_store %d, %out, %ld, %t : !tile.frag<64x8xf32>, !tile.ptr<f32, global>
  tile.return
}
