// samples/gemm: what the host program shares between its check and bench
// modes, plain C++17 + the tilec runtime (no nvcc):
//   - f16 / bf16 bits <-> float (round to nearest even, as cvt.rn does);
//   - fresh normal random data from a seed (counter-based, so the values do
//     not depend on the number of host threads that draw them);
//   - the float64 CPU reference (all rows, or evenly spread rows on large
//     problems) and the relative Frobenius error;
//   - the .tile kernel's contract (README.md, "The .tile kernel"): where its
//     PTX is, which kernel instance a variant is, its tile, the shapes it
//     accepts and its persistent launch.
#pragma once

#include "../common/sample_util.h"

#include <tile/runtime.h>
#include <tile/tensor_map.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gemm {

enum class DType { F16, BF16 };
enum class BMajor { K, MN }; // B stored [N, K] (K inner) or [K, N] (N inner)

inline const char *dtypeName(DType d) { return d == DType::F16 ? "f16" : "bf16"; }
/// A --dtype / --dtypes item: f16 or bf16 (else the program's usage message).
inline DType dtypeNamed(const std::string &s, sample::ArgReader &r) {
  if (s != "f16" && s != "bf16")
    r.fail("bad dtype '" + s + "' (f16 or bf16)");
  return s == "f16" ? DType::F16 : DType::BF16;
}
inline const char *bmajorName(BMajor b) { return b == BMajor::K ? "k" : "mn"; }
inline tile::TensorElement tensorElement(DType d) {
  return d == DType::F16 ? tile::TensorElement::F16 : tile::TensorElement::BF16;
}
// The tolerance on the relative Frobenius error: 8 mantissa bits
// of bf16 vs 11 of f16 in the inputs and in the rounded output.
inline double tolerance(DType d) { return d == DType::F16 ? 2e-3 : 1e-2; }

// ---------------------------------------------------------------- 16-bit floats
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// float -> IEEE binary16, round to nearest even; overflow to inf, NaN kept quiet.
inline uint16_t floatToHalf(float f) {
  const uint32_t x = floatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf or NaN
    return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  if (absx >= 0x477ff000u) // rounds to >= 65520: inf
    return uint16_t(sign | 0x7c00u);
  if (absx < 0x38800000u) { // below the smallest normal half (2^-14): subnormal or 0
    // value * 2^24 rounded to an integer is the subnormal's mantissa.
    const float scaled = bitsFloat(absx) * 16777216.0f; // exact (power of two)
    const float r = std::nearbyint(scaled);             // default mode: nearest even
    return uint16_t(sign | uint32_t(r));
  }
  // Normal: rebias the exponent, round 13 dropped bits to nearest even.
  uint32_t mant = absx + 0xc8000000u; // exponent - 112 (127 - 15) << 23
  const uint32_t lsb = (mant >> 13) & 1u;
  mant += 0xfffu + lsb;
  return uint16_t(sign | (mant >> 13));
}

inline float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) // zero or subnormal: mant * 2^-24
    return bitsFloat(sign) + (sign ? -1.0f : 1.0f) * float(mant) * 5.9604644775390625e-8f;
  if (exp == 31)
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

// float -> bfloat16, round to nearest even; NaN kept quiet.
inline uint16_t floatToBf16(float f) {
  const uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((x >> 16) | 0x40u);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
inline float bf16ToFloat(uint16_t b) { return bitsFloat(uint32_t(b) << 16); }

inline uint16_t toBits(DType d, float f) {
  return d == DType::F16 ? floatToHalf(f) : floatToBf16(f);
}
inline float fromBits(DType d, uint16_t b) {
  return d == DType::F16 ? halfToFloat(b) : bf16ToFloat(b);
}
inline bool isNanBits(DType d, uint16_t b) {
  return d == DType::F16 ? (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu)
                         : (b & 0x7f80u) == 0x7f80u && (b & 0x7fu);
}

// ---------------------------------------------------------------- work split
// f(begin, end) over [0, n) on the host's cores.
inline void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &f) {
  const int64_t workers =
      std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < workers; ++w)
    pool.emplace_back([&, w] { f(n * w / workers, n * (w + 1) / workers); });
  for (std::thread &t : pool)
    t.join();
}

