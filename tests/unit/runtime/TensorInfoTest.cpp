// Tensor parameters in the kernel info without a driver: the JSON round trip
// of the tensor and hidden fields, the errors naming the JSON path, and the
// argument-kind check (a tensor parameter takes a tile::Tensor; hidden
// parameters are not passed).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "TensorKernelInfo.h"
#include "tile/kernel_info.h"
#include "tile/runtime.h"

using tile::ScalarType;

namespace {

std::string replaceOnce(std::string s, const std::string &from, const std::string &to) {
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("tensor info: JSON round trip of tensor and hidden parameters", "[tensorinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(tensorKernelInfo());
  m.kernels[0].params[0].tensor->l2Promotion = tile::TmaL2Promotion::B256;
  m.kernels[0].params[2].tensor->oobZeroFill = false;
  const std::string json = tile::toJson(m);
  CHECK_THAT(json,
             Catch::Contains("\"type\": \"tensor<bf16>[M, K]\", \"size\": 128, \"align\": 64"));
  CHECK_THAT(json, Catch::Contains("\"hidden\": {\"tensor\": 0, \"dim\": 1}"));
  tile::ModuleInfo back = tile::moduleInfoFromJson(json);
  REQUIRE(back.kernels.size() == 1);
  const tile::KernelInfo &k = back.kernels[0];
  REQUIRE(k.params.size() == 5);
  const tile::TensorParamInfo &a = *k.params[0].tensor;
  CHECK(k.params[0].scalar == ScalarType::BF16);
  CHECK(a.element == ScalarType::BF16);
  REQUIRE(a.extents.size() == 2);
  CHECK(a.extents[0].name == "M");
  CHECK(a.extents[0].hiddenParam == 3);
  CHECK_FALSE(a.extents[0].literal.has_value());
  CHECK(a.box == std::vector<unsigned>{64, 64});
  CHECK(a.swizzle == tile::TmaSwizzle::B128);
  CHECK(a.l2Promotion == tile::TmaL2Promotion::B256);
  CHECK(a.oobZeroFill);
  const tile::TensorParamInfo &b = *k.params[2].tensor;
  CHECK(b.extents[1].literal == 64);
  CHECK(b.box.empty());
  CHECK_FALSE(b.oobZeroFill);
  CHECK_FALSE(k.params[1].tensor.has_value());
  CHECK_FALSE(k.params[1].hidden.has_value());
  REQUIRE(k.params[4].hidden.has_value());
  CHECK(k.params[4].hidden->tensorParam == 0);
  CHECK(k.params[4].hidden->dim == 1);
  CHECK(tile::toJson(back) == json);
}

TEST_CASE("tensor info: malformed tensor fields name the JSON path", "[tensorinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(tensorKernelInfo());
  const std::string json = tile::toJson(m);
  auto error = [&](const std::string &from, const std::string &to) -> std::string {
    try {
      tile::moduleInfoFromJson(replaceOnce(json, from, to));
    } catch (const std::invalid_argument &e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error("\"swizzle\": 128", "\"swizzle\": 96") ==
        "kernel info: kernels[0].params[0].tensor.swizzle: 96 is not a swizzle (0, 32, 64, 128)");
  CHECK(error("\"l2Promotion\": 128", "\"l2Promotion\": 32") ==
        "kernel info: kernels[0].params[0].tensor.l2Promotion: 32 is not an L2 promotion (0, 64, "
        "128, 256)");
  CHECK(error("\"box\": [64, 64]", "\"box\": [64]") ==
        "kernel info: kernels[0].params[0].tensor.box: the box has 1 dimensions but the tensor 2 "
        "(one per dimension, or none when nothing is copied)");
  CHECK(error("\"element\": \"bf16\"", "\"element\": \"i1\"") ==
        "kernel info: kernels[0].params[0].tensor.element: a tensor of i1 cannot be moved by TMA");
  CHECK(error("\"element\": \"bf16\"", "\"element\": \"f32\"") ==
        "kernel info: kernels[0].params[0].type: 'tensor<bf16>[M, K]' does not match its tensor "
        "field ('tensor<f32>[M, K]')");
  CHECK(error("{\"name\": \"M\", \"hidden\": 3}", "{\"name\": \"M\", \"hidden\": 9}") ==
        "kernel info: kernels[0].params[0].tensor.extents[0].hidden: 9 is out of range (0 to 4)");
  CHECK(error("{\"name\": \"M\", \"hidden\": 3}", "{\"name\": \"M\", \"hidden\": 1}") ==
        "kernel info: kernels[0].params[0].tensor.extents[0].hidden: parameter 1 is not a hidden "
        "extent");
  CHECK(error("{\"literal\": 64}", "{\"literal\": 0}") ==
        "kernel info: kernels[0].params[2].tensor.extents[1].literal: 0 is out of range (1 to "
        "9223372036854775807)");
  CHECK(
      error("\"hidden\": {\"tensor\": 0, \"dim\": 1}", "\"hidden\": {\"tensor\": 1, \"dim\": 1}") ==
      "kernel info: kernels[0].params[4].hidden.tensor: parameter 1 is not a tensor parameter");
  CHECK(
      error("\"hidden\": {\"tensor\": 0, \"dim\": 1}", "\"hidden\": {\"tensor\": 0, \"dim\": 2}") ==
      "kernel info: kernels[0].params[4].hidden.dim: dimension 2 of a rank-2 tensor");
  CHECK(error("\"extents\": [{\"name\": \"M\", \"hidden\": 3}, {\"name\": \"K\", \"hidden\": 4}]",
              "\"extents\": []") ==
        "kernel info: kernels[0].params[0].tensor.extents: 0 extents; a tensor has rank 1 to 5");
  CHECK(error("{\"name\": \"M\", \"hidden\": 3}", "{\"name\": \"\", \"hidden\": 3}") ==
        "kernel info: kernels[0].params[0].tensor.extents[0].name: an extent is a literal or a "
        "non-empty name");
  CHECK(error("\"size\": 128, \"align\": 64", "\"size\": 128, \"align\": 16") ==
        "kernel info: kernels[0].params[0].size: a tensor parameter is 128 bytes at alignment 64 "
        "(a CUtensorMap)");
  CHECK(error("\"name\": \"K\", \"type\": \"i32\"", "\"name\": \"K\", \"type\": \"i64\"") ==
        "kernel info: kernels[0].params[4].type: a hidden extent parameter is an i32 of 4 bytes");
}

TEST_CASE("tensor info: a declared parameter after a hidden one is refused", "[tensorinfo]") {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  tile::KernelInfo k = tensorKernelInfo();
  std::swap(k.params[2], k.params[3]); // B after the hidden M (indices fixed up below)
  k.params[0].tensor->extents[0].hiddenParam = 2;
  m.kernels.push_back(k);
  CHECK_THROWS_WITH(tile::moduleInfoFromJson(tile::toJson(m)),
                    "kernel info: kernels[0].params[3]: a declared parameter after a hidden one "
                    "(hidden parameters come last)");
}

TEST_CASE("tensor info: argument kinds with tensor parameters", "[tensorinfo]") {
  const tile::KernelInfo k = tensorKernelInfo();
  CHECK(tile::declaredParamCount(k) == 3);
  const tile::ArgDesc tensor{tile::ArgDesc::Kind::Tensor, 128, tile::ArgDesc::Kind::Other, 0};
  const tile::ArgDesc f32{tile::ArgDesc::Kind::Float, 4, tile::ArgDesc::Kind::Other, 0};
  const tile::ArgDesc buffer{tile::ArgDesc::Kind::DeviceBuffer, 8, tile::ArgDesc::Kind::Integer, 2};
  const tile::ArgDesc map{tile::ArgDesc::Kind::Other, 128, tile::ArgDesc::Kind::Other, 0};
  tile::ArgDesc ok[] = {tensor, f32, tensor};
  CHECK(tile::checkArgumentKinds(k, ok, 3).empty());
  // The hidden parameters are not the caller's.
  tile::ArgDesc five[] = {tensor, f32, tensor, f32, f32};
  CHECK(tile::checkArgumentKinds(k, five, 5) ==
        "kernel 'k': 5 arguments given but the kernel takes 3 parameters; argument 3 has no "
        "parameter");
  tile::ArgDesc withBuffer[] = {buffer, f32, tensor};
  CHECK(tile::checkArgumentKinds(k, withBuffer, 3) ==
        "kernel 'k': argument 0 is a DeviceBuffer of 2-byte integers but parameter 0 ('A', "
        "tensor<bf16>[M, K]) (pass a tile::Tensor: the runtime encodes its tensor map from the "
        "kernel info's box and swizzle)");
  tile::ArgDesc withMap[] = {tensor, f32, map};
  CHECK_THAT(tile::checkArgumentKinds(k, withMap, 3),
             Catch::StartsWith("kernel 'k': argument 2 is a 128-byte value but parameter 2 ('B'"));
  tile::ArgDesc tensorForScalar[] = {tensor, tensor, tensor};
  CHECK(tile::checkArgumentKinds(k, tensorForScalar, 3) ==
        "kernel 'k': argument 1 is a tile::Tensor but parameter 1 ('s', f32) (a tile::Tensor goes "
        "to a tensor<T>[...] parameter only)");
}

TEST_CASE("tensor info: ArgPack passes a tile::Tensor as a 128-byte tensor argument",
          "[tensorinfo]") {
  tile::Tensor t(0x1000, tile::TensorElement::F32, {4, 4});
  using Pack = tile::ArgPack<tile::Tensor, float>;
  CHECK(Pack::sizes()[0] == 128);
  CHECK(Pack::descriptors()[0].kind == tile::ArgDesc::Kind::Tensor);
  Pack pack(t, 1.0f);
  CHECK(static_cast<const tile::Tensor *>(pack.data()[0])->address() == 0x1000);
  // A ready map travels by value (for kernels loaded without kernel info).
  using MapPack = tile::ArgPack<tile::TensorMap>;
  CHECK(MapPack::sizes()[0] == 128);
  CHECK(MapPack::descriptors()[0].kind == tile::ArgDesc::Kind::Other);
}
