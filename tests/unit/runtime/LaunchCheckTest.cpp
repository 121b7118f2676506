#include <catch2/catch.hpp>

#include "tile/runtime.h"

using tile::Dim3;
using tile::LaunchConfig;
using tile::LaunchLimits;

namespace {
LaunchConfig cfg(Dim3 grid, Dim3 block, Dim3 cluster = {}, size_t smem = 0,
                 bool nonPortable = false) {
  LaunchConfig c;
  c.grid = grid;
  c.block = block;
  c.cluster = cluster;
  c.sharedBytes = smem;
  c.allowNonPortableCluster = nonPortable;
  return c;
}
LaunchLimits h100() {
  LaunchLimits l;
  l.kernelMaxThreadsPerBlock = 1024;
  l.kernelStaticSharedBytes = 0;
  l.maxSharedPerBlockOptin = 232448;
  return l;
}
} // namespace

TEST_CASE("a valid configuration passes", "[launch]") {
  CHECK(tile::checkLaunch("k", cfg({132}, {128}), h100()).empty());
  CHECK(tile::checkLaunch("k", cfg({64, 2}, {32, 4, 2}, {2, 2}, 200 * 1024), h100()).empty());
  CHECK(tile::checkLaunch("k", cfg({16}, {384}, {8}), h100()).empty());
  CHECK(tile::checkLaunch("k", cfg({32}, {384}, {16}, 0, true), h100()).empty());
  CHECK(tile::checkLaunch("k", cfg({1}, {1}, {1}, 232448), h100()).empty()); // exactly the limit
  CHECK_NOTHROW(tile::validateLaunch("k", cfg({1}, {1024}), h100()));
}

TEST_CASE("block threads above the kernel's max threads per block", "[launch]") {
  LaunchLimits l = h100();
  l.kernelMaxThreadsPerBlock = 256; // e.g. register-limited kernel
  std::string m = tile::checkLaunch("gemm", cfg({1}, {16, 32}), l);
  CHECK(m == "kernel 'gemm': block of 512 threads (16, 32, 1) exceeds the kernel's limit of 256 "
             "threads per block");
  CHECK(tile::checkLaunch("gemm", cfg({1}, {256}), l).empty());
  // The limit is the kernel's max_threads(N) (.maxntid read from its PTX): said so.
  l.kernelMaxntid = 256;
  CHECK(tile::checkLaunch("gemm", cfg({1}, {16, 32}), l) ==
        "kernel 'gemm': block of 512 threads (16, 32, 1) exceeds the kernel's limit of 256 threads "
        "per block (max_threads(256), PTX .maxntid)");
}

TEST_CASE("block and grid dimensions against the device", "[launch]") {
  CHECK_THAT(tile::checkLaunch("k", cfg({1}, {1, 1, 128}), h100()),
             Catch::Contains("exceeds the device's maximum block dimension z of 64"));
  CHECK_THAT(
      tile::checkLaunch("k", cfg({1, 70000}, {32}), h100()),
      Catch::Contains("grid (1, 70000, 1) exceeds the device's maximum grid dimension y of 65535"));
  CHECK_THAT(tile::checkLaunch("k", cfg({0}, {32}), h100()),
             Catch::Contains("kernel 'k': grid (0, 1, 1) has a zero dimension in x"));
  CHECK_THAT(tile::checkLaunch("k", cfg({1}, {32, 0}), h100()),
             Catch::Contains("block (32, 0, 1) has a zero dimension in y"));
  CHECK_THAT(tile::checkLaunch("k", cfg({1}, {32}, {1, 1, 0}), h100()),
             Catch::Contains("cluster (1, 1, 0) has a zero dimension in z"));
}