// ---------------------------------------------------------------- random data
// Element i of stream `stream` is a standard normal value from
// (seed, stream, i) alone: splitmix64 of the counter gives two uniforms,
// Box-Muller one normal.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
inline float normalAt(uint64_t seed, uint64_t stream, uint64_t i) {
  const uint64_t r = splitmix64(splitmix64(seed ^ (stream * 0xd1b54a32d192ed03ull)) + i);
  const double u1 = (double((r >> 11) & ((1ull << 26) - 1)) + 0.5) / double(1ull << 26); // (0, 1)
  const double u2 = double(r >> 37) / double(1ull << 27);                                // [0, 1)
  return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}
// n normal values rounded to `d`, as the 16-bit patterns the GPU reads.
inline std::vector<uint16_t> randomNormal(DType d, size_t n, uint64_t seed, uint64_t stream) {
  std::vector<uint16_t> v(n);
  parallelFor(int64_t(n), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      v[size_t(i)] = toBits(d, normalAt(seed, stream, uint64_t(i)));
  });
  return v;
}

// ---------------------------------------------------------------- problem
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::F16;
  BMajor bmajor = BMajor::K;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  std::string shape() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  // B[kk, j] of the logical [K, N] matrix in its storage order.
  size_t bIndex(int64_t kk, int64_t j) const {
    return bmajor == BMajor::K ? size_t(j * k + kk) : size_t(kk * n + j);
  }
};

