// REQUIRES: ptxas
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx86 | FileCheck %s --check-prefix=PTX

// Epilogue lowering (EpilogueToNVVM.cpp): 16-bit fragments compute
// on <2 x T> pairs bitcast from their i32 registers (a scalar is splat),
// conversions are fptrunc/fpext of pairs, a 16-bit store into a tile whose
// panel holds a multiple of 8 elements is nvvm.stmatrix (x4 per two
// 8-column blocks), else one 32-bit store per pair.

// CHECK-LABEL: llvm.func @packed_math(
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK: llvm.insertelement
// CHECK: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : vector<2xf16>
// CHECK: llvm.call_intrinsic "llvm.maximumnum"(%{{.*}}, %{{.*}}) : (vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK: llvm.fpext %{{.*}} : vector<2xf16> to vector<2xf32>
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// PTX-LABEL: .entry packed_math(
// PTX: mul.f16x2
// PTX: max.f16x2
// PTX: cvt.rn.bf16x2.f32
tile.kernel @packed_math(%h: f16, %out: !tile.ptr<bf16, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %ci = tile.frag_coord 1, %t : !tile.per_col<16xi32>
  %cf = tile.frag_convert %ci : !tile.per_col<16xi32> -> !tile.per_col<16xf32>
  %z = tile.frag_zeros : !tile.frag<64x16xf32>
  %a = tile.frag_arith add %z, %cf : !tile.frag<64x16xf32>, !tile.per_col<16xf32> -> !tile.frag<64x16xf32>
  %b = tile.frag_convert %a : !tile.frag<64x16xf32> -> !tile.frag<64x16xf16>
  %c = tile.frag_arith mul %b, %h {contract} : !tile.frag<64x16xf16>, f16 -> !tile.frag<64x16xf16>
  %d = tile.frag_arith max %c, %b : !tile.frag<64x16xf16>, !tile.frag<64x16xf16> -> !tile.frag<64x16xf16>
  %e = tile.frag_convert %d : !tile.frag<64x16xf16> -> !tile.frag<64x16xbf16>
  tile.frag_store %e, %out, %ld, %t : !tile.frag<64x16xbf16>, !tile.ptr<bf16, global>
  tile.return
}

// CHECK-LABEL: llvm.func @stmatrix(
// CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NOT: nvvm.stmatrix
// Panel of 4 elements: no stmatrix, one i32 store per pair (8 per thread).
// CHECK-COUNT-6: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-NOT: nvvm.stmatrix
// PTX-LABEL: .entry stmatrix(
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: stmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-COUNT-6: st.shared.b32
tile.kernel @stmatrix(%row0: i32, %out: !tile.ptr<f16, global>, %ld: i64) {
  %s = tile.shared_alloc {alignment = 16 : i64, static_count = 3072 : i64} -> !tile.ptr<f16, shared>
  %t = tile.sreg tid_x : i32
  %ri = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %rf = tile.frag_convert %ri : !tile.per_row<64xi32> -> !tile.per_row<64xf32>
  %z = tile.frag_zeros : !tile.frag<64x24xf32>
  %a = tile.frag_arith add %z, %rf : !tile.frag<64x24xf32>, !tile.per_row<64xf32> -> !tile.frag<64x24xf32>
  %b = tile.frag_convert %a : !tile.frag<64x24xf32> -> !tile.frag<64x24xf16>
  tile.frag_store_tile %b, %s[%row0], %t <[128, 24], swizzle = 0, panel = 24> : !tile.frag<64x24xf16>, !tile.ptr<f16, shared>
  tile.frag_store_tile %b, %s[%row0], %t <[64, 24], swizzle = 0, panel = 4> : !tile.frag<64x24xf16>, !tile.ptr<f16, shared>
  // Read the tile back (keeps the stores alive in LLVM).
  %cv = tile.load_per_col %s, %t : !tile.ptr<f16, shared> -> !tile.per_col<24xf16>
  %z16 = tile.frag_zeros : !tile.frag<64x24xf16>
  %c = tile.frag_arith add %z16, %cv : !tile.frag<64x24xf16>, !tile.per_col<24xf16> -> !tile.frag<64x24xf16>
  tile.frag_store %c, %out, %ld, %t : !tile.frag<64x24xf16>, !tile.ptr<f16, global>
  tile.return
}

