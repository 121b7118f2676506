// kernels_common.h - the host side of samples/kernels shared by the sample program
// (main.cpp: the .tile kernels through the tilec runtime), the benchmark
// (bench.cu: the same plus the nvcc twins and cuBLAS) and the GPU tests: random
// inputs, CPU references, result checks and the .tile launches. Plain C++17 (nvcc
// compiles it as host code too).
//
// One Case per kernel. A case owns its inputs (host and device), its CPU
// reference and one output buffer that every implementation writes into:
//   setup(size, seed)  fresh random inputs (never all zero), the reference
//   poison()           output bytes 0xFF (f32 NaN, i32 -1): a skipped store fails
//   beforeRun()        untimed per-run preparation (the reduction zeroes its sum)
//   runTile()          the .tile kernel(s), from <ptx dir>/kernels_<file>.ptx
//   check()            "" when the output matches the reference within tolerance()
#pragma once

#include "../common/sample_util.h"

#include <tile/runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kern {

// Problem sizes: Small for compute-sanitizer (TILEC_GPU_TEST_SMALL=1), Check for
// the correctness runs (every output checked), Bench for the timed runs (the
// SGEMMs at 4096^3 check a sample of outputs, everything else all of them).
enum class Size { Small, Check, Bench };
inline const char *sizeName(Size s) {
  return s == Size::Small ? "small" : s == Size::Check ? "check" : "bench";
}

// splitmix64: fast, reproducible from the seed.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi) (24 random bits).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  }
  // Uniform integer in [lo, hi].
  int32_t range(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

inline uint64_t freshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

inline std::vector<float> randomFloats(size_t n, Rng &rng, float lo, float hi) {
  std::vector<float> v(n);
  for (float &x : v)
    x = rng.uniform(lo, hi);
  return v;
}
inline std::vector<int32_t> randomInts(size_t n, Rng &rng, int32_t lo, int32_t hi) {
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = rng.range(lo, hi);
  return v;
}

inline unsigned ceilDiv(long long a, long long b) { return static_cast<unsigned>((a + b - 1) / b); }

// "" when got == want element for element (floats compared by value, so a NaN
// from the poison never matches), else the count and the first few differences.
template <class T> std::string compareExact(const std::vector<T> &want, const std::vector<T> &got) {
  if (want.size() != got.size())
    return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  size_t bad = 0;
  std::ostringstream os;
  os.precision(9);
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] == want[i])
      continue;
    if (bad < 4)
      os << " [" << i << "] got " << got[i] << " want " << want[i] << ";";
    ++bad;
  }
  if (!bad)
    return {};
  return std::to_string(bad) + " of " + std::to_string(want.size()) + " differ:" + os.str();
}

// The .tile kernels of one file: <ptx dir>/kernels_<file>.ptx + its kernel info.
inline std::string ptxPath(const std::string &file) {
  return sample::ptxDir() + "/kernels_" + file + ".ptx";
}

class Case {
public:
  virtual ~Case() = default;
  virtual const char *name() const = 0;      // the .tile file's stem
  virtual std::string shape() const = 0;     // e.g. "4096x4096x4096"
  virtual std::string tolerance() const = 0; // how check() compares
  virtual double work() const = 0;           // flops (unit GFLOP/s) or bytes (GB/s)
  virtual bool flops() const { return false; }
  virtual void setup(Size size, uint64_t seed) = 0;
  virtual void poison() = 0;
  virtual void beforeRun() {}
  virtual void runTile() = 0;
  virtual std::string check() = 0;

  // Loads the PTX of this case (throws with the path when it is missing).
  void load(tile::Context &ctx) {
    module_ = tile::Module::fromFiles(ctx, ptxPath(name()));
    kernels_.clear();
  }
  bool loaded() const { return module_.valid(); }
  // The kernel by name, looked up once (no driver call inside a timed launch).
  tile::Kernel &kernel(const std::string &k) {
    auto it = kernels_.find(k);
    if (it == kernels_.end())
      it = kernels_.emplace(k, module_.kernel(k)).first;
    return it->second;
  }

protected:
  tile::Module module_;
  std::map<std::string, tile::Kernel> kernels_;
};

