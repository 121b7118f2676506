// GPU tests of the epilogue on fragments (epilogue.tile), element by element:
// every stored value encodes the row and column the fragment layout gave it
// (frag_row / frag_col), so a wrong fragment layout, a wrong stmatrix
// address, a wrong swizzle (checked through the TMA store, which reads the
// tile with the hardware's swizzle) or a missing barrier shows up as a wrong
// element. Outputs are poisoned first; elements no store may touch are
// checked to keep the poison.
#include <catch2/catch.hpp>

#include <tile/runtime.h>
#include <tilec/Target/TargetFacts.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string epiloguePtxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/epilogue_gpu.ptx";
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0 && man == 0) {
    bits = sign;
  } else if (exp == 0) { // subnormal: normalise
    int e = -1;
    do {
      man <<= 1;
      ++e;
    } while (!(man & 0x400));
    bits = sign | ((127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool isPoison(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits == 0xA5A5A5A5u;
}

/// Every (row, col) of an m x n fragment is held by exactly one (thread,
/// element) of tile::target::wgmmaFragmentCoord: the layout the stores rely on.
void checkLayoutCovers(int64_t m, int64_t n) {
  std::vector<int> seen(size_t(m * n), 0);
  for (int64_t t = 0; t < tile::target::kWarpgroupSize; ++t)
    for (int64_t e = 0; e < tile::target::wgmmaFragmentElements(m, n); ++e) {
      auto c = tile::target::wgmmaFragmentCoord(n, e, t);
      REQUIRE(c.row < m);
      REQUIRE(c.col < n);
      ++seen[size_t(c.row * n + c.col)];
    }
  for (int s : seen)
    REQUIRE(s == 1);
}

} // namespace

TEST_CASE("f32 fragment math and strided global stores, element by element", "[epilogue]") {
  checkLayoutCovers(128, 40);
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, epiloguePtxPath());
  tile::Kernel k = mod.kernel("frag_math");
  const int M = 128, N = 40, LD = 48;
  std::vector<float> bias(N);
  for (int c = 0; c < N; ++c)
    bias[c] = 0.25f * float(c) - 3.0f;
  tile::DeviceBuffer<float> dOut(size_t(2 * M * LD)), dBias(bias.size());
  dBias.copyFrom(bias);
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, dOut.ptr(), dBias.ptr());
  ctx.synchronize();
  std::vector<float> out = dOut.toHost();
  size_t bad = 0, touched = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < LD; ++c) {
      float v = out[size_t(r * LD + c)], w = out[size_t(M * LD + r * LD + c)];
      if (c >= N) { // past the fragment's columns: untouched
        touched += !isPoison(v) + !isPoison(w);
        continue;
      }
      float fr = float(r), fc = float(c);
      float want = fr * 1000.0f + fc + bias[size_t(c)];
      float wantW = std::min(std::max(2.0f * fr + fc / 2.0f, 10.0f), 200.0f) + fr;
      bad += v != want;
      bad += w != wantW;
    }
  CHECK(bad == 0);
  CHECK(touched == 0);
}

TEST_CASE("cols(f, j, w) selects columns j*w .. j*w+w-1 of a fragment", "[epilogue]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, epiloguePtxPath());
  tile::Kernel k = mod.kernel("frag_cols");
  const int M = 128, W = 16, M16 = 64, W16 = 8;
  tile::DeviceBuffer<float> dOut(size_t(M * W));
  tile::DeviceBuffer<uint16_t> dOut16(size_t(M16 * W16));
  dOut.fillBytes(0xA5);
  dOut16.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, dOut.ptr(), dOut16.ptr());
  ctx.synchronize();
  std::vector<float> out = dOut.toHost();
  std::vector<uint16_t> out16 = dOut16.toHost();
  size_t bad = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < W; ++c)
      bad += out[size_t(r * W + c)] != float(r) * 1000.0f + float(W + c);
  // Column 8 + c plus column 16 + c, exact in f16: 24 + 2c.
  for (int r = 0; r < M16; ++r)
    for (int c = 0; c < W16; ++c)
      bad += halfToFloat(out16[size_t(r * W16 + c)]) != float(24 + 2 * c);
  CHECK(bad == 0);
}

TEST_CASE("fragments into plain shared tiles: stmatrix (f16, bf16) and st.shared (f32)",
          "[epilogue]") {
  checkLayoutCovers(64, 24);
  checkLayoutCovers(128, 16);
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, epiloguePtxPath());
  tile::Kernel k = mod.kernel("frag_tiles");
  tile::DeviceBuffer<float> dOut(size_t(4608 + 64 * 40));
  dOut.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, dOut.ptr());
  ctx.synchronize();
  std::vector<float> out = dOut.toHost();
  size_t bad1 = 0, bad2 = 0, bad3 = 0, bad4 = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 24; ++c)
      bad1 += out[size_t(r * 24 + c)] != float(r * 24 + c);
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 16; ++c)
      bad2 += out[size_t(1536 + r * 16 + c)] != float(r * 16 + c);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 16; ++c)
      bad3 += out[size_t(3584 + r * 16 + c)] != float(c - r);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 40; ++c)
      bad4 += out[size_t(4608 + r * 40 + c)] != float(r * 1000 + c);
  CHECK(bad1 == 0); // f16 [64, 24]: stmatrix x4 + x2
  CHECK(bad2 == 0); // f16 [128, 16]: two 64-row blocks, f16x2 math
  CHECK(bad3 == 0); // bf16 [64, 16]: bf16x2 math
  CHECK(bad4 == 0); // f32 [64, 40]: st.shared.v2.f32
}

