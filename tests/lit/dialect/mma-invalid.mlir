// RUN: tile-opt %s -split-input-file -verify-diagnostics

tile.kernel @rows() {
  // expected-error @+1 {{fragment rows must be a positive multiple of 64, not 32}}
  %x = tile.frag_zeros : !tile.frag<32x64xf32>
  tile.return
}

// -----

tile.kernel @cols() {
  // expected-error @+1 {{fragment cols must be a multiple of 8 in 8..256, not 260}}
  %x = tile.frag_zeros : !tile.frag<64x260xf32>
  tile.return
}

// -----

tile.kernel @elem() {
  // expected-error @+1 {{fragment elements are f32, f16, bf16, i32 (indices), i1 (a mask) or fp8 (register A), not 'i64'}}
  %x = tile.frag_zeros : !tile.frag<64x64xi64>
  tile.return
}

// -----

tile.kernel @k16(%r: i32) {
  %a = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{k must be a positive multiple of 16}}
  %x = tile.mma %acc, %a[%r], %a[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 8], swizzle = 0, panel = 8>,
      b_layout = #tile.layout<[64, 8], swizzle = 0, panel = 8>, k = 8}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @noswizzle(%r: i32) {
  %a = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operand a must be a 32/64/128-byte swizzled tile}}
  %x = tile.mma %acc, %a[%r], %a[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 16], swizzle = 0, panel = 16>,
      b_layout = #tile.layout<[64, 16], swizzle = 32, panel = 16>, k = 16}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @inner(%r: i32) {
  %a = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operand b's inner dimension must be N}}
  %x = tile.mma %acc, %a[%r], %a[%r] {a_k_major = true, b_k_major = false,
      a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @f32operands(%r: i32) {
  %a = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f32, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operands must be f16, bf16, fp8 (f8E4M3FN, f8E5M2) or i8}}
  %x = tile.mma %acc, %a[%r], %a[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 32], swizzle = 128, panel = 32>,
      b_layout = #tile.layout<[64, 32], swizzle = 128, panel = 32>, k = 32}
      : !tile.frag<64x64xf32>, !tile.ptr<f32, shared>, !tile.ptr<f32, shared>
  tile.return
}

// -----

tile.kernel @extract(%r: i32) {
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{index must be below the elements per thread (32)}}
  %x = tile.frag_extract %acc[32] : !tile.frag<64x64xf32> -> f32
  tile.return
}

// -----

tile.kernel @wait() {
  // expected-error @+1 {{pending must be 0..7}}
  tile.wgmma_wait 8
  tile.return
}

// -----

tile.kernel @wait_after_i32(%v: i32) {
  // expected-error @+1 {{'after' must be an f32, or a per_row, per_col or fragment of f32}}
  tile.wgmma_wait 0 after %v : i32
  tile.return
}

// -----

tile.kernel @wait_after_f16_frag() {
  %x = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{'after' must be an f32, or a per_row, per_col or fragment of f32}}
  tile.wgmma_wait 0 after %x : !tile.frag<64x64xf16>
  tile.return
}

// -----

tile.kernel @rega_f32(%r: i32) {
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f32, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operand a must be an f16, bf16 or fp8 fragment}}
  %x = tile.mma_reg_a %acc, %a, %b[%r] {b_k_major = true,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 32>}
      : !tile.frag<64x64xf32>, !tile.frag<64x64xf32>, !tile.ptr<f32, shared>
  tile.return
}

// -----

