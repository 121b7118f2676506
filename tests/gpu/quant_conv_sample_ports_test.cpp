// GPU tests of quant_conv_sample_ports.tile on fresh random data:
//  - fused residual add + RMSNorm + per-token fp8 quantisation: the new
//    residual exactly (bf16 of the f32 sum), the scales against float64,
//    the e4m3 outputs within half an e4m3 step of float64's y / scale;
//  - per-token int8 quantisation: exact against the host's f32 x / scale
//    rounded to nearest even, with a row of exact halves (ties), a row of
//    zeros and random rows;
//  - depthwise NHWC convolution: k = 3, 5, 7, strides 1 and 2, padding
//    k / 2 and 0, against float64;
//  - Gumbel-max sampling: the host runs the same Philox-4x32-10 streams; the
//    sampled index's float64 score must be the row's best (up to f32
//    rounding) and its score the float64 one;
//  - LSD radix sort: 4 passes of 8 bits, exact against std::stable_sort
//    (values are the original indices: stability shows), with the time.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

namespace {

tile::Module load(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("quant_conv_sample_ports_gpu"));
}

double e4m3Value(uint8_t b) { return tile::floatValue(tile::ScalarType::E4M3, b); }

std::array<uint32_t, 4> philox(std::array<uint32_t, 4> x, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * x[0], p1 = uint64_t(0xCD9E8D57u) * x[2];
    x = {uint32_t(p1 >> 32) ^ x[1] ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ x[3] ^ k1,
         uint32_t(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return x;
}

} // namespace

TEST_CASE("fused residual add + RMSNorm + per-token fp8 quantisation", "[quant_conv_sample_ports]") {
  tile::Context ctx(0);
  tile::Module mod = load(ctx);
  auto rng = ported::freshRng();
  const int T = ported::small() ? 4 : 64, H = ported::small() ? 1000 : 5000;
  const float eps = 1e-6f;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> x(size_t(T) * H), r(x.size()), w(static_cast<size_t>(H));
  for (auto *t : {&x, &r, &w})
    for (auto &v : *t)
      v = bf16Bits(nd(rng));
  tile::DeviceBuffer<uint16_t> dX(x.size()), dR(r.size()), dW(w.size());
  tile::DeviceBuffer<uint8_t> dOut(x.size());
  tile::DeviceBuffer<float> dS(static_cast<size_t>(T));
  dX.copyFrom(x);
  dR.copyFrom(r);
  dW.copyFrom(w);
  dOut.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(T));
  mod.kernel("fused_add_rmsnorm_fp8")
      .launch(cfg, dOut.ptr(), dS.ptr(), dX.ptr(), dR.ptr(), dW.ptr(), int32_t(H), eps);
  ctx.synchronize();
  auto out = dOut.toHost();
  auto res = dR.toHost();
  auto sc = dS.toHost();
  ported::ErrorCount eR("residual"), eS("scale"), eQ("out");
  for (int t = 0; t < T; ++t) {
    std::vector<double> z(static_cast<size_t>(H));
    double ss = 0;
    for (int i = 0; i < H; ++i) {
      size_t at = size_t(t) * H + size_t(i);
      float sum = float(bf16Value(x[at])) + float(bf16Value(r[at]));
      uint16_t zb = bf16Bits(sum);
      eR.check(at, res[at], zb, 0.0);
      z[size_t(i)] = bf16Value(zb);
      ss += z[size_t(i)] * z[size_t(i)];
    }
    double inv = 1.0 / std::sqrt(ss / H + eps), amax = 0;
    std::vector<double> y(static_cast<size_t>(H));
    for (int i = 0; i < H; ++i) {
      y[size_t(i)] = z[size_t(i)] * inv * bf16Value(w[size_t(i)]);
      amax = std::max(amax, std::fabs(y[size_t(i)]));
    }
    double s = std::max(amax / 448.0, 1.0 / (448.0 * 512.0));
    eS.check(size_t(t), sc[size_t(t)], s, 1e-5 * s);
    for (int i = 0; i < H; ++i) {
      size_t at = size_t(t) * H + size_t(i);
      double want = y[size_t(i)] / sc[size_t(t)];
      // Half an e4m3 step (2^-4 of the value; 2^-10 among subnormals),
      // plus f32's few ulp before the rounding.
      eQ.check(at, e4m3Value(out[at]), want,
               std::ldexp(std::fabs(want), -4) * (1 + 1e-5) + std::ldexp(1.0, -10));
    }
  }
  CHECK(eR.bad() == 0);
  CHECK(eS.bad() == 0);
  CHECK(eQ.bad() == 0);
}

