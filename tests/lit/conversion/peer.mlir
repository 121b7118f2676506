// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// Multi-GPU lowering (PeerToNVVM.cpp): the runtime's tables of peer tensor
// maps (128-byte entries) and peer bases (8-byte entries) are indexed by the
// rank; a base is read with ld.global.nc (the table never changes during the
// launch); a semaphore wait spins on ld.acquire.sys with backoff and ends
// with fence.proxy.async.global, so that TMA loads after it see what the
// signalling device published (PTX ISA 9.7.13.4, proxy fences).

// CHECK-LABEL: llvm.func @peer(
// CHECK-SAME: %[[MAPS:[^:]*]]: i64, %[[BASES:[^:]*]]: i64, %[[RANK:[^:]*]]: i32, %[[COUNTER:[^:]*]]: !llvm.ptr<1>, %[[V:[^:]*]]: i64
tile.kernel @peer(%maps: i64, %bases: i64, %rank: i32, %counter: !tile.ptr<i64, global>, %v: i64, %i: i32) {
  // CHECK: %[[R:.*]] = llvm.zext %[[RANK]] : i32 to i64
  // CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK: %[[OFF:.*]] = llvm.mul %[[R]], %[[C128]] : i64
  // CHECK: %[[ENTRY:.*]] = llvm.add %[[MAPS]], %[[OFF]] : i64
  // CHECK: %[[MAP:.*]] = llvm.inttoptr %[[ENTRY]] : i64 to !llvm.ptr
  // CHECK: nvvm.prefetch tensormap, %[[MAP]] : !llvm.ptr
  %map = tile.peer_tensor_map %maps[%rank] : !tile.tensormap<i32, 2>
  tile.tensormap_prefetch %map : !tile.tensormap<i32, 2>
  // CHECK: %[[C8:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK: %[[BOFF:.*]] = llvm.mul %{{.*}}, %[[C8]] : i64
  // CHECK: %[[BENTRY:.*]] = llvm.add %[[BASES]], %[[BOFF]] : i64
  // CHECK: %[[BASE:.*]] = llvm.inline_asm "ld.global.nc.u64 $0, [$1];", "=l,l" %[[BENTRY]] : (i64) -> i64
  // CHECK: llvm.inttoptr %[[BASE]] : i64 to !llvm.ptr<1>
  %base = tile.peer_base %bases[%rank]
  %p = tile.global_ptr %base : !tile.ptr<i64, global>
  // CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[COUNTER]] : !llvm.ptr<1> to i64
  // CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p;\0A\09.reg .b64 v;\0A\09WAIT:\0A\09ld.acquire.sys.global.u64 v, [$0];\0A\09setp.ge.u64 p, v, $1;\0A\09@p bra DONE;\0A\09nanosleep.u32 32;\0A\09bra WAIT;\0A\09DONE:\0A\09fence.proxy.async.global;\0A\09}", "l,l,~{memory}" %[[ADDR]], %[[V]]
  tile.sem_wait %counter, %v index %i rank %rank {semaphore = "sem"} : !tile.ptr<i64, global>
  // CHECK: nvvm.nanosleep %{{.*}}
  %ns = arith.constant 100 : i32
  tile.nanosleep %ns
  // CHECK: llvm.inline_asm has_side_effects "fence.proxy.async.global;", "~{memory}"
  tile.fence_proxy_async_global
  // CHECK: llvm.intr.trap
  tile.trap
  tile.return
}
