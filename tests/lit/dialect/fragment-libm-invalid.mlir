// RUN: tile-opt %s -split-input-file -verify-diagnostics

// tile.frag_math log1p ... erfc and tile.frag_arith atan2 / hypot / fmod:
// f32 elements only (the scalar functions compute in f32; MLIRGen converts
// first), and no approximate form (libdevice's __nv_<fn>f only).

tile.kernel @log1p_approx() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{log1p has no approximate form}}
  %m = tile.frag_math log1p %a {approx} : !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @erfc_approx() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{erfc has no approximate form}}
  %m = tile.frag_math erfc %a {approx} : !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @cbrt_f16() {
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{cbrt takes f32 elements}}
  %m = tile.frag_math cbrt %a : !tile.frag<64x64xf16>
  tile.return
}

// -----

tile.kernel @atan2_i32(%x: i32) {
  %a = tile.frag_zeros : !tile.frag<64x64xi32>
  // expected-error @+1 {{atan2 takes f32 elements}}
  %r = tile.frag_arith atan2 %a, %x : !tile.frag<64x64xi32>, i32 -> !tile.frag<64x64xi32>
  tile.return
}

// -----

tile.kernel @hypot_bf16(%x: bf16) {
  %a = tile.frag_zeros : !tile.frag<64x64xbf16>
  // expected-error @+1 {{hypot takes f32 elements}}
  %r = tile.frag_arith hypot %a, %x : !tile.frag<64x64xbf16>, bf16 -> !tile.frag<64x64xbf16>
  tile.return
}

// -----

tile.kernel @fmod_f16(%x: f16) {
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{fmod takes f32 elements}}
  %r = tile.frag_arith fmod %a, %x : !tile.frag<64x64xf16>, f16 -> !tile.frag<64x64xf16>
  tile.return
}