TEST_CASE("per-token int8 quantisation rounds to nearest even", "[quant_conv_sample_ports]") {
  tile::Context ctx(0);
  tile::Module mod = load(ctx);
  auto rng = ported::freshRng();
  const int T = ported::small() ? 4 : 96, K = ported::small() ? 300 : 4000;
  std::normal_distribution<double> nd(0.0, 3.0);
  std::uniform_int_distribution<int> half(-126, 125);
  std::vector<uint16_t> x(size_t(T) * K);
  for (auto &v : x)
    v = bf16Bits(nd(rng));
  // Row 0: absmax 127 (scale 1) and every other value an exact half, so
  // each rounds on a tie (bf16 holds h + 0.5 for |h| < 128).
  for (int i = 0; i < K; ++i)
    x[size_t(i)] = bf16Bits(i == 0 ? 127.0 : half(rng) + 0.5);
  // Row 1: zeros.
  for (int i = 0; i < K; ++i)
    x[size_t(K) + size_t(i)] = 0;
  tile::DeviceBuffer<uint16_t> dX(x.size());
  tile::DeviceBuffer<int8_t> dQ(x.size());
  tile::DeviceBuffer<float> dS(static_cast<size_t>(T));
  dX.copyFrom(x);
  dQ.fillBytes(0x55);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(T));
  mod.kernel("quant_int8_per_token").launch(cfg, dQ.ptr(), dS.ptr(), dX.ptr(), int32_t(K));
  ctx.synchronize();
  auto q = dQ.toHost();
  auto sc = dS.toHost();
  ported::ErrorCount eS("scale"), eQ("q");
  for (int t = 0; t < T; ++t) {
    float amax = 0;
    for (int i = 0; i < K; ++i)
      amax = std::max(amax, float(std::fabs(bf16Value(x[size_t(t) * K + size_t(i)]))));
    float s = amax == 0 ? 1.0f : amax / 127.0f;
    eS.check(size_t(t), sc[size_t(t)], s, 0.0);
    for (int i = 0; i < K; ++i) {
      size_t at = size_t(t) * K + size_t(i);
      float v = std::nearbyint(float(bf16Value(x[at])) / s); // the default mode: to nearest even
      eQ.check(at, q[at], std::min(std::max(v, -128.0f), 127.0f), 0.0);
    }
  }
  CHECK(eS.bad() == 0);
  CHECK(eQ.bad() == 0);
}

