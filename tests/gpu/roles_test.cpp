// GPU test of warp roles (tests/gpu/roles.tile): a 3-warpgroup kernel with
// registers 40/232/232. Checks, per thread of every CTA, the role ids
// (warpgroup_rank, role_thread_id, role_threads), the value read across
// warps behind the role's named barrier (sync_threads() in a role), and that
// elect_one() chose exactly one lane of every warp, and that block_range in
// a role covers its range with the role's threads. Loading the module also
// checks the JIT log: a dropped setmaxnreg would be an error (Module.cpp).
// Four more kernels hand a shared tile from one role to another, through an
// mbarrier or through a flag released and acquired, and read it with the
// async proxy (a TMA store, a wgmma operand).
#include <catch2/catch.hpp>

#include <tile/runtime.h>

#include <cstdlib>
#include <random>
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

namespace {

/// Runs a handoff-to-TMA-store kernel (with storeFlags, one that takes a
/// zeroed flag per CTA) and a handoff-to-wgmma kernel of roles.ptx and
/// checks both results exactly.
void checkHandoffs(const char *storeKernel, bool storeFlags, const char *mmaKernel) {
  tile::Context ctx(0);
  tile::Module m = tile::Module::fromFiles(ctx, ptxPath());
  const int blocks = 16;
  tile::DeviceBuffer<int32_t> spin(1);
  spin.fillBytes(0);
  tile::LaunchConfig c;
  c.grid = tile::Dim3(blocks);
  c.block = tile::Dim3(256);

  tile::DeviceBuffer<float> d(size_t(blocks) * 4 * 32);
  d.fillBytes(0xff); // NaN: a row the store did not write fails
  tile::Tensor dt(d, {int64_t(blocks) * 4, 32});
  tile::DeviceBuffer<int32_t> flags(blocks);
  flags.fillBytes(0);
  if (storeFlags)
    m.kernel(storeKernel).launch(c, dt, spin.ptr(), flags.ptr());
  else
    m.kernel(storeKernel).launch(c, dt, spin.ptr());
  ctx.synchronize();
  std::vector<float> got = d.toHost();
  int bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int r = 0; r < 128; ++r)
      if (got[size_t(b) * 128 + r] != float(b * 1000 + r) && bad++ < 10)
        FAIL_CHECK(storeKernel << ": block " << b << " element " << r << ": got "
                               << got[size_t(b) * 128 + r] << ", want " << b * 1000 + r);
  CHECK(bad == 0);

  // Small integers: exact in bf16 and in the f32 sums of 64 products.
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<float> x(2 * 4096);
  for (float &v : x)
    v = float(small(rng));
  tile::DeviceBuffer<float> dx(x.size()), dc(4096);
  dx.copyFrom(x);
  dc.fillBytes(0xff);
  c.grid = tile::Dim3(1);
  m.kernel(mmaKernel).launch(c, dx.ptr(), dc.ptr(), spin.ptr());
  ctx.synchronize();
  std::vector<float> cc = dc.toHost();
  bad = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      float want = 0;
      for (int k = 0; k < 64; ++k)
        want += x[size_t(i * 64 + k)] * x[size_t(4096 + j * 64 + k)];
      if (cc[size_t(i * 64 + j)] != want && bad++ < 10)
        FAIL_CHECK(mmaKernel << ": C[" << i << ", " << j << "] = " << cc[size_t(i * 64 + j)]
                             << ", want " << want);
    }
  CHECK(bad == 0);
}

} // namespace

TEST_CASE("a tile handed between roles reaches a TMA store and a wgmma", "[roles]") {
  SECTION("through an mbarrier") { checkHandoffs("role_handoff_store", false, "role_handoff_mma"); }
  SECTION("through a release/acquire flag and a fenced counter") {
    checkHandoffs("role_flag_store", true, "role_flag_mma");
  }
}
