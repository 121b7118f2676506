// samples/gemm: reading a probe build's timestamps (`gemm --check ...
// --probes FILE`). tools/scripts/gemm_probes.py inserts %globaltimer stamps
// into a gemm PTX and a module array `gemm_probe`: per CTA and event, a u64
// counter followed by kSlots stamps (ns). zero() clears it before a launch;
// append() writes every stamp as "launch,cta,event,slot,ns", ns after the
// launch's earliest stamp (samples/common/probe_array.h reads the array).
#pragma once

#include "../common/probe_array.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gemm::probes {

inline constexpr int kEvents = 7, kSlots = 4; // gemm_probes.py's NEV, MAXJ

inline void zero(const tile::Module &m) { ::probes::clear(m, "gemm_probe", "gemm_probes.py"); }
inline void append(const tile::Module &m, int launch, const std::string &file) {
  const std::vector<uint64_t> v = ::probes::read(m, "gemm_probe", "gemm_probes.py");
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
