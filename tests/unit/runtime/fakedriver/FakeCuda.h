// The control surface of the fake libcuda.so.1 used by tilec_runtime_fakedriver_tests.
#pragma once

#include <cuda.h>

#include <string>
#include <vector>

struct FakeLaunch {
  std::string kernel;
  unsigned grid[3], block[3], cluster[3];
  bool hasCluster;
  unsigned sharedBytes;
  CUstream stream;
  std::vector<std::vector<unsigned char>> args; // copies of the first argSizes.size() params
  // With FakeState::recordParamBuffer: the parameter space as the driver builds
  // it (each kernelParams[i] copied to the offset its PTX declaration gets).
  std::vector<unsigned char> paramBuffer;
  std::vector<size_t> paramOffsets;
};

// One cuTensorMapEncodeTiled call, in the driver's order (innermost first).
struct FakeEncode {
  int dataType, rank, interleave, swizzle, l2Promotion, oobFill;
  unsigned long long address;
  unsigned long long dims[5], strides[4];
  unsigned box[5], elementStrides[5];
  bool mapAligned; // the CUtensorMap* was 64-byte aligned
};
// The fake writes this into the map: a magic word, then the call's values,
// so a test can find a map in the parameter buffer and decode it.
constexpr unsigned long long kFakeTensorMapMagic = 0x54454e534f524d41ull; // "TENSORMA"

struct FakeState {
  // Behaviour knobs.
  int occupancyClusters = 4;               // cuOccupancyMaxActiveClusters answer
  int occupancyBlocksPerSm = 2;            // cuOccupancyMaxActiveBlocksPerMultiprocessor answer
  CUresult launchResult = CUDA_SUCCESS;    // cuLaunchKernelEx answer
  bool rejectExplicitTarget = false;       // cuLinkCreate fails when CU_JIT_TARGET is given
  std::vector<size_t> argSizes;            // bytes of each kernel param to record per launch
  CUresult paramInfoResult = CUDA_SUCCESS; // cuFuncGetParamInfo answer (when not SUCCESS)
  // cuFuncGetParamInfo calls past the last parameter: each is an API error
  // that compute-sanitizer reports.
  int paramInfoPastEnd = 0;
  std::string jitInfoLog;               // appended to the JIT info log (ptxas advisories)
  int wholeProgramLoads = 0;            // PTX given straight to cuModuleLoadDataEx
  CUresult syncResult = CUDA_SUCCESS;   // cuCtx/Stream/EventSynchronize and cuMemcpyDtoH answer
  int clusterLaunch = 1;                // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
  bool recordParamBuffer = false;       // build FakeLaunch::paramBuffer per launch
  CUresult encodeResult = CUDA_SUCCESS; // cuTensorMapEncodeTiled answer
  std::vector<FakeEncode> encodes;      // every cuTensorMapEncodeTiled call
  // Multi-GPU (tile/distributed.h): devices 0..deviceCount-1, each with its own
  // primary context; cuDeviceCanAccessPeer answers 0 for the pairs listed.
  int deviceCount = 1;
  std::vector<std::pair<int, int>> noPeerAccess;      // (device, peer device)
  std::vector<std::pair<int, int>> peerAccessEnabled; // cuCtxEnablePeerAccess (current, peer)
  // cuCtxGetCurrent answers no context (a thread that never set one).
  bool noCurrentContext = false;
  int pointerQueries = 0; // cuPointerGetAttributes calls
  // Records.
  std::vector<FakeLaunch> launches;
  std::vector<std::pair<int, int>> funcAttrSets;             // cuFuncSetAttribute (attr, value)
  std::vector<std::pair<int, size_t>> occupancyBlockQueries; // (block size, dynamic smem)
  std::vector<int> jitTargets; // CU_JIT_TARGET per cuLinkCreate (-1: none)
  int links = 0, moduleLoads = 0, moduleUnloads = 0, occupancyQueries = 0;
  int ctxRetains = 0, ctxReleases = 0, liveAllocs = 0;
  int ctxPushes = 0, ctxPops = 0; // cuCtxPushCurrent / cuCtxPopCurrent
  int hostAllocs = 0, hostFrees = 0; // cuMemHostAlloc / cuMemFreeHost
  int globalMisses = 0; // cuModuleGetGlobal calls that found no such global (CUDA_ERROR_NOT_FOUND)
  unsigned hostAllocFlags = 0;       // the last cuMemHostAlloc's flags
  int freesInPushedContext = 0;   // cuMemFree calls made while a pushed context was current
  // Stream-ordered copies and value writes, in call order (the fake performs
  // neither: peers' addresses in the fake NCCL window are not memory).
  struct StreamOp {
    // "cuMemcpyAsync", "cuMemcpy2DAsync", "cuStreamWriteValue32" or "cuStreamWaitValue32"
    std::string what;
    CUdeviceptr dst = 0, src = 0;
    size_t bytes = 0;                            // a 2D copy's row width
    size_t rows = 0, srcPitch = 0, dstPitch = 0; // a 2D copy's
    bool deviceToDevice = false;                 // a 2D copy's memory types
    unsigned value = 0, flags = 0;
    CUstream stream = nullptr;
    bool contextPushed = false; // the call came inside a pushed context
  };
  std::vector<StreamOp> streamOps;
  CUresult streamOpResult = CUDA_SUCCESS; // both calls' answer
};

extern "C" FakeState *fake_cuda_state();
// 1 when this fake defines cuFuncGetParamInfo (0: built as a pre-12.4 driver).
extern "C" int fake_cuda_has_param_info();

// The kernel the runtime's NCCL helper launches (tile_nccl_lsa_pointers(window,
// first, count, out)) is run by the fake on the host: out[i] =
// window->lsaPointers[first + i], with the window a FakeNcclWindow made by the
// fake libnccl.so.2 (fakenccl/FakeNccl.cpp).
struct FakeNcclWindow {
  unsigned long long magic; // kFakeNcclWindowMagic
  unsigned long long lsaPointers[64];
};
constexpr unsigned long long kFakeNcclWindowMagic = 0x4e43434c57494e44ull; // "NCCLWIND"
