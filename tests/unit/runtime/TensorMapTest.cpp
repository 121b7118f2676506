// tile/tensor_map.h without a driver: one test per cuTensorMapEncodeTiled rule
// (each starts from a valid map, breaks one rule and expects that rule's
// message: without the check the map would pass, or fail a later rule with
// another message), tile::Tensor's own checks and element matching.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "tile/runtime.h"
#include "tile/tensor_map.h"

using tile::TensorElement;
using tile::TensorMapDesc;
using tile::TmaL2Promotion;
using tile::TmaSwizzle;

namespace {

// bf16[4096, 1024] row-major, a 64 x 64 box (128 bytes wide), 128B swizzle.
TensorMapDesc valid() {
  TensorMapDesc d;
  d.element = TensorElement::BF16;
  d.address = 0x10000;
  d.extents = {4096, 1024};
  d.box = {64, 64};
  d.swizzle = TmaSwizzle::B128;
  return d;
}

std::string broken(TensorMapDesc d) { return tile::checkTensorMap(d); }

} // namespace

TEST_CASE("tensor map: a valid map breaks no rule", "[tensormap]") {
  CHECK(broken(valid()).empty());
  TensorMapDesc d = valid();
  d.extents = {3, 5, 7, 9, 64};
  d.box = {1, 2, 3, 4, 64};
  d.swizzle = TmaSwizzle::None;
  CHECK(broken(d).empty());
  // Limits inclusive: extents 2^32, box 256, strides just below 2^40 bytes.
  d = valid();
  d.element = TensorElement::U8;
  d.extents = {int64_t(1) << 32, 256};
  d.box = {256, 128};
  d.strides = {(int64_t(1) << 40) - 16, 1};
  CHECK(broken(d).empty());
  d = valid();
  d.elementStrides = {8, 1};
  CHECK(broken(d).empty());
}

TEST_CASE("tensor map: a box may reach past the tensor", "[tensormap]") {
  // No rule ties the box to the extents: the elements of a tiled box outside
  // the tensor are zero-filled on a load and not written by a store (PTX ISA,
  // cp.async.bulk.tensor, out-of-bound access), which is how samples/gemm
  // computes any M, N, K with whole tiles. A 128 x 64 box on 1 x 8 and 77 x 136.
  TensorMapDesc d = valid();
  d.extents = {1, 8};
  d.box = {128, 64};
  CHECK(broken(d).empty());
  d.extents = {77, 136};
  CHECK(broken(d).empty());
}

TEST_CASE("tensor map rule: rank 1 to 5", "[tensormap]") {
  TensorMapDesc d = valid();
  d.extents = {};
  d.box = {};
  CHECK(broken(d) == "rank 0 is outside 1..5 (a tensor map has 1 to 5 dimensions)");
  d.extents = {2, 2, 2, 2, 2, 64};
  d.box = {1, 1, 1, 1, 1, 64};
  CHECK(broken(d) == "rank 6 is outside 1..5 (a tensor map has 1 to 5 dimensions)");
}

TEST_CASE("tensor map rule: one box extent per dimension", "[tensormap]") {
  TensorMapDesc d = valid();
  d.box = {64};
  CHECK(broken(d) == "the box has 1 dimensions but the tensor has 2 (one box extent per tensor "
                     "dimension)");
}

TEST_CASE("tensor map rule: one stride per dimension", "[tensormap]") {
  TensorMapDesc d = valid();
  d.strides = {1024};
  CHECK_THAT(broken(d), Catch::StartsWith("1 strides given for a tensor of rank 2"));
  d = valid();
  d.elementStrides = {1, 1, 1};
  CHECK_THAT(broken(d), Catch::StartsWith("3 element strides given for a tensor of rank 2"));
}

TEST_CASE("tensor map rule: the global address is not null", "[tensormap]") {
  TensorMapDesc d = valid();
  d.address = 0;
  CHECK(broken(d) == "the global address is null");
}

TEST_CASE("tensor map rule: the global address is 16-byte aligned", "[tensormap]") {
  TensorMapDesc d = valid();
  d.address = 0x10008;
  CHECK(broken(d) == "global address 0x10008 is not 16-byte aligned (TMA needs the tensor's start "
                     "aligned to 16 bytes)");
}

TEST_CASE("tensor map rule: extents are 1 to 2^32", "[tensormap]") {
  TensorMapDesc d = valid();
  d.extents = {0, 1024};
  CHECK(broken(d) == "extent 0 is 0 elements; a tensor map's extents are 1 to 2^32");
  d.extents = {4096, (int64_t(1) << 32) + 1};
  d.strides = {int64_t(1) << 33, 1};
  CHECK(broken(d) == "extent 1 is 4294967297 elements; a tensor map's extents are 1 to 2^32");
  d.extents = {-3, 1024};
  d.strides = {};
  CHECK_THAT(broken(d), Catch::StartsWith("extent 0 is -3 elements"));
}

