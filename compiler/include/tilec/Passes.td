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

#endif
