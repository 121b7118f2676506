#include <catch2/catch.hpp>

#include "tile/nearest_names.h"
#include "tile/runtime.h"

TEST_CASE("error name table covers cuda.h's CUresult codes", "[error]") {
  CHECK(tile::errorName(CUDA_SUCCESS) == "CUDA_SUCCESS");
  CHECK(tile::errorName(CUDA_ERROR_INVALID_VALUE) == "CUDA_ERROR_INVALID_VALUE");
  CHECK(tile::errorName(CUDA_ERROR_OUT_OF_MEMORY) == "CUDA_ERROR_OUT_OF_MEMORY");
  CHECK(tile::errorName(CUDA_ERROR_NOT_INITIALIZED) == "CUDA_ERROR_NOT_INITIALIZED");
  CHECK(tile::errorName(CUDA_ERROR_NO_DEVICE) == "CUDA_ERROR_NO_DEVICE");
  CHECK(tile::errorName(CUDA_ERROR_INVALID_PTX) == "CUDA_ERROR_INVALID_PTX");
  CHECK(tile::errorName(CUDA_ERROR_NOT_FOUND) == "CUDA_ERROR_NOT_FOUND");
  CHECK(tile::errorName(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) ==
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  CHECK(tile::errorName(CUDA_ERROR_ILLEGAL_ADDRESS) == "CUDA_ERROR_ILLEGAL_ADDRESS");
  CHECK(tile::errorName(CUDA_ERROR_UNSUPPORTED_PTX_VERSION) ==
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
  CHECK(tile::errorName(CUDA_ERROR_UNKNOWN) == "CUDA_ERROR_UNKNOWN");
  CHECK(tile::isKnownError(CUDA_ERROR_INVALID_HANDLE));
}

TEST_CASE("unknown codes get a numeric name", "[error]") {
  CHECK_FALSE(tile::isKnownError(123456));
  CHECK(tile::errorName(123456) == "CUDA_ERROR_123456");
  CHECK_FALSE(tile::errorDescription(123456).empty());
}

TEST_CASE("descriptions exist without a driver", "[error]") {
  CHECK_FALSE(tile::errorDescription(CUDA_ERROR_INVALID_VALUE).empty());
  if (!tile::driverAvailable())
    CHECK_THAT(tile::errorDescription(CUDA_ERROR_INVALID_PTX),
               Catch::Contains("PTX JIT compilation failed"));
}

TEST_CASE("Error message: call, name, code, description, kernel, extra", "[error]") {
  tile::Error e("cuLaunchKernelEx", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "histogram",
                "grid (1, 1, 1)");
  std::string w = e.what();
  CHECK(e.call() == "cuLaunchKernelEx");
  CHECK(e.code() == 701);
  CHECK(e.errorName() == "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  CHECK(e.kernel() == "histogram");
  CHECK(w.rfind("cuLaunchKernelEx failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701): ", 0) == 0);
  CHECK_THAT(w, Catch::Contains(e.description()));
  CHECK_THAT(w, Catch::EndsWith(" [kernel 'histogram']: grid (1, 1, 1)"));
  CHECK(w == tile::Error::format("cuLaunchKernelEx", 701, "histogram", "grid (1, 1, 1)"));
}

TEST_CASE("Error message without kernel or extra", "[error]") {
  tile::Error e("cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
  std::string w = e.what();
  CHECK(w == "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): " + e.description());
  CHECK(e.kernel().empty());
  CHECK_THAT(w, !Catch::Contains("[kernel"));
}

TEST_CASE("Error::withMessage keeps the message verbatim", "[error]") {
  tile::Error e =
      tile::Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, "k", "kernel 'k': nope");
  CHECK(std::string(e.what()) == "kernel 'k': nope");
  CHECK(e.call() == "Kernel::launch");
  CHECK(e.errorName() == "CUDA_ERROR_INVALID_VALUE");
  CHECK(e.kernel() == "k");
  // It is a std::runtime_error.
  const std::runtime_error &base = e;
  CHECK(std::string(base.what()) == "kernel 'k': nope");
}

// A failed lookup by name offers what exists nearest to it.
TEST_CASE("nearest names: what a failed lookup offers", "[error]") {
  const std::vector<std::string> known = {"alpha", "beta", "gamma", "BM", "BN", "block"};
  CHECK(tile::nearestNames("alpah", known) == std::vector<std::string>{"alpha"});
  CHECK(tile::nearestNames("Bm", known) == std::vector<std::string>{"BM", "BN"}); // case ignored
  CHECK(tile::nearestNames("blocks", known) == std::vector<std::string>{"block"});
  CHECK(tile::nearestNames("zzz", known).empty());
  CHECK(tile::nearestNames("beta", known).empty()); // the name itself is no suggestion
  CHECK(tile::didYouMean("gama", known) == "; did you mean 'gamma'?");
  CHECK(tile::didYouMean("BX", known) == "; did you mean 'BM' or 'BN'?");
  CHECK(tile::didYouMean("zzz", known).empty());
  CHECK(tile::quotedList({"a", "b"}) == "'a', 'b'");
  CHECK(tile::quotedList({}) == "none");
}
