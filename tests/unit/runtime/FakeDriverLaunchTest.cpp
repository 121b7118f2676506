// Launch-time checks of the runtime against the fake libcuda.so.1: arguments vs the
// kernel's parameters (cuFuncGetParamInfo), compiled clusters, the occupancy query,
// and asynchronous errors naming the last kernel launched.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "FakeDriverSupport.h"
#include "tile/runtime.h"

namespace {

// Parameters as tilec writes them (<kernel>_param_<i>), a struct parameter and
// kernels with compiled clusters.
const std::string kPtx =
    ".version 8.5\n.target sm_90a\n.address_size 64\n"
    ".visible .entry hist(\n"
    "\t.param .u64 .ptr .global .align 1 hist_param_0,\n"
    "\t.param .u64 hist_param_1,\n"
    "\t.param .u32 hist_param_2\n"
    ")\n.maxntid 1024, 1, 1\n{ ret; }\n"
    ".visible .entry withStruct(.param .u32 n, .param .align 8 .b8 box[12], .param .u8 flag) { "
    "ret; }\n"
    ".visible .entry noArgs() { ret; }\n"
    ".visible .entry compiled2(.param .u64 p)\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{ "
    "ret; }\n"
    ".visible .entry explicitOnly(.param .u64 p)\n.explicitcluster\n{ ret; }\n";

struct Box {
  float x, y, z;
};

tile::Module load(tile::Context &ctx, const std::string &ptx = kPtx) {
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false; // the driver-linker path returns the cubin fromCubin tests reuse
  off.useCache = false;
  return tile::Module::fromPtx(ctx, ptx, off);
}

tile::LaunchConfig simple(unsigned grid = 1, unsigned block = 32) {
  tile::LaunchConfig c;
  c.grid = tile::Dim3(grid);
  c.block = tile::Dim3(block);
  return c;
}

// The message of the tile::Error `f` throws, after checking it names the kernel.
template <class F>
std::string launchError(F &&f, const std::string &kernel,
                        const std::string &call = "Kernel::launch") {
  try {
    f();
  } catch (const tile::Error &e) {
    CHECK(e.kernel() == kernel);
    CHECK(e.call() == call);
    return e.what();
  }
  FAIL("expected a tile::Error");
  return {};
}

} // namespace

TEST_CASE("fake driver: the kernel's parameters come from cuFuncGetParamInfo, names from the PTX",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = load(ctx).kernel("hist");
  REQUIRE(k.paramsKnown());
  const std::vector<tile::KernelParam> &p = k.params();
  REQUIRE(p.size() == 3);
  CHECK((p[0].offset == 0 && p[0].size == 8 && p[0].name == "hist_param_0"));
  CHECK((p[1].offset == 8 && p[1].size == 8 && p[1].name == "hist_param_1"));
  CHECK((p[2].offset == 16 && p[2].size == 4 && p[2].name == "hist_param_2"));
  tile::Kernel s = load(ctx).kernel("withStruct");
  REQUIRE(s.params().size() == 3);
  CHECK((s.params()[1].offset == 8 && s.params()[1].size == 12 && s.params()[1].name == "box"));
  CHECK(load(ctx).kernel("noArgs").params().empty());
}

TEST_CASE("fake driver: parameters the PTX declares are queried without probing past the last",
          "[fake]") {
  // compute-sanitizer reports every failing driver call, so a module whose
  // PTX declares its parameters is queried for exactly those (gpu_run's
  // memcheck failed on every test while the runtime probed).
  reset();
  tile::Context ctx;
  tile::Module m = load(ctx);
  CHECK(m.kernel("hist").params().size() == 3);
  CHECK(m.kernel("withStruct").params().size() == 3);
  CHECK(fake().paramInfoPastEnd == 0);
  // A kernel that declares none tells nothing apart from a PTX not
  // understood: the runtime falls back to probing, once.
  CHECK(m.kernel("noArgs").params().empty());
  CHECK(fake().paramInfoPastEnd == 1);
}

