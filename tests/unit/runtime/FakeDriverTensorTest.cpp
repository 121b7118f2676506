// tile::Tensor arguments and tile::TensorMap against the fake libcuda.so.1:
// the parameter buffer the driver builds (maps at 64-byte aligned offsets,
// hidden extents filled), what reaches cuTensorMapEncodeTiled (the driver's
// innermost-first order, byte strides), the encode cache, rules checked
// before the driver is called, and driver errors naming the call and kernel.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "FakeDriverSupport.h"
#include "TensorArgs.h" // runtime/src: the binder, for malformed infos a launch cannot reach
#include "TensorKernelInfo.h"
#include "tile/runtime.h"

namespace {

// k(A: tensor<bf16>[M, K], s: f32, B: tensor<bf16>[K, 64]) + hidden M, K.
const std::string kPtx = ".version 8.6\n.target sm_90a\n.address_size 64\n"
                         ".visible .entry k(\n"
                         "\t.param .align 64 .b8 k_param_0[128],\n"
                         "\t.param .f32 k_param_1,\n"
                         "\t.param .align 64 .b8 k_param_2[128],\n"
                         "\t.param .u32 k_param_3,\n"
                         "\t.param .u32 k_param_4\n"
                         ")\n{ ret; }\n";

tile::ModuleInfo moduleInfo(const tile::KernelInfo &k) {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(k);
  return m;
}

tile::Kernel load(tile::Context &ctx, const tile::KernelInfo &info = tensorKernelInfo()) {
  tile::ModuleOptions o;
  o.useCache = false;
  return tile::Module::fromPtx(ctx, kPtx, moduleInfo(info), o).kernel("k");
}

tile::LaunchConfig cfg() {
  tile::LaunchConfig c;
  c.grid = tile::Dim3(2);
  c.block = tile::Dim3(128);
  return c;
}

uint64_t qword(const std::vector<unsigned char> &buf, size_t offset) {
  uint64_t v;
  std::memcpy(&v, buf.data() + offset, 8);
  return v;
}
int32_t i32At(const std::vector<unsigned char> &buf, size_t offset) {
  int32_t v;
  std::memcpy(&v, buf.data() + offset, 4);
  return v;
}

} // namespace