tile.kernel @rega_rows(%r: i32) {
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %a = tile.frag_zeros : !tile.frag<128x64xf16>
  // expected-error @+1 {{operand a must have the accumulator's rows}}
  %x = tile.mma_reg_a %acc, %a, %b[%r] {b_k_major = true,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>}
      : !tile.frag<64x64xf32>, !tile.frag<128x64xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @rega_k16(%r: i32) {
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %a = tile.frag_zeros : !tile.frag<64x24xf16>
  // expected-error @+1 {{operand a's columns (k) must be a multiple of 16}}
  %x = tile.mma_reg_a %acc, %a, %b[%r] {b_k_major = true,
      b_layout = #tile.layout<[64, 24], swizzle = 32, panel = 16>}
      : !tile.frag<64x64xf32>, !tile.frag<64x24xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @rega_binner(%r: i32) {
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %a = tile.frag_zeros : !tile.frag<64x32xf16>
  // expected-error @+1 {{operand b's inner dimension must be k}}
  %x = tile.mma_reg_a %acc, %a, %b[%r] {b_k_major = true,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>}
      : !tile.frag<64x64xf32>, !tile.frag<64x32xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// fp8 wgmma has no transpose: an MN-major operand is refused.
tile.kernel @fp8_mn_major(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  // expected-error @+1 {{fp8 operands must both be K-major}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = false,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 128>,
      b_layout = #tile.layout<[128, 128], swizzle = 128, panel = 128>, k = 128}
      : !tile.frag<64x128xf32>, !tile.ptr<f8E4M3FN, shared>, !tile.ptr<f8E4M3FN, shared>
  tile.return
}

// -----

// k32 steps for fp8: k = 16 is not a whole instruction.
tile.kernel @fp8_k16(%r: i32) {
  %a = tile.shared_alloc {static_count = 1024 : i64} -> !tile.ptr<f8E5M2, shared>
  %b = tile.shared_alloc {static_count = 2048 : i64} -> !tile.ptr<f8E5M2, shared>
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  // expected-error @+1 {{k must be a positive multiple of 32}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 16], swizzle = 32, panel = 32>,
      b_layout = #tile.layout<[128, 16], swizzle = 32, panel = 32>, k = 16}
      : !tile.frag<64x128xf32>, !tile.ptr<f8E5M2, shared>, !tile.ptr<f8E5M2, shared>
  tile.return
}

// -----

// fp8 with f16 does not mix (e4m3 with e5m2 does).
tile.kernel @fp8_f16(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operand b elements differ from the other operand's}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 128>,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 128}
      : !tile.frag<64x64xf32>, !tile.ptr<f8E4M3FN, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @fp8_cols() {
  // expected-error @+1 {{an fp8 fragment's cols must be a multiple of 32, not 48}}
  %x = tile.frag_zeros : !tile.frag<64x48xf8E4M3FN>
  tile.return
}

// -----

tile.kernel @rega_fp8_mn_major_b(%r: i32) {
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %a = tile.frag_zeros : !tile.frag<64x64xf8E4M3FN>
  // expected-error @+1 {{an fp8 operand b must be K-major}}
  %x = tile.mma_reg_a %acc, %a, %b[%r] {b_k_major = false,
      b_layout = #tile.layout<[64, 64], swizzle = 64, panel = 64>}
      : !tile.frag<64x64xf32>, !tile.frag<64x64xf8E4M3FN>, !tile.ptr<f8E4M3FN, shared>
  tile.return
}

// -----

tile.kernel @rega_fp8_k(%r: i32) {
  %b = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  %a = tile.frag_zeros : !tile.frag<64x32xf16>
  // expected-error @+1 {{operand b elements differ from the other operand's}}
  %x = tile.mma_reg_a %acc, %a, %b[%r] {b_k_major = true,
      b_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>}
      : !tile.frag<64x64xf32>, !tile.frag<64x32xf16>, !tile.ptr<f8E4M3FN, shared>
  tile.return
}

// -----

// An fp8 fragment holds wgmma's register-A layout: no op of the algebra,
// no accumulator, no store takes it.
tile.kernel @fp8_arith() {
  %a = tile.frag_zeros : !tile.frag<64x64xf8E4M3FN>
  // expected-error @+1 {{operand #0 must be}}
  %x = tile.frag_arith add %a, %a : !tile.frag<64x64xf8E4M3FN>, !tile.frag<64x64xf8E4M3FN> -> !tile.frag<64x64xf8E4M3FN>
  tile.return
}

// -----

tile.kernel @fp8_reduce() {
  %a = tile.frag_zeros : !tile.frag<64x64xf8E5M2>
  // expected-error @+1 {{operand #0 must be fragment in the accumulator layout}}
  %x = tile.frag_reduce max %a : !tile.frag<64x64xf8E5M2> -> !tile.per_row<64xf32>
  tile.return
}

// -----

tile.kernel @fp8_convert_back() {
  %a = tile.frag_zeros : !tile.frag<64x64xf8E4M3FN>
  // expected-error @+1 {{operand #0 must be}}
  %x = tile.frag_convert %a : !tile.frag<64x64xf8E4M3FN> -> !tile.frag<64x64xf32>
  tile.return
}


// -----

// wgmma's .f16 accumulator takes .f16 and fp8 operands: bf16 x bf16 is .f32 only.
tile.kernel @bf16_f16acc(%r: i32) {
  %a = tile.shared_alloc {alignment = 1024 : i64, static_count = 4096 : i64} -> !tile.ptr<bf16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{bf16 operands need an f32 accumulator}}
  %x = tile.mma %acc, %a[%r], %a[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x64xf16>, !tile.ptr<bf16, shared>, !tile.ptr<bf16, shared>
  tile.return
}

// -----

// A column view starts on a swizzle atom: a constant column inside a panel
// (64 f16 of a 128-byte swizzled tile) is refused.
tile.kernel @cols_inside_atom(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %c = arith.constant 32 : i32
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{column view of operand a at 32 must start on a panel (64 elements) and end by 128}}
  %x = tile.mma %acc, %a[%r, %c], %b[%r] {a_k_major = false, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// ... and one that ends past the tile's inner dimension.
tile.kernel @cols_past_end(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %c = arith.constant 128 : i32
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{column view of operand a at 128 must start on a panel (64 elements) and end by 128}}
  %x = tile.mma %acc, %a[%r, %c], %b[%r] {a_k_major = false, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// The view's extent (here N = 32 of an MN-major b, 64-element panels) is
// whole atoms too, whatever its (runtime) start.
tile.kernel @cols_part_atom(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x32xf32>
  // expected-error @+1 {{a column view of operand b is whole swizzle atoms: N (32) must be a multiple of the panel (64) and at most the inner dimension (128)}}
  %x = tile.mma %acc, %a[%r], %b[%r, %r] {a_k_major = true, b_k_major = false,
      a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x32xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// Without a column view the inner dimension is the whole extent.
tile.kernel @mn_major_wider(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operand a's inner dimension must be M}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = false, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// tile.mma_reg_a's b takes the same column view.
tile.kernel @rega_cols_inside_atom(%r: i32) {
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %c = arith.constant 16 : i32
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  %acc = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{column view of operand b at 16 must start on a panel (64 elements) and end by 128}}
  %x = tile.mma_reg_a %acc, %a, %b[%r, %c] {b_k_major = false,
      b_layout = #tile.layout<[64, 128], swizzle = 128, panel = 64>}
      : !tile.frag<64x64xf32>, !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// i8 operands accumulate in i32 only (wgmma .s8/.u8 has .dtype .s32).
tile.kernel @int8_f32_acc(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<i8, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<i8, shared>
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  // expected-error @+1 {{i8 operands need an i32 accumulator}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 128>,
      b_layout = #tile.layout<[128, 128], swizzle = 128, panel = 128>, k = 128}
      : !tile.frag<64x128xf32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  tile.return
}

// -----

// An i32 accumulator takes i8 operands only.
tile.kernel @f16_i32_acc(%r: i32) {
  %a = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %b = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f16, shared>
  %acc = tile.frag_zeros : !tile.frag<64x128xi32>
  // expected-error @+1 {{an i32 accumulator takes i8 operands only}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 64], swizzle = 128, panel = 64>,
      b_layout = #tile.layout<[128, 64], swizzle = 128, panel = 64>, k = 64}
      : !tile.frag<64x128xi32>, !tile.ptr<f16, shared>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// Integer wgmma has no transpose either: both operands K-major.
tile.kernel @int8_mn_major(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<i8, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<i8, shared>
  %acc = tile.frag_zeros : !tile.frag<64x128xi32>
  // expected-error @+1 {{i8 operands must both be K-major}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = false, b_k_major = true,
      a_layout = #tile.layout<[128, 64], swizzle = 64, panel = 64>,
      b_layout = #tile.layout<[128, 128], swizzle = 128, panel = 128>, k = 128}
      : !tile.frag<64x128xi32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  tile.return
}

// -----

// Integer shapes: N = 40 is an f16 / fp8 shape, not an .s8 one.
tile.kernel @int8_n40(%r: i32) {
  %a = tile.shared_alloc {static_count = 2048 : i64} -> !tile.ptr<i8, shared>
  %b = tile.shared_alloc {static_count = 1280 : i64} -> !tile.ptr<i8, shared>
  %acc = tile.frag_zeros : !tile.frag<64x40xi32>
  // expected-error @+1 {{integer wgmma has no N = 40 (8, 16, 24 or a multiple of 16 in 32..256)}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = true,
      a_layout = #tile.layout<[64, 32], swizzle = 32, panel = 32>,
      b_layout = #tile.layout<[40, 32], swizzle = 32, panel = 32>, k = 32}
      : !tile.frag<64x40xi32>, !tile.ptr<i8, shared>, !tile.ptr<i8, shared>
  tile.return
}

// -----

// The signedness attributes belong to i8 operands.
tile.kernel @unsigned_fp8(%r: i32) {
  %a = tile.shared_alloc {static_count = 8192 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %b = tile.shared_alloc {static_count = 16384 : i64} -> !tile.ptr<f8E4M3FN, shared>
  %acc = tile.frag_zeros : !tile.frag<64x128xf32>
  // expected-error @+1 {{a_unsigned / b_unsigned apply to i8 operands only}}
  %x = tile.mma %acc, %a[%r], %b[%r] {a_k_major = true, b_k_major = true, a_unsigned,
      a_layout = #tile.layout<[64, 128], swizzle = 128, panel = 128>,
      b_layout = #tile.layout<[128, 128], swizzle = 128, panel = 128>, k = 128}
      : !tile.frag<64x128xf32>, !tile.ptr<f8E4M3FN, shared>, !tile.ptr<f8E4M3FN, shared>
  tile.return
}
