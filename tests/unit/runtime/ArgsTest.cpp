#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "tile/runtime.h"

namespace {
struct Params {
  int a;
  float b;
  double c;
};
struct alignas(64) Aligned {
  char bytes[128];
};
template <class T> T read(void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
} // namespace

TEST_CASE("ArgPack packs scalars by value with their sizes", "[args]") {
  int i = 42;
  float f = 1.5f;
  double d = -2.25;
  long long ll = 1ll << 40;
  unsigned char u8 = 200;
  tile::ArgPack<int, float, double, long long, unsigned char> p(i, f, d, ll, u8);
  REQUIRE(p.size() == 5);
  auto sizes = p.sizes();
  CHECK(sizes[0] == 4);
  CHECK(sizes[1] == 4);
  CHECK(sizes[2] == 8);
  CHECK(sizes[3] == 8);
  CHECK(sizes[4] == 1);
  void **args = p.data();
  CHECK(read<int>(args[0]) == 42);
  CHECK(read<float>(args[1]) == 1.5f);
  CHECK(read<double>(args[2]) == -2.25);
  CHECK(read<long long>(args[3]) == (1ll << 40));
  CHECK(read<unsigned char>(args[4]) == 200);
  CHECK(args[5] == nullptr); // null-terminated
}

TEST_CASE("ArgPack copies arguments: later changes to the originals do not leak in", "[args]") {
  int i = 1;
  tile::ArgPack<int> p(i);
  i = 99;
  CHECK(read<int>(p.data()[0]) == 1);
  CHECK(p.get<0>() == 1);
}

TEST_CASE("ArgPack pointers point into the pack's own storage and stay put", "[args]") {
  tile::ArgPack<int, double, Params> p(7, 3.0, Params{1, 2.f, 3.0});
  void **args = p.data();
  CHECK(args[0] == static_cast<const void *>(&p.get<0>()));
  CHECK(args[1] == static_cast<const void *>(&p.get<1>()));
  CHECK(args[2] == static_cast<const void *>(&p.get<2>()));
  // Every pointer lies inside the pack object (no temporaries).
  auto lo = reinterpret_cast<const char *>(&p);
  auto hi = lo + sizeof(p);
  for (int k = 0; k < 3; ++k) {
    auto a = static_cast<const char *>(args[k]);
    CHECK((a >= lo && a < hi));
  }
  // data() is stable across calls.
  CHECK(p.data() == args);
  CHECK(p.data()[1] == args[1]);
  Params q = read<Params>(args[2]);
  CHECK(q.a == 1);
  CHECK(q.b == 2.f);
  CHECK(q.c == 3.0);
}

TEST_CASE("ArgPack: CUdeviceptr and raw pointers go by value; alignment is kept", "[args]") {
  CUdeviceptr dp = 0xdeadbeef000ull;
  float host = 0;
  float *hp = &host;
  Aligned big{};
  big.bytes[0] = 5;
  big.bytes[127] = 9;
  tile::ArgPack<CUdeviceptr, float *, Aligned> p(dp, hp, big);
  CHECK(p.sizes()[0] == sizeof(CUdeviceptr));
  CHECK(p.sizes()[1] == sizeof(void *));
  CHECK(p.sizes()[2] == 128);
  CHECK(read<CUdeviceptr>(p.data()[0]) == 0xdeadbeef000ull);
  CHECK(read<float *>(p.data()[1]) == hp);
  CHECK(reinterpret_cast<uintptr_t>(p.data()[2]) % 64 == 0);
  Aligned got = read<Aligned>(p.data()[2]);
  CHECK(got.bytes[0] == 5);
  CHECK(got.bytes[127] == 9);
}

TEST_CASE("ArgPack: an empty DeviceBuffer is passed as its CUdeviceptr", "[args]") {
  // A zero-element buffer allocates nothing, so this needs no driver.
  tile::DeviceBuffer<float> empty(0);
  CHECK(empty.ptr() == 0);
  CHECK(empty.size() == 0);
  tile::ArgPack<tile::DeviceBuffer<float>, int> p(empty, 3);
  CHECK(p.sizes()[0] == sizeof(CUdeviceptr));
  CHECK(read<CUdeviceptr>(p.data()[0]) == empty.ptr());
  CHECK(read<int>(p.data()[1]) == 3);
}

TEST_CASE("ArgPack with no arguments", "[args]") {
  tile::ArgPack<> p;
  CHECK(p.size() == 0);
  CHECK(p.data() != nullptr);
  CHECK(p.data()[0] == nullptr);
}

TEST_CASE("DeviceBuffer bounds are checked before any driver call", "[args]") {
  tile::DeviceBuffer<int> empty(0);
  int x = 0;
  CHECK_THROWS_AS(empty.copyFrom(&x, 1), tile::Error);
  CHECK_THROWS_WITH(empty.copyTo(&x, 2),
                    Catch::Contains("2 elements requested but the buffer holds 0"));
  CHECK(empty.toHost().empty());
  empty.copyFrom(std::vector<int>{}); // nothing to copy: no driver call
  tile::DeviceBuffer<int> moved(std::move(empty));
  CHECK(moved.size() == 0);
}

TEST_CASE("Module and Kernel are default-constructible placeholders", "[args]") {
  tile::Module m;
  tile::Kernel k;
  CHECK_FALSE(m.valid());
  CHECK_FALSE(k.valid());
}

TEST_CASE("an empty Kernel or Module throws instead of crashing", "[args]") {
  tile::Kernel k;
  tile::LaunchConfig cfg;
  CHECK_THROWS_WITH(
      k.launch(cfg, 1, 2.0),
      "Kernel::launch: this tile::Kernel is empty (default-constructed); assign it from "
      "Module::kernel(name) first");
  CHECK_THROWS_AS(k.launchUnchecked(cfg, nullptr), tile::Error);
  CHECK_THROWS_WITH(k.name(), Catch::StartsWith("Kernel::name: this tile::Kernel is empty"));
  CHECK_THROWS_AS(k.maxActiveClusters(cfg), tile::Error);
  CHECK_THROWS_AS(k.limits(), tile::Error);
  CHECK_THROWS_AS(k.params(), tile::Error);
  tile::Module m;
  try {
    m.kernel("vadd");
    FAIL("expected a throw");
  } catch (const tile::Error &e) {
    CHECK(e.call() == "Module::kernel");
    CHECK(e.code() == CUDA_ERROR_INVALID_HANDLE);
    CHECK_THAT(e.what(), Catch::Contains("this tile::Module is empty"));
  }
  CHECK_THROWS_AS(m.cubin(), tile::Error);
  CHECK_THROWS_AS(m.raw(), tile::Error);
}

TEST_CASE("DeviceBuffer: an element count whose byte size overflows is rejected", "[args]") {
  // (SIZE_MAX / 8 + 2) * 8 wraps around to 8 bytes.
  CHECK_THROWS_WITH(tile::DeviceBuffer<double>(SIZE_MAX / 8 + 2),
                    "DeviceBuffer: 2305843009213693953 elements of 8 bytes overflow size_t");
  CHECK(tile::detail::allocationBytes(SIZE_MAX / 8, 8) == SIZE_MAX / 8 * 8);
}

TEST_CASE("ArgPack: unsigned host integers and doubles reach u32/u64/f64 parameters",
          "[args]") {
  using Pack = tile::ArgPack<uint32_t, uint64_t, double, tile::DeviceBuffer<uint32_t>,
                             tile::DeviceBuffer<double>>;
  constexpr auto d = Pack::descriptors();
  using K = tile::ArgDesc::Kind;
  CHECK((d[0].kind == K::Integer && d[0].size == 4));
  CHECK((d[1].kind == K::Integer && d[1].size == 8));
  CHECK((d[2].kind == K::Float && d[2].size == 8));
  CHECK((d[3].kind == K::DeviceBuffer && d[3].elementKind == K::Integer && d[3].elementSize == 4));
  CHECK((d[4].kind == K::DeviceBuffer && d[4].elementKind == K::Float && d[4].elementSize == 8));
  // What the launch check makes of them against u32, u64, f64, ptr<u32>, ptr<f64>.
  tile::KernelInfo k;
  k.name = "k";
  auto param = [](const char *name, tile::ScalarType t, bool pointer) {
    tile::KernelParamInfo p;
    p.name = name;
    p.scalar = t;
    p.isPointer = pointer;
    p.size = pointer ? 8 : tile::scalarBytes(t);
    p.align = p.size;
    return p;
  };
  k.params = {param("a", tile::ScalarType::U32, false), param("b", tile::ScalarType::U64, false),
              param("c", tile::ScalarType::F64, false), param("p", tile::ScalarType::U32, true),
              param("q", tile::ScalarType::F64, true)};
  CHECK(tile::checkArgumentKinds(k, d.data(), 5).empty());
  // A signed int passes for u32 too (the bits pass as they are); a float does not pass for f64.
  constexpr auto s = tile::ArgPack<int32_t, int64_t, float, tile::DeviceBuffer<int32_t>,
                                   tile::DeviceBuffer<double>>::descriptors();
  CHECK_THAT(tile::checkArgumentKinds(k, s.data(), 5),
             Catch::Contains("argument 2 is a 4-byte float but parameter 2 ('c', f64)"));
}
