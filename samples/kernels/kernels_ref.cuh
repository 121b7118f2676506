// kernels_ref.cuh - the nvcc twins of the samples/kernels .tile kernels: the same
// algorithms, tiling and launch shapes, written as a careful CUDA C++ programmer
// would (no tricks the .tile kernels could not express). Each section names its
// .tile file; bench.cu launches both side by side.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

namespace kref {

// ---- vector_add.tile
__global__ void __launch_bounds__(256) vectorAdd(float *c, const float *a, const float *b, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// ---- reduce.tile
__device__ __forceinline__ int warpSum(int s) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, off);
  return s;
}

__global__ void __launch_bounds__(256) reduceSum(int *out, const int *in, int n) {
  __shared__ int partial[8];
  int s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += in[i];
  s = warpSum(s);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    partial[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = warpSum(lane < 8 ? partial[lane] : 0);
    if (lane == 0)
      atomicAdd(out, s);
  }
}

// ---- transpose.tile
__global__ void __launch_bounds__(256) transpose(float *out, const float *in, int rows, int cols) {
  __shared__ float tile[32][33];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * 32 + tx, y = blockIdx.y * 32 + ty;
  for (int k = 0; k < 32; k += 8)
    if (x < cols && y + k < rows)
      tile[ty + k][tx] = in[(y + k) * cols + x];
  __syncthreads();
  int ox = blockIdx.y * 32 + tx, oy = blockIdx.x * 32 + ty;
  for (int k = 0; k < 32; k += 8)
    if (ox < rows && oy + k < cols)
      out[(oy + k) * rows + ox] = tile[tx][ty + k];
}

// ---- sgemm_smem.tile (the worklog's kernel 3)
__global__ void __launch_bounds__(1024)
    sgemmSmem(float *C, const float *A, const float *B, int M, int N, int K) {
  __shared__ float As[32 * 32];
  __shared__ float Bs[32 * 32];
  const int cRow = blockIdx.x, cCol = blockIdx.y;
  const int row = threadIdx.x / 32, col = threadIdx.x % 32;
  A += cRow * 32 * K;
  B += cCol * 32;
  float acc = 0.0f;
  for (int bk = 0; bk < K; bk += 32) {
    As[row * 32 + col] = A[row * K + col];
    Bs[row * 32 + col] = B[row * N + col];
    __syncthreads();
    A += 32;
    B += 32 * N;
    for (int d = 0; d < 32; ++d)
      acc += As[row * 32 + d] * Bs[d * 32 + col];
    __syncthreads();
  }
  C[(cRow * 32 + row) * N + cCol * 32 + col] = acc;
}

// ---- sgemm_2d.tile (the worklog's kernel 5)
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads2d = (BM / TM) * (BN / TN); // 256

__global__ void __launch_bounds__(kThreads2d)
    sgemm2d(float *C, const float *A, const float *B, int M, int N, int K) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int cRow = blockIdx.y, cCol = blockIdx.x;
  const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
  const int aRow = threadIdx.x / BK, aCol = threadIdx.x % BK;
  const int bRow = threadIdx.x / BN, bCol = threadIdx.x % BN;
  A += cRow * BM * K;
  B += cCol * BN;
  float acc[TM * TN] = {0.0f};
  float regM[TM], regN[TN];
  for (int bk = 0; bk < K; bk += BK) {
#pragma unroll
    for (int r = 0; r < BM; r += kThreads2d / BK)
      As[(aRow + r) * BK + aCol] = A[(aRow + r) * K + aCol];
#pragma unroll
    for (int r = 0; r < BK; r += kThreads2d / BN)
      Bs[(bRow + r) * BN + bCol] = B[(bRow + r) * N + bCol];
    __syncthreads();
    A += BK;
    B += BK * N;
#pragma unroll
    for (int d = 0; d < BK; ++d) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
        regM[i] = As[(tRow * TM + i) * BK + d];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        regN[j] = Bs[d * BN + tCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      C[(cRow * BM + tRow * TM + i) * N + cCol * BN + tCol * TN + j] = acc[i * TN + j];
}

// ---- softmax.tile
constexpr int kSoftmaxWarps = 8;

__device__ __forceinline__ float warpMax(float m) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  return m;
}

__device__ __forceinline__ float warpSumF(float s) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, off);
  return s;
}

__global__ void __launch_bounds__(256) softmax(float *out, const float *in, int cols) {
  __shared__ float red[kSoftmaxWarps];
  const float *x = in + blockIdx.x * cols;
  float *y = out + blockIdx.x * cols;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, x[j]);
  m = warpMax(m);
  if (lane == 0)
    red[warp] = m;
  __syncthreads();
  m = red[0];
#pragma unroll
  for (int w = 1; w < kSoftmaxWarps; ++w)
    m = fmaxf(m, red[w]);
  __syncthreads();

  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += expf(x[j] - m);
  s = warpSumF(s);
  if (lane == 0)
    red[warp] = s;
  __syncthreads();
  s = 0.0f;
