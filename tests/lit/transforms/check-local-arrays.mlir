// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-check-local-arrays))' -split-input-file -verify-diagnostics

// tile-check-local-arrays, on the folded IR (after unrolling made loop
// variables constants): a constant index outside the array is an error; a
// run-time index keeps the array in local memory: a
// warning, with its hint.

tile.kernel @in_bounds(%v: f32) {
  %r = tile.local_array "r"[4] -> !tile.ptr<f32, local>
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %p0 = tile.ptr_add %r, %c0 : !tile.ptr<f32, local>, i32
  %p3 = tile.ptr_add %r, %c3 : !tile.ptr<f32, local>, i32
  tile.store %v, %p0 : f32, !tile.ptr<f32, local>
  tile.store %v, %p3 : f32, !tile.ptr<f32, local>
  tile.return
}

// -----

tile.kernel @out_of_bounds(%v: f32) {
  %r = tile.local_array "r"[4] -> !tile.ptr<f32, local>
  %c4 = arith.constant 4 : i32
  %cm1 = arith.constant -1 : i32
  // expected-error @+2 {{index 4 is out of bounds for local array 'r' of 4 elements}}
  // expected-note @+1 {{hint: valid indices are 0 .. 3}}
  %p = tile.ptr_add %r, %c4 : !tile.ptr<f32, local>, i32
  // expected-error @+2 {{index -1 is out of bounds for local array 'r' of 4 elements}}
  // expected-note @+1 {{hint: valid indices are 0 .. 3}}
  %q = tile.ptr_add %r, %cm1 : !tile.ptr<f32, local>, i32
  tile.store %v, %p : f32, !tile.ptr<f32, local>
  tile.store %v, %q : f32, !tile.ptr<f32, local>
  tile.return
}

// -----

tile.kernel @runtime_index(%v: f32, %i: i32, %j: i32) {
  %r = tile.local_array "r"[8] -> !tile.ptr<f32, local>
  %t = tile.local_array "t"[2] -> !tile.ptr<i32, local>
  // expected-warning @+2 {{local array 'r' is kept in local memory: this index is not a compile-time constant}}
  // expected-note @+1 {{hint: index it with constants and the variables of fully unrolled loops (`for i in 0 .. N unroll`) to keep it in registers}}
  %p = tile.ptr_add %r, %i : !tile.ptr<f32, local>, i32
  // A constant index beside it is fine.
  %c1 = arith.constant 1 : i32
  %q = tile.ptr_add %r, %c1 : !tile.ptr<f32, local>, i32
  // expected-warning @+2 {{local array 't' is kept in local memory}}
  // expected-note @+1 {{hint: index it with constants}}
  %s = tile.ptr_add %t, %j : !tile.ptr<i32, local>, i32
  tile.store %v, %p : f32, !tile.ptr<f32, local>
  tile.store %v, %q : f32, !tile.ptr<f32, local>
  tile.store %i, %s : i32, !tile.ptr<i32, local>
  tile.return
}