TEST_CASE("cluster size: portable limit, non-portable opt-in, hardware limit", "[launch]") {
  CHECK(tile::checkLaunch("histogram", cfg({16}, {256}, {16}), h100()) ==
        "kernel 'histogram': cluster of 16 CTAs exceeds the portable limit of 8 (set "
        "allowNonPortableCluster)");
  CHECK(tile::checkLaunch("histogram", cfg({16}, {256}, {4, 4}), h100()) ==
        "kernel 'histogram': cluster of 16 CTAs exceeds the portable limit of 8 (set "
        "allowNonPortableCluster)");
  CHECK(tile::checkLaunch("histogram", cfg({16}, {256}, {16}, 0, true), h100()).empty());
  CHECK_THAT(tile::checkLaunch("histogram", cfg({32}, {256}, {32}, 0, true), h100()),
             Catch::Contains("cluster of 32 CTAs (32, 1, 1) exceeds the hardware limit of 16"));
  CHECK_THAT(tile::checkLaunch("histogram", cfg({32}, {256}, {32}), h100()),
             Catch::Contains("exceeds the hardware limit of 16"));
}

TEST_CASE("grid must be divisible by the cluster", "[launch]") {
  CHECK(tile::checkLaunch("k", cfg({10}, {128}, {4}), h100()) ==
        "kernel 'k': grid (10, 1, 1) is not divisible by cluster (4, 1, 1) in x");
  CHECK_THAT(tile::checkLaunch("k", cfg({8, 3}, {128}, {2, 2}), h100()), Catch::EndsWith("in y"));
  CHECK(tile::checkLaunch("k", cfg({8, 4}, {128}, {2, 2}), h100()).empty());
}

TEST_CASE("dynamic + static shared memory against the opt-in maximum", "[launch]") {
  CHECK(
      tile::checkLaunch("k", cfg({1}, {128}, {}, 240000), h100()) ==
      "kernel 'k': 240000 bytes of shared memory per block exceed the device limit of 232448 bytes "
      "(240000 dynamic + 0 static)");
  LaunchLimits l = h100();
  l.kernelStaticSharedBytes = 1024;
  CHECK_THAT(tile::checkLaunch("k", cfg({1}, {128}, {}, 232448), l),
             Catch::Contains(
                 "233472 bytes of shared memory per block exceed the device limit of 232448 bytes "
                 "(232448 dynamic + 1024 static)"));
  CHECK(tile::checkLaunch("k", cfg({1}, {128}, {}, 232448 - 1024), l).empty());
}

TEST_CASE("validateLaunch throws a tile::Error carrying the message and kernel", "[launch]") {
  try {
    tile::validateLaunch("histogram", cfg({16}, {256}, {16}), h100());
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "Kernel::launch");
    CHECK(e.kernel() == "histogram");
    CHECK(e.code() == CUDA_ERROR_INVALID_VALUE);
    CHECK(std::string(e.what()) == "kernel 'histogram': cluster of 16 CTAs exceeds the portable "
                                   "limit of 8 (set allowNonPortableCluster)");
  }
}

TEST_CASE("the occupancy failure message", "[launch]") {
  CHECK(tile::clusterDoesNotFitMessage("k", cfg({16}, {128, 2}, {8}, 200000), 1000) ==
        "kernel 'k': cannot fit even one cluster of 8 CTAs with 201000 bytes shared memory and 256 "
        "threads "
        "(cuOccupancyMaxActiveClusters returned 0)");
}

TEST_CASE("block threads above the device's max threads per block", "[launch]") {
  // Every dimension is within the device's (1024, 1024, 64), the product is not.
  CHECK(tile::checkLaunch("k", cfg({1}, {1024, 2}), h100()) ==
        "kernel 'k': block of 2048 threads (1024, 2, 1) exceeds the device's limit of 1024 threads "
        "per block");
  CHECK(tile::checkLaunch("k", cfg({1}, {32, 32}), h100()).empty());
}

TEST_CASE("grid x up to 2^31-1", "[launch]") {
  CHECK(tile::checkLaunch("k", cfg({2147483647u}, {32}), h100()).empty());
  CHECK_THAT(tile::checkLaunch("k", cfg({2147483648u}, {32}), h100()),
             Catch::Contains("exceeds the device's maximum grid dimension x of 2147483647"));
  CHECK_THAT(tile::checkLaunch("k", cfg({1, 1, 65536}, {32}), h100()),
             Catch::Contains("exceeds the device's maximum grid dimension z of 65535"));
}

