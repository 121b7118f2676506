// GPU tests of async_ports.tile on fresh random data: the fp8
// delayed-scaling cast (every e4m3 code exactly the host's satfinite
// rounding of the f32 product, values past 448 included; the amax and the
// scale's inverse exact), the cluster softmax over rows split across 4 CTAs
// (float64, rows with a large offset, so a CTA whose partial max is not the
// row's max shows), and the implicit-GEMM 3x3 convolution (bf16 inputs k/64
// with small integer k: every product and sum exact in f32, so the result
// must equal the float64 reference exactly, padding at every image edge, a
// width that ends mid-tile; the output is poisoned first).
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

TEST_CASE("fp8 delayed-scaling cast with amax", "[async_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("async_ports_gpu"));
  auto rng = ported::freshRng();
  // R rows of 256: a last tile of 16 rows that is partly past R.
  const int R = ported::small() ? 37 : 4001;
  const size_t n = size_t(R) * 256;
  std::normal_distribution<double> nd(0.0, 3.0);
  std::vector<uint16_t> x(n);
  for (auto &b : x)
    b = bf16Bits(nd(rng));
  // Values past 448 / scale (14) at random places, so some products
  // saturate at every size (at the small one a normal sample rarely does).
  std::uniform_int_distribution<size_t> at(0, n - 1);
  for (double big : {20.0, -31.0, 1000.0})
    x[at(rng)] = bf16Bits(big);
  double amaxWant = 0;
  for (uint16_t b : x)
    amaxWant = std::max(amaxWant, std::fabs(bf16Value(b)));
  // A history whose max (7) is below this step's amax.
  std::vector<float> hist{2.5f, 7.0f, 0.0f, 5.25f};
  const int margin = 1;
  tile::DeviceBuffer<uint16_t> dX(n);
  tile::DeviceBuffer<uint8_t> dOut(n);
  tile::DeviceBuffer<int32_t> dAmax(1);
  tile::DeviceBuffer<float> dScaleInv(1), dHist(hist.size());
  dX.copyFrom(x);
  dHist.copyFrom(hist);
  dAmax.fillBytes(0);
  dOut.fillBytes(0x55);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(ported::small() ? 2u : 66u);
  mod.kernel("fp8_cast_delayed")
      .launch(cfg, tile::Tensor(dX, tile::TensorElement::BF16, {R, 256}), dOut.ptr(), dAmax.ptr(),
              dScaleInv.ptr(), dHist.ptr(), int32_t(hist.size()), int32_t(margin));
  ctx.synchronize();
  auto out = dOut.toHost();
  auto amax = dAmax.toHost();
  auto scaleInv = dScaleInv.toHost();
  const float scale = 448.0f / 7.0f * 0.5f; // f32 operations, as the kernel's
  size_t bad = 0, saturated = 0;
  for (size_t i = 0; i < n; ++i) {
    float prod = float(bf16Value(x[i])) * scale;
    auto want = uint8_t(tile::floatBits(tile::ScalarType::E4M3, prod));
    saturated += std::fabs(prod) > 448.0f;
    if (out[i] != want && bad++ < 5)
      UNSCOPED_INFO("out[" << i << "] = 0x" << std::hex << int(out[i]) << ", expected 0x" << int(want)
                           << std::dec << " (x = " << bf16Value(x[i]) << ")");
  }
  CHECK(bad == 0);
  CHECK(saturated > 0);
  float gotAmax;
  std::memcpy(&gotAmax, &amax[0], 4);
  CHECK(double(gotAmax) == amaxWant);
  CHECK(scaleInv[0] == 1.0f / scale);
}

