// GPU tests of training_ports.tile on fresh random data: the multi-tensor
// AdamW step (master weights, moments within float64 bounds, the bf16
// weights exactly the rounding of the device's master weights), the MoE
// permute (offsets exact, each expert's segment a permutation of its slots,
// every permuted row a bit copy of its token) and unpermute (float64), top-p
// sampling (the nucleus threshold and the drawn token against float64; a
// draw within rounding of a token boundary may take either neighbour), and
// the paged KV append with RoPE (bf16 of the float64 rotation, untouched
// slots left poisoned).
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

TEST_CASE("multi-tensor AdamW over a list of tensors", "[training_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("training_ports_gpu"));
  auto rng = ported::freshRng();
  // Tensor sizes: a tail shorter than a chunk, a single element, several chunks.
  std::vector<int64_t> sizes = ported::small() ? std::vector<int64_t>{5000, 1, 300}
                                               : std::vector<int64_t>{100000, 1, 4096, 4097, 777, 65536};
  const int64_t chunk = 4096;
  std::vector<int64_t> start{0};
  std::vector<int32_t> chunkTensor;
  std::vector<int64_t> chunkStart;
  std::vector<float> decay;
  std::uniform_int_distribution<int> coin(0, 1);
  for (size_t t = 0; t < sizes.size(); ++t) {
    for (int64_t c = 0; c < sizes[t]; c += chunk) {
      chunkTensor.push_back(int32_t(t));
      chunkStart.push_back(start.back() + c);
    }
    start.push_back(start.back() + sizes[t]);
    decay.push_back(coin(rng) ? 0.01f : 0.0f);
  }
  const size_t n = size_t(start.back());
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_real_distribution<float> ud(0.0f, 1e-2f);
  std::vector<float> master(n), grad(n), m(n), v(n);
  for (size_t i = 0; i < n; ++i) {
    master[i] = nd(rng);
    grad[i] = nd(rng) * 0.1f;
    m[i] = nd(rng) * 0.01f;
    v[i] = ud(rng);
  }
  const float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  const int step = 7;
  tile::DeviceBuffer<uint16_t> dP(n);
  tile::DeviceBuffer<float> dMaster(n), dG(n), dM(n), dV(n), dDecay(decay.size());
  tile::DeviceBuffer<int32_t> dCT(chunkTensor.size());
  tile::DeviceBuffer<int64_t> dCS(chunkStart.size()), dStart(start.size());
  dMaster.copyFrom(master);
  dG.copyFrom(grad);
  dM.copyFrom(m);
  dV.copyFrom(v);
  dDecay.copyFrom(decay);
  dCT.copyFrom(chunkTensor);
  dCS.copyFrom(chunkStart);
  dStart.copyFrom(start);
  dP.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(chunkTensor.size()));
  mod.kernel("multi_tensor_adamw")
      .launch(cfg, dP.ptr(), dMaster.ptr(), dG.ptr(), dM.ptr(), dV.ptr(), dCT.ptr(), dCS.ptr(),
              dStart.ptr(), dDecay.ptr(), lr, b1, b2, eps, int32_t(step));
  ctx.synchronize();
  auto gp = dP.toHost();
  auto gMaster = dMaster.toHost();
  auto gm = dM.toHost();
  auto gv = dV.toHost();
  ported::ErrorCount eM("exp_avg"), eV("exp_avg_sq"), eP("master"), eB("bf16 param");
  const double bc1 = 1.0 - std::pow(double(b1), step), bc2 = 1.0 - std::pow(double(b2), step);
  for (size_t t = 0; t < sizes.size(); ++t)
    for (int64_t i = start[t]; i < start[t + 1]; ++i) {
      size_t k = size_t(i);
      double g = grad[k];
      double mm = double(b1) * m[k] + (1.0 - double(b1)) * g;
      double vv = double(b2) * v[k] + (1.0 - double(b2)) * g * g;
      double p = master[k];
      double upd = (mm / bc1) / (std::sqrt(vv / bc2) + double(eps)) + double(decay[t]) * p;
      double want = p - double(lr) * upd;
      eM.check(k, gm[k], mm, 1e-6 * std::fabs(mm) + 1e-9);
      eV.check(k, gv[k], vv, 1e-6 * vv + 1e-12);
      // |upd| <= ~sqrt(1/(1-b2)) / ...: the step lr * upd within 1e-4 relative,
      // plus the f32 rounding of p.
      eP.check(k, gMaster[k], want, 1e-4 * double(lr) * (std::fabs(upd) + 1.0) + 1.2e-7 * std::fabs(p));
      eB.check(k, bf16Value(gp[k]), bf16Value(bf16Bits(gMaster[k])), 0.0);
    }
  CHECK(eM.bad() == 0);
  CHECK(eV.bad() == 0);
  CHECK(eP.bad() == 0);
  CHECK(eB.bad() == 0);
}

