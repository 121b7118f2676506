// The host side of the fp8 GEMMs (gemm_fp8.tile), without a GPU: e4m3 /
// e5m2 encoding and decoding as the device converts (tile::floatBits:
// cvt.rn.satfinite, nearest even, a finite value past the largest and an
// infinity saturate to the largest finite of its sign), quantisation of f32 data with
// per-tensor, per-row/column and 128 x 128 block scales, test data with
// outliers, and the float64 references (of the dequantised fp8 inputs and of
// the original f32 data). fp8.cpp runs them against the GPU (`gemm --fp8`);
// fp8_host_test.cpp tests them here.
#pragma once

#include "gemm_common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gemm::fp8 {

enum class Format { E4M3, E5M2 };
inline const char *formatName(Format f) { return f == Format::E4M3 ? "e4m3" : "e5m2"; }

inline tile::ScalarType scalarType(Format f) {
  return f == Format::E4M3 ? tile::ScalarType::E4M3 : tile::ScalarType::E5M2;
}
// x rounded as the device converts it (cvt.rn.satfinite): the runtime's
// model of the formats, tile::floatBits / tile::floatValue.
inline uint8_t encode(double x, Format f) { return uint8_t(tile::floatBits(scalarType(f), x)); }
inline double decode(uint8_t c, Format f) { return tile::floatValue(scalarType(f), c); }
/// The largest finite value: 448 (e4m3, 0x7e), 57344 (e5m2, 0x7b).
inline double maxFinite(Format f) { return decode(f == Format::E4M3 ? 0x7e : 0x7b, f); }

// ---------------------------------------------------------------- per tensor
/// The per-tensor kernel at tile width `bn` (M above the small-M choice):
/// at BN 256 gemm_fp8_sw, gemm_fp8_dfr's deferred epilogue staged by each
/// consumer warpgroup alone and stored from the producer's idle warps,
/// which ran 1.019-1.035x gemm_fp8_dfr (medians) in alternation at 8192^3,
/// 4096^3 and 4000^3 (docs/perf/gemm_fp8_epilogue.md, "The epilogue off the
/// consumers' path"); gemm_fp8_dfr ran 1.012-1.014x gemm_fp8. At BN 128
/// gemm_fp8 (not measured).
inline const char *tensorKernel(int64_t bn) { return bn == 256 ? "gemm_fp8_sw" : "gemm_fp8"; }

// ---------------------------------------------------------------- scaling
enum class Scaling { Tensor, RowCol, Block };
inline const char *scalingName(Scaling s) {
  return s == Scaling::Tensor ? "per-tensor" : s == Scaling::RowCol ? "per-row/col" : "block";
}
inline constexpr int64_t kBlock = 128; // the 1 x 128 (A) and 128 x 128 (B) blocks

// The quantised A [M, Kp] and B [N, Kp] (Kp = K rounded up to 16: TMA's
// 16-byte row strides; the padding is 0) and their dequantisation scales
// (x ~ decode(q) * scale): per tensor sa[0], sb[0]; per row/column sa[i]
// (M padded to 256), sb[j] (N padded to 256); block SA[kb * lda + i]
// (lda = M padded to 256), SB[nb * kblocks + kb].
struct Quantized {
  int64_t m = 0, n = 0, k = 0, kp = 0, lda = 0, kblocks = 0;
  Format format = Format::E4M3;
  Scaling scaling = Scaling::Tensor;
  std::vector<uint8_t> a, b;
  std::vector<float> sa, sb;
  double scaleA(int64_t i, int64_t kk) const {
    switch (scaling) {
    case Scaling::Tensor:
      return sa[0];
    case Scaling::RowCol:
      return sa[size_t(i)];
    default:
      return sa[size_t((kk / kBlock) * lda + i)];
    }
  }
  double scaleB(int64_t j, int64_t kk) const {
    switch (scaling) {
    case Scaling::Tensor:
      return sb[0];
    case Scaling::RowCol:
      return sb[size_t(j)];
    default:
      return sb[size_t((j / kBlock) * kblocks + kk / kBlock)];
    }
  }
};

inline int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// The scale that maps the group's largest magnitude onto the format's
// largest finite value (1 for an all-zero group).
inline float scaleFor(double amax, Format f) {
  return amax > 0 ? float(amax / maxFinite(f)) : 1.0f;
}

