// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 | FileCheck %s --check-prefix=PTX

// The fragment algebra (FragmentToNVVM.cpp). A per_row value of 64 rows is
// a struct of 2 elements (rows r and r + 8 of the thread), a per_col value
// of N columns one of N/4. A row reduction of a 64 x 16 fragment combines
// the thread's 4 elements of each row in column order, then the quad with
// shfl.sync.bfly 1 and 2.

// CHECK-LABEL: llvm.func @reduce(
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.maximumnum"
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
// CHECK: llvm.call_intrinsic "llvm.maximumnum"
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.call_intrinsic "llvm.maximumnum"
// CHECK: llvm.fadd
// PTX-LABEL: .entry reduce(
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
tile.kernel @reduce(%out: !tile.ptr<f32, global>) {
  %t = tile.sreg tid_x : i32
  %c = tile.frag_coord 1, %t : !tile.per_col<16xi32>
  %cf = tile.frag_convert %c : !tile.per_col<16xi32> -> !tile.per_col<16xf32>
  %z = tile.frag_zeros : !tile.frag<64x16xf32>
  %s = tile.frag_arith add %z, %cf : !tile.frag<64x16xf32>, !tile.per_col<16xf32> -> !tile.frag<64x16xf32>
  %m = tile.frag_reduce max %s : !tile.frag<64x16xf32> -> !tile.per_row<64xf32>
  %l = tile.frag_reduce sum %s : !tile.frag<64x16xf32> -> !tile.per_row<64xf32>
  %r = tile.frag_arith add %m, %l : !tile.per_row<64xf32>, !tile.per_row<64xf32> -> !tile.per_row<64xf32>
  tile.store_per_row %r, %out, %t : !tile.per_row<64xf32>, !tile.ptr<f32, global>
  tile.return
}

// Masks: the causal test compares a per_col with a per_row (icmp sle per
// element), the select is per element for f32 and per pair (<2 x i1>) for
// a packed f16 fragment; exp2 approx is ex2.approx.ftz.f32 (one MUFU.EX2;
// the form without .ftz costs three more SASS instructions per call). (The
// accurate form calls libdevice, which tilec links: tests/lit/ptx/fragment-algebra.tile.)
// CHECK-LABEL: llvm.func @masks(
// CHECK: llvm.icmp "sle"
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK: llvm.fcmp "oeq"
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : vector<2xi1>, vector<2xf16>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// PTX-LABEL: .entry masks(
// PTX: ex2.approx.ftz.f32
// PTX-NOT: ex2.approx.f32
tile.kernel @masks(%n0: i32, %inf: f32, %out: !tile.ptr<f32, global>, %h: !tile.ptr<f16, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %c = tile.frag_coord 1, %t : !tile.per_col<16xi32>
  %cn = tile.frag_arith add %c, %n0 : !tile.per_col<16xi32>, i32 -> !tile.per_col<16xi32>
  %k = tile.frag_cmp le %cn, %r : !tile.per_col<16xi32>, !tile.per_row<64xi32> -> !tile.frag<64x16xi1>
  %z = tile.frag_zeros : !tile.frag<64x16xf32>
  %s = tile.frag_select %k, %z, %inf : !tile.frag<64x16xi1>, !tile.frag<64x16xf32>, f32 -> !tile.frag<64x16xf32>
  %e = tile.frag_cmp eq %s, %inf : !tile.frag<64x16xf32>, f32 -> !tile.frag<64x16xi1>
  %s16 = tile.frag_convert %s : !tile.frag<64x16xf32> -> !tile.frag<64x16xf16>
  %z16 = tile.frag_zeros : !tile.frag<64x16xf16>
  %p16 = tile.frag_select %e, %z16, %s16 : !tile.frag<64x16xi1>, !tile.frag<64x16xf16>, !tile.frag<64x16xf16> -> !tile.frag<64x16xf16>
  tile.frag_store %p16, %h, %ld, %t : !tile.frag<64x16xf16>, !tile.ptr<f16, global>
  %a = tile.frag_math exp2 %s {approx} : !tile.frag<64x16xf32>
  tile.frag_store %a, %out, %ld, %t : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  tile.return
}

// A per_row value broadcast into a packed fragment pairs its element (the
// same row for both halves); a splat fills every register.
// CHECK-LABEL: llvm.func @broadcast(
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : vector<2xf16>
// PTX-LABEL: .entry broadcast(
// PTX: mul.rn.f16x2
tile.kernel @broadcast(%x: f16, %h: !tile.ptr<f16, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %rf = tile.frag_convert %r : !tile.per_row<64xi32> -> !tile.per_row<64xf16>
  %one = tile.frag_splat %x : f16 -> !tile.frag<64x16xf16>
  %p = tile.frag_arith mul %one, %rf : !tile.frag<64x16xf16>, !tile.per_row<64xf16> -> !tile.frag<64x16xf16>
  tile.frag_store %p, %h, %ld, %t : !tile.frag<64x16xf16>, !tile.ptr<f16, global>
  tile.return
}

// A per_row store with `rows`: the thread's two rows, each compared once
// with the bound (slt) before its store.
// CHECK-LABEL: llvm.func @per_row_first_rows(
// CHECK-COUNT-2: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK-NOT: llvm.icmp "slt"
// CHECK: llvm.return
tile.kernel @per_row_first_rows(%out: !tile.ptr<f32, global>, %n: i32) {
  %t = tile.sreg tid_x : i32
  %z = tile.frag_zeros : !tile.frag<64x16xf32>
  %m = tile.frag_reduce max %z : !tile.frag<64x16xf32> -> !tile.per_row<64xf32>
  tile.store_per_row %m, %out, %t rows %n : !tile.per_row<64xf32>, !tile.ptr<f32, global>
  tile.return
}
