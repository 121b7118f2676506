// Peer references and semaphores across 2 GPUs (tests/gpu/peer.tile), in both
// modes of tile/distributed.h:
//
//   tilec-run -n 2 peer_test nccl     one process per GPU, NCCL windows
//   peer_test local                   one process, peer access
//   tilec-run -n 2 peer_test hang     (peer_debug.ptx, tilec --debug-hangs=200)
//                                     the planted missing signal: every rank's
//                                     wait must be reported and trapped
//
// nccl / local: tma_ring once (TMA store into the next rank + signal + wait +
// TMA load of what arrived, TMA load from the peer), every word checked on the
// host; then ping launched 100 times back to back (no host synchronisation
// between launches; TMA stores into the peer, signal, wait, TMA load), every
// launch checking what it received in the kernel, and the
// semaphore counters checked at the end: [0, S] back at 0, the exit counter at
// epoch * (D - 1); then elem_ring once (element stores into the next rank,
// element loads from the previous rank's part and this rank's, all of it on
// fresh random data), checked on the host.
// Exit 0: all correct. 1: a mismatch or an error. 3 (hang mode): the launch
// failed or trapped, as expected. 77: SKIP, fewer than 2 GPUs.
#include <tile/distributed.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kBlock = 32;   // rows of a block
constexpr int kPingCtas = 4; // G: CTAs of ping
constexpr int kLaunches = 100;
constexpr int kElemRows = 4; // rows of a block of elem_ring's C (128 threads, 32 columns)

std::string ptxPath(const char *name) {
  const char *dir = std::getenv("TILEC_PTX_DIR");
  return std::string(dir && *dir ? dir : TILEC_SAMPLE_PTX_DIR) + "/" + name;
}

int32_t aValue(int rank, int i, int j) { return (rank + 1) * 1000000 + i * 32 + j; }

struct Rank {
  tile::Communicator comm;
  tile::Module module;
  tile::Kernel tmaRing, ping, elemRing;
  tile::SymmetricBuffer<int32_t> a, b, c;
  tile::Semaphores ringSem, pingSem, elemSem;
  tile::DeviceBuffer<int32_t> out, errors, elemOut;
  std::vector<int32_t> cInit; // the random fill of this rank's part of c
  int d;
  Rank(tile::Communicator c, const std::string &ptx)
      : comm(c), module(tile::Module::fromFiles(comm.context(), ptx)),
        tmaRing(module.kernel("tma_ring")), ping(module.kernel("ping")),
        elemRing(module.kernel("elem_ring")), a(comm, size_t(comm.size()) * kBlock * 32),
        b(comm, size_t(comm.size()) * kPingCtas * kBlock * 32),
        c(comm, size_t(comm.size() + 1) * kElemRows * 32), ringSem(comm, uint32_t(comm.size())),
        pingSem(comm, uint32_t(comm.size() * kPingCtas)), elemSem(comm, uint32_t(comm.size())),
        out(comm.context(), 2 * 1024), errors(comm.context(), 1),
        elemOut(comm.context(), 2 * kElemRows * 32), d(comm.size()) {}
  int me() const { return comm.rank(); }
  int next() const { return (me() + 1) % d; }
  int prev() const { return (me() + d - 1) % d; }
};

// Host-side setup (before any launch on any rank): own block of A, zeros elsewhere.
void prepare(Rank &r) {
  r.comm.context().makeCurrent();
  std::vector<int32_t> a(size_t(r.d) * kBlock * 32, -1);
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < 32; ++j)
      a[size_t((r.me() * kBlock + i) * 32 + j)] = aValue(r.me(), i, j);
  r.a.copyFrom(a);
  r.b.fillBytes(0xff);
  r.out.fillBytes(0xff);
  r.errors.fillBytes(0);
  // Fresh random data every run (a kernel whose stores went nowhere, or a
  // stale part of an earlier run, cannot pass).
  std::mt19937 gen(std::random_device{}() + unsigned(r.me()));
  r.cInit.resize(r.c.size());
  for (int32_t &x : r.cInit)
    x = int32_t(gen());
  r.c.copyFrom(r.cInit);
  r.elemOut.fillBytes(0xff);
}