TEST_CASE("softmax of long rows over a cluster of 4 through DSMEM", "[async_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("async_ports_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 2 : 16, n = ported::small() ? 4096 : 65536;
  std::normal_distribution<float> nd(0.0f, 2.0f);
  std::uniform_int_distribution<int> quarter(0, 3);
  std::vector<float> x(size_t(rows) * n);
  for (int r = 0; r < rows; ++r) {
    // One quarter of the row (a random CTA's) holds the row's peak.
    int q = quarter(rng);
    for (int i = 0; i < n; ++i)
      x[size_t(r) * n + size_t(i)] = nd(rng) + (i / (n / 4) == q ? 8.0f : 0.0f) + 30.0f;
  }
  tile::DeviceBuffer<float> dX(x.size()), dOut(x.size());
  dX.copyFrom(x);
  dOut.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(rows * 4));
  mod.kernel("cluster_softmax").launch(cfg, dOut.ptr(), dX.ptr(), int32_t(n));
  ctx.synchronize();
  auto out = dOut.toHost();
  ported::ErrorCount e("softmax");
  for (int r = 0; r < rows; ++r) {
    const float *xr = &x[size_t(r) * n];
    double m = *std::max_element(xr, xr + n), s = 0;
    for (int i = 0; i < n; ++i)
      s += std::exp(double(xr[i]) - m);
    for (int i = 0; i < n; ++i) {
      double want = std::exp(double(xr[i]) - m) / s;
      // exp's 2 ulp on an argument rounded in f32 (|x - M| < 64: 2^-18
      // absolute), the f32 sums of n terms: 1e-5 relative.
      e.check(size_t(r) * n + size_t(i), out[size_t(r) * n + size_t(i)], want, 2e-5 * want + 1e-30);
    }
  }
  CHECK(e.bad() == 0);
}

TEST_CASE("implicit-GEMM 3x3 convolution, NHWC, padding 1", "[async_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("async_ports_gpu"));
  auto rng = ported::freshRng();
  const int NB = ported::small() ? 1 : 2, H = ported::small() ? 3 : 10,
            W = ported::small() ? 70 : 100, C = 128, CO = 256;
  std::uniform_int_distribution<int> dist(-16, 16);
  std::vector<int> xi(size_t(NB) * H * W * C), wi(size_t(CO) * 9 * C);
  std::vector<uint16_t> xb(xi.size()), wb(wi.size());
  for (size_t i = 0; i < xi.size(); ++i) {
    xi[i] = dist(rng);
    xb[i] = bf16Bits(xi[i] / 64.0);
  }
  for (size_t i = 0; i < wi.size(); ++i) {
    wi[i] = dist(rng);
    wb[i] = bf16Bits(wi[i] / 64.0);
  }
  tile::DeviceBuffer<uint16_t> dX(xb.size()), dW(wb.size());
  tile::DeviceBuffer<float> dOut(size_t(NB) * H * W * CO);
  dX.copyFrom(xb);
  dW.copyFrom(wb);
  dOut.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(CO / 128), unsigned(NB * H), unsigned((W + 63) / 64));
  auto bfE = tile::TensorElement::BF16;
  mod.kernel("conv3x3_implicit_gemm")
      .launch(cfg, tile::Tensor(dX, bfE, {NB, H, W, C}), tile::Tensor(dW, bfE, {CO, 9 * C}),
              dOut.ptr());
  ctx.synchronize();
  auto out = dOut.toHost();
  size_t bad = 0;
  for (int b = 0; b < NB; ++b)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < W; ++w)
        for (int co = 0; co < CO; ++co) {
          int64_t acc = 0; // units of 2^-12
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              int hh = h + r - 1, ww = w + s - 1;
              if (hh < 0 || hh >= H || ww < 0 || ww >= W)
                continue;
              const int *xp = &xi[((size_t(b) * H + size_t(hh)) * W + size_t(ww)) * C];
              const int *wp = &wi[(size_t(co) * 9 + size_t(r * 3 + s)) * C];
              for (int c = 0; c < C; ++c)
                acc += int64_t(xp[c]) * wp[c];
            }
          double want = double(acc) / 4096.0;
          float got = out[((size_t(b) * H + size_t(h)) * W + size_t(w)) * CO + size_t(co)];
          if (!(double(got) == want) && bad++ < 5)
            UNSCOPED_INFO("out[" << b << ", " << h << ", " << w << ", " << co << "] = " << got
                                 << ", expected " << want);
        }
  CHECK(bad == 0);
}
