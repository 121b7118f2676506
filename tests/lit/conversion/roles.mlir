// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// A kernel with roles: .maxntid from the roles (384) and .minnctapersm 1;
// the warp-uniform warpgroup index; one unsigned range test and branch per
// role; setmaxnreg dec below the entry count (168 at 384 threads), inc above;
// named barriers aligned (nvvm.barrier id, count) or not (barrier.sync id,
// count); elect.sync.

// CHECK-LABEL: llvm.func @roles(
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[WG:.*]] = llvm.udiv %[[TID]], %{{.*}} : i32
// CHECK: %[[U:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[WG]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK: %[[R0:.*]] = llvm.sub %[[U]], %{{.*}} : i32
// CHECK: %[[IN0:.*]] = llvm.icmp "ult" %[[R0]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[IN0]], ^[[P:.*]], ^[[AFTER_P:.*]]
// CHECK: ^[[P]]:
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: nvvm.elect.sync -> i1
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: llvm.br ^[[AFTER_P]]
// CHECK: ^[[AFTER_P]]:
// CHECK: llvm.cond_br %{{.*}}, ^[[C:.*]], ^[[AFTER_C:.*]]
// CHECK: ^[[C]]:
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: llvm.inline_asm has_side_effects "barrier.sync 2, 256;", "~{memory}"
// CHECK: llvm.br ^[[AFTER_C]]
// CHECK: ^[[AFTER_C]]:
// CHECK-NEXT: llvm.return
tile.kernel @roles() {
  %wg = tile.warpgroup_id : i32
  tile.role "producer"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 40 : i32, barrier_id = 1 : i32} {
    %e = tile.elect_one : i1
    tile.named_barrier 1, 128 {aligned}
    tile.role_end
  }
  tile.role "consumer"(%wg) attributes {first_warpgroup = 1 : i32, num_warpgroups = 2 : i32, regs = 232 : i32, barrier_id = 2 : i32} {
    tile.named_barrier 2, 256
    tile.role_end
  }
  tile.return
}

// The kernel's own thread bound (threads(128)) agrees with the roles; a
// .reqntid would be kept instead (ptxas rejects .maxntid beside it).
// .minnctapersm is added; no setmaxnreg for a role without regs.
// CHECK-LABEL: llvm.func @kept_max_threads(
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-NOT: nvvm.setmaxregister
// CHECK: llvm.return
tile.kernel @kept_max_threads() attributes {max_threads = array<i32: 128>} {
  %wg = tile.warpgroup_id : i32
  tile.role "all"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 1 : i32} {
    tile.role_end
  }
  tile.return
}

// No roles: no .minnctapersm.
// CHECK-LABEL: llvm.func @plain(
// CHECK-NOT: nvvm.minctasm
// CHECK: llvm.return
tile.kernel @plain() {
  tile.return
}
