// pingpong_ref.cuh - hand-written CUDA C++ references for the cluster ping-pong
// sample (pingpong.tile). Every kernel takes (out, iters), is launched as 128 CTAs
// x 32 threads in clusters of 8 (cluster dims at launch, no dynamic shared
// memory) and - except the floor - stores exactly what pingpong.tile stores:
// after iteration `it`, CTA b (cluster rank r, partner p = r ^ 1, partner block
// pb = b - r + p) writes {it, p, pb, it ^ 0x5a5a} to out[(b * iters + it) * 4 ..],
// the four ints its partner sent it. One host check (pingpong_common.h) serves
// all of them.
//
//  * pingpongHandTuned - the lowest-latency form in inline PTX: one mbarrier,
//    relaxed arrive.expect_tx, st.async into the partner, acquire.cluster parity
//    wait with a loop-carried phase bit, relaxed cluster barrier per iteration.
//  * pingpongStandard  - what a CUDA programmer writes with the documented
//    libcu++ / cooperative-groups API (the CCCL "How to use st.async" example,
//    in a loop): cuda::barrier + barrier_arrive_tx (release.cta) +
//    cuda::ptx::st_async + acquire.cluster parity wait + cluster.sync().
//  * pingpongPlain     - no mbarrier, no async proxy: generic DSMEM stores
//    through cluster.map_shared_rank, two cluster.sync() per iteration.
//  * clusterBarrierFloor - only barrier.cluster.arrive.relaxed + wait, `iters`
//    times: the physical floor of one cluster-wide round trip per iteration.
//
// PTX references (PTX ISA 8.x/9.0): mbarrier.init / arrive.expect_tx /
// try_wait.parity (9.7.13.15), st.async (9.7.9.12), mapa (9.7.9.23),
// fence.mbarrier_init (9.7.13.4), barrier.cluster (9.7.13.2). Every inline asm
// that orders memory carries a "memory" clobber so nvcc keeps the shared-memory
// reads of `buf` between the wait and the next barrier.
#pragma once

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include "../common/cuda_check.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

namespace pingpong_ref {

// The cluster shape compiled into every reference kernel (pingpong_common.h).
constexpr unsigned kCluster = 8;

// ---------------------------------------------------------------- PTX helpers

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint32_t clusterCtaRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// The shared::cluster address of the same variable in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t mapaShared(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void mbarrierInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Makes the preceding mbarrier.init visible to the cluster (async proxy and
// peers) once a following cluster barrier arrive (even .relaxed) is observed.
__device__ __forceinline__ void fenceMbarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void clusterArriveRelaxed() {
  // "memory": keep the reads of buf above the arrive (nvcc must not sink them).
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void clusterWait() {
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); // .acquire by default
}
// Arrive (count 1) and raise the expected transaction bytes of the current
// phase by `bytes`, with no release: nothing this thread wrote before is read
// through this barrier (the 16 bytes come from the partner's st.async).
__device__ __forceinline__ void mbarrierArriveExpectTxRelaxed(uint32_t bar, uint32_t bytes) {
  // the arrival state is not needed (the wait uses the phase parity): sink `_`
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(bytes)
               : "memory");
}
// st.async of 16 bytes into a peer CTA's shared memory; complete_tx of 16 bytes
// on the peer's mbarrier (both shared::cluster addresses from mapa).
__device__ __forceinline__ void stAsyncV4(uint32_t remoteDst, int a, int b, int c, int d,
                                          uint32_t remoteBar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, "
               "%4}, [%5];" ::"r"(remoteDst),
               "r"(a), "r"(b), "r"(c), "r"(d), "r"(remoteBar)
               : "memory");
}
// Spins until the phase with parity `parity` of the local mbarrier completed;
// acquire at cluster scope: the partner's st.async bytes are visible after it.
__device__ __forceinline__ void mbarrierWaitParityAcquireCluster(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}
__device__ __forceinline__ int4 ldSharedV4(uint32_t addr) {
  int4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ void storeOut(int *out, int iters, int it, int4 v) {
  const long long o = (static_cast<long long>(blockIdx.x) * iters + it) * 4;
  *reinterpret_cast<int4 *>(out + o) = v; // 16-byte aligned: o is a multiple of 4
}

// ---------------------------------------------------------------- (a) hand-tuned
//
// Setup: thread 0 initialises the mbarrier `full` (count 1) and fences the init
// to the cluster; one relaxed cluster barrier makes it visible to the partner
// (fence.mbarrier_init.release.cluster + barrier.cluster.arrive.relaxed is the
// release pattern the PTX manual gives for it) and also guarantees the partner
// CTA is running before its shared memory is written.
// Iteration `it` (phase parity it & 1, loop-carried):
//   thread 0: mbarrier.arrive.expect_tx.relaxed.cluster [full], 16  (my buf will
//             receive 16 bytes; may run before or after the partner's bytes land:
//             the tx-count may go negative within a phase)
//             st.async.v4 {it, rank, block, it ^ 0x5a5a} -> partner's buf,
//             complete_tx on the partner's `full`
//   all:      mbarrier.try_wait.parity.acquire.cluster [full], it & 1
//   thread 0: ld.shared.v4 buf -> st.global out
//   all:      barrier.cluster.arrive.relaxed.aligned + barrier.cluster.wait.aligned:
//             the partner writes buf again only after I finished reading it.
//             The arrive is relaxed (no release): nothing written before it is
//             read after the partner's wait. The ordering it must give is
//             read(buf) -> partner's next st.async (a WAR); the PTX model does
//             not order an earlier read by a relaxed arrive, but the value read
//             is consumed by the st.global issued before the arrive (the warp
//             issues in order, the store needs the loaded registers), so the
//             read has completed when the arrive is issued.
// Exit: a final relaxed cluster barrier, so no CTA exits while a partner might
// still write into its shared memory. (After >= 1 iteration the loop's last
// barrier already guarantees this; the extra barrier costs one round trip per
// launch, 1/iters of the time, and keeps the exit safe independently of the loop.)
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(32, 1)
    pingpongHandTuned(int *__restrict__ out, int iters) {
  __shared__ alignas(16) int buf[4];
  __shared__ alignas(8) uint64_t full;

  const uint32_t rank = clusterCtaRank();
  const uint32_t peer = rank ^ 1u;
  const int block = static_cast<int>(blockIdx.x);
  const uint32_t bufAddr = smemAddr(buf);
  const uint32_t fullAddr = smemAddr(&full);
  const uint32_t peerBuf = mapaShared(bufAddr, peer);
  const uint32_t peerFull = mapaShared(fullAddr, peer);

  if (threadIdx.x == 0) {
    mbarrierInit(fullAddr, 1);
    fenceMbarrierInit();
  }
  clusterArriveRelaxed();
  clusterWait();

  uint32_t phase = 0;
  for (int it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) {
      mbarrierArriveExpectTxRelaxed(fullAddr, 16);
      stAsyncV4(peerBuf, it, static_cast<int>(rank), block, it ^ 0x5a5a, peerFull);
    }
    mbarrierWaitParityAcquireCluster(fullAddr, phase);
    phase ^= 1u;
    if (threadIdx.x == 0)
      storeOut(out, iters, it, ldSharedV4(bufAddr));
    clusterArriveRelaxed();
    clusterWait();
  }

  clusterArriveRelaxed();
  clusterWait();
}

