// RUN: tile-opt %s -split-input-file -verify-diagnostics

// An f32 reduction is a butterfly of shfl.sync.bfly over the whole warp:
// add, min or max only, with the constant full mask (the butterfly reads
// every lane; PTX has no float redux.sync on sm_90).
tile.kernel @f32_and(%x: f32) attributes {req_threads = array<i32: 32>} {
  %full = arith.constant -1 : i32
  // expected-error @+1 {{'tile.redux' op of an f32 is add, min or max, not and}}
  %r = tile.redux and %x, %full : f32
  tile.return
}

// -----

tile.kernel @f32_umax(%x: f32) attributes {req_threads = array<i32: 32>} {
  %full = arith.constant -1 : i32
  // expected-error @+1 {{'tile.redux' op of an f32 is add, min or max, not umax}}
  %r = tile.redux umax %x, %full : f32
  tile.return
}

// -----

tile.kernel @f32_partial_mask(%x: f32) attributes {req_threads = array<i32: 32>} {
  %half = arith.constant 65535 : i32
  // expected-error @+1 {{'tile.redux' op of an f32 reads every lane: its mask must be the constant -1}}
  %r = tile.redux add %x, %half : f32
  tile.return
}

// -----

tile.kernel @f32_runtime_mask(%x: f32, %m: i32) attributes {req_threads = array<i32: 32>} {
  // expected-error @+1 {{'tile.redux' op of an f32 reads every lane: its mask must be the constant -1}}
  %r = tile.redux max %x, %m : f32
  tile.return
}

// -----

tile.kernel @f16_value(%x: f16) attributes {req_threads = array<i32: 32>} {
  %full = arith.constant -1 : i32
  // expected-error @+1 {{'tile.redux' op operand #0 must be 32-bit signless integer or 32-bit float, but got 'f16'}}
  %r = tile.redux add %x, %full : f16
  tile.return
}