// frag_load_tile is frag_store_tile's inverse with the same addresses: a
// 16-bit fragment through ldmatrix (.x4, .x2 for the odd last 8-column
// block of 24 columns), a panel of 4 elements one i32 load per pair, an f32
// fragment one <2 x f32> load per pair.
// CHECK-LABEL: llvm.func @ldmatrix(
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}num = 2 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-6: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-6: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// PTX-LABEL: .entry ldmatrix(
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-COUNT-6: ld.shared.b32
// PTX-COUNT-6: ld.shared.v2.b32
tile.kernel @ldmatrix(%row0: i32, %out: !tile.ptr<f16, global>, %out32: !tile.ptr<f32, global>, %ld: i64) {
  %s = tile.shared_alloc {alignment = 16 : i64, static_count = 3072 : i64} -> !tile.ptr<f16, shared>
  %s32 = tile.shared_alloc {alignment = 16 : i64, static_count = 1536 : i64} -> !tile.ptr<f32, shared>
  %t = tile.sreg tid_x : i32
  %a = tile.frag_load_tile %s[%row0], %t <[128, 24], swizzle = 0, panel = 24> : !tile.ptr<f16, shared> -> !tile.frag<64x24xf16>
  %b = tile.frag_load_tile %s[%row0], %t <[64, 24], swizzle = 0, panel = 4> : !tile.ptr<f16, shared> -> !tile.frag<64x24xf16>
  %c = tile.frag_arith add %a, %b : !tile.frag<64x24xf16>, !tile.frag<64x24xf16> -> !tile.frag<64x24xf16>
  tile.frag_store %c, %out, %ld, %t : !tile.frag<64x24xf16>, !tile.ptr<f16, global>
  %d = tile.frag_load_tile %s32[%row0], %t <[64, 24], swizzle = 0, panel = 24> : !tile.ptr<f32, shared> -> !tile.frag<64x24xf32>
  tile.frag_store %d, %out32, %ld, %t : !tile.frag<64x24xf32>, !tile.ptr<f32, global>
  tile.return
}

// Row / column indices divide with the scalar meaning (x / 0 = -1, MIN / -1
// = MIN): the divisor is 1 where either holds, the quotient chosen after; a
// float per_row becomes i32 through cvt.rzi.s32.f32 (saturating, NaN -> 0),
// never fptosi (poison out of range).
// CHECK-LABEL: llvm.func @index_divide(
// CHECK: llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: llvm.sdiv
// CHECK: llvm.select
// CHECK-NOT: llvm.fptosi
// CHECK: llvm.call_intrinsic "llvm.nvvm.f2i.rz"
// CHECK-NOT: llvm.fptosi
// PTX-LABEL: .entry index_divide(
// PTX: div.s32
// PTX: cvt.rzi.s32.f32
tile.kernel @index_divide(%d: i32, %out: !tile.ptr<f32, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %ri = tile.frag_coord 0, %t : !tile.per_row<64xi32>
  %q = tile.frag_arith div %ri, %d : !tile.per_row<64xi32>, i32 -> !tile.per_row<64xi32>
  %qf = tile.frag_convert %q : !tile.per_row<64xi32> -> !tile.per_row<64xf32>
  %s = tile.frag_arith mul %qf, %qf : !tile.per_row<64xf32>, !tile.per_row<64xf32> -> !tile.per_row<64xf32>
  %si = tile.frag_convert %s : !tile.per_row<64xf32> -> !tile.per_row<64xi32>
  %sf = tile.frag_convert %si : !tile.per_row<64xi32> -> !tile.per_row<64xf32>
  %z = tile.frag_zeros : !tile.frag<64x16xf32>
  %a = tile.frag_arith add %z, %sf : !tile.frag<64x16xf32>, !tile.per_row<64xf32> -> !tile.frag<64x16xf32>
  tile.frag_store %a, %out, %ld, %t : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  tile.return
}

// frag_load, the inverse of frag_store: one vector load per pair (<2 x f32>,
// or the i32 of a packed f16 pair), at the pair's offsets from the thread's
// origin (r * row_stride + c, 64-bit).
// CHECK-LABEL: llvm.func @load_frag(
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.load %{{.*}} -> vector<2xf32>
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: llvm.load
// PTX-LABEL: .entry load_frag(
// PTX-COUNT-4: ld.global.v2.{{f32|b32}}
// PTX: ld.global.{{b32|v2.b16}}
tile.kernel @load_frag(%w: !tile.ptr<f32, global>, %h: !tile.ptr<f16, global>,
                       %out: !tile.ptr<f32, global>, %ld: i64) {
  %t = tile.sreg tid_x : i32
  %a = tile.frag_load %w, %ld, %t : !tile.ptr<f32, global> -> !tile.frag<64x16xf32>
  %b = tile.frag_load %h, %ld, %t : !tile.ptr<f16, global> -> !tile.frag<64x16xf16>
  %c = tile.frag_convert %b : !tile.frag<64x16xf16> -> !tile.frag<64x16xf32>
  %d = tile.frag_arith add %a, %c : !tile.frag<64x16xf32>, !tile.frag<64x16xf32> -> !tile.frag<64x16xf32>
  tile.frag_store %d, %out, %ld, %t : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  tile.return
}

// `rows`: each of the thread's rows is compared once (signed, slt) with the
// bound and its stores are skipped at or past it; without `rows` the
// stores are unconditional (@packed_math above).
// CHECK-LABEL: llvm.func @stores_first_rows(
// CHECK-COUNT-2: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK-NOT: llvm.icmp "slt"
// CHECK: llvm.return
tile.kernel @stores_first_rows(%out: !tile.ptr<f32, global>, %ld: i64, %n: i32) {
  %t = tile.sreg tid_x : i32
  %z = tile.frag_zeros : !tile.frag<64x8xf32>
  tile.frag_store %z, %out, %ld, %t rows %n : !tile.frag<64x8xf32>, !tile.ptr<f32, global>
  tile.return
}

