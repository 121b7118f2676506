// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// The one ld/st builder (LoadStorePTX.cpp): qualifiers in PTX ISA order,
// vectors of sub-word elements as 32-bit words, the policy as the last operand.

// CHECK-LABEL: llvm.func @hints
// CHECK: "createpolicy.fractional.L2::evict_first.b64 $0, 0f3F000000;", "=l"
// CHECK: "ld.global.nc.L1::evict_first.L2::cache_hint.L2::256B.v4.b32 {$0, $1, $2, $3}, [$4], $5;", "=r,=r,=r,=r,l,l,~{memory}"
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK: "st.global.cs.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,~{memory}"
// CHECK: "ld.acquire.gpu.global.v2.b32 {$0, $1}, [$2];"
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<1>
tile.kernel @hints(%h: !tile.ptr<f16, global>, %x: !tile.ptr<f32, global>) {
  %P = tile.create_policy evict_first fraction 0.5 : i64
  %v = tile.load %h policy %P {cache = #tile<cache nc>, evict = #tile<evict evict_first>, prefetch = 256 : i32} : !tile.ptr<f16, global> -> vector<8xf16>
  tile.store %v, %h {cache = #tile<cache cs>} : vector<8xf16>, !tile.ptr<f16, global>
  %a = tile.load %x {order = #tile<order acquire>} : !tile.ptr<f32, global> -> vector<2xf32>
  %b = tile.load %x : !tile.ptr<f32, global> -> vector<4xf32>
  %c = tile.load %h : !tile.ptr<f16, global> -> vector<2xf16>
  tile.store %c, %h : vector<2xf16>, !tile.ptr<f16, global>
  tile.return
}
