// GPU test of pointer_tables.tile on fresh random data, against CPU
// references: kernels that take tables of pointers (u64 addresses converted
// with `as ptr<T, global>`): a multi-tensor axpy over ragged tensors, a
// pointer-array batched GEMV with 16-byte loads, the addresses a kernel
// computes from pointers, which must be the host's own numbers, and
// pointers into shared memory (this CTA's and a cluster peer's arrays).
#include "ported_common.h"

#include <tile/runtime.h>

#include <cstdint>
#include <vector>

namespace {

using ported::addressTable;

tile::Module tablesModule(tile::Context &ctx) {
  return tile::Module::fromFiles(ctx, ported::ptxPath("pointer_tables_gpu"));
}

TEST_CASE("a multi-tensor axpy reads its ragged tensors through tables of pointers",
          "[pointer_tables]") {
  tile::Context ctx(0);
  tile::Module mod = tablesModule(ctx);
  auto rng = ported::freshRng();
  const int B = ported::small() ? 5 : 37;
  std::uniform_int_distribution<int> nd(1, ported::small() ? 700 : 5000);
  std::normal_distribution<float> vd(0.0f, 1.0f);
  const float alpha = vd(rng);
  std::vector<std::vector<float>> x(B), y(B);
  std::vector<tile::DeviceBuffer<float>> dx, dy;
  std::vector<int32_t> sizes(B);
  for (int b = 0; b < B; ++b) {
    sizes[b] = nd(rng);
    x[b].resize(size_t(sizes[b]));
    y[b].resize(size_t(sizes[b]));
    for (int i = 0; i < sizes[b]; ++i) {
      x[b][size_t(i)] = vd(rng);
      y[b][size_t(i)] = vd(rng);
    }
    dx.emplace_back(x[b].size());
    dy.emplace_back(y[b].size());
    dx.back().copyFrom(x[b]);
    dy.back().copyFrom(y[b]);
  }
  auto xs = addressTable(dx), ys = addressTable(dy);
  tile::DeviceBuffer<int32_t> dSizes(sizes.size());
  dSizes.copyFrom(sizes);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256u);
  cfg.grid = tile::Dim3(unsigned(B));
  mod.kernel("foreach_axpy").launch(cfg, xs.ptr(), ys.ptr(), dSizes.ptr(), alpha);
  ctx.synchronize();
  ported::ErrorCount err("x");
  for (int b = 0; b < B; ++b) {
    auto got = dx[size_t(b)].toHost();
    for (int i = 0; i < sizes[b]; ++i) {
      // One fma or a multiply and an add: within one rounding of each.
      double want = double(x[b][size_t(i)]) + double(alpha) * double(y[b][size_t(i)]);
      err.check(size_t(i), got[size_t(i)], want, 2e-7 * (std::fabs(want) + 1.0));
    }
  }
  CHECK(err.bad() == 0);
}

TEST_CASE("a pointer-array batched GEMV loads 16 bytes at a time through table pointers",
          "[pointer_tables]") {
  tile::Context ctx(0);
  tile::Module mod = tablesModule(ctx);
  auto rng = ported::freshRng();
  const int batch = ported::small() ? 3 : 12, rows = ported::small() ? 37 : 333;
  const int cols = ported::small() ? 264 : 1288; // multiples of 8, not of 256
  std::normal_distribution<double> vd(0.0, 1.0);
  std::vector<std::vector<uint16_t>> a(batch), x(batch);
  std::vector<tile::DeviceBuffer<uint16_t>> dA, dX;
  std::vector<tile::DeviceBuffer<float>> dY;
  for (int b = 0; b < batch; ++b) {
    a[b].resize(size_t(rows) * size_t(cols));
    x[b].resize(size_t(cols));
    for (auto &v : a[b])
      v = uint16_t(tile::floatBits(tile::ScalarType::F16, vd(rng)));
    for (auto &v : x[b])
      v = uint16_t(tile::floatBits(tile::ScalarType::F16, vd(rng)));
    dA.emplace_back(a[b].size());
    dX.emplace_back(x[b].size());
    dY.emplace_back(size_t(rows));
    dA.back().copyFrom(a[b]);
    dX.back().copyFrom(x[b]);
    dY.back().fillBytes(0xA5);
  }
  auto as = addressTable(dA), xs = addressTable(dX), ys = addressTable(dY);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128u);
  cfg.grid = tile::Dim3(unsigned((rows + 3) / 4), unsigned(batch));
  mod.kernel("gemv_batched")
      .launch(cfg, as.ptr(), xs.ptr(), ys.ptr(), int32_t(rows), int32_t(cols));
  ctx.synchronize();
  ported::ErrorCount err("y");
  for (int b = 0; b < batch; ++b) {
    auto got = dY[size_t(b)].toHost();
    for (int r = 0; r < rows; ++r) {
      double want = 0.0, scale = 0.0;
      for (int c = 0; c < cols; ++c) {
        double p = tile::floatValue(tile::ScalarType::F16, a[b][size_t(r) * cols + c]) *
                   tile::floatValue(tile::ScalarType::F16, x[b][size_t(c)]);
        want += p;
        scale += std::fabs(p);
      }
      // f32 products of f16 values are exact; the sum rounds once per add.
      err.check(size_t(b) * rows + size_t(r), got[size_t(r)], want, 1e-6 * scale + 1e-6);
    }
  }
  CHECK(err.bad() == 0);
}

