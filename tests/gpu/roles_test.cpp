// GPU test of warp roles (tests/gpu/roles.tile): a 3-warpgroup kernel with
// registers 40/232/232. Checks, per thread of every CTA, the role ids
// (warpgroup_rank, role_thread_id, role_threads), the value read across
// warps behind the role's named barrier (sync_threads() in a role), and that
// elect_one() chose exactly one lane of every warp, and that block_range in
// a role covers its range with the role's threads. Loading the module also
// checks the JIT log: a dropped setmaxnreg would be an error (Module.cpp).
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/roles.ptx";
}

constexpr int kThreads = 384, kWarps = kThreads / 32, kFields = 5;

} // namespace

TEST_CASE("warp roles: role ids, role barriers and elect_one on 40/232/232", "[roles]") {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFiles(ctx, ptxPath());
  INFO("JIT info log:\n" << m.jitInfoLog());
  CHECK(m.jitInfoLog().find("setmaxnreg") == std::string::npos);
  tile::Kernel k = m.kernel("roles");
  const int blocks = 8;
  tile::DeviceBuffer<int32_t> out(size_t(blocks) * kThreads * kFields);
  tile::DeviceBuffer<int32_t> elected(size_t(blocks) * kWarps * 2), spin(1);
  tile::DeviceBuffer<int32_t> cover(size_t(blocks) * 1000);
  cover.fillBytes(0);
  out.fillBytes(0xff);
  elected.fillBytes(0);
  spin.fillBytes(0);
  tile::LaunchConfig c;
  c.grid = tile::Dim3(blocks);
  c.block = tile::Dim3(kThreads);
  k.launch(c, out.ptr(), elected.ptr(), spin.ptr(), cover.ptr());
  ctx.synchronize();

  std::vector<int32_t> o = out.toHost(), e = elected.toHost(), cov = cover.toHost();
  // block_range in the consumer role: every element once, by the role's threads.
  int uncovered = 0;
  for (size_t i = 0; i < cov.size(); ++i)
    if (cov[i] != 1 && uncovered++ < 10)
      FAIL_CHECK("cover[" << i << "] = " << cov[i] << ", want 1");
  CHECK(uncovered == 0);
  int bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int tid = 0; tid < kThreads; ++tid) {
      const int32_t *f = &o[(size_t(b) * kThreads + tid) * kFields];
      bool producer = tid < 128;
      int t = producer ? tid : tid - 128;
      int rank = producer ? 0 : t / 128;
      int want[kFields] = {(producer ? 0 : 100) + rank, t, producer ? 128 : 256,
                           producer ? (127 - t) * 3 + 1 : (255 - t) * 7 + 2, b};
      for (int i = 0; i < kFields; ++i)
        if (f[i] != want[i] && bad++ < 10)
          FAIL_CHECK("block " << b << " thread " << tid << " field " << i << ": got " << f[i]
                              << ", want " << want[i]);
    }
  CHECK(bad == 0);
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; ++w) {
      INFO("block " << b << " warp " << w);
      CHECK(e[(size_t(b) * kWarps + w) * 2] == 1); // exactly one lane elected
      int lane = e[(size_t(b) * kWarps + w) * 2 + 1];
      CHECK((lane >= 0 && lane < 32));
    }
}
