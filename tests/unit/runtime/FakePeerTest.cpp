// Multi-GPU kernels against the fake driver (and the fake NCCL): binding
// `symmetric tensor` and `semaphore[S]` parameters and their hidden parameters
// (peer tables, per-peer tensor map arrays, semaphore epoch and count, rank
// and world), tile::Semaphores, the co-residency check of kernels that spin on
// peers and the uniform-launch check of the first launch, and every error
// naming the kernel, the argument and the rule.
#include <cstring>
#include <functional>

#include "DistributedState.h"
#include "FakeNcclSupport.h"
#include "TensorKernelInfo.h"
#include "tile/distributed.h"

namespace {

void resetAll(int devices = 2) {
  resetFakeDriverAndNccl(devices);
  tile::detail::clearTensorMapCache();
}

// kernel pk(A: symmetric tensor<i32>[N, 32], sem: semaphore[S], out: ptr<i32, global>)
// with hidden N, A$peers, A$peer_maps, sem$peers, sem$epoch, sem$count, $rank,
// $world; A copied in 32 x 32 boxes; spins on peers; exit semaphore `sem`.
const std::string kPtx = ".version 8.6\n.target sm_90a\n.address_size 64\n"
                         ".visible .entry pk(\n"
                         "\t.param .align 64 .b8 pk_param_0[128],\n"
                         "\t.param .u64 pk_param_1,\n"
                         "\t.param .u64 pk_param_2,\n"
                         "\t.param .u32 pk_param_3,\n"
                         "\t.param .u64 pk_param_4,\n"
                         "\t.param .u64 pk_param_5,\n"
                         "\t.param .u64 pk_param_6,\n"
                         "\t.param .u64 pk_param_7,\n"
                         "\t.param .u32 pk_param_8,\n"
                         "\t.param .u32 pk_param_9,\n"
                         "\t.param .u32 pk_param_10\n"
                         ")\n{ ret; }\n";

enum Param { A, Sem, Out, N, APeers, AMaps, SemPeers, SemEpoch, SemCount, Rank, World };

tile::KernelParamInfo scalar(const char *name, tile::ScalarType t, size_t size) {
  tile::KernelParamInfo p;
  p.name = name;
  p.scalar = t;
  p.size = p.align = size;
  return p;
}

tile::KernelParamInfo peerParam(const char *name, tile::HiddenPeerInfo::Kind kind, int param,
                                bool wide) {
  tile::KernelParamInfo p =
      scalar(name, wide ? tile::ScalarType::U64 : tile::ScalarType::I32, wide ? 8 : 4);
  tile::HiddenPeerInfo h;
  h.kind = kind;
  h.param = param;
  p.peer = h;
  return p;
}

tile::KernelInfo peerKernelInfo() {
  using K = tile::HiddenPeerInfo::Kind;
  tile::KernelInfo k;
  k.name = "pk";
  tile::KernelParamInfo a;
  a.name = "A";
  a.scalar = tile::ScalarType::I32;
  a.size = 128;
  a.align = 64;
  tile::TensorParamInfo t;
  t.element = tile::ScalarType::I32;
  tile::TensorParamInfo::Extent n, c;
  n.name = "N";
  n.hiddenParam = N;
  c.literal = 32;
  t.extents = {n, c};
  t.box = {32, 32};
  t.swizzle = tile::TmaSwizzle::B128;
  t.symmetric = true;
  a.tensor = t;
  k.params.push_back(a);
  tile::KernelParamInfo sem = scalar("sem", tile::ScalarType::U64, 8);
  tile::SemaphoreParamInfo s;
  s.count.name = "S";
  s.count.hiddenParam = SemCount;
  sem.semaphore = s;
  k.params.push_back(sem);
  tile::KernelParamInfo out = scalar("out", tile::ScalarType::I32, 8);
  out.isPointer = true;
  k.params.push_back(out);
  tile::KernelParamInfo hn = scalar("N", tile::ScalarType::I32, 4);
  hn.hidden = tile::HiddenExtentInfo{A, 0};
  k.params.push_back(hn);
  k.params.push_back(peerParam("A$peers", K::PeerPointers, A, true));
  k.params.push_back(peerParam("A$peer_maps", K::PeerMaps, A, true));
  k.params.push_back(peerParam("sem$peers", K::SemaphorePeers, Sem, true));
  k.params.push_back(peerParam("sem$epoch", K::SemaphoreEpoch, Sem, true));
  k.params.push_back(peerParam("sem$count", K::SemaphoreCount, Sem, false));
  k.params.push_back(peerParam("$rank", K::DeviceRank, -1, false));
  k.params.push_back(peerParam("$world", K::DeviceCount, -1, false));
  k.spinsOnPeers = true;
  k.exitSemaphore = Sem;
  return k;
}

tile::Kernel load(tile::Context &ctx, const tile::KernelInfo &info = peerKernelInfo()) {
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(info);
  tile::ModuleOptions o;
  o.useCache = false;
  std::string ptx = kPtx; // the PTX of the info's cluster (bound together at load)
  if (info.cluster == tile::KernelInfo::Cluster::Launch)
    ptx.insert(ptx.rfind('{'), ".explicitcluster\n");
  return tile::Module::fromPtx(ctx, ptx, m, o).kernel("pk");
}

tile::LaunchConfig cfg(unsigned grid = 2) {
  tile::LaunchConfig c;
  c.grid = tile::Dim3(grid);
  c.block = tile::Dim3(128);
  return c;
}

template <class T> T at(const std::vector<unsigned char> &buf, size_t offset) {
  T v;
  std::memcpy(&v, buf.data() + offset, sizeof v);
  return v;
}

// The parameter buffer of the last launch, and parameter p's value in it.
struct Launched {
  const FakeLaunch &l = fake().launches.back();
  template <class T> T get(int p) const { return at<T>(l.paramBuffer, l.paramOffsets[size_t(p)]); }
  uint64_t mapAddress(int p) const {
    return get<uint64_t>(p) == kFakeTensorMapMagic
               ? at<uint64_t>(l.paramBuffer, l.paramOffsets[size_t(p)] + 8)
               : 0;
  }
};

const uint64_t *host(CUdeviceptr p) { return reinterpret_cast<const uint64_t *>(p); }

// Two in-process ranks on fake devices 0 and 1, each with its kernel, a
// symmetric A[64, 32] of i32 and a semaphore array of 4.
struct Pair {
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  std::vector<tile::Kernel> kernels;
  std::vector<tile::SymmetricBuffer<int32_t>> a;
  std::vector<tile::Semaphores> sem;
  tile::DeviceBuffer<int32_t> out{comms[0].context(), 16};
  explicit Pair(const tile::KernelInfo &info = peerKernelInfo()) {
    for (tile::Communicator &c : comms)
      kernels.push_back(load(c.context(), info));
    for (tile::Communicator &c : comms)
      a.emplace_back(c, 64 * 32);
    for (tile::Communicator &c : comms)
      sem.emplace_back(c, 4u);
    comms[0].context().makeCurrent(); // rank 0's kernel is the one launched directly
  }
  void launch(int r, unsigned grid = 2) {
    comms[size_t(r)].context().makeCurrent(); // the rank's kernel runs in its context
    kernels[size_t(r)].launch(cfg(grid), a[size_t(r)].symmetricTensor({64, 32}), sem[size_t(r)],
                              out.ptr());
  }
};

} // namespace

