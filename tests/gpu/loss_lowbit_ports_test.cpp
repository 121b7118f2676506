// GPU tests of loss_lowbit_ports.tile on fresh random data, each against a
// float64 CPU reference with a bound from the kernel's roundings:
//  - the fused linear + cross-entropy (loss and logsumexp per row; the rows
//    past N stay unwritten),
//  - the pointer-array grouped GEMM over ragged groups (bf16 out),
//  - the W4A16 GEMV (int4 weights, per-group scales and zero points),
//  - LayerNorm's backward (dx, and dgamma / dbeta through a cluster's DSMEM
//    and a second reduction), with CTAs of a cluster that hold no rows,
//  - Liger's JSD loss and gradient with ignored rows,
//  - the bf16 softmax backward.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using ported::bf16Bits;
using ported::bf16Value;

tile::Module portsModule(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("loss_lowbit_ports_gpu"));
}

double f16Value(uint16_t b) { return tile::floatValue(tile::ScalarType::F16, b); }
uint16_t f16Bits(double x) { return uint16_t(tile::floatBits(tile::ScalarType::F16, x)); }

/// `rows` rows of `v` log-probabilities: the log-softmax of N(0, 2) logits.
std::vector<double> logSoftmaxRows(std::mt19937_64 &rng, int rows, int v) {
  std::normal_distribution<double> nd(0.0, 2.0);
  std::vector<double> out(size_t(rows) * size_t(v));
  for (int r = 0; r < rows; ++r) {
    double *row = &out[size_t(r) * size_t(v)], mx = -INFINITY, sum = 0;
    for (int i = 0; i < v; ++i)
      mx = std::max(mx, row[i] = nd(rng));
    for (int i = 0; i < v; ++i)
      sum += std::exp(row[i] - mx);
    for (int i = 0; i < v; ++i)
      row[i] -= mx + std::log(sum);
  }
  return out;
}

/// The wgmma bound of mma.md ("Precision"): (S + 1) u T, u = 2^-21 for
/// 16-bit operands into f32, S the k16 steps an element went through: four
/// per 64-wide k step, the last one zero-padded.
double mmaBound(int k, double t) {
  return (4 * std::ceil(k / 64.0) + 1) * std::ldexp(1.0, -21) * t;
}

