// GPU tests of swiglu_welford_merge_ports.tile on fresh random data: the
// SwiGLU backward against float64 (one bf16 rounding of each output), the
// row and column variances against the float64 two-pass values on data with
// a large offset (where E[x^2] - E[x]^2 in f32 would lose every digit), and
// the merge and the merge sort exactly against std::merge / std::stable_sort.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

namespace {

unsigned gridFor(tile::Context &ctx, long work, int perBlock) {
  long blocks = (work + perBlock - 1) / perBlock;
  return unsigned(std::max(1L, std::min(blocks, long(4 * ctx.smCount()))));
}

} // namespace

TEST_CASE("SwiGLU backward, bf16, 16-byte accesses", "[swiglu_welford_merge_ports]") {
  tile::Context ctx(0);
  tile::Module mod =
      tile::Module::fromFiles(ctx, ported::ptxPath("swiglu_welford_merge_ports_gpu"));
  auto rng = ported::freshRng();
  const int n = ported::small() ? 8 * 1000 : 8 * 4'000'037;
  std::normal_distribution<double> nd(0.0, 2.0);
  const size_t count = size_t(n);
  std::vector<uint16_t> dy(count), g(count), u(count);
  for (auto *a : {&dy, &g, &u})
    for (auto &b : *a)
      b = bf16Bits(nd(rng));
  tile::DeviceBuffer<uint16_t> dDy(count), dG(count), dU(count), dDg(count), dDu(count);
  dDy.copyFrom(dy);
  dG.copyFrom(g);
  dU.copyFrom(u);
  dDg.fillBytes(0xFF);
  dDu.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(gridFor(ctx, n / 8, 256));
  tile::Kernel k = mod.kernel("swiglu_bwd");
  k.launch(cfg, dDg.ptr(), dDu.ptr(), dDy.ptr(), dG.ptr(), dU.ptr(), int32_t(n));
  ctx.synchronize();
  auto gotG = dDg.toHost(), gotU = dDu.toHost();
  ported::ErrorCount eg("dg"), eu("du");
  for (size_t i = 0; i < count; ++i) {
    double y = bf16Value(dy[i]), x = bf16Value(g[i]), v = bf16Value(u[i]);
    double s = 1.0 / (1.0 + std::exp(-x));
    double wantG = y * v * s * (1.0 + x * (1.0 - s)), wantU = y * x * s;
    // f32 math (a few ulp of 2^-24 on each factor) then one bf16 rounding
    // (2^-9 relative): 2^-8 of the magnitude of the factors.
    double magG = std::fabs(y * v * s) * (1.0 + std::fabs(x) * (1.0 + s));
    eg.check(i, bf16Value(gotG[i]), wantG, 0x1p-8 * magG + 1e-38);
    eu.check(i, bf16Value(gotU[i]), wantU, 0x1p-8 * std::fabs(wantU) + 1e-38);
  }
  CHECK(eg.bad() == 0);
  CHECK(eu.bad() == 0);
  if (!ported::small()) {
    double ms = ported::meanMs(20, [&] {
      k.launch(cfg, dDg.ptr(), dDu.ptr(), dDy.ptr(), dG.ptr(), dU.ptr(), int32_t(n));
    });
    ported::printBandwidth("swiglu_bwd n=" + std::to_string(n), ms, 5.0 * n * 2);
  }
}

