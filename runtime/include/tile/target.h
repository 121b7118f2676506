// tile/target.h - the hardware facts a host needs, shared by the runtime and tilec.
//
// Launch limits (block, grid, cluster and shared-memory sizes the runtime
// checks a launch against, the arrival count of an mbarrier sized by kernel
// parameters) and the tensor-map encoding rules. Plain C++17
// with no dependency. Facts only the compiler needs (PTX targets, wgmma
// shapes, setmaxnreg ranges, mbarrier limits, address spaces) live in the
// compiler's tilec/Target/TargetFacts.h, which includes this header: every
// fact is written once.
#pragma once

#include <cstdint>

namespace tile::target {

//===- Execution limits of sm_90 (CUDA programming guide, "Compute
//     Capabilities", table "Technical Specifications per Compute Capability").

/// Threads per CTA (the product of .maxntid / the block dimensions).
inline constexpr int kMaxThreadsPerBlock = 1024;
/// Resident CTAs per SM (the largest useful .minnctapersm).
inline constexpr int kMaxBlocksPerSM = 32;
/// Largest block dimension in x, y, z.
inline constexpr int kMaxBlockDims[3] = {kMaxThreadsPerBlock, kMaxThreadsPerBlock, 64};
/// Largest grid dimension in x, y, z.
inline constexpr unsigned kMaxGridDims[3] = {2147483647u, 65535u, 65535u};
/// CTAs per cluster: 8 portable, 16 with a non-portable launch (CUDA
/// programming guide, "Thread Block Clusters"; PTX .reqnctapercluster).
inline constexpr int kMaxPortableClusterSize = 8;
inline constexpr int kMaxClusterSize = 16;
/// Bytes of kernel parameters (PTX ISA 8.1+ on sm_70 and later: 32764,
/// ptxas's "uses too much parameter space (..., 0x7ffc max)"), the hidden
/// parameters and each parameter's alignment padding included.
inline constexpr int64_t kMaxKernelParamBytes = 32764;

//===- Shared memory.

/// Shared memory per CTA with the opt-in attribute on sm_90: 227 KB.
inline constexpr int64_t kMaxSharedBytesPerBlock = 227 * 1024;
/// Dynamic shared memory a launch may use without raising
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: 48 KB.
inline constexpr int64_t kSharedBytesWithoutOptIn = 48 * 1024;
/// Arrivals that complete an mbarrier phase, mbarrier.init's count: 1 to
/// 2^20 - 1 (PTX ISA 9.7.13.15.1, "Contents of the mbarrier object"). A count
/// built from kernel parameters is checked at each launch.
inline constexpr int64_t kMaxMBarrierArrivals = (1 << 20) - 1;

//===- Tensor maps (TMA). The rules of cuTensorMapEncodeTiled (CUDA driver
//     API, "Tensor Map Object Management"; cuda.h documents each) and the
//     PTX ISA's "Tensor Map" section (a .param of 128 bytes at .align 64).

/// A CUtensorMap is 128 bytes (CU_TENSOR_MAP_NUM_QWORDS = 16) and must be
/// 64-byte aligned, in host memory for the encode and as a kernel parameter.
inline constexpr int kTensorMapBytes = 128;
inline constexpr int kTensorMapAlign = 64;
/// Ranks 1 to 5.
inline constexpr int kTmaMaxRank = 5;
/// The global address must be 16-byte aligned (interleave none).
inline constexpr int64_t kTmaGlobalAlign = 16;
/// Each extent (globalDim) is 1 to 2^32 elements.
inline constexpr int64_t kTmaMaxExtent = int64_t(1) << 32;
/// Each stride but the innermost's (globalStrides, bytes) is a multiple of 16
/// and below 2^40.
inline constexpr int64_t kTmaStrideMultiple = 16;
inline constexpr int64_t kTmaStrideLimit = int64_t(1) << 40;
/// Each box dimension (boxDim) is 1 to 256 elements.
inline constexpr int64_t kTmaMaxBoxDim = 256;
/// The box's inner dimension in bytes is a multiple of 16 (interleave none)
/// and, with a swizzle, at most the swizzle span (32, 64 or 128 bytes).
inline constexpr int64_t kTmaBoxInnerBytesMultiple = 16;
/// Each element stride (the traversal step) is 1 to 8.
inline constexpr int64_t kTmaMaxElementStride = 8;

}  // namespace tile::target
