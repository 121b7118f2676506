// GPU test of rings (rings.tile), byte-exact on fresh random data: a 3-stage
// ring over a cluster of 2, one per-CTA tile and one multicast tile, more
// steps than stages (the phases wrap), every element of every stage of every
// CTA copied out and compared. The tensors go in as tile::Tensor (the runtime
// encodes the maps with the box and swizzle tilec recorded).
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

std::string ringsPtxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/rings_gpu.ptx";
}

} // namespace

TEST_CASE("a multicast ring delivers every byte of every stage to both CTAs", "[rings]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ringsPtxPath());
  tile::Kernel k = mod.kernel("ring_multicast");
  const int32_t K = 320, N = 96, steps = 11, ctas = 4;
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  std::vector<int32_t> a(K * N), b(K * N);
  for (auto &v : a)
    v = static_cast<int32_t>(rng());
  for (auto &v : b)
    v = static_cast<int32_t>(rng());
  tile::DeviceBuffer<int32_t> dA(a.size()), dB(b.size()), dOut(size_t(ctas) * steps * 3072);
  dA.copyFrom(a);
  dB.copyFrom(b);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(ctas);
  k.launch(cfg, tile::Tensor(dA, {K, N}), tile::Tensor(dB, {K, N}), dOut.ptr(), steps);
  ctx.synchronize();
  std::vector<int32_t> out = dOut.toHost();
  size_t bad = 0;
  for (int32_t cta = 0; cta < ctas; ++cta) {
    const int32_t acol = (cta % (N / 32)) * 32, bcol = ((cta / 2) % (N / 32)) * 32;
    for (int32_t i = 0; i < steps; ++i) {
      const size_t base = (size_t(cta) * steps + i) * 3072;
      for (int32_t r = 0; r < 64; ++r)
        for (int32_t c = 0; c < 32; ++c)
          bad += out[base + r * 32 + c] != a[size_t((i * 64) % K + r) * N + acol + c];
      for (int32_t r = 0; r < 32; ++r)
        for (int32_t c = 0; c < 32; ++c)
          bad += out[base + 2048 + r * 32 + c] != b[size_t((i * 32) % K + r) * N + bcol + c];
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("a ring produced and consumed by the same threads delivers every byte", "[rings]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ringsPtxPath());
  tile::Kernel k = mod.kernel("ring_sequential");
  const int32_t K = 320, N = 96, steps = 9, ctas = 3;
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  std::vector<int32_t> a(K * N);
  for (auto &v : a)
    v = static_cast<int32_t>(rng());
  tile::DeviceBuffer<int32_t> dA(a.size()), dOut(size_t(ctas) * steps * 2048);
  dA.copyFrom(a);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(ctas);
  k.launch(cfg, tile::Tensor(dA, {K, N}), dOut.ptr(), steps);
  ctx.synchronize();
  std::vector<int32_t> out = dOut.toHost();
  size_t bad = 0;
  for (int32_t cta = 0; cta < ctas; ++cta) {
    const int32_t acol = (cta % (N / 32)) * 32;
    for (int32_t i = 0; i < steps; ++i)
      for (int32_t r = 0; r < 64; ++r)
        for (int32_t c = 0; c < 32; ++c)
          bad += out[(size_t(cta) * steps + i) * 2048 + r * 32 + c] !=
                 a[size_t((i * 64) % K + r) * N + acol + c];
  }
  CHECK(bad == 0);
}
