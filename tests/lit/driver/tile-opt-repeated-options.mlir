// tile-opt gives each option at most one value, as tilec does: a pass's or
// pipeline's option twice in one list, `-o` twice or `--pass-pipeline` twice
// with different values is an error naming both (MLIR and llvm::cl alone
// keep the last silently); the same value twice is accepted, and a pass
// given twice is two passes.

// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-anchor-mma-waits{anchor=last anchor=reduce}))' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: tile-opt: error: 'anchor=last' and 'anchor=reduce' give tile-anchor-mma-waits's option anchor two values
// NESTED-NEXT: hint: give each option once (tile-opt does not take the last one silently)
// RUN: not tile-opt %s --tile-anchor-mma-waits='anchor=reduce anchor=last' 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: error: 'anchor=reduce' and 'anchor=last' give tile-anchor-mma-waits's option anchor two values
// RUN: not tile-opt %s --tile-pipeline='debug-hangs-ms=5 auto-sync=false debug-hangs-ms=7' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: error: 'debug-hangs-ms=5' and 'debug-hangs-ms=7' give tile-pipeline's option debug-hangs-ms two values
// A bare boolean option is `true`; a quoted value is the value.
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-sync-pipeline{auto-sync auto-sync=false})' 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: error: 'auto-sync' and 'auto-sync=false' give tile-sync-pipeline's option auto-sync two values
// RUN: not tile-opt %s --pass-pipeline="builtin.module(tile.kernel(tile-anchor-mma-waits{anchor='last' anchor=\"reduce\"}))" 2>&1 | FileCheck %s --check-prefix=QUOTED
// QUOTED: error: 'anchor='last'' and 'anchor="reduce"' give tile-anchor-mma-waits's option anchor two values
// RUN: not tile-opt %s -o %t.a.mlir -o %t.b.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: error: '-o {{.*}}.a.mlir' and '-o {{.*}}.b.mlir' give -o two values
// OUTPUT-NEXT: hint: give -o once (tile-opt does not take the last one silently)
// RUN: not tile-opt %s -p 'builtin.module(canonicalize)' --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=TWO-PIPELINES
// TWO-PIPELINES: error: '-p builtin.module(canonicalize)' and '--pass-pipeline=builtin.module(cse)' give --pass-pipeline two values

// Accepted: one value given twice (in every spelling), and two passes each
// with its own options.
// RUN: tile-opt %s --pass-pipeline="builtin.module(tile.kernel(tile-anchor-mma-waits{anchor=last anchor='last' anchor={last}}))" -o %t.c.mlir -o=%t.c.mlir
// RUN: FileCheck %s --check-prefix=OK < %t.c.mlir
// RUN: tile-opt %s --tile-sync-pipeline='auto-sync auto-sync=true' --tile-anchor-mma-waits=anchor=last --tile-anchor-mma-waits=anchor=reduce | FileCheck %s --check-prefix=OK
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-anchor-mma-waits{anchor=last}, tile-anchor-mma-waits{anchor=reduce}))' | FileCheck %s --check-prefix=OK
// OK: tile.kernel @k

tile.kernel @k(%p: !tile.ptr<i32, global>) attributes {req_threads = array<i32: 32, 1, 1>} {
  tile.return
}
