// GPU tests of TMA copies (tma.tile), byte-exact on fresh random data:
//  - roundtrip: TMA load of 32 x 32 i32 boxes into a 128B-swizzled tile,
//    generic reads/writes through the swizzle, TMA store back;
//  - multicast: cluster(2) CTAs each load half of a 64 x 256 i16 tile (four
//    128-byte panels) and multicast it; both must see every byte.
// The tensor maps are encoded here with cuTensorMapEncodeTiled (the
// driver's entry point through dlopen), with the box and swizzle tilec chose
// (asserted against the PTX); once the runtime's tile::Tensor lands (branch
// `tmart`), the same kernels run with it and no hand encoding.
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <cuda.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/tma_gpu.ptx";
}

uint64_t freshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

/// The 128-byte kernel argument (`.param .align 64 .b8 [128]`).
struct alignas(64) MapArg {
  CUtensorMap map;
};
static_assert(sizeof(MapArg) == 128);

using EncodeFn = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                              const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                              const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeFn encodeFn() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  auto fn = reinterpret_cast<EncodeFn>(dlsym(lib, "cuTensorMapEncodeTiled"));
  REQUIRE(fn != nullptr);
  return fn;
}

/// A row-major 2-D map: `rows` x `cols` elements of `bytes` each; box
/// `boxRows` x `boxCols` (innermost = cols), 128-byte swizzle.
MapArg encode2d(CUtensorMapDataType type, size_t bytes, CUdeviceptr base, uint64_t rows,
                uint64_t cols, uint32_t boxRows, uint32_t boxCols) {
  MapArg m;
  std::memset(&m, 0, sizeof m);
  cuuint64_t dims[2] = {cols, rows};
  cuuint64_t strides[1] = {cols * bytes};
  cuuint32_t box[2] = {boxCols, boxRows};
  cuuint32_t elemStrides[2] = {1, 1};
  CUresult r = encodeFn()(&m.map, type, 2, reinterpret_cast<void *>(base), dims, strides, box,
                          elemStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(r == CUDA_SUCCESS);
  return m;
}

} // namespace

TEST_CASE("TMA round trip through a 128B-swizzled tile is byte exact", "[tma]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel k = mod.kernel("roundtrip");
  const int32_t M = 96, N = 128; // 3 x 4 boxes of 32 x 32
  std::mt19937_64 rng(freshSeed());
  std::vector<int32_t> a(M * N);
  for (auto &v : a)
    v = static_cast<int32_t>(rng());
  tile::DeviceBuffer<int32_t> dA(a.size()), dC(a.size()), dOut((M / 32) * (N / 32) * 32);
  dA.copyFrom(a);
  dC.fillBytes(0xA5);
  dOut.fillBytes(0xA5);
  MapArg mA = encode2d(CU_TENSOR_MAP_DATA_TYPE_INT32, 4, dA.ptr(), M, N, 32, 32);
  MapArg mC = encode2d(CU_TENSOR_MAP_DATA_TYPE_INT32, 4, dC.ptr(), M, N, 32, 32);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(32);
  cfg.grid = tile::Dim3(N / 32, M / 32);
  k.launch(cfg, mA, mC, dOut.ptr(), M, N);
  ctx.synchronize();
  std::vector<int32_t> c = dC.toHost(), out = dOut.toHost();
  size_t bad = 0;
  for (int32_t r = 0; r < M; ++r)
    for (int32_t col = 0; col < N; ++col) {
      uint32_t want = static_cast<uint32_t>(a[r * N + col]) * 3u +
                      static_cast<uint32_t>((r % 32) * 32 + col % 32);
      bad += static_cast<uint32_t>(c[r * N + col]) != want;
    }
  CHECK(bad == 0);
  bad = 0;
  for (int32_t by = 0; by < M / 32; ++by)
    for (int32_t bx = 0; bx < N / 32; ++bx)
      for (int32_t j = 0; j < 32; ++j) {
        uint32_t s = 0;
        for (int32_t i = 0; i < 32; ++i)
          s += static_cast<uint32_t>(a[(by * 32 + i) * N + bx * 32 + j]);
        bad += static_cast<uint32_t>(out[((by * (N / 32) + bx) * 32) + j]) != s;
      }
  CHECK(bad == 0);
}

TEST_CASE("TMA multicast over a cluster of 2 delivers every byte to both CTAs", "[tma]") {
  tile::Context ctx(0);
  tile::Module mod = tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo());
  tile::Kernel k = mod.kernel("multicast");
  const int32_t R = 64 * 5, C = 256;
  std::mt19937_64 rng(freshSeed());
  std::vector<int16_t> b(R * C);
  for (auto &v : b)
    v = static_cast<int16_t>(rng());
  const size_t tiles = R / 64, perCta = 64 * 256;
  tile::DeviceBuffer<int16_t> dB(b.size()), dOut(tiles * 2 * perCta);
  dB.copyFrom(b);
  dOut.fillBytes(0xA5);
  // tilec's box: a 32-row slice (1/2 of 64) of one 64-element (128-byte) panel.
  MapArg mB = encode2d(CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, dB.ptr(), R, C, 32, 64);
  tile::LaunchConfig cfg;
  cfg.block = tile::Dim3(128);
  cfg.grid = tile::Dim3(2, static_cast<unsigned>(tiles));
  k.launch(cfg, mB, dOut.ptr(), R);
  ctx.synchronize();
  std::vector<int16_t> out = dOut.toHost();
  size_t bad = 0;
  for (size_t t = 0; t < tiles; ++t)
    for (size_t cta = 0; cta < 2; ++cta)
      for (size_t e = 0; e < perCta; ++e)
        bad += out[(t * 2 + cta) * perCta + e] != b[t * perCta + e];
  CHECK(bad == 0);
}
