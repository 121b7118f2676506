// What Sema decides for tensor parameters and TMA tiles (SemaTma.cpp): the
// hidden extent parameters, each tile's swizzle / panels / alignment, the
// box and swizzle every tensor map is encoded with, and the static layout.
#include <catch2/catch.hpp>

#include "TestUtil.h"

using namespace tile::frontend;

TEST_CASE("tensor extents become hidden i32 parameters, one per name", "[tma]") {
  auto c = compile("kernel k(A: tensor<f32>[M, 64], B: tensor<f32>[64, M, K], p: ptr<i32, global>) "
                   "{ p[0] = M + K }");
  REQUIRE(c->ok);
  const KernelAST &k = *c->module->kernels[0];
  REQUIRE(k.hiddenParams.size() == 2);
  CHECK(k.hiddenParams[0]->name == "M");
  CHECK(k.hiddenParams[0]->paramIndex == 3);
  CHECK(k.hiddenParams[1]->name == "K");
  CHECK(k.hiddenParams[1]->paramIndex == 4);
  CHECK(k.hiddenSources[0] == std::pair<int, unsigned>{0, 0});
  CHECK(k.hiddenSources[1] == std::pair<int, unsigned>{1, 2});
  REQUIRE(k.tensorParams.size() == 2);
  CHECK(k.tensorParams[1].extents[1].hidden == k.hiddenParams[0].get());
  CHECK(k.tensorParams[0].extents[1].literal == 64);
  CHECK(k.tensorParams[0].box.empty()); // never copied
}

TEST_CASE("TMA tiles get their swizzle, panels, alignment and the map's box", "[tma]") {
  auto c = compile("kernel k(A: tensor<bf16>[M, N], B: tensor<f32>[M, N], C: tensor<i8>[M, N]) "
                   "cluster(2, 1) {\n"
                   "  let pad = shared<i32>[3]\n"
                   "  let a = shared<bf16>[64, 256]\n"
                   "  let b = shared<f32>[8, 16]\n"
                   "  let c = shared<i8>[16, 48]\n"
                   "  let plain = shared<f32>[32, 33]\n"
                   "  let bar = mbarrier(1)\n"
                   "  if thread_id() == 0 {\n"
                   "    copy_async(a, A[0, 0], bar, multicast = x)\n"
                   "    copy_async(b, B[0, 0], bar)\n"
                   "    copy_async(C[0, 0], c)\n"
                   "  }\n"
                   "}\n");
  REQUIRE(c->ok);
  const KernelAST &k = *c->module->kernels[0];
  const SharedArrayStmt &a = *k.sharedArrays[1], &b = *k.sharedArrays[2];
  const SharedArrayStmt &cc = *k.sharedArrays[3], &plain = *k.sharedArrays[4];
  CHECK(a.isTmaTile);
  CHECK(a.swizzleBytes == 128);
  CHECK(a.panelElems == 64); // 512-byte rows: four 128-byte panels
  CHECK(a.alignBytes == 1024);
  CHECK(b.swizzleBytes == 64);
  CHECK(cc.swizzleBytes == 0); // 48 bytes: no swizzle mode
  CHECK(cc.alignBytes == 128);
  CHECK(!plain.isTmaTile);
  CHECK(plain.dims == std::vector<int64_t>{32, 33});
  CHECK(*plain.constantCount == 32 * 33);
  // box: a 32-row slice (multicast over 2) of one 64-element panel
  CHECK(k.tensorParams[0].box == std::vector<int64_t>{32, 64});
  CHECK(k.tensorParams[0].swizzleBytes == 128);
  CHECK(k.tensorParams[1].box == std::vector<int64_t>{8, 16});
  CHECK(k.tensorParams[2].box == std::vector<int64_t>{16, 48});
  CHECK(k.usesTmaStore);
  // static layout: pad (12 B) at 0, a at 1024 (32 KB), b at 33792 (512 B),
  // c at 34304 (768 B), plain at 35072 (4224 B), bar at 39296 (8 B)
  CHECK(k.staticSharedBytes == 39304);
}
