// checkArguments and ptxParamNames: the pure pieces of the launch argument check.
#include <catch2/catch.hpp>

#include "tile/runtime.h"

using tile::KernelParam;

namespace {
// hist(u64 ptr, i64 n, i32 nbins) as tilec writes it.
std::vector<KernelParam> hist() {
  return {{0, 8, "hist_param_0"}, {8, 8, "hist_param_1"}, {16, 4, "hist_param_2"}};
}
} // namespace

TEST_CASE("arguments matching the parameters pass", "[argcheck]") {
  size_t sizes[] = {8, 8, 4};
  CHECK(tile::checkArguments("hist", sizes, 3, hist()).empty());
  CHECK(tile::checkArguments("none", nullptr, 0, {}).empty());
  CHECK_NOTHROW(tile::validateArguments("hist", sizes, 3, hist()));
}

TEST_CASE("a wrong-sized argument names the kernel, the parameter and both sizes", "[argcheck]") {
  size_t int32ForI64[] = {8, 4, 4};
  CHECK(tile::checkArguments("hist", int32ForI64, 3, hist()) ==
        "kernel 'hist': argument 1 is 4 bytes but parameter 1 ('hist_param_1') is 8 bytes (pass "
        "int64_t, "
        "uint64_t, double, a CUdeviceptr or a DeviceBuffer)");
  size_t byteForI16[] = {1};
  CHECK(tile::checkArguments("k", byteForI16, 1, {{0, 2, ""}}) ==
        "kernel 'k': argument 0 is 1 byte but parameter 0 is 2 bytes (pass int16_t or uint16_t)");
  size_t structs[] = {12};
  CHECK_THAT(tile::checkArguments("k", structs, 1, {{0, 16, "box"}}),
             Catch::EndsWith(
                 "argument 0 is 12 bytes but parameter 0 ('box') is 16 bytes (pass a trivially "
                 "copyable struct of 16 bytes)"));
}

TEST_CASE("too few and too many arguments", "[argcheck]") {
  size_t two[] = {8, 8};
  CHECK(tile::checkArguments("hist", two, 2, hist()) ==
        "kernel 'hist': 2 arguments given but the kernel takes 3 parameters; parameter 2 "
        "('hist_param_2') "
        "(4 bytes) has no argument");
  size_t four[] = {8, 8, 4, 1};
  CHECK(tile::checkArguments("hist", four, 4, hist()) ==
        "kernel 'hist': 4 arguments given but the kernel takes 3 parameters; argument 3 (1 byte) "
        "has no parameter");
  size_t one[] = {4};
  CHECK(tile::checkArguments("k", one, 1, {}) ==
        "kernel 'k': 1 argument given but the kernel takes 0 parameters; argument 0 (4 bytes) has "
        "no parameter");
}

TEST_CASE("validateArguments throws a tile::Error naming the kernel", "[argcheck]") {
  size_t sizes[] = {8, 4, 4};
  try {
    tile::validateArguments("hist", sizes, 3, hist());
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "Kernel::launch");
    CHECK(e.kernel() == "hist");
    CHECK(e.code() == CUDA_ERROR_INVALID_VALUE);
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("kernel 'hist': argument 1 is 4 bytes"));
  }
}

TEST_CASE("ptxParamNames reads the entry's parameter names", "[argcheck]") {
  const std::string ptx =
      "// .visible .entry hist(.param .u32 commented_out)\n"
      "/* .entry hist(.param .u32 block_comment) */\n"
      ".visible .entry histogram(.param .u32 longer_name_same_prefix)\n{ ret; }\n"
      ".visible .entry hist(\n"
      "\t.param .u64 .ptr .global .align 1 hist_param_0, // the bins\n"
      "\t.param .align 8 .b8 hist_param_1[16],\n"
      "\t.param .u32 hist_param_2\n"
      ")\n{ ret; }\n"
      ".entry empty()\n{ ret; }\n"
      ".entry bare\n{ ret; }\n";
  CHECK(tile::ptxParamNames(ptx, "hist") ==
        std::vector<std::string>{"hist_param_0", "hist_param_1", "hist_param_2"});
  CHECK(tile::ptxParamNames(ptx, "histogram") ==
        std::vector<std::string>{"longer_name_same_prefix"});
  CHECK(tile::ptxParamNames(ptx, "empty").empty());
  CHECK(tile::ptxParamNames(ptx, "bare").empty());
  CHECK(tile::ptxParamNames(ptx, "missing").empty());
  CHECK(tile::ptxParamNames(ptx, "").empty());
  CHECK(tile::ptxParamNames("", "hist").empty());
  CHECK(tile::ptxParamNames(".entry hist(.param .u32 a", "hist").empty()); // truncated
}