TEST_CASE("fake driver: a tensor launch passes maps and hidden extents", "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  fake().recordParamBuffer = true;
  tile::Context ctx;
  tile::Kernel k = load(ctx);
  tile::DeviceBuffer<uint16_t> a(256 * 128), b(128 * 64);
  k.launch(cfg(), tile::Tensor(a, {256, 128}), 2.5f, tile::Tensor(b, {128, 64}));
  REQUIRE(fake().launches.size() == 1);
  const FakeLaunch &l = fake().launches[0];
  // The driver's layout: A at 0, s at 128, B at 192 (aligned 64), M at 320, K at 324.
  REQUIRE(l.paramOffsets == std::vector<size_t>{0, 128, 192, 320, 324});
  CHECK(l.paramOffsets[0] % 64 == 0);
  CHECK(l.paramOffsets[2] % 64 == 0);
  // A's map, as the fake encodes it: magic, address, dims innermost first.
  CHECK(qword(l.paramBuffer, 0) == kFakeTensorMapMagic);
  CHECK(qword(l.paramBuffer, 8) == a.ptr());
  CHECK(qword(l.paramBuffer, 16) == 128); // K, the innermost
  CHECK(qword(l.paramBuffer, 24) == 256); // M
  float s;
  std::memcpy(&s, l.paramBuffer.data() + 128, 4);
  CHECK(s == 2.5f);
  // B is never copied by the kernel (no box): zero bytes, no encode.
  for (size_t i = 192; i < 320; ++i)
    REQUIRE(l.paramBuffer[i] == 0);
  CHECK(i32At(l.paramBuffer, 320) == 256); // M
  CHECK(i32At(l.paramBuffer, 324) == 128); // K
  REQUIRE(fake().encodes.size() == 1);
  const FakeEncode &e = fake().encodes[0];
  CHECK(e.mapAligned);
  CHECK(e.dataType == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  CHECK(e.rank == 2);
  CHECK(e.address == a.ptr());
  CHECK(e.dims[0] == 128);
  CHECK(e.dims[1] == 256);
  CHECK(e.strides[0] == 128 * 2); // bytes
  CHECK(e.box[0] == 64);
  CHECK(e.box[1] == 64);
  CHECK(e.elementStrides[0] == 1);
  CHECK(e.elementStrides[1] == 1);
  CHECK(e.interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
  CHECK(e.swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
  CHECK(e.l2Promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  CHECK(e.oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

TEST_CASE("fake driver: strides, NaN fill and L2 promotion reach the encode", "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  tile::Context ctx;
  tile::KernelInfo info = tensorKernelInfo();
  info.params[0].tensor->l2Promotion = tile::TmaL2Promotion::B256;
  info.params[0].tensor->oobZeroFill = false;
  info.params[0].tensor->swizzle = tile::TmaSwizzle::B64;
  info.params[0].tensor->box = {16, 32};
  tile::Kernel k = load(ctx, info);
  tile::DeviceBuffer<uint16_t> a(256 * 200), b(128 * 64);
  // A 256 x 128 window of rows 200 elements (400 bytes) apart.
  k.launch(cfg(), tile::Tensor(a, tile::TensorElement::BF16, {256, 128}, {200, 1}), 1.0f,
           tile::Tensor(b, {128, 64}));
  REQUIRE(fake().encodes.size() == 1);
  const FakeEncode &e = fake().encodes[0];
  CHECK(e.strides[0] == 400);
  CHECK(e.box[0] == 32);
  CHECK(e.box[1] == 16);
  CHECK(e.swizzle == CU_TENSOR_MAP_SWIZZLE_64B);
  CHECK(e.l2Promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  CHECK(e.oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
}

TEST_CASE("fake driver: encodings are cached by everything that goes into them", "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  tile::Context ctx;
  tile::Kernel k = load(ctx);
  tile::DeviceBuffer<uint16_t> a(256 * 128), a2(256 * 128), b(128 * 64);
  const size_t before = tile::detail::tensorMapEncodeCount();
  for (int i = 0; i < 3; ++i)
    k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  CHECK(fake().encodes.size() == 1);
  CHECK(fake().launches.size() == 3);
  // Another address, another shape, another box: each a new encoding.
  k.launch(cfg(), tile::Tensor(a2, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  CHECK(fake().encodes.size() == 2);
  k.launch(cfg(), tile::Tensor(a, {128, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  CHECK(fake().encodes.size() == 3);
  tile::KernelInfo other = tensorKernelInfo();
  other.params[0].tensor->box = {32, 64};
  tile::Kernel k2 = load(ctx, other);
  k2.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  CHECK(fake().encodes.size() == 4);
  // And the first again: still cached.
  k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  CHECK(fake().encodes.size() == 4);
  CHECK(tile::detail::tensorMapEncodeCount() - before == 4);
}

TEST_CASE("fake driver: a broken map rule fails the launch before the driver encodes",
          "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  tile::Context ctx;
  tile::Kernel k = load(ctx);
  tile::DeviceBuffer<uint16_t> a(256 * 128 + 8), b(128 * 64);
  // 8 bytes in: not 16-byte aligned.
  tile::Tensor shifted(a.ptr() + 8, tile::TensorElement::BF16, {256, 128});
  CHECK(
      errorText([&] {
        k.launch(cfg(), shifted, 1.0f, tile::Tensor(b, {128, 64}));
      }) == "kernel 'k': tensor argument 0 ('A', tensor<bf16>[M, K]): tensor map <bf16>[256, 128] "
            "strides [128, 1] box [64, 64] swizzle 128B at " +
                [&] {
                  char buf[32];
                  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)(a.ptr() + 8));
                  return std::string(buf);
                }() +
                ": global address " +
                [&] {
                  char buf[32];
                  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)(a.ptr() + 8));
                  return std::string(buf);
                }() +
                " is not 16-byte aligned (TMA needs the tensor's start aligned to 16 bytes)");
  // Rows of 100 bf16 (200 bytes): strides not a multiple of 16.
  tile::DeviceBuffer<uint16_t> c(256 * 100);
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(c, {256, 100}), 1.0f, tile::Tensor(b, {100, 64}));
             }),
             Catch::Contains("stride 0 is 100 elements = 200 bytes, not a multiple of 16 bytes"));
  CHECK(fake().encodes.empty());
  CHECK(fake().launches.empty());
  // TensorMap::encode checks first too.
  tile::TensorMapDesc d;
  d.element = tile::TensorElement::F32;
  d.address = a.ptr();
  d.extents = {16, 16};
  d.box = {16, 300};
  CHECK_THROWS_WITH(tile::TensorMap::encode(d), Catch::Contains("box dimension 1 is 300 elements"));
  CHECK(fake().encodes.empty());
}

TEST_CASE("fake driver: a driver error from the encode names the call and the kernel",
          "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  tile::Context ctx;
  tile::Kernel k = load(ctx);
  tile::DeviceBuffer<uint16_t> a(256 * 128), b(128 * 64);
  fake().encodeResult = CUDA_ERROR_INVALID_VALUE;
  try {
    k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
    FAIL("no error");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "cuTensorMapEncodeTiled");
    CHECK(e.kernel() == "k");
    CHECK(e.code() == CUDA_ERROR_INVALID_VALUE);
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (1)"));
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("[kernel 'k']: tensor map <bf16>[256, 128] strides [128, 1] box "
                               "[64, 64] swizzle 128B"));
  }
  CHECK(fake().launches.empty());
  // A failed encode is not cached.
  fake().encodeResult = CUDA_SUCCESS;
  k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  CHECK(fake().encodes.size() == 2);
  CHECK(fake().launches.size() == 1);
  // The public encode: the same, without a kernel.
  fake().encodeResult = CUDA_ERROR_NOT_SUPPORTED;
  tile::TensorMapDesc d;
  d.element = tile::TensorElement::F32;
  d.address = a.ptr();
  d.extents = {16, 16};
  d.box = {16, 16};
  CHECK_THROWS_WITH(tile::TensorMap::encode(d),
                    Catch::StartsWith("cuTensorMapEncodeTiled failed: CUDA_ERROR_NOT_SUPPORTED"));
  fake().encodeResult = CUDA_SUCCESS;
  tile::TensorMap m = tile::TensorMap::encode(d);
  uint64_t magic;
  std::memcpy(&magic, m.data(), 8);
  CHECK(magic == kFakeTensorMapMagic);
  CHECK(reinterpret_cast<uintptr_t>(m.data()) % 64 == 0);
}

TEST_CASE("fake driver: tensor arguments are checked against their parameters", "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  tile::Context ctx;
  tile::Kernel k = load(ctx);
  tile::DeviceBuffer<uint16_t> a(256 * 128), b(128 * 64);
  tile::DeviceBuffer<float> f(256 * 128);
  // Element type.
  CHECK(errorText([&] {
          k.launch(cfg(), tile::Tensor(f, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
        }) == "kernel 'k': tensor argument 0 ('A', tensor<bf16>[M, K]) is given "
              "tensor<f32>[256, 128] at " +
                  [&] {
                    char buf[32];
                    std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)f.ptr());
                    return std::string(buf);
                  }() +
                  ": its elements are f32, not bf16");
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, tile::TensorElement::F16, {256, 128}), 1.0f,
                        tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("its elements are f16, not bf16"));
  // Rank.
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {2, 128, 128}), 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("is given tensor<u16>[2, 128, 128] at"));
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {2, 128, 128}), 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("of rank 3, but the parameter has rank 2"));
  // A literal extent.
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(a, {128, 128}));
             }),
             Catch::Contains("extent 1 is 128 but the kernel declares 64"));
  // A shared extent name: K is A's dimension 1 and B's dimension 0.
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {96, 64}));
             }),
             Catch::Contains("extent 'K' is 96 in tensor argument 2 ('B', tensor<bf16>[K, 64]) "
                             "(dimension 0) but 128 in tensor argument 0 ('A', tensor<bf16>[M, K]) "
                             "(dimension 1): tensors that share an extent name must agree on it"));
  // The tensor must lie inside its buffer.
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {512, 128}), 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("the tensor spans 131072 bytes but its DeviceBuffer holds 65536"));
  // An explicit element must have the buffer's element size (or the buffer holds bytes).
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(f, tile::TensorElement::BF16, {256, 128}), 1.0f,
                        tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("the element type bf16 is 2 bytes but the DeviceBuffer's elements "
                             "are 4 bytes"));
  // An empty extent is the map rule's to report (not a buffer-size overflow).
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {0, 128}), 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains(": extent 0 is 0 elements; a tensor map's extents are 1 to 2^32"));
  // An extent the kernel receives as i32.
  tile::Tensor huge(a.ptr(), tile::TensorElement::BF16, {int64_t(1) << 31, 128});
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), huge, 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("extent 0 ('M') is 2147483648, above 2^31 - 1"));
  // Kinds: a DeviceBuffer for a tensor, a tensor for a scalar.
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), a, 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("argument 0 is a DeviceBuffer of 2-byte integers but parameter 0"));
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {256, 128}), tile::Tensor(a, {256, 128}),
                        tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("a tile::Tensor goes to a tensor<T>[...] parameter only"));
  // The hidden parameters are the runtime's.
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}),
                        int32_t(256), int32_t(128));
             }),
             Catch::Contains("5 arguments given but the kernel takes 3 parameters"));
  CHECK(fake().launches.empty());
  CHECK(fake().encodes.empty());
}

