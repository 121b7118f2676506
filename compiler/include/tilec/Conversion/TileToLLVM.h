//===- TileToLLVM.h - tile -> LLVM/NVVM conversion patterns -----*- C++ -*-===//
// Patterns are grouped by PTX family, one file each in compiler/conversion/
// (as upstream NVGPUToNVVM); this index lists every family, in the order
// ConvertTileToLLVMPass.cpp populates them, and the ctest
// layering.conversion_index keeps the three (files, index, pass) in step:
//   KernelToLLVM.cpp      kernels, parameters, shared allocations, special registers
//   MemoryToLLVM.cpp      pointers, mapa, ld/st/atom/red
//   MBarrierToNVVM.cpp    mbarrier init/arrive/expect_tx/wait
//   BarrierToNVVM.cpp     CTA and cluster barriers
//   FenceToNVVM.cpp       memory and proxy fences
//   AsyncToNVVM.cpp       st.async
//   DebugToNVVM.cpp       hang reports (--debug-hangs)
//   PeerToNVVM.cpp        peer maps and addresses, semaphore waits
//   RoleToNVVM.cpp        warp roles: role regions, setmaxnreg, named barriers, elect
//   TmaToNVVM.cpp         tensor maps, tile layouts, TMA copies, bulk groups
//   WarpToNVVM.cpp        warp shuffles, votes and reductions
//   LocalArrayToLLVM.cpp  register arrays (local<T>[N])
//   MmaToNVVM.cpp         fragments, wgmma fence/mma/commit/wait
//   EpilogueToNVVM.cpp    fragment math, conversions, stmatrix / vector stores
//   FragmentToNVVM.cpp    row reductions (quad shuffles), comparisons, select, exp2/log2
// Each has its lit test in tests/lit/conversion/. MLIR 22's NVVM ops are used
// where their PTX is exactly the semantics the IR asks for; everything else
// goes through the one PTX builder (PTXBuilder.h). What several families
// share is defined once beside them: constants and the one-NVVM-op pattern
// (ConversionUtils.h), fragment registers (FragmentRegisters.h).
#ifndef TILEC_CONVERSION_TILETOLLVM_H
#define TILEC_CONVERSION_TILETOLLVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {
class KernelOp;
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
/// PeerToNVVM.cpp: peer maps and addresses, semaphore waits.
void populateTilePeerToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
/// Warp roles (RoleToNVVM.cpp): tile.role, warpgroup_id, elect_one, named_barrier.
void populateTileRoleToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
/// The PTX launch bounds a kernel with roles needs for setmaxnreg: `.maxntid
/// T,1,1` (unless it has `.reqntid`) and `.minnctapersm 1` on `func`, the
/// kernel's llvm.func; nothing for a kernel without roles. Called by the
/// kernel lowering after it set the kernel's other attributes.
void setRoleLaunchBounds(KernelOp kernel, Operation *func);
void populateTileTmaToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
/// `!tile.tensormap` -> a generic `!llvm.ptr` (the byval parameter's address).
void addTensorMapTypeConversion(LLVMTypeConverter &converter);
/// byval [128 x i8], align 64, nvvm.grid_constant on the tensor-map arguments.
void setTensorMapArgAttrs(KernelOp kernel, LLVM::LLVMFuncOp func);
void populateTileWarpToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
/// Fragment epilogue: element-wise math, conversions, row/column
/// indices, row vectors, stores into tiles (stmatrix) and memory: EpilogueToNVVM.cpp.
void populateTileEpilogueToNVVMPatterns(LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns);
/// The fragment algebra: tile.frag_reduce, frag_cmp, frag_select,
/// frag_math: FragmentToNVVM.cpp.
void populateTileFragmentToNVVMPatterns(LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns);
/// tile.local_array (register arrays): LocalArrayToLLVM.cpp.
void populateTileLocalArrayToLLVMPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);
/// `!tile.frag` -> the LLVM struct of its
/// registers; tile.frag_zeros, tile.mma (wgmma.mma_async with descriptors),
/// tile.wgmma_fence / wgmma_commit / wgmma_wait.
void addFragTypeConversion(LLVMTypeConverter &converter);
void populateTileMmaToNVVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns);
} // namespace mlir::tile

#endif
