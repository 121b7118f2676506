// RUN: tile-opt %s -split-input-file -verify-diagnostics
// The verifiers of tile.load/tile.store/tile.create_policy hold hand-built IR
// to the cache-hint rules the frontend checks (tilec/Target/CacheRules.h).

tile.kernel @nc_ordered(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{cache = nc needs a plain (weak) load}}
  %x = tile.load %p {order = #tile<order acquire>, cache = #tile<cache nc>} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

tile.kernel @cop_and_evict(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{`evict =` cannot be combined with cache = cg}}
  %x = tile.load %p {cache = #tile<cache cg>, evict = #tile<evict evict_first>} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

tile.kernel @store_cop_on_load(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{cache = wt is not a load cache operator}}
  %x = tile.load %p {cache = #tile<cache wt>} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

tile.kernel @shared_prefetch() {
  %s = tile.shared_alloc {static_count = 16 : i64} -> !tile.ptr<i32, shared>
  // expected-error @+1 {{`prefetch =` needs global memory}}
  %x = tile.load %s {prefetch = 128 : i32} : !tile.ptr<i32, shared> -> i32
  tile.return
}

// -----

tile.kernel @bad_prefetch(%p: !tile.ptr<i32, global>) {
  // expected-error @+1 {{prefetch = 32 is not an L2 prefetch size}}
  %x = tile.load %p {prefetch = 32 : i32} : !tile.ptr<i32, global> -> i32
  tile.return
}

// -----

tile.kernel @shared_policy(%v: i32) {
  %s = tile.shared_alloc {static_count = 16 : i64} -> !tile.ptr<i32, shared>
  %P = tile.create_policy evict_first fraction 1.0 : i64
  // expected-error @+1 {{`policy =` needs global memory}}
  tile.store %v, %s policy %P : i32, !tile.ptr<i32, shared>
  tile.return
}

// -----

tile.kernel @store_release_cop(%p: !tile.ptr<i32, global>, %v: i32) {
  // expected-error @+1 {{cache = wb needs a plain (weak) store}}
  tile.store %v, %p {order = #tile<order release>, cache = #tile<cache wb>} : i32, !tile.ptr<i32, global>
  tile.return
}

// -----

tile.kernel @vector_bytes(%p: !tile.ptr<f32, global>) {
  // expected-error @+1 {{a vector access moves 4, 8, 16 or 32 bytes, not 64}}
  %x = tile.load %p : !tile.ptr<f32, global> -> vector<16xf32>
  tile.return
}

// -----

tile.kernel @vector_element(%p: !tile.ptr<f32, global>) {
  // expected-error @+1 {{vector element type 'i32' does not match the pointee type 'f32'}}
  %x = tile.load %p : !tile.ptr<f32, global> -> vector<4xi32>
  tile.return
}

// -----

tile.kernel @policy_no_allocate() {
  // expected-error @+1 {{an L2 policy takes evict_normal, evict_first, evict_last or evict_unchanged}}
  %P = tile.create_policy no_allocate fraction 1.0 : i64
  tile.return
}

// -----

tile.kernel @policy_fraction() {
  // expected-error @+1 {{fraction must be in (0, 1]}}
  %P = tile.create_policy evict_last fraction 0.0 : i64
  tile.return
}
