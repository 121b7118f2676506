// GPU tests of transpose_grouped_ns_ports.tile on fresh random data: the 3-D
// transpose and its copy floor exactly (their bandwidth printed against the
// H200's 4.8 TB/s), the masked grouped GEMM against float64 on the valid rows
// (the rows past each group's count must stay unwritten), and Newton-Schulz
// against a float64 emulation that rounds to bf16 where the kernel does.
#include "ported_common.h"

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using ported::bf16Bits;
using ported::bf16Value;

TEST_CASE("3-D bf16 transpose through TMA loads and stores", "[transpose_grouped_ns_ports]") {
  tile::Context ctx(0);
  tile::Module mod =
      tile::Module::fromFiles(ctx, ported::ptxPath("transpose_grouped_ns_ports_gpu"));
  auto rng = ported::freshRng();
  struct Shape {
    int NB, M, N;
  };
  std::vector<Shape> shapes = ported::small()
                                  ? std::vector<Shape>{{2, 72, 136}}
                                  : std::vector<Shape>{{2, 72, 136}, {3, 1000, 520}, {8, 4096, 4096}};
  std::uniform_int_distribution<int> bits(0, 0xFFFF);
  for (const Shape &sh : shapes) {
    INFO("NB = " << sh.NB << ", M = " << sh.M << ", N = " << sh.N);
    const size_t n = size_t(sh.NB) * sh.M * sh.N;
    std::vector<uint16_t> x(n);
    for (auto &v : x)
      v = uint16_t(bits(rng)); // any bits: the copies move them unchanged
    tile::DeviceBuffer<uint16_t> dX(n), dY(n), dZ(n);
    dX.copyFrom(x);
    dY.fillBytes(0xA5);
    dZ.fillBytes(0xA5);
    tile::Tensor tx(dX, tile::TensorElement::BF16, {sh.NB, sh.M, sh.N});
    tile::Tensor ty(dY, tile::TensorElement::BF16, {sh.NB, sh.N, sh.M});
    tile::Tensor tz(dZ, tile::TensorElement::BF16, {sh.NB, sh.M, sh.N});
    const long tiles = long(sh.NB) * ((sh.M + 63) / 64) * ((sh.N + 63) / 64);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(unsigned(std::min(tiles, long(3 * ctx.smCount()))));
    tile::Kernel tr = mod.kernel("transpose3d"), cp = mod.kernel("copy3d");
    tr.launch(cfg, tx, ty);
    cp.launch(cfg, tx, tz);
    ctx.synchronize();
    auto y = dY.toHost(), z = dZ.toHost();
    size_t badT = 0;
    for (int b = 0; b < sh.NB; ++b)
      for (int m = 0; m < sh.M; ++m)
        for (int c = 0; c < sh.N; ++c) {
          size_t src = (size_t(b) * sh.M + size_t(m)) * sh.N + size_t(c);
          size_t dst = (size_t(b) * sh.N + size_t(c)) * sh.M + size_t(m);
          if (y[dst] != x[src] && badT++ < 5)
            UNSCOPED_INFO("Y[" << b << ", " << c << ", " << m << "] = " << y[dst] << ", expected "
                               << x[src]);
        }
    CHECK(badT == 0);
    CHECK(z == x);
    if (!ported::small() && n > 10'000'000) {
      for (tile::Kernel *k : {&tr, &cp}) {
        tile::Tensor &out = k == &tr ? ty : tz;
        double ms = ported::meanMs(20, [&] { k->launch(cfg, tx, out); });
        ported::printBandwidth(std::string(k == &tr ? "transpose3d " : "copy3d (floor) ") +
                                   std::to_string(sh.NB) + "x" + std::to_string(sh.M) + "x" +
                                   std::to_string(sh.N) + " bf16",
                               ms, 2.0 * double(n) * 2);
      }
    }
  }
}

