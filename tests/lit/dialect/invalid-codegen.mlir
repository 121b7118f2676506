// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{max_threads and req_threads exclude each other}}
tile.kernel @both() attributes {max_threads = array<i32: 256>, req_threads = array<i32: 256>} {
  tile.return
}

// -----

// expected-error @+1 {{min_blocks of 33 is outside 1..32}}
tile.kernel @too_many_blocks() attributes {max_threads = array<i32: 64>, min_blocks = 33 : i32} {
  tile.return
}

// -----

// expected-error @+1 {{required threads of 2048 exceeds the limit of 1024}}
tile.kernel @too_many_threads() attributes {req_threads = array<i32: 64, 32>} {
  tile.return
}

// -----

tile.kernel @ballot_type(%p: i1) {
  %m = arith.constant -1 : i32
  // expected-error @+1 {{ballot gives an i32 mask}}
  %b = tile.vote ballot %p, %m -> i1
  tile.return
}

// -----

tile.kernel @any_type(%p: i1) {
  %m = arith.constant -1 : i32
  // expected-error @+1 {{any gives an i1}}
  %b = tile.vote any %p, %m -> i32
  tile.return
}