TEST_CASE("fake driver: launch arguments are checked in number and size, naming the parameter",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = load(ctx).kernel("hist");
  tile::DeviceBuffer<int32_t> bins(4);
  const tile::LaunchConfig cfg = simple();

  SECTION("right arguments launch") {
    fake().argSizes = {8, 8, 4};
    k.launch(cfg, bins, int64_t{1} << 40, int32_t{7});
    REQUIRE(fake().launches.size() == 1);
    CHECK(fake().launches[0].args[1].size() == 8);
  }
  SECTION("an int32_t for an i64 parameter") {
    std::string m = launchError([&] { k.launch(cfg, bins, int32_t{5}, int32_t{7}); }, "hist");
    CHECK(m == "kernel 'hist': argument 1 is 4 bytes but parameter 1 ('hist_param_1') is 8 bytes "
               "(pass int64_t, uint64_t, double, a CUdeviceptr or a DeviceBuffer)");
    CHECK(fake().launches.empty()); // rejected before reaching the driver
  }
  SECTION("an int64_t for an i32 parameter") {
    std::string m = launchError([&] { k.launch(cfg, bins, int64_t{5}, int64_t{7}); }, "hist");
    CHECK(m == "kernel 'hist': argument 2 is 8 bytes but parameter 2 ('hist_param_2') is 4 bytes "
               "(pass int32_t, uint32_t or float)");
    CHECK(fake().launches.empty()); // rejected before reaching the driver
  }
  SECTION("too few arguments") {
    std::string m = launchError([&] { k.launch(cfg, bins, int64_t{5}); }, "hist");
    CHECK(m == "kernel 'hist': 2 arguments given but the kernel takes 3 parameters; parameter 2 "
               "('hist_param_2') (4 bytes) has no argument");
    CHECK_THAT(
        launchError([&] { k.launch(cfg); }, "hist"),
        Catch::Contains(
            "0 arguments given but the kernel takes 3 parameters; parameter 0 ('hist_param_0')"));
    CHECK(fake().launches.empty()); // rejected before reaching the driver
  }
  SECTION("too many arguments") {
    std::string m = launchError([&] { k.launch(cfg, bins, int64_t{5}, int32_t{7}, 1.0); }, "hist");
    CHECK(m == "kernel 'hist': 4 arguments given but the kernel takes 3 parameters; argument 3 (8 "
               "bytes) has no "
               "parameter");
    CHECK(fake().launches.empty()); // rejected before reaching the driver
  }
  SECTION("launchPacked checks the sizes it is given") {
    int64_t n = 5;
    int32_t small = 7;
    CUdeviceptr ptr = bins.ptr();
    void *args[] = {&ptr, &n, &small};
    size_t sizes[] = {8, 8, 4};
    k.launchPacked(cfg, args, sizes, 3);
    CHECK(fake().launches.size() == 1);
    sizes[2] = 2;
    CHECK_THAT(
        launchError([&] { k.launchPacked(cfg, args, sizes, 3); }, "hist"),
        Catch::Contains("argument 2 is 2 bytes but parameter 2 ('hist_param_2') is 4 bytes"));
    CHECK_THAT(launchError([&] { k.launchPacked(cfg, args, sizes, 2); }, "hist"),
               Catch::Contains("2 arguments given but the kernel takes 3 parameters"));
    k.launchUnchecked(cfg, args); // the caller's responsibility
    CHECK(fake().launches.size() == 2);
  }
}

TEST_CASE("fake driver: struct and parameterless kernels; cubins check sizes without names",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Module m = load(ctx);
  tile::Kernel s = m.kernel("withStruct");
  s.launch(simple(), 3u, Box{1, 2, 3}, uint8_t{1});
  CHECK(fake().launches.size() == 1);
  CHECK_THAT(
      launchError([&] { s.launch(simple(), 3u, 1.0, uint8_t{1}); }, "withStruct"),
      Catch::Contains("argument 1 is 8 bytes but parameter 1 ('box') is 12 bytes (pass a trivially "
                      "copyable struct of 12 bytes)"));
  CHECK_THAT(launchError([&] { s.launch(simple(), 3u, Box{}, true, 0); }, "withStruct"),
             Catch::Contains("4 arguments given but the kernel takes 3 parameters"));

  tile::Kernel none = m.kernel("noArgs");
  none.launch(simple());
  CHECK(fake().launches.size() == 2);
  CHECK(launchError([&] { none.launch(simple(), 1); }, "noArgs") ==
        "kernel 'noArgs': 1 argument given but the kernel takes 0 parameters; argument 0 (4 bytes) "
        "has no parameter");

  // Loaded from the cubin: no PTX to name the parameters, the sizes still count.
  tile::Kernel fromCubin = tile::Module::fromCubin(ctx, m.cubin(), tile::ModuleOptions::launchWithoutInfo()).kernel("hist");
  CHECK(fromCubin.params()[1].name.empty());
  CHECK(launchError([&] { fromCubin.launch(simple(), CUdeviceptr(0), 1, 2); }, "hist") ==
        "kernel 'hist': argument 1 is 4 bytes but parameter 1 is 8 bytes (pass int64_t, uint64_t, "
        "double, a "
        "CUdeviceptr or a DeviceBuffer)");
}

