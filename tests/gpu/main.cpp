// tilec_gpu_tests: Catch2 tests that run compiled samples on the GPU.
// Without a CUDA device (or driver) nothing can run: print a SKIP line and exit
// 77, which ctest reports as skipped (SKIP_RETURN_CODE), never as passed.
#include "catch_run.h"

#include <tile/runtime.h>

#include <cstdio>

int main(int argc, char **argv) {
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  return tilecCatchRun(argc, argv);
}