TEST_CASE("fused linear + cross-entropy, logits through wgmma one vocabulary tile at a time",
          "[loss_lowbit_ports]") {
  tile::Context ctx(0);
  tile::Module mod = portsModule(ctx);
  auto rng = ported::freshRng();
  struct Shape {
    int N, H, V;
  };
  // H = 72: a last k step of 8 columns (zero fill); V = 300: a masked
  // vocabulary tail; N = 130: a CTA with 2 rows.
  std::vector<Shape> shapes = ported::small()
                                  ? std::vector<Shape>{{130, 72, 300}}
                                  : std::vector<Shape>{{130, 72, 300}, {1000, 512, 8000}};
  for (const Shape &sh : shapes) {
    INFO("N = " << sh.N << ", H = " << sh.H << ", V = " << sh.V);
    const int N = sh.N, H = sh.H, V = sh.V;
    auto x = ported::randomBf16(rng, size_t(N) * H, 1.0);
    auto w = ported::randomBf16(rng, size_t(V) * H, 2.0 / std::sqrt(double(H)));
    std::uniform_int_distribution<int> td(0, V - 1);
    std::vector<int32_t> target(static_cast<size_t>(N));
    for (auto &t : target)
      t = td(rng);
    tile::DeviceBuffer<uint16_t> dX(x.size()), dW(w.size());
    tile::DeviceBuffer<int32_t> dT(target.size());
    const size_t padded = size_t(N + 128); // the rows past N must stay unwritten
    tile::DeviceBuffer<float> dLoss(padded), dLse(padded);
    dX.copyFrom(x);
    dW.copyFrom(w);
    dT.copyFrom(target);
    dLoss.fillBytes(0xA5);
    dLse.fillBytes(0xA5);
    tile::Tensor tx(dX, tile::TensorElement::BF16, {N, H});
    tile::Tensor tw(dW, tile::TensorElement::BF16, {V, H});
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(384u);
    cfg.grid = tile::Dim3(unsigned((N + 127) / 128));
    auto k = mod.kernel("linear_cross_entropy");
    k.launch(cfg, tx, tw, dT.ptr(), dLoss.ptr(), dLse.ptr());
    ctx.synchronize();
    auto loss = dLoss.toHost(), lse = dLse.toHost();
    std::vector<double> xd(x.size()), wd(w.size());
    for (size_t i = 0; i < x.size(); ++i)
      xd[i] = bf16Value(x[i]);
    for (size_t i = 0; i < w.size(); ++i)
      wd[i] = bf16Value(w[i]);
    ported::ErrorCount eLoss("loss"), eLse("lse");
    std::vector<double> logit(static_cast<size_t>(V));
    for (int r = 0; r < N; ++r) {
      double mx = -INFINITY, tmax = 0;
      for (int v = 0; v < V; ++v) {
        double s = 0, t = 0;
        for (int h = 0; h < H; ++h) {
          double p = xd[size_t(r) * H + h] * wd[size_t(v) * H + h];
          s += p;
          t += std::fabs(p);
        }
        logit[size_t(v)] = s;
        mx = std::max(mx, s);
        tmax = std::max(tmax, t);
      }
      double sum = 0;
      for (int v = 0; v < V; ++v)
        sum += std::exp(logit[size_t(v)] - mx);
      const double wantLse = mx + std::log(sum);
      const double wantLoss = wantLse - logit[size_t(target[size_t(r)])];
      // A logit's wgmma error moves the logsumexp and the picked logit by at
      // most that much; f32 exp / log (2 ulp) and the sums over V add a
      // relative 2^-17 of the logsumexp's size.
      const double bound = 2 * mmaBound(H, tmax) + 8e-6 * (1 + std::fabs(wantLse));
      eLse.check(size_t(r), lse[size_t(r)], wantLse, bound);
      eLoss.check(size_t(r), loss[size_t(r)], wantLoss, 2 * bound);
    }
    size_t written = 0;
    for (size_t r = size_t(N); r < padded; ++r) {
      uint32_t bl, bs;
      std::memcpy(&bl, &loss[r], 4);
      std::memcpy(&bs, &lse[r], 4);
      written += bl != 0xA5A5A5A5u || bs != 0xA5A5A5A5u;
    }
    CHECK(written == 0);
    CHECK(eLse.bad() == 0);
    CHECK(eLoss.bad() == 0);
    if (!ported::small() && N >= 1000) {
      double ms =
          ported::meanMs(10, [&] { k.launch(cfg, tx, tw, dT.ptr(), dLoss.ptr(), dLse.ptr()); });
      std::printf("linear_cross_entropy N=%d H=%d V=%d: %.1f us, %.1f TFLOP/s\n", N, H, V, ms * 1e3,
                  2.0 * N * H * double(V) / (ms * 1e-3) / 1e12);
    }
  }
}

