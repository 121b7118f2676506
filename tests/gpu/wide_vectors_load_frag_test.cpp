// GPU test of wide_vectors_load_frag.tile on fresh random data, against CPU
// references, every result exact (bit for bit): 32-byte vectors (f32 x 8 at
// a 16-byte offset, bf16 x 16 through shared memory, u8 x 32) and load_frag
// from shared tiles (TMA-swizzled bf16 through ldmatrix, an f16 tile through
// ldmatrix .x4/.x2, rows of a swizzled f32 tile, a stmatrix/ldmatrix round
// trip).
#include "ported_common.h"

#include <tile/runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

tile::Module wideModule(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("wide_vectors_load_frag_gpu"));
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

float f16Value(uint16_t b) { return float(tile::floatValue(tile::ScalarType::F16, b)); }
uint16_t f16Bits(double x) { return uint16_t(tile::floatBits(tile::ScalarType::F16, x)); }
float bf16(uint16_t b) { return float(ported::bf16Value(b)); }

tile::LaunchConfig blocks(int n) {
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(unsigned(n));
  return cfg;
}

} // namespace

TEST_CASE("32-byte vectors: f32 x 8, bf16 x 16, u8 x 32", "[wide_vectors_load_frag]") {
  tile::Context ctx(0);
  tile::Module mod = wideModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 96, n = B * 128;
  std::uniform_real_distribution<float> fd(-8.0f, 8.0f);
  std::uniform_int_distribution<int> bytes(0, 255);

  std::vector<float> x(size_t(n) * 8 + 8);
  for (float &f : x)
    f = fd(rng);
  tile::DeviceBuffer<float> dX(x.size()), dY(size_t(n) * 8);
  dX.copyFrom(x);
  for (int c : {1, 0}) {
    INFO("c = " << c);
    dY.fillBytes(0xFF);
    mod.kernel("wide_f32").launch(blocks(B), dX.ptr(), dY.ptr(), int32_t(c));
    ctx.synchronize();
    auto y = dY.toHost();
    size_t bad = 0;
    for (int t = 0; t < n; ++t) {
      const float *v = &x[size_t(t) * 8 + 4];
      for (int k = 0; k < 8; ++k) {
        float w = k == 5 ? v[0] - v[7] : (v[k] + v[k]) * v[k];
        float want = c > 0 ? w : -v[k];
        if (!sameBits(y[size_t(t) * 8 + k], want) && bad++ < 5)
          UNSCOPED_INFO("y[" << t * 8 + k << "] = " << y[size_t(t) * 8 + k] << ", expected "
                             << want);
      }
    }
    CHECK(bad == 0);
  }

  std::vector<uint16_t> h(size_t(n) * 16);
  for (uint16_t &b : h)
    b = ported::bf16Bits(fd(rng));
  tile::DeviceBuffer<uint16_t> dH(h.size()), dO(h.size());
  tile::DeviceBuffer<float> dOf(size_t(n) * 8);
  dH.copyFrom(h);
  mod.kernel("wide_bf16").launch(blocks(B), dH.ptr(), dO.ptr(), dOf.ptr());
  ctx.synchronize();
  auto o = dO.toHost();
  auto of = dOf.toHost();
  size_t badH = 0;
  for (int t = 0; t < n; ++t) {
    int from = (t / 128) * 128 + 127 - t % 128; // the thread whose 32 bytes t reads back
    for (int k = 0; k < 16; ++k) {
      float e = bf16(h[size_t(from) * 16 + k]);
      uint16_t want = ported::bf16Bits(double(e) * double(e)); // exact product, one rounding
      bool ok = o[size_t(t) * 16 + k] == want;
      if (k >= 8)
        ok = ok && sameBits(of[size_t(t) * 8 + k - 8], bf16(want));
      if (!ok && badH++ < 5)
        UNSCOPED_INFO("thread " << t << " element " << k << ": " << o[size_t(t) * 16 + k]
                                << ", expected " << want);
    }
  }
  CHECK(badH == 0);

  std::vector<uint8_t> b8(size_t(n) * 32);
  for (uint8_t &b : b8)
    b = uint8_t(bytes(rng));
  tile::DeviceBuffer<uint8_t> dB(b8.size());
  tile::DeviceBuffer<uint32_t> dS(n);
  dB.copyFrom(b8);
  mod.kernel("wide_u8").launch(blocks(B), dB.ptr(), dS.ptr());
  ctx.synchronize();
  auto s = dS.toHost();
  size_t badU = 0;
  for (int t = 0; t < n; ++t) {
    uint32_t want = 0;
    for (int k = 0; k < 32; ++k)
      want += uint32_t(b8[size_t(t) * 32 + k]) * uint32_t(k + 1);
    if (s[t] != want && badU++ < 5)
      UNSCOPED_INFO("sum[" << t << "] = " << s[t] << ", expected " << want);
  }
  CHECK(badU == 0);
}

