// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-check-tma-coordinates))' -split-input-file -verify-diagnostics

// tile-check-tma-coordinates: a TMA box must start on a 16-byte boundary in
// its innermost dimension (the GPU traps otherwise). Known off a boundary:
// an error; not known on one: a warning; a visible multiple: silent.

tile.kernel @aligned(%map: !tile.tensormap<f32, 1>, %map2: !tile.tensormap<f16, 2>, %k: i32, %n: i32) {
  %t = tile.shared_alloc {alignment = 128 : i64, static_count = 64 : i64} -> !tile.ptr<f32, shared>
  %h = tile.shared_alloc {alignment = 128 : i64, static_count = 64 : i64} -> !tile.ptr<f16, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %cm8 = arith.constant -8 : i32
  %c16 = arith.constant 16 : i32
  %k4 = arith.muli %k, %c4 : i32
  tile.tma_load %t, %map[%k4], %bar <[64], swizzle = 0, panel = 64> : !tile.ptr<f32, shared>, !tile.tensormap<f32, 1>, !tile.ptr<i64, shared>
  tile.tma_load %t, %map[%cm8], %bar <[64], swizzle = 0, panel = 64> : !tile.ptr<f32, shared>, !tile.tensormap<f32, 1>, !tile.ptr<i64, shared>
  // n * 16 + 8 of f16: 8 elements = 16 bytes.
  %n16 = arith.muli %n, %c16 : i32
  %c8 = arith.constant 8 : i32
  %col = arith.addi %n16, %c8 : i32
  tile.tma_load %h, %map2[%k, %col], %bar <[8, 8], swizzle = 0, panel = 8> : !tile.ptr<f16, shared>, !tile.tensormap<f16, 2>, !tile.ptr<i64, shared>
  scf.for %i = %c0 to %n step %c4 : i32 {
    tile.tma_prefetch %map[%i] : !tile.tensormap<f32, 1>
  }
  tile.tma_store %map[%c0], %t <[64], swizzle = 0, panel = 64> : !tile.tensormap<f32, 1>, !tile.ptr<f32, shared>
  tile.return
}

// -----

tile.kernel @known_off(%map: !tile.tensormap<f32, 1>, %map2: !tile.tensormap<f16, 2>, %n: i32) {
  %t = tile.shared_alloc {alignment = 128 : i64, static_count = 64 : i64} -> !tile.ptr<f32, shared>
  %h = tile.shared_alloc {alignment = 128 : i64, static_count = 64 : i64} -> !tile.ptr<f16, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c5 = arith.constant 5 : i32
  %cm1 = arith.constant -1 : i32
  // expected-error @+2 {{the innermost coordinate of this box is 1 more than a multiple of 4 elements (16 bytes of the tensor's 4-byte elements): a TMA load whose box does not start on a 16-byte boundary in its innermost dimension traps}}
  // expected-note @+1 {{hint: start the box at a multiple of 4 elements}}
  tile.tma_load %t, %map[%c5], %bar <[64], swizzle = 0, panel = 64> : !tile.ptr<f32, shared>, !tile.tensormap<f32, 1>, !tile.ptr<i64, shared>
  // expected-error @+2 {{is 3 more than a multiple of 4 elements (16 bytes of the tensor's 4-byte elements): a TMA store}}
  // expected-note @+1 {{hint:}}
  tile.tma_store %map[%cm1], %t <[64], swizzle = 0, panel = 64> : !tile.tensormap<f32, 1>, !tile.ptr<f32, shared>
  // n * 8 + 3 of f16.
  %c8 = arith.constant 8 : i32
  %c3 = arith.constant 3 : i32
  %n8 = arith.muli %n, %c8 : i32
  %col = arith.addi %n8, %c3 : i32
  // expected-error @+2 {{is 3 more than a multiple of 8 elements (16 bytes of the tensor's 2-byte elements): a TMA prefetch}}
  // expected-note @+1 {{hint:}}
  tile.tma_prefetch %map2[%n, %col] : !tile.tensormap<f16, 2>
  tile.return
}

// -----

tile.kernel @not_known(%map: !tile.tensormap<f32, 1>, %i: i32) {
  %t = tile.shared_alloc {alignment = 128 : i64, static_count = 64 : i64} -> !tile.ptr<f32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-warning @+2 {{the innermost coordinate of this box is not known to be a multiple of 4 elements (16 bytes of the tensor's 4-byte elements): a TMA load}}
  // expected-note @+1 {{hint: compute it as a visible multiple, e.g. `k * 4` or `(i / 4) * 4`}}
  tile.tma_load %t, %map[%i], %bar <[64], swizzle = 0, panel = 64> : !tile.ptr<f32, shared>, !tile.tensormap<f32, 1>, !tile.ptr<i64, shared>
  tile.return
}
