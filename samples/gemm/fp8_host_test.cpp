// The fp8 GEMMs' host numerics without a GPU (fp8.h): encoding with PTX's
// cvt.rn.satfinite rules, decoding, quantisation with each scaling, and the
// float64 references.
#include <catch2/catch.hpp>

#include "fp8.h"

#include <cmath>

using gemm::fp8::decode;
using gemm::fp8::encode;
using gemm::fp8::Format;
using gemm::fp8::Scaling;

TEST_CASE("fp8: every finite code decodes and encodes back to itself", "[fp8]") {
  for (Format f : {Format::E4M3, Format::E5M2})
    for (int c = 0; c < 256; ++c) {
      const double v = decode(uint8_t(c), f);
      if (std::isnan(v) || std::isinf(v))
        continue;
      if (v == 0) // +0 and -0 keep their sign
        CHECK(encode(v, f) == uint8_t(c));
      else
        CHECK(int(encode(v, f)) == c);
    }
}

TEST_CASE("fp8: the formats' landmarks", "[fp8]") {
  CHECK(decode(0x7e, Format::E4M3) == 448.0);
  CHECK(std::isnan(decode(0x7f, Format::E4M3)));
  CHECK(decode(0x01, Format::E4M3) == std::ldexp(1.0, -9)); // smallest subnormal
  CHECK(decode(0x08, Format::E4M3) == std::ldexp(1.0, -6)); // smallest normal
  CHECK(decode(0x7b, Format::E5M2) == 57344.0);
  CHECK(std::isinf(decode(0x7c, Format::E5M2)));
  CHECK(decode(0x01, Format::E5M2) == std::ldexp(1.0, -16));
}

TEST_CASE("fp8: satfinite, NaN and ties to even", "[fp8]") {
  // Overflow and infinities saturate to the largest finite of their sign.
  CHECK(encode(1e6, Format::E4M3) == 0x7e);
  CHECK(encode(-1e6, Format::E4M3) == 0xfe);
  CHECK(encode(INFINITY, Format::E4M3) == 0x7e);
  CHECK(encode(INFINITY, Format::E5M2) == 0x7b);
  CHECK(encode(-INFINITY, Format::E5M2) == 0xfb);
  CHECK(std::isnan(decode(encode(NAN, Format::E4M3), Format::E4M3)));
  CHECK(std::isnan(decode(encode(NAN, Format::E5M2), Format::E5M2)));
  // 1 + 1/16 is halfway between 1 and 1.125 (e4m3 step 1/8 at 1): to even (1).
  CHECK(decode(encode(1.0625, Format::E4M3), Format::E4M3) == 1.0);
  // 1.1875 is halfway between 1.125 and 1.25: to even (1.25).
  CHECK(decode(encode(1.1875, Format::E4M3), Format::E4M3) == 1.25);
  // Below half the smallest subnormal: 0 (with its sign).
  CHECK(encode(std::ldexp(1.0, -11), Format::E4M3) == 0x00);
  CHECK(encode(-std::ldexp(1.0, -11), Format::E4M3) == 0x80);
}

TEST_CASE("fp8: quantisation keeps each group inside the format", "[fp8]") {
  const int64_t m = 130, n = 140, k = 300; // edges in every dimension, K not a multiple of 16
  const std::vector<float> a = gemm::fp8::normalData(size_t(m * k), 1, 11, true);
  const std::vector<float> b = gemm::fp8::normalData(size_t(n * k), 1, 12, true);
  for (Scaling s : {Scaling::Tensor, Scaling::RowCol, Scaling::Block}) {
    const gemm::fp8::Quantized q = gemm::fp8::quantize(a, b, m, n, k, Format::E4M3, s);
    CHECK(q.kp == 304);
    CHECK(q.a[size_t(0 * q.kp + 301)] == 0); // the K padding is zero
    const std::vector<int64_t> rows{0, 64, 129};
    const std::vector<double> deq = gemm::fp8::reference(q, a, b, rows, true);
    const std::vector<double> orig = gemm::fp8::reference(q, a, b, rows, false);
    double num = 0, den = 0;
    for (size_t i = 0; i < deq.size(); ++i) {
      num += (deq[i] - orig[i]) * (deq[i] - orig[i]);
      den += orig[i] * orig[i];
    }
    const double rel = std::sqrt(num / den);
    INFO(gemm::fp8::scalingName(s) << ": quantisation error " << rel);
    CHECK(rel < 0.2);
    CHECK(rel > 1e-3); // e4m3 keeps 3 mantissa bits: never exact on normal data
  }
}

TEST_CASE("fp8: the per-tensor kernel at each tile width", "[fp8]") {
  REQUIRE(std::string(gemm::fp8::tensorKernel(256)) == "gemm_fp8_sw");
  REQUIRE(std::string(gemm::fp8::tensorKernel(128)) == "gemm_fp8");
}

TEST_CASE("fp8: the skinny kernel's instances fit and the small-M choice", "[fp8]") {
  for (const gemm::fp8::SkinnyInstance &i : gemm::fp8::skinnyInstances()) {
    INFO("MT " << i.mt << ", S " << i.stages);
    CHECK(i.mt % 8 == 0); // the wgmma N
    CHECK(gemm::fp8::skinnySharedBytes(i) + 2048 <= 232448); // + barriers, alignment
    // One more stage would not fit: the ring is as deep as it can be.
    CHECK(gemm::fp8::skinnySharedBytes({i.mt, i.stages + 1}) + 2048 > 232448);
  }
  const gemm::fp8::SkinnyChoice c = gemm::fp8::skinnyChoice(128, 4096, 4096, 132);
  CHECK(c.instance.mt == 128);
  CHECK(c.tiles == 32);
  CHECK(c.splits == 4);
  CHECK(gemm::fp8::skinnyChoice(1, 4096, 4096, 132).instance.mt == 16);
  CHECK(gemm::fp8::skinnyChoice(77, 3000, 5000, 132).instance.mt == 128);
  CHECK(gemm::fp8::skinnyChoice(16, 3000, 200, 132).splits == 1); // 2 K-blocks
  CHECK(gemm::fp8::skinnyChoice(129, 4096, 4096, 132).instance.mt == 0);
}

TEST_CASE("fp8: block scales are smaller-error than a per-tensor scale on outliers", "[fp8]") {
  const int64_t m = 64, n = 128, k = 512;
  const std::vector<float> a = gemm::fp8::normalData(size_t(m * k), 7, 11, true);
  const std::vector<float> b = gemm::fp8::normalData(size_t(n * k), 7, 12, true);
  auto err = [&](Scaling s) {
    const gemm::fp8::Quantized q = gemm::fp8::quantize(a, b, m, n, k, Format::E4M3, s);
    std::vector<int64_t> rows(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i)
      rows[size_t(i)] = i;
    const std::vector<double> deq = gemm::fp8::reference(q, a, b, rows, true);
    const std::vector<double> orig = gemm::fp8::reference(q, a, b, rows, false);
    double num = 0, den = 0;
    for (size_t i = 0; i < deq.size(); ++i) {
      num += (deq[i] - orig[i]) * (deq[i] - orig[i]);
      den += orig[i] * orig[i];
    }
    return std::sqrt(num / den);
  };
  CHECK(err(Scaling::Block) <= err(Scaling::Tensor));
}
