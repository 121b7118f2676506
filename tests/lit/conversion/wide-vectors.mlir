// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 | FileCheck %s --check-prefix=PTX
// A 32-byte vector in global or shared memory moves as two 16-byte halves,
// low half at the address, high half 16 bytes past it, each aligned to 16
// (sm_90's widest ld/st is .v4.b32): plain accesses as two LLVM accesses,
// hinted or ordered ones as two inline ld/st with the same qualifiers. A
// `var`'s local slot keeps the whole vector (SROA).

// CHECK-LABEL: llvm.func @halves(
// CHECK: %[[LO:.*]] = llvm.load %[[P:.*]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[HP:.*]] = llvm.getelementptr %[[P]][16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK: %[[HI:.*]] = llvm.load %[[HP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.shufflevector %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>
// CHECK: "ld.global.nc.v4.b32 {$0, $1, $2, $3}, [$4];"
// CHECK: llvm.getelementptr %{{.*}}[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK: "ld.global.nc.v4.b32 {$0, $1, $2, $3}, [$4];"
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<16xi8>
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xbf16>
// CHECK: llvm.getelementptr %{{.*}}[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: "st.global.cs.v4.b32 [$0], {$1, $2, $3, $4};"
// CHECK: "st.global.cs.v4.b32 [$0], {$1, $2, $3, $4};"
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 32 : i64} : vector<8xf32>, !llvm.ptr
// PTX-LABEL: .entry halves(
// PTX-COUNT-2: ld.global.v4.b32
// PTX-COUNT-2: ld.global.nc.v4.b32
// PTX-COUNT-2: st.shared.v4.b32
// PTX-COUNT-2: st.global.cs.v4.b32
tile.kernel @halves(%p: !tile.ptr<f32, global>, %b: !tile.ptr<i8, global>, %h: !tile.ptr<bf16, global>) {
  %v = tile.load %p : !tile.ptr<f32, global> -> vector<8xf32>
  %x = tile.load %b {cache = #tile<cache nc>} : !tile.ptr<i8, global> -> vector<32xi8>
  %w = tile.load %h : !tile.ptr<bf16, global> -> vector<16xbf16>
  %s = tile.shared_alloc {alignment = 16 : i64, static_count = 16 : i64} -> !tile.ptr<bf16, shared>
  tile.store %w, %s : vector<16xbf16>, !tile.ptr<bf16, shared>
  %y = tile.load %s : !tile.ptr<bf16, shared> -> vector<16xbf16>
  tile.store %y, %h : vector<16xbf16>, !tile.ptr<bf16, global>
  tile.store %x, %b {cache = #tile<cache cs>} : vector<32xi8>, !tile.ptr<i8, global>
  %slot = tile.local_var -> !tile.ptr<vector<8xf32>, local>
  tile.store %v, %slot : vector<8xf32>, !tile.ptr<vector<8xf32>, local>
  %z = tile.load %slot : !tile.ptr<vector<8xf32>, local> -> vector<8xf32>
  tile.store %z, %p : vector<8xf32>, !tile.ptr<f32, global>
  tile.return
}
