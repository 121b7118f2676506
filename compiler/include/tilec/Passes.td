//===- Passes.td - tilec passes --------------------------------*- tablegen -*-===//
#ifndef TILEC_PASSES_TD
#define TILEC_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower tile, arith and cf to the LLVM and NVVM dialects";
  let description = [{
    Kernels become `llvm.func` with `nvvm.kernel`, `nvvm.maxntid` and
    `nvvm.cluster_dim`; memory operations become LLVM loads/stores or inline
    PTX carrying the exact `.sem`/`.scope`; DSMEM addressing becomes `nvvm.mapa`.
    Run `convert-scf-to-cf` first.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def TileSCFToCFInReverse : Pass<"tile-scf-to-cf-in-reverse", "::mlir::ModuleOp"> {
  let summary = "structured control flow to branches, each block's ops from its last "
                "to its first";
  let description = [{
    The upstream lowering of an scf.if, scf.for or scf.while splits its block after the
    op and moves every later op of the block into the new block. Applied
    from the first op down, a block of n ifs moves O(n^2) ops (a kernel of
    thousands of unrolled ifs spent most of its compile there). Applied from
    the last op up, each split moves only the ops up to the previous split:
    O(n) in all. A structured op is lowered before the ones in its regions
    (the patterns expect single-block regions). The same upstream patterns
    (convert-scf-to-cf's), the same result; an op they create (scf.forall
    becomes scf.parallel) is left for `convert-scf-to-cf`.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def TilePruneFloatBitMarks : Pass<"tile-prune-float-bit-marks", "::mlir::ModuleOp"> {
  let summary = "keep the NaN-bit marks only on floats a folder could make a NaN of";
  let description = [{
    MLIRGen marks every float whose bits the program moves or spells
    (docs/reference/operators.md, "NaN bits"; tilec/Target/NaNBits.h): a
    `tilec.float_bits.<type>` call before each bitcast to an integer and
    each float conversion, and an `llvm.arithmetic.fence` after each
    bitcast to a float. A mark matters only where the folders can turn the
    marked value into a NaN constant with bits of their own choosing: a
    constant expression (every leaf a constant, every op on the way pure;
    for a bitcast's read also a load of the thread's own `var` or local
    array, which LLVM promotes to registers and folds through). This pass
    decides which marks stay: it removes the others (a value computed at
    run time, a constant that is no NaN), so that they cost nothing and
    hide nothing from the analyses and folds that follow. Runs first, on
    the IR as MLIRGen made it.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Memory-model passes (docs/passes.md states each rule with its PTX reason).
// Every op a pass inserts or changes carries a `tile.sync` string attribute
// with the reason; `tilec --explain-sync` prints them.
//===----------------------------------------------------------------------===//

def TileLowerRings : Pass<"tile-lower-rings", "::mlir::tile::KernelOp"> {
  let summary = "rings -> shared tiles and mbarriers, with each access's stage and phase";
  let description = [{
    First in the sync pipeline. Each tile.ring becomes its member tiles (S
    stages each) and S full and S empty mbarriers, initialised where
    tile.ring_init stands (a ring nobody produces or consumes keeps its
    barriers uninitialised: an arrival count of 0 is not valid). Each
    tile.ring_cursor becomes two thread-local slots (stage index and phase
    parity, zero on entry; SROA makes them loop-carried registers). A produce
    waits on empty[stage] at parity phase ^ 1 (the first S pass at once, PTX
    ISA 9.7.13.15.16), arrives with expect_tx on full[stage] and runs its
    body in one elected thread; a consume waits on full[stage] at parity
    phase, runs its body and releases empty[stage] (bar.warp.sync, then lane
    q of each consuming warp arrives on the q-th multicast peer's barrier
    through mapa); each access then advances the cursor (stage + 1, wrapping
    to 0 and flipping the phase at S). Delayed releases (inflight), drains
    and the producer's exit wait use the same stage arithmetic. The orders
    and scopes it writes are those the handshake needs; tile-sync-semantics
    decides only what is left open.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileInsertFences : Pass<"tile-insert-fences", "::mlir::tile::KernelOp"> {
  let summary = "fence.mbarrier_init after the init of mbarriers that peers or st.async complete";
  let description = [{
    An mbarrier that another CTA arrives on, or that st.async completes, must
    have its initialisation made visible to the cluster with
    `fence.mbarrier_init.release.cluster` before the cluster barrier that
    publishes it (PTX ISA 9.7.13.15.3). One fence after the last init of each
    init block; never duplicated. Also fence.proxy.async.shared::cta before
    the barrier that orders generic writes of a tile before an async-proxy
    read of it (TMA store, wgmma). With `check-only`, reports each missing
    fence as an error instead (tilec --no-auto-sync); the user's
    fence_proxy_async() / fence_mbarrier_init() satisfy it.
  }];
  let options = [Option<"checkOnly", "check-only", "bool", "false",
                        "report missing fences instead of inserting them">];
}

def TilePlaceMmaWaits : Pass<"tile-place-mma-waits", "::mlir::tile::KernelOp"> {
  let summary = "where a turn's wgmma waits go, and what a consume block's end commits";
  let description = [{
    MLIRGen gives every mma its default group: commit_group + wait_group 0
    right after it (outside a consume block, or when the block reads its
    result or assigns its register A: Sema's `waitAfter`, which MLIRGen
    records as that commit and wait), or nothing (the consume block's own
    closing commit_group + wait_group n). In a turn (tile.turn_wait ...
    tile.turn_pass) whose body sets no exit flag of a loop, function or
    kernel around it, the wait_group 0 of an mma that is a statement by
    itself (the mma, its commit, the store of its result to a variable)
    moves past its statement: before the next operation that is not an mma
    its consume block leaves in flight, or after the hand-over, so the next
    warpgroup issues its mmas behind this one's. An mma left in flight whose
    computation reads no register of the deferred one (its result or the
    variables it was stored to) is committed as its own group, after its
    store or inside each branch of an `if` that holds one in each branch
    (after the `if`, ptxas would add a dummy wgmma, C7519); the wait becomes
    wait_group n, n those groups (PTX ISA 9.7.15.7). A consume block with
    inflight 0 whose mmas are all committed already loses its closing
    commit_group (an empty group costs a dummy wgmma), and, nested in
    another, its wait_group 0 when its last wgmma operation is a turn's
    wait_group n > 0 whose groups read no stage of its ring.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TileAnchorMmaWaits : Pass<"tile-anchor-mma-waits", "::mlir::tile::KernelOp"> {
  let summary = "keep a consume block's closing wgmma wait after the work the block's "
                "in-flight groups run under (tilec --mma-wait-anchor)";
  let description = [{
    A consume block whose turn leaves groups in flight (`wait_group n`,
    n > 0: P V under the softmax) closes with `wait_group 0`. ptxas
    schedules a wait with no operands at the first stall of the work before
    it, so the warpgroup waits for the groups before that work instead of
    under it. This pass gives the closing wait an `after` value (lowered to
    a NaN-predicated shared store of it right before the wait): `reduce`,
    the block's first f32 reduction since the earlier wait (a softmax's row
    maximum); `last`, the f32 value with the longest chain of operations
    behind it (through the block's variables), the latest of equals; `none`
    (the default), no anchor. A block with no earlier in-flight wait, or
    with nothing computed since, keeps its wait as it is.
  }];
  let options = [Option<"anchor", "anchor", "std::string", "\"none\"",
                        "none, reduce or last">];
}

def TilePlaceBulkWaits : Pass<"tile-place-bulk-waits", "::mlir::tile::KernelOp"> {
  let summary = "cp.async.bulk.wait_group[.read] where a TMA store's tile or data is next needed";
  let description = [{
    A TMA store's source tile may be rewritten only after the issuing
    thread's `cp.async.bulk.wait_group.read`, and its global writes are
    published only after `cp.async.bulk.wait_group` (PTX ISA 9.7.9.25.4).
    The waits go where the thread next synchronises with other threads
    (`wait_group 0`; `.read` at a ring's slot handshake), or before its own
    next write of the tile (`.read`), on every path from the store (loops
    included); never duplicated. Runs with and without auto sync: it is
    what makes TMA stores correct.
  }];
}

def TileSyncSemantics : Pass<"tile-sync-semantics", "::mlir::tile::KernelOp"> {
  let summary = "the one owner of every order and scope the source left open";
  let description = [{
    Runs with and without auto sync (--no-auto-sync stops insertions, not the
    correctness of what the user wrote), so both give the same code; the
    frontend records only what the user wrote and lowering rejects an op
    left undecided. mbarrier arrive/expect_tx/wait/try_wait without a scope
    get `.cluster` when the mbarrier is a peer's or some op completes it from
    another CTA (MBarrierCompletionOpInterface), `.cta` otherwise (PTX ISA
    9.7.13.15.16: the acquire must cover the arriving threads). mbarrier
    arrives and compiler-inserted cluster arrives without an order are
    `.release` when generic memory written before them is read after the
    wait, `.relaxed` otherwise (PTX ISA 9.7.13.4); waits are `.acquire`; a
    user cluster_arrive() is `.release`; a fence is `.acq_rel.gpu`. CTA
    barriers in warp-uniform control flow get `aligned` (`bar.sync`); the
    others stay `barrier.sync` (PTX ISA 9.7.13.1).
  }];
}

def TileDSMEMLifetime : Pass<"tile-dsmem-lifetime", "::mlir::tile::KernelOp"> {
  let summary = "cluster barriers that order DSMEM access after init and before exit";
  let description = [{
    A CTA may access a peer's shared memory only after the peer initialised it,
    and must not exit while peers may still access its own (CUDA programming
    guide, distributed shared memory; PTX ISA 9.7.13.4). When the kernel does
    not already order them with a cluster barrier, inserts an arrive after the
    last initialising write and a wait before the first remote access; and an
    arrive after the last remote access with its wait before the first access
    that needs the peers' writes, or at exit. With `check-only`, reports the
    missing barriers as errors instead (tilec --no-auto-sync).
  }];
  let options = [Option<"checkOnly", "check-only", "bool", "false",
                        "report missing barriers instead of inserting them">];
}

def TileSplitClusterBarriers : Pass<"tile-split-cluster-barriers", "::mlir::tile::KernelOp"> {
  let summary = "split cluster_sync into arrive/wait and move them apart";
  let description = [{
    `cluster_sync` becomes `barrier.cluster.arrive` + `barrier.cluster.wait`;
    the arrive moves up and the wait down past operations that touch no memory
    another thread of the cluster can see (PTX ISA 9.7.13.4). The arrive's
    order is left open (`tile.auto`) for tile-sync-semantics. Cluster barriers
    in warp-uniform control flow get `aligned`.
  }];
}

def TileMBarrierPhases : Pass<"tile-mbarrier-phases", "::mlir::tile::KernelOp"> {
  let summary = "phase-tracked mbarrier waits -> try_wait.parity with loop-carried phase bits";
  let description = [{
    Each thread keeps one phase bit per mbarrier (a bit mask per mbarrier
    array, at most 64 entries) in a thread-local slot; a wait on entry i uses
    bit i as the parity and flips it (PTX ISA 9.7.13.15.16: try_wait.parity
    waits for the completion of the phase with that parity).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileDebugHangs : Pass<"tile-debug-hangs", "::mlir::tile::KernelOp"> {
  let summary = "bound every mbarrier wait by %globaltimer; report and trap on timeout";
  let options = [Option<"timeoutMs", "timeout-ms", "unsigned", "2000",
                        "milliseconds a wait may spin before it is reported as a hang">];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileCheckLocalArrays : Pass<"tile-check-local-arrays", "::mlir::tile::KernelOp"> {
  let summary = "local arrays: constant indices in bounds; warn where one stays in local memory";
  let description = [{
    Runs after canonicalization, when unrolled loop variables are constants.
    A `tile.local_array` whose every access is a constant offset is promoted
    to registers by LLVM's SROA; a constant offset outside the array is an
    error (it would read or write another variable of the thread), and a
    non-constant one keeps the whole array in local memory (a warning at that
    index, naming the array).
  }];
}

def TileCheckRoleHandoffs : Pass<"tile-check-role-handoffs", "::mlir::tile::KernelOp"> {
  let summary = "warn where a shared tile passes between roles with no mbarrier handoff";
  let description = [{
    The roles of a warpgroups block run at the same time; a role's barrier
    orders only its own threads. A read (generic, TMA store, wgmma operand)
    of a shared tile that another role writes with plain stores needs a
    chain of mbarrier arrives (after the writes) and waits (before the read)
    from the writer to the reader; a handoff inside the writer's loop also
    needs a chain back from the read to the next write. A warning at the
    read (or at the write) naming both roles where either is missing. Runs
    after the rings are lowered.
  }];
}

def TileCheckTmaCoordinates : Pass<"tile-check-tma-coordinates", "::mlir::tile::KernelOp"> {
  let summary = "TMA boxes start on a 16-byte boundary in their innermost dimension";
  let description = [{
    A tensor copy (load, store or prefetch) whose box starts at an innermost
    coordinate that is not a multiple of 16 bytes of the element traps at run
    time (illegal instruction). Runs after canonicalization, when unrolled
    loop variables are constants: an error where the coordinate's known low
    bits put it off a boundary, a warning where they do not show it on one.
  }];
}

def TileCheckAddressAlignment : Pass<"tile-check-address-alignment", "::mlir::tile::KernelOp"> {
  let summary = "report loads, stores and atomics whose address is known to be misaligned";
  let description = [{
    An ld/st/atom of B bytes traps on an address that is not a multiple of B
    (PTX ISA 6.4.1). Addresses start at origins kept aligned (a pointer
    parameter, as the runtime checks its `addressAlign`; a shared array or
    tile, 16-byte aligned) plus offsets; an error where the offsets' known
    low bits put an access off a multiple of its bytes on some way its
    pointer may come (through `p + k`, `c ? p : q`, `var`s, loops). Runs
    after canonicalization, when unrolled loop variables are constants.
  }];
}

def TileCheckDivergence : Pass<"tile-check-divergence", "::mlir::tile::KernelOp"> {
  let summary = "collectives, barriers, turns and multicast boxes under divergent control";
  let description = [{
    The divergence diagnostics, from the uniformity analysis the sync passes
    read (so the checker and the barrier lowering cannot disagree): a barrier
    (`sync_threads()`, a role's barrier, a role's TMA store, `cluster_sync`/
    `arrive`/`wait`) in control flow its threads or CTAs may take
    differently is a warning; elect_one() and full-mask warp collectives
    under lane-divergent control are warnings, row_max/row_sum errors; mma
    and fragment stores under warpgroup-divergent control, a turn its role's
    warpgroups may pass unequally often, and a multicast copy whose box may
    differ between the CTAs of its multicast group are errors. Each has a
    hint and a note at the deciding condition. First in the sync pipeline,
    on the IR as MLIRGen made it (source positions intact).
  }];
}

def TileCheckSpinLoops : Pass<"tile-check-spin-loops", "::mlir::tile::KernelOp"> {
  let summary = "warn at a plain read a loop waits on, and at a plain store to a flag read with acquire";
  let description = [{
    A loop (an scf.while: `while`, or a loop with `break`/`continue`) that
    has no effect another thread could see or that orders memory (no store
    to global or shared memory, atomic, ordered load, barrier, fence,
    mbarrier operation or copy) and whose exit depends, directly or through
    `var`s and the conditions of `break`, on a plain (weak) read of global or
    shared memory at an address the loop does not change: the compiler may
    read it once (or erase the effect-free loop), so the loop never sees
    another thread's store. A warning at the read whose hint is the ordered
    load. Runs before the canonicalizer, which would erase the loop. Also
    the other half of such a wait: a plain store to a location (a parameter
    or shared array at a constant element) that the kernel reads with an
    acquire load and writes with no ordered store or atomic releases
    nothing; a warning at the store whose hint is the release store.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TileTestUniformity : Pass<"tile-test-uniformity", "::mlir::tile::KernelOp"> {
  let summary = "test: report the uniformity analysis's levels as remarks";
  let description = [{
    For lit tests of UniformityAnalysis (compiler/transforms/Uniformity.h):
    a remark at every barrier (`control <level>`, and whether it may be
    `.aligned`), at every scf.if/for/while and role (`decides <level>`) and
    at every load of a `tile.local_var` slot (`slot <level>`). Changes
    nothing; not part of any pipeline.
  }];
}

#endif
