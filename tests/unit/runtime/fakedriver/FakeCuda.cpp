// A fake CUDA driver (libcuda.so.1) implementing just what the runtime uses, so the
// runtime's driver-present paths (symbol resolution, context, JIT + logs + cache,
// launch attributes/occupancy/cluster launch, memory) are testable without a GPU.
// Device memory is host memory; "cubins" are "\x7fELF" "FAKECUBIN:" + the PTX.
#include "FakeCuda.h"
#include "FakeCudaState.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <string>

namespace fakedriver {
FakeState g_state;
int g_ctx[8];           // the primary context of device i is &g_ctx[i]
int *g_current = g_ctx; // the current context (cuCtxSetCurrent)
std::map<CUstream, CUcontext> g_streams;
} // namespace fakedriver
using namespace fakedriver;

namespace {
const std::string kCubinTag = std::string("\x7f"
                                          "ELF",
                                          4) +
                              "FAKECUBIN:";

struct FakeModule;
struct FakeParam {
  size_t offset, size;
};
struct FakeFunction {
  FakeModule *module;
  std::string name;
  int maxThreads;
  int maxDynamicShared = 48 * 1024;
  std::vector<FakeParam> params;
  int requiredCluster[3] = {0, 0, 0}; // .reqnctapercluster
  bool explicitCluster = false;       // .explicitcluster
  int requiredBlock[3] = {0, 0, 0};   // .reqntid
  CUcontext ctx = nullptr;            // current when the module was loaded
};
// Functions die with their module, so a runtime that unloads a module while a Kernel
// still uses it shows up as a use-after-free under ASan.
struct FakeModule {
  std::string ptx;
  std::vector<std::unique_ptr<FakeFunction>> functions;
  std::map<std::string, std::vector<unsigned char>> globals; // cuModuleGetGlobal's storage
};
struct FakeLink {
  char *errLog = nullptr;
  size_t errSize = 0;
  char *infoLog = nullptr;
  size_t infoSize = 0;
  std::string ptx;
  std::string cubin;
};
int deviceOf(CUcontext c) { return int(reinterpret_cast<int *>(c) - g_ctx); }

// The byte size of a PTX scalar type (".u64" -> 8), 0 when not one.
size_t scalarSize(const std::string &t) {
  if (t.size() < 3 || t[0] != '.')
    return 0;
  if (t == ".pred")
    return 1;
  int bits = std::atoi(t.c_str() + 2);
  return (t[1] == 'u' || t[1] == 's' || t[1] == 'b' || t[1] == 'f') && bits % 8 == 0 ? bits / 8 : 0;
}

// Lays out ".param .u64 a, .param .align 8 .b8 s[12], ..." as the driver would:
// each parameter at its alignment (the element size unless .align says otherwise).
std::vector<FakeParam> layoutParams(const std::string &list) {
  std::vector<FakeParam> params;
  size_t offset = 0, start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos)
      comma = list.size();
    std::string decl = list.substr(start, comma - start);
    start = comma + 1;
    size_t elem = 0, align = 0, count = 1;
    size_t pos = 0;
    while ((pos = decl.find('.', pos)) != std::string::npos) {
      size_t end = decl.find_first_of(" \t\n", pos);
      std::string tok = decl.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      if (tok == ".align")
        align = std::strtoul(decl.c_str() + end, nullptr, 10);
      else if (size_t n = scalarSize(tok))
        elem = n;
      pos = end == std::string::npos ? decl.size() : end;
    }
    if (!elem)
      continue; // not a parameter (empty list)
    size_t bracket = decl.find('[');
    if (bracket != std::string::npos)
      count = std::strtoul(decl.c_str() + bracket + 1, nullptr, 10);
    if (!align)
      align = elem;
    offset = (offset + align - 1) / align * align;
    params.push_back(FakeParam{offset, elem * count});
    offset += elem * count;
  }
  return params;
}

void writeLog(char *buf, size_t size, const std::string &text) {
  if (!buf || !size)
    return;
  std::strncpy(buf, text.c_str(), size - 1);
  buf[size - 1] = '\0';
}
} // namespace