inline tile::LaunchConfig grid(tile::Dim3 g, tile::Dim3 b) {
  tile::LaunchConfig c;
  c.grid = g;
  c.block = b;
  return c;
}

// ---------------------------------------------------------------- vector add
class VectorAdd : public Case {
public:
  const char *name() const override { return "vector_add"; }
  std::string shape() const override { return "n = " + std::to_string(n); }
  std::string tolerance() const override { return "exact"; }
  double work() const override { return 12.0 * n; }
  void setup(Size size, uint64_t seed) override {
    n = size == Size::Small ? 100003 : size == Size::Check ? (1 << 22) + 3 : 1 << 26;
    Rng rng(seed);
    ha = randomFloats(n, rng, -1, 1);
    hb = randomFloats(n, rng, -1, 1);
    want.resize(n);
    for (int i = 0; i < n; ++i)
      want[i] = ha[i] + hb[i];
    a = tile::DeviceBuffer<float>(n), b = tile::DeviceBuffer<float>(n);
    c = tile::DeviceBuffer<float>(n);
    a.copyFrom(ha);
    b.copyFrom(hb);
  }
  void poison() override { c.fillBytes(0xFF); }
  unsigned blocks() const { return ceilDiv(n, 256); }
  void runTile() override { kernel("vector_add").launch(grid(blocks(), 256), c, a, b, n); }
  std::string check() override { return compareExact(want, c.toHost()); }

  int32_t n = 0;
  std::vector<float> ha, hb, want;
  tile::DeviceBuffer<float> a{0}, b{0}, c{0};
};

// ---------------------------------------------------------------- reduction
class Reduce : public Case {
public:
  const char *name() const override { return "reduce"; }
  std::string shape() const override { return "n = " + std::to_string(n); }
  std::string tolerance() const override { return "exact (i32)"; }
  double work() const override { return 4.0 * n; }
  void setup(Size size, uint64_t seed) override {
    n = size == Size::Small ? 100003 : size == Size::Check ? (1 << 22) + 5 : 1 << 26;
    Rng rng(seed);
    // |values| <= 16: no partial sum of 2^26 of them leaves i32 (the twin's
    // signed adds may not overflow).
    hin = randomInts(n, rng, -16, 16);
    want = 0;
    for (int32_t x : hin)
      want += x;
    in = tile::DeviceBuffer<int32_t>(n);
    out = tile::DeviceBuffer<int32_t>(1);
    in.copyFrom(hin);
  }
  void poison() override { out.fillBytes(0xFF); }
  void beforeRun() override { out.fillBytes(0); } // the kernel adds into out[0]
  // A few blocks per SM, each thread striding over the input.
  unsigned blocks(int smCount) const { return std::min(ceilDiv(n, 256), 8u * smCount); }
  void runTile() override { kernel("reduce_sum").launch(grid(blocks(smCount), 256), out, in, n); }
  std::string check() override {
    int32_t got = out.toHost()[0];
    if (got == static_cast<int32_t>(want))
      return {};
    return "sum " + std::to_string(got) + ", want " + std::to_string(want);
  }

  int32_t n = 0;
  int smCount = 132;
  std::vector<int32_t> hin;
  long long want = 0;
  tile::DeviceBuffer<int32_t> in{0}, out{0};
};

// ---------------------------------------------------------------- transpose
class Transpose : public Case {
public:
  const char *name() const override { return "transpose"; }
  std::string shape() const override { return std::to_string(rows) + "x" + std::to_string(cols); }
  std::string tolerance() const override { return "exact"; }
  double work() const override { return 8.0 * rows * cols; }
  void setup(Size size, uint64_t seed) override {
    rows = size == Size::Small ? 100 : size == Size::Check ? 1027 : 8192;
    cols = size == Size::Small ? 77 : size == Size::Check ? 2051 : 8192;
    Rng rng(seed);
    hin = randomFloats(size_t(rows) * cols, rng, -1, 1);
    want.resize(hin.size());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        want[size_t(j) * rows + i] = hin[size_t(i) * cols + j];
    in = tile::DeviceBuffer<float>(hin.size());
    out = tile::DeviceBuffer<float>(hin.size());
    in.copyFrom(hin);
  }
  void poison() override { out.fillBytes(0xFF); }
  tile::Dim3 gridDim() const { return tile::Dim3(ceilDiv(cols, 32), ceilDiv(rows, 32)); }
  void runTile() override {
    kernel("transpose").launch(grid(gridDim(), tile::Dim3(32, 8)), out, in, rows, cols);
  }
  std::string check() override { return compareExact(want, out.toHost()); }

