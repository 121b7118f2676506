// RUN: tile-opt %s --tile-scf-to-cf-in-reverse | FileCheck %s
// RUN: tile-opt %s --tile-scf-to-cf-in-reverse > %t.reverse
// RUN: tile-opt %s --convert-scf-to-cf > %t.upstream
// RUN: diff %t.reverse %t.upstream

// tile-scf-to-cf-in-reverse lowers each block's structured ops from the
// last up (every block split then moves only the ops up to the previous
// split: linear in the block's length, where the first-down order of
// convert-scf-to-cf is quadratic), each op before the ones in its regions
// (an if inside a while's region: the while is lowered first). The result
// is the same as convert-scf-to-cf's, op for op; nothing structured is
// left. From `tilec --emit=mlir` of two ifs in a row, a while with an if
// and a for with an if.

// CHECK-LABEL: tile.kernel @k
// CHECK-NOT: scf.
// CHECK: cf.cond_br
// CHECK: ^bb1:
// CHECK: arith.addf
// CHECK: cf.br ^bb2
// CHECK: ^bb2:
// CHECK: cf.cond_br %{{.*}}, ^bb3, ^bb4
// CHECK: ^bb5:
// CHECK: cf.cond_br %{{.*}}, ^bb6, ^bb9
// CHECK: ^bb6:
// CHECK: cf.cond_br %{{.*}}, ^bb7, ^bb8
// CHECK: cf.br ^bb5
// CHECK: ^bb10(%{{.*}}: i32):
// CHECK: cf.br ^bb10(
// CHECK-NOT: scf.
// CHECK: tile.return
module {
  tile.kernel @k(%arg0: !tile.ptr<f32, global> {tile.param = {name = "x", pointer, type = "f32"}}, %arg1: i32 {tile.param = {name = "n", type = "i32"}}) attributes {req_threads = array<i32: 128, 1, 1>} {
    %0 = tile.local_var -> !tile.ptr<i32, local>
    %1 = tile.local_var -> !tile.ptr<f32, local>
    %c0_i32 = arith.constant 0 : i32
    %2 = tile.ptr_add %arg0, %c0_i32 : !tile.ptr<f32, global>, i32
    %3 = tile.load %2 : !tile.ptr<f32, global> -> f32
    tile.store %3, %1 {scope = #tile<scope cta>} : f32, !tile.ptr<f32, local>
    %c1_i32 = arith.constant 1 : i32
    %4 = arith.cmpi sgt, %arg1, %c1_i32 : i32
    scf.if %4 {
      %cst = arith.constant 1.000000e+00 : f32
      %8 = tile.load %1 {scope = #tile<scope cta>} : !tile.ptr<f32, local> -> f32
      %9 = arith.addf %8, %cst fastmath<contract> : f32
      tile.store %9, %1 {scope = #tile<scope cta>} : f32, !tile.ptr<f32, local>
    }
    %c2_i32 = arith.constant 2 : i32
    %5 = arith.cmpi sgt, %arg1, %c2_i32 : i32
    scf.if %5 {
      %cst = arith.constant 2.000000e+00 : f32
      %8 = tile.load %1 {scope = #tile<scope cta>} : !tile.ptr<f32, local> -> f32
      %9 = arith.mulf %8, %cst fastmath<contract> : f32
      tile.store %9, %1 {scope = #tile<scope cta>} : f32, !tile.ptr<f32, local>
    }
    %c0_i32_0 = arith.constant 0 : i32
    tile.store %c0_i32_0, %0 {scope = #tile<scope cta>} : i32, !tile.ptr<i32, local>
    scf.while : () -> () {
      %8 = tile.load %0 {scope = #tile<scope cta>} : !tile.ptr<i32, local> -> i32
      %9 = arith.cmpi slt, %8, %arg1 : i32
      scf.condition(%9)
    } do {
      %8 = tile.load %1 {scope = #tile<scope cta>} : !tile.ptr<f32, local> -> f32
      %cst = arith.constant 3.000000e+00 : f32
      %9 = arith.cmpf ogt, %8, %cst : f32
      scf.if %9 {
        %cst_5 = arith.constant 1.000000e+00 : f32
        %12 = tile.load %1 {scope = #tile<scope cta>} : !tile.ptr<f32, local> -> f32
        %13 = arith.subf %12, %cst_5 fastmath<contract> : f32
        tile.store %13, %1 {scope = #tile<scope cta>} : f32, !tile.ptr<f32, local>
      }
      %c1_i32_4 = arith.constant 1 : i32
      %10 = tile.load %0 {scope = #tile<scope cta>} : !tile.ptr<i32, local> -> i32
      %11 = arith.addi %10, %c1_i32_4 : i32
      tile.store %11, %0 {scope = #tile<scope cta>} : i32, !tile.ptr<i32, local>
      scf.yield
    }
    %c0_i32_1 = arith.constant 0 : i32
    %c1_i32_2 = arith.constant 1 : i32
    scf.for %arg2 = %c0_i32_1 to %arg1 step %c1_i32_2  : i32 {
      %c1_i32_4 = arith.constant 1 : i32
      %8 = arith.cmpi sgt, %arg2, %c1_i32_4 : i32
      scf.if %8 {
        %9 = tile.ptr_add %arg0, %arg2 : !tile.ptr<f32, global>, i32
        %10 = tile.load %9 : !tile.ptr<f32, global> -> f32
        %11 = tile.load %1 {scope = #tile<scope cta>} : !tile.ptr<f32, local> -> f32
        %12 = arith.addf %11, %10 fastmath<contract> : f32
        tile.store %12, %1 {scope = #tile<scope cta>} : f32, !tile.ptr<f32, local>
      }
    }
    %c1_i32_3 = arith.constant 1 : i32
    %6 = tile.ptr_add %arg0, %c1_i32_3 : !tile.ptr<f32, global>, i32
    %7 = tile.load %1 {scope = #tile<scope cta>} : !tile.ptr<f32, local> -> f32
    tile.store %7, %6 : f32, !tile.ptr<f32, global>
    tile.return
  }
}
