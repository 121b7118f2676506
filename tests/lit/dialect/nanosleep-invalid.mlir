// RUN: tile-opt %s -split-input-file -verify-diagnostics

// The count is an i32 (PTX nanosleep.u32 takes 32 bits).
tile.kernel @f32_count(%x: f32) {
  // expected-error @+1 {{'tile.nanosleep' op operand #0 must be 32-bit signless integer, but got 'f32'}}
  "tile.nanosleep"(%x) : (f32) -> ()
  tile.return
}

// -----

tile.kernel @i64_count(%x: i64) {
  // expected-error @+1 {{'tile.nanosleep' op operand #0 must be 32-bit signless integer, but got 'i64'}}
  "tile.nanosleep"(%x) : (i64) -> ()
  tile.return
}