  int32_t rows = 0, cols = 0;
  std::vector<float> hin, want;
  tile::DeviceBuffer<float> in{0}, out{0};
};

// ---------------------------------------------------------------- SGEMM (both kernels)
// C = A * B, row major. The reference is computed in double; an output passes
// when |got - ref| <= 2^-18 * sum_k |a_ik * b_kj| (about 70 standard deviations of
// the rounding error of an f32 dot product over the inputs' uniform [-1, 1)).
// Bench size (4096^3): 4096 sampled outputs (the four corners included).
class Sgemm : public Case {
public:
  Sgemm(const char *file, const char *kernelName) : file_(file), kernel_(kernelName) {}
  const char *name() const override { return file_; }
  std::string shape() const override {
    return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  }
  std::string tolerance() const override { return "|err| <= 2^-18 * sum|a*b|"; }
  double work() const override { return 2.0 * M * N * K; }
  bool flops() const override { return true; }
  void setup(Size size, uint64_t seed) override {
    // Multiples of 128 (M, N) and 32 (K), as both kernels require; not square,
    // so swapped extents show.
    M = size == Size::Small ? 256 : size == Size::Check ? 512 : 4096;
    N = size == Size::Small ? 128 : size == Size::Check ? 384 : 4096;
    K = size == Size::Small ? 64 : size == Size::Check ? 640 : 4096;
    Rng rng(seed);
    ha = randomFloats(size_t(M) * K, rng, -1, 1);
    hb = randomFloats(size_t(K) * N, rng, -1, 1);
    samples.clear();
    if (size == Size::Bench) {
      samples = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
      while (samples.size() < 4096)
        samples.push_back({rng.range(0, M - 1), rng.range(0, N - 1)});
    } else {
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
          samples.push_back({i, j});
    }
    ref.resize(samples.size());
    bound.resize(samples.size());
    std::vector<double> bt(size_t(K) * N); // B transposed, so the dot products stream
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j)
        bt[size_t(j) * K + k] = hb[size_t(k) * N + j];
    for (size_t s = 0; s < samples.size(); ++s) {
      const float *arow = &ha[size_t(samples[s].first) * K];
      const double *bcol = &bt[size_t(samples[s].second) * K];
      double acc = 0, abs = 0;
      for (int k = 0; k < K; ++k) {
        double p = double(arow[k]) * bcol[k];
        acc += p;
        abs += std::fabs(p);
      }
      ref[s] = acc;
      bound[s] = abs;
    }
    a = tile::DeviceBuffer<float>(ha.size());
    b = tile::DeviceBuffer<float>(hb.size());
    c = tile::DeviceBuffer<float>(size_t(M) * N);
    a.copyFrom(ha);
    b.copyFrom(hb);
  }
  void poison() override { c.fillBytes(0xFF); }
  tile::Dim3 gridDim() const {
    // sgemm_smem: (M / 32, N / 32) (block x walks rows, as in the worklog);
    // sgemm_2d: (N / 128, M / 128).
    if (std::strcmp(kernel_, "sgemm_smem") == 0)
      return tile::Dim3(ceilDiv(M, 32), ceilDiv(N, 32));
    return tile::Dim3(ceilDiv(N, 128), ceilDiv(M, 128));
  }
  unsigned threads() const { return std::strcmp(kernel_, "sgemm_smem") == 0 ? 1024 : 256; }
  void runTile() override { kernel(kernel_).launch(grid(gridDim(), threads()), c, a, b, M, N, K); }
  std::string check() override {
    std::vector<float> got = c.toHost();
    size_t bad = 0;
    std::ostringstream os;
    os.precision(9);
    for (size_t s = 0; s < samples.size(); ++s) {
      float g = got[size_t(samples[s].first) * N + samples[s].second];
      double err = std::fabs(double(g) - ref[s]);
      if (err <= std::ldexp(bound[s], -18)) // false for NaN
        continue;
      if (bad < 4)
        os << " C[" << samples[s].first << "," << samples[s].second << "] got " << g << " want "
           << ref[s] << ";";
      ++bad;
    }
    if (!bad)
      return {};
    return std::to_string(bad) + " of " + std::to_string(samples.size()) +
           " checked outputs differ:" + os.str();
  }

  int32_t M = 0, N = 0, K = 0;
  std::vector<float> ha, hb;
  std::vector<std::pair<int, int>> samples;
  std::vector<double> ref, bound;
  tile::DeviceBuffer<float> a{0}, b{0}, c{0};