TEST_CASE("fake driver: cuFuncGetParamInfo failures", "[fake]") {
  reset();
  tile::Context ctx;
  tile::Module m = load(ctx);
  // Reported unsupported: no check, the launch goes through as before.
  fake().paramInfoResult = CUDA_ERROR_NOT_SUPPORTED;
  tile::Kernel k = m.kernel("hist");
  CHECK_FALSE(k.paramsKnown());
  k.launch(simple(), CUdeviceptr(0), 1, 2);
  CHECK(fake().launches.size() == 1);
  // Any other error names the call and the kernel.
  fake().paramInfoResult = CUDA_ERROR_INVALID_HANDLE;
  std::string msg = launchError([&] { m.kernel("hist"); }, "hist", "cuFuncGetParamInfo");
  CHECK_THAT(msg, Catch::StartsWith("cuFuncGetParamInfo failed: CUDA_ERROR_INVALID_HANDLE (400)") &&
                      Catch::Contains("[kernel 'hist']"));
}

TEST_CASE("fake driver (pre-12.4, no cuFuncGetParamInfo): launches without the argument check",
          "[.][fake-old]") {
  reset();
  if (fakeHasParamInfo())
    FAIL("run with the fake driver built without cuFuncGetParamInfo (fakedriver-old)");
  tile::Context ctx;
  tile::Kernel k = load(ctx).kernel("hist");
  CHECK_FALSE(k.paramsKnown());
  CHECK(k.params().empty());
  k.launch(simple(), CUdeviceptr(0), 1, 2); // unchecked: the documented fallback
  CHECK(fake().launches.size() == 1);
  // The launch configuration is still checked.
  tile::LaunchConfig big = simple();
  big.block = tile::Dim3(1024, 2);
  CHECK_THROWS_WITH(k.launch(big, CUdeviceptr(0), int64_t{1}, 2),
                    Catch::Contains("exceeds the device's limit of 1024 threads per block"));
}

TEST_CASE("fake driver: a kernel's compiled cluster (.reqnctapercluster) and .explicitcluster",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Module m = load(ctx);
  tile::Kernel k = m.kernel("compiled2");
  CHECK(k.limits().kernelRequiredCluster == tile::Dim3(2, 1, 1));
  CHECK(k.limits().kernelNeedsCluster);

  // No cluster in the config: the compiled one applies (no launch attribute), and
  // the occupancy of that cluster is checked.
  k.launch(simple(4), CUdeviceptr(0));
  REQUIRE(fake().launches.size() == 1);
  CHECK_FALSE(fake().launches[0].hasCluster);
  CHECK(fake().occupancyQueries == 1);
  // The same cluster given explicitly.
  tile::LaunchConfig c = simple(4);
  c.cluster = tile::Dim3(2);
  k.launch(c, CUdeviceptr(0));
  CHECK(fake().launches.back().cluster[0] == 2);
  // Another cluster is impossible.
  c.cluster = tile::Dim3(4);
  CHECK(launchError([&] { k.launch(c, CUdeviceptr(0)); }, "compiled2") ==
        "kernel 'compiled2': launched with cluster (4, 1, 1) but the kernel is compiled for "
        "cluster (2, 1, 1) "
        "(.reqnctapercluster)");
  // The grid must divide into compiled clusters.
  CHECK(launchError([&] { k.launch(simple(3), CUdeviceptr(0)); }, "compiled2") ==
        "kernel 'compiled2': grid (3, 1, 1) is not divisible by the kernel's compiled cluster (2, "
        "1, 1) in x");
  fake().occupancyClusters = 0;
  CHECK_THAT(launchError([&] { k.launch(simple(6), CUdeviceptr(0)); }, "compiled2",
                         "cuOccupancyMaxActiveClusters"),
             Catch::Contains("cannot fit even one cluster of 2 CTAs"));
  CHECK(fake().launches.size() == 2);

  // .explicitcluster alone: the launch must carry a cluster, (1, 1, 1) when none is set.
  fake().occupancyClusters = 4;
  tile::Kernel e = m.kernel("explicitOnly");
  e.launch(simple(3), CUdeviceptr(0));
  REQUIRE(fake().launches.size() == 3);
  CHECK(fake().launches.back().hasCluster);
  CHECK(fake().launches.back().cluster[0] == 1);
}

