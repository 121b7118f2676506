// REQUIRES: ptxas
// RUN: tile-opt %s --split-input-file --verify-diagnostics --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tilec %S/Inputs/mbarrier.tile --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/mbarrier.tile -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// mbarrier init/arrive/expect_tx are MLIR 22's NVVM ops (the relaxed flag and
// the scope as attributes, the state space from the pointer's address space);
// the waits are one inline-PTX spin each, with the decided order and scope.

// CHECK-LABEL: llvm.func @k(
tile.kernel @k(%n: i32, %rank: i32) attributes {cluster_dims = array<i32: 2>} {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %one = arith.constant 1 : i32
  %par = arith.constant 0 : i32
  // CHECK: nvvm.mbarrier.init %[[B:.*]], %{{.*}} : !llvm.ptr<3>, i32
  tile.mbarrier_init %b, %one : !tile.ptr<i64, shared>
  // CHECK: nvvm.mbarrier.arrive %[[B]] : !llvm.ptr<3>
  tile.mbarrier_arrive %b {order = #tile<order release>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  // CHECK: nvvm.mbarrier.arrive %[[B]] {relaxed = true, scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>
  tile.mbarrier_arrive %b {order = #tile<order relaxed>, scope = #tile<scope cluster>} : !tile.ptr<i64, shared>
  // CHECK: nvvm.mbarrier.arrive.expect_tx %[[B]], %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32
  tile.mbarrier_arrive %b expect_tx %n {order = #tile<order release>, scope = #tile<scope cluster>} : !tile.ptr<i64, shared>
  // CHECK: %[[R:.*]] = nvvm.mapa %[[B]], %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
  %r = tile.mapa %b, %rank : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  // CHECK: nvvm.mbarrier.arrive %[[R]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  tile.mbarrier_arrive %r {order = #tile<order release>, scope = #tile<scope cluster>} : !tile.ptr<i64, cluster>
  // CHECK: nvvm.mbarrier.arrive.expect_tx %[[R]], %{{.*}} {relaxed = true, scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  tile.mbarrier_arrive %r expect_tx %n {order = #tile<order relaxed>, scope = #tile<scope cluster>} : !tile.ptr<i64, cluster>
  // CHECK: nvvm.mbarrier.expect_tx %[[B]], %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32
  tile.mbarrier_expect_tx %b, %n {scope = #tile<scope cluster>} : !tile.ptr<i64, shared>
  // CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred done;\0A\09TILE_WAIT:\0A\09mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [$0], $1;\0A\09@!done bra TILE_WAIT;\0A\09}", "r,r,~{memory}"
  tile.mbarrier_wait %b parity %par {order = #tile<order acquire>, scope = #tile<scope cluster>} : !tile.ptr<i64, shared>
  // CHECK: %[[D:.*]] = llvm.inline_asm has_side_effects "{\0A\09.reg .pred done;\0A\09mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 done, [$1], $2;\0A\09selp.u32 $0, 1, 0, done;\0A\09}", "=r,r,r,~{memory}"
  // CHECK: llvm.icmp "ne" %[[D]], %{{.*}} : i32
  %done = tile.mbarrier_try_wait %b, %par {order = #tile<order relaxed>, scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.return
}

// PTX-LABEL: .entry mbarriers(
// `.shared` is `.shared::cta` (PTX ISA 5.1.5); the state of a local arrive
// goes to a dead register; the count of 1 may be explicit.
// PTX: mbarrier.init.shared.b64 [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: fence.mbarrier_init.release.cluster;
// A release arrive at cta scope is the instruction's default `.sem`/`.scope`.
// PTX: mbarrier.arrive.shared.b64 %rd{{[0-9]+}}, [%r{{[0-9]+}}];
// PTX: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done,
// PTX: mbarrier.arrive.relaxed.cta.shared.b64 %rd{{[0-9]+}}, [%r{{[0-9]+}}]
// PTX: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r{{[0-9]+}}]
// PTX: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%r{{[0-9]+}}]
// PTX: mbarrier.arrive.expect_tx.release.cluster.shared.b64 %rd{{[0-9]+}}, [%r{{[0-9]+}}+16], %r{{[0-9]+}};
// PTX: mbarrier.expect_tx.relaxed.cta.shared.b64 [%r{{[0-9]+}}+24], %r{{[0-9]+}};
// PTX: mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 done,
