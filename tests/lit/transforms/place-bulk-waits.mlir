// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-place-bulk-waits))' -split-input-file | FileCheck %s

// tile-place-bulk-waits: a TMA store's bulk group is waited for only where
// the issuing thread needs it (PTX ISA 9.7.9.25.4, cp.async.bulk.wait_group):
// `wait_group 0` before it next synchronises with other threads,
// `wait_group.read 0` before it rewrites the stored tile or passes a
// synchronisation that publishes shared memory only.

// Pure computation between the store and the barrier does not wait.
// CHECK-LABEL: tile.kernel @barrier_after_store
// CHECK:      tile.bulk_commit
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.bulk_wait 0 {tile.sync = "cp.async.bulk.wait_group 0: a TMA store's global writes complete before this thread synchronises with threads that may read them"}
// CHECK-NEXT: tile.barrier
tile.kernel @barrier_after_store(%out: !tile.tensormap<i32, 2>, %x: i32) {
  %tile = tile.shared_alloc {static_count = 1024 : i64, alignment = 1024 : i64} -> !tile.ptr<i32, shared>
  tile.tma_store %out[%x, %x], %tile <[32, 32], swizzle = 128, panel = 32> : !tile.tensormap<i32, 2>, !tile.ptr<i32, shared>
  tile.bulk_commit
  %c = arith.addi %x, %x : i32
  tile.barrier
  tile.return
}

// -----

// A write to another array does not wait; a write to the stored tile waits
// for the read of the tile only.
// CHECK-LABEL: tile.kernel @rewrite_tile
// CHECK:      tile.bulk_commit
// CHECK-NEXT: tile.store %{{.*}}, %[[OTHER:.*]] : i32
// CHECK-NEXT: tile.ptr_add
// CHECK-NEXT: tile.bulk_wait 0 {read, tile.sync = "cp.async.bulk.wait_group.read 0: {{.*}}"}
// CHECK-NEXT: tile.store
// CHECK-NOT:  tile.bulk_wait
tile.kernel @rewrite_tile(%out: !tile.tensormap<i32, 2>, %x: i32) {
  %tile = tile.shared_alloc {static_count = 1024 : i64, alignment = 1024 : i64} -> !tile.ptr<i32, shared>
  %other = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  tile.tma_store %out[%x, %x], %tile <[32, 32], swizzle = 128, panel = 32> : !tile.tensormap<i32, 2>, !tile.ptr<i32, shared>
  tile.bulk_commit
  tile.store %x, %other : i32, !tile.ptr<i32, shared>
  %p = tile.ptr_add %tile, %x : !tile.ptr<i32, shared>, i32
  tile.store %x, %p : i32, !tile.ptr<i32, shared>
  tile.return
}

// -----

// A synchronisation that publishes shared memory only needs the read; the
// next ordinary barrier still needs the whole group.
// CHECK-LABEL: tile.kernel @shared_only
// CHECK:      tile.bulk_wait 0 {read, tile.sync = "{{.*}}"}
// CHECK-NEXT: tile.barrier {tile.shared_only}
// CHECK-NEXT: tile.bulk_wait 0 {tile.sync = "{{.*}}"}
// CHECK-NEXT: tile.barrier
tile.kernel @shared_only(%out: !tile.tensormap<i32, 2>, %x: i32) {
  %tile = tile.shared_alloc {static_count = 1024 : i64, alignment = 1024 : i64} -> !tile.ptr<i32, shared>
  tile.tma_store %out[%x, %x], %tile <[32, 32], swizzle = 128, panel = 32> : !tile.tensormap<i32, 2>, !tile.ptr<i32, shared>
  tile.bulk_commit
  tile.barrier {tile.shared_only}
  tile.barrier
  tile.return
}

// -----

// A store at the end of an iteration is waited for before the next
// iteration's barrier: the pending state follows the loop's back edge.
// CHECK-LABEL: tile.kernel @loop
// CHECK:      scf.for
// CHECK-NEXT:   tile.bulk_wait 0 {tile.sync = "{{.*}}"}
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.tma_store
// CHECK-NEXT:   tile.bulk_commit
// CHECK-NEXT: }
// CHECK-NEXT: tile.bulk_wait 0
// CHECK-NOT:  tile.bulk_wait
tile.kernel @loop(%out: !tile.tensormap<i32, 2>, %n: i32) {
  %tile = tile.shared_alloc {static_count = 1024 : i64, alignment = 1024 : i64} -> !tile.ptr<i32, shared>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.barrier
    tile.tma_store %out[%c0, %c0], %tile <[32, 32], swizzle = 128, panel = 32> : !tile.tensormap<i32, 2>, !tile.ptr<i32, shared>
    tile.bulk_commit
  }
  tile.bulk_wait 0
  tile.return
}

// -----

// A store in one branch is pending after the scf.if; a wait already there
// covers it and is not duplicated.
// CHECK-LABEL: tile.kernel @branch
// CHECK:      scf.if
// CHECK:      }
// CHECK-NEXT: tile.bulk_wait 0{{$}}
// CHECK-NEXT: tile.barrier
tile.kernel @branch(%out: !tile.tensormap<i32, 2>, %x: i32, %c: i1) {
  %tile = tile.shared_alloc {static_count = 1024 : i64, alignment = 1024 : i64} -> !tile.ptr<i32, shared>
  scf.if %c {
    tile.tma_store %out[%x, %x], %tile <[32, 32], swizzle = 128, panel = 32> : !tile.tensormap<i32, 2>, !tile.ptr<i32, shared>
    tile.bulk_commit
  }
  tile.bulk_wait 0
  tile.barrier
  tile.return
}

// -----

// A kernel without TMA stores is left alone.
// CHECK-LABEL: tile.kernel @no_store
// CHECK-NOT:  tile.bulk_wait
tile.kernel @no_store(%x: i32) {
  tile.barrier
  tile.return
}
