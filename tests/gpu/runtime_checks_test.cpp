// GPU tests of the runtime's pre-launch checks against the real driver, with the
// histogram kernel (histogram_c<N>.ptx: histogram(u64 bins, u64 input, i64 n,
// i32 nbins)): arguments vs cuFuncGetParamInfo, the compiled cluster, and a
// non-portable cluster of 16 run end to end.
#include <catch2/catch.hpp>

#include "histogram_common.h"

#include <string>
#include <vector>

namespace {
constexpr int32_t kBins = 64;
} // namespace

TEST_CASE("real driver: launch arguments are checked against the kernel's parameters",
          "[runtime]") {
  tile::Context ctx(0);
  histo::TileHistogram h(ctx, histo::ptxPathForCluster(2));
  tile::Kernel &k = h.kernel();
  if (!k.paramsKnown()) {
    WARN("driver " << ctx.driverVersion()
                   << " has no cuFuncGetParamInfo: arguments are not checked");
    return;
  }
  const std::vector<tile::KernelParam> &p = k.params();
  REQUIRE(p.size() == 4);
  CHECK((p[0].size == 8 && p[1].size == 8 && p[2].size == 8 && p[3].size == 4));
  // With the kernel info beside the PTX, parameters carry their source names.
  CHECK((p[0].name == "bins" && p[2].name == "n" && p[3].name == "nbins"));

  tile::DeviceBuffer<int32_t> dIn(1024), dBins(kBins);
  dIn.fillBytes(0);
  dBins.fillBytes(0x01);
  const tile::LaunchConfig c = h.config(kBins, 2, 256, 2);
  CHECK_THROWS_WITH(k.launch(c, dBins, dIn, int32_t{1024}, kBins),
                    "kernel 'histogram': argument 2 is 4 bytes but parameter 2 ('n') is 8 bytes "
                    "(pass int64_t, uint64_t, double, a CUdeviceptr or a DeviceBuffer)");
  CHECK_THROWS_WITH(k.launch(c, dBins, dIn, int64_t{1024}),
                    Catch::Contains("3 arguments given but the kernel takes 4 parameters"));
  CHECK_THROWS_WITH(k.launch(c, dBins, dIn, int64_t{1024}, kBins, 0),
                    Catch::Contains("5 arguments given but the kernel takes 4 parameters"));
  // Nothing ran; the right arguments do.
  CHECK(histo::compareHistograms(std::vector<int32_t>(kBins, 0x01010101), dBins.toHost()) == "");
  dBins.fillBytes(0);
  k.launch(c, dBins, dIn, int64_t{1024}, kBins);
  ctx.synchronize();
  std::vector<int32_t> want(kBins, 0);
  want[0] = 1024;
  CHECK(histo::compareHistograms(want, dBins.toHost()) == "");
}

TEST_CASE("real driver: a launch-time cluster must equal the compiled one", "[runtime]") {
  tile::Context ctx(0);
  histo::TileHistogram h(ctx, histo::ptxPathForCluster(2));
  CHECK(h.kernel().limits().kernelRequiredCluster == tile::Dim3(2, 1, 1));
  tile::DeviceBuffer<int32_t> dIn(1024), dBins(kBins);
  CHECK_THROWS_WITH(
      h.kernel().launch(h.config(kBins, 4, 256, 8), dBins, dIn, int64_t{1024}, kBins),
      "kernel 'histogram': launched with cluster (4, 1, 1) but the kernel is compiled for cluster "
      "(2, 1, 1) (.reqnctapercluster)");
}

TEST_CASE("real driver: a non-portable cluster of 16 runs with the opt-in", "[runtime]") {
  tile::Context ctx(0);
  histo::TileHistogram h(ctx, histo::ptxPathForCluster(16));
  h.setAllowNonPortableCluster(true);
  const int32_t nbins = 1001;
  const size_t n = 100003;
  std::vector<int32_t> input = histo::makeInput(n, nbins, histo::Dist::Uniform, 1234, 0.01);
  tile::DeviceBuffer<int32_t> dIn(n), dBins(nbins);
  dIn.copyFrom(input);
  dBins.fillBytes(0);
  // The dynamic shared memory follows from the arguments (kernel info).
  const int fit = h.kernel().maxActiveClusters(h.config(nbins, 16, 256, 16), dBins.ptr(), dIn.ptr(),
                                               static_cast<int64_t>(n), nbins);
  if (fit == 0) {
    WARN("this GPU fits no cluster of 16 CTAs x 256 threads: the launch must say so");
    CHECK_THROWS_WITH(h.launch(dBins.ptr(), dIn.ptr(), static_cast<int64_t>(n), nbins, 16, 256, 16),
                      Catch::Contains("cannot fit even one cluster of 16 CTAs"));
    return;
  }
  h.launch(dBins.ptr(), dIn.ptr(), static_cast<int64_t>(n), nbins, 16, 256,
           static_cast<unsigned>(16 * fit));
  ctx.synchronize();
  CHECK(histo::compareHistograms(histo::cpuHistogram(input, nbins), dBins.toHost()) == "");
}
