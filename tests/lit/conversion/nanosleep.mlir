// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s
// RUN: tile-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP

// tile.nanosleep is nvvm.nanosleep of the i32 operand (nanosleep.u32 with
// the count in a register). It has no result and no Pure trait: neither
// the canonicalizer nor CSE erases or merges two of them.

// CHECK-LABEL: llvm.func @k(
// KEEP-LABEL: tile.kernel @k(
tile.kernel @k(%ns: i32) {
  // CHECK: nvvm.nanosleep %{{.*}}
  // CHECK: nvvm.nanosleep %{{.*}}
  // KEEP: tile.nanosleep %{{.*}}
  // KEEP-NEXT: tile.nanosleep %{{.*}}
  tile.nanosleep %ns
  tile.nanosleep %ns
  tile.return
}
