// GPU tests of decode_norm_ports.tile on fresh random data:
//  - Philox dropout: every mask byte and every output bit equal to a CPU
//    Philox-4x32-10 (the counter and key words, the 2^-24 uniform, the
//    f32 product), a length that is no multiple of 4 (the tail path), and
//    the kept fraction near keep;
//  - the bf16 decode GEMV against float64 (the bound: f32 accumulation of K
//    products), with its bandwidth printed beside the H200's 4.8 TB/s;
//  - BatchNorm training forward over a cluster of 8: y, the saved mean and
//    inverse deviation, and the running statistics against float64, on
//    inputs with a large mean (a one-pass sum of squares would lose the
//    variance), row counts that leave some CTAs of a cluster empty;
//  - mul_hi of u32, i32, u64, i64, u16 and i8 operands (the extremes among
//    them) against 128-bit host products, and CUTLASS's FastDivmod
//    (quotient and remainder through a multiply-high) against / and %.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

struct Philox {
  uint32_t w[4];
};

Philox philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                     uint32_t k1) {
  uint32_t x[4] = {c0, c1, c2, c3};
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * x[0], p1 = uint64_t(0xCD9E8D57u) * x[2];
    uint32_t n0 = uint32_t(p1 >> 32) ^ x[1] ^ k0, n1 = uint32_t(p1);
    uint32_t n2 = uint32_t(p0 >> 32) ^ x[3] ^ k1, n3 = uint32_t(p0);
    x[0] = n0, x[1] = n1, x[2] = n2, x[3] = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {{x[0], x[1], x[2], x[3]}};
}

using ported::bf16Bits;
using ported::bf16Value;

} // namespace

TEST_CASE("Philox-4x32-10 dropout, mask and output bit-exact", "[decode_norm_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("decode_norm_ports_gpu"));
  auto rng = ported::freshRng();
  // Known-answer checks of the CPU generator (Random123's kat_vectors for
  // philox4x32_10: all-ones counter and key, and the digits of pi).
  Philox ones = philox4x32_10(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
  CHECK((ones.w[0] == 0x408f276du && ones.w[1] == 0x41c83b0eu && ones.w[2] == 0xa20bc7c6u &&
         ones.w[3] == 0x6d5451fdu));
  Philox pi = philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u,
                            0x299f31d0u);
  CHECK((pi.w[0] == 0xd16cfe09u && pi.w[1] == 0x94fdccebu && pi.w[2] == 0x5001e420u &&
         pi.w[3] == 0x24126ea1u));
  const int n = ported::small() ? 4099 : (1 << 22) + 3;
  std::uniform_real_distribution<float> ud(-4.0f, 4.0f);
  std::vector<float> x(static_cast<size_t>(n));
  for (auto &v : x)
    v = ud(rng);
  const uint32_t seedLo = uint32_t(rng()), seedHi = uint32_t(rng()), offLo = uint32_t(rng()),
                 offHi = uint32_t(rng());
  const float keep = 0.9f, scale = 1.0f / keep;
  tile::DeviceBuffer<float> dX(x.size()), dOut(x.size());
  tile::DeviceBuffer<uint8_t> dMask(x.size());
  dX.copyFrom(x);
  dOut.fillBytes(0xFF);
  dMask.fillBytes(0x55);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(ported::small() ? 3u : 264u);
  mod.kernel("dropout_philox")
      .launch(cfg, dOut.ptr(), dMask.ptr(), dX.ptr(), int32_t(n), seedLo, seedHi, offLo, offHi,
              keep, scale);
  ctx.synchronize();
  auto out = dOut.toHost();
  auto mask = dMask.toHost();
  size_t bad = 0, kept = 0;
  for (int g = 0; 4 * g < n; ++g) {
    Philox r = philox4x32_10(uint32_t(g), 0, offLo, offHi, seedLo, seedHi);
    for (int l = 0; l < 4 && 4 * g + l < n; ++l) {
      size_t i = size_t(4 * g + l);
      bool k = float(r.w[l] >> 8) * 0x1p-24f < keep;
      float want = k ? x[i] * scale : 0.0f;
      kept += k;
      if ((mask[i] != uint8_t(k) || std::memcmp(&out[i], &want, 4) != 0) && bad++ < 5)
        UNSCOPED_INFO("element " << i << ": mask " << int(mask[i]) << " out " << out[i]
                                 << ", expected " << int(k) << " " << want);
    }
  }
  CHECK(bad == 0);
  const double frac = double(kept) / n;
  INFO("kept fraction " << frac);
  CHECK(std::fabs(frac - keep) < (ported::small() ? 0.03 : 0.002));
}

