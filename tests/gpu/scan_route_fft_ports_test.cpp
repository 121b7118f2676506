// GPU tests of scan_route_fft_ports.tile on fresh random data: the
// decoupled look-back scan (exact, wrapping i32, against a sequential sum;
// several tile counts, run twice so stale status words would show), the
// DeepSeek-V3 routing (the experts exactly, except where the float64
// reference's decision is closer than f32 can resolve; the weights within
// f32 rounding), the 1024-point FFT (against a float64 DFT).
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

TEST_CASE("single-pass prefix sum with decoupled look-back", "[scan_route_fft_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("scan_route_fft_ports_gpu"));
  auto rng = ported::freshRng();
  std::vector<int> sizes = ported::small() ? std::vector<int>{1, 2049, 70001}
                                           : std::vector<int>{1, 2048, 2049, 1000003, 50000017};
  for (int n : sizes) {
    INFO("n = " << n);
    std::uniform_int_distribution<int32_t> ud(-(1 << 30), (1 << 30));
    std::vector<int32_t> x(static_cast<size_t>(n));
    for (auto &v : x)
      v = ud(rng); // large values: the sums wrap, as in the kernel
    std::vector<int32_t> want(static_cast<size_t>(n));
    uint32_t run = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      run += uint32_t(x[i]);
      want[i] = int32_t(run);
    }
    const unsigned tiles = unsigned((n + 2047) / 2048);
    tile::DeviceBuffer<int32_t> dX(x.size()), dOut(x.size()), dTicket(1);
    tile::DeviceBuffer<uint64_t> dStatus(tiles);
    dX.copyFrom(x);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(tiles);
    for (int rep = 0; rep < 2; ++rep) {
      dStatus.fillBytes(0);
      dTicket.fillBytes(0);
      dOut.fillBytes(0xA5);
      mod.kernel("scan_lookback").launch(cfg, dOut.ptr(), dX.ptr(), dStatus.ptr(), dTicket.ptr(),
                                         int32_t(n));
      ctx.synchronize();
      auto out = dOut.toHost();
      size_t bad = 0;
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i] != want[i] && bad++ < 5)
          UNSCOPED_INFO("out[" << i << "] = " << out[i] << ", expected " << want[i]);
      CHECK(bad == 0);
      // Every tile ended with its inclusive prefix published.
      auto status = dStatus.toHost();
      size_t unpublished = 0;
      for (unsigned t = 0; t < tiles; ++t) {
        size_t last = std::min(size_t(n), size_t(t + 1) * 2048) - 1;
        unpublished += status[t] != ((uint64_t(2) << 32) | uint32_t(want[last]));
      }
      CHECK(unpublished == 0);
      CHECK(dTicket.toHost()[0] == int32_t(tiles));
    }
  }
}

namespace {
// The float64 routing of one token: the experts in order, the weights, and
// the smallest gap of a decision (groups 4th/5th, experts 8th/9th).
struct Route {
  int idx[8];
  double w[8];
  double margin;
};

Route routeRef(const float *logit, const float *bias, double scaling) {
  double score[256], biased[256];
  for (int e = 0; e < 256; ++e) {
    score[e] = 1.0 / (1.0 + std::exp(-double(logit[e])));
    biased[e] = score[e] + double(bias[e]);
  }
  double gs[8];
  for (int g = 0; g < 8; ++g) {
    double v[32];
    std::copy(biased + 32 * g, biased + 32 * g + 32, v);
    std::partial_sort(v, v + 2, v + 32, std::greater<double>());
    gs[g] = v[0] + v[1];
  }
  int gord[8];
  std::iota(gord, gord + 8, 0);
  std::stable_sort(gord, gord + 8, [&](int a, int b) { return gs[a] > gs[b]; });
  Route r;
  r.margin = gs[gord[3]] - gs[gord[4]];
  std::vector<int> cand;
  for (int k = 0; k < 4; ++k)
    for (int e = 32 * gord[k]; e < 32 * gord[k] + 32; ++e)
      cand.push_back(e);
  std::stable_sort(cand.begin(), cand.end(), [&](int a, int b) {
    return biased[a] > biased[b] || (biased[a] == biased[b] && a < b);
  });
  r.margin = std::min(r.margin, biased[cand[7]] - biased[cand[8]]);
  for (int k = 0; k + 1 < 8; ++k)
    r.margin = std::min(r.margin, biased[cand[k]] - biased[cand[k + 1]]);
  double sum = 0;
  for (int k = 0; k < 8; ++k) {
    r.idx[k] = cand[size_t(k)];
    sum += score[cand[size_t(k)]];
  }
  for (int k = 0; k < 8; ++k)
    r.w[k] = score[r.idx[k]] / sum * scaling;
  return r;
}
} // namespace

