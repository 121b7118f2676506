// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A turn alternates between the warpgroups of its role: outside a role,
// with a warpgroup count other than the role's (or one), or on barriers
// outside 1..15 or overlapping the role's own barrier, it is rejected.

tile.kernel @outside_role() {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.turn_wait' op outside a tile.role: a turn alternates between a role's warpgroups}}
  tile.turn_wait %c0 {first_barrier = 9 : i32, warpgroups = 2 : i32}
  tile.return
}

// -----

tile.kernel @count() {
  %wg = tile.warpgroup_id : i32
  tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
    // expected-error @+1 {{'tile.turn_pass' op warpgroups 3 is not the 2 (>= 2) of its tile.role "c"}}
    tile.turn_pass %wg {first_barrier = 9 : i32, warpgroups = 3 : i32}
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @one_warpgroup() {
  %wg = tile.warpgroup_id : i32
  tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 1 : i32} {
    // expected-error @+1 {{'tile.turn_wait' op warpgroups 1 is not the 1 (>= 2) of its tile.role "c"}}
    tile.turn_wait %wg {first_barrier = 9 : i32, warpgroups = 1 : i32}
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @range() {
  %wg = tile.warpgroup_id : i32
  tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
    // expected-error @+1 {{'tile.turn_wait' op barriers 15..16 are not in 1..15}}
    tile.turn_wait %wg {first_barrier = 15 : i32, warpgroups = 2 : i32}
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @own_barrier() {
  %wg = tile.warpgroup_id : i32
  tile.role "c"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 2 : i32, barrier_id = 2 : i32} {
    // expected-error @+1 {{'tile.turn_pass' op barriers 1..2 include the role's own barrier 2}}
    tile.turn_pass %wg {first_barrier = 1 : i32, warpgroups = 2 : i32}
    tile.role_end
  }
  tile.return
}