// Quantises row-major f32 A [M, K] and B [N, K].
inline Quantized quantize(const std::vector<float> &a, const std::vector<float> &b, int64_t m,
                          int64_t n, int64_t k, Format f, Scaling s) {
  Quantized q;
  q.m = m, q.n = n, q.k = k, q.kp = roundUp(k, 16), q.format = f, q.scaling = s;
  q.lda = roundUp(m, 256);
  q.kblocks = (k + kBlock - 1) / kBlock;
  auto amax = [&](const std::vector<float> &x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    double mx = 0;
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = c0; c < std::min(c1, k); ++c)
        mx = std::max(mx, std::fabs(double(x[size_t(r * k + c)])));
    return mx;
  };
  switch (s) {
  case Scaling::Tensor:
    q.sa = {scaleFor(amax(a, 0, m, 0, k), f)};
    q.sb = {scaleFor(amax(b, 0, n, 0, k), f)};
    break;
  case Scaling::RowCol:
    q.sa.assign(size_t(roundUp(m, 256)), 1.0f);
    q.sb.assign(size_t(roundUp(n, 256)), 1.0f);
    parallelFor(m, [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i)
        q.sa[size_t(i)] = scaleFor(amax(a, i, i + 1, 0, k), f);
    });
    parallelFor(n, [&](int64_t r0, int64_t r1) {
      for (int64_t j = r0; j < r1; ++j)
        q.sb[size_t(j)] = scaleFor(amax(b, j, j + 1, 0, k), f);
    });
    break;
  case Scaling::Block: {
    const int64_t nblocks = (n + kBlock - 1) / kBlock;
    q.sa.assign(size_t(q.kblocks * q.lda), 1.0f);
    // (a multiple of 4 floats: a kernel may read SB by TMA as rows of 16 bytes)
    q.sb.assign(size_t(roundUp(roundUp(nblocks, 2) * q.kblocks, 4)), 1.0f);
    parallelFor(m, [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i)
        for (int64_t kb = 0; kb < q.kblocks; ++kb)
          q.sa[size_t(kb * q.lda + i)] =
              scaleFor(amax(a, i, i + 1, kb * kBlock, (kb + 1) * kBlock), f);
    });
    parallelFor(nblocks, [&](int64_t b0, int64_t b1) {
      for (int64_t nb = b0; nb < b1; ++nb)
        for (int64_t kb = 0; kb < q.kblocks; ++kb)
          q.sb[size_t(nb * q.kblocks + kb)] = scaleFor(
              amax(b, nb * kBlock, std::min(n, (nb + 1) * kBlock), kb * kBlock, (kb + 1) * kBlock),
              f);
    });
    break;
  }
  }
  q.a.assign(size_t(m * q.kp), 0);
  q.b.assign(size_t(n * q.kp), 0);
  parallelFor(m, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        q.a[size_t(i * q.kp + kk)] = encode(double(a[size_t(i * k + kk)]) / q.scaleA(i, kk), f);
  });
  parallelFor(n, [&](int64_t r0, int64_t r1) {
    for (int64_t j = r0; j < r1; ++j)
      for (int64_t kk = 0; kk < k; ++kk)
        q.b[size_t(j * q.kp + kk)] = encode(double(b[size_t(j * k + kk)]) / q.scaleB(j, kk), f);
  });
  return q;
}

// ---------------------------------------------------------------- data
// n standard normal values (stream `stream` of `seed`); with `outliers`,
// about 1% of the entries (those whose hash is 0 mod 100) are multiplied by
// 100: the heavy-tailed activations that per-tensor scaling handles worst.
inline std::vector<float> normalData(size_t n, uint64_t seed, uint64_t stream, bool outliers) {
  std::vector<float> v(n);
  parallelFor(int64_t(n), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float x = normalAt(seed, stream, uint64_t(i));
      if (outliers && splitmix64(seed * 31 + stream * 7919 + uint64_t(i)) % 100 == 0)
        x *= 100.0f;
      v[size_t(i)] = x;
    }
  });
  return v;
}

// The timed runs' inputs (--bench, --alternate, --small): A [m, k] and B
// [n, k], normal, without outliers, streams 11 and 12 of `seed`, so every
// mode times the same data.
struct TimingInputs {
  std::vector<float> a, b;
};
inline TimingInputs timingInputs(int64_t m, int64_t n, int64_t k, uint64_t seed) {
  return {normalData(size_t(m * k), seed, 11, false), normalData(size_t(n * k), seed, 12, false)};
}

