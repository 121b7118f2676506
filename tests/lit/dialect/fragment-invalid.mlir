// RUN: tile-opt %s -split-input-file -verify-diagnostics

// The fragment algebra: every verifier check, and the per_row / per_col types.

// expected-error @+1 {{per_row rows must be a positive multiple of 64, not 32}}
tile.kernel @row_extent(%a: !tile.per_row<32xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{per_col elements are f32, f16, bf16, i32 or i1, not 'f64'}}
tile.kernel @col_elem(%a: !tile.per_col<64xf64>) {
  tile.return
}

// -----

// expected-error @+1 {{per_col cols must be a multiple of 8 in 8..256, not 12}}
tile.kernel @col_extent(%a: !tile.per_col<12xf32>) {
  tile.return
}

// -----

tile.kernel @arith_row_extent(%x: f32) {
  %r = tile.frag_splat %x : f32 -> !tile.per_row<64xf32>
  %a = tile.frag_zeros : !tile.frag<128x64xf32>
  // expected-error @+1 {{operand #1 ('!tile.per_row<64xf32>') does not broadcast to '!tile.frag<128x64xf32>'}}
  %b = tile.frag_arith add %a, %r : !tile.frag<128x64xf32>, !tile.per_row<64xf32> -> !tile.frag<128x64xf32>
  tile.return
}

// -----

tile.kernel @arith_col_into_row(%x: f32) {
  %r = tile.frag_splat %x : f32 -> !tile.per_row<64xf32>
  %c = tile.frag_splat %x : f32 -> !tile.per_col<64xf32>
  // expected-error @+1 {{operand #1 ('!tile.per_col<64xf32>') does not broadcast to '!tile.per_row<64xf32>'}}
  %b = tile.frag_arith add %r, %c : !tile.per_row<64xf32>, !tile.per_col<64xf32> -> !tile.per_row<64xf32>
  tile.return
}

// -----

tile.kernel @fma_int(%x: i32) {
  %r = tile.frag_splat %x : i32 -> !tile.per_row<64xi32>
  // expected-error @+1 {{takes float elements}}
  %b = tile.frag_fma %r, %r, %r : !tile.per_row<64xi32>, !tile.per_row<64xi32>, !tile.per_row<64xi32> -> !tile.per_row<64xi32>
  tile.return
}

// -----

tile.kernel @reduce_f16() {
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{reduces f32 fragments to f32 per_row values}}
  %m = tile.frag_reduce max %a : !tile.frag<64x64xf16> -> !tile.per_row<64xf32>
  tile.return
}

// -----

tile.kernel @reduce_rows() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{gives one value per row of the fragment}}
  %m = tile.frag_reduce sum %a : !tile.frag<64x64xf32> -> !tile.per_row<128xf32>
  tile.return
}

// -----

tile.kernel @cmp_result(%x: f32) {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{gives a mask (i1 elements)}}
  %m = tile.frag_cmp lt %a, %x : !tile.frag<64x64xf32>, f32 -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @cmp_types(%x: i32) {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{compares f32, f16, bf16 or i32 elements of one type}}
  %m = tile.frag_cmp lt %a, %x : !tile.frag<64x64xf32>, i32 -> !tile.frag<64x64xi1>
  tile.return
}

// -----

tile.kernel @cmp_shape(%x: f32) {
  %r = tile.frag_splat %x : f32 -> !tile.per_row<128xf32>
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{does not broadcast to '!tile.frag<64x64xi1>'}}
  %m = tile.frag_cmp lt %a, %r : !tile.frag<64x64xf32>, !tile.per_row<128xf32> -> !tile.frag<64x64xi1>
  tile.return
}

// -----