private:
  const char *file_, *kernel_;
};

// ---------------------------------------------------------------- softmax
// Reference in double from the f32 inputs; an output passes when
// |got - ref| <= 2e-5 * ref (the f32 subtraction x - max alone costs up to
// 20 * 2^-24 ~ 1.2e-6 relative through exp; the sums add a little).
class Softmax : public Case {
public:
  const char *name() const override { return "softmax"; }
  std::string shape() const override { return std::to_string(rows) + "x" + std::to_string(cols); }
  std::string tolerance() const override { return "|err| <= 2e-5 * ref"; }
  double work() const override { return 8.0 * rows * cols; }
  void setup(Size size, uint64_t seed) override {
    rows = size == Size::Small ? 64 : size == Size::Check ? 1000 : 8192;
    cols = size == Size::Small ? 300 : size == Size::Check ? 1000 : 4096;
    Rng rng(seed);
    hin = randomFloats(size_t(rows) * cols, rng, -10, 10);
    want.resize(hin.size());
    for (int r = 0; r < rows; ++r) {
      const float *x = &hin[size_t(r) * cols];
      double m = -INFINITY, s = 0;
      for (int j = 0; j < cols; ++j)
        m = std::max(m, double(x[j]));
      for (int j = 0; j < cols; ++j)
        s += std::exp(double(x[j]) - m);
      for (int j = 0; j < cols; ++j)
        want[size_t(r) * cols + j] = std::exp(double(x[j]) - m) / s;
    }
    in = tile::DeviceBuffer<float>(hin.size());
    out = tile::DeviceBuffer<float>(hin.size());
    in.copyFrom(hin);
  }
  void poison() override { out.fillBytes(0xFF); }
  void runTile() override { kernel("softmax").launch(grid(unsigned(rows), 256), out, in, cols); }
  std::string check() override {
    std::vector<float> got = out.toHost();
    size_t bad = 0;
    std::ostringstream os;
    os.precision(9);
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::fabs(double(got[i]) - want[i]) <= 2e-5 * want[i])
        continue;
      if (bad < 4)
        os << " [" << i / cols << "," << i % cols << "] got " << got[i] << " want " << want[i]
           << ";";
      ++bad;
    }
    if (!bad)
      return {};
    return std::to_string(bad) + " of " + std::to_string(got.size()) + " differ:" + os.str();
  }

  int32_t rows = 0, cols = 0;
  std::vector<float> hin;
  std::vector<double> want;
  tile::DeviceBuffer<float> in{0}, out{0};
};

