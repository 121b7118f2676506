// GPU tests of simt_ports.tile on fresh random data: top-k (exact: values
// and columns, ties by column), the bitonic sort (exact: keys sorted, each
// payload still with its key), index_add (f32 within float64 bounds; bf16
// exact on integer values that every partial sum keeps exact), the
// embedding bag (sum / mean, empty bags), GroupNorm (output, mean and rstd
// against float64) and the chunked selective scan (against the sequential
// float64 recurrence).
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

TEST_CASE("top-k of long rows with values and indices", "[simt_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("simt_ports_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 3 : 24, n = ported::small() ? 4099 : 32768;
  // Values from a small set, so ties are frequent and broken by column.
  std::uniform_int_distribution<int> vd(-2000, 2000);
  std::vector<float> x(size_t(rows) * n);
  for (auto &v : x)
    v = float(vd(rng)) / 16.0f;
  tile::DeviceBuffer<float> dX(x.size()), dV(size_t(rows) * 64);
  tile::DeviceBuffer<int32_t> dI(size_t(rows) * 64);
  dX.copyFrom(x);
  for (int k : {1, 7, 64}) {
    INFO("k = " << k);
    dV.fillBytes(0xFF);
    dI.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(unsigned(rows));
    mod.kernel("topk_rows").launch(cfg, dV.ptr(), dI.ptr(), dX.ptr(), int32_t(n), int32_t(k));
    ctx.synchronize();
    auto vals = dV.toHost();
    auto idx = dI.toHost();
    size_t bad = 0;
    for (int r = 0; r < rows; ++r) {
      std::vector<int> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      const float *row = &x[size_t(r) * n];
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return row[a] > row[b] || (row[a] == row[b] && a < b);
      });
      for (int j = 0; j < k; ++j) {
        size_t o = size_t(r) * k + size_t(j);
        if ((idx[o] != order[size_t(j)] || vals[o] != row[order[size_t(j)]]) && bad++ < 5)
          UNSCOPED_INFO("row " << r << " #" << j << ": (" << vals[o] << ", " << idx[o]
                               << "), expected (" << row[order[size_t(j)]] << ", "
                               << order[size_t(j)] << ")");
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("bitonic sort of 1024 keys with payloads", "[simt_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("simt_ports_gpu"));
  auto rng = ported::freshRng();
  const int segs = ported::small() ? 2 : 40;
  std::uniform_int_distribution<int> kd(-300, 300); // repeated keys
  std::vector<float> keys(size_t(segs) * 1024);
  std::vector<int32_t> pay(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = float(kd(rng)) * 0.25f;
    pay[i] = int32_t(i);
  }
  tile::DeviceBuffer<float> dK(keys.size());
  tile::DeviceBuffer<int32_t> dP(pay.size());
  dK.copyFrom(keys);
  dP.copyFrom(pay);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(512);
  cfg.grid = tile::Dim3(unsigned(segs));
  mod.kernel("bitonic_sort_1024").launch(cfg, dK.ptr(), dP.ptr());
  ctx.synchronize();
  auto k = dK.toHost();
  auto p = dP.toHost();
  size_t bad = 0;
  for (int s = 0; s < segs; ++s) {
    std::vector<float> want(keys.begin() + s * 1024, keys.begin() + (s + 1) * 1024);
    std::sort(want.begin(), want.end());
    std::vector<int> seen(1024, 0);
    for (int i = 0; i < 1024; ++i) {
      size_t g = size_t(s) * 1024 + size_t(i);
      int32_t src = p[g];
      bool ok = k[g] == want[size_t(i)] && src >= s * 1024 && src < (s + 1) * 1024 &&
                keys[size_t(src)] == k[g] && seen[size_t(src - s * 1024)]++ == 0;
      if (!ok && bad++ < 5)
        UNSCOPED_INFO("segment " << s << " [" << i << "] = (" << k[g] << ", " << src
                                 << "), expected key " << want[size_t(i)]);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("index_add with f32 and bf16 atomics", "[simt_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("simt_ports_gpu"));
  auto rng = ported::freshRng();
  const int n = ported::small() ? 300 : 12000, d = 96, rows = 50;
  std::uniform_int_distribution<int> rd(0, rows - 1), sd(-3, 3);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<int32_t> index(static_cast<size_t>(n));
  for (auto &i : index)
    i = rd(rng);
  std::vector<float> src(size_t(n) * d), out0(size_t(rows) * d);
  for (auto &v : src)
    v = nd(rng);
  for (auto &v : out0)
    v = nd(rng);
  // bf16: the outputs start at integers in -3..3 and each source value is
  // +-1; a cell takes about n / rows = 240 of them, so in any order of the
  // atomics every partial sum is an integer of magnitude < 256: exact in
  // bf16, whatever the order.
  std::uniform_int_distribution<int> step(0, 1);
  std::vector<uint16_t> src16(size_t(n) * d), out16(size_t(rows) * d);
  std::vector<int> srcInt(src16.size()), outInt(out16.size());
  auto bits = [](int v) {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t(u >> 16); // exact for small integers
  };
  for (size_t i = 0; i < src16.size(); ++i)
    src16[i] = bits(srcInt[i] = step(rng) ? 1 : -1);
  for (size_t i = 0; i < out16.size(); ++i)
    out16[i] = bits(outInt[i] = sd(rng));
  tile::DeviceBuffer<float> dSrc(src.size()), dOut(out0.size());
  tile::DeviceBuffer<uint16_t> dSrc16(src16.size()), dOut16(out16.size());
  tile::DeviceBuffer<int32_t> dIdx(index.size());
  dSrc.copyFrom(src);
  dOut.copyFrom(out0);
  dSrc16.copyFrom(src16);
  dOut16.copyFrom(out16);
  dIdx.copyFrom(index);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(264);
  mod.kernel("index_add_f32")
      .launch(cfg, dOut.ptr(), dSrc.ptr(), dIdx.ptr(), int32_t(n), int32_t(d));
  mod.kernel("index_add_bf16")
      .launch(cfg, dOut16.ptr(), dSrc16.ptr(), dIdx.ptr(), int32_t(n), int32_t(d));
  ctx.synchronize();
  auto got = dOut.toHost();
  auto got16 = dOut16.toHost();
  std::vector<double> want(out0.begin(), out0.end()), mag(want.size());
  std::vector<int> want16(outInt);
  for (size_t i = 0; i < want.size(); ++i)
    mag[i] = std::fabs(want[i]);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) {
      size_t o = size_t(index[size_t(i)]) * d + size_t(c), s = size_t(i) * d + size_t(c);
      want[o] += src[s];
      mag[o] += std::fabs(src[s]);
      want16[o] += srcInt[s];
    }
  ported::ErrorCount e("index_add f32");
  size_t bad16 = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    e.check(i, got[i], want[i], 2e-7 * mag[i] * 8 + 1e-6);
    uint32_t u = uint32_t(got16[i]) << 16;
    float g;
    std::memcpy(&g, &u, 4);
    if (std::abs(want16[i]) < 256 && g != float(want16[i]) && bad16++ < 5)
      UNSCOPED_INFO("index_add bf16 [" << i << "] = " << g << ", expected " << want16[i]);
  }
  CHECK(e.bad() == 0);
  CHECK(bad16 == 0);
}

TEST_CASE("embedding bag, sum and mean", "[simt_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("simt_ports_gpu"));
  auto rng = ported::freshRng();
  const int rows = 1000, d = 200, bags = ported::small() ? 5 : 300;
  std::uniform_int_distribution<int> len(0, 12), rd(0, rows - 1);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<int32_t> offsets(1, 0), index;
  for (int b = 0; b < bags; ++b) {
    int l = b % 17 == 3 ? 0 : len(rng); // some bags empty
    for (int j = 0; j < l; ++j)
      index.push_back(rd(rng));
    offsets.push_back(int32_t(index.size()));
  }
  index.push_back(0); // a non-empty buffer even if every bag is empty
  std::vector<float> w(size_t(rows) * d);
  for (auto &v : w)
    v = nd(rng);
  tile::DeviceBuffer<float> dW(w.size()), dOut(size_t(bags) * d);
  tile::DeviceBuffer<int32_t> dIdx(index.size()), dOff(offsets.size());
  dW.copyFrom(w);
  dIdx.copyFrom(index);
  dOff.copyFrom(offsets);
  for (int mean = 0; mean < 2; ++mean) {
    dOut.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(128);
    cfg.grid = tile::Dim3(unsigned(bags));
    mod.kernel("embedding_bag")
        .launch(cfg, dOut.ptr(), dW.ptr(), dIdx.ptr(), dOff.ptr(), int32_t(d), uint8_t(mean));
    ctx.synchronize();
    auto out = dOut.toHost();
    ported::ErrorCount e(mean ? "bag mean" : "bag sum");
    for (int b = 0; b < bags; ++b)
      for (int c = 0; c < d; ++c) {
        double s = 0, mag = 0;
        int lo = offsets[size_t(b)], hi = offsets[size_t(b) + 1];
        for (int j = lo; j < hi; ++j) {
          double v = w[size_t(index[size_t(j)]) * d + size_t(c)];
          s += v;
          mag += std::fabs(v);
        }
        if (mean && hi > lo) {
          s /= hi - lo;
          mag /= hi - lo;
        }
        e.check(size_t(b) * d + size_t(c), out[size_t(b) * d + size_t(c)], s, 1e-6 * mag + 1e-7);
      }
    CHECK(e.bad() == 0);
  }
}

TEST_CASE("GroupNorm with Welford statistics", "[simt_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("simt_ports_gpu"));
  auto rng = ported::freshRng();
  const int N = ported::small() ? 2 : 4, C = 64, G = 8, HW = ported::small() ? 50 : 1031;
  const float eps = 1e-5f;
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(size_t(N) * C * HW), gamma(static_cast<size_t>(C)),
      beta(static_cast<size_t>(C));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 3.0f + 2.0f * nd(rng); // an offset mean: Welford's reason to exist
  for (auto &v : gamma)
    v = nd(rng);
  for (auto &v : beta)
    v = nd(rng);
  tile::DeviceBuffer<float> dX(x.size()), dY(x.size()), dS(size_t(N) * G * 2), dG(gamma.size()),
      dB(beta.size());
  dX.copyFrom(x);
  dG.copyFrom(gamma);
  dB.copyFrom(beta);
  dY.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(N * G));
  mod.kernel("group_norm")
      .launch(cfg, dY.ptr(), dS.ptr(), dX.ptr(), dG.ptr(), dB.ptr(), int32_t(C), int32_t(HW),
              int32_t(G), eps);
  ctx.synchronize();
  auto y = dY.toHost();
  auto st = dS.toHost();
  ported::ErrorCount ey("y"), es("stats");
  const int cpg = C / G;
  for (int b = 0; b < N; ++b)
    for (int g = 0; g < G; ++g) {
      size_t base = (size_t(b) * C + size_t(g) * cpg) * HW, span = size_t(cpg) * HW;
      double mean = 0, var = 0;
      for (size_t i = 0; i < span; ++i)
        mean += x[base + i];
      mean /= double(span);
      for (size_t i = 0; i < span; ++i)
        var += (x[base + i] - mean) * (x[base + i] - mean);
      var /= double(span);
      double rstd = 1 / std::sqrt(var + eps);
      size_t gi = size_t(b) * G + size_t(g);
      es.check(2 * gi, st[2 * gi], mean, 1e-5 * std::fabs(mean) + 1e-6);
      es.check(2 * gi + 1, st[2 * gi + 1], rstd, 1e-5 * rstd);
      for (size_t i = 0; i < span; ++i) {
        int ch = g * cpg + int(i / size_t(HW));
        double want = (x[base + i] - mean) * rstd * gamma[size_t(ch)] + beta[size_t(ch)];
        ey.check(base + i, y[base + i], want,
                 1e-5 * (std::fabs(x[base + i] - mean) * rstd + 1) * std::fabs(gamma[size_t(ch)]) +
                     1e-6);
      }
    }
  CHECK(ey.bad() == 0);
  CHECK(es.bad() == 0);
}

TEST_CASE("chunked selective scan (Mamba-1)", "[simt_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("simt_ports_gpu"));
  auto rng = ported::freshRng();
  const int Bt = 2, dim = ported::small() ? 40 : 200, L = ported::small() ? 100 : 1000, NS = 16,
            chunk = ported::small() ? 32 : 128;
  const int chunks = (L + chunk - 1) / chunk;
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_real_distribution<float> ud(0.001f, 0.1f), ad(-2.0f, -0.1f);
  std::vector<float> x(size_t(Bt) * dim * L), delta(x.size()), A(size_t(dim) * NS),
      Bm(size_t(Bt) * NS * L), Cm(Bm.size()), Dk(static_cast<size_t>(dim));
  for (auto &v : x)
    v = nd(rng);
  for (auto &v : delta)
    v = ud(rng); // softplus(dt) is positive and small
  for (auto &v : A)
    v = ad(rng); // -exp(A_log): negative, a decay
  for (auto &v : Bm)
    v = nd(rng);
  for (auto &v : Cm)
    v = nd(rng);
  for (auto &v : Dk)
    v = nd(rng);
  tile::DeviceBuffer<float> dX(x.size()), dDelta(delta.size()), dA(A.size()), dBm(Bm.size()),
      dCm(Cm.size()), dD(Dk.size()), dY(x.size()), dH(size_t(Bt) * dim * chunks * NS),
      dP(size_t(Bt) * dim * chunks * NS);
  dX.copyFrom(x);
  dDelta.copyFrom(delta);
  dA.copyFrom(A);
  dBm.copyFrom(Bm);
  dCm.copyFrom(Cm);
  dD.copyFrom(Dk);
  dY.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(unsigned((dim + 127) / 128), unsigned(chunks), unsigned(Bt));
  mod.kernel("selective_scan_chunk")
      .launch(cfg, dY.ptr(), dH.ptr(), dP.ptr(), dX.ptr(), dDelta.ptr(), dA.ptr(), dBm.ptr(),
              dCm.ptr(), dD.ptr(), int32_t(dim), int32_t(L), int32_t(chunk));
  mod.kernel("selective_scan_fix")
      .launch(cfg, dY.ptr(), dH.ptr(), dP.ptr(), dDelta.ptr(), dA.ptr(), dCm.ptr(), int32_t(dim),
              int32_t(L), int32_t(chunk));
  ctx.synchronize();
  auto y = dY.toHost();
  ported::ErrorCount e("y");
  for (int b = 0; b < Bt; ++b)
    for (int d = 0; d < dim; ++d) {
      std::vector<double> h(static_cast<size_t>(NS), 0.0), hm(static_cast<size_t>(NS), 0.0);
      size_t row = (size_t(b) * dim + size_t(d)) * L;
      for (int t = 0; t < L; ++t) {
        double xt = x[row + size_t(t)], dt = delta[row + size_t(t)];
        double yt = double(Dk[size_t(d)]) * xt, mag = std::fabs(yt);
        for (int s = 0; s < NS; ++s) {
          size_t at = (size_t(b) * NS + size_t(s)) * L + size_t(t);
          double da = std::exp(dt * A[size_t(d) * NS + size_t(s)]);
          h[size_t(s)] = da * h[size_t(s)] + dt * Bm[at] * xt;
          hm[size_t(s)] = da * hm[size_t(s)] + std::fabs(dt * Bm[at] * xt);
          yt += Cm[at] * h[size_t(s)];
          mag += std::fabs(Cm[at]) * hm[size_t(s)];
        }
        e.check(row + size_t(t), y[row + size_t(t)], yt, 2e-5 * mag + 1e-6);
      }
    }
  CHECK(e.bad() == 0);
}
