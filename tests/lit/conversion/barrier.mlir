// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s
// RUN: tilec %S/Inputs/barrier.tile --emit=ptx --no-auto-sync 2>/dev/null | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/barrier.tile -o %t.ptx 2>/dev/null && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// bar.sync (nvvm.barrier0, = barrier.sync.aligned) only where the sync passes
// proved the warp uniform; otherwise the PTX builder's non-aligned
// barrier.sync. The cluster barrier is nvvm.cluster.arrive(.relaxed)/wait,
// `.aligned` as the IR says.

// CHECK-LABEL: llvm.func @k(
tile.kernel @k() attributes {cluster_dims = array<i32: 2>} {
  // CHECK: nvvm.barrier0
  tile.barrier {aligned}
  // CHECK-NEXT: llvm.inline_asm has_side_effects "barrier.sync 0;", "~{memory}"
  tile.barrier
  // CHECK-NEXT: nvvm.cluster.arrive{{$}}
  // CHECK-NEXT: nvvm.cluster.wait{{$}}
  tile.cluster_sync
  // CHECK-NEXT: nvvm.cluster.arrive {aligned}
  // CHECK-NEXT: nvvm.cluster.wait {aligned}
  tile.cluster_sync {aligned}
  // CHECK-NEXT: nvvm.cluster.arrive.relaxed{{$}}
  tile.cluster_arrive {order = #tile<order relaxed>}
  // CHECK-NEXT: nvvm.cluster.arrive.relaxed {aligned}
  tile.cluster_arrive {order = #tile<order relaxed>, aligned}
  // CHECK-NEXT: nvvm.cluster.arrive{{$}}
  tile.cluster_arrive {order = #tile<order release>}
  // CHECK-NEXT: nvvm.cluster.wait{{$}}
  tile.cluster_wait
  // CHECK-NEXT: llvm.return
  tile.return
}

// With --no-auto-sync the barriers are exactly as written: release arrive,
// acquire wait, not .aligned; the CTA barrier after a divergent return is
// the non-aligned form.
// PTX-LABEL: .entry barriers(
// PTX: bar.sync 0;
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX: barrier.cluster.arrive.relaxed;
// PTX: barrier.cluster.wait;
// PTX: barrier.sync 0;
