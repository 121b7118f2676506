// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// i32 fragments (EpilogueToNVVM.cpp, FragmentToNVVM.cpp): a struct of
// rows*cols/128 i32; a per_col and a per_row broadcast to it element by
// element. The integer kinds keep the scalar rules on every input: / and %
// by a divisor replaced by 1 where it is 0 or (MIN, -1) (LLVM's sdiv / srem
// are UB there) and the result chosen after; shl chosen away from 32 on,
// ashr's amount clamped to 31 (both are poison in LLVM from 32 on); abs
// with MIN not poison; the conversion to f16 one sitofp per element, paired.

// The pow below declares libdevice's powf once, at the top of the module.
// CHECK: llvm.func @__nv_powf(f32, f32) -> f32
// CHECK-LABEL: llvm.func @int_kinds(
// CHECK: llvm.sub %{{.*}}, %{{.*}} : i32
// CHECK: %[[SAFE:.*]] = llvm.select %{{.*}}, %{{.*}}, %arg0 : i1, i32
// CHECK-NEXT: %[[Q:.*]] = llvm.sdiv %{{.*}}, %[[SAFE]] : i32
// CHECK-NEXT: llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: llvm.select %{{.*}}, %{{.*}}, %[[Q]] : i1, i32
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %arg0, %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[SH:.*]] = llvm.shl %{{.*}}, %arg0 : i32
// CHECK-NEXT: llvm.select %[[IN]], %[[SH]], %{{.*}} : i1, i32
// CHECK: %[[AMT:.*]] = llvm.intr.umin(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// CHECK: llvm.ashr %{{.*}}, %[[AMT]] : i32
// CHECK: llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: llvm.or %{{.*}}, %{{.*}} : i32
// CHECK: llvm.xor %{{.*}}, %{{.*}} : i32
// CHECK: "llvm.intr.abs"(%{{.*}}) <{is_int_min_poison = false}> : (i32) -> i32
// CHECK: llvm.sitofp %{{.*}} : i32 to f16
// CHECK: llvm.sitofp %{{.*}} : i32 to f16
// CHECK: llvm.insertelement
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
tile.kernel @int_kinds(%n: i32, %out: !tile.ptr<f16, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %c = tile.frag_coord 1, %t : !tile.per_col<8xi32>
  %rel = tile.frag_arith sub %c, %r : !tile.per_col<8xi32>, !tile.per_row<64xi32> -> !tile.frag<64x8xi32>
  %q = tile.frag_arith div %rel, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %l = tile.frag_arith shl %q, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %h = tile.frag_arith shr %l, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %a = tile.frag_arith and %h, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %o = tile.frag_arith or %a, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %x = tile.frag_arith xor %o, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %abs = tile.frag_math abs %x : !tile.frag<64x8xi32>
  %f = tile.frag_convert %abs : !tile.frag<64x8xi32> -> !tile.frag<64x8xf16>
  tile.frag_store %f, %out, %ld, %t : !tile.frag<64x8xf16>, !tile.ptr<f16, global>
  tile.return
}

// x % 0 = x: the remainder by the safe divisor, x chosen where d = 0.
// CHECK-LABEL: llvm.func @int_rem(
// CHECK: %[[RSAFE:.*]] = llvm.select %{{.*}}, %{{.*}}, %arg0 : i1, i32
// CHECK-NEXT: %[[R:.*]] = llvm.srem %[[X:.*]], %[[RSAFE]] : i32
// CHECK-NEXT: llvm.select %{{.*}}, %[[X]], %[[R]] : i1, i32
tile.kernel @int_rem(%n: i32, %out: !tile.ptr<f32, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %c = tile.frag_coord 1, %t : !tile.per_col<8xi32>
  %rel = tile.frag_arith sub %c, %r : !tile.per_col<8xi32>, !tile.per_row<64xi32> -> !tile.frag<64x8xi32>
  %m = tile.frag_arith rem %rel, %n : !tile.frag<64x8xi32>, i32 -> !tile.frag<64x8xi32>
  %f = tile.frag_convert %m : !tile.frag<64x8xi32> -> !tile.frag<64x8xf32>
  tile.frag_store %f, %out, %ld, %t : !tile.frag<64x8xf32>, !tile.ptr<f32, global>
  tile.return
}

// pow: libdevice __nv_powf (f32, f32) -> f32 per element.
// CHECK-LABEL: llvm.func @pow_elements(
// CHECK-COUNT-4: llvm.call @__nv_powf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
tile.kernel @pow_elements(%y: f32, %out: !tile.ptr<f32, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %x = tile.frag_zeros : !tile.frag<64x8xf32>
  %p = tile.frag_arith pow %x, %y : !tile.frag<64x8xf32>, f32 -> !tile.frag<64x8xf32>
  tile.frag_store %p, %out, %ld, %t : !tile.frag<64x8xf32>, !tile.ptr<f32, global>
  tile.return
}
