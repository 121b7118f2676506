// GPU test of mma (mma.tile): every operand form and dtype of wgmma against
// a float64 CPU reference, on fresh random data.
// Inputs are k/64 with k a random integer in [-64, 64]: exact in f16 and
// bf16, every product exact in f32, and every partial sum (|sum| <= K, a
// multiple of 2^-12) too, so an f32-accumulated result must equal the
// reference exactly whatever order the tensor cores add in (tolerance 0;
// a wrong descriptor, transpose or fragment layout is off by O(1)). The
// f16-accumulated kernel is checked to |err| <= 2^-10 * sum_k |a_ik b_kj|
// + 2^-10 (f16 rounding of each of K partial sums, with room to spare).
// The output is poisoned (0xFF bytes, a NaN) before each launch.
#include "arith_reference.h"

#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

std::string mmaPtxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/mma_gpu.ptx";
}

enum class Dt { F16, BF16 };

/// k / 64 as f16 bits (exact: a normal number with at most 7 significant bits).
uint16_t exactHalf(int k) {
  if (k == 0)
    return 0;
  uint16_t sign = k < 0 ? 0x8000 : 0;
  int m = k < 0 ? -k : k, e = 0;
  while (m >= 2 << e)
    ++e;                // 2^e <= m < 2^(e+1)
  int exp = e - 6 + 15; // value = m * 2^-6
  int frac = (m << (10 - e)) & 0x3FF;
  return static_cast<uint16_t>(sign | (exp << 10) | frac);
}

/// k / 64 as bf16 bits: the top half of the (exact) f32.
uint16_t exactBf16(int k) {
  float f = static_cast<float>(k) / 64.0f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>(bits >> 16);
}

struct Operand {
  std::vector<uint16_t> bits;
  std::vector<double> value;
};

Operand randomOperand(std::mt19937_64 &rng, size_t n, Dt dt) {
  std::uniform_int_distribution<int> dist(-64, 64);
  Operand o;
  for (size_t i = 0; i < n; ++i) {
    int k = dist(rng);
    o.bits.push_back(dt == Dt::F16 ? exactHalf(k) : exactBf16(k));
    o.value.push_back(k / 64.0);
  }
  for (size_t i = 0; i < n; ++i) // the encodings are exact
    REQUIRE((dt == Dt::F16 ? arith_ref::halfToDouble(o.bits[i])
                           : arith_ref::bf16ToDouble(o.bits[i])) == o.value[i]);
  return o;
}

std::mt19937_64 freshRng() {
  std::random_device rd;
  return std::mt19937_64((static_cast<uint64_t>(rd()) << 32) ^ rd());
}

/// One single-CTA GEMM: C[m, n] = sum_k A(aRow0 + m, k) * B(k, bRow0 + n),
/// A(m, k) = a[m, k] or, M-major (`aMMajor`), a[k, m]; B(k, n) = b[n, k]
/// (K-major, `bKMajor`) or b[k, n] (MN-major).
struct Case {
  const char *kernel;
  Dt dt;
  int aRows, K, bRows, bCols; // the tensors: A [aRows, K], B [bRows, bCols]
  int M, N;                   // C
  int aRow0, bRow0;           // the views' first rows
  bool bKMajor;
  int threads;
  bool extraArg;        // rows64b: `i` (the row block of a) follows C
  bool aMMajor = false; // A is stored M-major, At [K, aRows]: A(m, k) = At[k, m]
};

