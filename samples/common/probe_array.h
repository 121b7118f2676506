// A probe build's timestamps (tools/scripts/gemm_probes.py, ring_probes.py):
// the PTX has a module array NAME of per-CTA, per-event rows, each a u64
// counter followed by the stamps (%globaltimer, ns). clear() zeroes it before
// a launch, read() copies it back. The driver entry points come from libcuda
// at run time (dlopen, as the tilec runtime does): linking libcuda would keep
// a sample from starting on a machine without a driver, where it must print
// SKIP.
#pragma once

#include <tile/runtime.h>

#include <cuda.h>
#include <dlfcn.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace probes {

struct Driver {
  decltype(&cuModuleGetGlobal) getGlobal = nullptr;
  decltype(&cuMemsetD8) memset = nullptr;
  decltype(&cuMemcpyDtoH) copy = nullptr;
  Driver() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
      lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
      throw std::runtime_error("--probes: cannot open libcuda.so.1");
    getGlobal = reinterpret_cast<decltype(getGlobal)>(dlsym(lib, "cuModuleGetGlobal_v2"));
    memset = reinterpret_cast<decltype(memset)>(dlsym(lib, "cuMemsetD8_v2"));
    copy = reinterpret_cast<decltype(copy)>(dlsym(lib, "cuMemcpyDtoH_v2"));
    if (!getGlobal || !memset || !copy)
      throw std::runtime_error("--probes: libcuda lacks cuModuleGetGlobal_v2 / cuMemsetD8_v2 / "
                               "cuMemcpyDtoH_v2");
  }
};

inline const Driver &driver() {
  static const Driver d;
  return d;
}

/// The module array `name`, made by tools/scripts/`script`.
inline CUdeviceptr array(const tile::Module &m, const char *name, const char *script,
                         size_t &bytes) {
  CUdeviceptr p = 0;
  if (driver().getGlobal(&p, &bytes, m.raw(), name) != CUDA_SUCCESS)
    throw std::runtime_error(std::string("--probes: the PTX has no ") + name +
                             " array (make it with tools/scripts/" + script + ")");
  return p;
}

inline void clear(const tile::Module &m, const char *name, const char *script) {
  size_t bytes = 0;
  const CUdeviceptr p = array(m, name, script, bytes);
  if (driver().memset(p, 0, bytes) != CUDA_SUCCESS)
    throw std::runtime_error("--probes: cuMemsetD8 failed");
}

inline std::vector<uint64_t> read(const tile::Module &m, const char *name, const char *script) {
  size_t bytes = 0;
  const CUdeviceptr p = array(m, name, script, bytes);
  std::vector<uint64_t> v(bytes / 8);
  if (driver().copy(v.data(), p, bytes) != CUDA_SUCCESS)
    throw std::runtime_error("--probes: cuMemcpyDtoH failed");
  return v;
}

} // namespace probes
