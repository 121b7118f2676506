// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Only a global pointer has a 64-bit address that means the same thing in
// every thread (a shared pointer is an offset into its CTA's window).
tile.kernel @shared_address(%p: !tile.ptr<i32, global>) {
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  // expected-error @+1 {{'tile.global_address' op operand #0 must be pointer to global memory, but got '!tile.ptr<i32, shared>'}}
  %a = "tile.global_address"(%s) : (!tile.ptr<i32, shared>) -> i64
  tile.return
}

// -----

// An address is 64 bits (.address_size 64).
tile.kernel @narrow_address(%x: i32) {
  // expected-error @+1 {{'tile.global_ptr' op operand #0 must be 64-bit signless integer, but got 'i32'}}
  %p = "tile.global_ptr"(%x) : (i32) -> !tile.ptr<f32, global>
  tile.return
}

// -----

tile.kernel @shared_result(%x: i64) {
  // expected-error @+1 {{'tile.global_ptr' op result #0 must be pointer to global memory, but got '!tile.ptr<f32, shared>'}}
  %p = "tile.global_ptr"(%x) : (i64) -> !tile.ptr<f32, shared>
  tile.return
}
