// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// tile.wgmma_wait N after %v: a store of %v's first and last f32 element to
// the module's 8-byte shared word, predicated on either being NaN (it runs
// on no finite data), right before nvvm.wgmma.wait.group: ptxas does not
// hoist WARPGROUP.DEPBAR above a shared-memory store, so the wait stays
// after %v's computation. One word per module; a scalar is its own first and
// last element; without `after` no store.

// CHECK: llvm.mlir.global internal @{{.*}}wait_anchor() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x f32>
// CHECK-NOT: wait_anchor()
// CHECK-LABEL: llvm.func @anchored(
// CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f32, f32)>
// CHECK: llvm.extractvalue %{{.*}}[1] : !llvm.struct<(f32, f32)>
// CHECK: llvm.inline_asm {{.*}}setp.nan.f32 nan, $0, $1;{{.*}}@nan st.shared.v2.f32
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: setp.nan.f32{{.*}}%arg0, %arg0
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: setp.nan.f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
tile.kernel @anchored(%x: f32) {
  %m = tile.frag_splat %x : f32 -> !tile.per_row<64xf32>
  tile.wgmma_wait 0 after %m : !tile.per_row<64xf32>
  tile.wgmma_wait 1 after %x : f32
  tile.wgmma_wait 0
  tile.return
}