TEST_CASE("batch-1 decode GEMV over bf16 weights", "[decode_norm_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("decode_norm_ports_gpu"));
  auto rng = ported::freshRng();
  // N no multiple of the 8 rows of a CTA.
  const int N = ported::small() ? 37 : 14339, K = ported::small() ? 2048 : 4096;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> w(size_t(N) * K), x(static_cast<size_t>(K));
  for (auto &b : w)
    b = bf16Bits(nd(rng));
  for (auto &b : x)
    b = bf16Bits(nd(rng));
  tile::DeviceBuffer<uint16_t> dW(w.size()), dX(x.size());
  tile::DeviceBuffer<float> dY(size_t(N) + 1);
  dW.copyFrom(w);
  dX.copyFrom(x);
  dY.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned((N + 7) / 8));
  auto kernel = mod.kernel("gemv_bf16_decode");
  kernel.launch(cfg, dY.ptr(), dW.ptr(), dX.ptr(), int32_t(N), int32_t(K));
  ctx.synchronize();
  auto y = dY.toHost();
  ported::ErrorCount e("y");
  for (int r = 0; r < N; ++r) {
    double s = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = bf16Value(w[size_t(r) * K + size_t(k)]) * bf16Value(x[size_t(k)]);
      s += p;
      mag += std::fabs(p);
    }
    // Each product is exact in f32 (8-bit mantissas); K f32 additions of
    // partial sums at most mag: K * 2^-24 * mag, far above the real error.
    e.check(size_t(r), y[size_t(r)], s, double(K) * 0x1p-24 * mag + 1e-30);
  }
  uint32_t past;
  std::memcpy(&past, &y[size_t(N)], 4);
  CHECK(past == 0xFFFFFFFFu); // nothing written past row N - 1
  CHECK(e.bad() == 0);
  if (!ported::small()) {
    tile::EventTimer timer;
    const int reps = 50;
    kernel.launch(cfg, dY.ptr(), dW.ptr(), dX.ptr(), int32_t(N), int32_t(K));
    timer.start();
    for (int i = 0; i < reps; ++i)
      kernel.launch(cfg, dY.ptr(), dW.ptr(), dX.ptr(), int32_t(N), int32_t(K));
    double ms = timer.stopMs() / reps;
    double bytes = double(N) * K * 2 + double(K) * 2 + double(N) * 4;
    std::printf("gemv_bf16_decode N=%d K=%d: %.1f us, %.0f GB/s (%.0f%% of 4800 GB/s)\n", N, K,
                ms * 1e3, bytes / (ms * 1e-3) / 1e9, bytes / (ms * 1e-3) / 4.8e12 * 100);
  }
}

