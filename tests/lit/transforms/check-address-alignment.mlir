// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-check-address-alignment))' -split-input-file -verify-diagnostics

// tile-check-address-alignment: an access of B bytes (up to 16: ld/st.v4)
// whose address is known to be off a multiple of B from an aligned origin
// (a pointer parameter, a shared array or tile) is an error; offsets whose
// low bits are visible multiples, or not known, are silent.

tile.kernel @aligned(%p: !tile.ptr<f32, global>, %i: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %i4 = arith.muli %i, %c4 : i32
  // p + 4 elements, then a multiple of 4: 16-byte aligned.
  %q = tile.ptr_add %p, %c4 : !tile.ptr<f32, global>, i32
  %a = tile.ptr_add %q, %i4 : !tile.ptr<f32, global>, i32
  %v = tile.load %a : !tile.ptr<f32, global> -> vector<4xf32>
  // A run-time index with unknown low bits: the kernel's to keep.
  %b = tile.ptr_add %p, %i : !tile.ptr<f32, global>, i32
  %w = tile.load %b : !tile.ptr<f32, global> -> vector<4xf32>
  // p + 1 read as a scalar: 4 bytes at a multiple of 4.
  %s = tile.ptr_add %p, %c1 : !tile.ptr<f32, global>, i32
  %x = tile.load %s : !tile.ptr<f32, global> -> f32
  // A loop variable from 0 by 8 (its low bits are its start's).
  scf.for %j = %c0 to %n step %c8 : i32 {
    %e = tile.ptr_add %p, %j : !tile.ptr<f32, global>, i32
    tile.store %v, %e : vector<4xf32>, !tile.ptr<f32, global>
  }
  // A swizzled tile's element at an inner index that is a multiple of 8 f16.
  %t = tile.shared_alloc {alignment = 1024 : i64, static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %col = arith.muli %i, %c8 : i32
  %el = tile.tile_element %t[%i, %col] <[64, 64], swizzle = 128, panel = 64> : !tile.ptr<f16, shared>, i32, i32
  %h = tile.load %el : !tile.ptr<f16, shared> -> vector<8xf16>
  tile.return
}

// -----

tile.kernel @known_off(%p: !tile.ptr<f32, global>, %i: i32, %n: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %i4 = arith.muli %i, %c4 : i32
  %q = tile.ptr_add %p, %c1 : !tile.ptr<f32, global>, i32
  %a = tile.ptr_add %q, %i4 : !tile.ptr<f32, global>, i32
  // expected-error @+2 {{misaligned access: this load of vec<f32, 4> (16 bytes) is 4 bytes past a multiple of 16 from the start of the pointer parameter: it would trap}}
  // expected-note @+1 {{hint: start the access at an element index that is a multiple of 4}}
  %v = tile.load %a : !tile.ptr<f32, global> -> vector<4xf32>
  // One of two ways: p or p + 2, read as a vec4.
  %r = tile.ptr_add %p, %c2 : !tile.ptr<f32, global>, i32
  %sel = arith.select %c, %p, %r : !tile.ptr<f32, global>
  // expected-error @+2 {{is 8 bytes past a multiple of 16 from the start of the pointer parameter, on one of the ways its pointer may come}}
  // expected-note @+1 {{hint:}}
  tile.store %v, %sel : vector<4xf32>, !tile.ptr<f32, global>
  // A loop variable from 2 by 4: 8 bytes off at every iteration.
  scf.for %j = %c2 to %n step %c4 : i32 {
    %e = tile.ptr_add %p, %j : !tile.ptr<f32, global>, i32
    // expected-error @+2 {{is 8 bytes past a multiple of 16}}
    // expected-note @+1 {{hint:}}
    %w = tile.load %e : !tile.ptr<f32, global> -> vector<4xf32>
  }
  // A pointer advanced by one element per iteration (a loop-carried value).
  %end = scf.for %j = %c0 to %n step %c1 iter_args(%cur = %p) -> (!tile.ptr<f32, global>) : i32 {
    // expected-error @+2 {{on one of the ways its pointer may come}}
    // expected-note @+1 {{hint:}}
    %w = tile.load %cur : !tile.ptr<f32, global> -> vector<2xf32>
    %next = tile.ptr_add %cur, %c1 : !tile.ptr<f32, global>, i32
    scf.yield %next : !tile.ptr<f32, global>
  }
  tile.return
}

// -----

tile.kernel @shared(%i: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  // expected-note @+1 {{the shared array, 16-byte aligned, is declared here}}
  %s = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  // A peer's copy (mapa) keeps the offset: element 1 as a vec2 is 4 bytes off.
  %peer = tile.mapa %s, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %e = tile.ptr_add %peer, %c1 : !tile.ptr<i32, cluster>, i32
  // expected-error @+2 {{this load of 2 32-bit integers (8 bytes) is 4 bytes past a multiple of 8 from the start of the shared array}}
  // expected-note @+1 {{hint:}}
  %v = tile.load %e {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster> -> vector<2xi32>
  tile.return
}

// -----

tile.kernel @tile_element(%i: i32) {
  %c8 = arith.constant 8 : i32
  %c4 = arith.constant 4 : i32
  // expected-note @+1 {{declared here}}
  %t = tile.shared_alloc {alignment = 1024 : i64, static_count = 4096 : i64} -> !tile.ptr<f16, shared>
  %col8 = arith.muli %i, %c8 : i32
  %col = arith.addi %col8, %c4 : i32
  %el = tile.tile_element %t[%i, %col] <[64, 64], swizzle = 128, panel = 64> : !tile.ptr<f16, shared>, i32, i32
  // expected-error @+2 {{this load of vec<f16, 8> (16 bytes) is 8 bytes past a multiple of 16 from the start of the shared array}}
  // expected-note @+1 {{hint:}}
  %h = tile.load %el : !tile.ptr<f16, shared> -> vector<8xf16>
  tile.return
}
