// The runtime's safety checks against the fake libcuda.so.1, one section per
// class of mistake: handles that outlive what they name (streams, buffers
// behind tensors), pointer and tensor arguments that are not the kernel's
// device memory, kernel info that belongs to other PTX, launching without
// kernel info, and driver errors the runtime can explain. Every refused
// launch reaches no cuLaunchKernelEx (fake().launches stays empty).
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "FakeDriverSupport.h"
#include "TensorKernelInfo.h"
#include "tile/runtime.h"

namespace {

// fill(out: ptr<i32, global>, n: i32) threads(1024)
const std::string kFillPtx = ".version 8.6\n.target sm_90a\n.address_size 64\n"
                             ".visible .entry fill(\n"
                             "\t.param .u64 .ptr .global .align 1 fill_param_0,\n"
                             "\t.param .u32 fill_param_1\n"
                             ")\n.reqntid 1024, 1, 1\n{ ret; }\n";

// k(A: tensor<bf16>[M, K], s: f32, B: tensor<bf16>[K, 64]) + hidden M, K.
const std::string kTensorPtx = ".version 8.6\n.target sm_90a\n.address_size 64\n"
                               ".visible .entry k(\n"
                               "\t.param .align 64 .b8 k_param_0[128],\n"
                               "\t.param .f32 k_param_1,\n"
                               "\t.param .align 64 .b8 k_param_2[128],\n"
                               "\t.param .u32 k_param_3,\n"
                               "\t.param .u32 k_param_4\n"
                               ")\n{ ret; }\n";

tile::KernelInfo fillInfo() {
  tile::KernelInfo k;
  k.name = "fill";
  tile::KernelParamInfo out;
  out.name = "out";
  out.isPointer = true;
  out.size = out.align = 8;
  tile::KernelParamInfo n;
  n.name = "n";
  n.size = n.align = 4;
  k.params = {out, n};
  k.threads = std::array<unsigned, 3>{1024, 1, 1};
  return k;
}

tile::ModuleInfo moduleInfo(const tile::KernelInfo &k) {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(k);
  return m;
}

tile::Kernel loadFill(tile::Context &ctx) {
  return tile::Module::fromPtx(ctx, kFillPtx, moduleInfo(fillInfo()), noCache()).kernel("fill");
}

tile::LaunchConfig block(unsigned threads) {
  tile::LaunchConfig c;
  c.grid = tile::Dim3(2);
  c.block = tile::Dim3(threads);
  return c;
}

} // namespace

//===----------------------------------------------------------------------===//
// Lifetimes
//===----------------------------------------------------------------------===//

// A temporary converts to no handle: `cfg.stream = tile::Stream();` and
// `tile::Tensor(tile::DeviceBuffer<float>(n), ...)` do not compile.
static_assert(std::is_convertible<tile::Stream &, tile::StreamRef>::value, "");
static_assert(!std::is_convertible<tile::Stream &&, tile::StreamRef>::value, "");
static_assert(!std::is_assignable<tile::StreamRef &, tile::Stream &&>::value, "");
static_assert(!std::is_convertible<tile::Stream &&, CUstream>::value, "");
static_assert(std::is_constructible<tile::Tensor, const tile::DeviceBuffer<float> &,
                                    tile::TensorShape>::value,
              "");
static_assert(
    !std::is_constructible<tile::Tensor, tile::DeviceBuffer<float> &&, tile::TensorShape>::value,
    "");

TEST_CASE("fake driver: a launch on a destroyed or moved-from tile::Stream is refused",
          "[fake][safety]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = loadFill(ctx);
  tile::DeviceBuffer<int32_t> out(16);
  tile::LaunchConfig cfg = block(1024);
  {
    tile::Stream s;
    cfg.stream = s;
    k.launch(cfg, out, int32_t(16));
    REQUIRE(fake().launches.size() == 1);
    CHECK(fake().launches[0].stream == s.raw());
  }
  CHECK(errorText([&] { k.launch(cfg, out, int32_t(16)); }) ==
        "kernel 'fill': cfg.stream names a tile::Stream that has been destroyed or moved from: a "
        "launch config holds a view of its stream, so keep the tile::Stream alive (and unmoved) "
        "while launching on it");
  // A view taken before a move follows the stream into its new owner; one of
  // the moved-from tile::Stream names none.
  tile::Stream a;
  cfg.stream = a;
  tile::Stream b(std::move(a));
  k.launch(cfg, out, int32_t(16));
  REQUIRE(fake().launches.size() == 2);
  CHECK(fake().launches[1].stream == b.raw());
  cfg.stream = a;
  CHECK_THAT(errorText([&] { k.launch(cfg, out, int32_t(16)); }),
             Catch::Contains("destroyed or moved from"));
  CHECK(fake().launches.size() == 2);
}