TEST_CASE("two warpgroups store into 128B-swizzled tiles that a role's TMA store publishes",
          "[epilogue]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, epiloguePtxPath());
  tile::Kernel k = mod.kernel("frag_tma");
  const int64_t M = 256, N = 128, P = 128, Q = 32;
  tile::DeviceBuffer<uint16_t> dC(size_t(M * N));
  tile::DeviceBuffer<float> dD(size_t(P * Q));
  dC.fillBytes(0xA5);
  dD.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, tile::Tensor(dC, tile::TensorElement::F16, {M, N}), tile::Tensor(dD, {P, Q}));
  ctx.synchronize();
  std::vector<uint16_t> c = dC.toHost();
  std::vector<float> d = dD.toHost();
  size_t badRows = 0, badCols = 0, badD = 0;
  for (int r = 0; r < 128; ++r)
    for (int col = 0; col < 128; ++col) {
      badRows += halfToFloat(c[size_t(r * N + col)]) != float(r);
      badCols += halfToFloat(c[size_t((128 + r) * N + col)]) != float(col);
    }
  for (int r = 0; r < 128; ++r)
    for (int col = 0; col < 32; ++col)
      badD += d[size_t(r * Q + col)] != float(r * 32 + col);
  CHECK(badRows == 0); // f16 rows through two 128B-swizzled panels
  CHECK(badCols == 0); // the tile rewritten after the first TMA store read it
  CHECK(badD == 0);    // f32 (st.shared.v2) through a 128B-swizzled tile
}

TEST_CASE("load_frag, load_per_row and load_per_col stop at rows = n / cols = m", "[epilogue]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, epiloguePtxPath());
  tile::Kernel k = mod.kernel("frag_loads_first_rows");
  const int M = 128, N = 40;
  // n inside a 64-row block, at a block's end, none (0 and negative), all
  // (past M); m inside the columns, none, all.
  const int cases[][2] = {{77, 13}, {64, 40}, {0, 0}, {-5, 7}, {200, 40}};
  for (const auto &cs : cases) {
    const int n = cs[0], m = cs[1];
    const size_t rowsHeld = size_t(std::max(n, 1)); // arrays end at the limit (at least 1 row)
    std::vector<float> w(rowsHeld * N), g(rowsHeld), lse(size_t(std::max(m, 1)));
    std::vector<uint16_t> h(rowsHeld * N);
    for (size_t i = 0; i < w.size(); ++i) {
      w[i] = float(i % 977) - 400.0f;              // exact
      h[i] = uint16_t(0x3F80u + uint16_t(i % 61)); // bf16 1.0 .. 1.0 + 60/128
    }
    for (size_t i = 0; i < g.size(); ++i)
      g[i] = 0.5f * float(i);
    for (size_t i = 0; i < lse.size(); ++i)
      lse[i] = -2.0f * float(i) - 1.0f;
    tile::DeviceBuffer<float> dOut(size_t(2 * M * N)), dW(w.size()), dG(g.size()), dL(lse.size());
    tile::DeviceBuffer<uint16_t> dH(h.size());
    dW.copyFrom(w);
    dG.copyFrom(g);
    dL.copyFrom(lse);
    dH.copyFrom(h);
    dOut.fillBytes(0xA5);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(128);
    cfg.grid = tile::Dim3(1);
    k.launch(cfg, dOut.ptr(), dW.ptr(), dH.ptr(), dG.ptr(), dL.ptr(), int32_t(n), int32_t(m));
    ctx.synchronize();
    std::vector<float> out = dOut.toHost();
    size_t bad = 0;
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) {
        bool row = r < n, col = c < m;
        size_t i = size_t(r) * N + size_t(c);
        float want0 = row ? w[i] + g[size_t(r)] : 0.0f;
        uint32_t bits = row ? uint32_t(h[i]) << 16 : 0u;
        float hv;
        std::memcpy(&hv, &bits, 4);
        float want1 = hv + (col ? lse[size_t(c)] : 0.0f);
        if ((out[i] != want0 || out[size_t(M * N) + i] != want1) && bad++ < 5)
          UNSCOPED_INFO("n " << n << ", m " << m << ": [" << r << ", " << c << "] = " << out[i]
                             << ", " << out[size_t(M * N) + i] << "; expected " << want0 << ", "
                             << want1);
      }
    CHECK(bad == 0);
  }
}
