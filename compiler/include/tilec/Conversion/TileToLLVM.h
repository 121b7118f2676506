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

/// The prefix of every module-level symbol tilec makes (static shared
/// arrays, the dynamic shared window, --debug-hangs messages). The '$' keeps
/// them apart from user kernels: tile identifiers are [A-Za-z_][A-Za-z0-9_]*,
/// while PTX identifiers may contain '$' (PTX ISA 4.4, Identifiers).
constexpr const char *kGeneratedSymbolPrefix = "tile$";

void addTileTypeConversions(LLVMTypeConverter &converter);
void populateTileKernelToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileMemoryToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileSyncToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileAsyncToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
} // namespace mlir::tile

#endif