void launchRing(Rank &r) {
  r.comm.context().makeCurrent();
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(1);
  cfg.block = tile::Dim3(32);
  r.tmaRing.launch(cfg, r.a.symmetricTensor({r.d * kBlock, 32}), r.ringSem, r.out.ptr());
}

void launchPing(Rank &r, int iter, int skip) {
  r.comm.context().makeCurrent();
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(kPingCtas);
  cfg.block = tile::Dim3(32);
  r.ping.launch(cfg, r.b.symmetricTensor({r.d * kPingCtas * kBlock, 32}), r.pingSem, int32_t(iter),
                int32_t(skip), r.errors.ptr());
}

void launchElem(Rank &r) {
  r.comm.context().makeCurrent();
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(1);
  cfg.block = tile::Dim3(kElemRows * 32);
  r.elemRing.launch(cfg, r.c.symmetricTensor({(r.d + 1) * kElemRows, 32}), r.elemSem,
                    r.elemOut.ptr());
}

// elem_ring (peer.tile): out[t] = this part's block prev (stored by prev:
// prev's own block * 3 + prev + 1), out[128 + t] = prev's block prev read
// through peer(C, prev); this part's block me untouched, block prev = out,
// scratch block D = block me ^ 0x5a5a5a5a, every other block untouched.
int checkElem(Rank &r) {
  r.comm.context().makeCurrent();
  std::vector<int32_t> out = r.elemOut.toHost(), c = r.c.toHost();
  const int n = kElemRows * 32;
  int bad = 0;
  auto report = [&](const char *what, int block, int t, int32_t got, int32_t want) {
    if (bad++ < 5)
      std::fprintf(stderr, "rank %d: elem_ring %s: block %d [%d, %d] = %d, want %d\n", r.me(), what,
                   block, t / 32, t % 32, got, want);
  };
  for (int t = 0; t < n; ++t) {
    uint32_t loaded = uint32_t(out[size_t(n + t)]);
    int32_t want = int32_t(loaded * 3u + uint32_t(r.prev() + 1));
    if (out[size_t(t)] != want)
      report("element stores from prev (out)", r.prev(), t, out[size_t(t)], want);
    for (int block = 0; block <= r.d; ++block) {
      size_t k = size_t(block * n + t);
      int32_t expect = block == r.d
                           ? int32_t(uint32_t(r.cInit[size_t(r.me() * n + t)]) ^ 0x5a5a5a5au)
                       : block == r.prev() ? out[size_t(t)]
                                           : r.cInit[k];
      if (c[k] != expect)
        report(block == r.d        ? "own scratch store"
               : block == r.prev() ? "stored block"
                                   : "untouched",
               block, t, c[k], expect);
    }
  }
  std::printf("rank %d: elem_ring (element loads/stores through peers) %s\n", r.me(),
              bad ? "MISMATCH" : "ok");
  return bad ? 1 : 0;
}

int checkRing(Rank &r) {
  r.comm.context().makeCurrent();
  std::vector<int32_t> out = r.out.toHost();
  int bad = 0;
  const char *what[2] = {"TMA load of the block prev stored here", "TMA load from the next rank"};
  for (int part = 0; part < 2; ++part)
    for (int i = 0; i < kBlock; ++i)
      for (int j = 0; j < 32; ++j) {
        int32_t want = aValue(part == 0 ? r.prev() : r.me(), i, j);
        int32_t got = out[size_t(part * 1024 + i * 32 + j)];
        if (got != want && bad++ < 5)
          std::fprintf(stderr, "rank %d: tma_ring %s: [%d, %d] = %d, want %d\n", r.me(), what[part],
                       i, j, got, want);
      }
  std::printf("rank %d (device %d, %s): tma_ring %s\n", r.me(), r.comm.device(),
              r.comm.mode() == tile::CommMode::Nccl ? "nccl" : "in-process",
              bad ? "MISMATCH" : "ok");
  return bad ? 1 : 0;
}

