// Driver-present paths of the runtime against the fake libcuda.so.1 in fakedriver/
// (ctest runs this binary with LD_LIBRARY_PATH pointing there).
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "FakeDriverSupport.h"
#include "tile/runtime.h"

namespace fs = std::filesystem;

namespace {

struct TempCache {
  fs::path path;
  TempCache() {
    std::string t = (fs::temp_directory_path() / "tilec-fake-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempCache() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  tile::ModuleOptions options() const {
    tile::ModuleOptions o = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
    o.wholeProgramJit = false; // the driver-linker path, the one tilec caches
    o.cacheDir = path.string();
    return o;
  }
};

const std::string kPtx = ".version 8.5\n.target sm_90a\n.address_size 64\n"
                         ".visible .entry vadd(.param .u64 a, .param .u64 b, .param .f32 s, .param "
                         ".u32 n) .maxntid 256 { ret; }\n"
                         ".visible .entry histogram(.param .u64 h) { ret; }\n";

template <class T> T as(const std::vector<unsigned char> &bytes) {
  REQUIRE(bytes.size() == sizeof(T));
  T v;
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

} // namespace

TEST_CASE("fake driver: entry points resolve and a Context reports the device", "[fake]") {
  reset();
  CHECK(tile::deviceCount() == 1);
  CHECK(tile::driverVersion() == 13000);
  {
    tile::Context ctx;
    CHECK(ctx.name() == "Fake H100");
    CHECK(ctx.computeCapability() == 90);
    CHECK(ctx.arch() == "sm_90a");
    CHECK(ctx.smCount() == 132);
    CHECK(ctx.maxSharedPerBlockOptin() == 232448);
    CHECK(ctx.driverVersion() == 13000);
    CHECK(ctx.raw() != nullptr);
    tile::Context copy = ctx; // shares the retained context
    CHECK(fake().ctxRetains == 1);
    // Binds the header's cuCtxSynchronize(void), not the driver's newer
    // cuCtxSynchronize_v2(CUcontext) (which the fake makes fail).
    CHECK_NOTHROW(ctx.synchronize());
  }
  CHECK(fake().ctxReleases == 1);
  // A bad ordinal names the device call.
  try {
    tile::Context bad(3);
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.code() == CUDA_ERROR_INVALID_DEVICE);
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("device 3 requested but 1 device(s) present"));
  }
  // With a driver loaded, descriptions come from cuGetErrorString.
  CHECK(tile::errorDescription(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) ==
        "too many resources requested for launch");
}

TEST_CASE("fake driver: PTX is JIT-linked once, then loaded from the cache", "[fake]") {
  reset();
  TempCache cache;
  tile::Context ctx;
  {
    tile::Module m = tile::Module::fromPtx(ctx, kPtx, cache.options());
    CHECK_FALSE(m.loadedFromCache());
    CHECK(fake().links == 1);
    CHECK(fake().jitTargets == std::vector<int>{-1}); // context target first
    CHECK_THAT(m.jitInfoLog(), Catch::Contains("Used 32 registers"));
    CHECK(m.cachePath() ==
          (cache.path / (tile::cubinCacheKey(kPtx, "sm_90a", 13000) + ".cubin")).string());
    CHECK(fs::exists(m.cachePath()));
    CHECK(m.cubin().rfind("\x7f"
                          "ELF",
                          0) == 0);
  }
  CHECK(fake().moduleUnloads == 1);
  tile::Module again = tile::Module::fromPtx(ctx, kPtx, cache.options());
  CHECK(again.loadedFromCache());
  CHECK(fake().links == 1); // no second JIT
  CHECK(again.kernel("vadd").maxThreadsPerBlock() == 256);

  // Different JIT opt level -> different key -> JIT again.
  tile::ModuleOptions o3 = cache.options();
  o3.jitOptLevel = 3;
  CHECK_FALSE(tile::Module::fromPtx(ctx, kPtx, o3).loadedFromCache());
  CHECK(fake().links == 2);
  // useCache=false and TILEC_NO_CACHE bypass it.
  tile::ModuleOptions off = cache.options();
  off.useCache = false;
  CHECK_FALSE(tile::Module::fromPtx(ctx, kPtx, off).loadedFromCache());
  CHECK(fake().links == 3);
  setenv("TILEC_NO_CACHE", "1", 1);
  tile::Module nc = tile::Module::fromPtx(ctx, kPtx, cache.options());
  unsetenv("TILEC_NO_CACHE");
  CHECK_FALSE(nc.loadedFromCache());
  CHECK(nc.cachePath().empty());
  CHECK(fake().links == 4);
}