TEST_CASE("fake driver: each launch configuration is checked once, alternated ones too",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = load(ctx).kernel("compiled2");
  // Two grids of one kernel in turn (two shapes of a GEMM): the occupancy of
  // each is asked once, not at every change.
  for (int i = 0; i < 3; ++i) {
    k.launch(simple(4), CUdeviceptr(0));
    k.launch(simple(8), CUdeviceptr(0));
  }
  CHECK(fake().launches.size() == 6);
  CHECK(fake().occupancyQueries == 2);
  // A configuration that fails its check is not remembered: refused again.
  fake().occupancyClusters = 0;
  for (int i = 0; i < 2; ++i)
    CHECK_THAT(launchError([&] { k.launch(simple(6), CUdeviceptr(0)); }, "compiled2",
                           "cuOccupancyMaxActiveClusters"),
               Catch::Contains("cannot fit even one cluster"));
  CHECK(fake().occupancyQueries == 4);
  k.launch(simple(4), CUdeviceptr(0)); // checked before
  CHECK(fake().launches.size() == 7);
}

TEST_CASE("fake driver: a bound launch takes new addresses and keeps the rest as bound",
          "[fake]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = load(ctx).kernel("hist");
  tile::DeviceBuffer<int32_t> a(4), b(4);
  CUdeviceptr p = a.ptr();
  uint64_t n = 7;
  uint32_t m = 3;
  void *args[] = {&p, &n, &m};
  const tile::ArgDesc descs[] = {
      {tile::ArgDesc::Kind::DeviceBuffer, 8, tile::ArgDesc::Kind::Integer, 4},
      {tile::ArgDesc::Kind::Integer, 8, tile::ArgDesc::Kind::Other, 0},
      {tile::ArgDesc::Kind::Integer, 4, tile::ArgDesc::Kind::Other, 0}};
  tile::BoundLaunch bound = k.bind(simple(2), args, descs, 3);
  CHECK(fake().launches.empty()); // bound, not launched
  CHECK(bound.addressCount() == 1);
  p = 0;
  n = 9; // the caller's storage may change: the bound copies stay
  fake().argSizes = {8, 8, 4};
  const CUdeviceptr next = b.ptr();
  bound.launch(&next, 1);
  REQUIRE(fake().launches.size() == 1);
  const FakeLaunch &l = fake().launches.back();
  CUdeviceptr got = 0;
  uint64_t gotN = 0;
  std::memcpy(&got, l.args[0].data(), 8);
  std::memcpy(&gotN, l.args[1].data(), 8);
  CHECK(got == b.ptr());
  CHECK(gotN == 7);
  CHECK(l.grid[0] == 2);
  // What an address decides is checked at every launch.
  const CUdeviceptr null = 0;
  CHECK_THAT(launchError([&] { bound.launch(&null, 1); }, "hist"),
             Catch::Contains("argument 0") && Catch::Contains("null pointer"));
  CHECK_THAT(launchError([&] { bound.launch(&next, 0); }, "hist"),
             Catch::Contains("0 addresses given to a bound launch of 1"));
  CHECK(fake().launches.size() == 1);
  // The driver is asked about an address's memory only when the parameter
  // did not launch with it among its last two: b (the last) and a (bound).
  const int queries = fake().pointerQueries;
  const CUdeviceptr first = a.ptr();
  bound.launch(&next, 1);
  bound.launch(&first, 1);
  CHECK(fake().pointerQueries == queries);
  tile::DeviceBuffer<int32_t> c(4);
  const CUdeviceptr third = c.ptr();
  bound.launch(&third, 1); // new: asked, and b is no longer among the last two
  bound.launch(&first, 1);
  CHECK(fake().pointerQueries == queries + 1);
  bound.launch(&next, 1);
  CHECK(fake().pointerQueries == queries + 2);
  CHECK(fake().launches.size() == 6);
  // A new address without device memory behind it is refused as before.
  int host = 0;
  const CUdeviceptr hostAddress = reinterpret_cast<CUdeviceptr>(&host);
  CHECK_THAT(launchError([&] { bound.launch(&hostAddress, 1); }, "hist"),
             Catch::Contains("argument 0") && Catch::Contains("no allocation"));
  CHECK(fake().launches.size() == 6);
  // A refused address is not remembered: asked again.
  CHECK_THROWS(bound.launch(&hostAddress, 1));
  CHECK(fake().pointerQueries == queries + 4);
}