TEST_CASE("Welford row and column variance beside two-pass", "[swiglu_welford_merge_ports]") {
  tile::Context ctx(0);
  tile::Module mod =
      tile::Module::fromFiles(ctx, ported::ptxPath("swiglu_welford_merge_ports_gpu"));
  auto rng = ported::freshRng();
  const int rows = ported::small() ? 40 : 3001, n = ported::small() ? 300 : 4099;
  const size_t total = size_t(rows) * n;
  // An offset of 1000 with a unit spread: E[x^2] - E[x]^2 in f32 would
  // cancel 20 bits; Welford and two-pass keep the variance to a few ulp.
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_real_distribution<double> off(500.0, 1500.0);
  std::vector<float> x(total);
  for (int r = 0; r < rows; ++r) {
    double o = off(rng);
    for (int c = 0; c < n; ++c)
      x[size_t(r) * n + size_t(c)] = float(o + nd(rng) * (1.0 + 0.001 * c));
  }
  tile::DeviceBuffer<float> dX(total), dMean(size_t(std::max(rows, n))),
      dVar(size_t(std::max(rows, n)));
  dX.copyFrom(x);
  // float64 two-pass statistics of a run of values with the given stride.
  auto stats = [&](size_t first, size_t stride, int count, double &mean, double &var,
                   double &spread) {
    double s = 0;
    for (int i = 0; i < count; ++i)
      s += x[first + size_t(i) * stride];
    mean = s / count;
    double q = 0, a = 0;
    for (int i = 0; i < count; ++i) {
      double d = x[first + size_t(i) * stride] - mean;
      q += d * d;
      a = std::max(a, std::fabs(double(x[first + size_t(i) * stride])));
    }
    var = q / count;
    spread = a;
  };
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned(rows));
  for (const char *name : {"welford_rows", "two_pass_rows"}) {
    INFO(name);
    dMean.fillBytes(0xFF);
    dVar.fillBytes(0xFF);
    mod.kernel(name).launch(cfg, dMean.ptr(), dVar.ptr(), dX.ptr(), int32_t(n));
    ctx.synchronize();
    auto gm = dMean.toHost(), gv = dVar.toHost();
    ported::ErrorCount em("mean"), ev("var");
    for (int r = 0; r < rows; ++r) {
      double mean, var, amax;
      stats(size_t(r) * n, 1, n, mean, var, amax);
      // f32 sums of n terms in a tree of depth ~log2(n) + the merges:
      // the mean within 64 ulp of max|x|; the variance within 2^-16
      // relative plus the f32 means' rounding (2^-24 max|x| per merge)
      // carried into each merge's deviation d (its d^2 term moves by
      // 2 d 2^-24 max|x|): 4 * 2^-24 max|x| sqrt(var) (an f32 emulation of
      // the kernel's merge tree on 300 values reaches 0.3 of it).
      em.check(size_t(r), gm[size_t(r)], mean, 64 * 0x1p-24 * amax);
      ev.check(size_t(r), gv[size_t(r)], var,
               0x1p-16 * var + 4 * 0x1p-24 * amax * std::sqrt(var) + 1e-30);
    }
    CHECK(em.bad() == 0);
    CHECK(ev.bad() == 0);
  }
  // Columns: chunks of rows per CTA, partial states in a workspace.
  const int chunk = 256, chunks = (rows + chunk - 1) / chunk;
  tile::DeviceBuffer<float> dWs(size_t(chunks) * n * 3);
  dWs.fillBytes(0xFF);
  dMean.fillBytes(0xFF);
  dVar.fillBytes(0xFF);
  tile::LaunchConfig pc;
  pc.block = tile::Dim3(256);
  pc.grid = tile::Dim3(unsigned((n + 31) / 32), unsigned(chunks));
  mod.kernel("welford_cols_partial")
      .launch(pc, dWs.ptr(), dX.ptr(), int32_t(rows), int32_t(n), int32_t(chunk));
  tile::LaunchConfig mc;
  mc.block = tile::Dim3(256);
  mc.grid = tile::Dim3(gridFor(ctx, n, 256));
  mod.kernel("welford_cols_merge")
      .launch(mc, dMean.ptr(), dVar.ptr(), dWs.ptr(), int32_t(n), int32_t(chunks));
  ctx.synchronize();
  auto gm = dMean.toHost(), gv = dVar.toHost();
  ported::ErrorCount em("column mean"), ev("column var");
  for (int c = 0; c < n; ++c) {
    double mean, var, amax;
    stats(size_t(c), size_t(n), rows, mean, var, amax);
    em.check(size_t(c), gm[size_t(c)], mean, 64 * 0x1p-24 * amax);
    // Column values spread over the rows' offsets (variance ~ 8e4): the
    // Welford updates keep it to 2^-16 relative as well.
    ev.check(size_t(c), gv[size_t(c)], var,
             0x1p-16 * var + 4 * 0x1p-24 * amax * std::sqrt(var) + 1e-30);
  }
  CHECK(em.bad() == 0);
  CHECK(ev.bad() == 0);
}