TEST_CASE("fake driver: a cache entry the driver refuses is replaced by a fresh JIT", "[fake]") {
  reset();
  TempCache cache;
  tile::Context ctx;
  tile::CubinCache files(cache.path.string());
  std::string key = tile::cubinCacheKey(kPtx, "sm_90a", 13000);
  REQUIRE(files.store(key, "well-formed entry, but not a cubin"));
  tile::Module m = tile::Module::fromPtx(ctx, kPtx, cache.options());
  CHECK_FALSE(m.loadedFromCache());
  CHECK(fake().links == 1);
  CHECK(files.load(key)->rfind("\x7f"
                               "ELF",
                               0) == 0); // rewritten with the real one
  CHECK(tile::Module::fromPtx(ctx, kPtx, cache.options()).loadedFromCache());
}

TEST_CASE("fake driver: JIT failures carry the error log", "[fake]") {
  reset();
  TempCache cache;
  tile::Context ctx;
  try {
    tile::Module::fromPtx(ctx, kPtx + "SYNTAX_ERROR\n", cache.options());
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    std::string w = e.what();
    CHECK(e.call() == "cuLinkAddData");
    CHECK(e.errorName() == "CUDA_ERROR_INVALID_PTX");
    CHECK_THAT(w, Catch::StartsWith("cuLinkAddData failed: CUDA_ERROR_INVALID_PTX (218): "));
    CHECK_THAT(
        w, Catch::Contains(
               "JIT error log:\nptxas application ptx input, line 3; error   : fake syntax error"));
  }
  CHECK(fs::is_empty(cache.path)); // nothing cached
}

TEST_CASE("fake driver: the explicit sm_90a JIT target is only a retry", "[fake]") {
  reset();
  tile::Context ctx;
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false;
  off.useCache = false;
  tile::Module m = tile::Module::fromPtx(ctx, kPtx + "// NEEDS_TARGET\n", off);
  CHECK(fake().jitTargets == std::vector<int>{-1, CU_TARGET_COMPUTE_90A});
  // When both fail, the default attempt's error is reported.
  fake().rejectExplicitTarget = true;
  fake().jitTargets.clear();
  CHECK_THROWS_WITH(tile::Module::fromPtx(ctx, kPtx + "// NEEDS_TARGET\n", off),
                    Catch::Contains("cuLinkAddData failed") &&
                        Catch::Contains("need the sm_90a target"));
  CHECK(fake().jitTargets == std::vector<int>{-1, CU_TARGET_COMPUTE_90A});
}

TEST_CASE("fake driver: fromFile picks PTX or cubin by content; missing kernels name the kernel",
          "[fake]") {
  reset();
  TempCache cache;
  tile::Context ctx;
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false;
  off.useCache = false;
  std::string cubin = tile::Module::fromPtx(ctx, kPtx, off).cubin();
  fs::path ptxFile = cache.path / "k.ptx", cubinFile = cache.path / "k.cubin";
  { std::ofstream(ptxFile, std::ios::binary) << kPtx; }
  { std::ofstream(cubinFile, std::ios::binary) << cubin; }
  int links = fake().links;
  tile::Module fromCubin = tile::Module::fromFile(ctx, cubinFile.string(), off);
  CHECK(fake().links == links);
  tile::Module fromPtx = tile::Module::fromFile(ctx, ptxFile.string(), off);
  CHECK(fake().links == links + 1);
  CHECK_THROWS_WITH(tile::Module::fromFile(ctx, (cache.path / "nope.ptx").string()),
                    Catch::Contains("cannot open"));
  try {
    fromCubin.kernel("missing");
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "cuModuleGetFunction");
    CHECK(e.kernel() == "missing");
    CHECK_THAT(std::string(e.what()), Catch::Contains("CUDA_ERROR_NOT_FOUND (500)") &&
                                          Catch::Contains("[kernel 'missing']"));
  }
  CHECK_THROWS_WITH(tile::Module::fromCubin(ctx, "garbage"),
                    Catch::Contains("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_IMAGE"));
}