TEST_CASE("MoE permute by expert and weighted unpermute", "[training_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("training_ports_gpu"));
  auto rng = ported::freshRng();
  const int T = ported::small() ? 37 : 1000, K = 2, H = ported::small() ? 96 : 1000;
  const int E = ported::small() ? 8 : 64;
  const int slots = T * K;
  // Expert ids skewed towards low experts (some experts get none), the K
  // experts of a token distinct.
  std::vector<int32_t> ids(static_cast<size_t>(slots));
  std::geometric_distribution<int> gd(0.15);
  for (int t = 0; t < T; ++t)
    for (int k = 0; k < K; ++k) {
      int e;
      do {
        e = std::min(gd(rng), E - 1);
      } while (k == 1 && e == ids[size_t(t) * K]);
      ids[size_t(t) * K + size_t(k)] = e;
    }
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<uint16_t> x(size_t(T) * H);
  for (auto &b : x)
    b = bf16Bits(nd(rng));
  std::vector<float> weight(static_cast<size_t>(slots)), y(size_t(slots) * H);
  std::uniform_real_distribution<float> wd(0.05f, 1.0f);
  for (auto &w : weight)
    w = wd(rng);
  for (auto &e : y)
    e = nd(rng);
  tile::DeviceBuffer<int32_t> dIds(ids.size()), dCounts(static_cast<size_t>(E)), dOff(size_t(E) + 1),
      dCursor(static_cast<size_t>(E)), dRow(static_cast<size_t>(slots));
  tile::DeviceBuffer<uint16_t> dX(x.size()), dPerm(size_t(slots) * H);
  tile::DeviceBuffer<float> dW(weight.size()), dY(y.size()), dOut(size_t(T) * H);
  dIds.copyFrom(ids);
  dX.copyFrom(x);
  dW.copyFrom(weight);
  dY.copyFrom(y);
  dCounts.fillBytes(0);
  dPerm.fillBytes(0xFF);
  dOut.fillBytes(0xFF);
  tile::LaunchConfig c1;
  c1.block = tile::Dim3(256);
  c1.grid = tile::Dim3(unsigned((slots + 255) / 256));
  mod.kernel("moe_expert_count").launch(c1, dCounts.ptr(), dIds.ptr(), int32_t(slots));
  tile::LaunchConfig c2;
  c2.block = tile::Dim3(1024);
  c2.grid = tile::Dim3(1);
  mod.kernel("moe_expert_offsets").launch(c2, dOff.ptr(), dCursor.ptr(), dCounts.ptr(), int32_t(E));
  tile::LaunchConfig c3;
  c3.block = tile::Dim3(128);
  c3.grid = tile::Dim3(unsigned(slots));
  mod.kernel("moe_permute")
      .launch(c3, dPerm.ptr(), dRow.ptr(), dCursor.ptr(), dX.ptr(), dIds.ptr(), int32_t(K), int32_t(H));
  ctx.synchronize();
  auto off = dOff.toHost();
  auto row = dRow.toHost();
  auto perm = dPerm.toHost();
  std::vector<int32_t> want(size_t(E) + 1, 0);
  for (int32_t e : ids)
    ++want[size_t(e) + 1];
  std::partial_sum(want.begin(), want.end(), want.begin());
  CHECK(off == want);
  size_t bad = 0;
  std::vector<int> seen(size_t(slots), 0);
  for (int s = 0; s < slots; ++s) {
    int e = ids[size_t(s)], r = row[size_t(s)];
    bool inSegment = r >= want[size_t(e)] && r < want[size_t(e) + 1];
    if (inSegment)
      ++seen[size_t(r)];
    bool copied = inSegment && std::equal(&x[size_t(s / K) * H], &x[size_t(s / K) * H] + H,
                                          &perm[size_t(r) * H]);
    if ((!inSegment || !copied) && bad++ < 5)
      UNSCOPED_INFO("slot " << s << " (expert " << e << ") went to row " << r << " of segment ["
                            << want[size_t(e)] << ", " << want[size_t(e) + 1] << ")"
                            << (inSegment ? ", row not copied" : ""));
  }
  CHECK(bad == 0);
  CHECK(std::count(seen.begin(), seen.end(), 1) == slots); // a permutation
  tile::LaunchConfig c4;
  c4.block = tile::Dim3(128);
  c4.grid = tile::Dim3(unsigned(T));
  mod.kernel("moe_unpermute")
      .launch(c4, dOut.ptr(), dY.ptr(), dRow.ptr(), dW.ptr(), int32_t(K), int32_t(H));
  ctx.synchronize();
  auto out = dOut.toHost();
  ported::ErrorCount eo("unpermute");
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h) {
      double acc = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        size_t s = size_t(t) * K + size_t(k);
        double term = double(weight[s]) * y[size_t(row[s]) * H + size_t(h)];
        acc += term;
        mag += std::fabs(term);
      }
      eo.check(size_t(t) * H + size_t(h), out[size_t(t) * H + size_t(h)], acc, 4e-7 * mag + 1e-30);
    }
  CHECK(eo.bad() == 0);
}

