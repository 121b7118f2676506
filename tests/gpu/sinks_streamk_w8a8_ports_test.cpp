// GPU tests of sinks_streamk_w8a8_ports.tile on fresh random data:
//  - attention with sinks and a sliding window: windows of 1 key, 128 keys
//    and more than the sequence (plain causal), S no multiple of the
//    blocks, grouped-query heads, O (bf16, poisoned first) against float64;
//  - stream-K GEMM: bf16 inputs k/8 with small integer k, so every partial
//    sum is exact in f32 and C (bf16) must be the float64 result rounded
//    once, whatever the split; grids of 1, 7, 64 CTAs and one per SM, M, N
//    and K no multiples of the tile, C and the workspace poisoned; two
//    launches per grid on one flag array (epochs 2g + 1, 2g + 2);
//  - W8A8 GEMM: A quantised per token by quant_int8_per_token
//    (quant_conv_sample_ports.tile) from random bf16 activations, random
//    int8 weights, scales and a bias, against float64 of the quantised
//    operands.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

TEST_CASE("attention with sinks and a sliding window", "[sinks_streamk_w8a8_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("sinks_streamk_w8a8_ports_gpu"));
  auto rng = ported::freshRng();
  const int D = 64, B = ported::small() ? 1 : 2, H = ported::small() ? 4 : 8, KVH = 2;
  const int S = ported::small() ? 200 : 1000;
  const float scale = 1.0f / 8.0f;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> q(size_t(B) * H * S * D), k(size_t(B) * KVH * S * D), v(k.size());
  for (auto *t : {&q, &k, &v})
    for (auto &x : *t)
      x = bf16Bits(nd(rng));
  std::uniform_real_distribution<float> us(-1.0f, 3.0f);
  std::vector<float> sinks(static_cast<size_t>(H));
  for (auto &x : sinks)
    x = us(rng);
  tile::DeviceBuffer<uint16_t> dQ(q.size()), dK(k.size()), dV(v.size()), dO(q.size());
  tile::DeviceBuffer<float> dSinks(sinks.size());
  dQ.copyFrom(q);
  dK.copyFrom(k);
  dV.copyFrom(v);
  dSinks.copyFrom(sinks);
  auto bfE = tile::TensorElement::BF16;
  for (int W : {1, 128, 100000}) {
    INFO("W = " << W);
    dO.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(384);
    cfg.grid = tile::Dim3(unsigned((S + 127) / 128), unsigned(H), unsigned(B));
    mod.kernel("attention_sinks")
        .launch(cfg, tile::Tensor(dQ, bfE, {B * H * S, D}), tile::Tensor(dK, bfE, {B * KVH * S, D}),
                tile::Tensor(dV, bfE, {B * KVH * S, D}), dO.ptr(), dSinks.ptr(), int32_t(S),
                int32_t(KVH), int32_t(W), scale);
    ctx.synchronize();
    auto o = dO.toHost();
    ported::ErrorCount e("O");
    std::vector<double> s(static_cast<size_t>(S));
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const size_t qBase = size_t(b * H + h) * S, kBase = size_t(b * KVH + h / (H / KVH)) * S;
        for (int i = 0; i < S; ++i) {
          const int lo = std::max(i - W + 1, 0);
          double m = sinks[size_t(h)];
          for (int j = lo; j <= i; ++j) {
            double dot = 0;
            for (int d = 0; d < D; ++d)
              dot += bf16Value(q[(qBase + size_t(i)) * D + size_t(d)]) *
                     bf16Value(k[(kBase + size_t(j)) * D + size_t(d)]);
            s[size_t(j)] = dot * scale;
            m = std::max(m, s[size_t(j)]);
          }
          double l = std::exp(sinks[size_t(h)] - m);
          for (int j = lo; j <= i; ++j)
            l += std::exp(s[size_t(j)] - m);
          for (int d = 0; d < D; ++d) {
            double acc = 0, mag = 0;
            for (int j = lo; j <= i; ++j) {
              double p = std::exp(s[size_t(j)] - m) / l;
              double x = bf16Value(v[(kBase + size_t(j)) * D + size_t(d)]);
              acc += p * x;
              mag += p * std::fabs(x);
            }
            // P rounded to bf16 (2^-9), O to bf16 (2^-9 of |O|), f32 and
            // exp2's few ulp.
            size_t at = (qBase + size_t(i)) * D + size_t(d);
            e.check(at, bf16Value(o[at]), acc, std::ldexp(std::fabs(acc), -8) +
                                                     std::ldexp(mag, -7) + 1e-6);
          }
        }
      }
    CHECK(e.bad() == 0);
  }
}

