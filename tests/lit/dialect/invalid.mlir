// RUN: tile-opt %s -split-input-file -verify-diagnostics

tile.kernel @no_cluster() {
  // expected-error @+1 {{needs a kernel launched in clusters}}
  tile.cluster_sync
  tile.return
}

// -----

// expected-error @+1 {{cluster dimension 0 of 32 exceeds the limit of 16}}
tile.kernel @too_big() attributes {cluster_dims = array<i32: 32>} {
  tile.return
}

// -----

// expected-error @+1 {{threads dimension 0 of 2048 exceeds the limit of 1024}}
tile.kernel @too_many_threads() attributes {max_threads = array<i32: 2048>} {
  tile.return
}

// -----

tile.kernel @load_release(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{a load cannot have release semantics}}
  %x = tile.load %p {order = #tile<order release>} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

tile.kernel @store_acquire(%p: !tile.ptr<i32, global>, %v: i32) {
  // expected-error @+1 {{a store cannot have acquire semantics}}
  tile.store %v, %p {order = #tile<order acquire>} : i32, !tile.ptr<i32, global>
  tile.return
}

// -----

tile.kernel @mismatch(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{value type 'f32' does not match the pointee type 'i32'}}
  %x = tile.load %p : !tile.ptr<i32, global> -> f32
  tile.return
}

// -----

tile.kernel @weak_atomic(%p: !tile.ptr<i32, global>, %v: i32) {
  // expected-error @+1 {{atomics are at least relaxed}}
  %x = tile.atomic_rmw add %p, %v {order = #tile<order weak>} : !tile.ptr<i32, global>, i32
  tile.return
}

// -----

tile.kernel @float_min(%p: !tile.ptr<f32, global>, %v: f32) {
  // expected-error @+1 {{floating-point atomics support only add and exch}}
  %x = tile.atomic_rmw min %p, %v : !tile.ptr<f32, global>, f32
  tile.return
}

// -----

tile.kernel @half_exch(%p: !tile.ptr<bf16, global>, %v: bf16) {
  // expected-error @+1 {{f16 and bf16 atomics support only add}}
  %x = tile.atomic_rmw exch %p, %v : !tile.ptr<bf16, global>, bf16
  tile.return
}

// -----

tile.kernel @alloc_in_loop(%n: i32) {
  %c = arith.constant true
  scf.if %c {
    // expected-error @+1 {{must be in the entry block of a tile.kernel}}
    %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  }
  tile.return
}

// -----

tile.kernel @mapa_no_cluster(%n: i32) {
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  // expected-error @+1 {{needs a kernel launched in clusters}}
  %q = tile.mapa %s, %n : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  tile.return
}

// -----

tile.kernel @both_counts(%n: i32) {
  // expected-error @+1 {{needs exactly one of a static count or a dynamic count operand}}
  %s = tile.shared_alloc %n : i32 {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @ordered_bool(%p: !tile.ptr<i1, global>) {
  // expected-error @+1 {{accesses with a memory order need 8-, 16-, 32- or 64-bit values}}
  %x = tile.load %p {order = #tile<order relaxed>} : !tile.ptr<i1, global> -> i1
  tile.return
}

// -----

tile.kernel @static_count_zero() {
  // expected-error @+1 {{count 0 is outside 1..58112}}
  %s = tile.shared_alloc {static_count = 0 : i64} -> !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @static_count_negative() {
  // expected-error @+1 {{count -5 is outside 1..232448}}
  %s = tile.shared_alloc {static_count = -5 : i64} -> !tile.ptr<i8, shared>
  tile.return
}

// -----

tile.kernel @static_count_huge() {
  // expected-error @+1 {{count 9223372036854775807 is outside 1..29056}}
  %s = tile.shared_alloc {static_count = 9223372036854775807 : i64} -> !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @static_count_over_smem() {
  // expected-error @+1 {{count 58113 is outside 1..58112 (at most 232448 bytes of shared memory per CTA)}}
  %s = tile.shared_alloc {static_count = 58113 : i64} -> !tile.ptr<f32, shared>
  tile.return
}

// -----

tile.kernel @dynamic_count_constant_zero() {
  %n = arith.constant 0 : i32
  // expected-error @+1 {{count 0 is outside 1..58112}}
  %s = tile.shared_alloc %n : i32 -> !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @dynamic_count_wide() {
  %n = arith.constant 5 : i128
  // expected-error @+1 {{operand #0 must be 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer}}
  %s = tile.shared_alloc %n : i128 -> !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @alloc_of_pointers() {
  // expected-error @+1 {{pointers are stored only in local memory, not in shared memory}}
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<!tile.ptr<i32, global>, shared>
  tile.return
}

// -----

// expected-error @+1 {{cluster dimension 0 of 2147483647 exceeds the limit of 16}}
tile.kernel @cluster_overflow() attributes {cluster_dims = array<i32: 2147483647, 2147483647, 2147483647>} {
  tile.return
}

// -----

// expected-error @+1 {{cluster of 18 exceeds the limit of 16}}
tile.kernel @cluster_product() attributes {cluster_dims = array<i32: 3, 3, 2>} {
  tile.return
}

// -----

// expected-error @+1 {{cluster needs 1 to 3 dimensions}}
tile.kernel @cluster_four_dims() attributes {cluster_dims = array<i32: 1, 1, 1, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{cluster needs 1 to 3 dimensions}}
tile.kernel @cluster_no_dims() attributes {cluster_dims = array<i32>} {
  tile.return
}

// -----

// expected-error @+1 {{cluster dimensions must be positive}}
tile.kernel @cluster_negative() attributes {cluster_dims = array<i32: -2, -8>} {
  tile.return
}

// -----

// expected-error @+1 {{threads dimension 2 of 128 exceeds the limit of 64}}
tile.kernel @threads_z() attributes {max_threads = array<i32: 1, 1, 128>} {
  tile.return
}

// -----

// expected-error @+1 {{cluster shape cannot be both static and dynamic}}
tile.kernel @static_and_dynamic() attributes {cluster_dims = array<i32: 2>, cluster_dynamic} {
  tile.return
}

// -----

// expected-error @+1 {{kernels return nothing}}
"tile.kernel"() <{sym_name = "returns", function_type = () -> i32}> ({
  tile.return
}) : () -> ()

// -----

// expected-error @+1 {{parameter 0 has type '!tile.ptr<i32, shared>'; kernel parameters are scalars, global pointers or tensor maps}}
tile.kernel @shared_param(%p: !tile.ptr<i32, shared>) {
  tile.return
}

// -----

// expected-error @+1 {{parameter 1 has type 'index'; kernel parameters are scalars, global pointers or tensor maps}}
tile.kernel @index_param(%a: i32, %b: index) {
  tile.return
}

// -----

// expected-error @+1 {{a !tile.ptr points to i1, i8, i16, i32, i64, f16, bf16, f32, f64, f8E4M3FN, f8E5M2 or (in local memory) a pointer, not 'index'}}
tile.kernel @ptr_to_index(%p: !tile.ptr<index, global>) {
  tile.return
}

// -----

// expected-error @+1 {{a !tile.ptr points to i1, i8, i16, i32, i64, f16, bf16, f32, f64, f8E4M3FN, f8E5M2 or (in local memory) a pointer, not 'i128'}}
tile.kernel @ptr_to_i128(%p: !tile.ptr<i128, global>) {
  tile.return
}

// -----

// expected-error @+1 {{vectors are pointees only in local memory (a `var`), not in global memory}}
tile.kernel @ptr_to_vector(%p: !tile.ptr<vector<4xi32>, global>) {
  tile.return
}

// -----

// expected-error @+1 {{pointers are stored only in local memory, not in global memory}}
tile.kernel @ptr_to_ptr(%p: !tile.ptr<!tile.ptr<i32, global>, global>) {
  tile.return
}

// -----

// expected-error @+2 {{expected one of [global, shared, cluster, local] for memory space of a pointer, got: texture}}
// expected-error @+1 {{failed to parse Tile_PtrType parameter 'space'}}
tile.kernel @bad_space(%p: !tile.ptr<i32, texture>) {
  tile.return
}

// -----

tile.kernel @ptr_add_wide(%p: !tile.ptr<i32, global>) {
  %i = arith.constant 1 : i128
  // expected-error @+1 {{operand #1 must be 1-bit signless integer or 8-bit signless integer}}
  %q = tile.ptr_add %p, %i : !tile.ptr<i32, global>, i128
  tile.return
}

// -----

tile.kernel @load_mismatch_local() {
  %p = tile.local_var -> !tile.ptr<i64, local>
  // expected-error @+1 {{value type 'i32' does not match the pointee type 'i64'}}
  %x = tile.load %p : !tile.ptr<i64, local> -> i32
  tile.return
}

// -----

tile.kernel @local_ordered(%v: i32) {
  %p = tile.local_var -> !tile.ptr<i32, local>
  // expected-error @+1 {{thread-local memory takes no memory order}}
  tile.store %v, %p {order = #tile<order release>} : i32, !tile.ptr<i32, local>
  tile.return
}

// -----

tile.kernel @local_atomic(%v: i32) {
  %p = tile.local_var -> !tile.ptr<i32, local>
  // expected-error @+1 {{atomics need global, shared or cluster memory}}
  %x = tile.atomic_rmw add %p, %v : !tile.ptr<i32, local>, i32
  tile.return
}

// -----

tile.kernel @atomic_i16(%p: !tile.ptr<i16, global>, %v: i16) {
  // expected-error @+1 {{operand #1 must be 32-bit signless integer or 64-bit signless integer or 16-bit float or bfloat16 type or 32-bit float}}
  %x = tile.atomic_rmw add %p, %v : !tile.ptr<i16, global>, i16
  tile.return
}

// -----

tile.kernel @cas_weak(%p: !tile.ptr<i32, global>, %v: i32) {
  // expected-error @+1 {{atomics are at least relaxed}}
  %x = tile.atomic_cas %p, %v, %v {order = #tile<order weak>} : !tile.ptr<i32, global>, i32
  tile.return
}

// -----

tile.kernel @mapa_changes_type(%n: i32) attributes {cluster_dims = array<i32: 2>} {
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  // expected-error @+1 {{element type must be preserved}}
  %q = tile.mapa %s, %n : !tile.ptr<i32, shared> -> !tile.ptr<f32, cluster>
  tile.return
}

// -----

tile.kernel @arrive_no_cluster() {
  // expected-error @+1 {{needs a kernel launched in clusters}}
  tile.cluster_arrive
  tile.return
}

// -----

tile.kernel @wait_no_cluster() {
  // expected-error @+1 {{needs a kernel launched in clusters}}
  tile.cluster_wait
  tile.return
}

// -----

tile.kernel @mbarrier_i32() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %c = arith.constant 1 : i32
  // expected-error @+1 {{an mbarrier is a 64-bit object}}
  tile.mbarrier_init %b, %c : !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @mbarrier_count_zero() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c = arith.constant 0 : i32
  // expected-error @+1 {{arrival count 0 is outside 1..1048575}}
  tile.mbarrier_init %b, %c : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @mbarrier_count_huge() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c = arith.constant 1048576 : i32
  // expected-error @+1 {{arrival count 1048576 is outside 1..1048575}}
  tile.mbarrier_init %b, %c : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @expect_tx_negative() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c = arith.constant -1 : i32
  // expected-error @+1 {{transaction count -1 is outside 0..1048575}}
  tile.mbarrier_expect_tx %b, %c : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @arrive_tx_huge() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c = arith.constant 2000000 : i32
  // expected-error @+1 {{transaction count 2000000 is outside 0..1048575}}
  tile.mbarrier_arrive %b expect_tx %c : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @arrive_acquire() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{an arrive is relaxed or release}}
  tile.mbarrier_arrive %b {order = #tile<order acquire>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @arrive_gpu_scope() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{mbarrier operations take scope cta or cluster}}
  tile.mbarrier_arrive %b {scope = #tile<scope gpu>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @expect_tx_sys_scope() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %c = arith.constant 4 : i32
  // expected-error @+1 {{mbarrier operations take scope cta or cluster}}
  tile.mbarrier_expect_tx %b, %c {scope = #tile<scope sys>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @wait_release() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{a wait is relaxed or acquire}}
  tile.mbarrier_wait %b {order = #tile<order release>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @wait_parity_two() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %p = arith.constant 2 : i32
  // expected-error @+1 {{parity 2 is outside 0..1}}
  tile.mbarrier_wait %b parity %p : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @try_wait_i32() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i32, shared>
  %p = arith.constant 0 : i32
  // expected-error @+1 {{an mbarrier is a 64-bit object}}
  %d = tile.mbarrier_try_wait %b, %p : !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @try_wait_release() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %p = arith.constant 0 : i32
  // expected-error @+1 {{a wait is relaxed or acquire}}
  %d = tile.mbarrier_try_wait %b, %p {order = #tile<order release>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @try_wait_gpu_scope() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %p = arith.constant 0 : i32
  // expected-error @+1 {{mbarrier operations take scope cta or cluster}}
  %d = tile.mbarrier_try_wait %b, %p {scope = #tile<scope gpu>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @try_wait_parity_negative() {
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %p = arith.constant -1 : i32
  // expected-error @+1 {{parity -1 is outside 0..1}}
  %d = tile.mbarrier_try_wait %b, %p : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @store_async_three(%v: i32, %r: i32) attributes {cluster_dims = array<i32: 2>} {
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i32, shared>
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %d = tile.mapa %s, %r : !tile.ptr<i32, shared> -> !tile.ptr<i32, cluster>
  %m = tile.mapa %b, %r : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  // expected-error @+1 {{st.async stores 1, 2 or 4 values (.v2/.v4)}}
  tile.store_async (%v, %v, %v), %d, %m : (i32, i32, i32), !tile.ptr<i32, cluster>, !tile.ptr<i64, cluster>
  tile.return
}

// -----

tile.kernel @store_async_v4_i64(%v: i64, %r: i32) attributes {cluster_dims = array<i32: 2>} {
  %s = tile.shared_alloc {static_count = 4 : i64} -> !tile.ptr<i64, shared>
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  %d = tile.mapa %s, %r : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  %m = tile.mapa %b, %r : !tile.ptr<i64, shared> -> !tile.ptr<i64, cluster>
  // expected-error @+1 {{st.async.v4 takes 32-bit values}}
  tile.store_async (%v, %v, %v, %v), %d, %m : (i64, i64, i64, i64), !tile.ptr<i64, cluster>, !tile.ptr<i64, cluster>
  tile.return
}

// -----

tile.kernel @fence_relaxed() {
  // expected-error @+1 {{a fence is acq_rel or sc}}
  tile.fence {order = #tile<order relaxed>, scope = #tile<scope gpu>}
  tile.return
}

// -----

tile.kernel @hang_trap_string(%a: i32) {
  // expected-error @+1 {{the message may use only %d, %i, %u, %x and %% (one i32 each)}}
  tile.hang_trap "waiting in %s\n" %a : i32
  tile.return
}

// -----

tile.kernel @hang_trap_count(%a: i32) {
  // expected-error @+1 {{the message has 2 conversions but 1 arguments}}
  tile.hang_trap "cta %d thread %d, 100%% stuck\n" %a : i32
  tile.return
}

// -----

tile.kernel @hang_trap_trailing_percent() {
  // expected-error @+1 {{the message may use only %d, %i, %u, %x and %% (one i32 each)}}
  tile.hang_trap "stuck %"
  tile.return
}

// -----

tile.kernel @bad_order_name(%p: !tile.ptr<i32, global>) {
  // expected-error @+2 {{expected ::mlir::tile::MemoryOrder to be one of: weak, relaxed, acquire, release, acq_rel, sc}}
  // expected-error @+1 {{failed to parse Tile_MemoryOrderAttr parameter 'value'}}
  %x = tile.load %p {order = #tile<order seq_cst>} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

// TMA ops (TileTmaOps.td): the layout and the copy shapes are verified.
tile.kernel @tile_element_rank(%i: i32) {
  %t = tile.shared_alloc {static_count = 256 : i64, alignment = 1024 : i64} -> !tile.ptr<f32, shared>
  // expected-error @+1 {{needs one index per layout dimension}}
  %e = tile.tile_element %t[%i] <[8, 32], swizzle = 128, panel = 32> : !tile.ptr<f32, shared>, i32
  tile.return
}

// -----

tile.kernel @bad_swizzle(%i: i32) {
  %t = tile.shared_alloc {static_count = 256 : i64} -> !tile.ptr<f32, shared>
  // expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes}}
  %e = tile.tile_element %t[%i, %i] <[8, 32], swizzle = 96, panel = 32> : !tile.ptr<f32, shared>, i32, i32
  tile.return
}

// -----

tile.kernel @panel_not_span(%i: i32) {
  %t = tile.shared_alloc {static_count = 512 : i64} -> !tile.ptr<f32, shared>
  // expected-error @+1 {{a swizzled panel is exactly the swizzle span wide}}
  %e = tile.tile_element %t[%i, %i] <[8, 64], swizzle = 128, panel = 64> : !tile.ptr<f32, shared>, i32, i32
  tile.return
}

// -----

tile.kernel @copy_element(%m: !tile.tensormap<f16, 2>, %c: i32) {
  %t = tile.shared_alloc {static_count = 256 : i64} -> !tile.ptr<f32, shared>
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{tile and tensor map element types differ}}
  tile.tma_load %t, %m[%c, %c], %b <[8, 32], swizzle = 128, panel = 32> : !tile.ptr<f32, shared>, !tile.tensormap<f16, 2>, !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @copy_rank(%m: !tile.tensormap<f32, 2>, %c: i32) {
  %t = tile.shared_alloc {static_count = 256 : i64} -> !tile.ptr<f32, shared>
  // expected-error @+1 {{needs one coordinate per tensor dimension}}
  tile.tma_store %m[%c], %t <[8, 32], swizzle = 128, panel = 32> : !tile.tensormap<f32, 2>, !tile.ptr<f32, shared>
  tile.return
}

// -----

// A tile of lower rank is a box with leading extents 1; a higher rank has no box.
tile.kernel @copy_tile_rank(%m: !tile.tensormap<f32, 2>, %c: i32) {
  %t = tile.shared_alloc {static_count = 256 : i64} -> !tile.ptr<f32, shared>
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{tile rank 3 exceeds the tensor map's rank 2}}
  tile.tma_load %t, %m[%c, %c], %b <[2, 4, 32], swizzle = 128, panel = 32> : !tile.ptr<f32, shared>, !tile.tensormap<f32, 2>, !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @multicast_axis(%m: !tile.tensormap<f32, 2>, %c: i32) attributes {cluster_dims = array<i32: 2, 1, 1>} {
  %t = tile.shared_alloc {static_count = 256 : i64} -> !tile.ptr<f32, shared>
  %b = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // expected-error @+1 {{multicast_axis must be 0..3}}
  tile.tma_load %t, %m[%c, %c], %b <[8, 32], swizzle = 128, panel = 32> {multicast_axis = 5 : i32} : !tile.ptr<f32, shared>, !tile.tensormap<f32, 2>, !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @barrier_reduction_without_result(%p: i1) {
  // expected-error @+1 {{a barrier reduction needs its predicate, its reduction and its result together}}
  tile.barrier {reduction = #tile<barrier_reduction popc>}
  tile.return
}

// -----

tile.kernel @barrier_popc_type(%p: i1) {
  // expected-error @+1 {{the popc reduction gives an i32}}
  %r = tile.barrier reduce popc %p : i1
  tile.return
}

// -----

tile.kernel @named_barrier_or_type(%p: i1) {
  // expected-error @+1 {{the or reduction gives an i1}}
  %r = tile.named_barrier 1, 128 reduce or %p : i32
  tile.return
}

// -----

tile.kernel @barrier_reduction_without_predicate() {
  // expected-error @+1 {{a barrier reduction needs its predicate, its reduction and its result together}}
  %r = "tile.barrier"() {reduction = #tile<barrier_reduction or>} : () -> i1
  tile.return
}