TEST_CASE("fake driver: a stream of another context is refused naming both", "[fake][safety]") {
  reset();
  fake().deviceCount = 2;
  tile::Context c1(1);
  tile::Stream other(c1);
  tile::Context c0(0);
  tile::Kernel k = loadFill(c0);
  tile::DeviceBuffer<int32_t> out(c0, 16);
  tile::LaunchConfig cfg = block(1024);
  cfg.stream = other;
  CHECK_THAT(errorText([&] { k.launch(cfg, out, int32_t(16)); }),
             Catch::Matches("kernel 'fill': cfg.stream belongs to device 1's primary context "
                            "\\(.*\\) but the kernel is loaded in device 0's primary context "
                            "\\(.*\\): create the stream with that Context \\(tile::Stream\\(ctx\\)\\)"));
  // A raw CUstream of the other context: its context comes from cuStreamGetCtx.
  cfg.stream = other.raw();
  CHECK_THAT(errorText([&] { k.launch(cfg, out, int32_t(16)); }),
             Catch::Contains("cfg.stream belongs to device 1's primary context"));
  CHECK(fake().launches.empty());
}

TEST_CASE("fake driver: a tensor over a freed DeviceBuffer is refused", "[fake][safety]") {
  reset();
  tile::Context ctx;
  tile::Kernel k =
      tile::Module::fromPtx(ctx, kTensorPtx, moduleInfo(tensorKernelInfo()), noCache()).kernel("k");
  tile::LaunchConfig cfg = block(128);
  auto b = std::make_unique<tile::DeviceBuffer<uint16_t>>(64 * 64);
  tile::Tensor B(*b, tile::TensorElement::BF16, {64, 64});
  tile::DeviceBuffer<uint16_t> a(256 * 64);
  tile::Tensor A(a, tile::TensorElement::BF16, {256, 64});
  k.launch(cfg, A, 1.0f, B);
  REQUIRE(fake().launches.size() == 1);
  // Moving the buffer moves the memory: the tensor still views it.
  tile::DeviceBuffer<uint16_t> moved(std::move(*b));
  k.launch(cfg, A, 1.0f, B);
  REQUIRE(fake().launches.size() == 2);
  { tile::DeviceBuffer<uint16_t> gone(std::move(moved)); }
  CHECK_THAT(errorText([&] { k.launch(cfg, A, 1.0f, B); }),
             Catch::Matches("kernel 'k': tensor argument 2 \\('B', tensor<bf16>\\[K, 64\\]\\) is "
                            "tensor<bf16>\\[64, 64\\] at 0x[0-9a-f]+, a view of a DeviceBuffer "
                            "that has been freed \\(the tensor outlived it\\): keep the buffer "
                            "alive while its tensors are launched with"));
  // Even with the driver queries off.
  cfg.checkPointers = false;
  CHECK_THAT(errorText([&] { k.launch(cfg, A, 1.0f, B); }), Catch::Contains("has been freed"));
  CHECK(fake().launches.size() == 2);
}

//===----------------------------------------------------------------------===//
// Provenance of pointer and tensor arguments
//===----------------------------------------------------------------------===//

