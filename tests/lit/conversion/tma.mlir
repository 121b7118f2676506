// RUN: tile-opt %s --convert-tile-to-llvm | FileCheck %s

// TMA (TmaToNVVM.cpp): tensor maps are byval grid-constant parameters; copies
// are the MLIR 22 NVVM bulk-tensor ops with the coordinates innermost first
// (PTX ISA 9.7.9.25.5.1, cp.async.bulk.tensor); a multicast load's mask
// covers its group of the cluster and each CTA loads its own slice; an
// element of a swizzled tile is addressed with the 128-byte swizzle's XOR.

// CHECK-LABEL: llvm.func @tma(
// CHECK-SAME: %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[OUT:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[X:.*]]: i32, %[[Y:.*]]: i32)
tile.kernel @tma(%map: !tile.tensormap<i32, 2>, %out: !tile.tensormap<i32, 2>, %x: i32, %y: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %tile = tile.shared_alloc {static_count = 1024 : i64, alignment = 1024 : i64} -> !tile.ptr<i32, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  tile.tensormap_prefetch %map : !tile.tensormap<i32, 2>
  // CHECK: nvvm.prefetch tensormap, %[[MAP]] : !llvm.ptr
  tile.tensormap_prefetch %map : !tile.tensormap<i32, 2>
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%[[Y]], %[[X]]] : !llvm.ptr<7>, !llvm.ptr
  tile.tma_load %tile, %map[%x, %y], %bar <[32, 32], swizzle = 128, panel = 32> : !tile.ptr<i32, shared>, !tile.tensormap<i32, 2>, !tile.ptr<i64, shared>
  // Two CTAs along x share the load: mask 0b11 shifted to the group's first
  // rank; CTA i loads rows [16 i, 16 i + 16) into its slice of the tile.
  // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK: %[[CX:.*]] = nvvm.read.ptx.sreg.cluster.ctaid.x : i32
  // CHECK: %[[FIRST:.*]] = llvm.sub %[[RANK]], %{{.*}} : i32
  // CHECK: %[[BITS:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %[[SHIFTED:.*]] = llvm.shl %[[BITS]], %[[FIRST]] : i32
  // CHECK: %[[MASK:.*]] = llvm.trunc %[[SHIFTED]] : i32 to i16
  // CHECK: %[[ROWS:.*]] = llvm.mul %[[CX]], %{{.*}} : i32
  // CHECK: %[[ROW0:.*]] = llvm.add %[[X]], %[[ROWS]] : i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%[[Y]], %[[ROW0]]] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
  tile.tma_load %tile, %map[%x, %y], %bar <[32, 32], swizzle = 128, panel = 32> {multicast_axis = 0 : i32} : !tile.ptr<i32, shared>, !tile.tensormap<i32, 2>, !tile.ptr<i64, shared>
  // Byte offset o of element (x, y) (4-byte elements), then o ^ ((o >> 3) & 0x70).
  // CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK: %[[O:.*]] = llvm.mul %{{.*}}, %[[C4]] : i32
  // CHECK: %[[HI:.*]] = llvm.lshr %[[O]], %{{.*}} : i32
  // CHECK: %[[C112:.*]] = llvm.mlir.constant(112 : i32) : i32
  // CHECK: %[[ROWBITS:.*]] = llvm.and %[[HI]], %[[C112]] : i32
  // CHECK: %[[SW:.*]] = llvm.xor %[[O]], %[[ROWBITS]] : i32
  // CHECK: llvm.getelementptr %{{.*}}[%[[SW]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %e = tile.tile_element %tile[%x, %y] <[32, 32], swizzle = 128, panel = 32> : !tile.ptr<i32, shared>, i32, i32
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUT]], %{{.*}}, box[%[[Y]], %[[X]]] : !llvm.ptr, <3>
  tile.tma_store %out[%x, %y], %tile <[32, 32], swizzle = 128, panel = 32> : !tile.tensormap<i32, 2>, !tile.ptr<i32, shared>
  // CHECK: nvvm.cp.async.bulk.commit.group
  tile.bulk_commit
  // CHECK: nvvm.cp.async.bulk.wait_group 0
  tile.bulk_wait 0
  tile.return
}

// A tile of lower rank than the map: the box's leading extents are 1, the
// copy keeps one coordinate per tensor dimension, and a multicast slice
// moves the coordinate of the tile's first dimension (rank 4 - rank 2 = the
// third of four outermost first; PTX lists it second).
// CHECK-LABEL: llvm.func @tma_lower_rank(
// CHECK-SAME: %[[MAP4:[^:]*]]: !llvm.ptr {{.*}}, %[[N:[^:]*]]: i32, %[[H:[^:]*]]: i32, %[[W:[^:]*]]: i32, %[[C:[^:]*]]: i32)
tile.kernel @tma_lower_rank(%map: !tile.tensormap<bf16, 4>, %n: i32, %h: i32, %w: i32, %c: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %tile = tile.shared_alloc {static_count = 4096 : i64, alignment = 1024 : i64} -> !tile.ptr<bf16, shared>
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP4]], %{{.*}}, box[%[[C]], %[[W]], %[[H]], %[[N]]] : !llvm.ptr<7>, !llvm.ptr
  tile.tma_load %tile, %map[%n, %h, %w, %c], %bar <[64, 64], swizzle = 128, panel = 64> : !tile.ptr<bf16, shared>, !tile.tensormap<bf16, 4>, !tile.ptr<i64, shared>
  // CHECK: nvvm.read.ptx.sreg.cluster.ctaid.x : i32
  // CHECK: %[[W0:.*]] = llvm.add %[[W]], %{{.*}} : i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP4]], %{{.*}}, box[%[[C]], %[[W0]], %[[H]], %[[N]]] multicast_mask
  tile.tma_load %tile, %map[%n, %h, %w, %c], %bar <[64, 64], swizzle = 128, panel = 64> {multicast_axis = 0 : i32} : !tile.ptr<bf16, shared>, !tile.tensormap<bf16, 4>, !tile.ptr<i64, shared>
  tile.return
}