TEST_CASE("fake driver: launch packs arguments and passes the configuration", "[fake]") {
  reset();
  tile::Context ctx;
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false;
  off.useCache = false;
  tile::Module m = tile::Module::fromPtx(ctx, kPtx, off);
  tile::Kernel k;
  k = m.kernel("vadd");
  CHECK(k.valid());
  CHECK(k.name() == "vadd");
  CHECK(k.numRegs() == 32);
  CHECK(k.staticSharedBytes() == 1024);

  tile::DeviceBuffer<float> a(8), b(8);
  std::vector<float> host = {1, 2, 3, 4, 5, 6, 7, 8};
  a.copyFrom(host);
  b.fillBytes(0);
  CHECK(a.toHost() == host);
  CHECK(b.toHost() == std::vector<float>(8, 0.f));
  CHECK(fake().liveAllocs == 2);

  fake().argSizes = {8, 8, 4, 4};
  tile::Stream stream;
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(4, 2);
  cfg.block = tile::Dim3(128, 2);
  cfg.stream = stream;
  k.launch(cfg, a, b.ptr(), 2.5f, 8u);
  REQUIRE(fake().launches.size() == 1);
  const FakeLaunch &l = fake().launches[0];
  CHECK(l.kernel == "vadd");
  CHECK((l.grid[0] == 4 && l.grid[1] == 2 && l.grid[2] == 1));
  CHECK((l.block[0] == 128 && l.block[1] == 2 && l.block[2] == 1));
  CHECK_FALSE(l.hasCluster);
  CHECK(l.sharedBytes == 0);
  CHECK(l.stream == stream.raw());
  CHECK(as<CUdeviceptr>(l.args[0]) == a.ptr());
  CHECK(as<CUdeviceptr>(l.args[1]) == b.ptr());
  CHECK(as<float>(l.args[2]) == 2.5f);
  CHECK(as<unsigned>(l.args[3]) == 8u);
  CHECK(fake().occupancyQueries == 0); // no cluster, no occupancy query
  CHECK(fake().funcAttrSets.empty());

  // The kernel's .maxntid 256 is enforced before launching.
  cfg.block = tile::Dim3(512);
  CHECK_THROWS_WITH(k.launch(cfg, a, b, 1.f, 8u),
                    "kernel 'vadd': block of 512 threads (512, 1, 1) exceeds the kernel's limit of "
                    "256 threads per block (max_threads(256), PTX .maxntid)");
  CHECK(fake().launches.size() == 1);

  tile::EventTimer t;
  t.start(stream);
  CHECK(t.stopMs(stream) == 1.5f);
}

TEST_CASE("fake driver: large dynamic shared memory raises the attribute once", "[fake]") {
  reset();
  tile::Context ctx;
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false;
  off.useCache = false;
  tile::Kernel k =
      tile::Module::fromPtx(ctx, kPtx, off).kernel("histogram"); // module kept alive by the kernel
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(2);
  cfg.block = tile::Dim3(128);
  cfg.sharedBytes = 200 * 1024;
  k.launch(cfg, CUdeviceptr(0));
  k.launch(cfg, CUdeviceptr(0));
  REQUIRE(fake().launches.size() == 2);
  CHECK(fake().launches[0].sharedBytes == 200 * 1024);
  CHECK(fake().funcAttrSets == std::vector<std::pair<int, int>>{
                                   {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024}});
  // Over the opt-in limit (with the kernel's 1 KiB static): a clear error, no launch.
  cfg.sharedBytes = 232448;
  CHECK_THROWS_WITH(
      k.launch(cfg, CUdeviceptr(0)),
      Catch::Contains(
          "kernel 'histogram': 233472 bytes of shared memory per block exceed the device "
          "limit of 232448 bytes"));
  CHECK(fake().launches.size() == 2);
}

