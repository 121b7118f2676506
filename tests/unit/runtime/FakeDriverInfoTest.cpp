// Launches of kernels loaded with their kernel info, against the fake
// libcuda.so.1: dynamic shared memory from the layout rule, the compiled
// cluster, argument kinds, and info that does not belong to the module.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "FakeDriverSupport.h"
#include "tile/runtime.h"

namespace {

// histogram.tile's signature, compiled for cluster(2).
const std::string kPtx =
    ".version 8.6\n.target sm_90a\n.address_size 64\n"
    ".visible .entry histogram(\n"
    "\t.param .u64 .ptr .global .align 1 histogram_param_0,\n"
    "\t.param .u64 .ptr .global .align 1 histogram_param_1,\n"
    "\t.param .u64 histogram_param_2,\n"
    "\t.param .u32 histogram_param_3\n"
    ")\n.maxntid 1024, 1, 1\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{ ret; }\n";

tile::KernelParamInfo param(const char *name, tile::ScalarType t, bool pointer = false) {
  tile::KernelParamInfo p;
  p.name = name;
  p.scalar = t;
  p.isPointer = pointer;
  p.size = pointer ? 8 : tile::scalarBytes(t);
  p.align = p.size;
  return p;
}

tile::ModuleInfo histogramInfo() {
  tile::KernelInfo k;
  k.name = "histogram";
  k.params = {param("bins", tile::ScalarType::I32, true),
              param("input", tile::ScalarType::I32, true), param("n", tile::ScalarType::I64),
              param("nbins", tile::ScalarType::I32)};
  k.cluster = tile::KernelInfo::Cluster::Fixed;
  k.clusterDims = {2, 1, 1};
  tile::DynamicSharedArray hist;
  hist.name = "hist";
  hist.distributed = true;
  hist.count = tile::SizeExpr::paramRef(tile::ScalarType::I32, 3);
  k.dynamicShared.push_back(hist);
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(k);
  return m;
}

tile::LaunchConfig grid(unsigned g) {
  tile::LaunchConfig c;
  c.grid = tile::Dim3(g);
  c.block = tile::Dim3(256);
  return c; // cluster (1, 1, 1) and no sharedBytes: both from the kernel
}

} // namespace

TEST_CASE("fake driver: a launch computes dynamic shared memory from the kernel info", "[fake]") {
  reset();
  fake().argSizes = {8, 8, 8, 4};
  tile::Context ctx;
  tile::Module m = tile::Module::fromPtx(ctx, kPtx, histogramInfo(), noCache());
  tile::Kernel k = m.kernel("histogram");
  REQUIRE(k.info() != nullptr);
  CHECK(k.params()[3].name == "nbins"); // the source names
  tile::DeviceBuffer<int32_t> bins(1001), input(16);
  k.launch(grid(4), bins, input, int64_t(16), int32_t(1001));
  REQUIRE(fake().launches.size() == 1);
  // ceil(1001 / 2) i32 per CTA, the cluster being the compiled one.
  CHECK(fake().launches[0].sharedBytes == 501 * 4);
  CHECK(k.dynamicSharedBytes(grid(4), bins, input, int64_t(0), int32_t(24000)) == 12000 * 4);
  // Above 48 KB the runtime raises the kernel's limit first.
  k.launch(grid(4), bins, input, int64_t(16), int32_t(50000));
  CHECK(fake().launches.back().sharedBytes == 25000 * 4);
  CHECK(fake().funcAttrSets.back() ==
        std::make_pair(int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 25000 * 4));
  // A given size is kept when it is enough, refused when it is not.
  tile::LaunchConfig more = grid(4);
  more.sharedBytes = 4096;
  k.launch(more, bins, input, int64_t(16), int32_t(1001));
  CHECK(fake().launches.back().sharedBytes == 4096);
  tile::LaunchConfig less = grid(4);
  less.sharedBytes = 2000;
  CHECK(
      errorText([&] { k.launch(less, bins, input, int64_t(16), int32_t(1001)); }) ==
      "kernel 'histogram': 2000 bytes of dynamic shared memory given but its dynamic shared arrays "
      "need 2004 for these arguments (leave LaunchConfig::sharedBytes unset to have it computed)");
  // The occupancy query needs the size too: from the arguments.
  CHECK_THAT(errorText([&] { k.maxActiveClusters(grid(2)); }),
             Catch::Contains("set cfg.sharedBytes or pass the arguments"));
  CHECK(k.maxActiveClusters(grid(2), bins, input, int64_t(0), int32_t(1001)) == 4);
  // A negative count: the kernel's unsigned ceil-division makes it huge, as here.
  CHECK_THAT(errorText([&] { k.launch(grid(4), bins, input, int64_t(16), int32_t(-5)); }),
             Catch::Contains("bytes of shared memory per block exceed the device limit"));
}