TEST_CASE("fake driver: pointer arguments must be the kernel's device memory", "[fake][safety]") {
  reset();
  fake().deviceCount = 2;
  tile::Context c1(1);
  tile::DeviceBuffer<int32_t> foreign(c1, 16);
  tile::Context ctx(0);
  tile::Kernel k = loadFill(ctx);
  tile::LaunchConfig cfg = block(1024);
  const std::string label = "kernel 'fill': argument 0 ('out', ptr<i32, global>) ";
  CHECK(errorText([&] { k.launch(cfg, CUdeviceptr(0), int32_t(1)); }) ==
        label + "is a null pointer");
  tile::DeviceBuffer<int32_t> buf(16);
  tile::DeviceBuffer<int32_t> taken(std::move(buf));
  CHECK(errorText([&] { k.launch(cfg, buf, int32_t(1)); }) ==
        label + "is a null pointer (an empty DeviceBuffer: moved from, or of 0 elements)");
  std::vector<int32_t> host(16);
  CHECK_THAT(errorText([&] { k.launch(cfg, CUdeviceptr(host.data()), int32_t(1)); }),
             Catch::Matches("kernel 'fill': argument 0 \\('out', ptr<i32, global>\\) is 0x[0-9a-f]+, "
                            "an address the driver knows no allocation at \\(a host pointer, or "
                            "device memory already freed\\): pass device memory, e.g. a live "
                            "DeviceBuffer"));
  CUdeviceptr freed = 0;
  {
    tile::DeviceBuffer<int32_t> tmp(16);
    freed = tmp.ptr();
  }
  CHECK_THAT(errorText([&] { k.launch(cfg, freed, int32_t(1)); }),
             Catch::Contains("an address the driver knows no allocation at"));
  CHECK_THAT(errorText([&] { k.launch(cfg, foreign, int32_t(1)); }),
             Catch::Matches("kernel 'fill': argument 0 \\('out', ptr<i32, global>\\) is 0x[0-9a-f]+, "
                            "memory of device 1's primary context \\(.*\\), but the kernel runs in "
                            "device 0's primary context \\(.*\\), which has no peer access to it: "
                            "allocate it in the kernel's context \\(DeviceBuffer<T>\\(ctx, n\\)\\) "
                            "or copy it there"));
  CHECK(fake().launches.empty());
  // An address inside a live allocation passes (an offset pointer).
  k.launch(cfg, taken.ptr() + 8, int32_t(1));
  CHECK(fake().launches.size() == 1);
  // The opt-out skips the driver query; a null pointer is still refused.
  const int queries = fake().pointerQueries;
  cfg.checkPointers = false;
  k.launch(cfg, CUdeviceptr(host.data()), int32_t(1));
  CHECK(fake().pointerQueries == queries);
  CHECK(errorText([&] { k.launch(cfg, CUdeviceptr(0), int32_t(1)); }) == label + "is a null pointer");
  CHECK(fake().launches.size() == 2);
}

TEST_CASE("fake driver: a pointer argument must have the alignment the kernel's accesses need",
          "[fake][safety]") {
  reset();
  tile::Context ctx;
  tile::KernelInfo info = fillInfo();
  info.params[0].addressAlign = 16; // e.g. store(out[i * 4], v) with v a vec<i32, 4>
  tile::Kernel k = tile::Module::fromPtx(ctx, kFillPtx, moduleInfo(info), noCache()).kernel("fill");
  tile::LaunchConfig cfg = block(1024);
  tile::DeviceBuffer<int32_t> buf(64);
  // An element-aligned slice that the vector accesses would trap on.
  CHECK_THAT(
      errorText([&] { k.launch(cfg, buf.ptr() + 4, int32_t(1)); }),
      Catch::Matches("kernel 'fill': argument 0 \\('out', ptr<i32, global>\\) is 0x[0-9a-f]+, "
                     "not a multiple of 16 bytes: the kernel's loads and stores through it "
                     "need that alignment .* pass an aligned address \\(a slice of an array "
                     "starting at an element index that is a multiple of 4\\)"));
  // The check costs no driver query: it stays with the queries off.
  cfg.checkPointers = false;
  CHECK_THAT(errorText([&] { k.launch(cfg, buf.ptr() + 8, int32_t(1)); }),
             Catch::Contains("not a multiple of 16 bytes"));
  CHECK(fake().launches.empty());
  k.launch(cfg, buf.ptr() + 16, int32_t(1));
  CHECK(fake().launches.size() == 1);
}