TEST_CASE("pointers converted to addresses are the host's addresses", "[pointer_tables]") {
  tile::Context ctx(0);
  tile::Module mod = tablesModule(ctx);
  tile::DeviceBuffer<uint16_t> h(64);
  tile::DeviceBuffer<double> d(64);
  tile::DeviceBuffer<uint64_t> out(6), table(1);
  std::vector<uint64_t> entry{uint64_t(d.ptr()) + 24};
  table.copyFrom(entry);
  out.fillBytes(0xA5);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(32u);
  cfg.grid = tile::Dim3(1u);
  mod.kernel("addresses").launch(cfg, out.ptr(), h.ptr(), d.ptr(), table.ptr());
  ctx.synchronize();
  auto got = out.toHost();
  CHECK(got[0] == uint64_t(h.ptr()));
  CHECK(got[1] == uint64_t(h.ptr()) + 3 * 2);
  CHECK(got[2] == uint64_t(d.ptr()));
  CHECK(got[3] == uint64_t(d.ptr()) + 5 * 8);
  CHECK(got[4] == 0);
  CHECK(got[5] == entry[0]);
}

TEST_CASE("functions read shared arrays through ptr<T, shared> and ptr<T, cluster>",
          "[pointer_tables]") {
  tile::Context ctx(0);
  tile::Module mod = tablesModule(ctx);
  auto rng = ported::freshRng();
  std::normal_distribution<float> vd(0.0f, 1.0f);
  const int blocks = 6; // three clusters of two
  std::vector<float> a(size_t(blocks) * 1024);
  for (float &v : a)
    v = vd(rng);
  tile::DeviceBuffer<float> da(a.size()), dg(a.size()), ds(size_t(blocks) * 32);
  da.copyFrom(a);
  dg.fillBytes(0xFF); // NaN: an entry not written fails
  ds.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256u);
  cfg.grid = tile::Dim3(unsigned(blocks));
  mod.kernel("gram").launch(cfg, da.ptr(), dg.ptr());
  cfg.block = tile::Dim3(32u);
  mod.kernel("peer_row_sums").launch(cfg, da.ptr(), ds.ptr());
  ctx.synchronize();
  auto g = dg.toHost(), sums = ds.toHost();
  ported::ErrorCount gramErr("gram"), sumErr("peer sums");
  for (int b = 0; b < blocks; ++b) {
    const float *t = &a[size_t(b) * 1024];
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c) {
        double want = 0.0, scale = 0.0;
        for (int k = 0; k < 32; ++k) {
          want += double(t[r * 32 + k]) * t[c * 32 + k];
          scale += std::fabs(double(t[r * 32 + k]) * t[c * 32 + k]);
        }
        gramErr.check(size_t(b) * 1024 + size_t(r * 32 + c), g[size_t(b) * 1024 + r * 32 + c],
                      want, 1e-6 * scale + 1e-6);
      }
    // The peer is the other CTA of the cluster: blocks 2k and 2k + 1.
    const float *p = &a[size_t(b ^ 1) * 1024];
    for (int i = 0; i < 32; ++i) {
      double want = 0.0, scale = 0.0;
      for (int k = 0; k < 32; ++k) {
        want += p[i * 32 + k];
        scale += std::fabs(p[i * 32 + k]);
      }
      sumErr.check(size_t(b) * 32 + size_t(i), sums[size_t(b) * 32 + i], want,
                   1e-6 * scale + 1e-6);
    }
  }
  CHECK(gramErr.bad() == 0);
  CHECK(sumErr.bad() == 0);
}

} // namespace