tile.kernel @select_cond(%x: f32) {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{condition '!tile.frag<64x64xf32>' does not broadcast}}
  %m = tile.frag_select %a, %a, %x : !tile.frag<64x64xf32>, !tile.frag<64x64xf32>, f32 -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @select_mask_values(%x: i1) {
  %c = tile.frag_splat %x : i1 -> !tile.per_row<64xi1>
  // expected-error @+1 {{chooses between values, not masks}}
  %m = tile.frag_select %c, %c, %c : !tile.per_row<64xi1>, !tile.per_row<64xi1>, !tile.per_row<64xi1> -> !tile.per_row<64xi1>
  tile.return
}

// -----

tile.kernel @math_f16() {
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{exp2 takes f32 elements}}
  %m = tile.frag_math exp2 %a : !tile.frag<64x64xf16>
  tile.return
}

// -----

tile.kernel @abs_approx() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{abs has no approximate form}}
  %m = tile.frag_math abs %a {approx} : !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @erf_approx() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{erf has no approximate form}}
  %m = tile.frag_math erf %a {approx} : !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @tanh_bf16() {
  %a = tile.frag_zeros : !tile.frag<64x64xbf16>
  // expected-error @+1 {{tanh takes f32 elements}}
  %m = tile.frag_math tanh %a : !tile.frag<64x64xbf16>
  tile.return
}

// -----

tile.kernel @splat_type(%x: f16) {
  // expected-error @+1 {{splats a scalar of the result's element type}}
  %m = tile.frag_splat %x : f16 -> !tile.per_row<64xf32>
  tile.return
}

// -----

tile.kernel @coord_kind(%t: i32) {
  // expected-error @+1 {{dim 0 gives a per_row value}}
  %c = tile.frag_coord 0, %t : !tile.per_col<64xi32>
  tile.return
}

// -----

tile.kernel @coord_type(%t: i32) {
  // expected-error @+1 {{gives i32 indices}}
  %c = tile.frag_coord 1, %t : !tile.per_col<64xf32>
  tile.return
}

// -----

tile.kernel @load_per_col_type(%p: !tile.ptr<f16, global>, %t: i32) {
  // expected-error @+1 {{loads elements of the result's type}}
  %c = tile.load_per_col %p, %t : !tile.ptr<f16, global> -> !tile.per_col<64xf32>
  tile.return
}

// -----

tile.kernel @store_row_type(%x: f32, %p: !tile.ptr<f16, global>, %t: i32) {
  %r = tile.frag_splat %x : f32 -> !tile.per_row<64xf32>
  // expected-error @+1 {{pointer and per_row element types differ}}
  tile.store_per_row %r, %p, %t : !tile.per_row<64xf32>, !tile.ptr<f16, global>
  tile.return
}

// -----

tile.kernel @convert_kind(%x: i32) {
  %r = tile.frag_splat %x : i32 -> !tile.per_row<64xi32>
  // expected-error @+1 {{converts between values of one kind and shape}}
  %c = tile.frag_convert %r : !tile.per_row<64xi32> -> !tile.per_col<64xf32>
  tile.return
}

// -----