TEST_CASE("fake driver: cluster launches", "[fake]") {
  reset();
  tile::Context ctx;
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false;
  off.useCache = false;
  tile::Kernel k = tile::Module::fromPtx(ctx, kPtx, off).kernel("histogram");
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(32);
  cfg.block = tile::Dim3(256);
  cfg.cluster = tile::Dim3(4);
  k.launch(cfg, CUdeviceptr(0));
  REQUIRE(fake().launches.size() == 1);
  CHECK(fake().launches[0].hasCluster);
  CHECK(fake().launches[0].cluster[0] == 4);
  CHECK(fake().occupancyQueries == 1);
  CHECK(k.maxActiveClusters(cfg) == 4);

  // 16 CTAs: portable limit, then non-portable opt-in sets the attribute.
  cfg.cluster = tile::Dim3(16);
  CHECK_THROWS_WITH(k.launch(cfg, CUdeviceptr(0)),
                    "kernel 'histogram': cluster of 16 CTAs exceeds the portable limit of 8 (set "
                    "allowNonPortableCluster)");
  cfg.allowNonPortableCluster = true;
  k.launch(cfg, CUdeviceptr(0));
  CHECK(fake().launches.back().cluster[0] == 16);
  CHECK(fake().funcAttrSets ==
        std::vector<std::pair<int, int>>{{CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1}});

  // Occupancy 0 -> the "cannot fit" error, no launch.
  fake().occupancyClusters = 0;
  cfg.cluster = tile::Dim3(8);
  cfg.allowNonPortableCluster = false;
  size_t launches = fake().launches.size();
  try {
    k.launch(cfg, CUdeviceptr(0));
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.kernel() == "histogram");
    CHECK(std::string(e.what()) == "kernel 'histogram': cannot fit even one cluster of 8 CTAs with "
                                   "1024 bytes shared memory and 256 "
                                   "threads (cuOccupancyMaxActiveClusters returned 0)");
  }
  CHECK(fake().launches.size() == launches);
}

TEST_CASE("fake driver: a failing launch names the call, the error and the kernel", "[fake]") {
  reset();
  tile::Context ctx;
  tile::ModuleOptions off = tile::ModuleOptions::launchWithoutInfo(); // no kernel info here
  off.wholeProgramJit = false;
  off.useCache = false;
  tile::Kernel k = tile::Module::fromPtx(ctx, kPtx, off).kernel("histogram");
  fake().launchResult = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  tile::LaunchConfig cfg;
  try {
    k.launch(cfg, CUdeviceptr(0));
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "cuLaunchKernelEx");
    CHECK(e.kernel() == "histogram");
    // Launched without kernel info: the error says which checks were skipped.
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("cuLaunchKernelEx failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES "
                                 "(701): too many resources requested for "
                                 "launch [kernel 'histogram']: the kernel has no kernel info "
                                 "(ModuleOptions::withoutKernelInfo), so these checks were "
                                 "skipped:\n  - argument kinds"));
  }
}

TEST_CASE("fake driver: DeviceBuffer frees its memory, moves transfer ownership", "[fake]") {
  reset();
  tile::Context ctx;
  {
    tile::DeviceBuffer<int> a(4);
    tile::DeviceBuffer<int> b(std::move(a));
    CHECK(a.ptr() == 0);
    CHECK(fake().liveAllocs == 1);
    tile::DeviceBuffer<int> c(2);
    c = std::move(b);
    CHECK(fake().liveAllocs == 1);
    CHECK(c.size() == 4);
  }
  CHECK(fake().liveAllocs == 0);
}

TEST_CASE("fake driver: a DeviceBuffer keeps its context and frees in it", "[fake]") {
  reset();
  std::unique_ptr<tile::DeviceBuffer<int>> buffer;
  {
    tile::Context ctx;
    buffer = std::make_unique<tile::DeviceBuffer<int>>(16);
    CHECK(buffer->context() == ctx.state());
    tile::DeviceBuffer<int> named(ctx, 4); // given the Context explicitly
    CHECK(named.context() == ctx.state());
  }
  // The last Context handle is gone, the buffer still holds the primary context...
  CHECK(fake().ctxReleases == 0);
  CHECK(fake().liveAllocs == 1);
  const int freesBefore = fake().freesInPushedContext;
  buffer.reset();
  // ...and frees its memory with that context pushed, then lets the context go.
  CHECK(fake().liveAllocs == 0);
  CHECK(fake().freesInPushedContext == freesBefore + 1);
  CHECK(fake().ctxPushes == fake().ctxPops);
  CHECK(fake().ctxReleases == 1);
}
