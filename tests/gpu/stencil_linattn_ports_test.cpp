// GPU tests of stencil_linattn_ports.tile on fresh random data: the 9-point
// stencil (float64 reference with zero outside the grid, sizes that end
// mid-tile; its bandwidth printed against the H200's 4.8 TB/s) and the
// chunked linear attention (against the float64 recurrence
// S_t = S_{t-1} + k_t v_t^T, o_t = S_t^T q_t, within the bf16 roundings of
// P and of the shared copy of S).
#include "ported_common.h"

#include <tile/runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

TEST_CASE("9-point stencil through a TMA ring", "[stencil_linattn_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("stencil_linattn_ports_gpu"));
  auto rng = ported::freshRng();
  struct Shape {
    int H, W;
  };
  // W a multiple of 4 (TMA row strides are multiples of 16 bytes).
  std::vector<Shape> shapes = ported::small() ? std::vector<Shape>{{70, 132}}
                                              : std::vector<Shape>{{70, 132}, {1001, 3004}, {8190, 8188}};
  std::uniform_real_distribution<float> ud(-1.0f, 1.0f);
  std::vector<float> w(9);
  for (auto &v : w)
    v = ud(rng);
  tile::DeviceBuffer<float> dW(9);
  dW.copyFrom(w);
  for (const Shape &sh : shapes) {
    const int H = sh.H, W = sh.W;
    INFO("H = " << H << ", W = " << W);
    const size_t n = size_t(H) * W;
    std::vector<float> x(n);
    for (auto &v : x)
      v = ud(rng);
    tile::DeviceBuffer<float> dX(n), dOut(n);
    dX.copyFrom(x);
    dOut.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(384);
    const unsigned tiles = unsigned(((H + 31) / 32) * ((W + 63) / 64));
    cfg.grid = tile::Dim3(std::min(tiles, unsigned(2 * ctx.smCount())));
    tile::Kernel k = mod.kernel("stencil9");
    tile::Tensor tx(dX, tile::TensorElement::F32, {H, W});
    k.launch(cfg, tx, dOut.ptr(), dW.ptr());
    ctx.synchronize();
    auto out = dOut.toHost();
    ported::ErrorCount e("out");
    for (int r = 0; r < H; ++r)
      for (int c = 0; c < W; ++c) {
        double s = 0, mag = 0;
        for (int i = -1; i <= 1; ++i)
          for (int j = -1; j <= 1; ++j) {
            int rr = r + i, cc = c + j;
            if (rr < 0 || rr >= H || cc < 0 || cc >= W)
              continue;
            double p = double(w[size_t((i + 1) * 3 + j + 1)]) * x[size_t(rr) * W + size_t(cc)];
            s += p;
            mag += std::fabs(p);
          }
        // 9 f32 products and sums (fma contraction allowed): 9 * 2^-24 * mag.
        e.check(size_t(r) * W + size_t(c), out[size_t(r) * W + size_t(c)], s,
                9 * 0x1p-24 * mag + 1e-30);
      }
    CHECK(e.bad() == 0);
    if (!ported::small() && n > 10000000) {
      double ms = ported::meanMs(20, [&] { k.launch(cfg, tx, dOut.ptr(), dW.ptr()); });
      ported::printBandwidth("stencil9 " + std::to_string(H) + "x" + std::to_string(W), ms,
                             2.0 * double(n) * 4);
    }
  }
}

TEST_CASE("chunked causal linear attention forward", "[stencil_linattn_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("stencil_linattn_ports_gpu"));
  auto rng = ported::freshRng();
  const int BH = ported::small() ? 2 : 12, T = ported::small() ? 192 : 2048, D = 64;
  const size_t n = size_t(BH) * T * D;
  std::normal_distribution<double> nd(0.0, 0.5);
  std::vector<uint16_t> q(n), k(n), v(n);
  for (auto *a : {&q, &k, &v})
    for (auto &b : *a)
      b = bf16Bits(nd(rng));
  tile::DeviceBuffer<uint16_t> dQ(n), dK(n), dV(n);
  tile::DeviceBuffer<float> dO(n);
  dQ.copyFrom(q);
  dK.copyFrom(k);
  dV.copyFrom(v);
  dO.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(BH));
  const int R = BH * T;
  mod.kernel("linear_attn_fwd")
      .launch(cfg, tile::Tensor(dQ, tile::TensorElement::BF16, {R, D}),
              tile::Tensor(dK, tile::TensorElement::BF16, {R, D}),
              tile::Tensor(dV, tile::TensorElement::BF16, {R, D}), dO.ptr(), int32_t(T));
  ctx.synchronize();
  auto o = dO.toHost();
  ported::ErrorCount e("o");
  std::vector<double> S(size_t(D) * D), Sabs(size_t(D) * D);
  for (int bh = 0; bh < BH; ++bh) {
    std::fill(S.begin(), S.end(), 0.0);
    std::fill(Sabs.begin(), Sabs.end(), 0.0);
    for (int t = 0; t < T; ++t) {
      size_t row = (size_t(bh) * T + size_t(t)) * D;
      for (int a = 0; a < D; ++a) {
        double ka = bf16Value(k[row + size_t(a)]);
        for (int b = 0; b < D; ++b) {
          double vb = bf16Value(v[row + size_t(b)]);
          S[size_t(a) * D + size_t(b)] += ka * vb;
          Sabs[size_t(a) * D + size_t(b)] += std::fabs(ka * vb);
        }
      }
      for (int b = 0; b < D; ++b) {
        double s = 0, mag = 0;
        for (int a = 0; a < D; ++a) {
          double qa = bf16Value(q[row + size_t(a)]);
          s += qa * S[size_t(a) * D + size_t(b)];
          mag += std::fabs(qa) * Sabs[size_t(a) * D + size_t(b)];
        }
        // P and S are rounded to bf16 (2^-9 relative) before their products,
        // the sums are f32: 2^-8 of the magnitude of the terms.
        e.check(row + size_t(b), o[row + size_t(b)], s, 0x1p-8 * mag + 1e-30);
      }
    }
  }
  CHECK(e.bad() == 0);
}
