//===- CudaNames.h - what CUDA C++'s names are in tile -*- C++ -*-===//
//
// A kernel ported from CUDA C++ brings CUDA's names with it: the built-in
// variables (threadIdx.x, blockDim, warpSize), the device functions and
// intrinsics (__shfl_xor_sync, atomicAdd, __ldg, __expf, __float2half) and
// C's type names (in a cast `(float)x`, in a type `float`, or a literal
// suffix `0.5f`); one ported from Triton brings tl's (tl.program_id,
// tl.where, tl.cdiv), and other APIs their own (OpenCL's barrier, PyTorch's
// matmul). Edit distance does not find the tile form of most of them
// (their arguments are in another order, or they are an operator in tile),
// so the diagnostics of an unknown name, an unknown function and an unknown
// type, and the guess of a misspelt builtin, ask this one table. Plain C++17.
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_CUDANAMES_H
#define TILEC_FRONTEND_CUDANAMES_H

#include <optional>
#include <string>
#include <vector>

namespace tile::frontend {

/// What tile writes for one of CUDA's names: the tile form (shown in the
/// message) and a hint that says how the arguments map.
struct CudaName {
  std::string tileForm, hint;
  std::string language; // whose name it is: "CUDA", "Triton", ...
};

/// The message of an unknown name (`what` "name") or function (`what`
/// "function") that the table knows: "unknown function 'tl_name': Triton's
/// where is `select(c, a, b)` in tile", or "... tile has no equivalent of
/// CUDA's printf" for a name without a tile form.
std::string cudaNameMessage(const std::string &what, const std::string &name,
                            const CudaName &found);
/// The builtin a name of the table stands for (the callee of its tile form,
/// `select` for Triton's `where`), for the "did you mean" guess of an unknown
/// function; "" when its tile form calls none.
std::string cudaNameBuiltin(const std::string &name);

/// CUDA's built-in variables (threadIdx, blockIdx, blockDim, gridDim,
/// warpSize, clusterDim, ...).
std::optional<CudaName> cudaVariable(const std::string &name);
/// CUDA's device functions and intrinsics that tile has as a builtin, an
/// operator or a cast.
std::optional<CudaName> cudaFunction(const std::string &name);
/// Every name of the two tables above (variables, then functions), for the
/// unit test that keeps each tile form a builtin.
std::vector<std::string> cudaNames();
/// C and CUDA type names (int, float, half, __nv_bfloat16, uint32_t,
/// float4, ...): the tile type, or "" when tile has none.
std::optional<std::string> cTypeName(const std::string &name);
/// A type name written where a value or a function is expected (`(f32)x`,
/// `float(x)`): the tile type it names, for tile's scalar and packed types
/// and C's names of them; nullopt for any other name (and for a C type tile
/// has no form of).
std::optional<std::string> typeWordAsValue(const std::string &name);
/// The hint for a type name `written` (tile's `type`) used as a value or a
/// function: how tile writes a conversion.
std::string conversionHint(const std::string &written, const std::string &type);

} // namespace tile::frontend

#endif
