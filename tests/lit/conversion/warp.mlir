// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// The launch bounds and the warp ops (WarpToNVVM.cpp): NVVM ops, with
// shfl.sync's c operand formed from the width.
// CHECK-LABEL: llvm.func @warp(
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
tile.kernel @warp(%x: i32, %f: f16, %d: i64, %w: i32, %p: i1, %out: !tile.ptr<i32, global>) attributes {req_threads = array<i32: 128>, min_blocks = 2 : i32} {
  %full = arith.constant -1 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  // width 16, down: c = (16 << 8) | 31 = 4127
  // CHECK: %[[C:.*]] = llvm.mlir.constant(4127 : i32)
  // CHECK: nvvm.shfl.sync{{ +}}down %{{.*}}, %{{.*}}, %{{.*}}, %[[C]] : i32 -> i32
  %a = tile.shfl down %x, %c1, %c16, %full : i32
  // up clamps at lane 0 of the segment: c = 0 for width 32
  // CHECK: %[[U:.*]] = llvm.mlir.constant(0 : i32)
  // CHECK: nvvm.shfl.sync{{ +}}up %{{.*}}, %{{.*}}, %{{.*}}, %[[U]] : i32 -> i32
  %b = tile.shfl up %x, %c1, %c32, %full : i32
  // f16 moves as zero-extended bits
  // CHECK: llvm.bitcast %{{.*}} : f16 to i16
  // CHECK: llvm.zext %{{.*}} : i16 to i32
  // CHECK: nvvm.shfl.sync{{ +}}bfly
  // CHECK: llvm.trunc %{{.*}} : i32 to i16
  %g = tile.shfl bfly %f, %c1, %c32, %full : f16
  // i64: two halves
  // CHECK: nvvm.shfl.sync{{ +}}idx
  // CHECK: nvvm.shfl.sync{{ +}}idx
  %e = tile.shfl idx %d, %c1, %c32, %full : i64
  // a run-time width: clamped and rounded down to a power of two
  // CHECK: llvm.intr.smax
  // CHECK: llvm.intr.smin
  // CHECK: "llvm.intr.ctlz"
  // CHECK: nvvm.shfl.sync{{ +}}idx
  %h = tile.shfl idx %x, %c1, %w, %full : i32
  // CHECK: nvvm.vote.sync ballot %{{.*}}, %{{.*}} -> i32
  %v = tile.vote ballot %p, %full -> i32
  // CHECK: nvvm.vote.sync all %{{.*}}, %{{.*}} -> i1
  %va = tile.vote all %p, %full -> i1
  // CHECK: nvvm.redux.sync max %{{.*}}, %{{.*}} : i32 -> i32
  %r = tile.redux max %x, %full : i32
  // CHECK: nvvm.match.sync all %{{.*}}, %{{.*}} : i64 -> !llvm.struct<(i32, i1)>
  // CHECK: llvm.extractvalue %{{.*}}[0]
  %m = tile.match all %d, %full : i64
  // CHECK: nvvm.match.sync any %{{.*}}, %{{.*}} : i32 -> i32
  %ma = tile.match any %x, %full : i32
  // CHECK: nvvm.bar.warp.sync %{{.*}} : i32
  tile.sync_warp %full
  // CHECK: nvvm.read.ptx.sreg.lanemask.lt : i32
  %l = tile.lanemask lt
  %s0 = arith.addi %a, %b : i32
  %s1 = arith.addi %s0, %h : i32
  %s2 = arith.addi %s1, %v : i32
  %s3 = arith.addi %s2, %r : i32
  %s4 = arith.addi %s3, %m : i32
  %s5 = arith.addi %s4, %ma : i32
  %s6 = arith.addi %s5, %l : i32
  %gi = arith.bitcast %g : f16 to i16
  %gx = arith.extui %gi : i16 to i32
  %s7 = arith.addi %s6, %gx : i32
  %et = arith.trunci %e : i64 to i32
  %s8 = arith.addi %s7, %et : i32
  %vx = arith.extui %va : i1 to i32
  %s9 = arith.addi %s8, %vx : i32
  tile.store %s9, %out : i32, !tile.ptr<i32, global>
  tile.return
}