extern "C" {

FakeState *fake_cuda_state() { return &g_state; }

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult, const char **s) {
  *s = "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
  *s = e == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ? "too many resources requested for launch"
                                               : "fake driver error";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) {
  *n = g_state.deviceCount;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= g_state.deviceCount || ordinal >= 8)
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  *can = dev != peer;
  for (auto [a, b] : g_state.noPeerAccess)
    if (a == dev && b == peer)
      *can = 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int) {
  std::pair<int, int> p(deviceOf(reinterpret_cast<CUcontext>(g_current)), deviceOf(peer));
  for (auto q : g_state.peerAccessEnabled)
    if (q == p)
      return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  g_state.peerAccessEnabled.push_back(p);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice) {
  std::strncpy(name, "Fake H100", len);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *v = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *v = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = 232448;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *v = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *v = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    *v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
    *v = g_state.clusterLaunch;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice dev) {
  ++g_state.ctxRetains;
  *c = reinterpret_cast<CUcontext>(&g_ctx[dev]);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) {
  ++g_state.ctxReleases;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  if (c)
    g_current = reinterpret_cast<int *>(c);
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *c) {
  *c = g_state.noCurrentContext ? nullptr : reinterpret_cast<CUcontext>(g_current);
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) { return g_state.syncResult; }
CUresult cuCtxPushCurrent(CUcontext) {
  ++g_state.ctxPushes;
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext *c) {
  if (g_state.ctxPushes == g_state.ctxPops)
    return CUDA_ERROR_INVALID_CONTEXT;
  ++g_state.ctxPops;
  if (c)
    *c = reinterpret_cast<CUcontext>(g_current);
  return CUDA_SUCCESS;
}
// As in the CUDA 13 driver: a newer ABI under the same base name. The runtime must
// bind the header's cuCtxSynchronize(void), never this one.
CUresult cuCtxSynchronize_v2(CUcontext) { return CUDA_ERROR_CONTEXT_IS_DESTROYED; }

