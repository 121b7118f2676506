// Symmetric buffers across 2 GPUs (tile/distributed.h), in both modes:
//
//   tilec-run -n 2 symmetric_test nccl    one process per GPU, NCCL windows
//   symmetric_test local                  one process, peer access
//
// Each rank fills its part of buffer A with its pattern (symmetric.tile `fill`),
// then, after a barrier, copies its peer's part through the peer's address into
// a local buffer (`copy` with src = peerPtr) and checks it on the host; and
// stores its pattern straight into the peer's part of buffer B (`fill` with p =
// peerPtr), which the peer checks after a barrier: loads and stores through
// peer pointers. Exit 0 on success, 1 on a mismatch or an error, 77 (SKIP) with
// fewer than 2 GPUs.
#include <tile/distributed.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string ptxPath() {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/symmetric.ptx";
}

int32_t pattern(int tag, int i) { return tag * 16777216 + i; }

struct Rank {
  tile::Communicator comm;
  tile::Module module;
  tile::Kernel fill, copy;
  tile::SymmetricBuffer<int32_t> a, b;
  tile::DeviceBuffer<int32_t> got;
  Rank(tile::Communicator c, int n)
      : comm(c), module(tile::Module::fromFiles(comm.context(), ptxPath())),
        fill(module.kernel("fill")), copy(module.kernel("copy")), a(comm, size_t(n)),
        b(comm, size_t(n)), got(comm.context(), size_t(n)) {}
  tile::LaunchConfig cfg() const {
    tile::LaunchConfig c;
    c.grid = tile::Dim3(64);
    c.block = tile::Dim3(256);
    return c;
  }
  int peer() const { return (comm.rank() + 1) % comm.size(); }
};

// Step 1: each rank fills its own A; b gets 0.
void step1(Rank &r, int n) {
  r.comm.context().makeCurrent();
  r.b.fillBytes(0);
  r.comm.checkUniformLaunch("fill", r.cfg());
  r.fill.launch(r.cfg(), r.a.ptr(), int32_t(r.comm.rank() + 1), int32_t(n));
}
// Step 2 (after a barrier): read the peer's A, write into the peer's B.
void step2(Rank &r, int n) {
  r.comm.context().makeCurrent();
  r.copy.launch(r.cfg(), r.got.ptr(), r.a.peerPtr(r.peer()), int32_t(n));
  r.fill.launch(r.cfg(), r.b.peerPtr(r.peer()), int32_t(100 + r.comm.rank()), int32_t(n));
}
// Step 3 (after a barrier): check what was read and what was written here.
int check(Rank &r, int n) {
  r.comm.context().makeCurrent();
  std::vector<int32_t> got = r.got.toHost(), mine = r.b.toHost();
  int writer = (r.comm.rank() + r.comm.size() - 1) % r.comm.size(); // whose peer I am
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (got[size_t(i)] != pattern(r.peer() + 1, i) && bad++ < 5)
      std::fprintf(stderr, "rank %d: peer %d's A[%d] read as %d, want %d\n", r.comm.rank(),
                   r.peer(), i, got[size_t(i)], pattern(r.peer() + 1, i));
    if (mine[size_t(i)] != pattern(100 + writer, i) && bad++ < 5)
      std::fprintf(stderr, "rank %d: B[%d] = %d, want %d (stored by rank %d)\n", r.comm.rank(), i,
                   mine[size_t(i)], pattern(100 + writer, i), writer);
  }
  std::printf("rank %d (device %d, %s): peer %d at 0x%llx: %s (%d elements)\n", r.comm.rank(),
              r.comm.device(), r.comm.mode() == tile::CommMode::Nccl ? "nccl" : "in-process",
              r.peer(), (unsigned long long)r.a.peerPtr(r.peer()), bad ? "MISMATCH" : "ok", n);
  return bad ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "nccl" && mode != "local") {
    std::fprintf(stderr, "usage: tilec-run -n 2 %s nccl | %s local\n", argv[0], argv[0]);
    return 2;
  }
  int devices = tile::deviceCount();
  if (devices < 2) {
    std::printf("SKIP: needs 2 CUDA devices (found %d)\n", devices);
    return 77;
  }
  const int n = std::getenv("TILEC_GPU_TEST_SMALL") ? 4096 : 1 << 22;
  try {
    if (mode == "nccl") {
      Rank r(tile::Communicator::fromEnvironment(), n);
      step1(r, n);
      r.comm.barrier();
      step2(r, n);
      r.comm.barrier();
      return check(r, n);
    }
    std::vector<Rank> ranks;
    ranks.reserve(2);
    for (tile::Communicator &c : tile::Communicator::local({0, 1}))
      ranks.emplace_back(c, n);
    for (Rank &r : ranks)
      step1(r, n);
    ranks[0].comm.barrier();
    for (Rank &r : ranks)
      step2(r, n);
    ranks[0].comm.barrier();
    int bad = 0;
    for (Rank &r : ranks)
      bad |= check(r, n);
    return bad;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