TEST_CASE("tensor map rule: the innermost stride is 1", "[tensormap]") {
  TensorMapDesc d = valid();
  d.strides = {2048, 2};
  CHECK(broken(d) == "the innermost stride is 2 elements; TMA reads the innermost dimension "
                     "contiguously (stride 1)");
}

TEST_CASE("tensor map rule: strides are positive", "[tensormap]") {
  TensorMapDesc d = valid();
  d.strides = {0, 1};
  CHECK(broken(d) == "stride 0 is 0 elements; strides are positive");
}

TEST_CASE("tensor map rule: strides are multiples of 16 bytes", "[tensormap]") {
  TensorMapDesc d = valid();
  d.strides = {1028, 1}; // 2056 bytes
  CHECK(broken(d) == "stride 0 is 1028 elements = 2056 bytes, not a multiple of 16 bytes (every "
                     "stride but the innermost must be)");
  // The row-major default too: 1000 bf16 per row.
  d = valid();
  d.extents = {16, 1004};
  CHECK_THAT(broken(d), Catch::StartsWith("stride 0 is 1004 elements = 2008 bytes"));
}

TEST_CASE("tensor map rule: strides are below 2^40 bytes", "[tensormap]") {
  TensorMapDesc d = valid();
  d.element = TensorElement::U8;
  d.strides = {int64_t(1) << 40, 1};
  CHECK(broken(d) == "stride 0 is 1099511627776 elements (u8), not below 2^40 bytes (the largest "
                     "stride a tensor map holds)");
  // In bytes, not elements: 2^38 f32 = 2^40 bytes.
  d = valid();
  d.element = TensorElement::F32;
  d.box = {64, 32};
  d.strides = {int64_t(1) << 38, 1};
  CHECK_THAT(broken(d), Catch::Contains("not below 2^40 bytes"));
}

TEST_CASE("tensor map rule: box dimensions are 1 to 256", "[tensormap]") {
  TensorMapDesc d = valid();
  d.box = {257, 64};
  CHECK(broken(d) ==
        "box dimension 0 is 257 elements; TMA boxes have 1 to 256 elements per dimension");
  d.box = {0, 64};
  CHECK_THAT(broken(d), Catch::StartsWith("box dimension 0 is 0 elements"));
}

TEST_CASE("tensor map rule: inner box bytes are a multiple of 16", "[tensormap]") {
  TensorMapDesc d = valid();
  d.swizzle = TmaSwizzle::None;
  d.box = {64, 12}; // 24 bytes
  CHECK(broken(d) ==
        "the box's inner dimension is 12 x bf16 = 24 bytes, not a multiple of 16 bytes");
}

TEST_CASE("tensor map rule: the inner box fits the swizzle span", "[tensormap]") {
  TensorMapDesc d = valid();
  d.box = {64, 128}; // 256 bytes
  CHECK(broken(d) == "the box's inner dimension is 256 bytes, wider than the 128B swizzle span of "
                     "128 bytes (split the box or use a wider swizzle)");
  d.box = {64, 32}; // 64 bytes
  d.swizzle = TmaSwizzle::B32;
  CHECK_THAT(broken(d), Catch::Contains("wider than the 32B swizzle span of 32 bytes"));
  d.swizzle = TmaSwizzle::B64;
  CHECK(broken(d).empty());
  d.swizzle = TmaSwizzle::None; // no span without a swizzle
  d.box = {64, 256};
  CHECK(broken(d).empty());
}

TEST_CASE("tensor map rule: the swizzle and L2 promotion are valid", "[tensormap]") {
  TensorMapDesc d = valid();
  d.swizzle = static_cast<TmaSwizzle>(16);
  CHECK(broken(d) == "swizzle 16 is not one of none, 32B, 64B, 128B");
  d = valid();
  d.l2Promotion = static_cast<TmaL2Promotion>(512);
  CHECK(broken(d) == "L2 promotion 512 is not one of none, 64, 128, 256 bytes");
}

TEST_CASE("tensor map rule: element strides are 1 to 8", "[tensormap]") {
  TensorMapDesc d = valid();
  d.elementStrides = {9, 1};
  CHECK(broken(d) == "element stride 0 is 9; element strides are 1 to 8");
  d.elementStrides = {0, 1};
  CHECK_THAT(broken(d), Catch::StartsWith("element stride 0 is 0;"));
}

