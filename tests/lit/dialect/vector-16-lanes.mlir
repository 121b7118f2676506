// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// 16 lanes exist for 1-byte elements only: every vector access moves 4, 8
// or 16 bytes (one ld/st.v4.b32 at most).

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

tile.kernel @halves16(%p: !tile.ptr<f16, global>) {
  // expected-error @+1 {{a vector access moves 4, 8 or 16 bytes, not 32}}
  %v = tile.load %p : !tile.ptr<f16, global> -> vector<16xf16>
  tile.return
}
