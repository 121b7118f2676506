// GPU tests of moe_conv.tile on fresh random data. The grouped GEMM's inputs
// are k/64 with k a random integer in [-64, 64], exact in bf16, so every
// product and partial sum is exact in f32 and the result must equal the
// float64 reference exactly; group sizes include 0, 1 and sizes that end
// mid-tile, K is no multiple of the k step, and the grid has CTAs past the
// last tile. The output is poisoned (NaN) first, so a row that no tile
// stores, or a tail row stored into the next expert's rows, shows. The
// causal conv1d is checked against float64 with and without SiLU. The
// routing weights have exactly T entries, so under compute-sanitizer a
// gate read past the last expert's last row is an out-of-bounds access.
#include "ported_common.h"

#include <tile/runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

TEST_CASE("MoE grouped GEMM with variable group sizes", "[moe_conv]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("moe_conv_gpu"));
  auto rng = ported::freshRng();
  std::vector<int32_t> sizes = ported::small()
                                   ? std::vector<int32_t>{0, 1, 130, 17}
                                   : std::vector<int32_t>{0, 1, 130, 64, 300, 17, 0, 511};
  const int E = int(sizes.size()), N = 256, K = 200;
  std::vector<int32_t> offsets(size_t(E) + 1, 0);
  int tiles = 0;
  for (int e = 0; e < E; ++e) {
    offsets[size_t(e) + 1] = offsets[size_t(e)] + sizes[size_t(e)];
    tiles += (sizes[size_t(e)] + 127) / 128;
  }
  const int T = offsets[size_t(E)];
  std::uniform_int_distribution<int> dist(-64, 64);
  auto bf16 = [](int k) {
    float f = float(k) / 64.0f;
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return uint16_t(bits >> 16); // exact: at most 7 significant bits
  };
  std::vector<int> a(size_t(T) * K), w(size_t(E) * N * K);
  std::vector<uint16_t> aBits(a.size()), wBits(w.size());
  for (size_t i = 0; i < a.size(); ++i)
    aBits[i] = bf16(a[i] = dist(rng));
  for (size_t i = 0; i < w.size(); ++i)
    wBits[i] = bf16(w[i] = dist(rng));
  // Routing weights k/4, k in [1, 8]: exact products with the accumulator.
  std::uniform_int_distribution<int> gd(1, 8);
  std::vector<float> gate(static_cast<size_t>(T));
  for (auto &g : gate)
    g = float(gd(rng)) / 4.0f;
  tile::DeviceBuffer<uint16_t> dA(a.size()), dW(w.size());
  tile::DeviceBuffer<float> dC(size_t(T) * N), dGate(gate.size());
  tile::DeviceBuffer<int32_t> dOff(offsets.size());
  dA.copyFrom(aBits);
  dW.copyFrom(wBits);
  dGate.copyFrom(gate);
  dOff.copyFrom(offsets);
  dC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(384);
  cfg.grid = tile::Dim3(unsigned(N / 128), unsigned(tiles + 2)); // 2 CTAs with no tile
  auto bfE = tile::TensorElement::BF16;
  mod.kernel("moe_grouped_gemm")
      .launch(cfg, tile::Tensor(dA, bfE, {T, K}), tile::Tensor(dW, bfE, {E * N, K}), dC.ptr(),
              dGate.ptr(), dOff.ptr(), int32_t(E), int32_t(N));
  ctx.synchronize();
  auto c = dC.toHost();
  size_t bad = 0;
  for (int e = 0; e < E; ++e)
    for (int r = offsets[size_t(e)]; r < offsets[size_t(e) + 1]; ++r)
      for (int n = 0; n < N; ++n) {
        int64_t want = 0; // in units of 2^-12
        for (int k = 0; k < K; ++k)
          want += int64_t(a[size_t(r) * K + k]) * w[(size_t(e) * N + n) * K + size_t(k)];
        float got = c[size_t(r) * N + n];
        double ref = double(want) / 4096.0 * gate[size_t(r)];
        if (!(double(got) == ref) && bad++ < 5)
          UNSCOPED_INFO("C[" << r << ", " << n << "] (expert " << e << ") = " << got
                             << ", expected " << ref);
      }
  CHECK(bad == 0);
}

TEST_CASE("causal depthwise conv1d through a TMA ring", "[moe_conv]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("moe_conv_gpu"));
  auto rng = ported::freshRng();
  const int B = ported::small() ? 1 : 3, L = ported::small() ? 130 : 1000, C = 96, W = 4;
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(size_t(B) * L * C), w(size_t(C) * W), bias(static_cast<size_t>(C));
  for (auto &v : x)
    v = nd(rng);
  for (auto &v : w)
    v = nd(rng);
  for (auto &v : bias)
    v = nd(rng);
  tile::DeviceBuffer<float> dX(x.size()), dW(w.size()), dBias(bias.size()), dOut(x.size());
  dX.copyFrom(x);
  dW.copyFrom(w);
  dBias.copyFrom(bias);
  for (int silu = 0; silu < 2; ++silu) {
    dOut.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(unsigned(C / 32), unsigned(B));
    mod.kernel("causal_conv1d")
        .launch(cfg, tile::Tensor(dX, {B, L, C}), dOut.ptr(), dW.ptr(), dBias.ptr(), uint8_t(silu));
    ctx.synchronize();
    auto out = dOut.toHost();
    ported::ErrorCount e(silu ? "conv1d+silu" : "conv1d");
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < L; ++t)
        for (int c = 0; c < C; ++c) {
          double v = bias[size_t(c)], mag = std::fabs(v);
          for (int k = 0; k < W; ++k) {
            int tt = t - (W - 1) + k;
            if (tt >= 0) {
              double term = double(w[size_t(c) * W + size_t(k)]) *
                            x[(size_t(b) * L + size_t(tt)) * C + size_t(c)];
              v += term;
              mag += std::fabs(term);
            }
          }
          double want = silu ? v / (1 + std::exp(-v)) : v;
          size_t i = (size_t(b) * L + size_t(t)) * C + size_t(c);
          e.check(i, out[i], want, 1e-6 * mag + 1e-6);
        }
    CHECK(e.bad() == 0);
  }
}
