//===- Pipeline.cpp - the tilec pass pipeline ------------------------------===//
#include "tilec/Pipeline.h"
#include "tilec/Compiler.h"
#include "tilec/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

// tile-opt's tile-debug-hangs and tilec's --debug-hangs wait the same time
// when no value is given.
static_assert(mlir::tile::TileDebugHangsOptions{}.timeoutMs == ::tile::kDefaultDebugHangsMs);

void mlir::tile::buildTileSyncPipeline(OpPassManager &pm, const TilePipelineOptions &options) {
  // The NaN-bit marks a folder could act on, before anything folds or
  // analyses the values they mark.
  pm.addPass(createTilePruneFloatBitMarks());
  // The divergence diagnostics next, on the IR as MLIRGen made it: the
  // same uniformity analysis the sync passes below decide with.
  pm.addNestedPass<KernelOp>(createTileCheckDivergence());
  // Loops that wait on a plain read, before the canonicalizer erases the
  // effect-free ones.
  pm.addNestedPass<KernelOp>(createTileCheckSpinLoops());
  // Where a turn's wgmma waits go and what a consume block's end commits,
  // then the waits' anchors, while the consume blocks are still rings' bodies.
  pm.addNestedPass<KernelOp>(createTilePlaceMmaWaits());
  // Always: a consume block may carry its own anchor (`anchor(MODE)`).
  pm.addNestedPass<KernelOp>(createTileAnchorMmaWaits({options.mmaWaitAnchor}));
  // Rings next: every later pass sees their mbarriers, waits and releases
  // as ordinary tile ops (and the canonicalizer folds their stage arithmetic).
  pm.addNestedPass<KernelOp>(createTileLowerRings());
  // Folding next: the sync passes reason about constant cluster ranks,
  // trip counts and uniform conditions.
  pm.addPass(createCanonicalizerPass());
  OpPassManager &kernels = pm.nest<KernelOp>();
  // Unrolled loop variables are constants now: local-array indices are
  // checked (and non-constant ones reported) on the folded IR.
  kernels.addPass(createTileCheckLocalArrays());
  // TMA box starts, on the same folded coordinates.
  kernels.addPass(createTileCheckTmaCoordinates());
  // Loads, stores and atomics, on the same folded offsets.
  kernels.addPass(createTileCheckAddressAlignment());
  // Shared tiles passed between roles, with the rings' mbarriers lowered.
  kernels.addPass(createTileCheckRoleHandoffs());
  if (options.autoSync) {
    // Insertions first; the split comes last so that it also moves apart
    // (and relaxes) the cluster barriers the DSMEM pass inserted.
    kernels.addPass(createTileInsertFences());
    kernels.addPass(createTileDSMEMLifetime());
    kernels.addPass(createTileSplitClusterBarriers());
  } else {
    // --no-auto-sync inserts nothing, but a missing fence or lifetime
    // barrier is still an error rather than a race.
    kernels.addPass(createTileInsertFences({/*checkOnly=*/true}));
    kernels.addPass(createTileDSMEMLifetime({/*checkOnly=*/true}));
  }
  // Decisions correctness needs whether or not auto sync inserted anything.
  kernels.addPass(createTilePlaceBulkWaits());
  kernels.addPass(createTileSyncSemantics());
  kernels.addPass(createTileMBarrierPhases());
  if (options.debugHangsMs > 0)
    kernels.addPass(createTileDebugHangs({options.debugHangsMs}));
}

void mlir::tile::buildTileLoweringPipeline(OpPassManager &pm, const TilePipelineOptions &) {
  pm.addPass(createTileSCFToCFInReverse());
  // What is left (scf.while, scf.index_switch). Without rollback the
  // conversion applies each rewrite at once instead of recording it for
  // undo: these patterns always succeed.
  SCFToControlFlowPassOptions scfToCf;
  scfToCf.allowPatternRollback = false;
  pm.addPass(createSCFToControlFlowPass(scfToCf));
  pm.addPass(createConvertTileToLLVM());
  // NVVM ops without an LLVM intrinsic (nvvm.wgmma.mma_async) become inline
  // PTX; ops with one are left for LLVM IR translation.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tile::buildTilePipeline(OpPassManager &pm, const TilePipelineOptions &options) {
  buildTileSyncPipeline(pm, options);
  buildTileLoweringPipeline(pm, options);
}

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<TilePipelineOptions>(
      "tile-pipeline", "The whole tilec pipeline: tile IR to LLVM + NVVM (what tilec runs)",
      buildTilePipeline);
  PassPipelineRegistration<TilePipelineOptions>(
      "tile-sync-pipeline", "tilec's first stage: canonicalize and the memory-model passes",
      buildTileSyncPipeline);
  PassPipelineRegistration<TilePipelineOptions>(
      "tile-lowering-pipeline", "tilec's second stage: scf-to-cf, tile to LLVM + NVVM, cleanup",
      buildTileLoweringPipeline);
}
