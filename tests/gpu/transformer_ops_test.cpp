// GPU tests of transformer_ops.tile against float64 CPU references on fresh
// random data: LayerNorm forward and backward (the cross-CTA dGamma/dBeta
// reduction run twice, so the counter's reset is checked too), softmax
// cross-entropy over a vocabulary split across CTAs and its dlogits, rotary
// embedding in both layouts, and paged-attention decode with GQA and context
// lengths 0, 1 and lengths that end mid-page. Outputs are poisoned (NaN)
// before each launch.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

std::vector<float> normal(std::mt19937_64 &rng, size_t n, double mean, double sd) {
  std::normal_distribution<float> d{static_cast<float>(mean), static_cast<float>(sd)};
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

} // namespace

TEST_CASE("layernorm forward (Welford) and backward (cross-CTA dGamma/dBeta)", "[transformer]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("transformer_ops_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 12 : 700, cols = ported::small() ? 300 : 1000;
  const float eps = 1e-5f;
  const size_t n = size_t(rows) * cols;
  auto x = normal(rng, n, 3.0, 2.0), gamma = normal(rng, cols, 1.0, 0.5),
       beta = normal(rng, cols, 0.0, 0.5), dy = normal(rng, n, 0.0, 1.0);
  tile::DeviceBuffer<float> dX(n), dG(cols), dB(cols), dYf(n), dMean(rows), dRstd(rows);
  dX.copyFrom(x);
  dG.copyFrom(gamma);
  dB.copyFrom(beta);
  dYf.fillBytes(0xFF);
  dMean.fillBytes(0xFF);
  dRstd.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(rows));
  mod.kernel("layernorm_fwd")
      .launch(cfg, dYf.ptr(), dMean.ptr(), dRstd.ptr(), dX.ptr(), dG.ptr(), dB.ptr(), int32_t(cols),
              eps);
  ctx.synchronize();
  auto y = dYf.toHost(), mean = dMean.toHost(), rstd = dRstd.toHost();
  std::vector<double> rm(rows), rr(rows);
  ported::ErrorCount eY("y"), eM("mean"), eR("rstd");
  for (int r = 0; r < rows; ++r) {
    double s = 0, s2 = 0;
    for (int j = 0; j < cols; ++j)
      s += x[size_t(r) * cols + j];
    rm[r] = s / cols;
    for (int j = 0; j < cols; ++j) {
      double d = x[size_t(r) * cols + j] - rm[r];
      s2 += d * d;
    }
    rr[r] = 1.0 / std::sqrt(s2 / cols + eps);
    eM.check(r, mean[r], rm[r], 1e-5 * (1 + std::fabs(rm[r])));
    eR.check(r, rstd[r], rr[r], 2e-5 * rr[r]);
    for (int j = 0; j < cols; ++j) {
      size_t i = size_t(r) * cols + j;
      double want = (x[i] - rm[r]) * rr[r] * gamma[j] + beta[j];
      eY.check(i, y[i], want, 1e-4 * (1 + std::fabs(want)));
    }
  }
  CHECK(eM.bad() == 0);
  CHECK(eR.bad() == 0);
  CHECK(eY.bad() == 0);

  // Backward from the kernel's own statistics (as a training step uses them).
  const unsigned ctas = ported::small() ? 5 : 37;
  tile::DeviceBuffer<float> dDy(n), dDx(n), dDg(cols), dDb(cols), dPart(size_t(ctas) * 2 * cols);
  tile::DeviceBuffer<int32_t> dCounter(1);
  dDy.copyFrom(dy);
  dCounter.fillBytes(0);
  std::vector<double> gx(n), rdg(cols, 0), rdb(cols, 0), adg(cols, 0), adb(cols, 0);
  for (int r = 0; r < rows; ++r) {
    double mg = 0, mgx = 0;
    for (int j = 0; j < cols; ++j) {
      size_t i = size_t(r) * cols + j;
      double xh = (x[i] - double(mean[r])) * rstd[r], g = dy[i] * double(gamma[j]);
      mg += g;
      mgx += g * xh;
      rdg[j] += dy[i] * xh;
      rdb[j] += dy[i];
      adg[j] += std::fabs(dy[i] * xh);
      adb[j] += std::fabs(dy[i]);
    }
    mg /= cols;
    mgx /= cols;
    for (int j = 0; j < cols; ++j) {
      size_t i = size_t(r) * cols + j;
      double xh = (x[i] - double(mean[r])) * rstd[r];
      gx[i] = rstd[r] * (dy[i] * double(gamma[j]) - mg - xh * mgx);
    }
  }
  for (int launch = 0; launch < 2; ++launch) {
    dDx.fillBytes(0xFF);
    dDg.fillBytes(0xFF);
    dDb.fillBytes(0xFF);
    cfg.grid = tile::Dim3(ctas);
    mod.kernel("layernorm_bwd")
        .launch(cfg, dDx.ptr(), dDg.ptr(), dDb.ptr(), dPart.ptr(), dCounter.ptr(), dDy.ptr(),
                dX.ptr(), dG.ptr(), dMean.ptr(), dRstd.ptr(), int32_t(rows), int32_t(cols));
    ctx.synchronize();
    auto dxo = dDx.toHost(), dgo = dDg.toHost(), dbo = dDb.toHost();
    ported::ErrorCount eDx("dx"), eDg("dgamma"), eDb("dbeta");
    for (size_t i = 0; i < n; ++i)
      eDx.check(i, dxo[i], gx[i], 2e-4 * (1 + std::fabs(gx[i])));
    for (int j = 0; j < cols; ++j) {
      eDg.check(j, dgo[j], rdg[j], 1e-5 * adg[j] + 1e-5);
      eDb.check(j, dbo[j], rdb[j], 1e-5 * adb[j] + 1e-5);
    }
    CHECK(eDx.bad() == 0);
    CHECK(eDg.bad() == 0);
    CHECK(eDb.bad() == 0);
    CHECK(dCounter.toHost()[0] == 0);
  }
}