void runCase(const Case &c) {
  INFO("kernel " << c.kernel);
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, mmaPtxPath());
  tile::Kernel k = mod.kernel(c.kernel);
  auto rng = freshRng();
  Operand a = randomOperand(rng, size_t(c.aRows) * c.K, c.dt);
  Operand b = randomOperand(rng, size_t(c.bRows) * c.bCols, c.dt);
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dB(b.bits.size());
  dA.copyFrom(a.bits);
  dB.copyFrom(b.bits);
  tile::DeviceBuffer<float> dC(size_t(c.M) * c.N);
  dC.fillBytes(0xFF);
  auto elem = c.dt == Dt::F16 ? tile::TensorElement::F16 : tile::TensorElement::BF16;
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(c.threads);
  cfg.grid = tile::Dim3(1);
  tile::Tensor ta(dA, elem,
                  c.aMMajor ? tile::TensorShape{c.K, c.aRows} : tile::TensorShape{c.aRows, c.K}),
      tb(dB, elem, {c.bRows, c.bCols});
  if (c.extraArg)
    k.launch(cfg, ta, tb, dC.ptr(), int32_t(c.aRow0 / 64));
  else
    k.launch(cfg, ta, tb, dC.ptr());
  ctx.synchronize();
  std::vector<float> out = dC.toHost();
  size_t bad = 0;
  for (int m = 0; m < c.M; ++m)
    for (int n = 0; n < c.N; ++n) {
      double ref = 0;
      for (int kk = 0; kk < c.K; ++kk) {
        double bv = c.bKMajor ? b.value[size_t(c.bRow0 + n) * c.bCols + kk]
                              : b.value[size_t(kk) * c.bCols + c.bRow0 + n];
        double av = c.aMMajor ? a.value[size_t(kk) * c.aRows + c.aRow0 + m]
                              : a.value[size_t(c.aRow0 + m) * c.K + kk];
        ref += av * bv;
      }
      float got = out[size_t(m) * c.N + n];
      if (!(static_cast<double>(got) == ref) && bad++ < 5)
        UNSCOPED_INFO("C[" << m << ", " << n << "] = " << got << ", expected " << ref);
    }
  CHECK(bad == 0);
}

} // namespace

TEST_CASE("mma with a K-major B (trans of [N, K]), M = 128, f16 and bf16", "[mma]") {
  runCase({"kmajor_f16", Dt::F16, 128, 64, 64, 64, 128, 64, 0, 0, true, 128, false});
  runCase({"kmajor_bf16", Dt::BF16, 128, 64, 64, 64, 128, 64, 0, 0, true, 128, false});
}

TEST_CASE("mma with an MN-major B ([K, N], two 128-byte panels), f16 and bf16", "[mma]") {
  runCase({"mnmajor_f16", Dt::F16, 64, 64, 64, 128, 64, 128, 0, 0, false, 128, false});
  runCase({"mnmajor_bf16", Dt::BF16, 64, 64, 64, 128, 64, 128, 0, 0, false, 128, false});
}

TEST_CASE("mma on rows() views of 64-byte swizzled tiles (bf16)", "[mma]") {
  runCase({"rows64b_bf16", Dt::BF16, 128, 32, 64, 32, 64, 32, 64, 32, true, 128, true});
}

TEST_CASE("mma through a 3-stage ring, 2 consumer warpgroups, inflight(1)", "[mma]") {
  runCase({"ring_f16", Dt::F16, 128, 320, 128, 320, 128, 128, 0, 0, true, 384, false});
}

TEST_CASE("mma on cols() views: an MN-major B's half, a constant block", "[mma]") {
  runCase({"cols_b_f16", Dt::F16, 128, 64, 64, 256, 64, 128, 64, 128, false, 128, false});
}

TEST_CASE("mma on cols() views: an M-major A split between two consumer warpgroups",
          "[mma]") {
  // At [K, 128], K = 320 (the ring's phases wrap); warpgroup wg computes
  // rows 64 wg .. 64 wg + 63 from its column view of each stage.
  runCase({"mmajor_cols_f16", Dt::F16, 128, 320, 128, 320, 128, 128, 0, 0, true, 384, false,
           true});
}

/// A random signed permutation P [J, J] (row j: sign_j at column perm_j), so
/// X P^T holds X's columns permuted and signed: exact in f16 and bf16.
struct SignedPermutation {
  std::vector<int> perm, sign;
  std::vector<uint16_t> bits; // P, row-major
  SignedPermutation(std::mt19937_64 &rng, int J, Dt dt) : perm(J), sign(J), bits(size_t(J) * J) {
    for (int j = 0; j < J; ++j)
      perm[j] = j;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int j = 0; j < J; ++j) {
      sign[j] = (rng() & 1) ? 1 : -1;
      bits[size_t(j) * J + perm[j]] =
          dt == Dt::F16 ? exactHalf(64 * sign[j]) : exactBf16(64 * sign[j]);
    }
  }
};