TEST_CASE("fake driver: a tensor must lie inside its allocation", "[fake][safety]") {
  reset();
  tile::Context ctx;
  tile::Kernel k =
      tile::Module::fromPtx(ctx, kTensorPtx, moduleInfo(tensorKernelInfo()), noCache()).kernel("k");
  tile::LaunchConfig cfg = block(128);
  tile::DeviceBuffer<uint16_t> a(256 * 64), b(64 * 64);
  tile::Tensor B(b, tile::TensorElement::BF16, {64, 64});
  // Over a raw address: 512 x 64 bf16 is 65536 bytes, the allocation 32768.
  tile::Tensor tooBig(a.ptr(), tile::TensorElement::BF16, {512, 64});
  CHECK_THAT(errorText([&] { k.launch(cfg, tooBig, 1.0f, B); }),
             Catch::Matches("kernel 'k': tensor argument 0 \\('A', tensor<bf16>\\[M, K\\]\\) is "
                            "tensor<bf16>\\[512, 64\\] at 0x[0-9a-f]+, which spans 65536 bytes "
                            "from 0x[0-9a-f]+, but the allocation there is 32768 bytes from "
                            "0x[0-9a-f]+ \\(32768 bytes left from the tensor's address\\): the "
                            "tensor would read past its allocation"));
  tile::Tensor host(CUdeviceptr(&cfg), tile::TensorElement::BF16, {64, 64});
  CHECK_THAT(errorText([&] { k.launch(cfg, host, 1.0f, B); }),
             Catch::Contains("an address the driver knows no allocation at"));
  CHECK(fake().launches.empty());
  tile::Tensor fits(a.ptr() + 2 * 64 * 128, tile::TensorElement::BF16, {128, 64});
  k.launch(cfg, fits, 1.0f, B);
  CHECK(fake().launches.size() == 1);
}

//===----------------------------------------------------------------------===//
// PTX and kernel info bound together
//===----------------------------------------------------------------------===//

TEST_CASE("fake driver: kernel info that disagrees with the PTX is refused at load",
          "[fake][safety]") {
  reset();
  tile::Context ctx;
  auto load = [&](const tile::KernelInfo &k, const std::string &ptx = kFillPtx) {
    return errorText([&] { tile::Module::fromPtx(ctx, ptx, moduleInfo(k), noCache()); });
  };
  const std::string tail =
      ": the kernel info does not belong to this PTX (write both with the same tilec build and "
      "options)";
  tile::KernelInfo threads = fillInfo();
  threads.threads = std::array<unsigned, 3>{256, 1, 1};
  CHECK(load(threads) == "kernel 'fill': the kernel info's threads are (256, 1, 1) but the PTX's "
                         ".reqntid is (1024, 1, 1)" +
                             tail);
  tile::KernelInfo none = fillInfo();
  none.threads.reset();
  CHECK(load(none) == "kernel 'fill': the kernel info's threads are not fixed but the PTX's "
                      ".reqntid is (1024, 1, 1)" +
                          tail);
  tile::KernelInfo maxThreads = fillInfo();
  maxThreads.maxThreads = 512;
  CHECK(load(maxThreads) == "kernel 'fill': the kernel info's max_threads is 512 but the PTX's "
                            ".maxntid is absent" +
                                tail);
  tile::KernelInfo cluster = fillInfo();
  cluster.cluster = tile::KernelInfo::Cluster::Fixed;
  cluster.clusterDims = {2, 1, 1};
  CHECK(load(cluster) ==
        "kernel 'fill': the kernel info's cluster is fixed (2, 1, 1) but the PTX's is none" + tail);
  tile::KernelInfo wide = fillInfo();
  wide.params[1].size = wide.params[1].align = 8;
  wide.params[1].scalar = tile::ScalarType::I64;
  CHECK(load(wide) == "kernel 'fill': parameter 1 ('n') is 8 bytes at alignment 8 in the kernel "
                      "info but 4 bytes at alignment 4 in the PTX ('fill_param_1')" +
                          tail);
  tile::KernelInfo renamed = fillInfo();
  renamed.name = "fill2";
  CHECK(load(renamed) ==
        "kernel 'fill2': the kernel info lists it but the PTX has no .entry of this name" + tail);
  // The fingerprint: what the PTX does not show (here one comment differs).
  tile::ModuleInfo stamped = moduleInfo(fillInfo());
  stamped.ptxHash = tile::ptxFingerprint(kFillPtx + "// other build\n");
  CHECK(errorText([&] { tile::Module::fromPtx(ctx, kFillPtx, stamped, noCache()); }) ==
        "the kernel info was written for PTX with fingerprint " + stamped.ptxHash +
            " but this PTX's fingerprint is " + tile::ptxFingerprint(kFillPtx) + tail);
  stamped.ptxHash = tile::ptxFingerprint(kFillPtx);
  CHECK(tile::Module::fromPtx(ctx, kFillPtx, stamped, noCache()).info()->ptxHash ==
        stamped.ptxHash);
  CHECK(fake().moduleLoads == 1); // every refusal came before the JIT
}