TEST_CASE("depthwise NHWC convolution", "[quant_conv_sample_ports]") {
  tile::Context ctx(0);
  tile::Module mod = load(ctx);
  auto rng = ported::freshRng();
  const int N = ported::small() ? 1 : 2, H = ported::small() ? 13 : 37,
            W = ported::small() ? 11 : 41, C = ported::small() ? 24 : 72;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> x(size_t(N) * H * W * C), w(size_t(49) * C);
  std::vector<float> bias(static_cast<size_t>(C));
  for (auto *t : {&x, &w})
    for (auto &v : *t)
      v = bf16Bits(nd(rng));
  for (auto &v : bias)
    v = float(nd(rng));
  tile::DeviceBuffer<uint16_t> dX(x.size()), dW(w.size()), dOut(x.size());
  tile::DeviceBuffer<float> dBias(bias.size());
  dX.copyFrom(x);
  dBias.copyFrom(bias);
  for (int ks : {3, 5, 7}) {
    std::vector<uint16_t> wk(w.begin(), w.begin() + ptrdiff_t(ks * ks * C));
    dW.copyFrom(wk);
    for (int stride : {1, 2})
      for (int pad : {ks / 2, 0}) {
        INFO("k = " << ks << ", stride = " << stride << ", pad = " << pad);
        const int OH = (H + 2 * pad - ks) / stride + 1, OW = (W + 2 * pad - ks) / stride + 1;
        dOut.fillBytes(0xFF);
        tile::LaunchConfig cfg;
        cfg.block = tile::Dim3(256);
        cfg.grid = tile::Dim3(unsigned(2 * ctx.smCount()));
        mod.kernel("dwconv2d_nhwc", {{"KS", ks}})
            .launch(cfg, dOut.ptr(), dX.ptr(), dW.ptr(), dBias.ptr(), int32_t(N), int32_t(H),
                    int32_t(W), int32_t(C), int32_t(OH), int32_t(OW), int32_t(stride),
                    int32_t(pad));
        ctx.synchronize();
        auto out = dOut.toHost();
        ported::ErrorCount e("out");
        for (int n = 0; n < N; ++n)
          for (int oh = 0; oh < OH; ++oh)
            for (int ow = 0; ow < OW; ++ow)
              for (int c = 0; c < C; ++c) {
                double acc = bias[size_t(c)], mag = std::fabs(acc);
                for (int kh = 0; kh < ks; ++kh)
                  for (int kw = 0; kw < ks; ++kw) {
                    int ih = oh * stride - pad + kh, iw = ow * stride - pad + kw;
                    if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                      continue;
                    double p = bf16Value(x[((size_t(n) * H + size_t(ih)) * W + size_t(iw)) * C +
                                           size_t(c)]) *
                               bf16Value(wk[size_t((kh * ks + kw) * C + c)]);
                    acc += p;
                    mag += std::fabs(p);
                  }
                size_t at = ((size_t(n) * OH + size_t(oh)) * OW + size_t(ow)) * C + size_t(c);
                e.check(at, bf16Value(out[at]), acc,
                        std::ldexp(std::fabs(acc), -8) + 1e-6 * mag);
              }
        CHECK(e.bad() == 0);
      }
  }
}

