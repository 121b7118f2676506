// histogram_ref.cuh - hand-written CUDA C++ references for the histogram sample.
//
//  * clusterHistogram: the CUDA Programming Guide's distributed-shared-memory
//    histogram (cg::this_cluster(), map_shared_rank, cluster.sync()), with the
//    cluster dimensions given at launch (cudaLaunchKernelEx) and a persistent
//    grid. Same algorithm as histogram.tile. The guide's final loop adds
//    bins_per_block bins for every CTA and so writes past nbins when nbins is not
//    a multiple of the cluster size; here it stops at nbins.
//  * globalAtomicsHistogram: every element is one atomicAdd on the global bins.
//  * readFloor: streams the input once with 16-byte loads and sums it (the sum is
//    checked, so the reads cannot be optimised away): the time any histogram
//    needs at least.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "../common/cuda_check.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

namespace histo_ref {

__device__ __forceinline__ int clampBin(int x, int nbins) {
  return x < 0 ? 0 : (x >= nbins ? nbins - 1 : x);
}

// bins += histogram(input); dynamic shared memory = bins_per_block * 4 bytes,
// bins_per_block = ceil(nbins / cluster size).
__global__ void clusterHistogram(int *__restrict__ bins, const int nbins, const int bins_per_block,
                                 const int *__restrict__ input, const long long n) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();

  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
    smem[i] = 0;
  // Every CTA's bins are zero before any peer adds into them.
  cluster.sync();

  const long long stride = 1ll * blockDim.x * gridDim.x;
  for (long long i = 1ll * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int b = clampBin(input[i], nbins);
    const int dst_rank = b / bins_per_block;
    const int dst_offset = b % bins_per_block;
    int *dst = cluster.map_shared_rank(smem, dst_rank);
    atomicAdd(dst + dst_offset, 1);
  }
  // All adds into this CTA's bins are done; no CTA exits while peers still
  // write into its shared memory.
  cluster.sync();

  const int base = static_cast<int>(cluster.block_rank()) * bins_per_block;
  const int mine = min(bins_per_block, nbins - base); // may be <= 0 for the last ranks
  for (int i = threadIdx.x; i < mine; i += blockDim.x)
    atomicAdd(&bins[base + i], smem[i]);
}

__global__ void globalAtomicsHistogram(int *__restrict__ bins, const int nbins,
                                       const int *__restrict__ input, const long long n) {
  const long long stride = 1ll * blockDim.x * gridDim.x;
  for (long long i = 1ll * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&bins[clampBin(input[i], nbins)], 1);
}

// *sum += sum of input[0..n), as a two's complement 64-bit sum.
__global__ void readFloor(unsigned long long *__restrict__ sum, const int *__restrict__ input,
                          const long long n) {
  const long long tid = 1ll * blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = 1ll * blockDim.x * gridDim.x;
  const long long nvec = n / 4;
  const int4 *in4 = reinterpret_cast<const int4 *>(input);
  long long acc = 0;
  for (long long i = tid; i < nvec; i += stride) {
    int4 v = __ldcs(in4 + i); // streaming: read once
    acc += static_cast<long long>(v.x) + v.y + v.z + v.w;
  }
  for (long long i = nvec * 4 + tid; i < n; i += stride)
    acc += input[i];
  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(sum, static_cast<unsigned long long>(acc));
}

// Launches clusterHistogram with `cluster` CTAs per cluster (cluster dims at launch).
inline cudaError_t launchClusterHistogram(int *bins, int nbins, const int *input, long long n,
                                          int cluster, int threads, int grid,
                                          cudaStream_t stream = 0) {
  const int bpb = (nbins + cluster - 1) / cluster;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(grid));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = static_cast<size_t>(bpb) * sizeof(int);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, clusterHistogram, bins, nbins, bpb, input, n);
}

// Raises the dynamic shared memory limit for clusterHistogram and returns the
// persistent grid: every cluster that fits at once, times the cluster size.
inline int clusterHistogramGrid(int nbins, int cluster, int threads) {
  const int bpb = (nbins + cluster - 1) / cluster;
  const size_t smem = static_cast<size_t>(bpb) * sizeof(int);
  SAMPLE_CUDA_CHECK(cudaFuncSetAttribute(
      clusterHistogram, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  if (cluster > 8)
    SAMPLE_CUDA_CHECK(
        cudaFuncSetAttribute(clusterHistogram, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(cluster));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int clusters = 0;
  SAMPLE_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, clusterHistogram, &cfg));
  if (clusters < 1) {
    std::fprintf(stderr,
                 "clusterHistogram: no cluster of %d CTAs x %d threads with %zu B smem fits\n",
                 cluster, threads, smem);
    std::exit(1);
  }
  return clusters * cluster;
}

// Persistent grid for a non-cluster kernel: resident blocks per SM x SMs.
template <class K> inline int persistentGrid(K kernel, int threads, size_t smem = 0) {
  int dev = 0, sms = 0, perSm = 0;
  SAMPLE_CUDA_CHECK(cudaGetDevice(&dev));
  SAMPLE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SAMPLE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, threads, smem));
  return (perSm > 0 ? perSm : 1) * sms;
}

} // namespace histo_ref
