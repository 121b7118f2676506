//===- launch.h - launch configuration and launch checks --------*- C++ -*-===//
// The checks are pure (GPU-free), so they are testable without a driver.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include "tile/target.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tile {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  unsigned long long count() const { return 1ull * x * y * z; }
};
inline bool operator==(const Dim3 &a, const Dim3 &b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
inline bool operator!=(const Dim3 &a, const Dim3 &b) { return !(a == b); }

class Stream;
namespace detail {
struct StreamState;
}

// The stream a launch goes on: the default stream (nullptr), a tile::Stream
// (an lvalue: a view that knows whether the stream still exists, so a launch
// on a destroyed or moved-from tile::Stream is an error naming it), or a
// CUstream the runtime does not own (from the CUDA runtime, NCCL, ...), whose
// context is checked at launch (cuStreamGetCtx) but whose lifetime cannot be.
class StreamRef {
public:
  StreamRef() = default;
  StreamRef(std::nullptr_t) {} // NOLINT(google-explicit-constructor): the default stream
  StreamRef(CUstream s) : raw_(s) {} // NOLINT(google-explicit-constructor)
  StreamRef(const Stream &s);        // NOLINT(google-explicit-constructor)
  StreamRef(const Stream &&) = delete; // a temporary tile::Stream is destroyed at once
  CUstream raw() const { return raw_; }
  // Made from a tile::Stream (whose state owner() observes).
  bool owned() const { return owned_; }
  const std::weak_ptr<detail::StreamState> &owner() const { return owner_; }

private:
  CUstream raw_ = nullptr;
  std::weak_ptr<detail::StreamState> owner_;
  bool owned_ = false;
};

struct LaunchConfig {
  Dim3 grid, block, cluster;
  // Dynamic shared memory per block. Unset: the kernel info's layout rule for
  // the launch's arguments and cluster (tile/kernel_info.h), 0 for a kernel
  // without info. Set: used as given, but never below what the rule needs.
  std::optional<size_t> sharedBytes;
  StreamRef stream;
  bool allowNonPortableCluster = false;
  // Pointer and tensor arguments are checked before every launch: not null,
  // device memory of the kernel's context (cuPointerGetAttributes), a
  // tensor's extent inside its allocation, a tensor's DeviceBuffer still
  // alive. false skips the driver queries (for hot loops; docs/runtime.md
  // gives the measured cost); the null and freed-buffer checks stay.
  bool checkPointers = true;
};

// Everything the launch checks need, as plain numbers, so they can be tested
// without a GPU. Kernel::launch fills it from cuFuncGetAttribute/cuDeviceGetAttribute.
struct LaunchLimits {
  int kernelMaxThreadsPerBlock = target::kMaxThreadsPerBlock;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  size_t kernelStaticSharedBytes = 0;     // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  // The cluster shape compiled into the kernel (PTX .reqnctapercluster), from
  // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_{WIDTH,HEIGHT,DEPTH}; (0, 0, 0) when none.
  Dim3 kernelRequiredCluster{0, 0, 0};
  // CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET (PTX .explicitcluster).
  bool kernelNeedsCluster = false;
  // The exact block shape compiled into the kernel (PTX .reqntid, tilec's
  // threads(...)), from the kernel info; (0, 0, 0) when none. The driver has
  // no attribute for it.
  Dim3 kernelRequiredBlock{0, 0, 0};
  // The kernel's .maxntid (tilec's max_threads(N)) as a thread count, read
  // from its PTX; 0 when none (or a cubin). Names the source of the kernel's
  // limit in the message.
  unsigned kernelMaxntid = 0;
  int maxThreadsPerBlock = target::kMaxThreadsPerBlock;        // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  size_t maxSharedPerBlockOptin = target::kMaxSharedBytesPerBlock;  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  Dim3 maxBlockDim{unsigned(target::kMaxBlockDims[0]), unsigned(target::kMaxBlockDims[1]),
                   unsigned(target::kMaxBlockDims[2])};
  Dim3 maxGridDim{target::kMaxGridDims[0], target::kMaxGridDims[1], target::kMaxGridDims[2]};
  bool clusterLaunch = true;              // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
  int portableClusterLimit = target::kMaxPortableClusterSize;
  int nonPortableClusterLimit = target::kMaxClusterSize;
};

// The cluster the kernel actually runs with: cfg.cluster, or the kernel's compiled
// cluster (.reqnctapercluster) when cfg leaves the cluster at (1, 1, 1).
Dim3 effectiveCluster(const LaunchConfig &cfg, const LaunchLimits &limits);

// Returns "" when cfg is launchable for the kernel under the limits, otherwise a
// message naming the kernel and the exceeded limit, e.g.
//   "kernel 'histogram': cluster of 16 CTAs exceeds the portable limit of 8 (set
//   allowNonPortableCluster)" "kernel 'k': 240000 bytes of shared memory per block exceed the
//   device limit of 232448 bytes (...)"
// Checks, in order: zero dimensions, block dims vs device, block threads vs device
// and kernel, block shape vs the kernel's exact shape, grid dims vs device, cluster support, cluster size (hardware /
// portable), cluster vs the kernel's compiled cluster, grid divisible by the
// (effective) cluster, dynamic + static shared memory vs the opt-in maximum.
std::string checkLaunch(const std::string &kernel, const LaunchConfig &cfg,
                        const LaunchLimits &limits);
// Throws tile::Error (call "Kernel::launch", CUDA_ERROR_INVALID_VALUE) when checkLaunch fails.
void validateLaunch(const std::string &kernel, const LaunchConfig &cfg, const LaunchLimits &limits);

// Dynamic shared memory above this needs CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raised.
constexpr size_t kDefaultDynamicSharedLimit = target::kSharedBytesWithoutOptIn;
// The message used when cuOccupancyMaxActiveClusters reports 0.
std::string clusterDoesNotFitMessage(const std::string &kernel, const LaunchConfig &cfg,
                                     size_t staticSharedBytes);

// One kernel parameter as the driver lays it out (cuFuncGetParamInfo), plus its PTX
// name when the module was loaded from PTX ("" otherwise).
struct KernelParam {
  size_t offset = 0;
  size_t size = 0;
  std::string name;
};

// Returns "" when the launch arguments (argCount of them, argSizes[i] bytes each)
// match the kernel's parameters in number and byte size, otherwise a message naming
// the kernel and the first mismatching parameter (index, PTX name when known, both
// sizes), e.g.
//   "kernel 'vadd': argument 2 is 4 bytes but parameter 2 ('vadd_param_2') is 8 bytes ..."
// Only sizes can be checked: an int32_t passed for an f32 parameter is not caught.
std::string checkArguments(const std::string &kernel, const size_t *argSizes, size_t argCount,
                           const std::vector<KernelParam> &params);
// Throws tile::Error (call "Kernel::launch", CUDA_ERROR_INVALID_VALUE) when checkArguments fails.
void validateArguments(const std::string &kernel, const size_t *argSizes, size_t argCount,
                       const std::vector<KernelParam> &params);

// The parameter names of `.entry <kernel>(...)` in PTX text, in order; empty when the
// entry is not found (or has no parameters).
std::vector<std::string> ptxParamNames(const std::string &ptx, const std::string &kernel);

} // namespace tile
