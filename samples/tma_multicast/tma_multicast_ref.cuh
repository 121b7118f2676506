// tma_multicast_ref.cuh - the hand-written CUDA C++ reference of the TMA
// multicast sample: clusters of C CTAs that all need the same sequence of
// 128 x 64 bf16 tiles (128-byte rows, 128B swizzle), streamed through a
// 4-stage ring of full/empty mbarriers.
//
//   variant A: every CTA's producer loads every tile into its own ring
//              (cp.async.bulk.tensor, box 128 x 64);
//   variant B: the producer of CTA r loads rows [r * 128/C, (r+1) * 128/C)
//              of each tile and multicasts them (.multicast::cluster, mask
//              (1 << C) - 1) into the same slot of every CTA of the cluster.
//
// Warp 0's lane 0 produces; warps 1..4 consume: they wait full[s], read the
// tile with 16-byte ld.shared (undoing the 128B swizzle to know each word's
// position), fold every word into a position-weighted checksum and release
// the slot. Every CTA writes its checksum; the host checks each against the
// CPU (tma_multicast_common.h).
//
// The empty-slot handshake, kept as cheap as the rules allow:
//   * one arrive per consumer warp (after __syncwarp), not per thread: the
//     empty barrier counts warps (A: 4; B: 4 * C, every CTA's consumers);
//   * B: lane q of each consumer warp arrives on CTA q's empty[s] (mapa +
//     mbarrier.arrive .shared::cluster), so the C remote arrives of a warp
//     issue as one instruction, in parallel;
//   * B's remote arrive is release at cluster scope and the producer's wait
//     acquire at cluster scope (Release::Cluster, the PTX memory model's
//     pairing for a peer's reads before our TMA overwrites them), or relaxed
//     (Release::Relaxed): the consumers only read the slot, and every value
//     they read has been folded into the checksum before the arrive issues,
//     so no read can still be pending when a peer's producer sees the arrive.
//     Both are measured; the formal one is the reference the .tile kernel is
//     compared with.
// Barriers are initialised by one thread, published with
// fence.mbarrier_init.release.cluster and a cluster barrier before any peer
// can multicast into them or arrive on them; no CTA exits before a final
// cluster barrier (B), since peers' remote arrives target its barriers.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "tma_multicast_common.h"

namespace tmamc_ref {

using tmamc::kStages;
using tmamc::kTileBytes;
using tmamc::kTileCols;
using tmamc::kTileRows;

constexpr int kConsumerWarps = 4;
constexpr int kConsumerThreads = 32 * kConsumerWarps;
// Shape::Warp: one producer warp + 4 consumer warps (160 threads), the
// smallest block. Shape::Warpgroups: the block shape of the .tile kernel and
// of CUTLASS's warp-specialised kernels: a producer warpgroup (warps 0-3, one
// thread of warp 0 issues, warps 1-3 leave) and a consumer warpgroup, with
// setmaxnreg 24 / 136 (256 threads, three CTAs per SM).
enum class Shape { Warp, Warpgroups };
template <Shape S> constexpr int kThreadsOf = S == Shape::Warp ? 160 : 256;
template <Shape S> constexpr int kProducerThreadsOf = S == Shape::Warp ? 32 : 128;
// The 16-byte chunks of a tile each consumer thread reads.
constexpr int kChunksPerThread = kTileBytes / 16 / kConsumerThreads;
// The ring (1024-byte aligned for the 128B swizzle), then full[] and empty[].
constexpr int kSmemBytes = 1024 + kStages * kTileBytes + 2 * kStages * 8;

enum class Release { Cluster, Relaxed };

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint32_t clusterRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Waits until the phase with this parity completed. AcquireCluster: the
// arrivals came from peers with release at cluster scope.
template <bool AcquireCluster>
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  if constexpr (AcquireCluster)
    asm volatile("{\n\t.reg .pred done;\n"
                 "WAIT:\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT;\n\t}" ::"r"(bar),
                 "r"(parity)
                 : "memory");
  else
    asm volatile("{\n\t.reg .pred done;\n"
                 "WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT;\n\t}" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
__device__ __forceinline__ void mbarArriveExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarArriveLocal(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
template <Release R> __device__ __forceinline__ void mbarArriveRemote(uint32_t bar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(cta));
  if constexpr (R == Release::Cluster)
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
  else
    asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
}
// A box at (col, row) of the map into shared memory, completing on bar.
__device__ __forceinline__ void tmaLoad(uint32_t dst, const CUtensorMap *map, int col, int row,
                                        uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
               "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(bar)
               : "memory");
}
// The same box into dst of every CTA in `mask`, completing on each one's bar
// (same shared offsets in every CTA).
__device__ __forceinline__ void tmaLoadMulticast(uint32_t dst, const CUtensorMap *map, int col,
                                                 int row, uint32_t bar, uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
               "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(bar), "h"(mask)
               : "memory");
}

