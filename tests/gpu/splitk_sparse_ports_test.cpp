// GPU tests of splitk_sparse_ports.tile on fresh random data:
//  - split-K GEMM: bf16 inputs k/8 with small integer k, so every product
//    and partial sum is exact in f32 and C must equal the float64 result
//    exactly whatever order the partials are summed in; M, N and K no
//    multiples of the tile, split counts that leave a split with no k step,
//    C poisoned first; two launches on one semaphore array (the last CTA of
//    each tile must leave its semaphore at zero);
//  - block-sparse attention: a random layout per (head, query block) in
//    random order, with an empty list and a full one, S no multiple of the
//    blocks (a last key block past S); O and LSE against float64 over the
//    listed keys only, O poisoned first.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

TEST_CASE("split-K GEMM with a workspace and per-tile semaphores", "[splitk_sparse_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("splitk_sparse_ports_gpu"));
  auto rng = ported::freshRng();
  const int M = ported::small() ? 136 : 300, N = ported::small() ? 136 : 328,
            K = ported::small() ? 328 : 2000;
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<uint16_t> a(size_t(M) * K), b(size_t(N) * K);
  for (auto &v : a)
    v = bf16Bits(small(rng) / 8.0);
  for (auto &v : b)
    v = bf16Bits(small(rng) / 8.0);
  std::vector<double> want(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += bf16Value(a[size_t(i) * K + size_t(k)]) * bf16Value(b[size_t(j) * K + size_t(k)]);
      want[size_t(i) * N + size_t(j)] = s;
    }
  const int tilesN = (N + 127) / 128, tilesM = (M + 127) / 128;
  const int steps = (K + 63) / 64;
  // 3 splits; then steps - 1 splits of ceil(steps / (steps - 1)) = 2 steps:
  // the last splits have none.
  const int splitCounts[] = {3, steps - 1};
  const int maxSplits = *std::max_element(std::begin(splitCounts), std::end(splitCounts));
  tile::DeviceBuffer<uint16_t> dA(a.size()), dB(b.size());
  tile::DeviceBuffer<float> dC(size_t(M) * N), dWs(size_t(maxSplits) * M * N);
  tile::DeviceBuffer<int32_t> dSems(size_t(tilesM) * tilesN);
  dA.copyFrom(a);
  dB.copyFrom(b);
  dSems.fillBytes(0);
  auto bfE = tile::TensorElement::BF16;
  for (int splits : splitCounts) {
    INFO("splits = " << splits);
    dC.fillBytes(0xFF);
    dWs.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(384);
    cfg.grid = tile::Dim3(unsigned(tilesN), unsigned(tilesM), unsigned(splits));
    mod.kernel("gemm_splitk")
        .launch(cfg, tile::Tensor(dA, bfE, {M, K}), tile::Tensor(dB, bfE, {N, K}), dC.ptr(),
                dWs.ptr(), dSems.ptr());
    ctx.synchronize();
    auto c = dC.toHost();
    auto sems = dSems.toHost();
    ported::ErrorCount e("C");
    for (size_t i = 0; i < c.size(); ++i)
      e.check(i, c[i], want[i], 0.0);
    CHECK(e.bad() == 0);
    CHECK(std::count(sems.begin(), sems.end(), 0) == long(sems.size()));
  }
}

