// MLIR's parser crashes on a dense array of `index` (it asks the index type
// for a bit width): tile-opt refuses such input with an error instead.
// RUN: not tile-opt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump"
// CHECK: parser-crash.mlir:[[# @LINE + 2]]:54: error: dense arrays of 'index' are not supported; use array<i32: ...> or array<i64: ...>

tile.kernel @index_dims() attributes {cluster_dims = array<index: 2>} {
  tile.return
}
