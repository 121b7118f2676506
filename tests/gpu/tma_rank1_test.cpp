// GPU test of rank-1 TMA (tma_rank1.tile) on fresh random data: boxes of 4,
// 32 and 256 f32 elements through a ring, and a load + store round trip with
// a prefetch, every box at a multiple of 16 bytes (the compiler reports
// other starts: they trap on the GPU). The runtime encodes the 1-D maps.
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

std::string rank1PtxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/tma_rank1_gpu.ptx";
}

std::vector<float> freshNormal(size_t n) {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (auto &x : v)
    x = normal(rng);
  return v;
}

} // namespace

TEST_CASE("rank-1 TMA boxes of 4, 32 and 256 elements through a ring", "[tma_rank1]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, rank1PtxPath());
  struct Instance {
    int bx, st, off;
  };
  for (Instance in : {Instance{4, 4, 0}, Instance{4, 8, 4}, Instance{32, 12, 4}, Instance{256, 256, 0},
                      Instance{256, 36, 8}}) {
    const int steps = 9;
    const int64_t L = int64_t(steps) * in.st + in.off + in.bx - 3; // the last box reaches past the end
    std::vector<float> h = freshNormal(size_t(L));
    tile::DeviceBuffer<float> dS(h.size()), dOut(steps);
    dS.copyFrom(h);
    dOut.fillBytes(0xff);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(1);
    std::string name = "sum_boxes$BX" + std::to_string(in.bx) + "$ST" + std::to_string(in.st) +
                       "$OFF" + std::to_string(in.off);
    mod.kernel(name).launch(cfg, tile::Tensor(dS, {L}), dOut, steps);
    ctx.synchronize();
    std::vector<float> out = dOut.toHost();
    int bad = 0;
    for (int k = 0; k < steps; ++k) {
      double ref = 0, mag = 0;
      for (int i = 0; i < in.bx; ++i) {
        int64_t j = int64_t(k) * in.st + in.off + i;
        double v = j < L ? h[size_t(j)] : 0.0; // past the end reads as zero
        ref += v;
        mag += std::fabs(v);
      }
      bad += !(std::fabs(out[size_t(k)] - ref) <= 1e-5 * (mag + 1));
    }
    INFO(name);
    CHECK(bad == 0);
  }
}

TEST_CASE("rank-1 TMA load, prefetch and store round trip", "[tma_rank1]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, rank1PtxPath());
  const int blocks = 7, shift = 3;
  const int64_t L = blocks * 32 + shift * 4;
  std::vector<float> h = freshNormal(size_t(L));
  tile::DeviceBuffer<float> dS(h.size()), dD(h.size());
  dS.copyFrom(h);
  dD.fillBytes(0xff); // NaN where nothing is stored
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(32);
  cfg.grid = tile::Dim3(blocks);
  mod.kernel("copy_boxes").launch(cfg, tile::Tensor(dS, {L}), tile::Tensor(dD, {L}), shift);
  ctx.synchronize();
  std::vector<float> d = dD.toHost();
  int bad = 0;
  for (int64_t i = 0; i < blocks * 32; ++i)
    bad += d[size_t(i)] != h[size_t(i + shift * 4)];
  for (int64_t i = blocks * 32; i < L; ++i)
    bad += !std::isnan(d[size_t(i)]);
  CHECK(bad == 0);
}