// ---------------------------------------------------------------- split-KV combine
// merge_states: S partial attention outputs per row (128 columns, f32) and
// their log-sum-exp merged into one. About 1 in 8 partial states is empty
// (lse -inf) and row 0 has no key at all (output 0, lse -inf).
class MergeStates : public Case {
public:
  static constexpr int D = 128;
  const char *name() const override { return "merge_states"; }
  std::string shape() const override {
    return std::to_string(rows) + " rows x " + std::to_string(splits) + " splits";
  }
  std::string tolerance() const override { return "|err| <= 1e-5 * sum w|o|, lse 1e-5"; }
  double work() const override { return 4.0 * (double(splits) * rows * (D + 1) + rows * (D + 1)); }
  void setup(Size size, uint64_t seed) override {
    rows = size == Size::Small ? 96 : size == Size::Check ? 4096 : 32768;
    splits = size == Size::Small ? 5 : size == Size::Check ? 37 : 16;
    Rng rng(seed);
    ho = randomFloats(size_t(splits) * rows * D, rng, -1, 1);
    hlse.resize(size_t(splits) * rows);
    for (size_t i = 0; i < hlse.size(); ++i)
      hlse[i] = rng.range(0, 7) == 0 ? -INFINITY : rng.uniform(-20, 20);
    for (int s = 0; s < splits; ++s)
      hlse[size_t(s) * rows] = -INFINITY; // row 0: every chunk empty
    want.assign(size_t(rows) * D, 0.0);
    bound.assign(size_t(rows) * D, 0.0);
    wantLse.assign(rows, -INFINITY);
    for (int r = 0; r < rows; ++r) {
      double m = -INFINITY, sum = 0;
      for (int s = 0; s < splits; ++s)
        m = std::max(m, double(hlse[size_t(s) * rows + r]));
      if (m == -INFINITY)
        continue;
      for (int s = 0; s < splits; ++s)
        sum += std::exp(double(hlse[size_t(s) * rows + r]) - m);
      wantLse[r] = m + std::log(sum);
      for (int s = 0; s < splits; ++s) {
        double w = std::exp(double(hlse[size_t(s) * rows + r]) - m) / sum;
        for (int d = 0; d < D; ++d) {
          double x = ho[(size_t(s) * rows + r) * D + d];
          want[size_t(r) * D + d] += w * x;
          bound[size_t(r) * D + d] += w * std::fabs(x);
        }
      }
    }
    o = tile::DeviceBuffer<float>(ho.size());
    lse = tile::DeviceBuffer<float>(hlse.size());
    out = tile::DeviceBuffer<float>(size_t(rows) * D);
    lseOut = tile::DeviceBuffer<float>(rows);
    o.copyFrom(ho);
    lse.copyFrom(hlse);
  }
  void poison() override {
    out.fillBytes(0xFF);
    lseOut.fillBytes(0xFF);
  }
  void runTile() override {
    kernel("merge_states").launch(grid(unsigned(rows), 128), out, lseOut, o, lse, splits, rows);
  }
  std::string check() override {
    std::vector<float> got = out.toHost(), gotLse = lseOut.toHost();
    size_t bad = 0;
    std::ostringstream os;
    os.precision(9);
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::fabs(double(got[i]) - want[i]) <= 1e-5 * bound[i])
        continue;
      if (bad < 4)
        os << " out[" << i / D << "," << i % D << "] got " << got[i] << " want " << want[i] << ";";
      ++bad;
    }
    for (int r = 0; r < rows; ++r) {
      double g = gotLse[r], w = wantLse[r];
      if (w == -INFINITY ? g == -INFINITY : std::fabs(g - w) <= 1e-5 * (std::fabs(w) + 1))
        continue;
      if (bad < 4)
        os << " lse[" << r << "] got " << g << " want " << w << ";";
      ++bad;
    }
    if (!bad)
      return {};
    return std::to_string(bad) + " of " + std::to_string(got.size() + rows) + " differ:" + os.str();
  }

  int32_t rows = 0, splits = 0;
  std::vector<float> ho, hlse;
  std::vector<double> want, bound, wantLse;
  tile::DeviceBuffer<float> o{0}, lse{0}, out{0}, lseOut{0};
};

// ---------------------------------------------------------------- inclusive scan
// Block scan + carry: scan_block over 1024-element blocks writes each block's
// total; the totals are scanned the same way (recursively, one level per factor
// of 1024); add_carry adds block b's carry-in (the scanned total of blocks
// 0 .. b-1). ScanLevels holds the per-level buffers; the recursion is shared by
// the .tile kernels and the twin (bench.cu), which pass their own launchers.
class Scan : public Case {
public:
  using ScanBlockFn = std::function<void(CUdeviceptr out, CUdeviceptr in, CUdeviceptr sums,
                                         int32_t n, unsigned blocks)>;
  using AddCarryFn =
      std::function<void(CUdeviceptr out, CUdeviceptr carries, int32_t n, unsigned blocks)>;