CUresult cuLinkCreate(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *out) {
  auto *l = new FakeLink;
  int target = -1;
  for (unsigned i = 0; i < n; ++i) {
    switch (opts[i]) {
    case CU_JIT_ERROR_LOG_BUFFER:
      l->errLog = static_cast<char *>(vals[i]);
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      l->errSize = reinterpret_cast<size_t>(vals[i]);
      break;
    case CU_JIT_INFO_LOG_BUFFER:
      l->infoLog = static_cast<char *>(vals[i]);
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      l->infoSize = reinterpret_cast<size_t>(vals[i]);
      break;
    case CU_JIT_TARGET:
      target = static_cast<int>(reinterpret_cast<uintptr_t>(vals[i]));
      break;
    default:
      break;
    }
  }
  g_state.jitTargets.push_back(target);
  if (target != -1 && g_state.rejectExplicitTarget) {
    delete l;
    return CUDA_ERROR_INVALID_VALUE;
  }
  ++g_state.links;
  *out = reinterpret_cast<CUlinkState>(l);
  return CUDA_SUCCESS;
}
CUresult cuLinkAddData(CUlinkState s, CUjitInputType type, void *data, size_t size, const char *,
                       unsigned int, CUjit_option *, void **) {
  auto *l = reinterpret_cast<FakeLink *>(s);
  if (type != CU_JIT_INPUT_PTX)
    return CUDA_ERROR_INVALID_VALUE;
  const char *p = static_cast<const char *>(data);
  if (size == 0 || p[size - 1] != '\0')
    return CUDA_ERROR_INVALID_VALUE; // PTX must be NUL-terminated
  l->ptx.assign(p, size - 1);
  if (l->ptx.find("SYNTAX_ERROR") != std::string::npos) {
    writeLog(l->errLog, l->errSize,
             "ptxas application ptx input, line 3; error   : fake syntax error");
    return CUDA_ERROR_INVALID_PTX;
  }
  if (l->ptx.find(".target sm_90a") != std::string::npos && g_state.jitTargets.back() == -1 &&
      l->ptx.find("NEEDS_TARGET") != std::string::npos) {
    writeLog(l->errLog, l->errSize, "ptxas: sm_90a features need the sm_90a target");
    return CUDA_ERROR_INVALID_PTX;
  }
  return CUDA_SUCCESS;
}
CUresult cuLinkComplete(CUlinkState s, void **cubin, size_t *size) {
  auto *l = reinterpret_cast<FakeLink *>(s);
  writeLog(l->infoLog, l->infoSize,
           ("ptxas info    : Used 32 registers (fake)\n" + g_state.jitInfoLog).c_str());
  l->cubin = kCubinTag + l->ptx;
  *cubin = l->cubin.data();
  *size = l->cubin.size();
  return CUDA_SUCCESS;
}
CUresult cuLinkDestroy(CUlinkState s) {
  auto *l = reinterpret_cast<FakeLink *>(s);
  std::memset(l->cubin.data(), 0, l->cubin.size()); // catch use-after-destroy
  delete l;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts,
                            void **vals) {
  const char *p = static_cast<const char *>(image);
  auto *fm = new FakeModule;
  if (std::memcmp(p, kCubinTag.data(), kCubinTag.size()) == 0) {
    fm->ptx = std::string(p + kCubinTag.size()); // the fake cubin's PTX has no NULs
  } else if (std::strstr(p, ".version 9.9")) {
    // As a CUDA 13.0 driver: PTX ISA up to 9.0.
    delete fm;
    for (unsigned i = 0; i + 1 < n; ++i)
      if (opts[i] == CU_JIT_ERROR_LOG_BUFFER && opts[i + 1] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        writeLog(static_cast<char *>(vals[i]),
                 static_cast<unsigned>(reinterpret_cast<uintptr_t>(vals[i + 1])),
                 "ptxas application ptx input, line 1; fatal   : Unsupported .version 9.9; "
                 "current version is '9.0'");
    return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  } else if (std::strstr(p, ".entry ")) {
    // PTX, JIT-compiled as a whole program (the runtime's path for setmaxnreg).
    fm->ptx = p;
    ++g_state.wholeProgramLoads;
    for (unsigned i = 0; i + 1 < n; ++i)
      if (opts[i] == CU_JIT_INFO_LOG_BUFFER && opts[i + 1] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
        writeLog(static_cast<char *>(vals[i]),
                 static_cast<unsigned>(reinterpret_cast<uintptr_t>(vals[i + 1])),
                 ("ptxas info    : Used 32 registers (fake)\n" + g_state.jitInfoLog).c_str());
  } else {
    delete fm;
    return CUDA_ERROR_INVALID_IMAGE;
  }
  ++g_state.moduleLoads;
  *m = reinterpret_cast<CUmodule>(fm);
  return CUDA_SUCCESS;
}
// A module-scope `.global` of the PTX: `.u64 NAME` (8 zero bytes) or
// `.b8 NAME[N] = {b0, b1, ...}`; its storage lives with the module.
CUresult cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name) {
  auto *fm = reinterpret_cast<FakeModule *>(m);
  auto it = fm->globals.find(name);
  if (it == fm->globals.end()) {
    const std::string &ptx = fm->ptx;
    std::vector<unsigned char> data;
    size_t at = ptx.find(std::string(".u64 ") + name + ";");
    if (at != std::string::npos && ptx.rfind(".global", at) != std::string::npos) {
      data.assign(8, 0);
    } else if ((at = ptx.find(std::string(".b8 ") + name + "[")) != std::string::npos) {
      size_t open = ptx.find('{', at), close = ptx.find('}', at);
      if (open == std::string::npos || close == std::string::npos) {
        ++g_state.globalMisses;
        return CUDA_ERROR_NOT_FOUND;
      }
      for (size_t i = open + 1; i < close;) {
        data.push_back(static_cast<unsigned char>(std::strtoul(ptx.c_str() + i, nullptr, 10)));
        size_t comma = ptx.find(',', i);
        i = comma == std::string::npos || comma > close ? close : comma + 1;
      }
    } else {
      ++g_state.globalMisses;
      return CUDA_ERROR_NOT_FOUND;
    }
    it = fm->globals.emplace(name, std::move(data)).first;
  }
  *p = reinterpret_cast<CUdeviceptr>(it->second.data());
  *bytes = it->second.size();
  return CUDA_SUCCESS;
}
// Mapped host memory: the device address is the host address.
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags) {
  ++g_state.hostAllocs;
  g_state.hostAllocFlags = flags;
  *p = std::calloc(1, n);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned int) {
  *d = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void *p) {
  ++g_state.hostFrees;
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) {
  ++g_state.moduleUnloads;
  delete reinterpret_cast<FakeModule *>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  auto *fm = reinterpret_cast<FakeModule *>(m);
  std::string entry = std::string(".entry ") + name + "(";
  size_t at = fm->ptx.find(entry);
  if (at == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  fm->functions.push_back(std::make_unique<FakeFunction>(FakeFunction{fm, name, 1024}));
  FakeFunction *fn = fm->functions.back().get();
  size_t open = at + entry.size(), close = fm->ptx.find(')', open);
  fn->params = layoutParams(fm->ptx.substr(open, close - open));
  // The directives between the parameter list and the body.
  std::string directives = fm->ptx.substr(close, fm->ptx.find('{', close) - close);
  size_t nt = directives.find(".maxntid ");
  if (nt != std::string::npos)
    fn->maxThreads = std::atoi(directives.c_str() + nt + 9);
  size_t rc = directives.find(".reqnctapercluster ");
  if (rc != std::string::npos)
    std::sscanf(directives.c_str() + rc + 19, "%d, %d, %d", &fn->requiredCluster[0],
                &fn->requiredCluster[1], &fn->requiredCluster[2]);
  fn->explicitCluster = directives.find(".explicitcluster") != std::string::npos;
  size_t rt = directives.find(".reqntid ");
  if (rt != std::string::npos) {
    fn->requiredBlock[1] = fn->requiredBlock[2] = 1;
    std::sscanf(directives.c_str() + rt + 9, "%d, %d, %d", &fn->requiredBlock[0],
                &fn->requiredBlock[1], &fn->requiredBlock[2]);
  }
  fn->ctx = reinterpret_cast<CUcontext>(g_current);
  *f = reinterpret_cast<CUfunction>(fn);
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *v = fn->maxThreads;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *v = 1024;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *v = 32;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *v = fn->maxDynamicShared;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    *v = fn->requiredCluster[0];
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    *v = fn->requiredCluster[1];
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    *v = fn->requiredCluster[2];
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    *v = fn->explicitCluster;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
#ifndef FAKE_CUDA_NO_PARAM_INFO
// As the real one: CUDA_ERROR_INVALID_VALUE past the last parameter.
CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size) {
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  if (g_state.paramInfoResult != CUDA_SUCCESS)
    return g_state.paramInfoResult;
  if (!offset)
    return CUDA_ERROR_INVALID_VALUE;
  if (index >= fn->params.size()) {
    ++g_state.paramInfoPastEnd;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *offset = fn->params[index].offset;
  if (size)
    *size = fn->params[index].size;
  return CUDA_SUCCESS;
}
#endif
int fake_cuda_has_param_info() {
#ifdef FAKE_CUDA_NO_PARAM_INFO
  return 0;
#else
  return 1;
#endif
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int value) {
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  g_state.funcAttrSets.emplace_back(static_cast<int>(a), value);
  if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    fn->maxDynamicShared = value;
  return CUDA_SUCCESS;
}
// The driver's cluster rules: a launch-time cluster must equal the compiled one
// (.reqnctapercluster); without either there is no cluster, which an
// .explicitcluster kernel refuses (and so does the occupancy query).
static CUresult checkClusterRules(const FakeFunction *fn, const CUlaunchConfig *c,
                                  bool forOccupancy) {
  const CUlaunchAttribute *cluster = nullptr;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      cluster = &c->attrs[i];
  const bool compiled = fn->requiredCluster[0] > 0;
  if (cluster && compiled &&
      (cluster->value.clusterDim.x != unsigned(fn->requiredCluster[0]) ||
       cluster->value.clusterDim.y != unsigned(fn->requiredCluster[1]) ||
       cluster->value.clusterDim.z != unsigned(fn->requiredCluster[2])))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (!cluster && !compiled && (fn->explicitCluster || forOccupancy))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f, const CUlaunchConfig *c) {
  ++g_state.occupancyQueries;
  if (CUresult r = checkClusterRules(reinterpret_cast<FakeFunction *>(f), c, true))
    return r;
  *n = g_state.occupancyClusters;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction, int blockSize,
                                                     size_t dynamicSMemSize) {
  ++g_state.occupancyQueries;
  g_state.occupancyBlockQueries.emplace_back(blockSize, dynamicSMemSize);
  *n = g_state.occupancyBlocksPerSm;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **) {
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  FakeLaunch l{};
  l.kernel = fn->name;
  l.grid[0] = c->gridDimX;
  l.grid[1] = c->gridDimY;
  l.grid[2] = c->gridDimZ;
  l.block[0] = c->blockDimX;
  l.block[1] = c->blockDimY;
  l.block[2] = c->blockDimZ;
  l.cluster[0] = l.cluster[1] = l.cluster[2] = 1;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      l.hasCluster = true;
      l.cluster[0] = c->attrs[i].value.clusterDim.x;
      l.cluster[1] = c->attrs[i].value.clusterDim.y;
      l.cluster[2] = c->attrs[i].value.clusterDim.z;
    }
  l.sharedBytes = c->sharedMemBytes;
  l.stream = c->hStream;
  if (g_state.recordParamBuffer) {
    for (size_t i = 0; i < fn->params.size(); ++i) {
      const FakeParam &fp = fn->params[i];
      if (l.paramBuffer.size() < fp.offset + fp.size)
        l.paramBuffer.resize(fp.offset + fp.size, 0);
      std::memcpy(l.paramBuffer.data() + fp.offset, params[i], fp.size);
      l.paramOffsets.push_back(fp.offset);
    }
  }
  for (size_t i = 0; i < g_state.argSizes.size(); ++i) {
    auto *p = static_cast<unsigned char *>(params[i]);
    l.args.emplace_back(p, p + g_state.argSizes[i]);
  }
  if (c->sharedMemBytes > static_cast<unsigned>(fn->maxDynamicShared))
    return CUDA_ERROR_INVALID_VALUE;
  // As the driver, without saying why: no current context, a kernel or
  // stream of another context, a destroyed stream, a block other than .reqntid.
  if (g_state.noCurrentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (fn->ctx != reinterpret_cast<CUcontext>(g_current))
    return CUDA_ERROR_INVALID_HANDLE;
  if (c->hStream) {
    auto it = g_streams.find(c->hStream);
    if (it == g_streams.end() || it->second != fn->ctx)
      return CUDA_ERROR_INVALID_HANDLE;
  }
  if (fn->requiredBlock[0] &&
      (c->blockDimX != unsigned(fn->requiredBlock[0]) ||
       c->blockDimY != unsigned(fn->requiredBlock[1]) ||
       c->blockDimZ != unsigned(fn->requiredBlock[2])))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = checkClusterRules(fn, c, false))
    return r;
  if (fn->name == "tile_nccl_lsa_pointers") {
    auto *w = *static_cast<FakeNcclWindow **>(params[0]);
    int first = *static_cast<int *>(params[1]), count = *static_cast<int *>(params[2]);
    auto *out = *static_cast<unsigned long long **>(params[3]);
    if (!w || w->magic != kFakeNcclWindowMagic || first < 0 || first + count > 64)
      return CUDA_ERROR_ILLEGAL_ADDRESS;
    for (int i = 0; i < count; ++i)
      out[i] = w->lsaPointers[first + i];
  }
  g_state.launches.push_back(l);
  return g_state.launchResult;
}


// Records the call and writes its values into the map (no real encoding):
// qword 0 the magic, 1 the address, 2..6 dims, 7..10 strides, 11 the box (16
// bits each), 12 the element strides (8 bits each), 13 the enums.
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                                void *address, const cuuint64_t *dims, const cuuint64_t *strides,
                                const cuuint32_t *box, const cuuint32_t *elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  FakeEncode e{};
  e.dataType = type;
  e.rank = static_cast<int>(rank);
  e.interleave = interleave;
  e.swizzle = swizzle;
  e.l2Promotion = l2;
  e.oobFill = oob;
  e.address = reinterpret_cast<uintptr_t>(address);
  e.mapAligned = reinterpret_cast<uintptr_t>(map) % 64 == 0;
  for (cuuint32_t i = 0; i < rank && i < 5; ++i) {
    e.dims[i] = dims[i];
    e.box[i] = box[i];
    e.elementStrides[i] = elementStrides[i];
    if (i + 1 < rank)
      e.strides[i] = strides[i];
  }
  g_state.encodes.push_back(e);
  if (g_state.encodeResult != CUDA_SUCCESS)
    return g_state.encodeResult;
  if (!e.mapAligned || rank < 1 || rank > 5)
    return CUDA_ERROR_INVALID_VALUE;
  cuuint64_t *q = map->opaque;
  std::memset(q, 0, sizeof(map->opaque));
  q[0] = kFakeTensorMapMagic;
  q[1] = e.address;
  for (int i = 0; i < e.rank; ++i) {
    q[2 + i] = e.dims[i];
    if (i + 1 < e.rank)
      q[7 + i] = e.strides[i];
    q[11] |= static_cast<cuuint64_t>(e.box[i] & 0xffff) << (16 * (i % 4));
    q[12] |= static_cast<cuuint64_t>(e.elementStrides[i] & 0xff) << (8 * i);
  }
  q[13] = static_cast<cuuint64_t>(type) | static_cast<cuuint64_t>(rank) << 8 |
          static_cast<cuuint64_t>(swizzle) << 16 | static_cast<cuuint64_t>(l2) << 24 |
          static_cast<cuuint64_t>(oob) << 32;
  q[14] = e.rank == 5 ? e.box[4] : 0;
  return CUDA_SUCCESS;
}

// Resolves "cuX" to the versioned symbol this library defines (cuX_v2 first).
CUresult cuGetProcAddress(const char *symbol, void **pfn, int, cuuint64_t,
                          CUdriverProcAddressQueryResult *status) {
  static void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  std::string v2 = std::string(symbol) + "_v2";
  void *p = dlsym(self, v2.c_str());
  if (!p)
    p = dlsym(self, symbol);
  *pfn = p;
  if (status)
    *status = p ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return p ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

} // extern "C"
