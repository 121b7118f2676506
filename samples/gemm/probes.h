// samples/gemm: reading a probe build's timestamps (`gemm --check ...
// --probes FILE`). tools/scripts/gemm_probes.py inserts %globaltimer stamps
// into a gemm PTX and a module array `gemm_probe`: per CTA and event, a u64
// counter followed by kSlots stamps (ns). zero() clears it before a launch;
// append() writes every stamp as "launch,cta,event,slot,ns", ns after the
// launch's earliest stamp. The driver entry points come from libcuda at run
// time (dlopen, as the tilec runtime does), so the program still starts on a
// machine without a driver.
#pragma once

#include <tile/runtime.h>

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gemm::probes {

inline constexpr int kEvents = 7, kSlots = 4; // gemm_probes.py's NEV, MAXJ

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
inline CUdeviceptr array(const tile::Module &m, size_t &bytes) {
  CUdeviceptr p = 0;
  if (driver().getGlobal(&p, &bytes, m.raw(), "gemm_probe") != CUDA_SUCCESS)
    throw std::runtime_error("--probes: the PTX has no gemm_probe array (make it with "
                             "tools/scripts/gemm_probes.py)");
  return p;
}
inline void zero(const tile::Module &m) {
  size_t bytes = 0;
  const CUdeviceptr p = array(m, bytes);
  if (driver().memset(p, 0, bytes) != CUDA_SUCCESS)
    throw std::runtime_error("--probes: cuMemsetD8 failed");
}
inline void append(const tile::Module &m, int launch, const std::string &file) {
  size_t bytes = 0;
  const CUdeviceptr p = array(m, bytes);
  std::vector<uint64_t> v(bytes / 8);
  if (driver().copy(v.data(), p, bytes) != CUDA_SUCCESS)
    throw std::runtime_error("--probes: cuMemcpyDtoH failed");
  const size_t row = kSlots + 1, ctas = v.size() / (kEvents * row);
  uint64_t t0 = ~uint64_t(0);
  for (size_t c = 0; c < ctas; ++c)
    for (int e = 0; e < kEvents; ++e) {
      const size_t base = (c * kEvents + size_t(e)) * row;
      for (uint64_t s = 0; s < std::min<uint64_t>(v[base], kSlots); ++s)
        t0 = std::min(t0, v[base + 1 + s]);
    }
  std::ofstream f(file, std::ios::app);
  for (size_t c = 0; c < ctas; ++c)
    for (int e = 0; e < kEvents; ++e) {
      const size_t base = (c * kEvents + size_t(e)) * row;
      for (uint64_t s = 0; s < std::min<uint64_t>(v[base], kSlots); ++s)
        f << launch << "," << c << "," << e << "," << s << "," << (v[base + 1 + s] - t0)
          << "\n";
    }
  if (!f)
    throw std::runtime_error("--probes: cannot write " + file);
}

} // namespace gemm::probes