TEST_CASE("tensor map rule: the innermost element stride is 1", "[tensormap]") {
  TensorMapDesc d = valid();
  d.elementStrides = {1, 2};
  CHECK_THAT(broken(d), Catch::StartsWith("the innermost element stride is 2; TMA ignores it"));
}

TEST_CASE("tensor map rule: NaN fill needs a floating-point element", "[tensormap]") {
  TensorMapDesc d = valid();
  d.oobZeroFill = false;
  CHECK(broken(d).empty());
  d.element = TensorElement::I16;
  CHECK(broken(d) == "NaN fill of out-of-bounds elements needs a floating-point element, not i16");
}

TEST_CASE("tensor map: elements, names and sizes", "[tensormap]") {
  CHECK(tile::tensorElementBytes(TensorElement::E4M3) == 1);
  CHECK(tile::tensorElementBytes(TensorElement::F64) == 8);
  CHECK(tile::tensorElementFromName("e5m2") == TensorElement::E5M2);
  CHECK(tile::tensorElementOf(tile::ScalarType::BF16) == TensorElement::BF16);
  CHECK(tile::tensorElementOf(tile::ScalarType::I8) == TensorElement::I8);
  CHECK_FALSE(tile::tensorElementOf(tile::ScalarType::I1).has_value());
  // fp8 needs 1-byte inner boxes of 16: a 16 x e4m3 box is the smallest.
  TensorMapDesc d = valid();
  d.element = TensorElement::E4M3;
  d.swizzle = TmaSwizzle::None;
  d.extents = {64, 64};
  d.box = {8, 16};
  CHECK(broken(d).empty());
  d.box = {8, 8};
  CHECK_THAT(broken(d), Catch::Contains("8 x e4m3 = 8 bytes"));
}

TEST_CASE("tensor map: the row-major default strides", "[tensormap]") {
  TensorMapDesc d = valid();
  d.extents = {3, 5, 7};
  CHECK(d.effectiveStrides() == std::vector<int64_t>{35, 7, 1});
  d.strides = {100, 10, 1};
  CHECK(d.effectiveStrides() == std::vector<int64_t>{100, 10, 1});
  CHECK(tile::describeTensorMap(valid()) ==
        "tensor map <bf16>[4096, 1024] strides [1024, 1] box [64, 64] swizzle 128B at 0x10000");
}

TEST_CASE("tile::Tensor: elements a tensor holds", "[tensormap]") {
  tile::Tensor f16(0x1000, TensorElement::F16, {4, 8});
  CHECK(f16.holds(TensorElement::F16));
  CHECK_FALSE(f16.holds(TensorElement::BF16)); // an explicit float type is exact
  CHECK_FALSE(f16.holds(TensorElement::I16));
  tile::Tensor i32(0x1000, TensorElement::I32, {4, 8});
  CHECK(i32.holds(TensorElement::U32)); // signedness is not in the bits
  CHECK_FALSE(i32.holds(TensorElement::F32));
  CHECK_FALSE(i32.holds(TensorElement::I64));
  size_t n = 7; // any integer type converts (no narrowing error)
  tile::Tensor shaped(0x1000, TensorElement::F32, {n, 64u, int64_t(3)}, {});
  CHECK(shaped.extents() == std::vector<int64_t>{7, 64, 3});
}

TEST_CASE("tile::Tensor: its own checks", "[tensormap]") {
  CHECK(tile::Tensor(0x1000, TensorElement::F32, {}).check() == "rank 0 is outside 1..5");
  CHECK(tile::Tensor(0x1000, TensorElement::F32, {4, 4}, {4}).check() ==
        "1 strides given for a tensor of rank 2 (one per dimension, in elements, or none for "
        "row-major contiguous)");
  CHECK(tile::Tensor(0x1000, TensorElement::F32, {4, 4}).describe() ==
        "tensor<f32>[4, 4] at 0x1000");
  CHECK(tile::Tensor(0x1000, TensorElement::F32, {4, 4}, {8, 1}).describe() ==
        "tensor<f32>[4, 4] strides [8, 1] at 0x1000");
}

TEST_CASE("tensor map: encode checks the rules before it needs the driver", "[tensormap]") {
  TensorMapDesc d = valid();
  d.box = {64, 300};
  // With or without a driver: the rule, not a driver error.
  try {
    tile::TensorMap::encode(d, "k");
    FAIL("no error");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "TensorMap::encode");
    CHECK(e.kernel() == "k");
    CHECK(e.code() == CUDA_ERROR_INVALID_VALUE);
    CHECK(std::string(e.what()) ==
          "kernel 'k': tensor map <bf16>[4096, 1024] strides [1024, 1] box [64, 300] swizzle 128B "
          "at 0x10000: box dimension 1 is 300 elements; TMA boxes have 1 to 256 elements per "
          "dimension");
  }
}
