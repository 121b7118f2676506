// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Epilogue ops: every verifier check.

tile.kernel @arith_scalar_type(%x: f16) {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{operand #1 ('f16') does not broadcast to '!tile.frag<64x64xf32>'}}
  %b = tile.frag_arith add %a, %x : !tile.frag<64x64xf32>, f16 -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @arith_no_fragment(%x: f32) {
  // expected-error @+1 {{needs at least one fragment, per_row or per_col operand}}
  %b = tile.frag_arith mul %x, %x : f32, f32 -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @fma_shape() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  %b = tile.frag_zeros : !tile.frag<64x32xf32>
  // expected-error @+1 {{operand #2 ('!tile.frag<64x32xf32>') does not broadcast to '!tile.frag<64x64xf32>'}}
  %c = tile.frag_fma %a, %a, %b : !tile.frag<64x64xf32>, !tile.frag<64x64xf32>, !tile.frag<64x32xf32> -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @convert_shape() {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{converts between values of one kind and shape}}
  %c = tile.frag_convert %a : !tile.frag<64x64xf32> -> !tile.frag<128x64xf16>
  tile.return
}

// -----

tile.kernel @coord_dim(%t: i32) {
  // expected-error @+1 {{dim must be 0 (row) or 1 (column)}}
  %c = tile.frag_coord 2, %t : !tile.per_row<64xi32>
  tile.return
}

// -----

tile.kernel @coord_f16(%t: i32) {
  // expected-error @+1 {{gives i32 indices}}
  %c = tile.frag_coord 0, %t : !tile.per_row<64xf16>
  tile.return
}

// -----

tile.kernel @load_row_type(%p: !tile.ptr<f16, global>, %t: i32) {
  // expected-error @+1 {{loads elements of the result's type}}
  %c = tile.load_per_col %p, %t : !tile.ptr<f16, global> -> !tile.per_col<64xf32>
  tile.return
}

// -----

tile.kernel @load_per_row_type(%p: !tile.ptr<f16, global>, %t: i32) {
  // expected-error @+1 {{loads elements of the result's type}}
  %c = tile.load_per_row %p, %t : !tile.ptr<f16, global> -> !tile.per_row<64xf32>
  tile.return
}

// -----

tile.kernel @load_per_row_elem(%p: !tile.ptr<i8, global>, %t: i32) {
  // expected-error @+1 {{loads f32, f16, bf16 or i32 elements}}
  %c = tile.load_per_row %p, %t : !tile.ptr<i8, global> -> !tile.per_row<64xi1>
  tile.return
}

// -----

tile.kernel @load_row_space(%n: i32, %t: i32) attributes {cluster_dims = array<i32: 2>} {
  %s = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<f32, shared>
  %p = tile.mapa %s, %n : !tile.ptr<f32, shared> -> !tile.ptr<f32, cluster>
  // expected-error @+1 {{reads global or shared memory}}
  %c = tile.load_per_col %p, %t : !tile.ptr<f32, cluster> -> !tile.per_col<64xf32>
  tile.return
}

// -----

tile.kernel @store_tile_rank(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{stores into a 2-D tile}}
  tile.frag_store_tile %a, %s[%t], %t <[4096], swizzle = 0, panel = 4096> : !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

// A 32-bit fragment cannot go into a 16-bit tile (stmatrix moves b16).
tile.kernel @store_tile_elem(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{tile and fragment element types differ}}
  tile.frag_store_tile %a, %s[%t], %t <[64, 64], swizzle = 0, panel = 64> : !tile.frag<64x64xf32>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @store_tile_cols(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %a = tile.frag_zeros : !tile.frag<64x32xf16>
  // expected-error @+1 {{the tile has 64 columns, the fragment 32}}
  tile.frag_store_tile %a, %s[%t], %t <[64, 64], swizzle = 0, panel = 64> : !tile.frag<64x32xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @store_tile_rows(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %a = tile.frag_zeros : !tile.frag<128x32xf16>
  // expected-error @+1 {{the tile has fewer rows than the fragment}}
  tile.frag_store_tile %a, %s[%t], %t <[64, 32], swizzle = 0, panel = 32> : !tile.frag<128x32xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @store_tile_layout(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{invalid tile layout}}
  tile.frag_store_tile %a, %s[%t], %t <[64, 64], swizzle = 128, panel = 32> : !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @store_elem(%p: !tile.ptr<f16, global>, %ld: i64, %t: i32) {
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{pointer and fragment element types differ}}
  tile.frag_store %a, %p, %ld, %t : !tile.frag<64x64xf32>, !tile.ptr<f16, global>
  tile.return
}

// -----

tile.kernel @store_space(%n: i32, %ld: i64, %t: i32) attributes {cluster_dims = array<i32: 2>} {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f32, shared>
  %p = tile.mapa %s, %n : !tile.ptr<f32, shared> -> !tile.ptr<f32, cluster>
  %a = tile.frag_zeros : !tile.frag<64x64xf32>
  // expected-error @+1 {{stores to global or shared memory}}
  tile.frag_store %a, %p, %ld, %t : !tile.frag<64x64xf32>, !tile.ptr<f32, cluster>
  tile.return
}

// -----

tile.kernel @store_tile_odd_panel(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %a = tile.frag_zeros : !tile.frag<64x64xf16>
  // expected-error @+1 {{a panel of an odd number of elements splits the fragment's pairs}}
  tile.frag_store_tile %a, %s[%t], %t <[64, 64], swizzle = 0, panel = 1> : !tile.frag<64x64xf16>, !tile.ptr<f16, shared>
  tile.return
}

// -----

tile.kernel @load_frag_elem(%p: !tile.ptr<f16, global>, %ld: i64, %t: i32) {
  // expected-error @+1 {{pointer and fragment element types differ}}
  %a = tile.frag_load %p, %ld, %t : !tile.ptr<f16, global> -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @load_frag_space(%n: i32, %ld: i64, %t: i32) attributes {cluster_dims = array<i32: 2>} {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f32, shared>
  %p = tile.mapa %s, %n : !tile.ptr<f32, shared> -> !tile.ptr<f32, cluster>
  // expected-error @+1 {{loads from global or shared memory}}
  %a = tile.frag_load %p, %ld, %t : !tile.ptr<f32, cluster> -> !tile.frag<64x64xf32>
  tile.return
}

// -----

// frag_load_tile shares frag_store_tile's checks (verifyFragmentTile).
tile.kernel @load_tile_elem(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  // expected-error @+1 {{tile and fragment element types differ}}
  %a = tile.frag_load_tile %s[%t], %t <[64, 64], swizzle = 0, panel = 64> : !tile.ptr<f16, shared> -> !tile.frag<64x64xf32>
  tile.return
}

// -----

tile.kernel @load_tile_cols(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  // expected-error @+1 {{the tile has 64 columns, the fragment 32}}
  %a = tile.frag_load_tile %s[%t], %t <[64, 64], swizzle = 0, panel = 64> : !tile.ptr<f16, shared> -> !tile.frag<64x32xf16>
  tile.return
}

// -----

tile.kernel @load_tile_rank(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  // expected-error @+1 {{loads from a 2-D tile}}
  %a = tile.frag_load_tile %s[%t], %t <[4096], swizzle = 0, panel = 4096> : !tile.ptr<f16, shared> -> !tile.frag<64x64xf16>
  tile.return
}

// -----

tile.kernel @load_tile_odd_panel(%t: i32) {
  %s = tile.shared_alloc {static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  // expected-error @+1 {{a panel of an odd number of elements splits the fragment's pairs}}
  %a = tile.frag_load_tile %s[%t], %t <[64, 64], swizzle = 0, panel = 1> : !tile.ptr<f16, shared> -> !tile.frag<64x64xf16>
  tile.return
}