TEST_CASE("peer kernels: a launch binds the symmetric tensor, the semaphores and the hidden "
          "peer parameters",
          "[fake][peer]") {
  resetAll();
  fake().recordParamBuffer = true;
  Pair p;
  // Semaphores are zeroed once: S + 2 counters.
  CHECK(p.sem[1].count() == 4);
  CHECK(p.sem[1].epoch() == 0);
  CHECK(p.sem[1].toHost() == std::vector<uint64_t>(6, 0));
  const size_t encodesBefore = fake().encodes.size();
  p.launch(1);
  Launched l;
  CHECK(l.l.kernel == "pk");
  CHECK(l.mapAddress(A) == p.a[1].ptr()); // this rank's part
  CHECK(l.get<uint64_t>(Sem) == p.sem[1].ptr());
  CHECK(l.get<int32_t>(N) == 64);
  // The peer table of A: every rank's part, by rank.
  CUdeviceptr table = l.get<uint64_t>(APeers);
  CHECK(table == p.a[1].peerTable());
  CHECK(host(table)[0] == p.a[0].ptr());
  CHECK(host(table)[1] == p.a[1].ptr());
  // The per-peer maps: 2 maps of 128 bytes in device memory, entry r over rank r's part.
  CUdeviceptr maps = l.get<uint64_t>(AMaps);
  REQUIRE(maps != 0);
  CHECK(maps % 64 == 0);
  for (int r = 0; r < 2; ++r) {
    CHECK(host(maps + 128 * r)[0] == kFakeTensorMapMagic);
    CHECK(host(maps + 128 * r)[1] == p.a[size_t(r)].ptr());
  }
  // The own map (cached) + one per rank.
  CHECK(fake().encodes.size() == encodesBefore + 3);
  CHECK(fake().encodes.back().box[0] == 32);
  CHECK(fake().encodes.back().swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
  // The semaphores' table, epoch (first launch: 1), count, rank, world.
  CUdeviceptr semTable = l.get<uint64_t>(SemPeers);
  CHECK(host(semTable)[0] == p.sem[0].ptr());
  CHECK(host(semTable)[1] == p.sem[1].ptr());
  CHECK(l.get<uint64_t>(SemEpoch) == 1);
  CHECK(l.get<int32_t>(SemCount) == 4);
  CHECK(l.get<int32_t>(Rank) == 1);
  CHECK(l.get<int32_t>(World) == 2);
  CHECK(p.sem[1].epoch() == 1);

  // The next launch: epoch 2, the same map array (nothing encoded or uploaded again).
  p.launch(1);
  Launched l2;
  CHECK(l2.get<uint64_t>(SemEpoch) == 2);
  CHECK(l2.get<uint64_t>(AMaps) == maps);
  CHECK(fake().encodes.size() == encodesBefore + 3);
  CHECK(p.sem[1].epoch() == 2);
  CHECK(p.sem[0].epoch() == 0); // rank 0's array is its own
  p.launch(0);
  CHECK(Launched().get<int32_t>(Rank) == 0);
  CHECK(Launched().get<uint64_t>(SemEpoch) == 1);
}

TEST_CASE("peer kernels: the epoch advances only when the launch is made", "[fake][peer]") {
  resetAll();
  fake().recordParamBuffer = true;
  Pair p;
  fake().launchResult = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  CHECK_THAT(errorText([&] { p.launch(0); }), Catch::Contains("cuLaunchKernelEx"));
  CHECK(p.sem[0].epoch() == 0);
  fake().launchResult = CUDA_SUCCESS;
  p.launch(0);
  CHECK(Launched().get<uint64_t>(SemEpoch) == 1);
  // A launch refused by a check leaves it too.
  CHECK_THAT(
      errorText([&] {
        p.kernels[0].launch(cfg(1000), p.a[0].symmetricTensor({64, 32}), p.sem[0], p.out.ptr());
      }),
      Catch::Contains("every CTA of its grid must be resident at once"));
  CHECK(p.sem[0].epoch() == 1);
}

TEST_CASE("peer kernels: wrong arguments name the parameter and what to pass", "[fake][peer]") {
  resetAll();
  Pair p;
  tile::DeviceBuffer<int32_t> plain(p.comms[0].context(), 64 * 32);
  auto launch0 = [&](const tile::Tensor &a, const auto &s) {
    p.kernels[0].launch(cfg(), a, s, p.out.ptr());
  };
  // A plain tensor for the symmetric parameter.
  CHECK_THAT(errorText([&] {
               launch0(tile::Tensor(plain, {64, 32}), p.sem[0]);
             }),
             Catch::Contains("kernel 'pk': argument 0 ('A', ") &&
                 Catch::Contains("a symmetric tensor parameter takes "
                                 "SymmetricBuffer::symmetricTensor(...)"));
  // A tensor for the semaphore parameter.
  CHECK_THAT(errorText([&] {
               launch0(p.a[0].symmetricTensor({64, 32}), p.a[0].symmetricTensor({64, 32}));
             }),
             Catch::Contains("argument 1 ('sem', ") &&
                 Catch::Contains("a semaphore parameter takes a tile::Semaphores"));
  // A Semaphores for the tensor parameter.
  CHECK_THAT(
      errorText([&] { p.kernels[0].launch(cfg(), p.sem[0].argument(), p.sem[0], p.out.ptr()); }),
      Catch::Contains("argument 0 ('A', ") && Catch::Contains("semaphore[4]"));
  // A number for the semaphore parameter.
  CHECK_THAT(errorText([&] {
               launch0(p.a[0].symmetricTensor({64, 32}), p.sem[0].ptr());
             }),
             Catch::Contains("argument 1") && Catch::Contains("tile::Semaphores"));
  // A Semaphores for the pointer parameter.
  CHECK_THAT(
      errorText([&] {
        p.kernels[0].launch(cfg(), p.a[0].symmetricTensor({64, 32}), p.sem[0], p.sem[0]);
      }),
      Catch::Contains("argument 2 is a tile::Semaphores but parameter 2 ('out', ptr<i32, "
                      "global>) (a tile::Semaphores goes to a semaphore[S] parameter only)"));
  // Rank 1's arguments for rank 0's kernel (loaded on device 0).
  CHECK_THAT(errorText([&] {
               launch0(p.a[1].symmetricTensor({64, 32}), p.sem[1]);
             }),
             Catch::Contains("kernel 'pk' is loaded on device 0 but its symmetric arguments "
                             "belong to rank 1 on device 1"));
  // Arguments of two communicators.
  std::vector<tile::Communicator> other = tile::Communicator::local({0, 1});
  tile::Semaphores s0(other[0], 4), s1(other[1], 4);
  CHECK_THAT(errorText([&] {
               launch0(p.a[0].symmetricTensor({64, 32}), s0);
             }),
             Catch::Contains("argument 1 ('sem', ") &&
                 Catch::Contains("belongs to another communicator than argument 0 ('A', ") &&
                 Catch::Contains("must come from one communicator"));
  // A symmetric tensor that is not the dense start of its buffer.
  tile::Tensor shifted(p.a[0].ptr() + 128, tile::TensorElement::I32, {32, 32});
  tile::Tensor offset = tile::detail::withPeerBinding(shifted, p.a[0].allocation().peerBinding());
  CHECK_THAT(errorText([&] { launch0(offset, p.sem[0]); }),
             Catch::Contains("a symmetric tensor must be the dense row-major start of its buffer"));
  // No epoch advanced by any of these.
  CHECK(p.sem[0].epoch() == 0);
}

TEST_CASE("peer kernels: semaphore counts, literal and named", "[fake][peer]") {
  resetAll();
  tile::KernelInfo info = peerKernelInfo();
  info.params[Sem].semaphore->count = tile::TensorParamInfo::Extent{};
  info.params[Sem].semaphore->count.literal = 8;
  Pair p(info);
  CHECK_THAT(errorText([&] { p.launch(0); }),
             Catch::Contains("argument 1 ('sem', ") &&
                 Catch::Contains("the kernel declares 8 counters but the array has 4"));
  // S named like a tensor extent: the array's count must equal the extent.
  resetAll();
  tile::KernelInfo shared = peerKernelInfo();
  shared.params[Sem].semaphore->count.name = "N";
  shared.params[Sem].semaphore->count.hiddenParam = N;
  Pair q(shared);
  CHECK_THAT(errorText([&] { q.launch(0); }),
             Catch::Contains("argument 1 ('sem', semaphore[N])") &&
                 Catch::Contains("'N' is 64 from another argument but this array has 4 counters"));
  CHECK_THAT(errorText([&] { tile::Semaphores z(q.comms[0], 0); }),
             Catch::Contains("a semaphore array of 0 counters"));
}

TEST_CASE("peer kernels: every CTA of a kernel that spins on peers must be resident",
          "[fake][peer]") {
  resetAll();
  Pair p;
  fake().occupancyBlocksPerSm = 2; // x 132 SMs = 264 CTAs
  CHECK_THAT(errorText([&] { p.launch(0, 265); }),
             Catch::Contains("kernel 'pk' waits on semaphores that peers signal, so every CTA of "
                             "its grid must be resident at once, but the grid has 265 CTAs and "
                             "at most 264 fit") &&
                 Catch::Contains("2 CTAs per SM (cuOccupancyMaxActiveBlocksPerMultiprocessor) x "
                                 "132 SMs"));
  REQUIRE(!fake().occupancyBlockQueries.empty());
  CHECK(fake().occupancyBlockQueries.back().first == 128);
  p.launch(0, 264);
  // A kernel that does not wait on peers may launch any grid.
  tile::KernelInfo relaxed = peerKernelInfo();
  relaxed.spinsOnPeers = false;
  Pair q(relaxed);
  q.launch(0, 100000);
}

TEST_CASE("peer kernels: clustered co-residency counts clusters", "[fake][peer]") {
  resetAll();
  tile::KernelInfo info = peerKernelInfo();
  info.cluster = tile::KernelInfo::Cluster::Launch;
  Pair p(info);
  fake().occupancyClusters = 4;
  tile::LaunchConfig c = cfg(10);
  c.cluster = tile::Dim3(2);
  CHECK_THAT(errorText([&] {
               p.kernels[0].launch(c, p.a[0].symmetricTensor({64, 32}), p.sem[0], p.out.ptr());
             }),
             Catch::Contains("the grid has 10 CTAs and at most 8 fit") &&
                 Catch::Contains("4 clusters of 2 CTAs (cuOccupancyMaxActiveClusters)"));
  c.grid = tile::Dim3(8);
  p.kernels[0].launch(c, p.a[0].symmetricTensor({64, 32}), p.sem[0], p.out.ptr());
}

TEST_CASE("peer kernels: the first launch of a configuration checks every rank launches alike",
          "[fake][peer]") {
  resetAll();
  Pair p;
  auto &uniform = p.comms[0].state()->group->uniform;
  p.launch(0, 2);
  const size_t checks = uniform[0].size();
  CHECK(checks >= 1);
  p.launch(0, 2); // the same configuration: not checked again
  CHECK(uniform[0].size() == checks);
  // Rank 1 launches another grid: its first launch names both ranks.
  CHECK_THAT(errorText([&] { p.launch(1, 4); }),
             Catch::Contains("the launch configuration of kernel 'pk'") &&
                 Catch::Contains("rank 0 has [2, 1, 1") && Catch::Contains("rank 1 has [4, 1, 1"));
  // Symmetric tensors of other extents on two ranks.
  resetAll();
  Pair q;
  q.kernels[0].launch(cfg(), q.a[0].symmetricTensor({64, 32}), q.sem[0], q.out.ptr());
  q.comms[1].context().makeCurrent();
  CHECK_THAT(errorText([&] {
               q.kernels[1].launch(cfg(), q.a[1].symmetricTensor({32, 32}), q.sem[1], q.out.ptr());
             }),
             Catch::Contains("the extents of the symmetric tensors of kernel 'pk' (A") &&
                 Catch::Contains("rank 0 has [2, 64, 32] but rank 1 has [2, 32, 32]"));
}

TEST_CASE("symmetricTensor and Semaphores: the host objects", "[fake][peer]") {
  resetAll();
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  tile::SymmetricBuffer<uint16_t> h0(comms[0], 1024), h1(comms[1], 1024);
  tile::Tensor t = h1.symmetricTensor(tile::TensorElement::BF16, {32, 32});
  CHECK(t.address() == h1.ptr());
  CHECK(t.element() == tile::TensorElement::BF16);
  CHECK_THAT(t.describe(), Catch::EndsWith("(symmetric, rank 1 of 2)"));
  REQUIRE(t.peerBinding() != nullptr);
  CHECK(t.peerBinding()->peers == std::vector<CUdeviceptr>{h0.ptr(), h1.ptr()});
  CHECK_THAT(errorText([&] {
               h0.symmetricTensor(tile::TensorElement::F32, {32, 32});
             }),
             Catch::Contains("the element type f32 is 4 bytes but the buffer's elements are 2 "
                             "bytes"));
  CHECK_THAT(errorText([&] {
               h0.symmetricTensor({33, 32});
             }),
             Catch::Contains("needs 2112 bytes but the symmetric buffer has 2048"));
  tile::Semaphores s0(comms[0], 3), s1(comms[1], 3);
  CHECK(s1.argument().describe().rfind("semaphore[3] at ", 0) == 0);
  CHECK(s1.peerTable() != 0);
  CHECK(host(s1.peerTable())[0] == s0.ptr());
  // Sizes differ across ranks: the symmetric allocation's check names both.
  CHECK_THAT(errorText([&] {
               tile::Semaphores a(comms[0], 3);
               tile::Semaphores b(comms[1], 5);
             }),
             Catch::Contains("differs across ranks") && Catch::Contains("rank 0 has [40]") &&
                 Catch::Contains("rank 1 has [56]"));
}

TEST_CASE("a symmetric tensor binds to a plain tensor parameter (this rank's part)",
          "[fake][peer]") {
  resetAll();
  fake().recordParamBuffer = true;
  // k(A: tensor<bf16>[M, K], s: f32, B: tensor<bf16>[K, 64]) + hidden M, K (TensorKernelInfo.h).
  const std::string ptx = ".version 8.6\n.target sm_90a\n.address_size 64\n"
                          ".visible .entry k(\n"
                          "\t.param .align 64 .b8 k_param_0[128],\n"
                          "\t.param .f32 k_param_1,\n"
                          "\t.param .align 64 .b8 k_param_2[128],\n"
                          "\t.param .u32 k_param_3,\n"
                          "\t.param .u32 k_param_4\n"
                          ")\n{ ret; }\n";
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  tile::ModuleInfo m;
  m.arch = "sm_90a";
  m.kernels.push_back(tensorKernelInfo());
  tile::ModuleOptions o;
  o.useCache = false;
  tile::Kernel k = tile::Module::fromPtx(comms[1].context(), ptx, m, o).kernel("k");
  tile::SymmetricBuffer<uint16_t> a0(comms[0], 128 * 64), a1(comms[1], 128 * 64);
  tile::SymmetricBuffer<uint16_t> b0(comms[0], 64 * 64), b1(comms[1], 64 * 64);
  k.launch(cfg(), a1.symmetricTensor(tile::TensorElement::BF16, {128, 64}), 1.0f,
           b1.symmetricTensor(tile::TensorElement::BF16, {64, 64}));
  Launched l;
  CHECK(l.mapAddress(0) == a1.ptr());
  CHECK(l.get<int32_t>(3) == 128);
  CHECK(l.get<int32_t>(4) == 64);
  // A tile::Semaphores is no tensor.
  tile::Semaphores s0(comms[0], 2), s1(comms[1], 2);
  CHECK_THAT(errorText([&] {
               k.launch(cfg(), s1, 1.0f, b1.symmetricTensor(tile::TensorElement::BF16, {64, 64}));
             }),
             Catch::Contains("argument 0 ('A', tensor<bf16>[M, K]) is given semaphore[2]") &&
                 Catch::Contains("a tile::Semaphores goes to a semaphore[S] parameter"));
}

TEST_CASE("peer kernels in NCCL mode: peers from the window, the uniform check a collective",
          "[fake][peer]") {
  resetAll();
  fake().recordParamBuffer = true;
  tile::Bootstrap b;
  b.rank = 1;
  b.worldSize = 2;
  b.localRank = 1;
  b.device = 1;
  b.uniqueIdHex = std::string(256, 'a');
  tile::Communicator c = tile::Communicator::fromBootstrap(b);
  tile::Kernel k = load(c.context());
  tile::SymmetricBuffer<int32_t> a(c, 64 * 32);
  const int gathersBefore = fakeNccl().gathers;
  tile::Semaphores s(c, 4); // allocation check (2 gathers) + barrier (1)
  CHECK(fakeNccl().gathers == gathersBefore + 3);
  tile::DeviceBuffer<int32_t> out(c.context(), 16);
  k.launch(cfg(), a.symmetricTensor({64, 32}), s, out.ptr());
  Launched l;
  CUdeviceptr maps = l.get<uint64_t>(AMaps);
  CHECK(host(maps)[1] == a.ptr() - (1ull << 32)); // the fake window puts rank 0 4 GiB below
  CHECK(host(maps + 128)[1] == a.ptr());
  CHECK(l.get<int32_t>(Rank) == 1);
  // Rank 0 launched with another grid: the first launch's collective check names it.
  fakeNccl().mismatchGather = fakeNccl().gathers + 1;
  fakeNccl().mismatchRank = 0;
  fakeNccl().mismatchXor = 4 ^ 2; // rank 0 passed grid 2
  tile::DistributedError e = [&] {
    try {
      k.launch(cfg(2), a.symmetricTensor({64, 32}), s, out.ptr()); // checked already: no check
      k.launch(cfg(4), a.symmetricTensor({64, 32}), s, out.ptr());
    } catch (const tile::DistributedError &e) {
      return e;
    }
    FAIL("no error");
    throw std::logic_error("unreachable");
  }();
  CHECK(e.rank() == 1);
  CHECK_THAT(e.what(),
             Catch::Contains("rank 0 has [2, ") && Catch::Contains("rank 1 has [4, 1, 1"));
  CHECK(s.epoch() == 2);
}

#ifdef TILEC_PEER_PTX
// tests/gpu/peer.tile as tilec compiles it (PTX + kernel info): every hidden
// peer parameter the compiler declares is filled by the runtime with the value
// its kind names, on both ranks of an in-process pair. The contract between
// the compiler's kernel info and the binder, end to end.
TEST_CASE("peer kernels: tilec's peer.tile binds through its kernel info", "[fake][peer]") {
  resetAll();
  fake().recordParamBuffer = true;
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  std::vector<tile::Module> modules;
  for (tile::Communicator &c : comms)
    modules.push_back(tile::Module::fromFiles(c.context(), TILEC_PEER_PTX));
  std::vector<tile::SymmetricBuffer<int32_t>> a, b;
  std::vector<tile::Semaphores> ringSem, pingSem;
  for (tile::Communicator &c : comms) {
    a.emplace_back(c, 2 * 32 * 32);
    b.emplace_back(c, 2 * 4 * 32 * 32);
    ringSem.emplace_back(c, 2u);
    pingSem.emplace_back(c, 8u);
  }
  tile::DeviceBuffer<int32_t> out(comms[0].context(), 3 * 1024);
  for (int launch = 1; launch <= 2; ++launch)
    for (int r = 0; r < 2; ++r) {
      comms[size_t(r)].context().makeCurrent(); // rank r's kernels run in its context
      tile::Kernel ring = modules[size_t(r)].kernel("tma_ring");
      tile::Kernel ping = modules[size_t(r)].kernel("ping");
      REQUIRE(ring.info() != nullptr);
      CHECK(ring.info()->spinsOnPeers);
      CHECK(ping.info()->spinsOnPeers);
      tile::LaunchConfig c1;
      c1.grid = tile::Dim3(1);
      c1.block = tile::Dim3(32);
      tile::LaunchConfig c4 = c1;
      c4.grid = tile::Dim3(4);
      struct Case {
        tile::Kernel k;
        std::function<void()> go;
        std::vector<tile::SymmetricBuffer<int32_t>> *bufs; // every rank's
        tile::Semaphores *sem;
      };
      std::vector<Case> cases = {
          {ring,
           [&] {
             ring.launch(c1, a[size_t(r)].symmetricTensor({64, 32}), ringSem[size_t(r)], out.ptr());
           },
           &a, &ringSem[size_t(r)]},
          {ping,
           [&] {
             ping.launch(c4, b[size_t(r)].symmetricTensor({256, 32}), pingSem[size_t(r)],
                         int32_t(launch), int32_t(0), out.ptr());
           },
           &b, &pingSem[size_t(r)]}};
      for (Case &cs : cases) {
        cs.go();
        Launched l;
        const tile::KernelInfo &info = *cs.k.info();
        tile::SymmetricBuffer<int32_t> *buf = &(*cs.bufs)[size_t(r)];
        int peerParams = 0;
        for (size_t p = 0; p < info.params.size(); ++p) {
          const tile::KernelParamInfo &pi = info.params[p];
          INFO("kernel " << info.name << " parameter " << p << " ('" << pi.name << "'), rank "
                         << r);
          if (pi.semaphore)
            CHECK(l.get<uint64_t>(int(p)) == cs.sem->ptr());
          if (pi.tensor && pi.tensor->symmetric)
            CHECK(l.mapAddress(int(p)) == buf->ptr());
          if (!pi.peer)
            continue;
          ++peerParams;
          using K = tile::HiddenPeerInfo::Kind;
          switch (pi.peer->kind) {
          case K::PeerPointers:
            CHECK(l.get<uint64_t>(int(p)) == buf->peerTable());
            break;
          case K::PeerMaps: {
            CUdeviceptr maps = l.get<uint64_t>(int(p));
            REQUIRE(maps != 0);
            for (int q = 0; q < 2; ++q)
              CHECK(host(maps + 128 * q)[1] == (*cs.bufs)[size_t(q)].ptr());
            break;
          }
          case K::SemaphorePeers:
            CHECK(l.get<uint64_t>(int(p)) == cs.sem->peerTable());
            break;
          case K::SemaphoreEpoch:
            CHECK(l.get<uint64_t>(int(p)) == uint64_t(launch));
            break;
          case K::SemaphoreCount:
            CHECK(l.get<int32_t>(int(p)) == int32_t(cs.sem->count()));
            break;
          case K::DeviceRank:
            CHECK(l.get<int32_t>(int(p)) == r);
            break;
          case K::DeviceCount:
            CHECK(l.get<int32_t>(int(p)) == 2);
            break;
          }
        }
        CHECK(peerParams >= 3); // at least the semaphore's table and epoch, and $rank
        CHECK(cs.sem->epoch() == uint64_t(launch));
      }
    }
}
#endif