TEST_CASE("BatchNorm training forward, Welford over a cluster of 8", "[decode_norm_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("decode_norm_ports_gpu"));
  auto rng = ported::freshRng();
  struct Shape {
    int P, C;
  };
  // P = 5: CTAs 5..7 of each cluster hold no rows; P = 6275: a last CTA
  // with fewer rows than the others.
  std::vector<Shape> shapes = ported::small() ? std::vector<Shape>{{5, 32}, {203, 64}}
                                              : std::vector<Shape>{{5, 32}, {6275, 256}, {50000, 64}};
  for (const Shape &sh : shapes) {
    const int P = sh.P, C = sh.C;
    INFO("P = " << P << ", C = " << C);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::uniform_real_distribution<float> ud(0.5f, 1.5f);
    const size_t nc = static_cast<size_t>(C);
    std::vector<float> x(size_t(P) * nc), gamma(nc), beta(nc), rmean(nc), rvar(nc), chMean(nc),
        chStd(nc);
    for (int c = 0; c < C; ++c) {
      chMean[size_t(c)] = 20.0f * nd(rng) + 50.0f; // far from 0
      chStd[size_t(c)] = 3.0f * ud(rng);
      gamma[size_t(c)] = ud(rng);
      beta[size_t(c)] = nd(rng);
      rmean[size_t(c)] = nd(rng);
      rvar[size_t(c)] = ud(rng);
    }
    for (int r = 0; r < P; ++r)
      for (int c = 0; c < C; ++c)
        x[size_t(r) * C + size_t(c)] = chMean[size_t(c)] + chStd[size_t(c)] * nd(rng);
    const float eps = 1e-5f, momentum = 0.1f;
    tile::DeviceBuffer<float> dX(x.size()), dY(x.size()), dG(gamma.size()), dB(beta.size()),
        dSM(nc), dSI(nc), dRM(rmean.size()), dRV(rvar.size());
    dX.copyFrom(x);
    dG.copyFrom(gamma);
    dB.copyFrom(beta);
    dRM.copyFrom(rmean);
    dRV.copyFrom(rvar);
    dY.fillBytes(0xFF);
    dSM.fillBytes(0xFF);
    dSI.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(unsigned(C / 32 * 8));
    mod.kernel("batchnorm_train_fwd")
        .launch(cfg, dY.ptr(), dX.ptr(), dG.ptr(), dB.ptr(), dSM.ptr(), dSI.ptr(), dRM.ptr(),
                dRV.ptr(), int32_t(P), int32_t(C), eps, momentum);
    ctx.synchronize();
    auto y = dY.toHost();
    auto sm = dSM.toHost(), si = dSI.toHost(), rm = dRM.toHost(), rv = dRV.toHost();
    ported::ErrorCount ey("y"), es("stats");
    for (int c = 0; c < C; ++c) {
      double mean = 0, m2 = 0;
      for (int r = 0; r < P; ++r)
        mean += x[size_t(r) * C + size_t(c)];
      mean /= P;
      for (int r = 0; r < P; ++r) {
        double d = x[size_t(r) * C + size_t(c)] - mean;
        m2 += d * d;
      }
      double var = m2 / P, invstd = 1.0 / std::sqrt(var + eps);
      double varU = P > 1 ? m2 / (P - 1) : var;
      // f32 Welford over up to P / 8 rows per thread: the mean to a few
      // ulp of its magnitude, the variance to 1e-5 relative.
      es.check(size_t(c), sm[size_t(c)], mean, 1e-6 * std::fabs(mean) + 1e-6);
      es.check(size_t(c), si[size_t(c)], invstd, 2e-5 * invstd);
      es.check(size_t(c), rm[size_t(c)], 0.9 * rmean[size_t(c)] + 0.1 * mean,
               1e-6 * std::fabs(mean) + 1e-6);
      es.check(size_t(c), rv[size_t(c)], 0.9 * rvar[size_t(c)] + 0.1 * varU, 2e-5 * (varU + 1));
      for (int r = 0; r < P; ++r) {
        size_t i = size_t(r) * C + size_t(c);
        double want = (x[i] - mean) * invstd * gamma[size_t(c)] + beta[size_t(c)];
        // The mean's error (1e-6 of |mean| <= 150) times invstd, x - mean
        // rounded in f32, the rest f32 roundings.
        ey.check(i, y[i], want, (2e-4 * std::fabs(mean) + 1e-5) * invstd + 1e-5 * std::fabs(want));
      }
    }
    CHECK(ey.bad() == 0);
    CHECK(es.bad() == 0);
  }
}

namespace {
template <class T> std::vector<T> randomInts(std::mt19937_64 &rng, size_t n) {
  std::vector<T> v(n);
  for (auto &x : v) {
    uint64_t bits = rng();
    std::memcpy(&x, &bits, sizeof(T));
  }
  // The extremes of the type among the operands.
  v[0] = std::numeric_limits<T>::min();
  v[1] = std::numeric_limits<T>::max();
  v[n / 3] = std::numeric_limits<T>::min();
  v[n / 3 + 1] = std::numeric_limits<T>::min();
  return v;
}

template <class T> T mulHiRef(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    return T((__int128(a) * __int128(b)) >> (8 * sizeof(T)));
  else
    return T((unsigned __int128)a * (unsigned __int128)b >> (8 * sizeof(T)));
}

template <class T> size_t mulHiErrors(const std::vector<T> &got, const std::vector<T> &in,
                                      size_t n, const char *what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[2 * n + i] != mulHiRef(in[i], in[n + i]) && bad++ < 3)
      UNSCOPED_INFO(what << " mul_hi(" << int64_t(in[i]) << ", " << int64_t(in[n + i])
                         << ") = " << int64_t(got[2 * n + i]) << ", expected "
                         << int64_t(mulHiRef(in[i], in[n + i])));
  return bad;
}
} // namespace