/// The .rs kernels: C = T * B with T[m, j] = s_j * A[m, perm_j] (A times the
/// signed permutation P^T, exact), B K-major ([N, J]) or MN-major ([J, N]).
void runRegisterA(const char *kernel, Dt dt, int N, bool bKMajor) {
  INFO("kernel " << kernel);
  const int M = 128, K = 64, J = 64;
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, mmaPtxPath());
  tile::Kernel k = mod.kernel(kernel);
  auto rng = freshRng();
  Operand a = randomOperand(rng, size_t(M) * K, dt);
  Operand b = randomOperand(rng, size_t(N) * J, dt);
  SignedPermutation sp(rng, J, dt); // J == K: P is [J, K]
  const std::vector<int> &perm = sp.perm, &sign = sp.sign;
  const std::vector<uint16_t> &p = sp.bits;
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dP(p.size()), dB(b.bits.size());
  dA.copyFrom(a.bits);
  dP.copyFrom(p);
  dB.copyFrom(b.bits);
  tile::DeviceBuffer<float> dC(size_t(M) * N);
  dC.fillBytes(0xFF);
  auto elem = dt == Dt::F16 ? tile::TensorElement::F16 : tile::TensorElement::BF16;
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, tile::Tensor(dA, elem, {M, K}), tile::Tensor(dP, elem, {J, K}),
           bKMajor ? tile::Tensor(dB, elem, {N, J}) : tile::Tensor(dB, elem, {J, N}), dC.ptr());
  ctx.synchronize();
  std::vector<float> out = dC.toHost();
  size_t bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int j = 0; j < J; ++j) {
        double t = sign[j] * a.value[size_t(m) * K + perm[j]];
        ref += t * (bKMajor ? b.value[size_t(n) * J + j] : b.value[size_t(j) * N + n]);
      }
      float got = out[size_t(m) * N + n];
      if (!(static_cast<double>(got) == ref) && bad++ < 5)
        UNSCOPED_INFO("C[" << m << ", " << n << "] = " << got << ", expected " << ref);
    }
  CHECK(bad == 0);
}

TEST_CASE("mma with A from registers (.rs): a converted product times B, f16 and bf16", "[mma]") {
  runRegisterA("rega_f16", Dt::F16, 64, true);
  runRegisterA("rega_bf16", Dt::BF16, 128, false);
}

TEST_CASE("mma with an fp8 A from registers: a product converted to e4m3 times an e5m2 B",
          "[mma]") {
  // T = A P^T with P a signed permutation scaled per row by 2^e (e in -6, 0,
  // 9): T[m, j] = s_j 2^e_j A[m, perm_j], exact in f32; `T as e4m3` rounds
  // each element to nearest even, subnormals (2^-6 * |A| < 2^-6) and
  // saturation (2^9 * |A| > 448) included: the host rounds the same T with
  // tile::floatBits. Then C = e4m3(T) B^T with B e5m2 [N, K], B's values
  // k/4 (|k| <= 8, exact in e5m2). fp8 wgmma accumulates in reduced
  // precision, so C is checked to 2^-10 * sum_j |t_j b_j| + 2^-20 (a wrong
  // register-A byte is off by a whole term).
  const int M = 128, K = 64, J = 64, N = 128;
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, mmaPtxPath());
  tile::Kernel k = mod.kernel("rega_e4m3");
  auto rng = freshRng();
  Operand a = randomOperand(rng, size_t(M) * K, Dt::F16);
  std::vector<int> perm(J), sign(J), expo(J);
  std::vector<uint16_t> p(size_t(J) * K, 0);
  for (int j = 0; j < J; ++j)
    perm[j] = j;
  std::shuffle(perm.begin(), perm.end(), rng);
  const int exps[] = {-6, 0, 9};
  for (int j = 0; j < J; ++j) {
    sign[j] = (rng() & 1) ? 1 : -1;
    expo[j] = exps[rng() % 3];
    p[size_t(j) * K + perm[j]] = static_cast<uint16_t>(
        tile::floatBits(tile::ScalarType::F16, sign[j] * std::ldexp(1.0, expo[j])));
  }
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<uint8_t> b(size_t(N) * J);
  std::vector<double> bv(b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    bv[i] = dist(rng) / 4.0;
    b[i] = static_cast<uint8_t>(tile::floatBits(tile::ScalarType::E5M2, bv[i]));
    REQUIRE(tile::floatValue(tile::ScalarType::E5M2, b[i]) == bv[i]);
  }
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dP(p.size());
  tile::DeviceBuffer<uint8_t> dB(b.size());
  dA.copyFrom(a.bits);
  dP.copyFrom(p);
  dB.copyFrom(b);
  tile::DeviceBuffer<float> dC(size_t(M) * N);
  dC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  auto f16 = tile::TensorElement::F16;
  k.launch(cfg, tile::Tensor(dA, f16, {M, K}), tile::Tensor(dP, f16, {J, K}),
           tile::Tensor(dB, tile::TensorElement::E5M2, {N, J}), dC.ptr());
  ctx.synchronize();
  std::vector<float> out = dC.toHost();
  size_t bad = 0, saturated = 0, subnormal = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0, mag = 0;
      for (int j = 0; j < J; ++j) {
        double t = sign[j] * std::ldexp(a.value[size_t(m) * K + perm[j]], expo[j]);
        double q = tile::roundToFloat(tile::ScalarType::E4M3, t);
        if (n == 0) {
          saturated += std::fabs(t) > 448;
          subnormal += t != 0 && std::fabs(t) < std::ldexp(1.0, -6);
        }
        ref += q * bv[size_t(n) * J + j];
        mag += std::fabs(q * bv[size_t(n) * J + j]);
      }
      float got = out[size_t(m) * N + n];
      if (!(std::fabs(static_cast<double>(got) - ref) <=
            std::ldexp(mag, -10) + std::ldexp(1.0, -20)) &&
          bad++ < 5)
        UNSCOPED_INFO("C[" << m << ", " << n << "] = " << got << ", expected " << ref);
    }
  CHECK(saturated > 0); // the data reach both ends of e4m3
  CHECK(subnormal > 0);
  CHECK(bad == 0);
}