TEST_CASE("DeepSeek-V3 grouped top-k MoE routing", "[scan_route_fft_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("scan_route_fft_ports_gpu"));
  auto rng = ported::freshRng();
  const int tokens = ported::small() ? 37 : 8191;
  std::normal_distribution<float> nd(0.0f, 2.0f);
  std::uniform_real_distribution<float> ub(-0.2f, 0.2f);
  std::vector<float> logits(size_t(tokens) * 256), bias(256);
  for (auto &v : logits)
    v = nd(rng);
  for (auto &v : bias)
    v = ub(rng);
  const float scaling = 2.5f;
  tile::DeviceBuffer<float> dLogits(logits.size()), dBias(256), dW(size_t(tokens) * 8);
  tile::DeviceBuffer<int32_t> dIdx(size_t(tokens) * 8);
  dLogits.copyFrom(logits);
  dBias.copyFrom(bias);
  dIdx.fillBytes(0xFF);
  dW.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned((tokens + 7) / 8));
  mod.kernel("dsv3_route").launch(cfg, dIdx.ptr(), dW.ptr(), dLogits.ptr(), dBias.ptr(),
                                  int32_t(tokens), scaling);
  ctx.synchronize();
  auto idx = dIdx.toHost();
  auto w = dW.toHost();
  size_t bad = 0, close = 0;
  ported::ErrorCount e("weight");
  for (int t = 0; t < tokens; ++t) {
    Route r = routeRef(&logits[size_t(t) * 256], bias.data(), scaling);
    // f32 sigmoid (exp's 2 ulp) and sums: about 1e-6 absolute; a decision
    // closer than 1e-5 may go either way.
    if (r.margin < 1e-5) {
      ++close;
      continue;
    }
    for (int k = 0; k < 8; ++k) {
      size_t i = size_t(t) * 8 + size_t(k);
      if (idx[i] != r.idx[k] && bad++ < 5)
        UNSCOPED_INFO("token " << t << " expert " << k << " = " << idx[i] << ", expected "
                               << r.idx[k]);
      e.check(i, w[i], r.w[k], 1e-5 * r.w[k]);
    }
  }
  CHECK(bad == 0);
  CHECK(e.bad() == 0);
  CHECK(close <= size_t(tokens) / 50);
}

TEST_CASE("1024-point complex FFT per CTA", "[scan_route_fft_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("scan_route_fft_ports_gpu"));
  auto rng = ported::freshRng();
  const int batch = ported::small() ? 3 : 96;
  const size_t n = size_t(batch) * 1024;
  std::uniform_real_distribution<float> ud(-1.0f, 1.0f);
  std::vector<float> re(n), im(n);
  for (size_t i = 0; i < n; ++i) {
    re[i] = ud(rng);
    im[i] = ud(rng);
  }
  tile::DeviceBuffer<float> dRe(n), dIm(n), dOr(n), dOi(n);
  dRe.copyFrom(re);
  dIm.copyFrom(im);
  dOr.fillBytes(0xFF);
  dOi.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(1024);
  cfg.grid = tile::Dim3(unsigned(batch));
  mod.kernel("fft1024").launch(cfg, dOr.ptr(), dOi.ptr(), dRe.ptr(), dIm.ptr());
  ctx.synchronize();
  auto orr = dOr.toHost();
  auto oi = dOi.toHost();
  std::vector<double> cs(1024), sn(1024);
  for (int k = 0; k < 1024; ++k) {
    cs[size_t(k)] = std::cos(2 * M_PI * k / 1024);
    sn[size_t(k)] = std::sin(2 * M_PI * k / 1024);
  }
  ported::ErrorCount e("X");
  for (int b = 0; b < batch; ++b) {
    const float *xr = &re[size_t(b) * 1024], *xi = &im[size_t(b) * 1024];
    double norm = 0;
    for (int j = 0; j < 1024; ++j)
      norm += double(xr[j]) * xr[j] + double(xi[j]) * xi[j];
    // 10 stages of f32 butterflies (each about 2 ulp of the running
    // magnitude) with f32 twiddles: 1e-6 * log2(N) of the l2 norm.
    const double bound = 1e-5 * std::sqrt(norm);
    for (int k = 0; k < 1024; ++k) {
      double sr = 0, si = 0;
      for (int j = 0; j < 1024; ++j) {
        size_t a = size_t((j * k) & 1023);
        // x_j * exp(-2 pi i jk / N)
        sr += xr[j] * cs[a] + xi[j] * sn[a];
        si += xi[j] * cs[a] - xr[j] * sn[a];
      }
      size_t i = size_t(b) * 1024 + size_t(k);
      e.check(i, orr[i], sr, bound);
      e.check(i, oi[i], si, bound);
    }
  }
  CHECK(e.bad() == 0);
}