  const char *name() const override { return "scan"; }
  std::string shape() const override { return "n = " + std::to_string(n); }
  std::string tolerance() const override { return "exact (i32)"; }
  double work() const override { return 8.0 * n; }
  void setup(Size size, uint64_t seed) override {
    n = size == Size::Small ? 100003 : size == Size::Check ? (1 << 22) + 7 : 1 << 26;
    Rng rng(seed);
    hin = randomInts(n, rng, -16, 16); // |prefix| <= 2^30: no i32 overflow
    want.resize(n);
    int32_t s = 0;
    for (int32_t i = 0; i < n; ++i)
      want[i] = s += hin[i];
    in = tile::DeviceBuffer<int32_t>(n);
    out = tile::DeviceBuffer<int32_t>(n);
    in.copyFrom(hin);
    sums.clear();
    scanned.clear();
    for (long long m = ceilDiv(n, 1024); m > 1; m = ceilDiv(m, 1024)) {
      sums.emplace_back(size_t(m));
      scanned.emplace_back(size_t(m));
    }
    sums.emplace_back(1); // the last level's single total (written, not read)
  }
  void poison() override {
    out.fillBytes(0xFF);
    for (auto &b : scanned)
      b.fillBytes(0xFF);
  }
  void run(const ScanBlockFn &scanBlock, const AddCarryFn &addCarry) {
    level(scanBlock, addCarry, out.ptr(), in.ptr(), n, 0);
  }
  void runTile() override {
    tile::Kernel &sb = kernel("scan_block"), &ac = kernel("add_carry");
    run([&](CUdeviceptr o, CUdeviceptr i, CUdeviceptr s, int32_t m,
            unsigned blocks) { sb.launch(grid(blocks, 1024), o, i, s, m); },
        [&](CUdeviceptr o, CUdeviceptr c, int32_t m, unsigned blocks) {
          ac.launch(grid(blocks, 1024), o, c, m);
        });
  }
  std::string check() override { return compareExact(want, out.toHost()); }

  int32_t n = 0;
  std::vector<int32_t> hin, want;
  tile::DeviceBuffer<int32_t> in{0}, out{0};
  std::vector<tile::DeviceBuffer<int32_t>> sums, scanned; // per level

private:
  void level(const ScanBlockFn &scanBlock, const AddCarryFn &addCarry, CUdeviceptr o, CUdeviceptr i,
             int32_t m, size_t lv) {
    unsigned blocks = ceilDiv(m, 1024);
    scanBlock(o, i, sums[lv].ptr(), m, blocks);
    if (blocks > 1) {
      level(scanBlock, addCarry, scanned[lv].ptr(), sums[lv].ptr(), int32_t(blocks), lv + 1);
      addCarry(o, scanned[lv].ptr(), m, blocks);
    }
  }
};

// ---------------------------------------------------------------- single-pass scan
// The same scan with a decoupled look-back (scan_lookback.tile): one launch of
// ceil(n / 1024) blocks; status (one i64 per tile) and the tile counter are
// zeroed before each run (untimed, as the reduction's sum).
class ScanLookback : public Scan {
public:
  const char *name() const override { return "scan_lookback"; }
  void setup(Size size, uint64_t seed) override {
    Scan::setup(size, seed);
    status = tile::DeviceBuffer<int64_t>(tiles());
    counter = tile::DeviceBuffer<int32_t>(1);
  }
  unsigned tiles() const { return ceilDiv(n, 1024); }
  void beforeRun() override {
    status.fillBytes(0);
    counter.fillBytes(0);
  }
  void runTile() override {
    kernel("scan_lookback").launch(grid(tiles(), 1024), out, in, status, counter, n);
  }

  tile::DeviceBuffer<int64_t> status{0};
  tile::DeviceBuffer<int32_t> counter{0};
};