TEST_CASE("softmax cross-entropy over a split vocabulary, and its dlogits", "[transformer]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("transformer_ops_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 3 : 48, vocab = ported::small() ? 5003 : 50257;
  const int chunk = 4096, splits = (vocab + chunk - 1) / chunk;
  const size_t n = size_t(rows) * vocab;
  auto logits = normal(rng, n, 0.0, 3.0), dloss = normal(rng, rows, 1.0, 0.5);
  std::vector<int32_t> targets(rows);
  std::uniform_int_distribution<int32_t> pick(0, vocab - 1);
  for (int r = 0; r < rows; ++r)
    targets[r] = r % 5 == 2 ? -1 : pick(rng); // some ignored rows
  targets[0] = vocab - 1;                     // the last split's last column
  tile::DeviceBuffer<float> dL(n), dLoss(rows), dLse(rows), dPart(size_t(rows) * splits * 2),
      dDloss(rows), dDl(n);
  tile::DeviceBuffer<int32_t> dT(rows), dCnt(rows);
  dL.copyFrom(logits);
  dT.copyFrom(targets);
  dDloss.copyFrom(dloss);
  dCnt.fillBytes(0);
  std::vector<double> lse(rows);
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int j = 0; j < vocab; ++j)
      m = std::max(m, double(logits[size_t(r) * vocab + j]));
    for (int j = 0; j < vocab; ++j)
      s += std::exp(logits[size_t(r) * vocab + j] - m);
    lse[r] = m + std::log(s);
  }
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  for (int launch = 0; launch < 2; ++launch) {
    dLoss.fillBytes(0xFF);
    dLse.fillBytes(0xFF);
    cfg.grid = tile::Dim3(unsigned(splits), unsigned(rows));
    mod.kernel("xent_fwd")
        .launch(cfg, dLoss.ptr(), dLse.ptr(), dPart.ptr(), dCnt.ptr(), dL.ptr(), dT.ptr(),
                int32_t(vocab), int32_t(chunk));
    ctx.synchronize();
    auto loss = dLoss.toHost(), lseo = dLse.toHost();
    ported::ErrorCount eLse("lse"), eLoss("loss");
    for (int r = 0; r < rows; ++r) {
      eLse.check(r, lseo[r], lse[r], 2e-6 * std::fabs(lse[r]) + 1e-6);
      double want = targets[r] < 0 ? 0.0 : lse[r] - logits[size_t(r) * vocab + targets[r]];
      eLoss.check(r, loss[r], want, 4e-6 * std::fabs(lse[r]) + 1e-6);
    }
    CHECK(eLse.bad() == 0);
    CHECK(eLoss.bad() == 0);
    auto cnt = dCnt.toHost();
    CHECK(std::count(cnt.begin(), cnt.end(), 0) == rows);
  }
  dDl.fillBytes(0xFF);
  cfg.grid = tile::Dim3(8, unsigned(rows));
  mod.kernel("xent_bwd")
      .launch(cfg, dDl.ptr(), dL.ptr(), dLse.ptr(), dT.ptr(), dDloss.ptr(), int32_t(vocab));
  ctx.synchronize();
  auto dl = dDl.toHost();
  ported::ErrorCount eD("dlogits");
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < vocab; ++j) {
      size_t i = size_t(r) * vocab + j;
      double p = std::exp(logits[i] - lse[r]);
      double want = targets[r] < 0 ? 0.0 : (j == targets[r] ? p - 1 : p) * dloss[r];
      eD.check(i, dl[i], want, 1e-5 * std::fabs(p * dloss[r]) + 1e-6 * std::fabs(dloss[r]));
    }
  CHECK(eD.bad() == 0);
}