// ---------------------------------------------------------------- references
// Rows of C the float64 reference computes: all of them when M*N*K <= maxMacs,
// else about maxMacs / (N*K) rows spread evenly over M (first and last
// included), so large problems are still checked against float64 on a sample.
inline std::vector<int64_t> referenceRows(const Problem &p, double maxMacs) {
  const double perRow = double(p.n) * double(p.k);
  int64_t want = int64_t(std::max(1.0, std::floor(maxMacs / perRow)));
  std::vector<int64_t> rows;
  if (want >= p.m) {
    for (int64_t i = 0; i < p.m; ++i)
      rows.push_back(i);
    return rows;
  }
  want = std::max<int64_t>(want, 2);
  for (int64_t r = 0; r < want; ++r)
    rows.push_back(r * (p.m - 1) / (want - 1));
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

// C[row, :] in float64 from the 16-bit inputs, for each row of `rows`
// (result: rows.size() x N, row-major).
inline std::vector<double> referenceGemm(const Problem &p, const std::vector<uint16_t> &a,
                                         const std::vector<uint16_t> &b,
                                         const std::vector<int64_t> &rows) {
  // B as [N][K] doubles so the inner loop is contiguous in both operands.
  std::vector<double> bt(size_t(p.n * p.k));
  parallelFor(p.n, [&](int64_t jb, int64_t je) {
    for (int64_t j = jb; j < je; ++j)
      for (int64_t kk = 0; kk < p.k; ++kk)
        bt[size_t(j * p.k + kk)] = fromBits(p.dtype, b[p.bIndex(kk, j)]);
  });
  std::vector<double> c(rows.size() * size_t(p.n));
  parallelFor(int64_t(rows.size()), [&](int64_t rb, int64_t re) {
    std::vector<double> arow(size_t(p.k));
    for (int64_t r = rb; r < re; ++r) {
      const int64_t i = rows[size_t(r)];
      for (int64_t kk = 0; kk < p.k; ++kk)
        arow[size_t(kk)] = fromBits(p.dtype, a[size_t(i * p.k + kk)]);
      for (int64_t j = 0; j < p.n; ++j) {
        const double *bj = &bt[size_t(j * p.k)];
        double s = 0;
        for (int64_t kk = 0; kk < p.k; ++kk)
          s += arow[size_t(kk)] * bj[kk];
        c[size_t(r) * size_t(p.n) + size_t(j)] = s;
      }
    }
  });
  return c;
}

struct Comparison {
  double relFrobenius = 0; // ||got - want||_F / ||want||_F over the compared elements
  double maxAbs = 0;       // largest |got - want|
  int64_t nonFinite = 0;   // NaN/inf in `got` (the poison pattern left where nothing was written)
  int64_t firstNonFinite = -1; // its linear index in C
  int64_t compared = 0;
};

// `got` (the GPU's M x N 16-bit C) against `want(r, j)` at the rows listed
// (want row r is C row rows[r]).
template <class Want>
Comparison compareRows(const Problem &p, const std::vector<uint16_t> &got,
                       const std::vector<int64_t> &rows, Want want) {
  Comparison c;
  double num = 0, den = 0;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t j = 0; j < p.n; ++j) {
      const size_t idx = size_t(rows[r] * p.n + j);
      const double g = fromBits(p.dtype, got[idx]);
      const double w = want(r, j);
      ++c.compared;
      if (!std::isfinite(g)) {
        if (c.nonFinite++ == 0)
          c.firstNonFinite = int64_t(idx);
        continue;
      }
      num += (g - w) * (g - w);
      den += w * w;
      c.maxAbs = std::max(c.maxAbs, std::fabs(g - w));
    }
  c.relFrobenius = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

inline std::vector<int64_t> allRows(const Problem &p) {
  std::vector<int64_t> rows(size_t(p.m));
  for (int64_t i = 0; i < p.m; ++i)
    rows[size_t(i)] = i;
  return rows;
}

// ---------------------------------------------------------------- H100 floor
// The dense f16/bf16 tensor-core peak of an H100 SXM5 (NVIDIA H100 datasheet:
// 989.4 TFLOP/s = 132 SMs x 4096 FLOP per SM per clock (wgmma, dense 16-bit
// inputs) x 1.83 GHz boost clock). Not a compiler target fact: a product
// figure the benchmark draws as the physical floor line.
inline constexpr double kH100SxmDenseTflops = 989.4;
inline constexpr double kDenseFlopsPerSmPerClock = 4096; // f16/bf16 wgmma, sm_90

// ---------------------------------------------------------------- the .tile kernel
// The contract with samples/gemm/gemm.tile (README.md, "The contract"):
//   PTX gemm_<f16|bf16>_<mc|nomc>.ptx (+ .info.json) in the PTX directory:
//     mc   compiled for cluster(2, 1, 1): the 2 CTAs of a cluster compute 2
//          consecutive 128-row tiles of one BN-column tile and multicast the
//          B tile (each loads half);
//     nomc the same source compiled with --cluster=1 (every CTA loads its B).
//   Persistent kernels gemm<BN> (B: tensor<T>[N, K], K-major) and gemm_bmn<BN>
//   (B: tensor<T>[K, N], MN-major), each (A: tensor<T>[M, K], B, C: tensor<T>[M, N]),
//   an exact threads(...): any grid of whole clusters covers all tiles
//   (cluster c takes work units c, c + clusters, ...).
//   Split-K kernels gemm_splitk<BN> / gemm_splitk_bmn<BN> (cluster 2 in mc,
//   A multicast; 1 in nomc), the same tensors then (W: ptr<f32>, flags:
//   ptr<i32>, splits: i32), grid (tiles, splits) where tiles counts every
//   row of output tiles padded to whole clusters; W holds splits x tiles x
//   128 x BN f32, flags one i32 per tile, zero before the first launch (the
//   kernel leaves them zero again).
// The tile is BM x BN x BK = 128 x BN x 64. Any M, N, K with 16-byte row
// strides (alignmentProblem, below): edge tiles are whole tiles whose
// loads TMA zero-fills outside the tensors and whose stores TMA clips.
inline constexpr int64_t kTileM = 128;
inline constexpr int64_t kTileK = 64;
// Every gemm.tile and gemm_skinny.tile kernel's last compile-time parameter
// is the epilogue's activation ACT; the host runs the GEMM without one (the
// instances the build compiles; tilec.ops.linear's activations are ACT > 0).
inline constexpr int64_t kNoActivation = 0;
// gemm_m64 (gemm.tile): the persistent kernel with 64-row tiles, one
// consumer warpgroup (K-major B).
inline constexpr int64_t kTileM64 = 64;

// The one rule left on M, N, K. The kernels take A, B, C as TMA tensor maps,
// and cuTensorMapEncodeTiled needs a 16-byte aligned base (cudaMalloc gives
// 256) and every stride but the innermost a multiple of 16 bytes: the row
// strides K * 2 (A, K-major B) and N * 2 (C, MN-major B) bytes. Edge tiles
// need nothing: TMA zero-fills loads outside the tensor and clips stores.
// "" when the shape is fine, else why not (every broken rule).
inline std::string alignmentProblem(const Problem &p) {
  if (p.m < 1 || p.n < 1 || p.k < 1)
    return "M, N and K must be positive";
  const int64_t elem = 2; // f16 / bf16
  std::string why;
  auto rule = [&](const char *dim, int64_t v, const char *rows) {
    if (v * elem % 16 == 0)
      return;
    why += std::string(why.empty() ? "" : "; ") + dim + " = " + std::to_string(v) + ": the rows of " +
           rows + " are " + std::to_string(v * elem) + " bytes apart, not a multiple of 16";
  };
  rule("K", p.k, p.bmajor == BMajor::K ? "A [M, K] and B [N, K]" : "A [M, K]");
  rule("N", p.n, p.bmajor == BMajor::K ? "C [M, N]" : "C [M, N] and B [K, N]");
  if (!why.empty())
    why += " (TMA: a tensor map's strides are multiples of 16 bytes, so N and K must be "
           "multiples of 8 for 16-bit elements; any M is fine)";
  return why;
}

// cluster 4 (with multicast): gemm_<dtype>_mc4.ptx, gemm.tile compiled with
// --cluster=4 (the persistent kernel at BN 200 only).
inline std::string ptxName(DType d, bool multicast, int cluster = 2) {
  return std::string("gemm_") + dtypeName(d) +
         (!multicast ? "_nomc" : cluster == 4 ? "_mc4" : "_mc") + ".ptx";
}
// gemm_skinny.tile's PTX (no cluster: one build per dtype).
inline std::string skinnyPtxName(DType d) {
  return std::string("gemm_skinny_") + dtypeName(d) + ".ptx";
}

struct TileKernel {
  tile::Module module;
  tile::Kernel kernel;
  unsigned threads = 0;
  int cluster = 1;  // CTAs per cluster (the skinny kernel's CL; gemm_skinny2d: its CX)
  int clusterY = 1; // gemm_skinny2d: CY, the cluster's extent along y
  bool dsm = false; // gemm_skinny_dsm: `cluster` is KS, the K splits of one tile
  int64_t bn = 0;
  int64_t bm = kTileM; // the persistent kernel's tile rows (gemm_m64: 64)
};

// The cluster size and BN of the kernel `name` (instance BN = bn, or the
// largest compiled BN when bn == 0) from a .info.json alone (no device):
// what the shape check needs before anything runs. Throws when the file or
// the kernel is missing.
struct KernelShape {
  int cluster = 1;
  int64_t bn = 0;
  std::string entry; // the PTX entry of the instance
};
inline KernelShape kernelShapeFromInfo(const tile::ModuleInfo &info, const std::string &name,
                                       int64_t bn, const std::string &where) {
  KernelShape best;
  std::string compiled;
  for (const tile::KernelInfo &k : info.kernels) {
    const std::string src = k.sourceName.empty() ? k.name : k.sourceName;
    if (src != name)
      continue;
    int64_t kbn = 0;
    for (const auto &[param, value] : k.templateArgs)
      if (param == "BN")
        kbn = value;
    compiled += (compiled.empty() ? "" : ", ") + k.name;
    if (!kbn || (bn && kbn != bn) || kbn <= best.bn)
      continue;
    best.bn = kbn;
    best.cluster = std::max(1, sample::fixedClusterSize(k));
    best.entry = k.name;
  }
  if (!best.bn)
    throw std::runtime_error(
        where + ": no instance of kernel '" + name + "'" +
        (bn ? " with BN = " + std::to_string(bn) : std::string()) +
        (compiled.empty() ? std::string(" (none compiled)") : " (compiled: " + compiled + ")"));
  return best;
}

// `more`: the instance's value parameters besides BN (split-K with two CTAs
// per SM: its stages S).
inline TileKernel loadTileKernel(tile::Context &ctx, const std::string &ptxPath,
                                 const std::string &name, int64_t bn,
                                 const tile::TemplateArgs &more = {}) {
  TileKernel t;
  t.module = tile::Module::fromFiles(ctx, ptxPath);
  const KernelShape s = kernelShapeFromInfo(*t.module.info(), name, bn, ptxPath);
  tile::TemplateArgs args{{"BN", s.bn}};
  args.insert(args.end(), more.begin(), more.end());
  args.emplace_back("ACT", kNoActivation);
  t.kernel = t.module.kernel(name, args);
  const tile::KernelInfo &info = *t.kernel.info();
  if (!info.threads)
    throw std::runtime_error(ptxPath + ": kernel " + s.entry + " declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  t.cluster = s.cluster;
  t.bn = s.bn;
  return t;
}

// The kernel's tensors: A [M, K], B [N, K] or [K, N], C [M, N], row-major.
struct Tensors {
  tile::Tensor a, b, c;
  // Every gemm.tile / gemm_skinny.tile kernel ends with (bias, bias_n): the
  // bias of C's first bias_n columns, fused into the epilogue (tilec.ops.linear).
  // The host runs C = A * B: bias_n = 0, and the pointer (C's, any device
  // address: the kernel never reads it then) only satisfies the launch's
  // null-pointer check.
  CUdeviceptr bias = 0;
  int32_t biasN = 0;
};
inline Tensors tensorsOf(const Problem &p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
  const tile::TensorElement e = tensorElement(p.dtype);
  tile::TensorShape bShape =
      p.bmajor == BMajor::K ? tile::TensorShape{p.n, p.k} : tile::TensorShape{p.k, p.n};
  return {tile::Tensor(a, e, {p.m, p.k}), tile::Tensor(b, e, std::move(bShape)),
          tile::Tensor(c, e, {p.m, p.n}), c, 0};
}

// The persistent grid: as many clusters as are resident at once (or
// `clusters` when > 0), never more than there are cluster work units.
inline int64_t persistentClusters(TileKernel &t, const Problem &p, const Tensors &ts,
                                  int64_t clusters) {
  const int64_t units = ((p.m + t.bm * t.cluster - 1) / (t.bm * t.cluster)) *
                        ((p.n + t.bn - 1) / t.bn); // edge tiles are whole units
  if (clusters <= 0) {
    tile::LaunchConfig probe;
    probe.grid = tile::Dim3(unsigned(t.cluster));
    probe.block = tile::Dim3(t.threads);
    clusters = t.kernel.maxActiveClusters(probe, ts.a, ts.b, ts.c, ts.bias, ts.biasN);
    if (clusters < 1)
      throw std::runtime_error("no cluster of the GEMM kernel fits on the GPU (occupancy 0)");
  }
  return std::max<int64_t>(1, std::min(clusters, units));
}

inline void launchTile(TileKernel &t, const Tensors &ts, int64_t clusters,
                       CUstream stream = nullptr) {
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(clusters * t.cluster));
  cfg.block = tile::Dim3(t.threads);
  cfg.stream = stream;
  t.kernel.launch(cfg, ts.a, ts.b, ts.c, ts.bias, ts.biasN);
}

// An instance named by all its value parameters (the skinny kernel's MT, S,
// BNS and CL): threads and the compiled cluster from its info, bn = `bn` (its
// tile's columns).
inline TileKernel loadTileInstance(tile::Context &ctx, const std::string &ptxPath,
                                   const std::string &name, const tile::TemplateArgs &args,
                                   int64_t bn) {
  TileKernel t;
  t.module = tile::Module::fromFiles(ctx, ptxPath);
  tile::TemplateArgs named = args;
  named.emplace_back("ACT", kNoActivation);
  t.kernel = t.module.kernel(name, named);
  const tile::KernelInfo &info = *t.kernel.info();
  if (!info.threads)
    throw std::runtime_error(ptxPath + ": kernel " + t.kernel.name() + " declares no threads(...)");
  t.threads = (*info.threads)[0] * (*info.threads)[1] * (*info.threads)[2];
  t.cluster = std::max(1, sample::fixedClusterSize(info));
  if (info.cluster == tile::KernelInfo::Cluster::Fixed && info.clusterDims[1] > 1) {
    t.clusterY = int(info.clusterDims[1]);
    t.cluster = int(info.clusterDims[0]);
  }
  if (name == "gemm_skinny_dsm") {
    t.dsm = true;
    t.cluster = int(info.clusterDims[0]); // KS
    t.clusterY = int(info.clusterDims[1]);
  }
  t.bn = bn;
  return t;
}

// Split-K's f32 partials and per-tile flags, grown on demand; new flags are
// zeroed (the kernel resets each flag it uses, so they stay zero between
// launches on one stream; one workspace per stream).
struct SplitKWorkspace {
  tile::DeviceBuffer<float> partials{1};
  tile::DeviceBuffer<int32_t> flags{1};
  void reserve(int64_t floats, int64_t tiles) {
    if (size_t(floats) > partials.size())
      partials = tile::DeviceBuffer<float>(size_t(floats));
    if (size_t(tiles) > flags.size()) {
      flags = tile::DeviceBuffer<int32_t>(size_t(tiles));
      flags.fillBytes(0);
    }
  }
};
// Grid (tiles, splits), clusters of t.cluster CTAs along the tiles: every
// row of output tiles padded to whole clusters.
inline void launchSplitK(TileKernel &t, const Problem &p, const Tensors &ts, SplitKWorkspace &w,
                         int splits, CUstream stream = nullptr) {
  const int64_t cl = std::max(1, t.cluster);
  const int64_t tiles = ((p.m + kTileM - 1) / kTileM) * (((p.n + t.bn - 1) / t.bn + cl - 1) / cl) * cl;
  w.reserve(splits > 1 ? int64_t(splits) * tiles * kTileM * t.bn : 1, tiles);
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(unsigned(tiles), unsigned(splits));
  cfg.block = tile::Dim3(t.threads);
  cfg.stream = stream;
  t.kernel.launch(cfg, ts.a, ts.b, ts.c, w.partials, w.flags, int32_t(splits), ts.bias,
                    ts.biasN);
}
// The skinny kernel (gemm_skinny.tile): grid (tiles, splits), tiles of
// mt x t.bn, the row tiles padded to whole clusters of t.cluster; with more
// than one split every CTA writes its partial (splits x tiles x t.bn x mt
// f32). gemm_skinny2d (t.clusterY > 1): grid (row tiles, column tiles,
// splits), the row tiles padded to whole t.cluster, the column tiles to
// whole t.clusterY. gemm_skinny_dsm (t.dsm): grid (KS x row tiles, column
// tiles padded to whole t.clusterY), the KS = t.cluster splits of a tile in
// one cluster (`splits` must be KS), no workspace.
inline void launchSkinny(TileKernel &t, const Problem &p, const Tensors &ts, SplitKWorkspace &w,
                         int64_t mt, int splits, CUstream stream = nullptr) {
  if (t.dsm) {
    if (splits != t.cluster)
      throw std::runtime_error("gemm_skinny_dsm: splits (" + std::to_string(splits) +
                               ") must be its KS (" + std::to_string(t.cluster) + ")");
    const int64_t cy = std::max(1, t.clusterY);
    const int64_t rows = (p.m + mt - 1) / mt;
    const int64_t cols = ((p.n + t.bn * cy - 1) / (t.bn * cy)) * cy;
    w.reserve(1, 1);
    tile::LaunchConfig cfg;
    cfg.grid = tile::Dim3(unsigned(rows * t.cluster), unsigned(cols));
    cfg.block = tile::Dim3(t.threads);
    cfg.stream = stream;
    t.kernel.launch(cfg, ts.a, ts.b, ts.c, w.partials, w.flags, int32_t(splits), ts.bias,
                    ts.biasN);
    return;
  }
  const int64_t cl = std::max(1, t.cluster), cy = std::max(1, t.clusterY);
  const int64_t rows = ((p.m + mt * cl - 1) / (mt * cl)) * cl;
  const int64_t cols = ((p.n + t.bn * cy - 1) / (t.bn * cy)) * cy;
  const int64_t tiles = rows * cols;
  w.reserve(splits > 1 ? int64_t(splits) * tiles * mt * t.bn : 1, tiles);
  tile::LaunchConfig cfg;
  cfg.grid = cy > 1 ? tile::Dim3(unsigned(rows), unsigned(cols), unsigned(splits))
                    : tile::Dim3(unsigned(tiles), unsigned(splits));
  cfg.block = tile::Dim3(t.threads);
  cfg.stream = stream;
  t.kernel.launch(cfg, ts.a, ts.b, ts.c, w.partials, w.flags, int32_t(splits), ts.bias,
                    ts.biasN);
}

// The tilec compile time the build measured (samples/gemm/CMakeLists.txt
// writes gemm_compile_time.txt beside the PTX: one line per source), or "".
inline std::string compileTimeNote(const std::string &ptxDir) {
  std::ifstream f(ptxDir + "/gemm_compile_time.txt");
  std::string all, line;
  while (std::getline(f, line))
    if (!line.empty())
      all += (all.empty() ? "" : "; ") + line;
  return all;
}

} // namespace gemm