TEST_CASE("masked grouped GEMM (per-group valid rows)", "[transpose_grouped_ns_ports]") {
  tile::Context ctx(0);
  tile::Module mod =
      tile::Module::fromFiles(ctx, ported::ptxPath("transpose_grouped_ns_ports_gpu"));
  auto rng = ported::freshRng();
  struct Case {
    int G, maxM, N, K, rowStep; // rowStep: check every rowStep-th valid row
  };
  std::vector<Case> cases = ported::small() ? std::vector<Case>{{3, 128, 128, 104, 1}}
                                            : std::vector<Case>{{5, 256, 256, 552, 1},
                                                                {8, 512, 2048, 2048, 13}};
  std::normal_distribution<double> nd(0.0, 1.0);
  for (const Case &cs : cases) {
    INFO("G = " << cs.G << ", max_m = " << cs.maxM << ", n = " << cs.N << ", K = " << cs.K);
    std::vector<int32_t> valid(size_t(cs.G));
    std::uniform_int_distribution<int> vm(0, cs.maxM);
    for (int g = 0; g < cs.G; ++g)
      valid[size_t(g)] = g == 0 ? 0 : g == 1 ? cs.maxM : vm(rng); // none, all, any
    const size_t na = size_t(cs.G) * cs.maxM * cs.K, nb = size_t(cs.G) * cs.N * cs.K;
    const size_t nd_ = size_t(cs.G) * cs.maxM * cs.N;
    std::vector<uint16_t> a(na), b(nb);
    for (auto &v : a)
      v = bf16Bits(nd(rng));
    for (auto &v : b)
      v = bf16Bits(nd(rng));
    tile::DeviceBuffer<uint16_t> dA(na), dB(nb), dD(nd_);
    tile::DeviceBuffer<int32_t> dValid(size_t(cs.G));
    dA.copyFrom(a);
    dB.copyFrom(b);
    dValid.copyFrom(valid);
    dD.fillBytes(0xFF); // bf16 NaN: rows past the valid count must keep it
    tile::Tensor ta(dA, tile::TensorElement::BF16, {cs.G * cs.maxM, cs.K});
    tile::Tensor tb(dB, tile::TensorElement::BF16, {cs.G * cs.N, cs.K});
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(384);
    cfg.grid = tile::Dim3(unsigned(ctx.smCount()));
    tile::Kernel k = mod.kernel("masked_grouped_gemm");
    k.launch(cfg, ta, tb, dD.ptr(), dValid.ptr(), int32_t(cs.G), int32_t(cs.maxM),
             int32_t(cs.N));
    ctx.synchronize();
    auto d = dD.toHost();
    ported::ErrorCount e("D");
    size_t touched = 0;
    long validRows = 0;
    for (int g = 0; g < cs.G; ++g) {
      validRows += valid[size_t(g)];
      for (int m = 0; m < cs.maxM; ++m) {
        const size_t row = size_t(g) * cs.maxM + size_t(m);
        if (m >= valid[size_t(g)]) {
          for (int c = 0; c < cs.N; ++c)
            touched += d[row * cs.N + size_t(c)] != 0xFFFF;
          continue;
        }
        if (m % cs.rowStep != 0)
          continue;
        for (int c = 0; c < cs.N; ++c) {
          const size_t col = size_t(g) * cs.N + size_t(c);
          double s = 0, mag = 0;
          for (int kk = 0; kk < cs.K; ++kk) {
            double p = bf16Value(a[row * cs.K + size_t(kk)]) * bf16Value(b[col * cs.K + size_t(kk)]);
            s += p;
            mag += std::fabs(p);
          }
          // (S + 1) 2^-21 T of the f32 accumulation, then the bf16 rounding.
          double bound = (cs.K / 16 + 2) * 0x1p-21 * mag + 0x1p-8 * std::fabs(s) + 1e-30;
          e.check(row * cs.N + size_t(c), bf16Value(d[row * cs.N + size_t(c)]), s, bound);
        }
      }
    }
    CHECK(e.bad() == 0);
    CHECK(touched == 0);
    if (!ported::small() && cs.N >= 2048) {
      double ms = ported::meanMs(10, [&] {
        k.launch(cfg, ta, tb, dD.ptr(), dValid.ptr(), int32_t(cs.G), int32_t(cs.maxM),
                 int32_t(cs.N));
      });
      double flops = 2.0 * double(validRows) * cs.N * cs.K;
      std::printf("masked grouped GEMM G=%d max_m=%d n=%d K=%d (%ld valid rows): %.1f us, %.0f "
                  "TFLOP/s on the valid rows\n",
                  cs.G, cs.maxM, cs.N, cs.K, validRows, ms * 1e3, flops / (ms * 1e-3) / 1e12);
    }
  }
}