TEST_CASE("mul_hi of every integer width against 128-bit products", "[decode_norm_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("decode_norm_ports_gpu"));
  auto rng = ported::freshRng();
  const size_t n = 3000;
  auto u32s = randomInts<uint32_t>(rng, 3 * n);
  auto i32s = randomInts<int32_t>(rng, 3 * n);
  auto u64s = randomInts<uint64_t>(rng, 3 * n);
  auto i64s = randomInts<int64_t>(rng, 3 * n);
  auto u16s = randomInts<uint16_t>(rng, 3 * n);
  auto i8s = randomInts<int8_t>(rng, 3 * n);
  tile::DeviceBuffer<uint32_t> dU32(3 * n);
  tile::DeviceBuffer<int32_t> dI32(3 * n);
  tile::DeviceBuffer<uint64_t> dU64(3 * n);
  tile::DeviceBuffer<int64_t> dI64(3 * n);
  tile::DeviceBuffer<uint16_t> dU16(3 * n);
  tile::DeviceBuffer<int8_t> dI8(3 * n);
  dU32.copyFrom(u32s);
  dI32.copyFrom(i32s);
  dU64.copyFrom(u64s);
  dI64.copyFrom(i64s);
  dU16.copyFrom(u16s);
  dI8.copyFrom(i8s);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned((n + 255) / 256));
  mod.kernel("mul_hi_types")
      .launch(cfg, dU32.ptr(), dI32.ptr(), dU64.ptr(), dI64.ptr(), dU16.ptr(), dI8.ptr(),
              int32_t(n));
  ctx.synchronize();
  CHECK(mulHiErrors(dU32.toHost(), u32s, n, "u32") == 0);
  CHECK(mulHiErrors(dI32.toHost(), i32s, n, "i32") == 0);
  CHECK(mulHiErrors(dU64.toHost(), u64s, n, "u64") == 0);
  CHECK(mulHiErrors(dI64.toHost(), i64s, n, "i64") == 0);
  CHECK(mulHiErrors(dU16.toHost(), u16s, n, "u16") == 0);
  CHECK(mulHiErrors(dI8.toHost(), i8s, n, "i8") == 0);
}

TEST_CASE("CUTLASS FastDivmod through mul_hi", "[decode_norm_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("decode_norm_ports_gpu"));
  auto rng = ported::freshRng();
  const int n = ported::small() ? 1000 : 1 << 20;
  std::uniform_int_distribution<int32_t> any(0, std::numeric_limits<int32_t>::max());
  std::vector<int32_t> x(static_cast<size_t>(n));
  for (auto &v : x)
    v = any(rng);
  x[0] = 0;
  x[1] = std::numeric_limits<int32_t>::max();
  std::uniform_int_distribution<int32_t> anyDivisor(2, std::numeric_limits<int32_t>::max());
  tile::DeviceBuffer<int32_t> dX(x.size()), dQ(x.size()), dR(x.size());
  dX.copyFrom(x);
  for (int32_t d : {1, 2, 3, 7, 64, 1000, 65537, 1 << 30, std::numeric_limits<int32_t>::max(),
                    anyDivisor(rng), std::max(2, anyDivisor(rng) >> 16)}) {
    INFO("d = " << d);
    // CUTLASS's find_divisor: p = 31 + ceil(log2 d), m = ceil(2^p / d).
    int log2d = 0;
    while ((int64_t(1) << log2d) < d)
      ++log2d;
    const int p = 31 + log2d;
    const uint32_t m = d == 1 ? 0 : uint32_t(((uint64_t(1) << p) + uint64_t(d) - 1) / uint64_t(d));
    const int shift = d == 1 ? 0 : p - 32;
    // Near multiples of d among the dividends.
    x[2] = d - 1;
    x[3] = d;
    x[4] = int32_t(std::min<int64_t>(int64_t(d) * (std::numeric_limits<int32_t>::max() / d), x[1]));
    x[5] = x[4] - 1;
    dX.copyFrom(x);
    dQ.fillBytes(0xFF);
    dR.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(ported::small() ? 2u : 132u);
    mod.kernel("fast_divmod")
        .launch(cfg, dQ.ptr(), dR.ptr(), dX.ptr(), int32_t(n), d, m, int32_t(shift));
    ctx.synchronize();
    auto q = dQ.toHost(), r = dR.toHost();
    size_t bad = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if ((q[i] != x[i] / d || r[i] != x[i] % d) && bad++ < 3)
        UNSCOPED_INFO(x[i] << " divmod " << d << " = (" << q[i] << ", " << r[i] << ")");
    CHECK(bad == 0);
  }
}
