// REQUIRES: ptxas
// RUN: tile-opt %s --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tilec %S/Inputs/kernel.tile --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/kernel.tile -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Kernel attributes become the NVVM ones that print .maxntid, .reqnctapercluster
// and .explicitcluster; static shared arrays become .shared globals, dynamic
// ones 16-byte aligned slices of one extern array.
// CHECK-DAG: llvm.mlir.global internal @tile$smem$k$0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
// CHECK-DAG: llvm.mlir.global external @tile$dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @k(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64)
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>
tile.kernel @k(%g: !tile.ptr<i32, global>, %n: i32, %m: i64) attributes {cluster_dims = array<i32: 2>, max_threads = array<i32: 256>} {
  // The base goes through a register (an opaque mov) so ptxas keeps it in one,
  // with its 16-byte alignment restated, as an and-mask LLVM cannot drop, for
  // vectorisation.
  // CHECK: %[[SYM:.*]] = llvm.mlir.addressof @tile$dynamic_smem : !llvm.ptr<3>
  // CHECK: %[[BITS:.*]] = llvm.ptrtoint %[[SYM]] : !llvm.ptr<3> to i32
  // CHECK: %[[MASK:.*]] = llvm.mlir.constant(-16 : i32) : i32
  // CHECK: %[[MOV:.*]] = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %[[BITS]]
  // CHECK: %[[ALIGNED:.*]] = llvm.and %[[MOV]], %[[MASK]] : i32
  // CHECK: %[[DYN:.*]] = llvm.inttoptr %[[ALIGNED]] : i32 to !llvm.ptr<3>
  // CHECK-NOT: llvm.intr.assume
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
  // Pointers live in NVVM's address spaces: global 1, shared 3, shared::cluster 7.
  // CHECK: nvvm.read.ptx.sreg.cluster.nctaid.y : i32
  %cy = tile.sreg cluster_nctaid_y : i32
  // CHECK: nvvm.read.ptx.sreg.laneid : i32
  %lane = tile.sreg laneid : i32
  // CHECK: llvm.alloca %{{.*}} x !llvm.ptr<7> {alignment = 8 : i64} : (i32) -> !llvm.ptr
  %v = tile.local_var -> !tile.ptr<!tile.ptr<i32, cluster>, local>
  // CHECK: llvm.return
  tile.return
}

// PTX-LABEL: .entry kernels(
// PTX-NEXT: .param .u64 .ptr .global .align 1 kernels_param_0,
// PTX-NEXT: .param .u32 kernels_param_1
// PTX-NEXT: )
// PTX-NEXT: .reqntid 128, 1, 1
// PTX-NEXT: .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX: .shared .align 16 .b8 tile$smem$kernels$0[256];
// PTX-DAG: mov.u32 %r{{[0-9]+}}, %tid.x;
// PTX-DAG: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PTX-DAG: mov.u32 %r{{[0-9]+}}, %cluster_ctaid.y;
// PTX-DAG: mov.u32 %r{{[0-9]+}}, %laneid;