int checkPing(Rank &r) {
  r.comm.context().makeCurrent();
  int bad = 0;
  int32_t errors = r.errors.toHost()[0];
  if (errors != 0) {
    std::fprintf(stderr, "rank %d: ping: %d elements received wrong over %d launches\n", r.me(),
                 errors, kLaunches);
    bad = 1;
  }
  // After the last launch: the kernel's counters and the arrival counter are 0
  // again, the exit counter holds every peer's exit signal of every launch.
  for (tile::Semaphores *s : {&r.ringSem, &r.pingSem}) {
    std::vector<uint64_t> c = s->toHost();
    const uint32_t n = s->count();
    for (uint32_t i = 0; i <= n; ++i)
      if (c[i] != 0 && bad++ < 5)
        std::fprintf(stderr,
                     "rank %d: semaphore[%u] counter %u is %llu after the launches, want 0\n",
                     r.me(), n, i, (unsigned long long)c[i]);
    const uint64_t exits = s->epoch() * uint64_t(r.d - 1);
    if (c[n + 1] != exits && bad++ < 5)
      std::fprintf(stderr, "rank %d: semaphore[%u] exit counter is %llu, want %llu (epoch %llu)\n",
                   r.me(), n, (unsigned long long)c[n + 1], (unsigned long long)exits,
                   (unsigned long long)s->epoch());
  }
  if (r.pingSem.epoch() != kLaunches && bad++ < 5)
    std::fprintf(stderr, "rank %d: ping's semaphore epoch is %llu after %d launches\n", r.me(),
                 (unsigned long long)r.pingSem.epoch(), kLaunches);
  std::printf("rank %d: ping x %d launches back to back: %s\n", r.me(), kLaunches,
              bad ? "MISMATCH" : "ok");
  return bad ? 1 : 0;
}

int runNccl() {
  Rank r(tile::Communicator::fromEnvironment(), ptxPath("peer.ptx"));
  prepare(r);
  r.comm.barrier(); // every rank's A is filled before any rank's TMA store arrives
  launchRing(r);
  r.comm.barrier();
  int bad = checkRing(r);
  for (int it = 0; it < kLaunches; ++it)
    launchPing(r, it, 0);
  r.comm.barrier();
  bad |= checkPing(r);
  launchElem(r);
  r.comm.barrier();
  return bad | checkElem(r);
}

int runLocal() {
  std::vector<Rank> ranks;
  std::vector<tile::Communicator> comms = tile::Communicator::local({0, 1});
  ranks.reserve(comms.size());
  for (tile::Communicator &c : comms)
    ranks.emplace_back(c, ptxPath("peer.ptx"));
  for (Rank &r : ranks)
    prepare(r);
  ranks[0].comm.barrier();
  // Every rank's launch before any synchronisation: the kernels wait for each
  // other across devices.
  for (Rank &r : ranks)
    launchRing(r);
  ranks[0].comm.barrier();
  int bad = 0;
  for (Rank &r : ranks)
    bad |= checkRing(r);
  for (int it = 0; it < kLaunches; ++it)
    for (Rank &r : ranks)
      launchPing(r, it, 0);
  ranks[0].comm.barrier();
  for (Rank &r : ranks)
    bad |= checkPing(r);
  for (Rank &r : ranks)
    launchElem(r);
  ranks[0].comm.barrier();
  for (Rank &r : ranks)
    bad |= checkElem(r);
  return bad;
}

// The planted missing signal: no rank signals, so every rank's wait(sem[...], 1)
// is reported by --debug-hangs and traps; the synchronisation then fails.
int runHang() {
  Rank r(tile::Communicator::fromEnvironment(), ptxPath("peer_debug.ptx"));
  prepare(r);
  r.comm.barrier();
  try {
    launchPing(r, 0, /*skip=*/1);
    r.comm.context().synchronize();
  } catch (const std::exception &e) {
    std::printf("rank %d: the launch failed as expected: %s\n", r.me(), e.what());
    // The context is unusable after the trap: leave without the destructors
    // (ncclCommDestroy on a faulted device may not return).
    std::fflush(nullptr);
    std::_Exit(3);
  }
  std::printf("rank %d: the kernel completed although no signal was sent\n", r.me());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "nccl" && mode != "local" && mode != "hang") {
    std::fprintf(stderr, "usage: tilec-run -n 2 %s nccl|hang | %s local\n", argv[0], argv[0]);
    return 2;
  }
  int devices = tile::deviceCount();
  if (devices < 2) {
    std::printf("SKIP: needs 2 CUDA devices (found %d)\n", devices);
    return 77;
  }
  try {
    if (mode == "nccl")
      return runNccl();
    if (mode == "hang")
      return runHang();
    return runLocal();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