#pragma unroll
  for (int w = 0; w < kSoftmaxWarps; ++w)
    s += red[w];

  const float inv = 1.0f / s;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    y[j] = expf(x[j] - m) * inv;
}

// ---- merge_states.tile
constexpr int kMergeD = 128, kMergeMaxSplits = 64;

__global__ void __launch_bounds__(128)
    mergeStates(float *out, float *lseOut, const float *o, const float *lse, int splits, int rows) {
  __shared__ float w[kMergeMaxSplits];
  const int row = blockIdx.x, lane = threadIdx.x % 32;
  if (threadIdx.x / 32 == 0) {
    float m = -INFINITY;
    for (int s = lane; s < splits; s += 32)
      m = fmaxf(m, lse[s * rows + row]);
    m = warpMax(m);
    float sum = 0.0f;
    for (int s = lane; s < splits; s += 32) {
      float e = m == -INFINITY ? 0.0f : expf(lse[s * rows + row] - m);
      w[s] = e;
      sum += e;
    }
    sum = warpSumF(sum);
    float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int s = lane; s < splits; s += 32)
      w[s] *= inv;
    if (lane == 0)
      lseOut[row] = m == -INFINITY ? -INFINITY : m + logf(sum);
  }
  __syncthreads();
  float acc = 0.0f;
  for (int s = 0; s < splits; ++s)
    acc = fmaf(w[s], o[(long long)(s * rows + row) * kMergeD + threadIdx.x], acc);
  out[(long long)row * kMergeD + threadIdx.x] = acc;
}

// ---- scan.tile
__device__ __forceinline__ int warpScan(int x) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    int y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d)
      x += y;
  }
  return x;
}

__global__ void __launch_bounds__(1024) scanBlock(int *out, const int *in, int *sums, int n) {
  __shared__ int warpTotals[32];
  const int i = blockIdx.x * 1024 + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int x = warpScan(i < n ? in[i] : 0);
  if (lane == 31)
    warpTotals[warp] = x;
  __syncthreads();
  if (warp == 0)
    warpTotals[lane] = warpScan(warpTotals[lane]);
  __syncthreads();
  if (warp > 0)
    x += warpTotals[warp - 1];
  if (i < n)
    out[i] = x;
  if (threadIdx.x == 1023)
    sums[blockIdx.x] = x;
}

__global__ void __launch_bounds__(1024) addCarry(int *out, const int *scannedSums, int n) {
  const int i = blockIdx.x * 1024 + threadIdx.x;
  if (blockIdx.x > 0 && i < n)
    out[i] += scannedSums[blockIdx.x - 1];
}

// ---- scan_lookback.tile
constexpr long long kNotReady = 0, kAggregate = 1, kPrefix = 2;

__device__ __forceinline__ long long publishWord(long long flag, int value) {
  return (flag << 32) | static_cast<unsigned>(value);
}

__global__ void __launch_bounds__(1024)
    scanLookback(int *out, const int *in, long long *status, int *counter, int n) {
  __shared__ int warpTotals[32];
  __shared__ int sharedTile, sharedPrefix;
  if (threadIdx.x == 0)
    sharedTile = atomicAdd(counter, 1);
  __syncthreads();
  const int tile = sharedTile;

  const int i = tile * 1024 + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int x = warpScan(i < n ? in[i] : 0);
  if (lane == 31)
    warpTotals[warp] = x;
  __syncthreads();
  if (warp == 0)
    warpTotals[lane] = warpScan(warpTotals[lane]);
  __syncthreads();
  if (warp > 0)
    x += warpTotals[warp - 1];

  if (threadIdx.x == 0) {
    using Word = cuda::atomic_ref<long long, cuda::thread_scope_device>;
    const int total = warpTotals[31];
    int prefix = 0;
    if (tile > 0) {
      Word(status[tile]).store(publishWord(kAggregate, total), cuda::memory_order_release);
      for (int j = tile - 1;;) {
        long long word = Word(status[j]).load(cuda::memory_order_acquire);
        long long flag = word >> 32;
        if (flag == kNotReady)
          continue;
        prefix += static_cast<int>(word);
        if (flag == kPrefix)
          break;
        --j;
      }
    }
    Word(status[tile]).store(publishWord(kPrefix, prefix + total), cuda::memory_order_release);
    sharedPrefix = prefix;
  }
  __syncthreads();
  if (i < n)
    out[i] = x + sharedPrefix;
}

// ---- stencil5.tile
__global__ void __launch_bounds__(256) stencil5(float *out, const float *in, int rows, int cols) {
  const int j = blockIdx.x * 32 + threadIdx.x;
  const int i = blockIdx.y * 8 + threadIdx.y;
  if (i < rows && j < cols) {
    const int c = i * cols + j;
    if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
      out[c] = in[c];
    else
      out[c] = 0.25f * ((in[c - cols] + in[c + cols]) + (in[c - 1] + in[c + 1]));
  }
}

} // namespace kref