TEST_CASE("fake driver: a launch whose mbarrier count is out of range is refused", "[fake]") {
  // histogram with `let full = mbarrier(nbins)`: every launch path evaluates
  // the count from its arguments before the driver sees the launch.
  reset();
  fake().argSizes = {8, 8, 8, 4};
  tile::ModuleInfo info = histogramInfo();
  info.kernels[0].mbarrierCounts.push_back(
      {"full", tile::SizeExpr::paramRef(tile::ScalarType::I32, 3)});
  tile::Context ctx;
  tile::Kernel k = tile::Module::fromPtx(ctx, kPtx, info, noCache()).kernel("histogram");
  tile::DeviceBuffer<int32_t> bins(1001), input(16);
  k.launch(grid(4), bins, input, int64_t(16), int32_t(1001));
  CHECK(fake().launches.size() == 1);
  CHECK(errorText([&] { k.launch(grid(4), bins, input, int64_t(16), int32_t(0)); }) ==
        "kernel 'histogram': mbarrier 'full' would complete a phase with 0 arrivals for these "
        "arguments, but an mbarrier's count is 1 to 1048575 (PTX mbarrier.init: another count "
        "leaves its phases undefined)");
  tile::LaunchConfig given = grid(4);
  given.sharedBytes = 1 << 16; // a given window size skips no check
  CHECK_THAT(errorText([&] { k.launch(given, bins, input, int64_t(16), int32_t(1 << 20)); }),
             Catch::Contains("mbarrier 'full' would complete a phase with 1048576 arrivals"));
  CHECK(fake().launches.size() == 1);
}

TEST_CASE("fake driver: argument kinds are checked against the kernel info", "[fake]") {
  reset();
  fake().argSizes = {8, 8, 8, 4};
  tile::Context ctx;
  tile::Kernel k = tile::Module::fromPtx(ctx, kPtx, histogramInfo(), noCache()).kernel("histogram");
  tile::DeviceBuffer<int32_t> bins(4);
  tile::DeviceBuffer<float> floats(4);
  // Sizes match (so cuFuncGetParamInfo alone accepts them), kinds do not.
  CHECK(
      errorText([&] { k.launch(grid(2), bins, floats, int64_t(4), int32_t(4)); }) ==
      "kernel 'histogram': argument 1 is a DeviceBuffer of 4-byte floats but parameter 1 ('input', "
      "ptr<i32, global>) (pass a DeviceBuffer<an integer type of 4 bytes> or a CUdeviceptr)");
  CHECK_THAT(errorText([&] { k.launch(grid(2), bins, bins, int64_t(4), 4.0f); }),
             Catch::Contains("argument 3 is a 4-byte float but parameter 3 ('nbins', i32)"));
  CHECK_THAT(errorText([&] { k.launch(grid(2), bins, bins, 4.0, int32_t(4)); }),
             Catch::Contains("argument 2 is a 8-byte float but parameter 2 ('n', i64)"));
  CHECK(fake().launches.empty());
  // A raw CUdeviceptr passes for a pointer.
  k.launch(grid(2), bins.ptr(), bins, int64_t(4), int32_t(4));
  CHECK(fake().launches.size() == 1);
}