TEST_CASE("pointer-array grouped GEMM, per-group sizes and addresses in device arrays",
          "[loss_lowbit_ports]") {
  tile::Context ctx(0);
  tile::Module mod = portsModule(ctx);
  auto rng = ported::freshRng();
  const int G = ported::small() ? 3 : 9;
  std::uniform_int_distribution<int> md(1, ported::small() ? 90 : 300);
  std::uniform_int_distribution<int> n8(1, ported::small() ? 20 : 50);
  std::vector<int32_t> ms(static_cast<size_t>(G)), ns(ms.size()), ks(ms.size());
  std::vector<std::vector<uint16_t>> a(static_cast<size_t>(G)), b(static_cast<size_t>(G));
  std::vector<tile::DeviceBuffer<uint16_t>> dA, dB, dC;
  for (int g = 0; g < G; ++g) {
    ms[size_t(g)] = md(rng);
    ns[size_t(g)] = 8 * n8(rng);
    ks[size_t(g)] = g == 0 ? 8 : 8 * n8(rng); // group 0: one partial k step
    const size_t m = size_t(ms[size_t(g)]), n = size_t(ns[size_t(g)]), k = size_t(ks[size_t(g)]);
    a[size_t(g)] = ported::randomBf16(rng, m * k, 1.0);
    b[size_t(g)] = ported::randomBf16(rng, n * k, 1.0);
    dA.emplace_back(m * k);
    dB.emplace_back(n * k);
    dC.emplace_back(m * n + 64); // 64 past the end must stay unwritten
    dA.back().copyFrom(a[size_t(g)]);
    dB.back().copyFrom(b[size_t(g)]);
    dC.back().fillBytes(0xA5);
  }
  auto ta = ported::addressTable(dA), tb = ported::addressTable(dB), tc = ported::addressTable(dC);
  tile::DeviceBuffer<int32_t> dM(static_cast<size_t>(G)), dN(static_cast<size_t>(G)),
      dK(static_cast<size_t>(G));
  dM.copyFrom(ms);
  dN.copyFrom(ns);
  dK.copyFrom(ks);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(4u, unsigned(G)); // persistent: 4 CTAs over each group's tiles
  mod.kernel("ptr_grouped_gemm")
      .launch(cfg, ta.ptr(), tb.ptr(), tc.ptr(), dM.ptr(), dN.ptr(), dK.ptr());
  ctx.synchronize();
  ported::ErrorCount err("C");
  size_t written = 0;
  for (int g = 0; g < G; ++g) {
    INFO("group " << g << ": M = " << ms[size_t(g)] << ", N = " << ns[size_t(g)]
                  << ", K = " << ks[size_t(g)]);
    const int m = ms[size_t(g)], n = ns[size_t(g)], k = ks[size_t(g)];
    auto c = dC[size_t(g)].toHost();
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0, t = 0;
        for (int h = 0; h < k; ++h) {
          double p = bf16Value(a[size_t(g)][size_t(i) * k + h]) *
                     bf16Value(b[size_t(g)][size_t(j) * k + h]);
          s += p;
          t += std::fabs(p);
        }
        // the wgmma bound, then one bf16 rounding (half an ulp: 2^-8 relative)
        const double e = mmaBound(k, t);
        err.check(size_t(g) * 1000000 + size_t(i) * n + j, bf16Value(c[size_t(i) * n + j]), s,
                  std::ldexp(std::fabs(s) + e, -8) + e);
      }
    for (size_t i = size_t(m) * n; i < c.size(); ++i)
      written += c[i] != 0xA5A5;
  }
  CHECK(err.bad() == 0);
  CHECK(written == 0);
}

TEST_CASE("W4A16 GEMV: int4 weights with per-group scales and zero points", "[loss_lowbit_ports]") {
  tile::Context ctx(0);
  tile::Module mod = portsModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 3, N = ported::small() ? 37 : 4097,
            K = ported::small() ? 512 : 4096, groups = K / 128;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_real_distribution<double> sd(0.002, 0.03);
  std::uniform_int_distribution<uint32_t> qd(0, 0xFFFFFFFFu);
  std::uniform_int_distribution<int> zd(0, 15);
  std::vector<uint16_t> x(size_t(B) * K), s(size_t(N) * groups);
  std::vector<uint32_t> q(size_t(N) * K / 8);
  std::vector<uint8_t> z(size_t(N) * groups);
  for (auto &v : x)
    v = f16Bits(nd(rng));
  for (auto &v : s)
    v = f16Bits(sd(rng));
  for (auto &v : q)
    v = qd(rng);
  for (auto &v : z)
    v = uint8_t(zd(rng));
  tile::DeviceBuffer<uint16_t> dX(x.size()), dS(s.size());
  tile::DeviceBuffer<uint32_t> dQ(q.size());
  tile::DeviceBuffer<uint8_t> dZ(z.size());
  tile::DeviceBuffer<float> dY(size_t(B) * N);
  dX.copyFrom(x);
  dS.copyFrom(s);
  dQ.copyFrom(q);
  dZ.copyFrom(z);
  dY.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(unsigned((N + 3) / 4), unsigned(B));
  auto k = mod.kernel("w4a16_gemv");
  k.launch(cfg, dX.ptr(), dQ.ptr(), dS.ptr(), dZ.ptr(), dY.ptr(), int32_t(N), int32_t(K));
  ctx.synchronize();
  auto y = dY.toHost();
  ported::ErrorCount err("y");
  for (int b = 0; b < B; ++b)
    for (int n = 0; n < N; ++n) {
      double want = 0, scale = 0;
      for (int kk = 0; kk < K; ++kk) {
        const size_t gi = size_t(n) * groups + size_t(kk / 128);
        const int nib = int((q[(size_t(n) * K + kk) / 8] >> (4 * (kk % 8))) & 15u);
        double p = f16Value(x[size_t(b) * K + kk]) * (nib - int(z[gi])) * f16Value(s[gi]);
        want += p;
        scale += std::fabs(p);
      }
      // (q - z) * s is exact in f32; each lane's chain of K/32 fmas and the
      // 5 shuffle adds round once each.
      err.check(size_t(b) * N + n, y[size_t(b) * N + n], want,
                std::ldexp(K / 32 + 8, -24) * scale + 1e-30);
    }
  CHECK(err.bad() == 0);
  if (!ported::small()) {
    double ms = ported::meanMs(20, [&] {
      k.launch(cfg, dX.ptr(), dQ.ptr(), dS.ptr(), dZ.ptr(), dY.ptr(), int32_t(N), int32_t(K));
    });
    ported::printBandwidth("w4a16_gemv N=4097 K=4096 (int4 weights)", ms,
                           double(q.size()) * 4 + double(s.size()) * 2 + double(z.size()));
  }
}