tile.kernel @mma_mask_acc(%row: i32) {
  %b = tile.shared_alloc {alignment = 1024 : i64, static_count = 1024 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xi1>
  %a = tile.frag_zeros : !tile.frag<64x16xf16>
  // expected-error @+1 {{the accumulator is f32 or f16}}
  %r = tile.mma_reg_a %acc, %a, %b[%row] {b_k_major = true, b_layout = #tile.layout<[64, 16], swizzle = 32, panel = 16>} : !tile.frag<64x64xi1>, !tile.frag<64x16xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @mma_bf16_f16acc(%row: i32) {
  %b = tile.shared_alloc {alignment = 1024 : i64, static_count = 1024 : i64} -> !tile.ptr<bf16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf16>
  %a = tile.frag_zeros : !tile.frag<64x16xbf16>
  // expected-error @+1 {{bf16 operands need an f32 accumulator}}
  %r = tile.mma_reg_a %acc, %a, %b[%row] {b_k_major = true, b_layout = #tile.layout<[64, 16], swizzle = 32, panel = 16>} : !tile.frag<64x64xf16>, !tile.frag<64x16xbf16>, !tile.ptr<bf16, shared>
  tile.return
}

// -----

tile.kernel @rem_float(%x: f32) {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{rem takes i32 elements}}
  %r = tile.frag_arith rem %a, %x : !tile.frag<64x64xf32>, f32 -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @shl_f16(%x: f16) {
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{shl takes i32 elements}}
  %r = tile.frag_arith shl %a, %x : !tile.frag<64x64xf16>, f16 -> !tile.frag<64x64xf16>
  tile.return
}

// -----

tile.kernel @pow_i32(%x: i32) {
  %a = tile.frag_zeros : !tile.frag<64x64xi32>
  // expected-error @+1 {{pow takes f32 elements}}
  %r = tile.frag_arith pow %a, %x : !tile.frag<64x64xi32>, i32 -> !tile.frag<64x64xi32>
  tile.return
}

// -----

tile.kernel @pow_f16(%x: f16) {
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{pow takes f32 elements}}
  %r = tile.frag_arith pow %a, %x : !tile.frag<64x64xf16>, f16 -> !tile.frag<64x64xf16>
  tile.return
}

// -----

tile.kernel @contract_i32(%x: i32) {
  %a = tile.frag_zeros : !tile.frag<64x64xi32>
  // expected-error @+1 {{contract applies to float elements}}
  %r = tile.frag_arith mul %a, %x {contract} : !tile.frag<64x64xi32>, i32 -> !tile.frag<64x64xi32>
  tile.return
}

// -----

tile.kernel @arith_mask(%x: i1) {
  %a = tile.frag_zeros : !tile.frag<64x64xi1>
  // expected-error @+1 {{computes on values, not masks}}
  %r = tile.frag_arith and %a, %x : !tile.frag<64x64xi1>, i1 -> !tile.frag<64x64xi1>
  tile.return
}

// -----

tile.kernel @abs_mask() {
  %a = tile.frag_zeros : !tile.frag<64x64xi1>
  // expected-error @+1 {{abs takes f32, f16, bf16 or i32 elements}}
  %r = tile.frag_math abs %a : !tile.frag<64x64xi1>
  tile.return
}

// -----

tile.kernel @exp2_i32() {
  %a = tile.frag_zeros : !tile.frag<64x64xi32>
  // expected-error @+1 {{exp2 takes f32 elements}}
  %r = tile.frag_math exp2 %a : !tile.frag<64x64xi32>
  tile.return
}

// -----

tile.kernel @i32_to_fp8() {
  %a = tile.frag_zeros : !tile.frag<64x64xi32>
  // expected-error @+1 {{converts i32 to and from f32, f16 and bf16 only}}
  %r = tile.frag_convert %a : !tile.frag<64x64xi32> -> !tile.frag<64x64xf8E4M3FN>
  tile.return
}

// -----

tile.kernel @store_mask(%p: !tile.ptr<i1, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %a = tile.frag_zeros : !tile.frag<64x64xi1>
  // expected-error @+1 {{stores f32, f16, bf16 or i32 values, not masks}}
  tile.frag_store %a, %p, %ld, %t : !tile.frag<64x64xi1>, !tile.ptr<i1, global>
  tile.return
}

// -----

tile.kernel @row_col_float_mismatch() {
  %t = tile.sreg tid_x : i32
  %r = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %c = tile.frag_coord 1, %t : !tile.per_col<64xi32>
  %cf = tile.frag_convert %c : !tile.per_col<64xi32> -> !tile.per_col<64xf32>
  // expected-error @+1 {{operand #1 ('!tile.per_col<64xf32>') does not broadcast to '!tile.frag<64x64xi32>'}}
  %d = tile.frag_arith sub %r, %cf : !tile.per_row<64xi32>, !tile.per_col<64xf32> -> !tile.frag<64x64xi32>
  tile.return
}
