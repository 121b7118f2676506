// The NCCL side of samples/ring_gemm's host program: the reference all-gather,
// a stream-ordered barrier and the gathering of per-rank host values, all on
// the communicator the tilec runtime created (tile::Communicator::ncclComm()).
//
// The sample links libnccl (the runtime dlopens libnccl.so.2 instead): the
// dynamic loader hands the runtime's dlopen("libnccl.so.2") the library this
// program already has loaded (same soname), so the ncclComm_t is shared by
// one NCCL. TILEC_NCCL_LIBRARY naming another copy would give two NCCLs and a
// communicator one of them cannot use: the program refuses it at start
// (sameNcclAsRuntime).
#pragma once

#include "ring_common.h"

#include "../common/cuda_check.cuh"

#include <tile/distributed.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define RING_NCCL_CHECK(call)                                                                      \
  do {                                                                                             \
    ncclResult_t r_ = (call);                                                                      \
    if (r_ != ncclSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call,               \
                   ncclGetErrorString(r_), int(r_));                                               \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace ring {

/// "" when the runtime's NCCL is this program's; else why not. The runtime
/// dlopens $TILEC_NCCL_LIBRARY first: when set, it must resolve to the
/// library this program linked.
inline std::string sameNcclAsRuntime() {
  const char *lib = std::getenv("TILEC_NCCL_LIBRARY");
  if (!lib || !*lib)
    return "";
  void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return ""; // not loaded (yet): the runtime will load it next to ours
  void *theirs = dlsym(h, "ncclAllGather");
  dlclose(h);
  if (theirs && theirs != reinterpret_cast<void *>(&ncclAllGather))
    return std::string("TILEC_NCCL_LIBRARY=") + lib +
           " is another libnccl than the one ring_gemm links; unset it";
  return "";
}

/// The stream of everything here: 0, the legacy default stream (this program
/// is not built with per-thread default streams), which the tilec runtime's
/// launches (stream 0 of the same primary context) and cuBLAS use too.
inline const cudaStream_t kStream = nullptr;

/// A non-blocking stream beside kStream and the two events that order it
/// with kStream: the copy-engine forms of both rings queue their copies and
/// counters on it.
class SideStream {
public:
  SideStream() {
    SAMPLE_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    SAMPLE_CUDA_CHECK(cudaEventCreateWithFlags(&start_, cudaEventDisableTiming));
    SAMPLE_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  }
  ~SideStream() {
    cudaEventDestroy(done_);
    cudaEventDestroy(start_);
    cudaStreamDestroy(side_);
  }
  SideStream(const SideStream &) = delete;
  SideStream &operator=(const SideStream &) = delete;

protected:
  cudaStream_t side_ = nullptr;
  cudaEvent_t start_ = nullptr, done_ = nullptr;
};

inline ncclDataType_t ncclType(DType d) { return d == DType::F16 ? ncclFloat16 : ncclBfloat16; }

/// NCCL on the runtime's communicator, every call on kStream.
class Nccl {
public:
  explicit Nccl(const tile::Communicator &comm)
      : comm_(static_cast<ncclComm_t>(comm.ncclComm())), rank_(comm.rank()), size_(comm.size()) {
    if (!comm_) {
      std::fprintf(stderr, "ring_gemm: the communicator is not in NCCL mode (run under "
                           "tilec-run -n 2)\n");
      std::exit(2);
    }
    SAMPLE_CUDA_CHECK(cudaMalloc(&token_, sizeof(float)));
    SAMPLE_CUDA_CHECK(cudaMemset(token_, 0, sizeof(float)));
  }
  ~Nccl() { cudaFree(token_); }
  Nccl(const Nccl &) = delete;
  Nccl &operator=(const Nccl &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  static int version() {
    int v = 0;
    RING_NCCL_CHECK(ncclGetVersion(&v));
    return v;
  }

  /// The reference all-gather: every rank's [MS, K] shard into the gathered
  /// [MG, K] (rank order = row order).
  void allGather(DType d, CUdeviceptr shard, CUdeviceptr gathered, size_t shardElements) {
    RING_NCCL_CHECK(ncclAllGather(reinterpret_cast<const void *>(shard),
                                  reinterpret_cast<void *>(gathered), shardElements, ncclType(d),
                                  comm_, kStream));
  }

  /// The reference reduce-scatter (samples/ring_gemm_rs): the sum over ranks
  /// of every rank's [D * count] `send`, rank r keeping elements
  /// [r * count, (r + 1) * count) in `recv`.
  void reduceScatter(DType d, CUdeviceptr send, CUdeviceptr recv, size_t count) {
    RING_NCCL_CHECK(ncclReduceScatter(reinterpret_cast<const void *>(send),
                                      reinterpret_cast<void *>(recv), count, ncclType(d), ncclSum,
                                      comm_, kStream));
  }

  /// A barrier in stream order: a one-element all-reduce. Work queued after it
  /// on this rank starts only once every rank has reached it on its stream, so
  /// the CUDA events around a repetition measure from a common start without
  /// a host round trip (the host's launch cost stays out of the times).
  void streamBarrier() {
    RING_NCCL_CHECK(ncclAllReduce(token_, token_, 1, ncclFloat32, ncclSum, comm_, kStream));
  }

  /// Every rank's `mine` (same length on every rank), indexed [rank][i].
  std::vector<std::vector<double>> gather(const std::vector<double> &mine) {
    const size_t n = mine.size();
    std::vector<std::vector<double>> out(static_cast<size_t>(size_), std::vector<double>(n));
    if (n == 0)
      return out;
    double *send = nullptr, *recv = nullptr;
    SAMPLE_CUDA_CHECK(cudaMalloc(&send, n * sizeof(double)));
    SAMPLE_CUDA_CHECK(cudaMalloc(&recv, n * size_t(size_) * sizeof(double)));
    SAMPLE_CUDA_CHECK(cudaMemcpy(send, mine.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    RING_NCCL_CHECK(ncclAllGather(send, recv, n, ncclFloat64, comm_, kStream));
    std::vector<double> all(n * size_t(size_));
    SAMPLE_CUDA_CHECK(
        cudaMemcpy(all.data(), recv, all.size() * sizeof(double), cudaMemcpyDeviceToHost));
    SAMPLE_CUDA_CHECK(cudaFree(send));
    SAMPLE_CUDA_CHECK(cudaFree(recv));
    for (int r = 0; r < size_; ++r)
      for (size_t i = 0; i < n; ++i)
        out[size_t(r)][i] = all[size_t(r) * n + i];
    return out;
  }

private:
  ncclComm_t comm_;
  int rank_, size_;
  float *token_ = nullptr;
};

/// Times `launch` on every rank: `warmup` untimed repetitions, then `runs`
/// repetitions, each a stream-ordered barrier, a start event, launch(), a stop
/// event; all queued before one synchronisation. Every rank's times are
/// gathered and reduced (reduceTiming: the slowest rank per repetition, the
/// median over repetitions): the same Timing on every rank.
template <class Launch> Timing timeCollective(Nccl &nccl, Launch launch, int warmup, int runs) {
  for (int w = 0; w < warmup; ++w) {
    nccl.streamBarrier();
    launch();
  }
  SAMPLE_CUDA_CHECK(cudaGetLastError());
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> start(static_cast<size_t>(runs)), stop(static_cast<size_t>(runs));
  for (int r = 0; r < runs; ++r) {
    SAMPLE_CUDA_CHECK(cudaEventCreate(&start[size_t(r)]));
    SAMPLE_CUDA_CHECK(cudaEventCreate(&stop[size_t(r)]));
  }
  for (int r = 0; r < runs; ++r) {
    nccl.streamBarrier();
    SAMPLE_CUDA_CHECK(cudaEventRecord(start[size_t(r)], kStream));
    launch();
    SAMPLE_CUDA_CHECK(cudaEventRecord(stop[size_t(r)], kStream));
  }
  SAMPLE_CUDA_CHECK(cudaGetLastError());
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms(static_cast<size_t>(runs));
  for (int r = 0; r < runs; ++r) {
    float x = 0;
    SAMPLE_CUDA_CHECK(cudaEventElapsedTime(&x, start[size_t(r)], stop[size_t(r)]));
    ms[size_t(r)] = x;
    SAMPLE_CUDA_CHECK(cudaEventDestroy(start[size_t(r)]));
    SAMPLE_CUDA_CHECK(cudaEventDestroy(stop[size_t(r)]));
  }
  return reduceTiming(nccl.gather(ms));
}

} // namespace ring