TEST_CASE("LayerNorm backward, dgamma / dbeta partials summed over a cluster through DSMEM",
          "[loss_lowbit_ports]") {
  tile::Context ctx(0);
  tile::Module mod = portsModule(ctx);
  auto rng = ported::freshRng();
  struct Shape {
    int R, D, grid;
  };
  // R = 5: CTAs 5..7 of the cluster hold no rows; D = 1000: a last column
  // step that not every thread takes.
  std::vector<Shape> shapes =
      ported::small() ? std::vector<Shape>{{5, 64, 8}, {70, 1000, 16}}
                      : std::vector<Shape>{{5, 64, 8}, {333, 1000, 64}, {2000, 768, 128}};
  for (const Shape &sh : shapes) {
    INFO("R = " << sh.R << ", D = " << sh.D);
    const int R = sh.R, D = sh.D;
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(size_t(R) * D), dy(x.size()), gamma(static_cast<size_t>(D)),
        mean(static_cast<size_t>(R)), rstd(static_cast<size_t>(R));
    for (int r = 0; r < R; ++r) {
      const float mu = 3.0f * nd(rng), sigma = 0.5f + std::fabs(nd(rng));
      double s = 0, s2 = 0;
      for (int c = 0; c < D; ++c) {
        float v = mu + sigma * nd(rng);
        x[size_t(r) * D + c] = v;
        s += v;
      }
      const double m = s / D;
      for (int c = 0; c < D; ++c)
        s2 += (x[size_t(r) * D + c] - m) * (x[size_t(r) * D + c] - m);
      mean[size_t(r)] = float(m);
      rstd[size_t(r)] = float(1.0 / std::sqrt(s2 / D + 1e-5));
    }
    for (auto &v : dy)
      v = nd(rng);
    for (auto &v : gamma)
      v = 1.0f + 0.5f * nd(rng);
    const int clusters = sh.grid / 8;
    tile::DeviceBuffer<float> dX(x.size()), dDy(dy.size()), dG(gamma.size()), dM(mean.size()),
        dRs(rstd.size()), dDx(x.size()), dGp(size_t(clusters) * D), dBp(size_t(clusters) * D),
        dDg(static_cast<size_t>(D)), dDb(static_cast<size_t>(D));
    dX.copyFrom(x);
    dDy.copyFrom(dy);
    dG.copyFrom(gamma);
    dM.copyFrom(mean);
    dRs.copyFrom(rstd);
    dDx.fillBytes(0xA5);
    dGp.fillBytes(0xA5);
    dBp.fillBytes(0xA5);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256u);
    cfg.grid = tile::Dim3(unsigned(sh.grid));
    mod.kernel("layernorm_bwd")
        .launch(cfg, dX.ptr(), dDy.ptr(), dG.ptr(), dM.ptr(), dRs.ptr(), dDx.ptr(), dGp.ptr(),
                dBp.ptr(), int32_t(R), int32_t(D));
    tile::LaunchConfig rcfg;
    rcfg.block = tile::Dim3(256u);
    rcfg.grid = tile::Dim3(unsigned((D + 255) / 256));
    auto reduce = mod.kernel("ln_bwd_reduce");
    reduce.launch(rcfg, dGp.ptr(), dDg.ptr(), int32_t(clusters), int32_t(D));
    reduce.launch(rcfg, dBp.ptr(), dDb.ptr(), int32_t(clusters), int32_t(D));
    ctx.synchronize();
    auto dx = dDx.toHost(), dg = dDg.toHost(), db = dDb.toHost();
    ported::ErrorCount eDx("dx"), eDg("dgamma"), eDb("dbeta");
    std::vector<double> wantG(static_cast<size_t>(D)), wantB(static_cast<size_t>(D)),
        scaleG(static_cast<size_t>(D)), scaleB(static_cast<size_t>(D));
    const double rowsPerCta = std::ceil(double(R) / sh.grid);
    for (int r = 0; r < R; ++r) {
      const double mu = mean[size_t(r)], rs = rstd[size_t(r)];
      double s1 = 0, s2 = 0, a1 = 0, a2 = 0;
      for (int c = 0; c < D; ++c) {
        const size_t i = size_t(r) * D + c;
        const double xh = (x[i] - mu) * rs, g = gamma[size_t(c)] * double(dy[i]);
        s1 += g;
        s2 += g * xh;
        a1 += std::fabs(g);
        a2 += std::fabs(g * xh);
      }
      for (int c = 0; c < D; ++c) {
        const size_t i = size_t(r) * D + c;
        const double xh = (x[i] - mu) * rs, g = gamma[size_t(c)] * double(dy[i]);
        const double want = rs * (g - (s1 + xh * s2) / D);
        // f32 sums of D/256 + 13 terms deep, a few roundings per element
        const double bound = (D / 256.0 + 20) * std::ldexp(1.0, -24) * rs *
                             (std::fabs(g) + (a1 + std::fabs(xh) * a2) / D);
        eDx.check(i, dx[i], want, bound);
        wantG[size_t(c)] += dy[i] * xh;
        wantB[size_t(c)] += dy[i];
        scaleG[size_t(c)] += std::fabs(dy[i] * xh);
        scaleB[size_t(c)] += std::fabs(dy[i]);
      }
    }
    // each CTA's running sums, 8 cluster adds, `clusters` final adds; xhat
    // rounds about 3 times
    const double depth = rowsPerCta + 8 + clusters + 4;
    for (int c = 0; c < D; ++c) {
      eDg.check(size_t(c), dg[size_t(c)], wantG[size_t(c)],
                depth * std::ldexp(1.0, -23) * scaleG[size_t(c)]);
      eDb.check(size_t(c), db[size_t(c)], wantB[size_t(c)],
                depth * std::ldexp(1.0, -23) * scaleB[size_t(c)]);
    }
    CHECK(eDx.bad() == 0);
    CHECK(eDg.bad() == 0);
    CHECK(eDb.bad() == 0);
  }
}

