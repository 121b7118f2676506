// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s
// RUN: tilec %S/Inputs/fence.tile --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/fence.tile -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// fence.proxy.async and fence.mbarrier_init are NVVM ops; fence.{acq_rel,sc}
// at every scope is composed by the PTX builder (MLIR 22 has fence.sc.cluster
// only).

// CHECK-LABEL: llvm.func @k(
tile.kernel @k() attributes {cluster_dims = array<i32: 2>} {
  // CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.cta;", "~{memory}"
  tile.fence {order = #tile<order acq_rel>, scope = #tile<scope cta>}
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.acq_rel.cluster;", "~{memory}"
  tile.fence {order = #tile<order acq_rel>, scope = #tile<scope cluster>}
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.gpu;", "~{memory}"
  tile.fence {order = #tile<order sc>, scope = #tile<scope gpu>}
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.sys;", "~{memory}"
  tile.fence {order = #tile<order sc>, scope = #tile<scope sys>}
  // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  tile.fence_proxy_async
  // CHECK-NEXT: nvvm.fence.mbarrier.init
  tile.fence_mbarrier_init
  tile.return
}

// In order; the builder's statements are bracketed by inline-asm comments.
// PTX-LABEL: .entry fences(
// PTX: fence.acq_rel.cta;
// PTX: fence.acq_rel.cluster;
// PTX: fence.sc.gpu;
// PTX: fence.sc.sys;
// PTX: fence.proxy.async.shared::cta;
// PTX-NEXT: fence.mbarrier_init.release.cluster;
