// Helpers shared by the GPU tests of the ported kernels (transformer_ops,
// int_ops, moe_conv, hopper_ports, simt_ports, ...): the PTX path, a freshly
// seeded generator, the bf16 rounding the host uses for its inputs (and the
// runtime's bits and values of a bf16), random bf16 data, the table of
// buffer addresses a pointer-array kernel reads, a bounded-error count, and
// the mean time of repeated launches with the bandwidth it makes.
#pragma once

#include <catch2/catch.hpp>

#include <tile/kernel_info.h>
#include <tile/runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace ported {

inline std::string ptxPath(const char *name) {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/" + name + ".ptx";
}

/// TILEC_GPU_TEST_SMALL=1 (compute-sanitizer runs): small problems.
inline bool small() {
  const char *s = std::getenv("TILEC_GPU_TEST_SMALL");
  return s && *s == '1';
}

/// The bf16 nearest x (ties to even) as bits, and the value of bf16 bits.
inline uint16_t bf16Bits(double x) { return uint16_t(tile::floatBits(tile::ScalarType::BF16, x)); }
inline double bf16Value(uint16_t b) { return tile::floatValue(tile::ScalarType::BF16, b); }

inline std::mt19937_64 freshRng() {
  std::random_device rd;
  return std::mt19937_64((static_cast<uint64_t>(rd()) << 32) ^ rd());
}

/// n bf16 values (as bits) drawn from N(mean, sd) and rounded.
inline std::vector<uint16_t> randomBf16(std::mt19937_64 &rng, size_t n, double sd,
                                        double mean = 0.0) {
  std::normal_distribution<double> nd(mean, sd);
  std::vector<uint16_t> v(n);
  for (auto &b : v)
    b = bf16Bits(nd(rng));
  return v;
}

/// The device addresses of `buffers`, as the u64 table a kernel reads
/// (`table[i] as ptr<T, global>`).
template <typename T>
tile::DeviceBuffer<uint64_t> addressTable(const std::vector<tile::DeviceBuffer<T>> &buffers) {
  std::vector<uint64_t> addrs;
  for (const auto &b : buffers)
    addrs.push_back(uint64_t(b.ptr()));
  tile::DeviceBuffer<uint64_t> table(addrs.size());
  table.copyFrom(addrs);
  return table;
}

/// Counts values outside |got - want| <= abs + rel * scale (NaN counts),
/// reporting the first few with their index.
class ErrorCount {
public:
  explicit ErrorCount(const char *what) : what_(what) {}
  void check(size_t i, double got, double want, double bound) {
    if (!(std::fabs(got - want) <= bound) && bad_++ < 5)
      UNSCOPED_INFO(what_ << "[" << i << "] = " << got << ", expected " << want << " (bound "
                          << bound << ")");
  }
  size_t bad() const { return bad_; }

private:
  const char *what_;
  size_t bad_ = 0;
};

/// The mean time in ms of `reps` calls of `launch` (on the current stream).
template <class Launch> double meanMs(int reps, Launch launch) {
  tile::EventTimer timer;
  timer.start();
  for (int i = 0; i < reps; ++i)
    launch();
  return timer.stopMs() / reps;
}

/// Prints `what`'s time and the bandwidth of `bytes` moved in it, against
/// the H200's 4.8 TB/s.
inline void printBandwidth(const std::string &what, double ms, double bytes) {
  double perSecond = bytes / (ms * 1e-3);
  std::printf("%s: %.1f us, %.0f GB/s (%.0f%% of 4800 GB/s)\n", what.c_str(), ms * 1e3,
              perSecond / 1e9, perSecond / 4.8e12 * 100);
}

} // namespace ported
