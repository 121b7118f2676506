// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-sync-semantics))' -split-input-file | FileCheck %s --check-prefix=SEM
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-dsmem-lifetime))' -split-input-file | FileCheck %s --check-prefix=LIFE

// Roles are entered by whole warpgroups: a named barrier at a role's top
// level (or under a condition on the warpgroup index) is warp-uniform, so
// `.aligned`; under a thread-dependent condition it is not.
// SEM-LABEL: tile.kernel @aligned
// SEM: tile.named_barrier 1, 128 {aligned}
// SEM: tile.named_barrier 2, 256 {aligned}
// SEM: tile.named_barrier 2, 256 {tile.sync = "barrier.sync, not bar.sync: threads of a warp may reach it apart"}
tile.kernel @aligned() {
  %wg = tile.warpgroup_id : i32
  tile.role "p"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 40 : i32, barrier_id = 1 : i32} {
    tile.named_barrier 1, 128
    tile.role_end
  }
  tile.role "c"(%wg) attributes {first_warpgroup = 1 : i32, num_warpgroups = 2 : i32, regs = 232 : i32, barrier_id = 2 : i32} {
    %c1 = arith.constant 1 : i32
    %second = arith.cmpi eq, %wg, %c1 : i32
    scf.if %second {
      tile.named_barrier 2, 256
    }
    %tid = tile.sreg tid_x : i32
    %c7 = arith.constant 7 : i32
    %odd = arith.cmpi eq, %tid, %c7 : i32
    scf.if %odd {
      tile.named_barrier 2, 256
    }
    tile.role_end
  }
  tile.return
}

// -----

// DSMEM exit rule: a remote access inside a role gets its exit arrive right
// after that role, at the kernel's top level, where every thread of every
// role arrives (a role is not uniform over the cluster, so nothing inside it
// counts), and the wait before exit; the entry wait goes before the roles.
// LIFE-LABEL: tile.kernel @remote_in_role
// LIFE: tile.cluster_wait {tile.sync = "cluster wait before the first access to a peer's shared memory"}
// LIFE-NEXT: tile.role "producer"
// LIFE: tile.store
// LIFE-NEXT: tile.role_end
// LIFE-NEXT: }
// LIFE-NEXT: tile.cluster_arrive {tile.auto, tile.sync = "cluster arrive after this CTA's last access to a peer's shared memory"}
// LIFE-NEXT: tile.role "consumer"
// LIFE: tile.role_end
// LIFE-NEXT: }
// LIFE-NEXT: tile.cluster_wait {tile.sync = "cluster wait before exit: peers may still access this CTA's shared memory"}
// LIFE-NEXT: tile.return
tile.kernel @remote_in_role(%v: i32) attributes {cluster_dims = array<i32: 2>} {
  %a = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %c1 = arith.constant 1 : i32
  %wg = tile.warpgroup_id : i32
  tile.role "producer"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 40 : i32, barrier_id = 1 : i32} {
    %r = tile.mapa %a, %c1 : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
    tile.store %v, %r {scope = #tile<scope cluster>} : i32, !tile.ptr<i32, cluster>
    tile.role_end
  }
  tile.role "consumer"(%wg) attributes {first_warpgroup = 1 : i32, num_warpgroups = 2 : i32, regs = 232 : i32, barrier_id = 2 : i32} {
    tile.role_end
  }
  tile.return
}