// ---------------------------------------------------------------- references
// C[row, :] for each row of `rows` in float64 (rows.size() x N): `dequantized`
// from the fp8 values times their scales, else from the original f32 data.
inline std::vector<double> reference(const Quantized &q, const std::vector<float> &a,
                                     const std::vector<float> &b, const std::vector<int64_t> &rows,
                                     bool dequantized) {
  const int64_t n = q.n, k = q.k;
  std::vector<double> bt(size_t(n * k));
  parallelFor(n, [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t kk = 0; kk < k; ++kk)
        bt[size_t(j * k + kk)] =
            dequantized ? decode(q.b[size_t(j * q.kp + kk)], q.format) * q.scaleB(j, kk)
                        : double(b[size_t(j * k + kk)]);
  });
  std::vector<double> c(rows.size() * size_t(n));
  parallelFor(int64_t(rows.size()), [&](int64_t r0, int64_t r1) {
    std::vector<double> arow(static_cast<size_t>(k));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t i = rows[size_t(r)];
      for (int64_t kk = 0; kk < k; ++kk)
        arow[size_t(kk)] =
            dequantized ? decode(q.a[size_t(i * q.kp + kk)], q.format) * q.scaleA(i, kk)
                        : double(a[size_t(i * k + kk)]);
      for (int64_t j = 0; j < n; ++j) {
        const double *bj = &bt[size_t(j * k)];
        double s = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          s += arow[size_t(kk)] * bj[kk];
        c[size_t(r) * size_t(n) + size_t(j)] = s;
      }
    }
  });
  return c;
}

// bf16 C (M x N) against `want` at `rows` (compareRows of gemm_common.h).
inline Comparison compareBf16(int64_t m, int64_t n, const std::vector<uint16_t> &got,
                              const std::vector<int64_t> &rows, const std::vector<double> &want) {
  Problem p{m, n, 1, DType::BF16, BMajor::K};
  return compareRows(p, got, rows,
                     [&](size_t r, int64_t j) { return want[r * size_t(n) + size_t(j)]; });
}

// `gemm --fp8 ...` (fp8.cpp): whether the command line asks for it, and the run.
bool requested(int argc, char **argv);
int run(int argc, char **argv);

// ---------------------------------------------------------------- small M
// gemm_fp8_skinny's compiled (MT, S) instances, which must be
// samples/gemm/CMakeLists.txt's TILEC_GEMM_FP8_SKINNY_INSTANCES: the ring
// depth S is the most stages of 128 x 128 (B) + MT x 128 (A) bytes that fit
// beside the f32 transpose tile and the bf16 half-tile in 227 KB.
struct SkinnyInstance {
  int64_t mt, stages;
};
inline const std::vector<SkinnyInstance> &skinnyInstances() {
  static const std::vector<SkinnyInstance> all = {{16, 11}, {32, 10}, {64, 7}, {128, 4}};
  return all;
}
inline constexpr int64_t kSkinnyBn = 128; // columns of C per skinny tile
/// The skinny kernel's shared memory at (MT, S): what the instances must fit.
inline int64_t skinnySharedBytes(const SkinnyInstance &i) {
  return i.stages * (kSkinnyBn * kBlock + i.mt * kBlock) // the ring (fp8: 1 byte)
         + kSkinnyBn * i.mt * 4                          // `red`, f32
         + i.mt * (kSkinnyBn / 2) * 2;                   // `out`, bf16
}
struct SkinnyChoice {
  SkinnyInstance instance{0, 0}; // mt = 0: M is above every instance
  int splits = 1;
  int64_t tiles = 0;
};
/// Per-tensor small M: the smallest MT >= M, and split-K over the K-blocks
/// until the tiles fill the SMs (at most 8 splits, each >= 4 K-blocks).
inline SkinnyChoice skinnyChoice(int64_t m, int64_t n, int64_t k, int sms) {
  SkinnyChoice c;
  for (const SkinnyInstance &i : skinnyInstances())
    if (i.mt >= m && (c.instance.mt == 0 || i.mt < c.instance.mt))
      c.instance = i;
  if (c.instance.mt == 0)
    return c;
  c.tiles = ((m + c.instance.mt - 1) / c.instance.mt) * ((n + kSkinnyBn - 1) / kSkinnyBn);
  const int64_t kblocks = (k + kBlock - 1) / kBlock;
  const int64_t fill = std::max<int64_t>(1, sms / std::max<int64_t>(1, c.tiles));
  const int64_t most = std::max<int64_t>(1, std::min<int64_t>(8, kblocks / 4));
  c.splits = int(std::min(fill, most));
  return c;
}

} // namespace gemm::fp8
