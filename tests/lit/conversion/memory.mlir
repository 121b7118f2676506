// REQUIRES: ptxas
// RUN: tile-opt %s --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tilec %S/Inputs/memory.tile --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/memory.tile -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Weak accesses stay LLVM loads and stores; mapa is nvvm.mapa; ordered
// accesses and atomics are composed by the PTX builder with the exact .sem,
// .scope and state space (.shared::cta, .shared::cluster, .global).

// CHECK-LABEL: llvm.func @k(
tile.kernel @k(%g: !tile.ptr<i32, global>, %gf: !tile.ptr<f32, global>, %g8: !tile.ptr<i8, global>, %f: f32) attributes {cluster_dims = array<i32: 2>} {
  %a = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<i32, shared>
  // CHECK: %[[A:.*]] = llvm.inttoptr
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  %t = tile.sreg tid_x : i32
  // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  %r = tile.sreg cluster_ctarank : i32
  // CHECK: %[[P:.*]] = llvm.getelementptr %[[A]][%[[TID]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
  %p = tile.ptr_add %a, %t : !tile.ptr<i32, shared>, i32
  // CHECK: %[[Q:.*]] = nvvm.mapa %[[P]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
  %q = tile.mapa %p, %r : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %one = arith.constant 1 : i32
  // A used result needs atom; an unused relaxed one becomes red.
  // CHECK: llvm.inline_asm has_side_effects "atom.relaxed.cluster.shared::cluster.add.u32 $0, [$1], $2;", "=r,r,r,~{memory}"
  %old = tile.atomic_rmw add %q, %one {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster>, i32
  // CHECK: llvm.inline_asm has_side_effects "red.relaxed.cluster.shared::cluster.add.u32 [$0], $1;", "r,r,~{memory}"
  %unused = tile.atomic_rmw add %q, %one {scope = #tile<scope cluster>} : !tile.ptr<i32, cluster>, i32
  // CHECK: llvm.inline_asm has_side_effects "red.release.gpu.global.max.s32 [$0], $1;", "l,r,~{memory}"
  %unused2 = tile.atomic_rmw max %g, %old {order = #tile<order release>} : !tile.ptr<i32, global>, i32
  // exch never becomes red; acq_rel needs atom.
  // CHECK: "atom.acq_rel.gpu.global.exch.b32 $0, [$1], $2;"
  %unused3 = tile.atomic_rmw exch %g, %old {order = #tile<order acq_rel>} : !tile.ptr<i32, global>, i32
  // sc is fence.sc followed by the strongest one-sided form.
  // CHECK: "fence.sc.sys;\0A\09ld.acquire.sys.global.b32 $0, [$1];", "=r,l,~{memory}"
  %l = tile.load %g {order = #tile<order sc>, scope = #tile<scope sys>} : !tile.ptr<i32, global> -> i32
  // CHECK: "st.release.cluster.shared::cluster.b32 [$0], $1;", "r,r,~{memory}"
  tile.store %l, %q {order = #tile<order release>, scope = #tile<scope cluster>} : i32, !tile.ptr<i32, cluster>
  // Weak accesses stay LLVM loads and stores.
  // CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
  %w = tile.load %p : !tile.ptr<i32, shared> -> i32
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
  tile.store %w, %g : i32, !tile.ptr<i32, global>
  // CHECK: "atom.relaxed.gpu.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r,~{memory}"
  %c = tile.atomic_cas %g, %w, %l : !tile.ptr<i32, global>, i32
  // sc atomics: fence.sc then acq_rel (PTX has no .sc atom).
  // CHECK: "fence.sc.cta;\0A\09atom.acq_rel.cta.shared::cta.min.s32 $0, [$1], $2;", "=r,r,r,~{memory}"
  %m = tile.atomic_rmw min %p, %w {order = #tile<order sc>, scope = #tile<scope cta>} : !tile.ptr<i32, shared>, i32
  // f32 add is typed; an i8 travels in a 16-bit register but is accessed as .b8.
  // CHECK: "atom.acquire.gpu.global.add.f32 $0, [$1], $2;", "=f,l,f,~{memory}"
  %fv = tile.atomic_rmw add %gf, %f {order = #tile<order acquire>} : !tile.ptr<f32, global>, f32
  // CHECK: %[[B8:.*]] = llvm.inline_asm has_side_effects "ld.relaxed.gpu.global.b8 $0, [$1];", "=h,l,~{memory}"
  // CHECK: llvm.trunc %[[B8]] : i16 to i8
  %b8 = tile.load %g8 {order = #tile<order relaxed>} : !tile.ptr<i8, global> -> i8
  // CHECK: llvm.return
  tile.return
}

// PTX-LABEL: .entry memory(
// PTX: ld.acquire.sys.global.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// PTX: fence.sc.cta;
// PTX-NEXT: ld.acquire.cta.shared::cta.b32 %r{{[0-9]+}}, [%r{{[0-9]+}}];
// PTX: ld.relaxed.cluster.shared::cluster.b32 %r{{[0-9]+}}, [%r{{[0-9]+}}];
// PTX: st.release.cluster.shared::cluster.b32 [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: st.relaxed.gpu.global.b8 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// PTX: red.relaxed.cta.shared::cta.add.u32 [%r{{[0-9]+}}], %r{{[0-9]+}};
// PTX: atom.acq_rel.gpu.global.exch.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// PTX: atom.relaxed.cluster.shared::cluster.cas.b32 %r{{[0-9]+}}, [%r{{[0-9]+}}], %r{{[0-9]+}}, %r{{[0-9]+}};
// PTX: atom.acquire.gpu.global.add.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
