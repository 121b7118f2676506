// CUDA-event timing for the nvcc-built benchmark programs: one copy for every
// sample's bench.cu.
#pragma once

#include "cuda_check.cuh"

#include <algorithm>
#include <vector>

namespace sample {

struct EventTiming {
  double median = -1, min = -1; // milliseconds
};

// before() (untimed: zeroing, resets) and launch() `warmup` times, then `runs`
// times with launch() between two events on the legacy default stream, which
// the runtime API and the tilec runtime's launches (stream 0 of the same
// primary context) share. Every run is queued before one synchronisation, so
// the host's launch cost stays out of the GPU times.
template <class Before, class Launch>
EventTiming timeWithEvents(Before before, Launch launch, int warmup, int runs) {
  for (int w = 0; w < warmup; ++w) {
    before();
    launch();
  }
  SAMPLE_CUDA_CHECK(cudaGetLastError());
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> start(runs), stop(runs);
  for (int r = 0; r < runs; ++r) {
    SAMPLE_CUDA_CHECK(cudaEventCreate(&start[r]));
    SAMPLE_CUDA_CHECK(cudaEventCreate(&stop[r]));
  }
  for (int r = 0; r < runs; ++r) {
    before();
    SAMPLE_CUDA_CHECK(cudaEventRecord(start[r], 0));
    launch();
    SAMPLE_CUDA_CHECK(cudaEventRecord(stop[r], 0));
  }
  SAMPLE_CUDA_CHECK(cudaGetLastError());
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(runs);
  for (int r = 0; r < runs; ++r) {
    SAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms[r], start[r], stop[r]));
    SAMPLE_CUDA_CHECK(cudaEventDestroy(start[r]));
    SAMPLE_CUDA_CHECK(cudaEventDestroy(stop[r]));
  }
  std::sort(ms.begin(), ms.end());
  EventTiming t;
  t.median = runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
  t.min = ms.front();
  return t;
}

} // namespace sample
