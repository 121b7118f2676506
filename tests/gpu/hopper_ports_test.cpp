// GPU tests of hopper_ports.tile on fresh random data, against float64
// references computed from the bf16-rounded inputs. Outputs are poisoned
// (NaN bits) first, so a row or column no CTA writes, or one written past a
// sequence's or the matrix's end, shows.
//  - varlen attention: packed sequences with lengths 0, 1, no multiple of
//    the block and more queries than keys (rows that see no key), GQA, and
//    each option alone and combined (causal, sliding window, ALiBi,
//    soft-capping); O within the bound of P's bf16 rounding, LSE 1e-3.
//  - GEMM + bias + GELU(tanh) + residual into bf16: M, N and K no multiples
//    of the tile (the N tail through `cols =`).
//  - bmm with M-major A: integer-valued bf16 inputs, so the result is exact;
//    M and N no multiples of the tile (but multiples of 8: a TMA tensor's
//    row stride is a multiple of 16 bytes).
#include "ported_common.h"

#include <tile/runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

uint16_t toBf16(float f) { // round to nearest even (no NaN inputs)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

float fromBf16(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Random bf16 values: the bits for the device and their value for the host.
struct Bf16Data {
  std::vector<uint16_t> bits;
  std::vector<double> value;
};

template <class Dist, class Rng> Bf16Data randomBf16(size_t n, Dist dist, Rng &rng) {
  Bf16Data d{std::vector<uint16_t>(n), std::vector<double>(n)};
  for (size_t i = 0; i < n; ++i) {
    d.bits[i] = toBf16(float(dist(rng)));
    d.value[i] = fromBf16(d.bits[i]);
  }
  return d;
}

struct AttnOptions {
  const char *name;
  bool causal;
  int window; // < 0: none
  bool alibi;
  float cap; // <= 0: none
};

} // namespace

TEST_CASE("variable-length attention: causal, window, ALiBi, soft-capping, GQA", "[hopper_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("hopper_ports_gpu"));
  auto rng = ported::freshRng();
  const int D = 64, Hq = 4, Hk = 2, group = Hq / Hk;
  std::vector<int> lq =
      ported::small() ? std::vector<int>{1, 130, 70} : std::vector<int>{1, 130, 64, 200, 257, 5};
  std::vector<int> lk =
      ported::small() ? std::vector<int>{3, 100, 0} : std::vector<int>{3, 130, 0, 100, 300, 64};
  const int B = int(lq.size());
  std::vector<int32_t> cuq(size_t(B) + 1, 0), cuk(size_t(B) + 1, 0);
  int maxq = 0;
  for (int b = 0; b < B; ++b) {
    cuq[size_t(b) + 1] = cuq[size_t(b)] + lq[size_t(b)];
    cuk[size_t(b) + 1] = cuk[size_t(b)] + lk[size_t(b)];
    maxq = std::max(maxq, lq[size_t(b)]);
  }
  const int TQ = cuq[size_t(B)], TK = cuk[size_t(B)];
  std::normal_distribution<double> nd(0.0, 1.0);
  auto q = randomBf16(size_t(Hq) * TQ * D, nd, rng);
  auto k = randomBf16(size_t(Hk) * TK * D, nd, rng);
  auto v = randomBf16(size_t(Hk) * TK * D, nd, rng);
  std::vector<float> slopes(static_cast<size_t>(Hq));
  for (int h = 0; h < Hq; ++h)
    slopes[size_t(h)] =
        std::pow(2.0f, -8.0f * float(h + 1) / float(Hq)); // ALiBi's geometric slopes
  std::vector<float> zeros(static_cast<size_t>(Hq), 0.0f);
  tile::DeviceBuffer<uint16_t> dQ(q.bits.size()), dK(k.bits.size()), dV(v.bits.size());
  tile::DeviceBuffer<float> dO(size_t(Hq) * TQ * D), dL(size_t(Hq) * TQ), dSlopes(slopes.size()),
      dZero(zeros.size());
  tile::DeviceBuffer<int32_t> dCuq(cuq.size()), dCuk(cuk.size());
  dQ.copyFrom(q.bits);
  dK.copyFrom(k.bits);
  dV.copyFrom(v.bits);
  dSlopes.copyFrom(slopes);
  dZero.copyFrom(zeros);
  dCuq.copyFrom(cuq);
  dCuk.copyFrom(cuk);
  const float scale = 1.0f / std::sqrt(float(D));
  const AttnOptions cases[] = {{"plain", false, -1, false, 0.0f},
                               {"causal", true, -1, false, 0.0f},
                               {"window 37", false, 37, false, 0.0f},
                               {"causal window 50 + ALiBi", true, 50, true, 0.0f},
                               {"soft-cap 1.5", false, -1, false, 1.5f},
                               {"causal + ALiBi + soft-cap 2", true, -1, true, 2.0f}};
  auto bfE = tile::TensorElement::BF16;
  for (const AttnOptions &opt : cases) {
    INFO(opt.name);
    dO.fillBytes(0xFF);
    dL.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(384);
    cfg.grid = tile::Dim3(unsigned((maxq + 127) / 128), unsigned(Hq), unsigned(B));
    mod.kernel("varlen_attention")
        .launch(cfg, tile::Tensor(dQ, bfE, {Hq * TQ, D}), tile::Tensor(dK, bfE, {Hk * TK, D}),
                tile::Tensor(dV, bfE, {Hk * TK, D}), dO.ptr(), dL.ptr(), dCuq.ptr(), dCuk.ptr(),
                opt.alibi ? dSlopes.ptr() : dZero.ptr(), int32_t(TQ), int32_t(TK), int32_t(group),
                scale, opt.cap, uint8_t(opt.causal), int32_t(opt.window));
    ctx.synchronize();
    auto o = dO.toHost();
    auto lse = dL.toHost();
    ported::ErrorCount eo("O"), el("LSE");
    std::vector<double> s(static_cast<size_t>(*std::max_element(lk.begin(), lk.end())));
    for (int h = 0; h < Hq; ++h)
      for (int b = 0; b < B; ++b) {
        const int sq = lq[size_t(b)], sk = lk[size_t(b)], off = sk - sq;
        const double slope = opt.alibi ? slopes[size_t(h)] : 0.0;
        for (int i = 0; i < sq; ++i) {
          size_t qrow = size_t(h) * TQ + size_t(cuq[size_t(b)] + i);
          double m = -std::numeric_limits<double>::infinity();
          for (int j = 0; j < sk; ++j) {
            bool visible =
                (!opt.causal || j <= i + off) && (opt.window < 0 || j >= i + off - opt.window);
            size_t krow = size_t(h / group) * TK + size_t(cuk[size_t(b)] + j);
            double dot = 0;
            for (int c = 0; c < D; ++c)
              dot += q.value[qrow * D + size_t(c)] * k.value[krow * D + size_t(c)];
            double x = dot * scale;
            if (opt.cap > 0)
              x = opt.cap * std::tanh(x / opt.cap);
            x -= slope * std::abs(double(i + off - j));
            s[size_t(j)] = visible ? x : -std::numeric_limits<double>::infinity();
            m = std::max(m, s[size_t(j)]);
          }
          double l = 0;
          std::vector<double> acc(static_cast<size_t>(D), 0.0);
          if (m > -std::numeric_limits<double>::infinity())
            for (int j = 0; j < sk; ++j) {
              double p = std::exp(s[size_t(j)] - m);
              l += p;
              size_t krow = size_t(h / group) * TK + size_t(cuk[size_t(b)] + j);
              for (int c = 0; c < D; ++c)
                acc[size_t(c)] += p * v.value[krow * D + size_t(c)];
            }
          for (int c = 0; c < D; ++c) {
            double want = l > 0 ? acc[size_t(c)] / l : 0.0;
            // P rounded to bf16 (2^-9 relative) in the P V product.
            eo.check(qrow * D + size_t(c), o[qrow * D + size_t(c)], want, 1e-2);
          }
          double wl = l > 0 ? m + std::log(l) : -std::numeric_limits<double>::infinity();
          double gl = lse[qrow];
          if (std::isinf(wl))
            el.check(qrow, std::isinf(gl) && gl < 0 ? 0.0 : 1.0, 0.0, 0.0);
          else
            el.check(qrow, gl, wl, 1e-3 * (1 + std::fabs(wl)));
        }
      }
    CHECK(eo.bad() == 0);
    CHECK(el.bad() == 0);
  }
}

TEST_CASE("GEMM with a bias + GELU(tanh) + residual epilogue into bf16", "[hopper_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("hopper_ports_gpu"));
  auto rng = ported::freshRng();
  const int M = ported::small() ? 130 : 300, N = ported::small() ? 136 : 328, K = 200;
  std::uniform_real_distribution<double> ud(-1.0, 1.0);
  auto a = randomBf16(size_t(M) * K, ud, rng);
  auto w = randomBf16(size_t(N) * K, ud, rng);
  auto bias = randomBf16(size_t(N), ud, rng);
  auto res = randomBf16(size_t(M) * N, ud, rng);
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dW(w.bits.size()), dBias(bias.bits.size()),
      dR(res.bits.size()), dC(size_t(M) * N + 2);
  dA.copyFrom(a.bits);
  dW.copyFrom(w.bits);
  dBias.copyFrom(bias.bits);
  dR.copyFrom(res.bits);
  dC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(384);
  cfg.grid = tile::Dim3(unsigned((N + 127) / 128), unsigned((M + 127) / 128));
  auto bfE = tile::TensorElement::BF16;
  mod.kernel("gemm_gelu_residual")
      .launch(cfg, tile::Tensor(dA, bfE, {M, K}), tile::Tensor(dW, bfE, {N, K}), dC.ptr(),
              dBias.ptr(), dR.ptr());
  ctx.synchronize();
  auto c = dC.toHost();
  ported::ErrorCount e("C");
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double x = bias.value[size_t(n)];
      for (int kk = 0; kk < K; ++kk)
        x += a.value[size_t(m) * K + size_t(kk)] * w.value[size_t(n) * K + size_t(kk)];
      double y = 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))) +
                 res.value[size_t(m) * N + size_t(n)];
      size_t i = size_t(m) * N + size_t(n);
      // The bf16 rounding of the result (2^-9 relative) dominates; f32
      // accumulation and libdevice tanh (2 ulp) add little.
      e.check(i, fromBf16(c[i]), y, std::fabs(y) * 4e-3 + 1e-4 * (1 + std::fabs(x)));
    }
  CHECK(e.bad() == 0);
  // Nothing written past the matrix (the last column's pair, `cols =`).
  CHECK(c[size_t(M) * N] == 0xFFFF);
  CHECK(c[size_t(M) * N + 1] == 0xFFFF);
}