TEST_CASE("merge path merge and merge sort of u32 keys", "[swiglu_welford_merge_ports]") {
  tile::Context ctx(0);
  tile::Module mod =
      tile::Module::fromFiles(ctx, ported::ptxPath("swiglu_welford_merge_ports_gpu"));
  auto rng = ported::freshRng();
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  struct Sizes {
    int na, nb;
    uint32_t range; // keys in [0, range): small ranges give many ties
  };
  std::vector<Sizes> sizes = ported::small()
                                 ? std::vector<Sizes>{{1000, 777, 50}, {0, 33, 1u << 31}}
                                 : std::vector<Sizes>{{1000, 777, 50},
                                                      {0, 33, 1u << 31},
                                                      {5'000'011, 3'999'999, 0xffffffffu},
                                                      {1 << 20, 3, 1000}};
  for (const Sizes &sz : sizes) {
    INFO("na = " << sz.na << ", nb = " << sz.nb);
    std::uniform_int_distribution<uint32_t> ud(0, sz.range - 1);
    std::vector<uint32_t> a(size_t(sz.na)), b(size_t(sz.nb));
    for (auto &v : a)
      v = ud(rng);
    for (auto &v : b)
      v = ud(rng);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const size_t n = a.size() + b.size();
    tile::DeviceBuffer<uint32_t> dA(std::max<size_t>(a.size(), 1)),
        dB(std::max<size_t>(b.size(), 1)), dOut(n);
    if (!a.empty())
      dA.copyFrom(a);
    if (!b.empty())
      dB.copyFrom(b);
    dOut.fillBytes(0xAB);
    cfg.grid = tile::Dim3(gridFor(ctx, long((n + 7) / 8), 256));
    mod.kernel("merge_path")
        .launch(cfg, dOut.ptr(), dA.ptr(), int32_t(a.size()), dB.ptr(), int32_t(b.size()));
    ctx.synchronize();
    std::vector<uint32_t> want(n);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
    auto got = dOut.toHost();
    CHECK(got == want);
  }
  // Merge sort: runs of 8 in registers, then passes of width 8, 16, ...
  // ping-ponging between two buffers.
  for (int n : ported::small() ? std::vector<int>{1000} : std::vector<int>{1000, 3'000'017}) {
    INFO("sort n = " << n);
    std::uniform_int_distribution<uint32_t> ud;
    const size_t count = size_t(n);
    std::vector<uint32_t> keys(count);
    for (auto &v : keys)
      v = ud(rng) % (n % 2 ? 0xffffffffu : 1000u);
    tile::DeviceBuffer<uint32_t> d0(count), d1(count);
    d0.copyFrom(keys);
    cfg.grid = tile::Dim3(gridFor(ctx, (n + 7) / 8, 256));
    tile::EventTimer timer;
    timer.start();
    mod.kernel("sort_runs").launch(cfg, d0.ptr(), int32_t(n));
    bool inD0 = true;
    for (int w = 8; w < n; w *= 2) {
      mod.kernel("merge_pass")
          .launch(cfg, inD0 ? d1.ptr() : d0.ptr(), inD0 ? d0.ptr() : d1.ptr(), int32_t(n),
                  int32_t(w));
      inD0 = !inD0;
    }
    double ms = timer.stopMs();
    ctx.synchronize();
    auto got = (inD0 ? d0 : d1).toHost();
    std::vector<uint32_t> want(keys);
    std::sort(want.begin(), want.end());
    CHECK(got == want);
    if (!ported::small() && n > 1'000'000)
      std::printf("merge sort of %d u32 keys: %.2f ms\n", n, ms);
  }
}
