// Error checking for the nvcc-built CUDA references and benchmarks.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define SAMPLE_CUDA_CHECK(call)                                                                    \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,               \
                   cudaGetErrorName(err_), cudaGetErrorString(err_));                              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