TEST_CASE("load_frag from shared tiles reads them through their layout",
          "[wide_vectors_load_frag]") {
  tile::Context ctx(0);
  tile::Module mod = wideModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 66;
  std::uniform_real_distribution<float> fd(-4.0f, 4.0f);
  auto compare = [](const char *what, const std::vector<float> &got,
                    const std::vector<float> &want) {
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (!sameBits(got[i], want[i]) && bad++ < 5)
        UNSCOPED_INFO(what << "[" << i << "] = " << got[i] << ", expected " << want[i]);
    INFO(what);
    CHECK(bad == 0);
  };

  { // bf16 [64, 128], 128B swizzle: element [r, c] times a.
    const int R = B * 64, C = 128;
    const float a = 1.5f;
    std::vector<uint16_t> x(size_t(R) * C);
    for (uint16_t &v : x)
      v = ported::bf16Bits(fd(rng));
    tile::DeviceBuffer<uint16_t> dX(x.size());
    tile::DeviceBuffer<float> dOut(x.size());
    dX.copyFrom(x);
    dOut.fillBytes(0xFF);
    tile::Tensor tx(dX, tile::TensorElement::BF16, {R, C});
    mod.kernel("frag_bf16").launch(blocks(B), tx, dOut.ptr(), a);
    ctx.synchronize();
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      want[i] = bf16(x[i]) * a;
    compare("frag_bf16", dOut.toHost(), want);
  }
  { // f16 [64, 24], no swizzle.
    const int R = B * 64, C = 24;
    std::vector<uint16_t> x(size_t(R) * C);
    for (uint16_t &v : x)
      v = f16Bits(fd(rng));
    tile::DeviceBuffer<uint16_t> dX(x.size());
    tile::DeviceBuffer<float> dOut(x.size());
    dX.copyFrom(x);
    dOut.fillBytes(0xFF);
    tile::Tensor tx(dX, tile::TensorElement::F16, {R, C});
    mod.kernel("frag_f16").launch(blocks(B), tx, dOut.ptr());
    ctx.synchronize();
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      want[i] = f16Value(x[i]);
    compare("frag_f16", dOut.toHost(), want);
  }
  { // f32 [128, 32], 128B swizzle: rows 64 .. 127 of each tile.
    const int R = B * 128, C = 32;
    std::vector<float> x(size_t(R) * C);
    for (float &v : x)
      v = fd(rng);
    tile::DeviceBuffer<float> dX(x.size()), dOut(size_t(B) * 64 * C);
    dX.copyFrom(x);
    dOut.fillBytes(0xFF);
    tile::Tensor tx(dX, tile::TensorElement::F32, {R, C});
    mod.kernel("frag_f32").launch(blocks(B), tx, dOut.ptr());
    ctx.synchronize();
    std::vector<float> want(size_t(B) * 64 * C);
    for (int b = 0; b < B; ++b)
      for (int r = 0; r < 64; ++r)
        for (int c = 0; c < C; ++c)
          want[(size_t(b) * 64 + r) * C + c] = x[(size_t(b) * 128 + 64 + r) * C + c];
    compare("frag_f32", dOut.toHost(), want);
  }
  { // bf16 [64, 64]: load_frag, times 2, store(t, f), load_frag again.
    const int R = B * 64, C = 64;
    std::vector<uint16_t> x(size_t(R) * C);
    for (uint16_t &v : x)
      v = ported::bf16Bits(fd(rng));
    tile::DeviceBuffer<uint16_t> dX(x.size()), dOut(x.size());
    dX.copyFrom(x);
    dOut.fillBytes(0xFF);
    tile::Tensor tx(dX, tile::TensorElement::BF16, {R, C});
    mod.kernel("frag_roundtrip").launch(blocks(B), tx, dOut.ptr());
    ctx.synchronize();
    auto out = dOut.toHost();
    size_t bad = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      uint16_t want = ported::bf16Bits(2.0 * bf16(x[i])); // exact
      if (out[i] != want && bad++ < 5)
        UNSCOPED_INFO("frag_roundtrip[" << i << "] = " << out[i] << ", expected " << want);
    }
    CHECK(bad == 0);
  }
}
