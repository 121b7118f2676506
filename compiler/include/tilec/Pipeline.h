//===- Pipeline.h - the tilec pass pipeline, in one place -------*- C++ -*-===//
//
// The passes from the tile dialect to LLVM/NVVM, in order. tile::compile
// (and so tilec) and `tile-opt --tile-pipeline` build them with these
// functions, so a lit RUN line reproduces exactly what the compiler runs.
// docs/passes.md describes each pass.
//===----------------------------------------------------------------------===//
#ifndef TILEC_PIPELINE_H
#define TILEC_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tile {

/// The options of the pipeline; the textual form is
/// `tile-pipeline{auto-sync=0 debug-hangs-ms=500}`.
struct TilePipelineOptions : public PassPipelineOptions<TilePipelineOptions> {
  Option<bool> autoSync{*this, "auto-sync",
                        llvm::cl::desc("Insert and relax fences and barriers; when off, missing "
                                       "ones are errors (tilec --no-auto-sync)"),
                        llvm::cl::init(true)};
  Option<unsigned> debugHangsMs{
      *this, "debug-hangs-ms",
      llvm::cl::desc("> 0: bound every mbarrier wait to this many milliseconds, then report "
                     "and trap (tilec --debug-hangs=MS)"),
      llvm::cl::init(0)};
  Option<std::string> mmaWaitAnchor{
      *this, "mma-wait-anchor",
      llvm::cl::desc("where a consume block's closing wgmma wait stays when its turn left groups "
                     "in flight: none, reduce or last (tilec --mma-wait-anchor)"),
      llvm::cl::init("none")};
};

/// Stage 1, on tile IR: canonicalisation and the memory-model passes
/// (fences, DSMEM lifetime barriers, cluster barrier splitting, sync
/// defaults, mbarrier phases, hang bounds). After it, every op the passes
/// inserted or changed carries its `tile.sync` reason (tilec --explain-sync).
void buildTileSyncPipeline(OpPassManager &pm, const TilePipelineOptions &options);

/// Stage 2: scf -> cf, tile/arith/cf -> LLVM + NVVM, cleanup. The result is
/// what `tilec --emit=nvvm` prints and what the PTX emission translates.
void buildTileLoweringPipeline(OpPassManager &pm, const TilePipelineOptions &options);

/// Both stages, in order: the whole pipeline tilec runs.
void buildTilePipeline(OpPassManager &pm, const TilePipelineOptions &options);

/// Registers `tile-pipeline`, `tile-sync-pipeline` and `tile-lowering-pipeline`
/// (each with the options above) for tile-opt.
void registerTilePipelines();

} // namespace mlir::tile

#endif
