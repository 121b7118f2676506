//===- TileToLLVM.h - tile -> LLVM/NVVM conversion patterns -----*- C++ -*-===//
// Patterns are grouped by op family, one file each (as upstream NVGPUToNVVM):
//   KernelToLLVM.cpp  kernels, returns, shared/local allocations
//   MemoryToLLVM.cpp  pointers, mapa, loads, stores, atomics
//   SyncToLLVM.cpp    CTA and cluster barriers, special registers
//   AsyncToLLVM.cpp   mbarriers, st.async, fences, hang reports
#ifndef TILEC_CONVERSION_TILETOLLVM_H
#define TILEC_CONVERSION_TILETOLLVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
/// NVPTX address spaces (NVPTX usage guide): generic 0, global 1, shared 3,
/// shared::cluster 7.
unsigned nvptxAddressSpace(int space);

void addTileTypeConversions(LLVMTypeConverter &converter);
void populateTileKernelToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileMemoryToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileSyncToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileAsyncToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
} // namespace mlir::tile

#endif
