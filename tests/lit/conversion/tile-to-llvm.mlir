// RUN: tile-opt %s --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// Kernel attributes become the NVVM ones that print .maxntid, .reqnctapercluster
// and .explicitcluster; static shared arrays become .shared globals, dynamic
// ones 16-byte aligned slices of one extern array.
// CHECK-DAG: llvm.mlir.global internal @tile$smem$k$0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
// CHECK-DAG: llvm.mlir.global external @tile$dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @k(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64)
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>
tile.kernel @k(%g: !tile.ptr<i32, global>, %n: i32, %m: i64) attributes {cluster_dims = array<i32: 2>, max_threads = array<i32: 256>} {
  // The base goes through a register (an opaque mov) so ptxas keeps it in one,
  // with its 16-byte alignment restated for vectorisation.
  // CHECK: %[[SYM:.*]] = llvm.mlir.addressof @tile$dynamic_smem : !llvm.ptr<3>
  // CHECK: %[[BITS:.*]] = llvm.ptrtoint %[[SYM]] : !llvm.ptr<3> to i32
  // CHECK: %[[MOV:.*]] = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %[[BITS]]
  // CHECK: %[[DYN:.*]] = llvm.inttoptr %[[MOV]] : i32 to !llvm.ptr<3>
  // CHECK: llvm.intr.assume %{{.*}} ["align"(%[[DYN]], %{{.*}} : !llvm.ptr<3>, i64)]
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64)
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[DYN]][%[[ZERO]]]
  %a = tile.shared_alloc %n : i32 -> !tile.ptr<i32, shared>
  // The second dynamic array starts after round_up(n * 4, 16) bytes.
  // CHECK: llvm.sext %{{.*}} : i32 to i64
  // CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.and
  // CHECK: %[[B:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  %b = tile.shared_alloc %m : i64 -> !tile.ptr<i64, shared>
  // CHECK: llvm.mlir.addressof @tile$smem$k$0 : !llvm.ptr<3>
  %f = tile.shared_alloc {static_count = 64 : i64} -> !tile.ptr<f32, shared>
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  %t = tile.sreg tid_x : i32
  // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  %r = tile.sreg cluster_ctarank : i32
  // CHECK: %[[P:.*]] = llvm.getelementptr %[[A]][%[[TID]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
  %p = tile.ptr_add %a, %t : !tile.ptr<i32, shared>, i32
  // CHECK: %[[Q:.*]] = nvvm.mapa %[[P]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
  %q = tile.mapa %p, %r : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  // CHECK: nvvm.cluster.arrive
  // CHECK-NEXT: nvvm.cluster.wait
  tile.cluster_sync
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
  // bar.sync (aligned) only where tile-sync-semantics proved the warp uniform;
  // otherwise the non-aligned barrier.sync.
  // CHECK: nvvm.barrier0
  tile.barrier {aligned}
  // CHECK: "barrier.sync 0;", "~{memory}"
  tile.barrier
  // CHECK: nvvm.cluster.arrive.relaxed
  tile.cluster_arrive {order = #tile<order relaxed>}
  // CHECK: nvvm.cluster.wait
  tile.cluster_wait
  // CHECK: llvm.return
  tile.return
}
