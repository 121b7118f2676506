// GPU tests of int_ops.tile on fresh random data: the saturating byte
// histogram (exact, launched twice so the reset of the scratch counts is
// checked), int4 group quantisation (bit for bit against the same f32
// steps on the host) and its dequantising GEMV (against float64), and the
// row argmax with many ties (exact: the lowest index of the maximum).
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

TEST_CASE("saturating u8 histogram", "[int_ops]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("int_ops_gpu"));
  auto rng = ported::freshRng();
  // Values 128 .. 255 appear v - 128 times (0 .. 127: below saturation), the
  // rest are random in 0 .. 127 (far above 255 each); the length is no
  // multiple of 16, so the scalar tail runs too.
  const size_t n = ported::small() ? 40013 : 3000013;
  std::vector<uint8_t> data;
  for (int v = 128; v < 256; ++v)
    data.insert(data.end(), size_t(v - 128), uint8_t(v));
  std::uniform_int_distribution<int> low(0, 127);
  while (data.size() < n)
    data.push_back(uint8_t(low(rng)));
  std::shuffle(data.begin(), data.end(), rng);
  std::vector<uint32_t> count(256, 0);
  for (uint8_t b : data)
    ++count[b];
  tile::DeviceBuffer<uint8_t> dData(n), dOut(256);
  tile::DeviceBuffer<uint32_t> dCounts(256);
  tile::DeviceBuffer<int32_t> dCounter(1);
  dData.copyFrom(data);
  dCounts.fillBytes(0);
  dCounter.fillBytes(0);
  for (int launch = 0; launch < 2; ++launch) {
    dOut.fillBytes(0xA5);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(ported::small() ? 3 : 132);
    mod.kernel("histogram_u8_sat")
        .launch(cfg, dOut.ptr(), dCounts.ptr(), dCounter.ptr(), dData.ptr(), int64_t(n));
    ctx.synchronize();
    auto out = dOut.toHost();
    size_t bad = 0;
    for (int v = 0; v < 256; ++v)
      if (out[size_t(v)] != std::min<uint32_t>(count[size_t(v)], 255) && bad++ < 5)
        UNSCOPED_INFO("bin " << v << " = " << int(out[size_t(v)]) << ", count "
                             << count[size_t(v)]);
    CHECK(bad == 0);
    auto left = dCounts.toHost();
    CHECK(std::count(left.begin(), left.end(), 0u) == 256);
    CHECK(dCounter.toHost()[0] == 0);
  }
}

TEST_CASE("int4 group quantisation and the dequantising GEMV", "[int_ops]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("int_ops_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 9 : 300, K = ported::small() ? 256 : 4096;
  const size_t n = size_t(rows) * K, groups = n / 32;
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> w(n), x(static_cast<size_t>(K));
  for (auto &v : w)
    v = nd(rng);
  for (int j = 0; j < 32; ++j) // one all-zero group: scale 0, q 0
    w[32 + size_t(j)] = 0.0f;
  for (auto &v : x)
    v = nd(rng);
  // The host's quantisation, in the kernel's f32 steps.
  std::vector<uint32_t> packed(groups * 4, 0);
  std::vector<float> scales(groups);
  for (size_t g = 0; g < groups; ++g) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j)
      amax = std::max(amax, std::fabs(w[g * 32 + size_t(j)]));
    float scale = amax / 7.0f, inv = scale > 0.0f ? 1.0f / scale : 0.0f;
    scales[g] = scale;
    for (int j = 0; j < 32; ++j) {
      int q = int(std::min(std::max(std::round(w[g * 32 + size_t(j)] * inv), -8.0f), 7.0f));
      packed[g * 4 + size_t(j / 8)] |= (uint32_t(q) & 0xFu) << (4 * (j % 8));
    }
  }
  tile::DeviceBuffer<float> dW(n), dScales(groups), dX(static_cast<size_t>(K)),
      dY(static_cast<size_t>(rows));
  tile::DeviceBuffer<uint32_t> dPacked(groups * 4);
  dW.copyFrom(w);
  dX.copyFrom(x);
  dPacked.fillBytes(0xA5);
  dScales.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(unsigned((groups + 127) / 128));
  mod.kernel("quant_int4").launch(cfg, dPacked.ptr(), dScales.ptr(), dW.ptr(), int64_t(groups));
  ctx.synchronize();
  auto gotPacked = dPacked.toHost();
  auto gotScales = dScales.toHost();
  size_t badQ = 0;
  for (size_t i = 0; i < packed.size(); ++i)
    if (gotPacked[i] != packed[i] && badQ++ < 5)
      UNSCOPED_INFO("word " << i << " = " << std::hex << gotPacked[i] << ", expected "
                            << packed[i]);
  for (size_t g = 0; g < groups; ++g)
    if (gotScales[g] != scales[g] && badQ++ < 5)
      UNSCOPED_INFO("scale " << g << " = " << gotScales[g] << ", expected " << scales[g]);
  CHECK(badQ == 0);

  dY.fillBytes(0xFF);
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned((rows + 7) / 8));
  mod.kernel("gemv_int4")
      .launch(cfg, dY.ptr(), dPacked.ptr(), dScales.ptr(), dX.ptr(), int32_t(rows), int32_t(K));
  ctx.synchronize();
  auto y = dY.toHost();
  ported::ErrorCount e("y");
  for (int r = 0; r < rows; ++r) {
    double want = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      size_t g = (size_t(r) * K + k) / 32;
      uint32_t word = packed[g * 4 + size_t((k % 32) / 8)];
      int q = int32_t(word << (28 - 4 * (k % 8))) >> 28;
      double t = double(scales[g]) * q * x[size_t(k)];
      want += t;
      mag += std::fabs(t);
    }
    e.check(size_t(r), y[size_t(r)], want, 1e-5 * mag + 1e-6);
  }
  CHECK(e.bad() == 0);
}

TEST_CASE("row argmax, ties to the lowest index", "[int_ops]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("int_ops_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 4 : 64, cols = 32768;
  std::vector<float> x(size_t(rows) * cols);
  std::uniform_int_distribution<int> small(0, 999);
  for (auto &v : x)
    v = float(small(rng)) - 500.0f; // about 33 copies of the maximum per row
  for (int j = 0; j < cols; ++j)
    x[size_t(j)] = -3.0f;                 // row 0: all equal, the answer is 0
  x[size_t(1) * cols + cols - 1] = 1e30f; // row 1: the last column alone
  tile::DeviceBuffer<float> dX(x.size());
  tile::DeviceBuffer<int32_t> dIdx(static_cast<size_t>(rows));
  dX.copyFrom(x);
  dIdx.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(rows));
  mod.kernel("argmax_rows").launch(cfg, dIdx.ptr(), dX.ptr(), int32_t(cols));
  ctx.synchronize();
  auto idx = dIdx.toHost();
  size_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[size_t(r) * cols];
    int32_t want = int32_t(std::max_element(row, row + cols) - row); // the first maximum
    if (idx[size_t(r)] != want && bad++ < 5)
      UNSCOPED_INFO("row " << r << ": " << idx[size_t(r)] << ", expected " << want);
  }
  CHECK(bad == 0);
}