TEST_CASE("bmm with M-major A and the batch in the grid", "[hopper_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("hopper_ports_gpu"));
  auto rng = ported::freshRng();
  const int Bt = 3, M = ported::small() ? 72 : 200, N = ported::small() ? 136 : 248, K = 192;
  std::uniform_int_distribution<int> id(-64, 64);
  auto frac = [&](auto &r) { return double(id(r)) / 64.0; }; // exact in bf16
  auto a = randomBf16(size_t(Bt) * K * M, frac, rng);        // [batch, K, M]
  auto b = randomBf16(size_t(Bt) * K * N, frac, rng);        // [batch, K, N]
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dB(b.bits.size());
  tile::DeviceBuffer<float> dC(size_t(Bt) * M * N + 2);
  dA.copyFrom(a.bits);
  dB.copyFrom(b.bits);
  dC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(unsigned((N + 127) / 128), unsigned((M + 127) / 128), unsigned(Bt));
  auto bfE = tile::TensorElement::BF16;
  mod.kernel("bmm_a_mmajor")
      .launch(cfg, tile::Tensor(dA, bfE, {Bt * K, M}), tile::Tensor(dB, bfE, {Bt * K, N}), dC.ptr(),
              int32_t(K));
  ctx.synchronize();
  auto c = dC.toHost();
  size_t bad = 0;
  for (int bt = 0; bt < Bt; ++bt)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double want = 0; // products of multiples of 2^-6: exact in f32 at this K
        for (int kk = 0; kk < K; ++kk)
          want += a.value[(size_t(bt) * K + size_t(kk)) * M + size_t(m)] *
                  b.value[(size_t(bt) * K + size_t(kk)) * N + size_t(n)];
        size_t i = (size_t(bt) * M + size_t(m)) * N + size_t(n);
        if (!(double(c[i]) == want) && bad++ < 5)
          UNSCOPED_INFO("C[" << bt << ", " << m << ", " << n << "] = " << c[i] << ", expected "
                             << want);
      }
  CHECK(bad == 0);
  CHECK(std::isnan(c[size_t(Bt) * M * N]));
  CHECK(std::isnan(c[size_t(Bt) * M * N + 1]));
}

