// RUN: tile-opt %s | tile-opt | FileCheck %s
// The fragment algebra (TileFragmentOps.td) and the per_row / per_col
// types print in a form they parse back.

// CHECK-LABEL: tile.kernel @algebra(
// CHECK: %[[S:.*]] = tile.frag_zeros : !tile.frag<128x64xf32>
// CHECK: %[[M:.*]] = tile.frag_reduce max %[[S]] : !tile.frag<128x64xf32> -> !tile.per_row<128xf32>
// CHECK: tile.frag_reduce sum %[[S]] : !tile.frag<128x64xf32> -> !tile.per_row<128xf32>
// CHECK: %[[R:.*]] = tile.frag_coord 0, %{{.*}} : !tile.per_row<128xi32>
// CHECK: %[[C:.*]] = tile.frag_coord 1, %{{.*}} : !tile.per_col<64xi32>
// CHECK: %[[K:.*]] = tile.frag_cmp le %[[C]], %[[R]] : !tile.per_col<64xi32>, !tile.per_row<128xi32> -> !tile.frag<128x64xi1>
// CHECK: tile.frag_select %[[K]], %[[S]], %{{.*}} : !tile.frag<128x64xi1>, !tile.frag<128x64xf32>, f32 -> !tile.frag<128x64xf32>
// CHECK: tile.frag_cmp eq %[[M]], %{{.*}} : !tile.per_row<128xf32>, f32 -> !tile.per_row<128xi1>
// CHECK: tile.frag_arith sub %{{.*}}, %[[M]] : !tile.frag<128x64xf32>, !tile.per_row<128xf32> -> !tile.frag<128x64xf32>
// CHECK: tile.frag_math exp2 %{{.*}} {approx} : !tile.frag<128x64xf32>
// CHECK: tile.frag_math log %[[M]] : !tile.per_row<128xf32>
// CHECK: tile.frag_splat %{{.*}} : f32 -> !tile.per_row<128xf32>
// CHECK: tile.load_per_col %{{.*}}, %{{.*}} : !tile.ptr<f16, global> -> !tile.per_col<64xf16>
// CHECK: tile.load_per_row %{{.*}}, %{{.*}} : !tile.ptr<f32, global> -> !tile.per_row<128xf32>
// CHECK: tile.frag_convert %[[R]] : !tile.per_row<128xi32> -> !tile.per_row<128xf32>
// CHECK: tile.store_per_row %[[M]], %{{.*}}, %{{.*}} : !tile.per_row<128xf32>, !tile.ptr<f32, global>
tile.kernel @algebra(%p: !tile.ptr<f16, global>, %l: !tile.ptr<f32, global>, %inf: f32) {
  %t = tile.sreg tid_x : i32
  %s = tile.frag_zeros : !tile.frag<128x64xf32>
  %m = tile.frag_reduce max %s : !tile.frag<128x64xf32> -> !tile.per_row<128xf32>
  %sum = tile.frag_reduce sum %s : !tile.frag<128x64xf32> -> !tile.per_row<128xf32>
  %r = tile.frag_coord 0, %t : !tile.per_row<128xi32>
  %c = tile.frag_coord 1, %t : !tile.per_col<64xi32>
  %k = tile.frag_cmp le %c, %r : !tile.per_col<64xi32>, !tile.per_row<128xi32> -> !tile.frag<128x64xi1>
  %masked = tile.frag_select %k, %s, %inf : !tile.frag<128x64xi1>, !tile.frag<128x64xf32>, f32 -> !tile.frag<128x64xf32>
  %empty = tile.frag_cmp eq %m, %inf : !tile.per_row<128xf32>, f32 -> !tile.per_row<128xi1>
  %d = tile.frag_arith sub %masked, %m : !tile.frag<128x64xf32>, !tile.per_row<128xf32> -> !tile.frag<128x64xf32>
  %e = tile.frag_math exp2 %d {approx} : !tile.frag<128x64xf32>
  %lg = tile.frag_math log %m : !tile.per_row<128xf32>
  %z = tile.frag_splat %inf : f32 -> !tile.per_row<128xf32>
  %bias = tile.load_per_col %p, %t : !tile.ptr<f16, global> -> !tile.per_col<64xf16>
  %scale = tile.load_per_row %l, %t : !tile.ptr<f32, global> -> !tile.per_row<128xf32>
  %rf = tile.frag_convert %r : !tile.per_row<128xi32> -> !tile.per_row<128xf32>
  tile.store_per_row %m, %l, %t : !tile.per_row<128xf32>, !tile.ptr<f32, global>
  tile.return
}

