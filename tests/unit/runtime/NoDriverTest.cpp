#include <catch2/catch.hpp>

#include "tile/runtime.h"

// The dev machine and CI have no libcuda.so.1: every entry point must throw a
// tile::Error naming the call and saying the driver is missing. On a machine with a
// driver these cases only check that the queries are consistent.

namespace {
template <class F> tile::Error expectError(F &&f) {
  try {
    f();
  } catch (const tile::Error &e) {
    return e;
  }
  FAIL("expected tile::Error");
  throw; // unreachable
}

void checkMissing(const tile::Error &e, const std::string &call) {
  std::string w = e.what();
  INFO(w);
  CHECK(e.call() == call);
  CHECK(e.code() == CUDA_ERROR_NOT_INITIALIZED);
  CHECK(e.errorName() == "CUDA_ERROR_NOT_INITIALIZED");
  CHECK(w.rfind(call + " failed: CUDA_ERROR_NOT_INITIALIZED (3): ", 0) == 0);
  CHECK_THAT(w, Catch::Contains("CUDA driver is missing"));
  CHECK_THAT(w, Catch::Contains("libcuda.so.1"));
}
} // namespace

TEST_CASE("driver queries never throw", "[nodriver]") {
  bool avail = false;
  REQUIRE_NOTHROW(avail = tile::driverAvailable());
  int n = -1;
  REQUIRE_NOTHROW(n = tile::deviceCount());
  CHECK(n >= 0);
  if (!avail)
    CHECK(n == 0);
}

TEST_CASE("without a driver every entry point throws a tile::Error naming the call", "[nodriver]") {
  if (tile::driverAvailable()) {
    WARN("CUDA driver present: no-driver paths not exercised");
    CHECK(tile::driverVersion() > 0);
    return;
  }
  checkMissing(expectError([] { tile::Context ctx; }), "cuInit");
  checkMissing(expectError([] { tile::Context ctx(1); }), "cuInit");
  checkMissing(expectError([] { (void)tile::driverVersion(); }), "cuDriverGetVersion");
  checkMissing(expectError([] { tile::DeviceBuffer<float> b(16); }), "cuMemAlloc");
  checkMissing(expectError([] { tile::Stream s; }), "cuStreamCreate");
  checkMissing(expectError([] { tile::EventTimer t; }), "cuEventCreate");
  tile::TensorMapDesc valid;
  valid.element = tile::TensorElement::F32;
  valid.address = 0x1000;
  valid.extents = {64, 64};
  valid.box = {8, 32};
  checkMissing(expectError([&] { tile::TensorMap::encode(valid); }), "cuTensorMapEncodeTiled");
}

TEST_CASE("Context failure is catchable as std::exception with a useful message", "[nodriver]") {
  if (tile::driverAvailable())
    return;
  try {
    tile::Context ctx(0);
    FAIL("Context() should throw without a driver");
  } catch (const std::exception &e) {
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("cuInit failed: CUDA_ERROR_NOT_INITIALIZED"));
  }
}