TEST_CASE("fragment loads and stores limited to rows and columns", "[hopper_ports]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, ported::ptxPath("hopper_ports_gpu"));
  auto rng = ported::freshRng();
  const int ld = 40, R = 64;
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> src(size_t(R) * ld);
  std::vector<uint16_t> src16(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    src[i] = nd(rng);
    src16[i] = toBf16(nd(rng));
  }
  tile::DeviceBuffer<float> dSrc(src.size()), dDst(src.size()), dWhole(size_t(R) * 32);
  tile::DeviceBuffer<uint16_t> dSrc16(src16.size()), dDst16(src16.size());
  dSrc.copyFrom(src);
  dSrc16.copyFrom(src16);
  const int shapes[][2] = {{64, 32}, {50, 31}, {1, 1},  {63, 17},
                           {0, 32},  {64, 0},  {-3, 5}, {64, 40}};
  for (const auto &shape : shapes) {
    const int rows = shape[0], cols = shape[1];
    INFO("rows = " << rows << ", cols = " << cols);
    dDst.fillBytes(0xFF);
    dDst16.fillBytes(0xFF);
    dWhole.fillBytes(0xFF);
    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(128);
    cfg.grid = tile::Dim3(1);
    mod.kernel("frag_tail_copy")
        .launch(cfg, dDst.ptr(), dSrc.ptr(), dDst16.ptr(), dSrc16.ptr(), dWhole.ptr(), int32_t(ld),
                int32_t(rows), int32_t(cols));
    ctx.synchronize();
    auto dst = dDst.toHost();
    auto dst16 = dDst16.toHost();
    auto whole = dWhole.toHost();
    size_t bad = 0;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < ld; ++c) {
        size_t i = size_t(r) * ld + size_t(c);
        bool in = r < rows && c < cols && c < 32;
        uint32_t bits;
        std::memcpy(&bits, &dst[i], 4);
        bool ok = in ? dst[i] == src[i] && dst16[i] == src16[i]
                     : bits == 0xFFFFFFFFu && dst16[i] == 0xFFFF;
        if (c < 32) {
          float w = whole[size_t(r) * 32 + size_t(c)];
          ok = ok && (in ? w == src[i] : w == 0.0f);
        }
        if (!ok && bad++ < 5)
          UNSCOPED_INFO("[" << r << ", " << c << "]: " << dst[i] << " / " << dst16[i]
                            << (in ? " (inside)" : " (outside)"));
      }
    CHECK(bad == 0);
  }
}