// An fp8 fragment (wgmma's register operand A) from an f32 one, read by
// tile.mma_reg_a with a K-major fp8 B (e4m3 x e5m2 mix).
// CHECK-LABEL: tile.kernel @fp8_register_a(
// CHECK: %[[P:.*]] = tile.frag_convert %{{.*}} : !tile.frag<64x64xf32> -> !tile.frag<64x64xf8E4M3FN>
// CHECK: tile.mma_reg_a %{{.*}}, %[[P]], %{{.*}}[%{{.*}}] {{.*}} : !tile.frag<64x128xf32>, !tile.frag<64x64xf8E4M3FN>, !tile.ptr<f8E5M2, shared>
tile.kernel @fp8_register_a(%r: i32) {
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f8E5M2, shared>
  %s = tile.frag_zeros : !tile.frag<64x64xf32>
  %p = tile.frag_convert %s : !tile.frag<64x64xf32> -> !tile.frag<64x64xf8E4M3FN>
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  %o = tile.mma_reg_a %acc, %p, %b[%r] {b_k_major = true,
      b_layout = #tile.layout<[128, 64], swizzle = 64, panel = 64>}
      : !tile.frag<64x128xf32>, !tile.frag<64x64xf8E4M3FN>, !tile.ptr<f8E5M2, shared>
  tile.return
}

// Stores of the first n rows: `rows` is an optional i32 operand of both
// stores and prints back after the thread.
// CHECK-LABEL: tile.kernel @first_rows(
// CHECK: tile.frag_store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} rows %{{.*}} : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
// CHECK: tile.store_per_row %{{.*}}, %{{.*}}, %{{.*}} rows %{{.*}} : !tile.per_row<64xf32>, !tile.ptr<f32, global>
tile.kernel @first_rows(%out: !tile.ptr<f32, global>, %ld: i64, %n: i32) {
  %t = tile.sreg tid_x : i32
  %z = tile.frag_zeros : !tile.frag<64x16xf32>
  tile.frag_store %z, %out, %ld, %t rows %n : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  %m = tile.frag_reduce max %z : !tile.frag<64x16xf32> -> !tile.per_row<64xf32>
  tile.store_per_row %m, %out, %t rows %n : !tile.per_row<64xf32>, !tile.ptr<f32, global>
  tile.return
}

// Loads of the first n rows (columns): `rows` / `cols` is an optional i32
// operand that prints back after the thread.
// CHECK-LABEL: tile.kernel @loads_first_rows(
// CHECK: tile.load_per_row %{{.*}}, %{{.*}} rows %{{.*}} : !tile.ptr<f32, global> -> !tile.per_row<64xf32>
// CHECK: tile.load_per_col %{{.*}}, %{{.*}} cols %{{.*}} : !tile.ptr<f32, global> -> !tile.per_col<16xf32>
// CHECK: tile.frag_load %{{.*}}, %{{.*}}, %{{.*}} rows %{{.*}} : !tile.ptr<f16, global> -> !tile.frag<64x16xf16>
// CHECK: tile.load_per_row %{{.*}}, %{{.*}} : !tile.ptr<f32, global> -> !tile.per_row<64xf32>
tile.kernel @loads_first_rows(%p: !tile.ptr<f32, global>, %h: !tile.ptr<f16, global>, %ld: i64,
                              %n: i32) {
  %t = tile.sreg tid_x : i32
  %r = tile.load_per_row %p, %t rows %n : !tile.ptr<f32, global> -> !tile.per_row<64xf32>
  %c = tile.load_per_col %p, %t cols %n : !tile.ptr<f32, global> -> !tile.per_col<16xf32>
  %f = tile.frag_load %h, %ld, %t rows %n : !tile.ptr<f16, global> -> !tile.frag<64x16xf16>
  %s = tile.load_per_row %p, %t : !tile.ptr<f32, global> -> !tile.per_row<64xf32>
  tile.return
}

// Columns: `cols` is a second optional i32 operand of frag_store and
// frag_load, printed after `rows` (either may stand alone).
// CHECK-LABEL: tile.kernel @first_cols(
// CHECK: tile.frag_load %{{.*}}, %{{.*}}, %{{.*}} rows %{{.*}} cols %{{.*}} : !tile.ptr<f32, global> -> !tile.frag<64x16xf32>
// CHECK: tile.frag_load %{{.*}}, %{{.*}}, %{{.*}} cols %{{.*}} : !tile.ptr<f32, global> -> !tile.frag<64x16xf32>
// CHECK: tile.frag_store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} rows %{{.*}} cols %{{.*}} : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
// CHECK: tile.frag_store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} cols %{{.*}} : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
tile.kernel @first_cols(%p: !tile.ptr<f32, global>, %ld: i64, %n: i32, %m: i32) {
  %t = tile.sreg tid_x : i32
  %a = tile.frag_load %p, %ld, %t rows %n cols %m : !tile.ptr<f32, global> -> !tile.frag<64x16xf32>
  %b = tile.frag_load %p, %ld, %t cols %m : !tile.ptr<f32, global> -> !tile.frag<64x16xf32>
  tile.frag_store %a, %p, %ld, %t rows %n cols %m : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  tile.frag_store %b, %p, %ld, %t cols %m : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  tile.return
}

// i32 fragments: a per_col and a per_row index give the [M, N] fragment of
// relative positions; the integer kinds, abs, comparisons, select and the
// conversions to and from floats take it.
// CHECK-LABEL: tile.kernel @integer_fragment(
// CHECK: %[[REL:.*]] = tile.frag_arith sub %{{.*}}, %{{.*}} : !tile.per_col<64xi32>, !tile.per_row<128xi32> -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith rem %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith shl %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith shr %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, !tile.per_row<128xi32> -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith and %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith or %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith xor %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
// CHECK: %[[ABS:.*]] = tile.frag_math abs %[[REL]] : !tile.frag<128x64xi32>
// CHECK: %[[K:.*]] = tile.frag_cmp gt %[[REL]], %{{.*}} : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi1>
// CHECK: %[[SEL:.*]] = tile.frag_select %[[K]], %{{.*}}, %[[ABS]] : !tile.frag<128x64xi1>, i32, !tile.frag<128x64xi32> -> !tile.frag<128x64xi32>
// CHECK: tile.frag_convert %[[SEL]] : !tile.frag<128x64xi32> -> !tile.frag<128x64xf32>
// CHECK: tile.frag_convert %[[SEL]] : !tile.frag<128x64xi32> -> !tile.frag<128x64xbf16>
// CHECK: tile.frag_convert %{{.*}} : !tile.frag<128x64xf16> -> !tile.frag<128x64xi32>
// CHECK: tile.frag_arith pow %{{.*}}, %{{.*}} : !tile.frag<128x64xf32>, f32 -> !tile.frag<128x64xf32>
tile.kernel @integer_fragment(%n: i32, %y: f32) {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<128xi32>
  %c = tile.frag_coord 1, %t : !tile.per_col<64xi32>
  %rel = tile.frag_arith sub %c, %r : !tile.per_col<64xi32>, !tile.per_row<128xi32> -> !tile.frag<128x64xi32>
  %m = tile.frag_arith rem %rel, %n : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
  %l = tile.frag_arith shl %rel, %n : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
  %h = tile.frag_arith shr %rel, %r : !tile.frag<128x64xi32>, !tile.per_row<128xi32> -> !tile.frag<128x64xi32>
  %a = tile.frag_arith and %rel, %n : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
  %o = tile.frag_arith or %rel, %n : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
  %x = tile.frag_arith xor %rel, %n : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi32>
  %abs = tile.frag_math abs %rel : !tile.frag<128x64xi32>
  %k = tile.frag_cmp gt %rel, %n : !tile.frag<128x64xi32>, i32 -> !tile.frag<128x64xi1>
  %sel = tile.frag_select %k, %n, %abs : !tile.frag<128x64xi1>, i32, !tile.frag<128x64xi32> -> !tile.frag<128x64xi32>
  %f = tile.frag_convert %sel : !tile.frag<128x64xi32> -> !tile.frag<128x64xf32>
  %b = tile.frag_convert %sel : !tile.frag<128x64xi32> -> !tile.frag<128x64xbf16>
  %z = tile.frag_zeros : !tile.frag<128x64xf16>
  %i = tile.frag_convert %z : !tile.frag<128x64xf16> -> !tile.frag<128x64xi32>
  %p = tile.frag_arith pow %f, %y : !tile.frag<128x64xf32>, f32 -> !tile.frag<128x64xf32>
  tile.return
}
