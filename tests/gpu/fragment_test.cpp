// GPU test of the fragment algebra (fragment.tile) on random data: S = A Bᵀ
// of small random integers (every sum exact in f32), its row max and sum
// (quad shuffles), exp2 accurate and approximate, the sequence-tail and
// causal masks with select (fully masked rows give 0, not NaN), broadcasting
// of per_row / per_col values, a packed f16 select and the per_row stores,
// all against a float64 CPU reference.
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

std::string fragmentPtxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/fragment_gpu.ptx";
}

uint16_t smallIntToHalf(int v) { // |v| <= 8: exact in f16
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int a = std::abs(v), e = 0;
  while ((1 << (e + 1)) <= a)
    ++e;
  uint16_t man = uint16_t((a - (1 << e)) << (10 - e));
  return uint16_t(sign | ((e + 15) << 10) | man);
}

float halfToFloat(uint16_t h) { // normal numbers and zero (all this test produces)
  if ((h & 0x7fff) == 0)
    return (h & 0x8000) ? -0.0f : 0.0f;
  uint32_t bits = uint32_t(h & 0x8000) << 16 | (uint32_t(((h >> 10) & 0x1f) - 15 + 127) << 23) |
                  uint32_t(h & 0x3ff) << 13;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool close(double got, double want, double rel) {
  if (std::isinf(want) || std::isnan(want))
    return got == want || (std::isnan(want) && std::isnan(got));
  return std::fabs(got - want) <= rel * std::fabs(want) + 1e-37;
}

} // namespace

TEST_CASE("row_max, row_sum, exp2, select and per_row broadcasts on random data", "[fragment]") {
  const int M = 128, N = 64, K = 16;
  const int n0 = 5, m0 = 0, off = -12, seqK = 50;
  const float scale = 0.125f;
  std::mt19937 rng(20241128);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<int> xi(M * K), yi(N * K);
  std::vector<uint16_t> x(M * K), y(N * K);
  for (int i = 0; i < M * K; ++i)
    x[i] = smallIntToHalf(xi[i] = dist(rng));
  for (int i = 0; i < N * K; ++i)
    y[i] = smallIntToHalf(yi[i] = dist(rng));

  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, fragmentPtxPath());
  tile::Kernel k = mod.kernel("algebra");
  tile::DeviceBuffer<uint16_t> dX(x.size()), dY(y.size()), dOut16(size_t(M * N));
  tile::DeviceBuffer<float> dOut(size_t(5 * M * N)), dRows(size_t(5 * M));
  dX.copyFrom(x);
  dY.copyFrom(y);
  dOut.fillBytes(0xA5);
  dRows.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, dX.ptr(), dY.ptr(), dOut.ptr(), dOut16.ptr(), dRows.ptr(), n0, m0, off, seqK,
           scale);
  ctx.synchronize();
  std::vector<float> out = dOut.toHost(), rows = dRows.toHost();
  std::vector<uint16_t> out16 = dOut16.toHost();

  size_t bad[10] = {};
  int fullyMasked = 0;
  for (int r = 0; r < M; ++r) {
    std::vector<double> s(N), t(N);
    double m = -INFINITY, l = 0, mt = -INFINITY;
    for (int c = 0; c < N; ++c) {
      double v = 0;
      for (int kk = 0; kk < K; ++kk)
        v += double(xi[r * K + kk]) * double(yi[c * K + kk]);
      s[c] = v;
      m = std::max(m, v);
      l += v;
      bool keep = c + n0 < seqK && c + n0 <= r + m0 + off;
      t[c] = keep ? v : -INFINITY;
      mt = std::max(mt, t[c]);
    }
    double base = mt == -INFINITY ? 0.0 : mt;
    fullyMasked += mt == -INFINITY;
    for (int c = 0; c < N; ++c) {
      size_t i = size_t(r * N + c);
      bad[0] += out[i] != float(s[c]);
      bad[1] += !close(out[M * N + i], std::exp2((s[c] - m) * scale), 4e-7);
      bad[2] += !close(out[2 * M * N + i], std::exp2((s[c] - m) * scale), 2e-6);
      double p = std::exp2((t[c] - base) * scale); // exp2(-inf) = 0
      bad[3] += !close(out[3 * M * N + i], p, 4e-7) || std::isnan(out[3 * M * N + i]);
      double w = std::max(s[c], m * 0.5) + std::min(s[c], double(c)) * std::fabs(s[c] - l) - r;
      bad[4] += !close(out[4 * M * N + i], w, 1e-6);
      bad[5] += halfToFloat(out16[i]) != float(c < 32 ? s[c] : 2.0 * s[c]);
    }
    bad[6] += rows[r] != float(m);
    bad[7] += rows[M + r] != float(l);
    bad[8] += rows[2 * M + r] != float(mt) || rows[3 * M + r] != float(base);
    bad[9] += !close(rows[4 * M + r], std::log2(l * l + 1.0), 4e-7);
  }
  REQUIRE(fullyMasked > 0); // the guard is exercised
  for (int i = 0; i < 10; ++i) {
    INFO("output " << i);
    CHECK(bad[i] == 0);
  }
}