// ---------------------------------------------------------------- (b) standard
//
// The documented API, as in the CCCL example "How to use st.async", in a loop:
// cuda::barrier<thread_scope_block> `bar` in shared memory, init(&bar, 1) by
// thread 0, cluster.sync() (release/acquire cluster barrier: the init is visible
// to the partner, and the partner is running).
// Iteration `it`:
//   thread 0: cuda::device::barrier_arrive_tx(bar, 1, 16)
//             (= mbarrier.arrive.expect_tx.release.cta.shared::cta.b64)
//             cuda::ptx::st_async(partner's buf, {it, rank, block, it ^ 0x5a5a},
//             partner's bar) (addresses from cluster.map_shared_rank)
//   all:      cuda::ptx::mbarrier_try_wait_parity(sem_acquire, scope_cluster, ...)
//             with the phase parity it & 1 (only thread 0 arrives, so the
//             others have no token to wait on)
//   thread 0: read buf -> out
//   all:      cluster.sync() (barrier.cluster.arrive [release] + wait [acquire])
// Exit: the loop's last cluster.sync() (and the one after init when iters = 0)
// is the exit barrier: nothing touches a peer's shared memory after it.
// (a __shared__ cuda::barrier has a constructor nvcc does not run: init() does)
#pragma nv_diag_suppress static_var_with_dynamic_init
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(32, 1)
    pingpongStandard(int *__restrict__ out, int iters) {
  using barrier_t = cuda::barrier<cuda::thread_scope_block>;
  __shared__ barrier_t bar; // constructed by init() below, not by a constructor
  __shared__ alignas(16) int buf[4];

  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned peer = rank ^ 1u;
  const int block = static_cast<int>(blockIdx.x);

  if (threadIdx.x == 0)
    init(&bar, 1);
  cluster.sync();

  uint64_t *const barHandle = cuda::device::barrier_native_handle(bar);
  uint64_t *const peerBar = cluster.map_shared_rank(barHandle, peer);
  int *const peerBuf = cluster.map_shared_rank(&buf[0], peer);

  uint32_t phase = 0;
  for (int it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) {
      (void)cuda::device::barrier_arrive_tx(bar, 1, sizeof(buf));
      const int v[4] = {it, static_cast<int>(rank), block, it ^ 0x5a5a};
      cuda::ptx::st_async(peerBuf, v, peerBar);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                                barHandle, phase)) {
    }
    phase ^= 1u;
    if (threadIdx.x == 0)
      storeOut(out, iters, it, *reinterpret_cast<const int4 *>(buf));
    cluster.sync();
  }
}
#pragma nv_diag_default static_var_with_dynamic_init

