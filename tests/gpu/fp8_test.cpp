// fp8 conversions on the GPU (fp8.tile) against the host model of PTX's
// cvt.rn.satfinite (samples/gemm/fp8.h, itself tested in
// samples/gemm/fp8_host_test.cpp): every f16 value, landmarks (the largest
// finite values, halfway points, overflow, infinities, NaN, subnormals) and
// fresh random f32 values into e4m3 and e5m2, from f32, f16 and bf16, scalar
// and vector (packed) forms; every one of the 256 codes back to f32, f16,
// bf16 and the other format. NaN results compare as NaN (any NaN code).
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include "fp8.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {
using gemm::fp8::decode;
using gemm::fp8::encode;
using gemm::fp8::Format;

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/fp8_conversions.ptx";
}

bool sameCode(uint8_t got, uint8_t want, Format f) {
  const double g = decode(got, f), w = decode(want, f);
  return (std::isnan(g) && std::isnan(w)) || got == want;
}
bool sameValue(double got, double want) {
  return (std::isnan(got) && std::isnan(want)) || got == want;
}

template <class... Args> void launch(tile::Kernel &k, size_t threads, const Args &...args) {
  tile::LaunchConfig c;
  c.block = tile::Dim3(128);
  c.grid = tile::Dim3(static_cast<unsigned>((threads + 127) / 128));
  k.launch(c, args...);
}
} // namespace

TEST_CASE("fp8 conversions match cvt.rn.satfinite", "[fp8]") {
  if (tile::deviceCount() == 0) {
    WARN("SKIP: no CUDA device");
    std::exit(77);
  }
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ptxPath());
  std::vector<float> x;
  for (uint32_t h = 0; h < 65536; ++h) // every f16 value as an f32
    x.push_back(gemm::halfToFloat(uint16_t(h)));
  for (double v : {448.0, 464.0, 464.0001, 479.0, 480.0, 1e6, 57344.0, 61440.0, 61441.0, 1e30,
                   std::ldexp(1.0, -9), std::ldexp(1.0, -10), std::ldexp(1.5, -10),
                   std::ldexp(1.0, -16), std::ldexp(1.0, -17), std::ldexp(1.0, -18), 1.0625,
                   1.1875})
    for (double s : {1.0, -1.0})
      x.push_back(float(v * s));
  x.push_back(INFINITY);
  x.push_back(-INFINITY);
  x.push_back(NAN);
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> nd(0.0f, 100.0f);
  while (x.size() % 4 != 0 || x.size() < 80000)
    x.push_back(nd(rng));
  const size_t n = x.size();
  std::vector<uint16_t> h(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    h[i] = gemm::floatToHalf(x[i]);
    b[i] = gemm::floatToBf16(x[i]);
  }
  tile::DeviceBuffer<float> dx(n);
  tile::DeviceBuffer<uint16_t> dh(n), db(n);
  dx.copyFrom(x);
  dh.copyFrom(h);
  db.copyFrom(b);
  tile::DeviceBuffer<uint8_t> q4(n), q5(n), hq4(n), hq5(n), bq4(n), vq4(n), vhq5(n);
  tile::Kernel to = mod.kernel("to_fp8");
  launch(to, n, dx, dh, db, q4, q5, hq4, hq5, bq4, int32_t(n));
  tile::Kernel tov = mod.kernel("to_fp8_vec");
  launch(tov, n / 4, dx, dh, vq4, vhq5, int32_t(n));
  ctx.synchronize();
  const auto g4 = q4.toHost(), g5 = q5.toHost(), gh4 = hq4.toHost(), gh5 = hq5.toHost(),
             gb4 = bq4.toHost(), gv4 = vq4.toHost(), gvh5 = vhq5.toHost();
  size_t bad = 0;
  for (size_t i = 0; i < n && bad < 20; ++i) {
    const double hv = gemm::halfToFloat(h[i]), bv = gemm::bf16ToFloat(b[i]);
    const struct {
      const char *what;
      uint8_t got, want;
      Format f;
    } cases[] = {{"f32 -> e4m3", g4[i], encode(x[i], Format::E4M3), Format::E4M3},
                 {"f32 -> e5m2", g5[i], encode(x[i], Format::E5M2), Format::E5M2},
                 {"f16 -> e4m3", gh4[i], encode(hv, Format::E4M3), Format::E4M3},
                 {"f16 -> e5m2", gh5[i], encode(hv, Format::E5M2), Format::E5M2},
                 {"bf16 -> e4m3", gb4[i], encode(bv, Format::E4M3), Format::E4M3},
                 {"vec f32 -> e4m3", gv4[i], encode(x[i], Format::E4M3), Format::E4M3},
                 {"vec f16 -> e5m2", gvh5[i], encode(hv, Format::E5M2), Format::E5M2}};
    for (const auto &c : cases)
      if (!sameCode(c.got, c.want, c.f)) {
        ++bad;
        FAIL_CHECK(c.what << " of " << x[i] << " (index " << i << "): got 0x" << std::hex
                          << int(c.got) << ", want 0x" << int(c.want));
      }
  }
  CHECK(bad == 0);

  // Every code back.
  const size_t m = 256;
  std::vector<uint8_t> codes(m);
  for (size_t i = 0; i < m; ++i)
    codes[i] = uint8_t(i);
  tile::DeviceBuffer<uint8_t> c4(m), c5(m), x45(m);
  c4.copyFrom(codes);
  c5.copyFrom(codes);
  tile::DeviceBuffer<float> f4(m), f5(m), v4(m);
  tile::DeviceBuffer<uint16_t> h4(m), b5(m);
  tile::Kernel from = mod.kernel("from_fp8");
  launch(from, m, c4, c5, f4, f5, h4, b5, x45, v4, int32_t(m));
  ctx.synchronize();
  const auto gf4 = f4.toHost(), gf5 = f5.toHost(), gv = v4.toHost();
  const auto gh = h4.toHost(), gb = b5.toHost();
  const auto gx = x45.toHost();
  for (size_t i = 0; i < m; ++i) {
    const double w4 = decode(uint8_t(i), Format::E4M3), w5 = decode(uint8_t(i), Format::E5M2);
    INFO("code 0x" << std::hex << i);
    CHECK(sameValue(gf4[i], w4));
    CHECK(sameValue(gf5[i], w5));
    CHECK(sameValue(gv[i], w4));
    CHECK(sameValue(gemm::halfToFloat(gh[i]), w4));
    CHECK(sameValue(gemm::bf16ToFloat(gb[i]), w5));
    CHECK(sameCode(gx[i], encode(w4, Format::E5M2), Format::E5M2));
  }
}