TEST_CASE("fake driver: kernel info that does not belong to the module is refused", "[fake]") {
  reset();
  tile::Context ctx;
  tile::ModuleInfo wrongCluster = histogramInfo();
  wrongCluster.kernels[0].clusterDims = {4, 1, 1};
  CHECK_THAT(errorText([&] {
               tile::Module::fromPtx(ctx, kPtx, wrongCluster, noCache()).kernel("histogram");
             }),
             Catch::Contains("the kernel info's cluster is fixed (4, 1, 1) but the PTX's is fixed "
                             "(2, 1, 1) (.reqnctapercluster)"));
  tile::ModuleInfo renamed = histogramInfo();
  renamed.kernels[0].name = "other";
  CHECK_THAT(errorText(
                 [&] { tile::Module::fromPtx(ctx, kPtx, renamed, noCache()).kernel("histogram"); }),
             Catch::Contains("kernel 'other': the kernel info lists it but the PTX has no .entry "
                             "of this name"));
  tile::ModuleInfo fewer = histogramInfo();
  fewer.kernels[0].params.pop_back();
  CHECK_THAT(errorText(
                 [&] { tile::Module::fromPtx(ctx, kPtx, fewer, noCache()).kernel("histogram"); }),
             Catch::Contains("the kernel info lists 3 parameters but the PTX declares 4"));

  // A cubin shows no PTX: Module::kernel compares the info with the driver.
  tile::ModuleOptions linked = noCache();
  linked.wholeProgramJit = false;
  linked.withoutKernelInfo = true;
  const std::string cubin = tile::Module::fromPtx(ctx, kPtx, linked).cubin();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tilec_info_cubin_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h.cubin", std::ios::binary) << cubin;
  auto withInfo = [&](const tile::ModuleInfo &info) {
    std::ofstream(dir / "h.info.json") << tile::toJson(info);
    return errorText([&] {
      tile::Module::fromFiles(ctx, (dir / "h.cubin").string()).kernel("histogram");
    });
  };
  CHECK_THAT(withInfo(wrongCluster),
             Catch::Contains(
                 "the kernel info's cluster is (4, 1, 1) but the loaded kernel's is (2, 1, 1)"));
  CHECK_THAT(withInfo(renamed),
             Catch::Contains("the kernel info has no kernel of this name (it has 'other')"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("fake driver: Module::fromFiles reads the .info.json beside the PTX", "[fake]") {
  reset();
  fake().argSizes = {8, 8, 8, 4};
  tile::Context ctx;
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("tilec-info-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "h.ptx") << kPtx;
  std::ofstream(dir / "h.info.json") << tile::toJson(histogramInfo());
  tile::Module m = tile::Module::fromFiles(ctx, (dir / "h.ptx").string(), "", noCache());
  REQUIRE(m.info() != nullptr);
  tile::DeviceBuffer<int32_t> b(8);
  m.kernel("histogram").launch(grid(2), b, b, int64_t(8), int32_t(7));
  CHECK(fake().launches.back().sharedBytes == 4 * 4);
  // No info file: the error says how to make one.
  fs::remove(dir / "h.info.json");
  CHECK_THAT(
      errorText([&] { tile::Module::fromFiles(ctx, (dir / "h.ptx").string(), "", noCache()); }),
      Catch::Contains("cannot open") && Catch::Contains("tilec --emit=info"));
  std::ofstream(dir / "h.info.json") << "{\"format\": \"tilec-kernel-info\", \"version\": 1}";
  CHECK_THAT(
      errorText([&] { tile::Module::fromFiles(ctx, (dir / "h.ptx").string(), "", noCache()); }),
      Catch::Contains("missing \"arch\""));
  fs::remove_all(dir);
}

// Instances of a kernel with compile-time parameters, found by the
// source name and the arguments (any order) or by the mangled name.
TEST_CASE("fake driver: Module::kernel finds a template instance by its arguments", "[fake]") {
  reset();
  const std::string ptx = ".version 8.6\n.target sm_90a\n.address_size 64\n"
                          ".visible .entry tk$BM64$BN32(\n\t.param .u64 tk$BM64$BN32_param_0\n)\n"
                          "{ ret; }\n"
                          ".visible .entry tk$BM128$BN32(\n\t.param .u64 tk$BM128$BN32_param_0\n)\n"
                          "{ ret; }\n";
  tile::ModuleInfo info;
  info.arch = "sm_90a";
  for (int64_t bm : {64, 128}) {
    tile::KernelInfo k;
    k.sourceName = "tk";
    k.templateArgs = {{"BM", bm}, {"BN", 32}};
    k.name = tile::mangledKernelName("tk", k.templateArgs);
    k.params = {param("p", tile::ScalarType::F32, true)};
    info.kernels.push_back(k);
  }
  CHECK(info.kernels[1].name == "tk$BM128$BN32");
  CHECK(tile::mangledKernelName("k", {{"OFF", -4}, {"ON", 1}}) == "k$OFFn4$ON1");
  fake().argSizes = {8};
  tile::Context ctx;
  tile::Module m = tile::Module::fromPtx(ctx, ptx, info, noCache());
  CHECK(m.kernel("tk", {{"BM", 128}, {"BN", 32}}).name() == "tk$BM128$BN32");
  CHECK(m.kernel("tk", {{"BN", 32}, {"BM", 64}}).name() == "tk$BM64$BN32"); // any order
  CHECK(m.kernel("tk$BM64$BN32").info() == &m.info()->kernels[0]);
  CHECK_THAT(errorText([&] {
               m.kernel("tk", {{"BM", 32}, {"BN", 32}});
             }),
             Catch::Contains("the module has no instance of kernel 'tk' with BM=32, BN=32 "
                             "(compiled instances: tk$BM64$BN32, tk$BM128$BN32)"));
  // A name the module does not have: what it has, and the nearest.
  CHECK_THAT(errorText([&] {
               m.kernel("other", {{"BM", 32}});
             }),
             Catch::Contains("the module has no kernel 'other' (it has 'tk', 'tk$BM128$BN32', "
                             "'tk$BM64$BN32')"));
  CHECK_THAT(errorText([&] {
               m.kernel("tx", {{"BM", 32}});
             }),
             Catch::Contains("; did you mean 'tk'?"));
  CHECK_THAT(errorText([&] { m.kernel("tkk"); }),
             Catch::Contains("the module has no kernel 'tkk'") &&
                 Catch::Contains("did you mean 'tk'"));
  // The source name alone, without the arguments: the instances.
  CHECK_THAT(errorText([&] { m.kernel("tk"); }),
             Catch::Contains("kernel 'tk' has compile-time parameters: the module has its "
                             "instances 'tk$BM64$BN32', 'tk$BM128$BN32'"));
  // A compile-time parameter no instance has: the parameters, the nearest.
  CHECK_THAT(errorText([&] {
               m.kernel("tk", {{"BX", 64}, {"BN", 32}});
             }),
             Catch::Contains("kernel 'tk' has no compile-time parameter 'BX' (its parameters: "
                             "'BM', 'BN'); did you mean 'BM' or 'BN'?"));
}

// Instances of a kernel with a type parameter: by values and types, or by
// the values alone when one instance has them.
TEST_CASE("fake driver: Module::kernel finds an instance by its type arguments", "[fake]") {
  reset();
  std::string ptx = ".version 8.6\n.target sm_90a\n.address_size 64\n";
  tile::ModuleInfo info;
  info.arch = "sm_90a";
  for (const char *t : {"f16", "bf16"})
    for (int64_t bn : {128, 256}) {
      if (std::string(t) == "bf16" && bn == 128)
        continue; // f16: BN 128 and 256; bf16: BN 256 only
      tile::KernelInfo k;
      k.sourceName = "g";
      k.templateArgs = {{"BN", bn}};
      k.typeArgs = {{"T", t}};
      k.name = tile::mangledKernelName("g", k.templateArgs, k.typeArgs);
      k.params = {param("p", tile::ScalarType::F32, true)};
      ptx += ".visible .entry " + k.name + "(\n\t.param .u64 " + k.name + "_param_0\n)\n{ ret; }\n";
      info.kernels.push_back(k);
    }
  CHECK(info.kernels[2].name == "g$Tbf16$BN256");
  fake().argSizes = {8};
  tile::Context ctx;
  tile::Module m = tile::Module::fromPtx(ctx, ptx, info, noCache());
  CHECK(m.kernel("g", {{"BN", 256}}, {{"T", "bf16"}}).name() == "g$Tbf16$BN256");
  CHECK(m.kernel("g", {{"BN", 128}}).name() == "g$Tf16$BN128"); // one instance with BN 128
  CHECK_THAT(errorText([&] {
               m.kernel("g", {{"BN", 256}});
             }),
             Catch::Contains("kernel 'g' has several instances with BN=256 (g$Tf16$BN256, "
                             "g$Tbf16$BN256); name the type arguments too"));
  CHECK_THAT(errorText([&] {
               m.kernel("g", {{"BN", 128}}, {{"T", "bf16"}});
             }),
             Catch::Contains("no instance of kernel 'g' with T=bf16, BN=128"));
}
