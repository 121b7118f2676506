// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-debug-hangs{timeout-ms=250}))' | FileCheck %s
// The bound takes what tilec --debug-hangs=MS takes, 1 .. 3600000 ms, here
// too (0 would call every wait that is not complete at its first probe a hang).
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-debug-hangs{timeout-ms=0}))' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tile-opt %s --tile-sync-pipeline='debug-hangs-ms=3600001' 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-debug-hangs{timeout-ms=3600000}))' | FileCheck %s --check-prefix=HOUR
// ZERO: error: tile-debug-hangs: timeout-ms 0 is outside 1 .. 3600000 (milliseconds, as tilec --debug-hangs=MS)
// LONG: error: tile-debug-hangs: timeout-ms 3600001 is outside 1 .. 3600000
// HOUR: arith.constant 3600000000000 : i64

// The wait becomes single try_wait probes bounded by %globaltimer; after
// 250 ms it reports the location, mbarrier, CTA, thread and parity, then traps.
// CHECK-LABEL: tile.kernel @wait
// CHECK:       %[[T0:.*]] = tile.globaltimer : i64
// CHECK-NEXT:  %[[LIMIT:.*]] = arith.constant 250000000 : i64
// CHECK-NEXT:  scf.while : () -> () {
// CHECK-NEXT:    %[[DONE:.*]] = tile.mbarrier_try_wait %{{.*}}, %{{.*}} {order = #tile<order acquire>, scope = #tile<scope cluster>}
// CHECK-NEXT:    %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    %[[PENDING:.*]] = arith.xori %[[DONE]], %[[TRUE]] : i1
// CHECK-NEXT:    scf.if %[[PENDING]] {
// CHECK-NEXT:      %[[NOW:.*]] = tile.globaltimer : i64
// CHECK-NEXT:      %[[EL:.*]] = arith.subi %[[NOW]], %[[T0]] : i64
// CHECK-NEXT:      %[[LATE:.*]] = arith.cmpi ugt, %[[EL]], %[[LIMIT]] : i64
// CHECK-NEXT:      scf.if %[[LATE]] {
// CHECK:             tile.hang_trap "tilec --debug-hangs: {{.*}}debug-hangs.mlir:[[@LINE+8]]:3: wait on mbarrier 'full' timed out after 250 ms in CTA (%d, %d, %d), thread (%d, %d, %d), waiting for phase parity %d\0A"
// CHECK:         scf.condition(%[[PENDING]])
// CHECK-NOT:   tile.mbarrier_wait
tile.kernel @wait(%p: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c1 = arith.constant 1 : i32
  %rbar = tile.mapa %bar, %c1 : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  tile.mbarrier_arrive %rbar : !tile.ptr<i64, cluster>
  tile.mbarrier_wait %bar parity %p {order = #tile<order acquire>, scope = #tile<scope cluster>, tile.name = "full"} : !tile.ptr<i64, shared>
  tile.return
}
