// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s
// RUN: tilec %S/Inputs/async.tile --debug-hangs=100 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tilec %S/Inputs/async.tile --debug-hangs=100 -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Hang reports: %globaltimer is nvvm.read.ptx.sreg.globaltimer (it reads
// inaccessible memory, so successive reads are never merged); the report is
// vprintf of a global format string and the i32 arguments, then trap.

// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global internal constant @tile$hang_msg$0("stuck %d\0A\00") {addr_space = 1 : i32
// CHECK-LABEL: llvm.func @k(
tile.kernel @k(%x: i32) {
  // CHECK: nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK-NEXT: nvvm.read.ptx.sreg.globaltimer : i64
  %t0 = tile.globaltimer : i64
  %t1 = tile.globaltimer : i64
  // CHECK: %[[FMT:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
  // CHECK: %[[ARGS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32)>
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
  // CHECK: llvm.call @vprintf(%[[FMT]], %[[ARGS]])
  // CHECK-NEXT: llvm.intr.trap
  tile.hang_trap "stuck %d\n" %x : i32
  tile.return
}

// PTX: .extern .func (.param .b32 func_retval0) vprintf
// PTX-LABEL: .entry stores(
// PTX: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// PTX: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done,
// PTX: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// PTX: call.uni (retval0), vprintf,
// PTX: trap;