TEST_CASE("fake driver: a device without cluster launch rejects clusters before launching",
          "[fake]") {
  reset();
  fake().clusterLaunch = 0;
  tile::Context ctx; // reads the device attributes
  tile::Kernel k = load(ctx).kernel("compiled2");
  CHECK(launchError([&] { k.launch(simple(2), CUdeviceptr(0)); }, "compiled2") ==
        "kernel 'compiled2': cluster (2, 1, 1) needs a device that supports cluster launch "
        "(compute capability "
        "9.0 or newer); this one does not");
  CHECK(fake().launches.empty());
}

TEST_CASE(
    "fake driver: maxActiveClusters raises the attributes first; launch still checks occupancy",
    "[fake]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = load(ctx).kernel("hist");
  tile::LaunchConfig c = simple(16, 256);
  c.cluster = tile::Dim3(16);
  c.allowNonPortableCluster = true;
  c.sharedBytes = 100 * 1024;
  CHECK(k.maxActiveClusters(c) == 4);
  CHECK(fake().funcAttrSets == std::vector<std::pair<int, int>>{
                                   {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024},
                                   {CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1}});
  CHECK(fake().occupancyQueries == 1);
  // An invalid configuration is rejected, not queried.
  tile::LaunchConfig bad = c;
  bad.allowNonPortableCluster = false;
  CHECK_THROWS_WITH(k.maxActiveClusters(bad), Catch::Contains("exceeds the portable limit of 8"));
  CHECK(fake().occupancyQueries == 1);
  // A shape only queried is still occupancy-checked at launch.
  fake().occupancyClusters = 0;
  CHECK(k.maxActiveClusters(c) == 0);
  CHECK_THROWS_WITH(k.launch(c, CUdeviceptr(0), int64_t{0}, 0),
                    Catch::Contains("cannot fit even one cluster"));
  CHECK(fake().launches.empty());
}

TEST_CASE("fake driver: asynchronous errors name the last kernel launched", "[fake]") {
  reset();
  tile::Context ctx;
  tile::Module m = load(ctx);
  tile::Kernel hist = m.kernel("hist"), none = m.kernel("noArgs");
  tile::Stream stream;
  tile::LaunchConfig c = simple();
  c.stream = stream;
  none.launch(simple());                         // legacy stream
  hist.launch(c, CUdeviceptr(0), int64_t{0}, 0); // then on `stream`
  tile::DeviceBuffer<int> buf(4);

  fake().syncResult = CUDA_ERROR_ILLEGAL_ADDRESS;
  std::string m1 = launchError([&] { stream.synchronize(); }, "hist", "cuStreamSynchronize");
  CHECK(m1 == "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700): fake driver error "
              "[kernel 'hist']: the "
              "last kernel launched on this stream before this call (a kernel's faults are "
              "reported by a later "
              "call)");
  CHECK_THAT(launchError([&] { ctx.synchronize(); }, "hist", "cuCtxSynchronize"),
             Catch::Contains("[kernel 'hist']: the last kernel launched before this call"));
  CHECK_THAT(launchError([&] { buf.toHost(); }, "hist", "cuMemcpyDtoH"),
             Catch::Contains("[kernel 'hist']"));
  tile::EventTimer t;
  t.start();
  CHECK_THAT(
      launchError([&] { t.stopMs(); }, "noArgs", "cuEventSynchronize"), // the legacy stream's last
      Catch::Contains("[kernel 'noArgs']"));

  // A plain (not kernel-fault) copy error blames no kernel.
  fake().syncResult = CUDA_ERROR_INVALID_VALUE;
  CHECK_THAT(launchError([&] { buf.toHost(); }, "", "cuMemcpyDtoH"), !Catch::Contains("kernel"));

  // A fault reported at the next launch points at the earlier kernel.
  fake().syncResult = CUDA_SUCCESS;
  fake().launchResult = CUDA_ERROR_LAUNCH_FAILED;
  CHECK_THAT(
      launchError([&] { none.launch(simple()); }, "noArgs", "cuLaunchKernelEx"),
      Catch::Contains(
          "a fault of earlier work, reported at this launch (the last kernel launched before it "
          "was 'hist')"));
}

TEST_CASE("fake driver: DeviceBuffer rejects a byte size that overflows", "[fake]") {
  reset();
  tile::Context ctx;
  // (SIZE_MAX / 8 + 2) * 8 wraps to 8: without the check an 8-byte buffer.
  CHECK_THROWS_WITH(tile::DeviceBuffer<double>(SIZE_MAX / 8 + 2),
                    Catch::Contains("overflow size_t"));
  CHECK(fake().liveAllocs == 0);
}
