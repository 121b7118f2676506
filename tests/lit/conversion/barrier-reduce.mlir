// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// A barrier with a reduction is barrier.red (PTX ISA 9.7.13.1), `.aligned`
// as the IR says: the i1 predicate enters as a 0 / 1 register tested by
// setp; popc gives the u32 count, and / or a predicate read back with selp
// and compared with 0. A named barrier names its id and thread count.

// CHECK-LABEL: llvm.func @reduce(
// CHECK-SAME: %[[P:.*]]: i1)
tile.kernel @reduce(%p: i1) {
  // CHECK: %[[W:.*]] = llvm.zext %[[P]] : i1 to i32
  // CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p, q;\0A\09setp.ne.b32 p, $1, 0;\0A\09barrier.red.popc.aligned.u32 $0, 0, p;\0A\09}", "=r,r,~{memory}" %[[W]] : (i32) -> i32
  %n = tile.barrier reduce popc %p : i32 {aligned}
  // CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p, q;\0A\09setp.ne.b32 p, $1, 0;\0A\09barrier.red.and.pred q, 0, p;\0A\09selp.u32 $0, 1, 0, q;\0A\09}"
  // CHECK: llvm.icmp "ne"
  %a = tile.barrier reduce and %p : i1
  // CHECK: llvm.inline_asm has_side_effects {{.*}}barrier.red.or.aligned.pred q, 2, 256, p;
  %o = tile.named_barrier 2, 256 reduce or %p : i1 {aligned}
  tile.return
}