TEST_CASE("fake driver: a tile::Tensor needs the kernel info", "[fake][tensor]") {
  reset();
  tile::Context ctx;
  tile::ModuleOptions o = tile::ModuleOptions::launchWithoutInfo();
  o.useCache = false;
  tile::Kernel k = tile::Module::fromPtx(ctx, kPtx, o).kernel("k");
  tile::DeviceBuffer<uint16_t> a(256 * 128);
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(a, {128, 64}),
                        int32_t(256), int32_t(128));
             }),
             Catch::Contains("argument 0 is a tile::Tensor but the kernel has no kernel info"));
  // A ready TensorMap travels by value, at the parameter's 64-byte offset.
  tile::detail::clearTensorMapCache();
  fake().recordParamBuffer = true;
  tile::TensorMapDesc d;
  d.element = tile::TensorElement::BF16;
  d.address = a.ptr();
  d.extents = {256, 128};
  d.box = {64, 64};
  d.swizzle = tile::TmaSwizzle::B128;
  tile::TensorMap m = tile::TensorMap::encode(d);
  k.launch(cfg(), m, 1.0f, m, int32_t(256), int32_t(128));
  REQUIRE(fake().launches.size() == 1);
  CHECK(std::memcmp(fake().launches[0].paramBuffer.data() + 192, m.data(), 128) == 0);
}

