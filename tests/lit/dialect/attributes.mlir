// RUN: tile-opt %s | tile-opt | FileCheck %s
// The tile dialect's discardable attributes on the ops they belong to, with
// their declared types, round-trip: what --debug-hangs reads off a wait
// (tile.hang_note, tile.hang_stage) and off a trap (tile.host_record).

// CHECK-LABEL: tile.kernel @waits
// CHECK: tile.mbarrier_wait {{.*}}tile.hang_note = "a produce fills it", tile.hang_stage, tile.name = "r.full"
// CHECK: tile.sem_wait {{.*}}tile.hang_note = "every peer finishes"
// CHECK: tile.hang_trap "stuck\0A" {tile.host_record}
tile.kernel @waits(%p: i32, %counter: !tile.ptr<i64, global>, %v: i64) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  tile.mbarrier_wait %bar parity %p {order = #tile<order acquire>, scope = #tile<scope cta>, tile.hang_note = "a produce fills it", tile.hang_stage, tile.name = "r.full"} : !tile.ptr<i64, shared>
  tile.sem_wait %counter, %v index %p rank %p {semaphore = "sem", tile.hang_note = "every peer finishes"} : !tile.ptr<i64, global>
  tile.hang_trap "stuck\n" {tile.host_record}
  tile.return
}
