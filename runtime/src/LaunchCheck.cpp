
#include "tile/error.h"
#include "tile/launch.h"

namespace tile {
namespace {

std::string dims(const Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::string zeroAxis(const Dim3& d) {
  if (d.x == 0) return "x";
  if (d.y == 0) return "y";
  if (d.z == 0) return "z";
  return "";
}

}  // namespace

std::string checkLaunch(const std::string& kernel, const LaunchConfig& cfg, const LaunchLimits& lim) {
  const std::string k = "kernel '" + kernel + "': ";
  struct Named { const char* what; const Dim3& d; };
  for (Named n : {Named{"grid", cfg.grid}, Named{"block", cfg.block}, Named{"cluster", cfg.cluster}}) {
    std::string axis = zeroAxis(n.d);
    if (!axis.empty())
      return k + n.what + " " + dims(n.d) + " has a zero dimension in " + axis;
  }

  // Block.
  const char* axes[] = {"x", "y", "z"};
  unsigned block[] = {cfg.block.x, cfg.block.y, cfg.block.z};
  unsigned maxBlock[] = {lim.maxBlockDim.x, lim.maxBlockDim.y, lim.maxBlockDim.z};
  for (int i = 0; i < 3; ++i)
    if (block[i] > maxBlock[i])
      return k + "block " + dims(cfg.block) + " exceeds the device's maximum block dimension " +
             axes[i] + " of " + std::to_string(maxBlock[i]);
  unsigned long long threads = cfg.block.count();
  if (threads > static_cast<unsigned long long>(lim.kernelMaxThreadsPerBlock))
    return k + "block of " + std::to_string(threads) + " threads " + dims(cfg.block) +
           " exceeds the kernel's limit of " + std::to_string(lim.kernelMaxThreadsPerBlock) +
           " threads per block";

  // Grid.
  unsigned grid[] = {cfg.grid.x, cfg.grid.y, cfg.grid.z};
  unsigned maxGrid[] = {lim.maxGridDim.x, lim.maxGridDim.y, lim.maxGridDim.z};
  for (int i = 0; i < 3; ++i)
    if (grid[i] > maxGrid[i])
      return k + "grid " + dims(cfg.grid) + " exceeds the device's maximum grid dimension " +
             axes[i] + " of " + std::to_string(maxGrid[i]);

  // Cluster.
  unsigned long long cluster = cfg.cluster.count();
  if (cluster > static_cast<unsigned long long>(lim.nonPortableClusterLimit))
    return k + "cluster of " + std::to_string(cluster) + " CTAs " + dims(cfg.cluster) +
           " exceeds the hardware limit of " + std::to_string(lim.nonPortableClusterLimit);
  if (cluster > static_cast<unsigned long long>(lim.portableClusterLimit) && !cfg.allowNonPortableCluster)
    return k + "cluster of " + std::to_string(cluster) + " CTAs exceeds the portable limit of " +
           std::to_string(lim.portableClusterLimit) + " (set allowNonPortableCluster)";
  unsigned cl[] = {cfg.cluster.x, cfg.cluster.y, cfg.cluster.z};
  for (int i = 0; i < 3; ++i)
    if (grid[i] % cl[i] != 0)
      return k + "grid " + dims(cfg.grid) + " is not divisible by cluster " + dims(cfg.cluster) +
             " in " + axes[i];

  // Shared memory.
  size_t total = cfg.sharedBytes + lim.kernelStaticSharedBytes;
  if (total > lim.maxSharedPerBlockOptin)
    return k + std::to_string(total) + " bytes of shared memory per block exceed the device limit of " +
           std::to_string(lim.maxSharedPerBlockOptin) + " bytes (" + std::to_string(cfg.sharedBytes) +
           " dynamic + " + std::to_string(lim.kernelStaticSharedBytes) + " static)";
  return {};
}

void validateLaunch(const std::string& kernel, const LaunchConfig& cfg, const LaunchLimits& limits) {
  std::string msg = checkLaunch(kernel, cfg, limits);
  if (!msg.empty())
    throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, kernel, msg);
}

std::string clusterDoesNotFitMessage(const std::string& kernel, const LaunchConfig& cfg,
                                     size_t staticSharedBytes) {
  return "kernel '" + kernel + "': cannot fit even one cluster of " +
         std::to_string(cfg.cluster.count()) + " CTAs with " +
         std::to_string(cfg.sharedBytes + staticSharedBytes) + " bytes shared memory and " +
         std::to_string(cfg.block.count()) + " threads (cuOccupancyMaxActiveClusters returned 0)";
}

}  // namespace tile