TEST_CASE("fake driver: dynamic shared memory sized by a hidden extent", "[fake][tensor]") {
  reset();
  tile::detail::clearTensorMapCache();
  tile::Context ctx;
  tile::KernelInfo info = tensorKernelInfo();
  tile::DynamicSharedArray rows;
  rows.name = "rows";
  rows.element = tile::ScalarType::F32;
  rows.count = tile::SizeExpr::paramRef(tile::ScalarType::I32, 3); // M
  info.dynamicShared.push_back(rows);
  tile::Kernel k = load(ctx, info);
  tile::DeviceBuffer<uint16_t> a(256 * 128), b(128 * 64);
  CHECK(k.dynamicSharedBytes(cfg(), tile::Tensor(a, {256, 128}), 1.0f,
                             tile::Tensor(b, {128, 64})) == 256 * 4);
  CHECK(fake().encodes.empty()); // sizing needs no map
  k.launch(cfg(), tile::Tensor(a, {200, 128}), 1.0f, tile::Tensor(b, {128, 64}));
  REQUIRE(fake().launches.size() == 1);
  CHECK(fake().launches[0].sharedBytes == 200 * 4);
}

TEST_CASE("fake driver: a tensor of lower rank than its hidden extents", "[fake][tensor]") {
  reset();
  tile::Context ctx;
  tile::Kernel k = load(ctx);
  tile::DeviceBuffer<uint16_t> a(256 * 128), b(128 * 64);
  // K is A's dimension 1: a rank-1 A has none (read before the rank check).
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), tile::Tensor(a, {256}), 1.0f, tile::Tensor(b, {128, 64}));
             }),
             Catch::Contains("is given tensor<u16>[256] at") &&
                 Catch::Contains("of rank 1, but the kernel's tensor has rank 2"));
}