// ---------------------------------------------------------------- (c) plain
//
// No mbarrier and no async proxy: ordinary (generic) stores into the partner's
// shared memory through cluster.map_shared_rank, ordered by full cluster
// barriers (cluster.sync() = barrier.cluster.arrive [release] + wait [acquire]):
//   setup:    cluster.sync()  - the partner CTA is running, so its shared memory
//                               may be written (a DSMEM access needs that)
//   per iteration:
//     thread 0: *partner_buf = int4{it, rank, block, it ^ 0x5a5a}  (st.v4 via DSMEM)
//     cluster.sync()  (1) publish: the partner's store into my buf happens
//                         before my read (its release arrive, my acquire wait)
//     thread 0: read buf -> out
//     cluster.sync()  (2) protect reuse: I finished reading buf before the
//                         partner's next store into it (it is issued after the
//                         partner passes this barrier)
// Exit: barrier (2) of the last iteration (the setup barrier when iters = 0)
// is the exit barrier: no store into a peer follows it.
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(32, 1)
    pingpongPlain(int *__restrict__ out, int iters) {
  __shared__ alignas(16) int buf[4];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int block = static_cast<int>(blockIdx.x);
  int4 *const peerBuf = reinterpret_cast<int4 *>(cluster.map_shared_rank(&buf[0], rank ^ 1u));

  cluster.sync();
  for (int it = 0; it < iters; ++it) {
    if (threadIdx.x == 0)
      *peerBuf = make_int4(it, static_cast<int>(rank), block, it ^ 0x5a5a);
    cluster.sync();
    if (threadIdx.x == 0)
      storeOut(out, iters, it, *reinterpret_cast<const int4 *>(buf));
    cluster.sync();
  }
}

// ---------------------------------------------------------------- (d) floor
//
// The physical floor: only `barrier.cluster.arrive.relaxed.aligned` +
// `barrier.cluster.wait.aligned`, `iters` times - one cluster-wide round trip
// per iteration, no data. Every ping-pong iteration needs at least this (the
// partner must learn that buf may be overwritten). So that a run can be
// checked, thread 0 of CTA b stores the number of barriers it passed to
// out[b] at the end (out needs grid ints).
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(32, 1)
    clusterBarrierFloor(int *__restrict__ out, int iters) {
  int passed = 0;
  for (int it = 0; it < iters; ++it) {
    clusterArriveRelaxed();
    clusterWait();
    ++passed;
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = passed;
}

// ---------------------------------------------------------------- launching

enum class Kernel { HandTuned, Standard, Plain, Floor };

inline const char *kernelName(Kernel k) {
  switch (k) {
  case Kernel::HandTuned:
    return "hand-tuned (relaxed expect_tx + st.async + relaxed cluster barrier)";
  case Kernel::Standard:
    return "standard (cuda::barrier + st_async + cluster.sync)";
  case Kernel::Plain:
    return "plain (DSMEM stores + 2x cluster.sync)";
  default:
    return "barrier.cluster.arrive.relaxed + wait only";
  }
}

// Launches one of the kernels. Their cluster shape is compiled in
// (__cluster_dims__, like pingpong.tile's .reqnctapercluster), which lets ptxas
// drop the "launched without a cluster" fallback around every cluster barrier;
// so `cluster` must be kCluster and no launch attribute is passed.
inline cudaError_t launch(Kernel k, int *out, int iters, unsigned grid, unsigned threads,
                          unsigned cluster, cudaStream_t stream = 0) {
  if (cluster != kCluster)
    return cudaErrorInvalidValue;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = stream;
  cfg.attrs = nullptr;
  cfg.numAttrs = 0;
  switch (k) {
  case Kernel::HandTuned:
    return cudaLaunchKernelEx(&cfg, pingpongHandTuned, out, iters);
  case Kernel::Standard:
    return cudaLaunchKernelEx(&cfg, pingpongStandard, out, iters);
  case Kernel::Plain:
    return cudaLaunchKernelEx(&cfg, pingpongPlain, out, iters);
  default:
    return cudaLaunchKernelEx(&cfg, clusterBarrierFloor, out, iters);
  }
}

} // namespace pingpong_ref
