//===- LaunchCheck.cpp - launch configurations against limits -------------===//
#include "tile/error.h"
#include "tile/launch.h"

#include <cstdint>

namespace tile {
namespace {

std::string dims(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::string zeroAxis(const Dim3 &d) {
  if (d.x == 0)
    return "x";
  if (d.y == 0)
    return "y";
  if (d.z == 0)
    return "z";
  return "";
}

// a + b in decimal, exact even where size_t would wrap.
std::string total(size_t a, size_t b) {
  if (a <= SIZE_MAX - b)
    return std::to_string(a + b);
  unsigned long long lo = (a % 10) + (b % 10);
  return std::to_string(a / 10 + b / 10 + lo / 10) + std::to_string(lo % 10);
}

} // namespace

Dim3 effectiveCluster(const LaunchConfig &cfg, const LaunchLimits &lim) {
  const Dim3 one(1, 1, 1);
  if (cfg.cluster == one && lim.kernelRequiredCluster.count() > 0)
    return lim.kernelRequiredCluster;
  return cfg.cluster;
}

std::string checkLaunch(const std::string &kernel, const LaunchConfig &cfg,
                        const LaunchLimits &lim) {
  const std::string k = "kernel '" + kernel + "': ";
  struct Named {
    const char *what;
    const Dim3 &d;
  };
  for (Named n :
       {Named{"grid", cfg.grid}, Named{"block", cfg.block}, Named{"cluster", cfg.cluster}}) {
    std::string axis = zeroAxis(n.d);
    if (!axis.empty())
      return k + n.what + " " + dims(n.d) + " has a zero dimension in " + axis;
  }

  // Block.
  const char *axes[] = {"x", "y", "z"};
  unsigned block[] = {cfg.block.x, cfg.block.y, cfg.block.z};
  unsigned maxBlock[] = {lim.maxBlockDim.x, lim.maxBlockDim.y, lim.maxBlockDim.z};
  for (int i = 0; i < 3; ++i)
    if (block[i] > maxBlock[i])
      return k + "block " + dims(cfg.block) + " exceeds the device's maximum block dimension " +
             axes[i] + " of " + std::to_string(maxBlock[i]);
  unsigned long long threads = cfg.block.count();
  if (threads > static_cast<unsigned long long>(lim.maxThreadsPerBlock))
    return k + "block of " + std::to_string(threads) + " threads " + dims(cfg.block) +
           " exceeds the device's limit of " + std::to_string(lim.maxThreadsPerBlock) +
           " threads per block";
  if (threads > static_cast<unsigned long long>(lim.kernelMaxThreadsPerBlock))
    return k + "block of " + std::to_string(threads) + " threads " + dims(cfg.block) +
           " exceeds the kernel's limit of " + std::to_string(lim.kernelMaxThreadsPerBlock) +
           " threads per block" +
           (lim.kernelMaxntid && lim.kernelMaxntid == unsigned(lim.kernelMaxThreadsPerBlock)
                ? " (max_threads(" + std::to_string(lim.kernelMaxntid) + "), PTX .maxntid)"
                : std::string());
  // PTX .reqntid: a launch with another block shape fails in the driver with
  // CUDA_ERROR_INVALID_VALUE and no reason; name the compiled shape instead.
  const Dim3 &req = lim.kernelRequiredBlock;
  if (req.count() > 0 && !(req.x == cfg.block.x && req.y == cfg.block.y && req.z == cfg.block.z))
    return k + "block " + dims(cfg.block) + " differs from the block shape " + dims(req) +
           " the kernel was compiled for (threads(...), PTX .reqntid); launch with that block, "
           "or declare max_threads(N) instead for a kernel launched with varying blocks";

  // Grid.
  unsigned grid[] = {cfg.grid.x, cfg.grid.y, cfg.grid.z};
  unsigned maxGrid[] = {lim.maxGridDim.x, lim.maxGridDim.y, lim.maxGridDim.z};
  for (int i = 0; i < 3; ++i)
    if (grid[i] > maxGrid[i])
      return k + "grid " + dims(cfg.grid) + " exceeds the device's maximum grid dimension " +
             axes[i] + " of " + std::to_string(maxGrid[i]);

  // Cluster: the configured one, or the kernel's compiled one when none is configured.
  const Dim3 eff = effectiveCluster(cfg, lim);
  const bool compiled = lim.kernelRequiredCluster.count() > 0;
  unsigned long long cluster = eff.count();
  if (cluster > 1 && !lim.clusterLaunch)
    return k + "cluster " + dims(eff) + " needs a device that supports cluster launch " +
           "(compute capability 9.0 or newer); this one does not";
  if (cluster > static_cast<unsigned long long>(lim.nonPortableClusterLimit))
    return k + "cluster of " + std::to_string(cluster) + " CTAs " + dims(eff) +
           " exceeds the hardware limit of " + std::to_string(lim.nonPortableClusterLimit);
  if (cluster > static_cast<unsigned long long>(lim.portableClusterLimit) &&
      !cfg.allowNonPortableCluster)
    return k + "cluster of " + std::to_string(cluster) + " CTAs exceeds the portable limit of " +
           std::to_string(lim.portableClusterLimit) + " (set allowNonPortableCluster)";
  // PTX ISA, .reqnctapercluster: a launch-time cluster must equal the compiled one.
  if (compiled && eff != lim.kernelRequiredCluster)
    return k + "launched with cluster " + dims(cfg.cluster) +
           " but the kernel is compiled for cluster " + dims(lim.kernelRequiredCluster) +
           " (.reqnctapercluster)";
  unsigned cl[] = {eff.x, eff.y, eff.z};
  for (int i = 0; i < 3; ++i)
    if (grid[i] % cl[i] != 0)
      return k + "grid " + dims(cfg.grid) + " is not divisible by " +
             (compiled && cfg.cluster != eff ? "the kernel's compiled cluster " : "cluster ") +
             dims(eff) + " in " + axes[i];

  // Shared memory.
  const size_t sharedBytes = cfg.sharedBytes.value_or(0);
  // Compared without forming the sum, which could wrap for a huge sharedBytes.
  if (sharedBytes > lim.maxSharedPerBlockOptin ||
      lim.kernelStaticSharedBytes > lim.maxSharedPerBlockOptin - sharedBytes)
    return k + total(sharedBytes, lim.kernelStaticSharedBytes) +
           " bytes of shared memory per block exceed the device limit of " +
           std::to_string(lim.maxSharedPerBlockOptin) + " bytes (" + std::to_string(sharedBytes) +
           " dynamic + " + std::to_string(lim.kernelStaticSharedBytes) + " static)";
  return {};
}

void validateLaunch(const std::string &kernel, const LaunchConfig &cfg,
                    const LaunchLimits &limits) {
  std::string msg = checkLaunch(kernel, cfg, limits);
  if (!msg.empty())
    throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, kernel, msg);
}

std::string clusterDoesNotFitMessage(const std::string &kernel, const LaunchConfig &cfg,
                                     size_t staticSharedBytes) {
  return "kernel '" + kernel + "': cannot fit even one cluster of " +
         std::to_string(cfg.cluster.count()) + " CTAs with " +
         std::to_string(cfg.sharedBytes.value_or(0) + staticSharedBytes) +
         " bytes shared memory and " + std::to_string(cfg.block.count()) +
         " threads (cuOccupancyMaxActiveClusters returned 0)";
}

} // namespace tile
