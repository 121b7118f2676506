// RUN: tile-opt %s -split-input-file -verify-diagnostics

tile.kernel @regs() attributes {max_threads = array<i32: 128>} {
  %wg = tile.warpgroup_id : i32
  // expected-error @+1 {{regs 44 is not a multiple of 8 in 24..256 (PTX setmaxnreg)}}
  tile.role "a"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, regs = 44 : i32, barrier_id = 1 : i32} {
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @range() {
  %wg = tile.warpgroup_id : i32
  // expected-error @+1 {{warpgroups [7, 9) are outside the 8 warpgroups a CTA can have}}
  tile.role "a"(%wg) attributes {first_warpgroup = 7 : i32, num_warpgroups = 2 : i32, barrier_id = 1 : i32} {
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @barrier_zero() {
  %wg = tile.warpgroup_id : i32
  // expected-error @+1 {{barrier_id 0 is not in 1..15 (0 is the CTA-wide barrier)}}
  tile.role "a"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 0 : i32} {
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @cta_barrier_in_role() {
  %wg = tile.warpgroup_id : i32
  tile.role "a"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 1 : i32} {
    // expected-error @+1 {{inside tile.role "a": it waits for threads the role does not have}}
    tile.barrier
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @cluster_barrier_in_role() attributes {cluster_dims = array<i32: 2>} {
  %wg = tile.warpgroup_id : i32
  tile.role "a"(%wg) attributes {first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 1 : i32} {
    // expected-error @+1 {{inside tile.role "a"}}
    tile.cluster_sync
    tile.role_end
  }
  tile.return
}

// -----

tile.kernel @nested_role() {
  %wg = tile.warpgroup_id : i32
  "tile.role"(%wg) <{role_name = "x", first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 1 : i32}> ({
    "scf.execute_region"() ({
      // expected-error @+1 {{expects parent op 'tile.kernel'}}
      "tile.role"(%wg) <{role_name = "y", first_warpgroup = 0 : i32, num_warpgroups = 1 : i32, barrier_id = 2 : i32}> ({
        tile.role_end
      }) : (i32) -> ()
      scf.yield
    }) : () -> ()
    tile.role_end
  }) : (i32) -> ()
  tile.return
}

// -----

tile.kernel @named_barrier_count() {
  // expected-error @+1 {{thread count 100 is not a multiple of 32 in 32..1024 (PTX bar.sync)}}
  tile.named_barrier 1, 100
  tile.return
}

// -----

tile.kernel @named_barrier_id() {
  // expected-error @+1 {{barrier id 16 is not in 0..15}}
  tile.named_barrier 16, 128
  tile.return
}