TEST_CASE("stream-K GEMM with per-CTA flags", "[sinks_streamk_w8a8_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("sinks_streamk_w8a8_ports_gpu"));
  auto rng = ported::freshRng();
  const int M = ported::small() ? 136 : 300, N = ported::small() ? 136 : 328,
            K = ported::small() ? 328 : 2000;
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<uint16_t> a(size_t(M) * K), b(size_t(N) * K);
  for (auto &x : a)
    x = bf16Bits(small(rng) / 8.0);
  for (auto &x : b)
    x = bf16Bits(small(rng) / 8.0);
  std::vector<uint16_t> want(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int kk = 0; kk < K; ++kk)
        s += bf16Value(a[size_t(i) * K + size_t(kk)]) * bf16Value(b[size_t(j) * K + size_t(kk)]);
      want[size_t(i) * N + size_t(j)] = bf16Bits(s);
    }
  const int sms = ctx.smCount();
  std::vector<int> grids = ported::small() ? std::vector<int>{1, 7} : std::vector<int>{1, 7, 64, sms};
  const int maxGrid = *std::max_element(grids.begin(), grids.end());
  tile::DeviceBuffer<uint16_t> dA(a.size()), dB(b.size()), dC(want.size());
  tile::DeviceBuffer<float> dWs(size_t(maxGrid) * 128 * 128);
  tile::DeviceBuffer<int32_t> dFlags(static_cast<size_t>(maxGrid));
  dA.copyFrom(a);
  dB.copyFrom(b);
  dFlags.fillBytes(0);
  auto bfE = tile::TensorElement::BF16;
  for (size_t gi = 0; gi < grids.size(); ++gi)
    for (int rep = 1; rep <= 2; ++rep) {
      const int g = grids[gi], epoch = int(2 * gi) + rep;
      INFO("grid = " << g << ", epoch = " << epoch);
      dC.fillBytes(0xFF);
      dWs.fillBytes(0xFF);
      tile::LaunchConfig cfg;
      cfg.block = tile::Dim3(384);
      cfg.grid = tile::Dim3(unsigned(g));
      mod.kernel("gemm_streamk")
          .launch(cfg, tile::Tensor(dA, bfE, {M, K}), tile::Tensor(dB, bfE, {N, K}), dC.ptr(),
                  dWs.ptr(), dFlags.ptr(), int32_t(epoch));
      ctx.synchronize();
      auto c = dC.toHost();
      ported::ErrorCount e("C");
      for (size_t i = 0; i < c.size(); ++i)
        e.check(i, bf16Value(c[i]), bf16Value(want[i]), 0.0);
      CHECK(e.bad() == 0);
    }
}

TEST_CASE("W8A8 GEMM with per-token quantised activations", "[sinks_streamk_w8a8_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("sinks_streamk_w8a8_ports_gpu"));
  tile::Module quant = tile::Module::fromFiles(ctx, ported::ptxPath("quant_conv_sample_ports_gpu"));
  auto rng = ported::freshRng();
  const int M = ported::small() ? 136 : 300, N = ported::small() ? 136 : 328,
            K = ported::small() ? 272 : 1008;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> x(size_t(M) * K), bias(static_cast<size_t>(N));
  for (auto &t : x)
    t = bf16Bits(nd(rng));
  for (auto &t : bias)
    t = bf16Bits(nd(rng));
  std::uniform_int_distribution<int> w8(-127, 127);
  std::vector<int8_t> w(size_t(N) * K);
  for (auto &t : w)
    t = int8_t(w8(rng));
  std::uniform_real_distribution<float> us(0.001f, 0.02f);
  std::vector<float> sb(static_cast<size_t>(N));
  for (auto &t : sb)
    t = us(rng);
  tile::DeviceBuffer<uint16_t> dX(x.size()), dBias(bias.size()), dC(size_t(M) * N);
  tile::DeviceBuffer<int8_t> dQ(x.size()), dW(w.size());
  tile::DeviceBuffer<float> dSa(static_cast<size_t>(M)), dSb(sb.size());
  dX.copyFrom(x);
  dBias.copyFrom(bias);
  dW.copyFrom(w);
  dSb.copyFrom(sb);
  dC.fillBytes(0xFF);
  tile::LaunchConfig qc;
  qc.block = tile::Dim3(256);
  qc.grid = tile::Dim3(unsigned(M));
  quant.kernel("quant_int8_per_token").launch(qc, dQ.ptr(), dSa.ptr(), dX.ptr(), int32_t(K));
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(384);
  cfg.grid = tile::Dim3(unsigned((N + 127) / 128), unsigned((M + 127) / 128));
  mod.kernel("gemm_w8a8")
      .launch(cfg, tile::Tensor(dQ, {M, K}), tile::Tensor(dW, {N, K}), dC.ptr(), dSa.ptr(),
              dSb.ptr(), dBias.ptr());
  ctx.synchronize();
  auto qa = dQ.toHost();
  auto sa = dSa.toHost();
  auto c = dC.toHost();
  // The quantised activations are the quantisation test's business
  // (quant_conv_sample_ports_test.cpp); here C is checked against them.
  ported::ErrorCount e("C");
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (int kk = 0; kk < K; ++kk)
        acc += int64_t(qa[size_t(i) * K + size_t(kk)]) * w[size_t(j) * K + size_t(kk)];
      double prod = double(acc) * sa[size_t(i)] * sb[size_t(j)];
      double want = prod + bf16Value(bias[size_t(j)]);
      // f32 products and sum (a few 2^-24), then one bf16 rounding (2^-9).
      e.check(size_t(i) * N + size_t(j), bf16Value(c[size_t(i) * N + size_t(j)]), want,
              std::ldexp(std::fabs(want), -8) + 1e-6 * (std::fabs(prod) + 1.0));
    }
  CHECK(e.bad() == 0);
}
