// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-mbarrier-phases))' -split-input-file -verify-diagnostics | FileCheck %s

// One phase bit per mbarrier, loop-carried through a thread-local slot: the
// wait uses it as the parity, then flips it.
// CHECK-LABEL: tile.kernel @loop
// CHECK:       %[[SLOT:.*]] = tile.local_var -> !tile.ptr<i32, local>
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  tile.store %[[ZERO]], %[[SLOT]]
// CHECK:       scf.for
// CHECK:         %[[BITS:.*]] = tile.load %[[SLOT]]
// CHECK:         %[[SH:.*]] = arith.shrui %[[BITS]], %[[IDX:.*]] : i32
// CHECK-NEXT:    %[[BIT:.*]] = arith.andi %[[SH]], %[[ONE:.*]] : i32
// CHECK-NEXT:    tile.mbarrier_wait %{{.*}} parity %[[BIT]] :
// CHECK-NEXT:    %[[MASK:.*]] = arith.shli %[[ONE]], %[[IDX]] : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.xori %[[BITS]], %[[MASK]] : i32
// CHECK-NEXT:    tile.store %[[NEXT]], %[[SLOT]]
tile.kernel @loop(%n: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.mbarrier_arrive %bar : !tile.ptr<i64, shared>
    tile.mbarrier_wait %bar : !tile.ptr<i64, shared>
  }
  tile.return
}

// -----

// An array of mbarriers indexed by the loop counter: bit i of a mask; more
// than 32 entries need a 64-bit mask. An explicit parity is left alone.
// CHECK-LABEL: tile.kernel @ring
// CHECK:       tile.local_var -> !tile.ptr<i64, local>
// CHECK:       %[[I64:.*]] = arith.extui %{{.*}} : i32 to i64
// A run-time index is masked to the bit width: an out-of-bounds index must
// not make the shifts poison.
// CHECK-NEXT:  %[[C63:.*]] = arith.constant 63 : i64
// CHECK-NEXT:  %[[IDX:.*]] = arith.andi %[[I64]], %[[C63]] : i64
// CHECK:       %[[SH:.*]] = arith.shrui %{{.*}}, %[[IDX]] : i64
// CHECK:       %[[BIT:.*]] = arith.andi %[[SH]]
// CHECK-NEXT:  %[[P:.*]] = arith.trunci %[[BIT]] : i64 to i32
// CHECK-NEXT:  tile.mbarrier_wait %{{.*}} parity %[[P]] :
// CHECK:       tile.mbarrier_wait %{{.*}} parity %{{.*}} :
// CHECK-NOT:   tile.local_var
tile.kernel @ring(%i: i32, %p: i32) {
  %bars = tile.shared_alloc {static_count = 40 : i64} -> !tile.ptr<i64, shared>
  %b = tile.ptr_add %bars, %i : !tile.ptr<i64, shared>, i32
  tile.mbarrier_wait %b : !tile.ptr<i64, shared>
  tile.mbarrier_wait %bars parity %p : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @too_many(%i: i32) {
  %bars = tile.shared_alloc {static_count = 65 : i64} -> !tile.ptr<i64, shared>
  %b = tile.ptr_add %bars, %i : !tile.ptr<i64, shared>, i32
  // expected-error @+1 {{phase tracking needs an mbarrier from a static allocation of at most 64}}
  tile.mbarrier_wait %b : !tile.ptr<i64, shared>
  tile.return
}