namespace {

/// One Newton-Schulz step on a 64 x 128 matrix, rounding to bf16 where the
/// kernel does; mag gets the magnitude of every output's terms.
void newtonSchulzStep(std::vector<double> &x, std::vector<double> &mag, double ca, double cb,
                      double cc) {
  const int R = 64, C = 128;
  std::vector<double> A(R * R), Ab(R * R), AAm(R * R), B(R * R), Bm(R * R);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) {
      double s = 0;
      for (int k = 0; k < C; ++k)
        s += x[size_t(i * C + k)] * x[size_t(j * C + k)];
      A[size_t(i * R + j)] = s;
      Ab[size_t(i * R + j)] = bf16Value(bf16Bits(s));
    }
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) {
      double s = 0, m = 0;
      for (int k = 0; k < R; ++k) {
        s += Ab[size_t(i * R + k)] * Ab[size_t(k * R + j)];
        m += std::fabs(Ab[size_t(i * R + k)] * Ab[size_t(k * R + j)]);
      }
      double v = cc * s + cb * A[size_t(i * R + j)];
      B[size_t(i * R + j)] = bf16Value(bf16Bits(v));
      Bm[size_t(i * R + j)] = std::fabs(cc) * m + std::fabs(cb * A[size_t(i * R + j)]);
    }
  std::vector<double> y(size_t(R * C));
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      double s = ca * x[size_t(i * C + j)], m = std::fabs(s);
      for (int k = 0; k < R; ++k) {
        s += B[size_t(i * R + k)] * x[size_t(k * C + j)];
        m += Bm[size_t(i * R + k)] * std::fabs(x[size_t(k * C + j)]);
      }
      y[size_t(i * C + j)] = bf16Value(bf16Bits(s));
      mag[size_t(i * C + j)] = m;
    }
  x = y;
}

} // namespace

TEST_CASE("Muon's Newton-Schulz iteration on wgmma", "[transpose_grouped_ns_ports]") {
  tile::Context ctx(0);
  tile::Module mod =
      tile::Module::fromFiles(ctx, ported::ptxPath("transpose_grouped_ns_ports_gpu"));
  auto rng = ported::freshRng();
  const int mats = ported::small() ? 2 : 264, R = 64, C = 128;
  const double ca = 3.4445, cb = -4.7750, cc = 2.0315;
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> x(size_t(mats) * R * C);
  for (int m = 0; m < mats; ++m) {
    std::vector<double> g(size_t(R * C));
    double f = 0;
    for (auto &v : g) {
      v = nd(rng);
      f += v * v;
    }
    for (int i = 0; i < R * C; ++i) // X / ||X||_F, as Muon starts
      x[size_t(m) * R * C + size_t(i)] = bf16Bits(g[size_t(i)] / (std::sqrt(f) + 1e-7));
  }
  tile::DeviceBuffer<uint16_t> dX(x.size()), dY(x.size());
  dX.copyFrom(x);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(unsigned(mats));
  tile::Tensor ty(dY, tile::TensorElement::BF16, {mats * R, C});
  for (int steps : {1, 5}) {
    INFO("steps = " << steps);
    dY.fillBytes(0xFF);
    mod.kernel("newton_schulz")
        .launch(cfg, dX.ptr(), ty, int32_t(steps), float(ca), float(cb), float(cc));
    ctx.synchronize();
    auto y = dY.toHost();
    ported::ErrorCount e("X");
    double worstRel = 0;
    for (int m = 0; m < mats; ++m) {
      std::vector<double> ref(size_t(R * C)), mag(size_t(R * C));
      for (int i = 0; i < R * C; ++i)
        ref[size_t(i)] = bf16Value(x[size_t(m) * R * C + size_t(i)]);
      for (int s = 0; s < steps; ++s)
        newtonSchulzStep(ref, mag, ca, cb, cc);
      double diff = 0, norm = 0;
      for (int i = 0; i < R * C; ++i) {
        double got = bf16Value(y[size_t(m) * R * C + size_t(i)]);
        if (steps == 1) // one step: a bf16 rounding of A, B or X may differ (f32 vs float64 sums)
          e.check(size_t(m) * R * C + size_t(i), got, ref[size_t(i)], 0x1p-7 * mag[size_t(i)]);
        diff += (got - ref[size_t(i)]) * (got - ref[size_t(i)]);
        norm += ref[size_t(i)] * ref[size_t(i)];
      }
      worstRel = std::max(worstRel, std::sqrt(diff / norm));
    }
    CHECK(e.bad() == 0);
    // Five steps: the roundings that differ propagate; the iterate stays
    // within 5% (Frobenius) of the emulation (a wrong product is off by O(1)).
    CHECK(worstRel < (steps == 1 ? 0.01 : 0.05));
    std::printf("newton_schulz %d step(s): worst relative Frobenius difference %.2e\n", steps,
                worstRel);
  }
}
