// GPU test of lang_values.tile on fresh random data, against CPU references:
// select(c, a, b) of i32, f32, a vector and a pointer; vector element
// assignment (constant and unrolled indices); one function applied to
// fragments of two shapes (its shape parameters bound at each call). Every
// result is exact, so each compares bit for bit.
#include "ported_common.h"

#include <tile/runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

tile::Module valuesModule(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("lang_values_gpu"));
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST_CASE("select of scalars, vectors and pointers computes both and chooses one", "[lang_values]") {
  tile::Context ctx(0);
  tile::Module mod = valuesModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 64, n = B * 128;
  std::uniform_int_distribution<int32_t> id(-1000, 1000);
  std::uniform_real_distribution<float> fd(-10.0f, 10.0f);
  std::vector<int32_t> a(n), b(n);
  std::vector<float> x(n), v(size_t(n) * 4), lo(n), hi(n);
  for (int i = 0; i < n; ++i) {
    a[i] = id(rng);
    b[i] = id(rng);
    x[i] = fd(rng);
    lo[i] = fd(rng);
    hi[i] = fd(rng);
  }
  for (float &f : v)
    f = fd(rng);
  tile::DeviceBuffer<int32_t> dA(n), dB(n), dOi(n);
  tile::DeviceBuffer<float> dX(n), dV(v.size()), dLo(n), dHi(n), dOf(n), dOv(v.size()), dOp(n);
  dA.copyFrom(a);
  dB.copyFrom(b);
  dX.copyFrom(x);
  dV.copyFrom(v);
  dLo.copyFrom(lo);
  dHi.copyFrom(hi);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(unsigned(B));
  mod.kernel("select_values")
      .launch(cfg, dA.ptr(), dB.ptr(), dX.ptr(), dV.ptr(), dLo.ptr(), dHi.ptr(), dOi.ptr(),
              dOf.ptr(), dOv.ptr(), dOp.ptr());
  ctx.synchronize();
  auto oi = dOi.toHost();
  auto of = dOf.toHost();
  auto ov = dOv.toHost();
  auto op = dOp.toHost();
  size_t bad = 0, chosenA = 0;
  const float fallback[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  for (int i = 0; i < n; ++i) {
    int32_t ri = a[i] < b[i] ? a[i] : b[i] / 7;
    float rf = x[i] > 0.0f ? x[i] * 2.0f : -1.5f;
    float rp = b[i] > 0 ? lo[i] : hi[i];
    bool ok = oi[i] == ri && sameBits(of[i], rf) && sameBits(op[i], rp);
    for (int k = 0; k < 4; ++k)
      ok = ok && sameBits(ov[size_t(i) * 4 + k], a[i] > 0 ? v[size_t(i) * 4 + k] : fallback[k]);
    chosenA += a[i] < b[i];
    if (!ok && bad++ < 5)
      UNSCOPED_INFO("element " << i << ": " << oi[i] << " " << of[i] << " " << op[i]
                               << ", expected " << ri << " " << rf << " " << rp);
  }
  CHECK(chosenA > 0); // both choices occur
  CHECK(chosenA < size_t(n));
  CHECK(bad == 0);
}

TEST_CASE("v[k] = x replaces one element of a var vector", "[lang_values]") {
  tile::Context ctx(0);
  tile::Module mod = valuesModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 2 : 32, n = B * 128;
  std::uniform_real_distribution<float> fd(-100.0f, 100.0f);
  std::vector<float> x(size_t(n) * 4);
  for (float &f : x)
    f = fd(rng);
  tile::DeviceBuffer<float> dX(x.size()), dY(x.size());
  dX.copyFrom(x);
  dY.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(unsigned(B));
  mod.kernel("vector_elements").launch(cfg, dX.ptr(), dY.ptr());
  ctx.synchronize();
  auto y = dY.toHost();
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    float v[4] = {x[size_t(i) * 4], x[size_t(i) * 4 + 1], x[size_t(i) * 4 + 2],
                  x[size_t(i) * 4 + 3]};
    v[0] = 1.5f; // the kernel's statements, in order
    v[2] += v[1];
    for (float &e : v)
      e *= 2.0f;
    for (int k = 0; k < 2; ++k)
      v[3 - k] = v[k] + 1.0f;
    for (int k = 0; k < 4; ++k)
      if (!sameBits(y[size_t(i) * 4 + k], v[k]) && bad++ < 5)
        UNSCOPED_INFO("element " << i << "." << k << ": " << y[size_t(i) * 4 + k]
                                 << ", expected " << v[k]);
  }
  CHECK(bad == 0);
}

TEST_CASE("a function generic over its fragment shape runs on 64x64 and 64x128", "[lang_values]") {
  tile::Context ctx(0);
  tile::Module mod = valuesModule(ctx);
  auto rng = ported::freshRng();
  std::uniform_real_distribution<float> fd(-4.0f, 4.0f);
  std::vector<float> p64(64 * 64), p128(64 * 128), bias(128);
  for (float &f : p64)
    f = fd(rng);
  for (float &f : p128)
    f = fd(rng);
  for (float &f : bias)
    f = fd(rng);
  tile::DeviceBuffer<float> d64(p64.size()), d128(p128.size()), dBias(bias.size()),
      o64(p64.size()), o128(p128.size());
  d64.copyFrom(p64);
  d128.copyFrom(p128);
  dBias.copyFrom(bias);
  o64.fillBytes(0xA5);
  o128.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(1u);
  mod.kernel("generic_fragments")
      .launch(cfg, d64.ptr(), d128.ptr(), dBias.ptr(), o64.ptr(), o128.ptr());
  ctx.synchronize();
  auto r64 = o64.toHost();
  auto r128 = o128.toHost();
  size_t bad = 0, zeros = 0;
  auto check = [&](const std::vector<float> &in, const std::vector<float> &out, int N) {
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < N; ++c) {
        float y = in[size_t(r) * N + c] + bias[c];
        float want = (y < 0.0f ? 0.0f : y) * float(N);
        zeros += y < 0.0f;
        if (!sameBits(out[size_t(r) * N + c], want) && bad++ < 5)
          UNSCOPED_INFO(N << " columns [" << r << ", " << c << "]: " << out[size_t(r) * N + c]
                          << ", expected " << want);
      }
  };
  check(p64, r64, 64);
  check(p128, r128, 128);
  CHECK(zeros > 0);
  CHECK(bad == 0);
}

} // namespace
