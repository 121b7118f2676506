// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// A turn between the two warpgroups of a role: tile.turn_wait is
// `barrier.sync.aligned first + wg, 256` (nvvm.barrier with the id in a
// register), tile.turn_pass `bar.arrive first + wg, 256` (nvvm.barrier.arrive):
// the waiting warpgroup's 128 threads plus the 128 of the one handing over.

// CHECK-LABEL: llvm.func @turns(
// CHECK: %[[C9:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK: %[[ID:.*]] = llvm.add %{{.*}}, %[[C9]] : i32
// CHECK: %[[N:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK: %[[C9B:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK: %[[ID2:.*]] = llvm.add %{{.*}}, %[[C9B]] : i32
// CHECK: %[[N2:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: nvvm.barrier.arrive id = %[[ID2]] number_of_threads = %[[N2]]
tile.kernel @turns() {
  %wg = tile.warpgroup_id : i32
  tile.role "consumer"(%wg) attributes {first_warpgroup = 1 : i32, num_warpgroups = 2 : i32, barrier_id = 2 : i32} {
    %c1 = arith.constant 1 : i32
    %r = arith.subi %wg, %c1 : i32
    tile.turn_wait %r {first_barrier = 9 : i32, warpgroups = 2 : i32}
    %n = arith.addi %r, %c1 : i32
    tile.turn_pass %n {first_barrier = 9 : i32, warpgroups = 2 : i32}
    tile.role_end
  }
  tile.return
}