TEST_CASE("fake driver: a malformed kernel info built in C++ is refused at launch",
          "[fake][tensor]") {
  reset();
  tile::Context ctx;
  tile::DeviceBuffer<uint16_t> a(256 * 128), b(128 * 64);
  auto error = [&](const tile::KernelInfo &info) {
    tile::Kernel k = load(ctx, info);
    return errorText([&] {
      k.launch(cfg(), tile::Tensor(a, {256, 128}), 1.0f, tile::Tensor(b, {128, 64}));
    });
  };
  tile::KernelInfo info = tensorKernelInfo();
  info.params[3].hidden->tensorParam = 1; // s is no tensor
  CHECK(error(info) == "kernel 'k': hidden parameter 3 ('M') names tensor parameter 1 dimension "
                       "0, which the kernel info does not have");
  info = tensorKernelInfo();
  info.params[0].tensor->extents[0].hiddenParam = 1; // s is no hidden extent
  CHECK(error(info) == "kernel 'k': tensor argument 0 ('A', tensor<bf16>[M, K]): extent 'M' has "
                       "no hidden parameter in the kernel info (the kernel info is malformed)");
  info = tensorKernelInfo();
  info.params[0].tensor->element = tile::ScalarType::I1;
  CHECK(error(info) ==
        "kernel 'k': tensor argument 0 ('A', tensor<i1>[M, K]): TMA cannot move elements of "
        "type i1");
  // A hidden parameter among the declared ones: M where s should be.
  info = tensorKernelInfo();
  info.params[1] = info.params[3];
  info.params[1].size = 4;
  info.params[3] = tensorKernelInfo().params[1];
  info.params[3].hidden = tile::HiddenExtentInfo{0, 0};
  {
    const tile::ArgDesc tensor{tile::ArgDesc::Kind::Tensor, 128, tile::ArgDesc::Kind::Other, 0};
    tile::ArgDesc descs[] = {tensor, tensor};
    tile::Tensor ta(a, {256, 128}), tb(b, {128, 64});
    void *args[] = {&ta, &tb};
    size_t sizes[] = {128, 128};
    tile::detail::BoundArguments bound;
    CHECK_THROWS_WITH(
        tile::detail::bindTensorArguments(info, args, sizes, descs, 2, true, bound),
        Catch::Contains("hidden parameter 1 ('M') is listed before a declared parameter"));
  }
  // A hidden extent whose tensor got no tile::Tensor (kinds unchecked: a raw map for A).
  {
    tile::ArgDesc descs[] = {{tile::ArgDesc::Kind::Other, 128, tile::ArgDesc::Kind::Other, 0},
                             {tile::ArgDesc::Kind::Float, 4, tile::ArgDesc::Kind::Other, 0},
                             {tile::ArgDesc::Kind::Tensor, 128, tile::ArgDesc::Kind::Other, 0}};
    tile::detail::BoundArguments bound;
    tile::Tensor tb(b, {128, 64});
    float s = 1;
    tile::TensorMap raw;
    void *args[] = {&raw, &s, &tb};
    size_t sizes[] = {128, 4, 128};
    CHECK_THROWS_WITH(
        tile::detail::bindTensorArguments(tensorKernelInfo(), args, sizes, descs, 3, true, bound),
        "kernel 'k': hidden parameter 'M' comes from parameter 0, which has no "
        "tile::Tensor argument");
  }
  CHECK(fake().launches.empty());
}
