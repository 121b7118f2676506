// cuBLAS as the reference GEMM of samples/gemm (same process, same device,
// same stream as the tilec runtime's launches: the legacy default stream of
// the primary context). Every CUDA runtime and cuBLAS return code is checked.
#pragma once

#include "gemm_common.h"

#include "../common/cuda_check.cuh"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define GEMM_CUBLAS_CHECK(call)                                                                    \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,               \
                   cublasGetStatusName(st_), cublasGetStatusString(st_));                          \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace gemm {

class Cublas {
public:
  Cublas() {
    GEMM_CUBLAS_CHECK(cublasCreate(&h_));
    // Tensor cores with f32 accumulation (CUBLAS_COMPUTE_32F below); the
    // default math mode allows them for 16-bit inputs.
    GEMM_CUBLAS_CHECK(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH));
    GEMM_CUBLAS_CHECK(cublasSetStream(h_, nullptr));
  }
  ~Cublas() { cublasDestroy(h_); }
  Cublas(const Cublas &) = delete;
  Cublas &operator=(const Cublas &) = delete;

  // Row-major C[M, N] = A[M, K] * B (alpha 1, beta 0) through column-major
  // cuBLAS: C^T (N x M, ld N) = B^T (N x K) * A^T (K x M, ld K). A K-major B
  // (stored [N, K]) is, column-major, the K x N matrix B itself: op T with
  // ld K; an MN-major B (stored [K, N]) is B^T as it is: op N with ld N.
  void gemm(const Problem &p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
    const cudaDataType t = p.dtype == DType::F16 ? CUDA_R_16F : CUDA_R_16BF;
    const float alpha = 1.0f, beta = 0.0f;
    const bool bk = p.bmajor == BMajor::K;
    GEMM_CUBLAS_CHECK(cublasGemmEx(h_, bk ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, int(p.n),
                                   int(p.m), int(p.k), &alpha, reinterpret_cast<const void *>(b), t,
                                   int(bk ? p.k : p.n), reinterpret_cast<const void *>(a), t,
                                   int(p.k), &beta, reinterpret_cast<void *>(c), t, int(p.n),
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  int version() const {
    int v = 0;
    GEMM_CUBLAS_CHECK(cublasGetVersion(h_, &v));
    return v;
  }

private:
  cublasHandle_t h_ = nullptr;
};

} // namespace gemm