TEST_CASE("Jensen-Shannon divergence loss and gradient over a vocabulary", "[loss_lowbit_ports]") {
  tile::Context ctx(0);
  tile::Module mod = portsModule(ctx);
  auto rng = ported::freshRng();
  const int R = ported::small() ? 5 : 48, V = ported::small() ? 1000 : 32000;
  std::uniform_real_distribution<double> bd(0.1, 0.9);
  const float beta = float(bd(rng));
  // log-softmax rows of random logits, rounded to f32
  std::vector<float> lq, lp;
  for (double v : logSoftmaxRows(rng, R, V))
    lq.push_back(float(v));
  for (double v : logSoftmaxRows(rng, R, V))
    lp.push_back(float(v));
  std::vector<int32_t> label(static_cast<size_t>(R));
  int valid = 0;
  for (int r = 0; r < R; ++r) {
    label[size_t(r)] = (r % 3 == 1) ? -100 : r; // every third row ignored
    valid += label[size_t(r)] != -100;
  }
  const float scale = 1.0f / float(valid);
  tile::DeviceBuffer<float> dLq(lq.size()), dLp(lp.size()), dLoss(static_cast<size_t>(R)),
      dG(lq.size());
  tile::DeviceBuffer<int32_t> dLabel(label.size());
  dLq.copyFrom(lq);
  dLp.copyFrom(lp);
  dLabel.copyFrom(label);
  dLoss.fillBytes(0xA5);
  dG.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256u);
  cfg.grid = tile::Dim3(unsigned(R));
  mod.kernel("jsd").launch(cfg, dLq.ptr(), dLp.ptr(), dLabel.ptr(), dLoss.ptr(), dG.ptr(),
                           int32_t(V), beta, scale);
  ctx.synchronize();
  auto loss = dLoss.toHost(), grad = dG.toHost();
  ported::ErrorCount eLoss("loss"), eGrad("dlq");
  const double b = beta;
  for (int r = 0; r < R; ++r) {
    const bool active = label[size_t(r)] != -100;
    double want = 0, mag = 0;
    for (int i = 0; i < V; ++i) {
      const size_t j = size_t(r) * V + i;
      const double q = std::exp(double(lq[j])), p = std::exp(double(lp[j]));
      const double lm = std::log(b * p + (1 - b) * q);
      want += b * p * (lp[j] - lm) + (1 - b) * q * (lq[j] - lm);
      // exp and log of f32 (2 ulp and 1 ulp) move each term by a few f32
      // ulps of its parts
      const double part = b * p * (std::fabs(lp[j] - lm) + std::fabs(lm) + 1) +
                          (1 - b) * q * (std::fabs(lq[j] - lm) + std::fabs(lm) + 1);
      mag += part;
      const double g = active ? scale * (1 - b) * q * (lq[j] - lm) : 0.0;
      eGrad.check(j, grad[j], g,
                  8 * std::ldexp(1.0, -24) * scale * (1 - b) * q *
                      (std::fabs(lq[j] - lm) + std::fabs(lq[j]) + std::fabs(lm) + 1));
    }
    eLoss.check(size_t(r), loss[size_t(r)], active ? scale * want : 0.0,
                (V / 256.0 + 24) * 8 * std::ldexp(1.0, -24) * scale * mag);
  }
  CHECK(eLoss.bad() == 0);
  CHECK(eGrad.bad() == 0);
}