TEST_CASE("top-p sampling by threshold bisection", "[training_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("training_ports_gpu"));
  auto rng = ported::freshRng();
  const int B = ported::small() ? 3 : 32, V = ported::small() ? 1000 : 50257;
  std::normal_distribution<double> nd(0.0, 2.5);
  std::vector<float> probs(size_t(B) * V), u(static_cast<size_t>(B));
  for (int b = 0; b < B; ++b) {
    // A softmax of random logits (peaked), renormalised in f32.
    std::vector<double> z(static_cast<size_t>(V));
    double mx = -1e300, s = 0;
    for (auto &l : z)
      mx = std::max(mx, l = nd(rng));
    for (auto &l : z)
      s += (l = std::exp(l - mx));
    for (int i = 0; i < V; ++i)
      probs[size_t(b) * V + size_t(i)] = float(z[size_t(i)] / s);
  }
  std::uniform_real_distribution<float> ud(0.0f, 1.0f);
  for (auto &x : u)
    x = ud(rng) * 0.999f;
  tile::DeviceBuffer<float> dP(probs.size()), dU(u.size()), dTheta(static_cast<size_t>(B));
  tile::DeviceBuffer<int32_t> dTok(static_cast<size_t>(B));
  dP.copyFrom(probs);
  dU.copyFrom(u);
  for (float topP : {0.5f, 0.9f, 1.0f}) {
    INFO("top_p = " << topP);
    dTok.fillBytes(0xFF);
    dTheta.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(unsigned(B));
    mod.kernel("top_p_sample")
        .launch(cfg, dTok.ptr(), dTheta.ptr(), dP.ptr(), dU.ptr(), int32_t(V), topP);
    ctx.synchronize();
    auto tok = dTok.toHost();
    auto theta = dTheta.toHost();
    size_t bad = 0;
    for (int b = 0; b < B; ++b) {
      const float *row = &probs[size_t(b) * V];
      float th = theta[size_t(b)];
      // The threshold: its nucleus reaches top_p, and dropping the
      // threshold's own tokens falls below it (float64 masses; the device
      // sums in f32, hence the 1e-5 margins).
      double massGe = 0, massGt = 0;
      for (int i = 0; i < V; ++i) {
        massGe += row[i] >= th ? row[i] : 0.0;
        massGt += row[i] > th ? row[i] : 0.0;
      }
      bool thetaOk = th >= 0 && massGe >= double(topP) - 1e-5 && massGt < double(topP) + 1e-5 &&
                     (th == 0.0f || std::count(row, row + V, th) > 0);
      // The draw: the first nucleus token whose running mass exceeds
      // u * mass; a draw within 1e-5 of a boundary may take either side.
      double target = double(u[size_t(b)]) * massGe, acc = 0;
      int pick = -1;
      for (int i = 0; i < V && pick < 0; ++i)
        if (row[i] >= th && (acc += row[i]) > target)
          pick = i;
      int g = tok[size_t(b)];
      bool ok = thetaOk && g == pick;
      if (thetaOk && !ok && g >= 0 && g < V && row[g] >= th) {
        double before = 0;
        for (int i = 0; i < g; ++i)
          before += row[i] >= th ? row[i] : 0.0;
        ok = std::fabs(before - target) < 1e-5 || std::fabs(before + row[g] - target) < 1e-5;
      }
      if (!ok && bad++ < 5)
        UNSCOPED_INFO("row " << b << ": token " << g << " (threshold " << th << ", masses "
                             << massGe << " / " << massGt << "), expected token " << pick);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("paged KV-cache append with RoPE into bf16", "[training_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("training_ports_gpu"));
  auto rng = ported::freshRng();
  const int D = 128, BS = 16, heads = 8, seqs = 3, maxBlocks = 8, maxPos = maxBlocks * BS;
  const int tokens = ported::small() ? 9 : 60;
  const int numBlocks = seqs * maxBlocks + 5;
  // A shuffled block table: sequence s's block j is a random physical block.
  std::vector<int32_t> physical(static_cast<size_t>(numBlocks));
  std::iota(physical.begin(), physical.end(), 0);
  std::shuffle(physical.begin(), physical.end(), rng);
  std::vector<int32_t> table(physical.begin(), physical.begin() + seqs * maxBlocks);
  // Distinct (seq, pos) per token.
  std::vector<int32_t> pos(static_cast<size_t>(tokens)), seq(static_cast<size_t>(tokens));
  std::vector<int> all(size_t(seqs) * maxPos);
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  for (int n = 0; n < tokens; ++n) {
    seq[size_t(n)] = all[size_t(n)] / maxPos;
    pos[size_t(n)] = all[size_t(n)] % maxPos;
  }
  std::vector<float> cs(size_t(maxPos) * D);
  for (int p = 0; p < maxPos; ++p)
    for (int i = 0; i < 64; ++i) {
      double ang = p * std::pow(10000.0, -2.0 * i / D);
      cs[size_t(p) * D + size_t(i)] = float(std::cos(ang));
      cs[size_t(p) * D + 64 + size_t(i)] = float(std::sin(ang));
    }
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> k(size_t(tokens) * heads * D), v(k.size());
  for (auto &e : k)
    e = nd(rng);
  for (auto &e : v)
    e = nd(rng);
  const size_t cacheElems = size_t(numBlocks) * heads * BS * D;
  tile::DeviceBuffer<uint16_t> dKC(cacheElems), dVC(cacheElems);
  tile::DeviceBuffer<float> dK(k.size()), dV(v.size()), dCS(cs.size());
  tile::DeviceBuffer<int32_t> dPos(pos.size()), dSeq(seq.size()), dTable(table.size());
  dK.copyFrom(k);
  dV.copyFrom(v);
  dCS.copyFrom(cs);
  dPos.copyFrom(pos);
  dSeq.copyFrom(seq);
  dTable.copyFrom(table);
  dKC.fillBytes(0xFF);
  dVC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(unsigned((tokens * heads + 3) / 4));
  mod.kernel("kv_append_rope")
      .launch(cfg, dKC.ptr(), dVC.ptr(), dK.ptr(), dV.ptr(), dPos.ptr(), dSeq.ptr(), dTable.ptr(),
              dCS.ptr(), int32_t(tokens), int32_t(heads), int32_t(maxBlocks));
  ctx.synchronize();
  auto kc = dKC.toHost();
  auto vc = dVC.toHost();
  std::vector<char> written(cacheElems, 0);
  ported::ErrorCount ek("k_cache"), ev("v_cache");
  size_t badPoison = 0;
  for (int n = 0; n < tokens; ++n)
    for (int h = 0; h < heads; ++h) {
      int p = pos[size_t(n)];
      int blk = table[size_t(seq[size_t(n)]) * maxBlocks + size_t(p / BS)];
      size_t dst = ((size_t(blk) * heads + size_t(h)) * BS + size_t(p % BS)) * D;
      const float *kr = &k[(size_t(n) * heads + size_t(h)) * D];
      const float *vr = &v[(size_t(n) * heads + size_t(h)) * D];
      for (int i = 0; i < 64; ++i) {
        double c = cs[size_t(p) * D + size_t(i)], s = cs[size_t(p) * D + 64 + size_t(i)];
        double r1 = kr[i] * c - kr[i + 64] * s, r2 = kr[i + 64] * c + kr[i] * s;
        double m1 = std::fabs(kr[i] * c) + std::fabs(kr[i + 64] * s);
        double m2 = std::fabs(kr[i + 64] * c) + std::fabs(kr[i] * s);
        // bf16 rounding (2^-9 relative) of an f32 value within 2^-23 of r.
        ek.check(dst + size_t(i), bf16Value(kc[dst + size_t(i)]), r1, 0.00391 * std::fabs(r1) + 2.4e-7 * m1);
        ek.check(dst + 64 + size_t(i), bf16Value(kc[dst + 64 + size_t(i)]), r2,
                 0.00391 * std::fabs(r2) + 2.4e-7 * m2);
      }
      for (int i = 0; i < D; ++i) {
        ev.check(dst + size_t(i), vc[dst + size_t(i)], bf16Bits(vr[i]), 0.0);
        written[dst + size_t(i)] = 1;
      }
    }
  for (size_t i = 0; i < cacheElems; ++i)
    if (!written[i] && (kc[i] != 0xFFFF || vc[i] != 0xFFFF))
      ++badPoison;
  CHECK(ek.bad() == 0);
  CHECK(ev.bad() == 0);
  CHECK(badPoison == 0);
}
