//===- TileToLLVM.h - tile -> LLVM/NVVM conversion patterns -----*- C++ -*-===//
// Patterns are grouped by PTX family, one file each in compiler/conversion/
// (as upstream NVGPUToNVVM), each with its lit test in tests/lit/conversion/:
//   KernelToLLVM.cpp    kernels, parameters, shared/local allocations, special registers
//   MemoryToLLVM.cpp    pointers, mapa, ld/st/atom/red
//   MBarrierToNVVM.cpp  mbarrier init/arrive/expect_tx/wait
//   BarrierToNVVM.cpp   CTA and cluster barriers
//   FenceToNVVM.cpp     memory and proxy fences
//   AsyncToNVVM.cpp     st.async
//   DebugToNVVM.cpp     hang reports (--debug-hangs)
// MLIR 22's NVVM ops are used where their PTX is exactly the semantics the IR
// asks for; everything else goes through the one PTX builder (PTXBuilder.h).
#ifndef TILEC_CONVERSION_TILETOLLVM_H
#define TILEC_CONVERSION_TILETOLLVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
/// The NVPTX address space of a tile address space (NVVM::NVVMMemorySpace:
/// global 1, shared 3, shared::cluster 7; local memory stays generic, 0).
unsigned nvptxAddressSpace(int space);

/// The prefix of every module-level symbol tilec makes (static shared
/// arrays, the dynamic shared window, --debug-hangs messages). The '$' keeps
/// them apart from user kernels: tile identifiers are [A-Za-z_][A-Za-z0-9_]*,
/// while PTX identifiers may contain '$' (PTX ISA 4.4, Identifiers).
constexpr const char *kGeneratedSymbolPrefix = "tile$";

void addTileTypeConversions(LLVMTypeConverter &converter);
void populateTileKernelToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileMemoryToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileMBarrierToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileBarrierToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileFenceToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileAsyncToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateTileDebugToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
/// tile.local_array (issue #11 register arrays): LocalArrayToLLVM.cpp.
void populateTileLocalArrayToLLVMPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);
} // namespace mlir::tile

#endif