TEST_CASE("softmax backward of bf16 rows, 16-byte vectors", "[loss_lowbit_ports]") {
  tile::Context ctx(0);
  tile::Module mod = portsModule(ctx);
  auto rng = ported::freshRng();
  const int R = ported::small() ? 4 : 256, V = ported::small() ? 1000 : 32000;
  std::vector<uint16_t> y; // softmax rows, rounded to bf16
  for (double v : logSoftmaxRows(rng, R, V))
    y.push_back(bf16Bits(std::exp(v)));
  auto dy = ported::randomBf16(rng, y.size(), 1.0);
  tile::DeviceBuffer<uint16_t> dY(y.size()), dDy(dy.size()), dDx(y.size());
  dY.copyFrom(y);
  dDy.copyFrom(dy);
  dDx.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256u);
  cfg.grid = tile::Dim3(unsigned(R));
  auto k = mod.kernel("softmax_bwd");
  k.launch(cfg, dY.ptr(), dDy.ptr(), dDx.ptr(), int32_t(V));
  ctx.synchronize();
  auto dx = dDx.toHost();
  ported::ErrorCount err("dx");
  for (int r = 0; r < R; ++r) {
    double dot = 0, mag = 0;
    for (int i = 0; i < V; ++i) {
      const size_t j = size_t(r) * V + i;
      dot += bf16Value(y[j]) * bf16Value(dy[j]);
      mag += std::fabs(bf16Value(y[j]) * bf16Value(dy[j]));
    }
    // the dot's f32 fma chain (V/256 + 13 deep), one subtraction, one
    // product, then the bf16 rounding (half an ulp: 2^-8 relative)
    const double dotErr = (V / 256.0 + 16) * std::ldexp(1.0, -24) * mag;
    for (int i = 0; i < V; ++i) {
      const size_t j = size_t(r) * V + i;
      const double yv = bf16Value(y[j]), want = yv * (bf16Value(dy[j]) - dot);
      const double e = yv * dotErr + std::ldexp(std::fabs(want), -22);
      err.check(j, bf16Value(dx[j]), want, std::ldexp(std::fabs(want) + e, -8) + e);
    }
  }
  CHECK(err.bad() == 0);
  if (!ported::small()) {
    double ms =
        ported::meanMs(20, [&] { k.launch(cfg, dY.ptr(), dDy.ptr(), dDx.ptr(), int32_t(V)); });
    ported::printBandwidth("softmax_bwd 256 x 32000 bf16", ms, 3.0 * double(y.size()) * 2);
  }
}

} // namespace