TEST_CASE("rotary embedding in place, interleaved and half-split pairs", "[transformer]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("transformer_ops_gpu"));
  auto rng = ported::freshRng();
  const int tokens = ported::small() ? 7 : 300, heads = 8, dim = 128, maxPos = 4096;
  const size_t n = size_t(tokens) * heads * dim;
  // The cos/sin cache as inference engines build it: f32 values of the angles
  // pos * 10000^(-2i / dim).
  std::vector<float> cs(size_t(maxPos) * dim);
  for (int p = 0; p < maxPos; ++p)
    for (int i = 0; i < dim / 2; ++i) {
      double a = p * std::pow(10000.0, -2.0 * i / dim);
      cs[size_t(p) * dim + i] = float(std::cos(a));
      cs[size_t(p) * dim + dim / 2 + i] = float(std::sin(a));
    }
  std::vector<int32_t> pos(tokens);
  std::uniform_int_distribution<int32_t> pick(0, maxPos - 1);
  for (auto &p : pos)
    p = pick(rng);
  auto x = normal(rng, n, 0.0, 1.0);
  tile::DeviceBuffer<float> dCs(cs.size()), dX(n);
  tile::DeviceBuffer<int32_t> dPos(tokens);
  dCs.copyFrom(cs);
  dPos.copyFrom(pos);
  for (int interleaved = 0; interleaved < 2; ++interleaved) {
    dX.copyFrom(x);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(128);
    cfg.grid = tile::Dim3(unsigned(tokens));
    mod.kernel("rope").launch(cfg, dX.ptr(), dPos.ptr(), dCs.ptr(), int32_t(heads), int32_t(dim),
                              uint8_t(interleaved));
    ctx.synchronize();
    auto y = dX.toHost();
    ported::ErrorCount e(interleaved ? "rope interleaved" : "rope half-split");
    for (int t = 0; t < tokens; ++t)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < dim / 2; ++i) {
          size_t base = (size_t(t) * heads + h) * dim;
          size_t a = base + (interleaved ? 2 * i : i),
                 b = base + (interleaved ? 2 * i + 1 : i + dim / 2);
          double c = cs[size_t(pos[t]) * dim + i], s = cs[size_t(pos[t]) * dim + dim / 2 + i];
          double wa = x[a] * c - x[b] * s, wb = x[b] * c + x[a] * s;
          double bound = 1e-6 * (std::fabs(x[a]) + std::fabs(x[b]));
          e.check(a, y[a], wa, bound);
          e.check(b, y[b], wb, bound);
        }
    CHECK(e.bad() == 0);
  }
}