TEST_CASE("mma chain in a consume block: A from registers, the first result waited for", "[mma]") {
  // C = sum_k (A_k P^T as f16) B_k^T over 4 ring steps; T_k = A_k P^T holds
  // A_k's columns permuted and signed (exact), every sum exact in f32.
  const int M = 64, K = 256, J = 64, N = 64;
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, mmaPtxPath());
  tile::Kernel k = mod.kernel("rega_ring_f16");
  auto rng = freshRng();
  Operand a = randomOperand(rng, size_t(M) * K, Dt::F16);
  Operand b = randomOperand(rng, size_t(N) * K, Dt::F16);
  SignedPermutation sp(rng, J, Dt::F16);
  const std::vector<int> &perm = sp.perm, &sign = sp.sign;
  const std::vector<uint16_t> &p = sp.bits;
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dP(p.size()), dB(b.bits.size());
  dA.copyFrom(a.bits);
  dP.copyFrom(p);
  dB.copyFrom(b.bits);
  tile::DeviceBuffer<float> dC(size_t(M) * N);
  dC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(256);
  cfg.grid = tile::Dim3(1);
  auto f16 = tile::TensorElement::F16;
  k.launch(cfg, tile::Tensor(dA, f16, {M, K}), tile::Tensor(dP, f16, {J, J}),
           tile::Tensor(dB, f16, {N, K}), dC.ptr());
  ctx.synchronize();
  std::vector<float> out = dC.toHost();
  size_t bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int kb = 0; kb < K; kb += 64)
        for (int j = 0; j < J; ++j)
          ref += sign[j] * a.value[size_t(m) * K + kb + perm[j]] * b.value[size_t(n) * K + kb + j];
      float got = out[size_t(m) * N + n];
      if (!(static_cast<double>(got) == ref) && bad++ < 5)
        UNSCOPED_INFO("C[" << m << ", " << n << "] = " << got << ", expected " << ref);
    }
  CHECK(bad == 0);
}

TEST_CASE("mma with f16 accumulation", "[mma]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFiles(ctx, mmaPtxPath());
  tile::Kernel k = mod.kernel("f16acc");
  auto rng = freshRng();
  const int M = 64, N = 64, K = 64;
  Operand a = randomOperand(rng, size_t(M) * K, Dt::F16);
  Operand b = randomOperand(rng, size_t(N) * K, Dt::F16);
  tile::DeviceBuffer<uint16_t> dA(a.bits.size()), dB(b.bits.size()), dC(size_t(M) * N);
  dA.copyFrom(a.bits);
  dB.copyFrom(b.bits);
  dC.fillBytes(0xFF);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(1);
  k.launch(cfg, tile::Tensor(dA, tile::TensorElement::F16, {M, K}),
           tile::Tensor(dB, tile::TensorElement::F16, {N, K}), dC.ptr());
  ctx.synchronize();
  std::vector<uint16_t> out = dC.toHost();
  size_t bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0, mag = 0;
      for (int kk = 0; kk < K; ++kk) {
        double p = a.value[size_t(m) * K + kk] * b.value[size_t(n) * K + kk];
        ref += p;
        mag += std::fabs(p);
      }
      double got = arith_ref::halfToDouble(out[size_t(m) * N + n]);
      if (!(std::fabs(got - ref) <= std::ldexp(mag, -10) + std::ldexp(1.0, -10)) && bad++ < 5)
        UNSCOPED_INFO("C[" << m << ", " << n << "] = " << got << ", expected " << ref);
    }
  CHECK(bad == 0);
}
