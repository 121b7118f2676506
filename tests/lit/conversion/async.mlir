// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s
// RUN: tilec %S/Inputs/async.tile --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/async.tile -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// st.async has no NVVM op in MLIR 22: the PTX builder composes
// st.async.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.bN, with
// 32-bit shared::cluster addresses and f32 moved as .b32 bits.

// CHECK-LABEL: llvm.func @k(
tile.kernel @k(%i: i32, %l: i64, %f: f32, %rank: i32) attributes {cluster_dims = array<i32: 2>} {
  %b = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %w = tile.shared_alloc {static_count = 2 : i64} -> !tile.ptr<i64, shared>
  %fl = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<f32, shared>
  %m = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %rb = tile.mapa %b, %rank : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %rw = tile.mapa %w, %rank : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  %rf = tile.mapa %fl, %rank : !tile.ptr<f32, shared> -> !tile.ptr<f32, cluster>
  %rm = tile.mapa %m, %rank : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  // CHECK: llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r,~{memory}"
  tile.store_async (%i, %i, %i, %i), %rb, %rm : (i32, i32, i32, i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  // CHECK: llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [$0], {$1, $2}, [$3];", "r,l,l,r,~{memory}"
  tile.store_async (%l, %l), %rw, %rm : (i64, i64), !tile.ptr<i64, cluster>, !tile.ptr<i64, cluster>
  // CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
  // CHECK: llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r,~{memory}" %{{.*}}, %[[BITS]], %{{.*}}
  tile.store_async (%f), %rf, %rm : (f32), !tile.ptr<f32, cluster>, !tile.ptr<i64, cluster>
  tile.return
}

// PTX-LABEL: .entry stores(
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{[0-9]+}}];
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r{{[0-9]+}}], %r{{[0-9]+}}, [%r{{[0-9]+}}];
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%r{{[0-9]+}}], {%rd{{[0-9]+}}, %rd{{[0-9]+}}}, [%r{{[0-9]+}}];
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r{{[0-9]+}}], %r{{[0-9]+}}, [%r{{[0-9]+}}];
// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32