// Loads of the first n rows (columns): each row (column) the thread holds
// is compared once (signed, slt) with the bound, and its load runs only
// below it; past the bound the value is the zero the join block receives.
// load_per_row: the thread's two rows; load_per_col over 16 columns: its
// four; frag_load: one compare per row for all of that row's pairs.
// CHECK-LABEL: llvm.func @loads_first_rows(
// CHECK: %[[Z:.*]] = llvm.mlir.zero : f32
// CHECK-NEXT: llvm.cond_br %{{.*}}, ^{{.*}}, ^[[J:bb[0-9]+]](%[[Z]] : f32)
// CHECK-COUNT-7: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK-NOT: llvm.icmp "slt"
// CHECK: llvm.return
// PTX-LABEL: .entry loads_first_rows(
// PTX-COUNT-2: setp.{{lt|ge}}.s32
// PTX: ret;
tile.kernel @loads_first_rows(%p: !tile.ptr<f32, global>, %out: !tile.ptr<f32, global>,
                              %ld: i64, %n: i32) {
  %t = tile.sreg tid_x : i32
  %r = tile.load_per_row %p, %t rows %n : !tile.ptr<f32, global> -> !tile.per_row<64xf32>
  %c = tile.load_per_col %p, %t cols %n : !tile.ptr<f32, global> -> !tile.per_col<16xf32>
  %f = tile.frag_load %p, %ld, %t rows %n : !tile.ptr<f32, global> -> !tile.frag<64x16xf32>
  %a = tile.frag_arith add %f, %r : !tile.frag<64x16xf32>, !tile.per_row<64xf32> -> !tile.frag<64x16xf32>
  %b = tile.frag_arith add %a, %c : !tile.frag<64x16xf32>, !tile.per_col<16xf32> -> !tile.frag<64x16xf32>
  tile.frag_store %b, %out, %ld, %t : !tile.frag<64x16xf32>, !tile.ptr<f32, global>
  tile.return
}

// `cols`: each pair compares its second column with the bound (slt: the
// whole pair, one vector store) and for equality (the pair straddles the
// bound: its first element alone, one scalar store, the low half of a
// packed pair); past it nothing is stored. A 64 x 8 fragment: one pair per
// row, two rows per thread, so two of each compare; under `rows` too, each
// row's compare guards its pairs' column guards.
// CHECK-LABEL: llvm.func @stores_first_cols(
// CHECK: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: llvm.trunc %{{.*}} : i32 to i16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK: llvm.return
// PTX-LABEL: .entry stores_first_cols(
// PTX: st.global.v2.{{f32|b32}}
// PTX: st.global.{{f32|b32}}
// PTX: st.global.b16
tile.kernel @stores_first_cols(%out: !tile.ptr<f32, global>, %h: !tile.ptr<bf16, global>,
                               %ld: i64, %n: i32, %m: i32) {
  %t = tile.sreg tid_x : i32
  %z = tile.frag_zeros : !tile.frag<64x8xf32>
  tile.frag_store %z, %out, %ld, %t cols %m : !tile.frag<64x8xf32>, !tile.ptr<f32, global>
  %b = tile.frag_convert %z : !tile.frag<64x8xf32> -> !tile.frag<64x8xbf16>
  tile.frag_store %b, %h, %ld, %t rows %n cols %m : !tile.frag<64x8xbf16>, !tile.ptr<bf16, global>
  tile.return
}

// Loads of the first m columns: the whole pair (a vector load) where its
// second column is below m, its first element alone where the pair
// straddles m (a scalar load; the second element 0), else 0: each a guarded
// load whose join receives 0, then a select of the straddling element.
// CHECK-LABEL: llvm.func @loads_first_cols(
// CHECK: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: llvm.zext %{{.*}} : i16 to i32
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: llvm.return
// PTX-LABEL: .entry loads_first_cols(
// PTX: ld.global.v2.{{f32|b32}}
// PTX: ld.global.{{f32|b32}}
// PTX: ld.global.{{b16|u16}}
tile.kernel @loads_first_cols(%p: !tile.ptr<f32, global>, %h: !tile.ptr<bf16, global>,
                              %out: !tile.ptr<f32, global>, %ld: i64, %n: i32, %m: i32) {
  %t = tile.sreg tid_x : i32
  %a = tile.frag_load %p, %ld, %t cols %m : !tile.ptr<f32, global> -> !tile.frag<64x8xf32>
  %b = tile.frag_load %h, %ld, %t rows %n cols %m : !tile.ptr<bf16, global> -> !tile.frag<64x8xbf16>
  %c = tile.frag_convert %b : !tile.frag<64x8xbf16> -> !tile.frag<64x8xf32>
  %d = tile.frag_arith add %a, %c : !tile.frag<64x8xf32>, !tile.frag<64x8xf32> -> !tile.frag<64x8xf32>
  tile.frag_store %d, %out, %ld, %t : !tile.frag<64x8xf32>, !tile.ptr<f32, global>
  tile.return
}
