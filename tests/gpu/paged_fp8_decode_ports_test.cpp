// GPU test of paged_fp8_decode_ports.tile on fresh random data: decode
// attention over a paged e4m3 KV cache with per-KV-head scales and grouped
// query heads, against float64 (the cache decoded exactly from its bytes);
// context lengths 0, 1, mid-block and several blocks, block tables shuffled.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

TEST_CASE("paged decode attention with an fp8 KV cache", "[paged_fp8_decode_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("paged_fp8_decode_ports_gpu"));
  auto rng = ported::freshRng();
  const int D = 128, BS = 16, H = 32, KVH = 8;
  std::vector<int> lens = ported::small() ? std::vector<int>{0, 1, 37}
                                          : std::vector<int>{0, 1, 16, 37, 1000, 4097};
  const int B = int(lens.size());
  int maxBlocks = 0, totalBlocks = 0;
  for (int n : lens) {
    maxBlocks = std::max(maxBlocks, (n + BS - 1) / BS);
    totalBlocks += (n + BS - 1) / BS;
  }
  maxBlocks = std::max(maxBlocks, 1);
  totalBlocks = std::max(totalBlocks, 1);
  // Every sequence's blocks at shuffled places of the pool.
  std::vector<int32_t> perm(static_cast<size_t>(totalBlocks));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<int32_t> table(size_t(B) * maxBlocks, -1);
  size_t next = 0;
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < (lens[size_t(b)] + BS - 1) / BS; ++j)
      table[size_t(b) * maxBlocks + size_t(j)] = perm[next++];
  const size_t cacheN = size_t(totalBlocks) * BS * KVH * D;
  std::normal_distribution<double> nd(0.0, 1.5);
  std::vector<uint8_t> kc(cacheN), vc(cacheN);
  for (auto *c : {&kc, &vc})
    for (auto &x : *c)
      x = uint8_t(tile::floatBits(tile::ScalarType::E4M3, nd(rng)));
  std::uniform_real_distribution<float> us(0.25f, 2.0f);
  std::vector<float> ks(KVH), vs(KVH), q(size_t(B) * H * D);
  for (auto &x : ks)
    x = us(rng);
  for (auto &x : vs)
    x = us(rng);
  std::normal_distribution<float> nq(0.0f, 1.0f);
  for (auto &x : q)
    x = nq(rng);
  const float smScale = 1.0f / std::sqrt(float(D));
  tile::DeviceBuffer<float> dOut(q.size()), dQ(q.size()), dKs(KVH), dVs(KVH);
  tile::DeviceBuffer<uint8_t> dK(cacheN), dV(cacheN);
  tile::DeviceBuffer<int32_t> dTable(table.size()), dLens(lens.size());
  dQ.copyFrom(q);
  dKs.copyFrom(ks);
  dVs.copyFrom(vs);
  dK.copyFrom(kc);
  dV.copyFrom(vc);
  dTable.copyFrom(table);
  std::vector<int32_t> lens32(lens.begin(), lens.end());
  dLens.copyFrom(lens32);
  dOut.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(unsigned(H), unsigned(B));
  mod.kernel("paged_decode_fp8")
      .launch(cfg, dOut.ptr(), dQ.ptr(), dK.ptr(), dV.ptr(), dKs.ptr(), dVs.ptr(), dTable.ptr(),
              dLens.ptr(), int32_t(H), int32_t(KVH), int32_t(maxBlocks), smScale);
  ctx.synchronize();
  auto out = dOut.toHost();
  auto e4m3 = [](uint8_t b) { return tile::floatValue(tile::ScalarType::E4M3, b); };
  ported::ErrorCount e("out");
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const int n = lens[size_t(b)], kvh = h / (H / KVH);
      const float *qh = &q[(size_t(b) * H + size_t(h)) * D];
      std::vector<double> s(static_cast<size_t>(n));
      std::vector<size_t> row(static_cast<size_t>(n));
      double m = -INFINITY;
      for (int t = 0; t < n; ++t) {
        size_t blk = size_t(table[size_t(b) * maxBlocks + size_t(t / BS)]);
        row[size_t(t)] = ((blk * BS + size_t(t % BS)) * KVH + size_t(kvh)) * D;
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += double(qh[d]) * e4m3(kc[row[size_t(t)] + size_t(d)]);
        s[size_t(t)] = dot * ks[size_t(kvh)] * smScale;
        m = std::max(m, s[size_t(t)]);
      }
      double l = 0;
      for (int t = 0; t < n; ++t)
        l += std::exp(s[size_t(t)] - m);
      for (int d = 0; d < D; ++d) {
        double o = 0, mag = 0;
        for (int t = 0; t < n; ++t) {
          double p = std::exp(s[size_t(t)] - m) / l;
          double v = e4m3(vc[row[size_t(t)] + size_t(d)]) * vs[size_t(kvh)];
          o += p * v;
          mag += p * std::fabs(v);
        }
        // Scores in f32 (128 products, exp's 2 ulp on arguments up to
        // about 30): 1e-5 of the weighted magnitude of the values.
        size_t i = (size_t(b) * H + size_t(h)) * D + size_t(d);
        e.check(i, out[i], n ? o : 0.0, 1e-5 * mag + 1e-30);
      }
    }
  CHECK(e.bad() == 0);
}