TEST_CASE("block-sparse attention forward", "[splitk_sparse_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("splitk_sparse_ports_gpu"));
  auto rng = ported::freshRng();
  const int D = 64, H = ported::small() ? 1 : 3, S = ported::small() ? 200 : 1000;
  const int nqb = (S + 127) / 128, nkb = (S + 63) / 64;
  // The layout: for each (head, query block) a random subset of the key
  // blocks in random order; list 0 empty, list 1 every block.
  std::vector<int32_t> ptr{0}, idx;
  std::bernoulli_distribution pick(0.4);
  for (int l = 0; l < H * nqb; ++l) {
    std::vector<int32_t> blocks;
    for (int kb = 0; kb < nkb; ++kb)
      if (l == 1 || (l != 0 && pick(rng)))
        blocks.push_back(kb);
    std::shuffle(blocks.begin(), blocks.end(), rng);
    idx.insert(idx.end(), blocks.begin(), blocks.end());
    ptr.push_back(int32_t(idx.size()));
  }
  if (idx.empty())
    idx.push_back(0);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> q(size_t(H) * S * D), k(q.size()), v(q.size());
  for (auto *t : {&q, &k, &v})
    for (auto &x : *t)
      x = bf16Bits(nd(rng));
  tile::DeviceBuffer<uint16_t> dQ(q.size()), dK(k.size()), dV(v.size());
  tile::DeviceBuffer<float> dO(q.size()), dL(size_t(H) * S);
  tile::DeviceBuffer<int32_t> dPtr(ptr.size()), dIdx(idx.size());
  dQ.copyFrom(q);
  dK.copyFrom(k);
  dV.copyFrom(v);
  dPtr.copyFrom(ptr);
  dIdx.copyFrom(idx);
  dO.fillBytes(0xFF);
  dL.fillBytes(0xFF);
  const float scale = 0.125f;
  auto bfE = tile::TensorElement::BF16;
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(384);
  cfg.grid = tile::Dim3(unsigned(nqb), unsigned(H));
  mod.kernel("block_sparse_attention")
      .launch(cfg, tile::Tensor(dQ, bfE, {H * S, D}), tile::Tensor(dK, bfE, {H * S, D}),
              tile::Tensor(dV, bfE, {H * S, D}), dO.ptr(), dL.ptr(), dPtr.ptr(), dIdx.ptr(),
              int32_t(S), scale);
  ctx.synchronize();
  auto o = dO.toHost();
  auto lse = dL.toHost();
  ported::ErrorCount eo("O"), el("LSE");
  const double ninf = -std::numeric_limits<double>::infinity();
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < S; ++i) {
      const int l = h * nqb + i / 128;
      std::vector<int> keys;
      for (int p = ptr[size_t(l)]; p < ptr[size_t(l) + 1]; ++p)
        for (int j = idx[size_t(p)] * 64; j < std::min(S, idx[size_t(p)] * 64 + 64); ++j)
          keys.push_back(j);
      const size_t qrow = size_t(h) * S + size_t(i);
      std::vector<double> s(keys.size());
      double m = ninf;
      for (size_t t = 0; t < keys.size(); ++t) {
        const size_t krow = size_t(h) * S + size_t(keys[t]);
        double dot = 0;
        for (int c = 0; c < D; ++c)
          dot += bf16Value(q[qrow * D + size_t(c)]) * bf16Value(k[krow * D + size_t(c)]);
        s[t] = dot * scale;
        m = std::max(m, s[t]);
      }
      double sum = 0;
      std::vector<double> acc(size_t(D), 0.0);
      for (size_t t = 0; t < keys.size(); ++t) {
        double p = std::exp(s[t] - m);
        sum += p;
        const size_t krow = size_t(h) * S + size_t(keys[t]);
        for (int c = 0; c < D; ++c)
          acc[size_t(c)] += p * bf16Value(v[krow * D + size_t(c)]);
      }
      for (int c = 0; c < D; ++c)
        // P rounded to bf16 (2^-9 relative) in the P V product.
        eo.check(qrow * D + size_t(c), o[qrow * D + size_t(c)],
                 keys.empty() ? 0.0 : acc[size_t(c)] / sum, 1e-2);
      if (keys.empty())
        el.check(qrow, std::isinf(lse[qrow]) && lse[qrow] < 0 ? 0.0 : 1.0, 0.0, 0.0);
      else
        el.check(qrow, lse[qrow], m + std::log(sum), 1e-3 * (1 + std::fabs(m + std::log(sum))));
    }
  CHECK(eo.bad() == 0);
  CHECK(el.bad() == 0);
}