TEST_CASE("Gumbel-max sampling with a Philox stream per row", "[quant_conv_sample_ports]") {
  tile::Context ctx(0);
  tile::Module mod = load(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 8, V = ported::small() ? 5003 : 128256;
  std::normal_distribution<float> nd(0.0f, 2.0f);
  std::vector<float> logits(size_t(B) * V);
  for (auto &v : logits)
    v = nd(rng);
  const uint64_t seed = rng();
  const uint32_t seedLo = uint32_t(seed), seedHi = uint32_t(seed >> 32), offset = uint32_t(rng());
  tile::DeviceBuffer<float> dL(logits.size()), dScore(static_cast<size_t>(B));
  tile::DeviceBuffer<int32_t> dIdx(static_cast<size_t>(B));
  dL.copyFrom(logits);
  for (float temp : {0.7f, 100.0f}) {
    INFO("T = " << temp);
    const float invT = 1.0f / temp;
    dIdx.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(1024);
    cfg.grid = tile::Dim3(unsigned(B));
    mod.kernel("gumbel_sample")
        .launch(cfg, dIdx.ptr(), dScore.ptr(), dL.ptr(), int32_t(V), invT, seedLo, seedHi,
                offset);
    ctx.synchronize();
    auto idx = dIdx.toHost();
    auto score = dScore.toHost();
    int same = 0;
    for (int b = 0; b < B; ++b) {
      std::vector<double> s(static_cast<size_t>(V));
      int best = 0;
      for (int g = 0; 4 * g < V; ++g) {
        auto r = philox({uint32_t(g), uint32_t(b), offset, 0}, seedLo, seedHi);
        for (int j = 0; j < 4 && 4 * g + j < V; ++j) {
          const int v = 4 * g + j;
          double u = (double(r[size_t(j)] >> 9) + 0.5) * std::ldexp(1.0, -23);
          s[size_t(v)] = double(logits[size_t(b) * V + size_t(v)] * invT) - std::log(-std::log(u));
          if (s[size_t(v)] > s[size_t(best)])
            best = v;
        }
      }
      const int got = idx[size_t(b)];
      INFO("row " << b << ": sampled " << got << ", float64's best " << best);
      REQUIRE(got >= 0);
      REQUIRE(got < V);
      // f32's logit / T (exact product rounded once) and log(-log(u)) (a
      // few ulp of about 20): 1e-5 covers them.
      CHECK(s[size_t(got)] >= s[size_t(best)] - 1e-5 * (1 + std::fabs(s[size_t(best)])));
      CHECK(std::fabs(score[size_t(b)] - s[size_t(got)]) <= 1e-5 * (1 + std::fabs(s[size_t(got)])));
      same += got == best;
    }
    UNSCOPED_INFO("rows whose sample is float64's argmax: " << same << " of " << B);
    CHECK(same >= B - 1);
  }
}

TEST_CASE("LSD radix sort of u32 keys with values", "[quant_conv_sample_ports]") {
  tile::Context ctx(0);
  tile::Module mod = load(ctx);
  auto rng = ported::freshRng();
  // Keys from a narrow range too (many equal keys: stability shows), and
  // n no multiple of the 4096-key tile.
  const int n = ported::small() ? 10000 : (1 << 22) + 12345;
  const int tiles = (n + 4095) / 4096;
  std::vector<uint32_t> keys(static_cast<size_t>(n)), vals(static_cast<size_t>(n));
  std::uniform_int_distribution<uint32_t> any, narrow(0, 999);
  for (int i = 0; i < n; ++i) {
    keys[size_t(i)] = i % 3 == 0 ? narrow(rng) : any(rng);
    vals[size_t(i)] = uint32_t(i);
  }
  std::vector<std::pair<uint32_t, uint32_t>> want(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    want[size_t(i)] = {keys[size_t(i)], vals[size_t(i)]};
  std::stable_sort(want.begin(), want.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  tile::DeviceBuffer<uint32_t> k0(keys.size()), v0(keys.size()), k1(keys.size()), v1(keys.size());
  tile::DeviceBuffer<int32_t> counts(size_t(256) * tiles);
  auto sort = [&] {
    tile::LaunchConfig up, one, down;
    up.block = down.block = tile::Dim3(256);
    up.grid = down.grid = tile::Dim3(unsigned(tiles));
    one.block = tile::Dim3(1024);
    one.grid = tile::Dim3(1);
    for (int pass = 0; pass < 4; ++pass) {
      auto &ki = pass % 2 ? k1 : k0, &vi = pass % 2 ? v1 : v0;
      auto &ko = pass % 2 ? k0 : k1, &vo = pass % 2 ? v0 : v1;
      mod.kernel("radix_upsweep").launch(up, counts.ptr(), ki.ptr(), int32_t(n), int32_t(8 * pass));
      mod.kernel("radix_scan").launch(one, counts.ptr(), int32_t(256 * tiles));
      mod.kernel("radix_downsweep")
          .launch(down, ko.ptr(), vo.ptr(), ki.ptr(), vi.ptr(), counts.ptr(), int32_t(n),
                  int32_t(8 * pass));
    }
  };
  k0.copyFrom(keys);
  v0.copyFrom(vals);
  k1.fillBytes(0xFF);
  v1.fillBytes(0xFF);
  sort();
  ctx.synchronize();
  auto gk = k0.toHost(), gv = v0.toHost();
  size_t bad = 0;
  for (size_t i = 0; i < size_t(n); ++i)
    if ((gk[i] != want[i].first || gv[i] != want[i].second) && bad++ < 5)
      UNSCOPED_INFO("[" << i << "] = (" << gk[i] << ", " << gv[i] << "), expected ("
                        << want[i].first << ", " << want[i].second << ")");
  CHECK(bad == 0);
  if (!ported::small()) {
    const int reps = 5;
    float ms = 0;
    for (int r = 0; r < reps; ++r) {
      k0.copyFrom(keys); // random keys again (the sort runs from k0 / v0)
      tile::EventTimer timer;
      timer.start();
      sort();
      ms += timer.stopMs() / reps;
    }
    std::printf("radix sort: %d u32 key/value pairs in %.3f ms: %.0f Mkeys/s\n", n, double(ms),
                n / (double(ms) * 1e3));
  }
}