TEST_CASE("paged-attention decode: block table, GQA, lengths 0 and 1", "[transformer]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("transformer_ops_gpu"));
  auto rng = ported::freshRng();
  const int D = 128, page = 16, qHeads = 8, kvHeads = 2;
  std::vector<int32_t> lens = ported::small() ? std::vector<int32_t>{0, 1, 17, 40}
                                              : std::vector<int32_t>{0, 1, 17, 100, 513, 64, 2047};
  const int seqs = int(lens.size());
  int maxPages = 0, totalPages = 0;
  for (int l : lens) {
    maxPages = std::max(maxPages, (l + page - 1) / page);
    totalPages += (l + page - 1) / page;
  }
  const int pool = totalPages + 5; // spare pages, never referenced
  std::vector<int32_t> perm(pool);
  for (int i = 0; i < pool; ++i)
    perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<int32_t> table(size_t(seqs) * maxPages, -1);
  for (int s = 0, next = 0; s < seqs; ++s)
    for (int p = 0; p < (lens[s] + page - 1) / page; ++p)
      table[size_t(s) * maxPages + p] = perm[next++];
  const size_t cacheN = size_t(pool) * page * kvHeads * D;
  auto kc = normal(rng, cacheN, 0.0, 1.0), vc = normal(rng, cacheN, 0.0, 1.0),
       q = normal(rng, size_t(seqs) * qHeads * D, 0.0, 1.0);
  const float scale = 1.0f / std::sqrt(float(D));
  tile::DeviceBuffer<float> dK(cacheN), dV(cacheN), dQ(q.size()), dO(q.size());
  tile::DeviceBuffer<int32_t> dTable(table.size()), dLens(lens.size());
  dK.copyFrom(kc);
  dV.copyFrom(vc);
  dQ.copyFrom(q);
  dTable.copyFrom(table);
  dLens.copyFrom(lens);
  dO.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(unsigned(qHeads), unsigned(seqs));
  mod.kernel("paged_decode")
      .launch(cfg, dO.ptr(), dQ.ptr(), dK.ptr(), dV.ptr(), dTable.ptr(), dLens.ptr(),
              int32_t(maxPages), int32_t(qHeads), int32_t(kvHeads), scale);
  ctx.synchronize();
  auto o = dO.toHost();
  ported::ErrorCount e("o");
  for (int s = 0; s < seqs; ++s)
    for (int h = 0; h < qHeads; ++h) {
      int kvh = h / (qHeads / kvHeads);
      const float *qv = &q[(size_t(s) * qHeads + h) * D];
      std::vector<double> sc(size_t(lens[s]));
      double m = -INFINITY, l = 0;
      for (int t = 0; t < lens[s]; ++t) {
        size_t off =
            ((size_t(table[size_t(s) * maxPages + t / page]) * page + t % page) * kvHeads + kvh) *
            D;
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += double(qv[d]) * kc[off + d];
        sc[size_t(t)] = dot * scale;
        m = std::max(m, sc[size_t(t)]);
      }
      std::vector<double> acc(D, 0.0);
      for (int t = 0; t < lens[s]; ++t) {
        size_t off =
            ((size_t(table[size_t(s) * maxPages + t / page]) * page + t % page) * kvHeads + kvh) *
            D;
        double p = std::exp(sc[size_t(t)] - m);
        l += p;
        for (int d = 0; d < D; ++d)
          acc[size_t(d)] += p * vc[off + d];
      }
      for (int d = 0; d < D; ++d) {
        size_t i = (size_t(s) * qHeads + h) * D + d;
        double want = lens[s] == 0 ? 0.0 : acc[size_t(d)] / l;
        e.check(i, o[i], want, 2e-5 * (1 + std::fabs(want)));
      }
    }
  CHECK(e.bad() == 0);
}
