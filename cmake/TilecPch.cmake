# Precompiled MLIR headers for the compiler's libraries. Parsing the MLIR, LLVM
# and NVVM dialect headers is most of the compile time of a conversion, MLIRGen
# or pass file (a conversion file: ~100 s without, ~20 s with, on a 2-core
# machine), so one precompiled header shared by those libraries takes minutes
# off a cold build (CI builds cold). ccache does not cache a translation unit
# that uses a precompiled header unless it is told to be sloppy about it, and a
# ccache hit is faster still, so with a compiler launcher the default is OFF.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(TILEC_PCH_DEFAULT OFF)
else()
  set(TILEC_PCH_DEFAULT ON)
endif()
option(TILEC_PRECOMPILED_HEADERS "Precompile the MLIR headers of the compiler libraries"
  ${TILEC_PCH_DEFAULT})

# The dialect library (obj.MLIRTile, built first: the others depend on it)
# owns the precompiled header; the compiler libraries and tile-opt reuse it.
# Reuse needs the same compile options (GCC checks them and, on a mismatch,
# warns through -Winvalid-pch and reads the headers as text): every
# add_mlir_library target and tile-opt have them; tilec_compiler (exceptions
# on) does not.
set(TILEC_PCH_OWNER obj.MLIRTile)
function(tilec_precompile_mlir_headers)
  if(NOT TILEC_PRECOMPILED_HEADERS)
    return()
  endif()
  target_precompile_headers(${TILEC_PCH_OWNER} PRIVATE
    [["tile/Dialect/TileDialect.h"]]
    <mlir/Conversion/LLVMCommon/Pattern.h>
    <mlir/Dialect/Arith/IR/Arith.h>
    <mlir/Dialect/LLVMIR/LLVMDialect.h>
    <mlir/Dialect/LLVMIR/NVVMDialect.h>
    <mlir/Dialect/SCF/IR/SCF.h>
    <mlir/IR/Builders.h>
    <mlir/Transforms/DialectConversion.h>)
endfunction()

function(tilec_reuse_mlir_headers)
  if(NOT TILEC_PRECOMPILED_HEADERS)
    return()
  endif()
  foreach(target ${ARGN})
    target_precompile_headers(${target} REUSE_FROM ${TILEC_PCH_OWNER})
  endforeach()
endfunction()
