// The fake driver's state shared by its source files (FakeCuda.cpp,
// FakeCudaMemory.cpp); tests read FakeState through fake_cuda_state().
#ifndef TILEC_TESTS_FAKE_CUDA_STATE_H
#define TILEC_TESTS_FAKE_CUDA_STATE_H

#include "FakeCuda.h"

#include <map>

namespace fakedriver {
extern FakeState g_state;
extern int g_ctx[8];   // the primary context of device i is &g_ctx[i]
extern int *g_current; // the current context (cuCtxSetCurrent)
// Each stream a distinct handle with the context current at its creation.
extern std::map<CUstream, CUcontext> g_streams;
} // namespace fakedriver

#endif