TEST_CASE("a device without cluster launch", "[launch]") {
  LaunchLimits l = h100();
  l.clusterLaunch = false;
  CHECK(tile::checkLaunch("k", cfg({4}, {32}, {2}), l) ==
        "kernel 'k': cluster (2, 1, 1) needs a device that supports cluster launch (compute "
        "capability 9.0 or "
        "newer); this one does not");
  CHECK(tile::checkLaunch("k", cfg({4}, {32}), l).empty()); // no cluster: fine
}

TEST_CASE("a kernel's compiled cluster (.reqnctapercluster)", "[launch]") {
  LaunchLimits l = h100();
  l.kernelRequiredCluster = Dim3(2, 1, 1);
  CHECK(tile::effectiveCluster(cfg({4}, {32}), l) == Dim3(2, 1, 1));
  CHECK(tile::effectiveCluster(cfg({4}, {32}, {2}), l) == Dim3(2, 1, 1));
  CHECK(tile::effectiveCluster(cfg({4}, {32}, {2}), h100()) == Dim3(2, 1, 1));
  CHECK(tile::effectiveCluster(cfg({4}, {32}), h100()) == Dim3(1, 1, 1));
  CHECK(tile::checkLaunch("k", cfg({4}, {32}), l).empty());
  CHECK(tile::checkLaunch("k", cfg({4}, {32}, {2}), l).empty());
  CHECK(tile::checkLaunch("k", cfg({8}, {32}, {4}), l) ==
        "kernel 'k': launched with cluster (4, 1, 1) but the kernel is compiled for cluster (2, 1, "
        "1) "
        "(.reqnctapercluster)");
  CHECK(tile::checkLaunch("k", cfg({8}, {32}, {1, 2}), l) ==
        "kernel 'k': launched with cluster (1, 2, 1) but the kernel is compiled for cluster (2, 1, "
        "1) "
        "(.reqnctapercluster)");
  // The grid must divide into the compiled clusters even when the config names none.
  CHECK(tile::checkLaunch("k", cfg({3}, {32}), l) ==
        "kernel 'k': grid (3, 1, 1) is not divisible by the kernel's compiled cluster (2, 1, 1) in "
        "x");
  // A compiled cluster above 8 needs the non-portable opt-in like a launch-time one.
  l.kernelRequiredCluster = Dim3(16, 1, 1);
  CHECK(tile::checkLaunch("k", cfg({16}, {32}), l) ==
        "kernel 'k': cluster of 16 CTAs exceeds the portable limit of 8 (set "
        "allowNonPortableCluster)");
  CHECK(tile::checkLaunch("k", cfg({16}, {32}, {}, 0, true), l).empty());
}

TEST_CASE("a huge dynamic shared memory size does not wrap around", "[launch]") {
  LaunchLimits l = h100();
  l.kernelStaticSharedBytes = 1024;
  // SIZE_MAX + 1024 would wrap to 1023, under the limit.
  CHECK(tile::checkLaunch("k", cfg({1}, {32}, {}, SIZE_MAX), l) ==
        "kernel 'k': 18446744073709552639 bytes of shared memory per block exceed the device limit "
        "of 232448 "
        "bytes (18446744073709551615 dynamic + 1024 static)");
  CHECK_THAT(tile::checkLaunch("k", cfg({1}, {32}, {}, SIZE_MAX - 1023), l),
             Catch::Contains("18446744073709551616 bytes of shared memory"));
}

TEST_CASE("a kernel compiled for an exact block shape (threads(...), .reqntid)", "[launch]") {
  LaunchLimits l = h100();
  l.kernelRequiredBlock = Dim3(256);
  CHECK(tile::checkLaunch("k", cfg({4}, {256}), l).empty());
  std::string m = tile::checkLaunch("k", cfg({4}, {128}), l);
  CHECK(m == "kernel 'k': block (128, 1, 1) differs from the block shape (256, 1, 1) the kernel "
             "was compiled for (threads(...), PTX .reqntid); launch with that block, or declare "
             "max_threads(N) instead for a kernel launched with varying blocks");
  // The same count in another shape is another block.
  CHECK(!tile::checkLaunch("k", cfg({4}, {128, 2}), l).empty());
  CHECK_THROWS(tile::validateLaunch("k", cfg({4}, {64, 4}), l));
  l.kernelRequiredBlock = Dim3(32, 8);
  CHECK(tile::checkLaunch("k", cfg({4}, {32, 8}), l).empty());
}