TEST_CASE("kernel info: the PTX fingerprint round-trips through JSON", "[fake][safety]") {
  tile::ModuleInfo m = moduleInfo(fillInfo());
  m.ptxHash = tile::ptxFingerprint(kFillPtx);
  CHECK(m.ptxHash.size() == 16);
  const std::string json = tile::toJson(m);
  CHECK_THAT(json, Catch::Contains("\"ptxHash\": \"" + m.ptxHash + "\""));
  CHECK(tile::moduleInfoFromJson(json).ptxHash == m.ptxHash);
  std::string bad = json;
  bad.replace(bad.find(m.ptxHash), 16, "XYZ");
  CHECK_THROWS_WITH(tile::moduleInfoFromJson(bad),
                    "kernel info: ptxHash: 'XYZ' is not 16 lowercase hex digits");
  tile::ModuleInfo none = moduleInfo(fillInfo());
  CHECK_THAT(tile::toJson(none), !Catch::Contains("ptxHash"));
}

//===----------------------------------------------------------------------===//
// Launching without kernel info
//===----------------------------------------------------------------------===//

TEST_CASE("fake driver: launching without kernel info needs the explicit opt-in",
          "[fake][safety]") {
  reset();
  tile::Context ctx;
  tile::DeviceBuffer<int32_t> out(16);
  tile::Kernel k = tile::Module::fromPtx(ctx, kFillPtx, noCache()).kernel("fill");
  const std::string refused = errorText([&] { k.launch(block(1024), out, 1.5f); });
  CHECK_THAT(refused, Catch::StartsWith("kernel 'fill': the kernel has no kernel info, so its "
                                        "launches cannot be checked:\n  - argument kinds"));
  CHECK_THAT(refused, Catch::EndsWith("or, to launch without these checks, load it with "
                                      "ModuleOptions::withoutKernelInfo = true"));
  CHECK(fake().launches.empty());
  tile::ModuleOptions optIn = noCache();
  optIn.withoutKernelInfo = true;
  optIn.reportSkippedChecks = false;
  tile::Kernel unchecked = tile::Module::fromPtx(ctx, kFillPtx, optIn).kernel("fill");
  const std::vector<std::string> skipped = unchecked.skippedChecks();
  REQUIRE(skipped.size() == 3); // a PTX module: its .reqntid is still checked
  CHECK_THAT(skipped[0], Catch::StartsWith("argument kinds"));
  CHECK(k.skippedChecks().size() == 3);
  CHECK(loadFill(ctx).skippedChecks().empty());
  unchecked.launch(block(1024), out, 1.5f); // the float for an i32: not caught, as said
  CHECK(fake().launches.size() == 1);
  // A driver error of such a launch says what was not checked.
  fake().launchResult = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  CHECK_THAT(errorText([&] { unchecked.launch(block(1024), out, int32_t(1)); }),
             Catch::Contains("[kernel 'fill']: the kernel has no kernel info "
                             "(ModuleOptions::withoutKernelInfo), so these checks were skipped:"));
  // Without info the block shape still comes from the PTX's .reqntid.
  fake().launchResult = CUDA_SUCCESS;
  CHECK(errorText([&] { unchecked.launch(block(256), out, int32_t(1)); }) ==
        "kernel 'fill': block (256, 1, 1) differs from the block shape (1024, 1, 1) the kernel was "
        "compiled for (threads(...), PTX .reqntid); launch with that block, or declare "
        "max_threads(N) instead for a kernel launched with varying blocks");
}

//===----------------------------------------------------------------------===//
// Driver errors explained
//===----------------------------------------------------------------------===//

TEST_CASE("fake driver: a threads(1024) kernel launched with 256 threads names both",
          "[fake][safety]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = loadFill(ctx);
  tile::DeviceBuffer<int32_t> out(16);
  CHECK_THAT(errorText([&] { k.launch(block(256), out, int32_t(16)); }),
             Catch::StartsWith("kernel 'fill': block (256, 1, 1) differs from the block shape "
                               "(1024, 1, 1) the kernel was compiled for"));
  CHECK(fake().launches.empty());
}

