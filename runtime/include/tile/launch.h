// tile/launch.h - launch configuration and the pure (GPU-free) launch checks.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace tile {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  unsigned long long count() const { return 1ull * x * y * z; }
};
inline bool operator==(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
inline bool operator!=(const Dim3& a, const Dim3& b) { return !(a == b); }

struct LaunchConfig {
  Dim3 grid, block, cluster;
  size_t sharedBytes = 0;  // dynamic shared memory per block
  CUstream stream = nullptr;
  bool allowNonPortableCluster = false;
};

// Everything the launch checks need, as plain numbers, so they can be tested
// without a GPU. Kernel::launch fills it from cuFuncGetAttribute/cuDeviceGetAttribute.
struct LaunchLimits {
  int kernelMaxThreadsPerBlock = 1024;    // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  size_t kernelStaticSharedBytes = 0;     // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  size_t maxSharedPerBlockOptin = 232448; // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  Dim3 maxBlockDim{1024, 1024, 64};
  Dim3 maxGridDim{2147483647u, 65535u, 65535u};
  int portableClusterLimit = 8;
  int nonPortableClusterLimit = 16;
};

// Returns "" when cfg is launchable for the kernel under the limits, otherwise a
// message naming the kernel and the exceeded limit, e.g.
//   "kernel 'histogram': cluster of 16 CTAs exceeds the portable limit of 8 (set allowNonPortableCluster)"
//   "kernel 'k': 240000 bytes of shared memory per block exceed the device limit of 232448 bytes (...)"
// Checks, in order: zero dimensions, block dims vs device, block threads vs kernel,
// grid dims vs device, cluster size (portable / non-portable), grid divisible by
// cluster, dynamic + static shared memory vs the opt-in maximum.
std::string checkLaunch(const std::string& kernel, const LaunchConfig& cfg, const LaunchLimits& limits);
// Throws tile::Error (call "Kernel::launch", CUDA_ERROR_INVALID_VALUE) when checkLaunch fails.
void validateLaunch(const std::string& kernel, const LaunchConfig& cfg, const LaunchLimits& limits);

// Dynamic shared memory above this needs CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raised.
constexpr size_t kDefaultDynamicSharedLimit = 48 * 1024;
// The message used when cuOccupancyMaxActiveClusters reports 0.
std::string clusterDoesNotFitMessage(const std::string& kernel, const LaunchConfig& cfg,
                                     size_t staticSharedBytes);

}  // namespace tile