// map: B[K, N] bf16 with box (128 / C or 128) x 64 and 128B swizzle (the
// host encodes it with tile::TensorMap::encode). sums[blockIdx.x] += the
// CTA's checksum (zeroed before the launch). 1-D grid of clusters (C, 1, 1).
template <int C, tmamc::Variant V, Release R = Release::Cluster, Shape SH = Shape::Warp>
__global__ void __launch_bounds__(kThreadsOf<SH>, SH == Shape::Warp ? 1 : 3)
    deliverTiles(const __grid_constant__ CUtensorMap map, uint32_t *sums, int steps, int tiles,
                 int panels) {
  constexpr bool kMulticast = V == tmamc::Variant::B;
  constexpr bool kPeers = kMulticast && C > 1; // peers write into this CTA / arrive on it
  constexpr int kSliceRows = kMulticast ? kTileRows / C : kTileRows;
  constexpr int kSliceBytes = kSliceRows * tmamc::kRowBytes;
  static_assert(kTileRows % C == 0 && kSliceRows % 8 == 0,
                "slices of whole 8-row swizzle atoms (1024 bytes), so a slice lands swizzled "
                "exactly as in a full-tile load");
  extern __shared__ unsigned char smemRaw[];
  const uint32_t base = (smemAddr(smemRaw) + 1023u) & ~1023u;
  const uint32_t full = base + kStages * kTileBytes, empty = full + kStages * 8;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = C > 1 ? clusterRank() : 0;
  const int col0 = int((blockIdx.x / C) % unsigned(panels)) * kTileCols;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarInit(full + 8 * s, 1); // the producer's arrive.expect_tx; bytes complete it
      mbarInit(empty + 8 * s, kMulticast ? C * kConsumerWarps : kConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&map)) : "memory");
  }
  if constexpr (kPeers)
    clusterSync(); // peers multicast into our barriers and arrive on them
  else
    __syncthreads();

  constexpr int kProducerThreads = kProducerThreadsOf<SH>;
  if (threadIdx.x < kProducerThreads) {
    if constexpr (SH == Shape::Warpgroups)
      asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
    if (warp == 0 && lane == 0) {
      for (int i = 0; i < steps; ++i) {
        const int s = i % kStages;
        const uint32_t phase = uint32_t(i / kStages) & 1u;
        // Fresh barriers: the wait for parity 1 passes at once (the ring starts empty).
        mbarWait<kPeers && R == Release::Cluster>(empty + 8 * s, phase ^ 1u);
        // The whole tile lands here: C slices in B (ours and the peers').
        mbarArriveExpectTx(full + 8 * s, kTileBytes);
        const int row0 = (i % tiles) * kTileRows;
        if constexpr (kMulticast)
          tmaLoadMulticast(base + s * kTileBytes + rank * kSliceBytes, &map, col0,
                           row0 + int(rank) * kSliceRows, full + 8 * s, uint16_t((1u << C) - 1u));
        else
          tmaLoad(base + s * kTileBytes, &map, col0, row0, full + 8 * s);
      }
    }
  } else {
    if constexpr (SH == Shape::Warpgroups)
      asm volatile("setmaxnreg.inc.sync.aligned.u32 136;");
    // Each thread reads the same chunks of every tile: precompute where they
    // are (physical) and what they weigh (logical position, swizzle undone:
    // the 128B swizzle stores row r's 16-byte chunk k at chunk k ^ (r % 8)).
    const int t = threadIdx.x - kProducerThreads;
    uint32_t offset[kChunksPerThread], w[kChunksPerThread][4];
#pragma unroll
    for (int j = 0; j < kChunksPerThread; ++j) {
      const int q = t + kConsumerThreads * j, row = q / 8, logical = (q % 8) ^ (row % 8);
      offset[j] = uint32_t(q) * 16u;
#pragma unroll
      for (int k = 0; k < 4; ++k)
        w[j][k] = 2u * uint32_t(row * tmamc::kWordsPerRow + logical * 4 + k) + 1u; // tmamc::weight
    }
    uint32_t acc = 0;
    for (int i = 0; i < steps; ++i) {
      const int s = i % kStages;
      mbarWait<false>(full + 8 * s, uint32_t(i / kStages) & 1u);
      const uint32_t tileAddr = base + s * kTileBytes;
#pragma unroll
      for (int j = 0; j < kChunksPerThread; ++j) {
        uint32_t x0, x1, x2, x3;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                     : "r"(tileAddr + offset[j]));
        acc += x0 * w[j][0] + x1 * w[j][1] + x2 * w[j][2] + x3 * w[j][3];
      }
      __syncwarp();
      if constexpr (kPeers) {
        if (lane < C)
          mbarArriveRemote<R>(empty + 8 * s, uint32_t(lane));
      } else if (lane == 0) {
        mbarArriveLocal(empty + 8 * s);
      }
    }
#pragma unroll
    for (int d = 16; d > 0; d /= 2)
      acc += __shfl_xor_sync(0xffffffffu, acc, d);
    if (lane == 0)
      atomicAdd(&sums[blockIdx.x], acc);
  }
  if constexpr (kPeers)
    clusterSync(); // peers' last remote arrives target our barriers
}

template <int C, tmamc::Variant V, Release R, Shape SH = Shape::Warp>
cudaError_t launch(const CUtensorMap &map, uint32_t *sums, int steps, int tiles, int panels,
                   int clusters, cudaStream_t stream) {
  auto kernel = deliverTiles<C, V, R, SH>;
  cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  if (e != cudaSuccess)
    return e;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(clusters * C));
  cfg.blockDim = dim3(kThreadsOf<SH>);
  cfg.dynamicSmemBytes = kSmemBytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, map, sums, steps, tiles, panels);
}

// Clusters of C that fit on the GPU at once.
template <int C, tmamc::Variant V, Release R> int maxActiveClusters() {
  auto kernel = deliverTiles<C, V, R>;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) !=
      cudaSuccess)
    return 0;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(C));
  cfg.blockDim = dim3(kThreadsOf<Shape::Warp>);
  cfg.dynamicSmemBytes = kSmemBytes;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int n = 0;
  return cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) == cudaSuccess ? n : 0;
}

} // namespace tmamc_ref
