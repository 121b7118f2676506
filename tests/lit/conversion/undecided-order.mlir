// RUN: not tile-opt %s --convert-tile-to-llvm -split-input-file 2>&1 | FileCheck %s

// Orders and scopes have one owner, tile-sync-semantics. An op that reaches
// the lowering with one still open skipped it: the lowering reports an error
// at the op instead of falling back to a default.

tile.kernel @arrive() {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no order decided for tile.mbarrier_arrive
  tile.mbarrier_arrive %bar {scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @arrive_scope() {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no scope decided for tile.mbarrier_arrive
  tile.mbarrier_arrive %bar {order = #tile<order release>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @expect_tx(%n: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no scope decided for tile.mbarrier_expect_tx
  tile.mbarrier_expect_tx %bar, %n : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @wait(%p: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no order decided for tile.mbarrier_wait
  tile.mbarrier_wait %bar parity %p {scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @wait_scope(%p: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no scope decided for tile.mbarrier_wait
  tile.mbarrier_wait %bar parity %p {order = #tile<order acquire>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @try_wait(%p: i32) {
  %bar = tile.shared_alloc {static_count = 1 : i64} -> !tile.ptr<i64, shared>
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:11: error: internal: no order decided for tile.mbarrier_try_wait
  %done = tile.mbarrier_try_wait %bar, %p {scope = #tile<scope cta>} : !tile.ptr<i64, shared>
  tile.return
}

// -----

tile.kernel @fence() {
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no order decided for tile.fence
  tile.fence {scope = #tile<scope gpu>}
  tile.return
}

// -----

tile.kernel @fence_scope() {
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no scope decided for tile.fence
  tile.fence {order = #tile<order acq_rel>}
  tile.return
}

// -----

tile.kernel @cluster_arrive() attributes {cluster_dims = array<i32: 2, 1, 1>} {
  // CHECK: undecided-order.mlir:[[# @LINE + 1]]:3: error: internal: no order decided for tile.cluster_arrive
  tile.cluster_arrive
  tile.cluster_wait
  tile.return
}
