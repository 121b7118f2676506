// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// A vector access moves 4, 8, 16 or 32 bytes: 16 lanes of 1-byte elements
// are one ld/st.v4.b32, 32 bytes (8 f32, 16 bf16, 32 u8, 4 f64) two of them.

// CHECK-LABEL: tile.kernel @bytes16
// CHECK: tile.load %{{.*}} : !tile.ptr<i8, global> -> vector<16xi8>
// CHECK: tile.store %{{.*}}, %{{.*}} : vector<16xi8>, !tile.ptr<i8, shared>
tile.kernel @bytes16(%p: !tile.ptr<i8, global>) {
  %v = tile.load %p : !tile.ptr<i8, global> -> vector<16xi8>
  %s = tile.shared_alloc {static_count = 16 : i64} -> !tile.ptr<i8, shared>
  tile.store %v, %s : vector<16xi8>, !tile.ptr<i8, shared>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @bytes32
// CHECK: tile.load %{{.*}} : !tile.ptr<f32, global> -> vector<8xf32>
// CHECK: tile.load %{{.*}} : !tile.ptr<bf16, global> -> vector<16xbf16>
// CHECK: tile.load %{{.*}} {cache = #tile<cache nc>} : !tile.ptr<i8, global> -> vector<32xi8>
// CHECK: tile.store %{{.*}}, %{{.*}} : vector<4xf64>, !tile.ptr<f64, shared>
tile.kernel @bytes32(%p: !tile.ptr<f32, global>, %h: !tile.ptr<bf16, global>, %b: !tile.ptr<i8, global>, %d: !tile.ptr<f64, global>) {
  %v = tile.load %p : !tile.ptr<f32, global> -> vector<8xf32>
  %w = tile.load %h : !tile.ptr<bf16, global> -> vector<16xbf16>
  %x = tile.load %b {cache = #tile<cache nc>} : !tile.ptr<i8, global> -> vector<32xi8>
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<f64, shared>
  %y = tile.load %d : !tile.ptr<f64, global> -> vector<4xf64>
  tile.store %y, %s : vector<4xf64>, !tile.ptr<f64, shared>
  tile.return
}

// -----

tile.kernel @halves32(%p: !tile.ptr<f16, global>) {
  // expected-error @+1 {{a vector access moves 4, 8, 16 or 32 bytes, not 64}}
  %v = tile.load %p : !tile.ptr<f16, global> -> vector<32xf16>
  tile.return
}

// -----

tile.kernel @f32x16(%p: !tile.ptr<f32, global>) {
  // expected-error @+1 {{a vector access moves 4, 8, 16 or 32 bytes, not 64}}
  %v = tile.load %p : !tile.ptr<f32, global> -> vector<16xf32>
  tile.return
}