TEST_CASE("fake driver: the calling thread's context is checked before launching",
          "[fake][safety]") {
  reset();
  fake().deviceCount = 2;
  tile::Context c0(0);
  tile::Kernel k = loadFill(c0);
  tile::DeviceBuffer<int32_t> out(c0, 16);
  tile::Context c1(1); // now current
  CHECK_THAT(errorText([&] { k.launch(block(1024), out, int32_t(16)); }),
             Catch::Matches("kernel 'fill': the kernel is loaded in device 0's primary context "
                            "\\(.*\\) but the calling thread has device 1's primary context "
                            "\\(.*\\) current: call makeCurrent\\(\\) on device 0's Context on "
                            "this thread first"));
  fake().noCurrentContext = true;
  CHECK_THAT(errorText([&] { k.launch(block(1024), out, int32_t(16)); }),
             Catch::Contains("but the calling thread has no current context (a thread that never "
                             "made a tile::Context current)"));
  fake().noCurrentContext = false;
  c0.makeCurrent();
  k.launch(block(1024), out, int32_t(16));
  CHECK(fake().launches.size() == 1);
}

TEST_CASE("fake driver: truncated PTX and PTX for another target are explained at load",
          "[fake][safety]") {
  reset();
  tile::Context ctx;
  const std::string cut = kFillPtx.substr(0, kFillPtx.size() - 4); // "{ re"
  CHECK(errorText([&] { tile::Module::fromPtx(ctx, cut, noCache()); }) ==
        "Module::fromPtx: the PTX is truncated: it ends at line 9, column 6, inside the body of "
        "entry 'fill' opened at line 9, column 1 (1 brace(s) left open) (" +
            std::to_string(cut.size()) + " bytes); rewrite it (tilec -o) and load the whole file");
  const std::string inParams = kFillPtx.substr(0, kFillPtx.find("fill_param_1"));
  CHECK_THAT(errorText([&] { tile::Module::fromPtx(ctx, inParams, noCache()); }),
             Catch::Contains("inside the parameter list of entry 'fill' opened at line 4"));
  std::string newer = kFillPtx;
  newer.replace(newer.find("sm_90a"), 6, "sm_100a");
  CHECK_THAT(errorText([&] { tile::Module::fromPtx(ctx, newer, noCache()); }),
             Catch::StartsWith("Module::fromPtx: the PTX targets sm_100a (compute capability "
                               "10.0) but the device is sm_90 (compute capability 9.0)"));
  CHECK(fake().moduleLoads == 0);
  // A PTX ISA version newer than the driver's: the JIT's error, explained.
  std::string future = kFillPtx;
  future.replace(future.find("8.6"), 3, "9.9");
  CHECK_THAT(errorText([&] { tile::Module::fromPtx(ctx, future, noCache()); }),
             Catch::Contains("the PTX is .version 9.9 but this driver (13000, CUDA 13.0) "
                             "JIT-compiles PTX ISA up to 9.0"));
}

#ifdef TILEC_SAMPLE_PTX_DIR
// The compiler/runtime contract: tilec's PTX and kernel info, written by the
// samples' build rules with the same options, bind (every fact and the
// fingerprint agree), and every kernel the info lists loads.
TEST_CASE("fake driver: every sample's kernel info belongs to its PTX", "[fake][safety]") {
  reset();
  tile::Context ctx;
  namespace fs = std::filesystem;
  int checked = 0;
  if (!fs::is_directory(TILEC_SAMPLE_PTX_DIR))
    return;
  for (const auto &entry : fs::directory_iterator(TILEC_SAMPLE_PTX_DIR)) {
    const fs::path ptx = entry.path();
    fs::path info = ptx;
    info.replace_extension(".info.json");
    if (ptx.extension() != ".ptx" || !fs::exists(info))
      continue;
    INFO(ptx.string());
    tile::Module m = tile::Module::fromFiles(ctx, ptx.string());
    REQUIRE(m.info() != nullptr);
    CHECK(m.info()->ptxHash.size() == 16);
    for (const tile::KernelInfo &k : m.info()->kernels)
      CHECK(m.kernel(k.name).info() != nullptr);
    ++checked;
  }
  WARN(checked << " sample PTX files bound to their kernel info");
}
#endif