// ---------------------------------------------------------------- stencil
// One Jacobi step; the reference uses the kernels' exact operation order and
// the multiply by 0.25 is exact, so the result is compared exactly.
class Stencil : public Case {
public:
  const char *name() const override { return "stencil5"; }
  std::string shape() const override { return std::to_string(rows) + "x" + std::to_string(cols); }
  std::string tolerance() const override { return "exact"; }
  double work() const override { return 8.0 * rows * cols; }
  void setup(Size size, uint64_t seed) override {
    rows = size == Size::Small ? 100 : size == Size::Check ? 1001 : 8192;
    cols = size == Size::Small ? 77 : size == Size::Check ? 1999 : 8192;
    Rng rng(seed);
    hin = randomFloats(size_t(rows) * cols, rng, -1, 1);
    want.resize(hin.size());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        size_t c = size_t(i) * cols + j;
        if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
          want[c] = hin[c];
        else
          want[c] = 0.25f * ((hin[c - cols] + hin[c + cols]) + (hin[c - 1] + hin[c + 1]));
      }
    in = tile::DeviceBuffer<float>(hin.size());
    out = tile::DeviceBuffer<float>(hin.size());
    in.copyFrom(hin);
  }
  void poison() override { out.fillBytes(0xFF); }
  tile::Dim3 gridDim() const { return tile::Dim3(ceilDiv(cols, 32), ceilDiv(rows, 8)); }
  void runTile() override {
    kernel("stencil5").launch(grid(gridDim(), tile::Dim3(32, 8)), out, in, rows, cols);
  }
  std::string check() override { return compareExact(want, out.toHost()); }

  int32_t rows = 0, cols = 0;
  std::vector<float> hin, want;
  tile::DeviceBuffer<float> in{0}, out{0};
};

// Every case, in the order the programs run them.
inline std::vector<std::unique_ptr<Case>> allCases() {
  std::vector<std::unique_ptr<Case>> v;
  v.emplace_back(new VectorAdd);
  v.emplace_back(new Reduce);
  v.emplace_back(new Transpose);
  v.emplace_back(new Sgemm("sgemm_smem", "sgemm_smem"));
  v.emplace_back(new Sgemm("sgemm_2d", "sgemm_2d"));
  v.emplace_back(new Softmax);
  v.emplace_back(new MergeStates);
  v.emplace_back(new Scan);
  v.emplace_back(new ScanLookback);
  v.emplace_back(new Stencil);
  return v;
}

// The .tile files the build compiles today (TILEC_KERNELS_READY from
// samples/kernels/CMakeLists.txt, comma separated); the others wait for
// language features and are reported as such when their PTX is missing.
inline bool isReady(const std::string &name) {
#ifdef TILEC_KERNELS_READY
  std::string list = std::string(",") + TILEC_KERNELS_READY + ",";
  return list.find("," + name + ",") != std::string::npos;
#else
  (void)name;
  return true;
#endif
}

inline bool fileExists(const std::string &path) { return static_cast<bool>(std::ifstream(path)); }

// Median and minimum of `runs` event-timed calls of launch() after `warmup`
// untimed ones; before() runs untimed before each.
struct Timing {
  double median = -1, min = -1;
};
inline Timing timeRuns(const std::function<void()> &before, const std::function<void()> &launch,
                       int warmup, int runs) {
  for (int w = 0; w < warmup; ++w) {
    before();
    launch();
  }
  std::vector<float> ms;
  for (int r = 0; r < runs; ++r) {
    before();
    tile::EventTimer t;
    t.start();
    launch();
    ms.push_back(t.stopMs());
  }
  std::sort(ms.begin(), ms.end());
  Timing t;
  t.median = runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
  t.min = ms.front();
  return t;
}

// "12.3 GFLOP/s"-style rate of `work` in `ms`.
inline std::string rate(const Case &c, double ms) {
  if (ms <= 0)
    return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.1f %s", c.work() / (ms * 1e6), c.flops() ? "GFLOP/s" : "GB/s");
  return b;
}

} // namespace kern
