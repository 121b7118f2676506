// A fake NCCL (libnccl.so.2) implementing the host API the tilec runtime's
// distributed layer uses, for one process playing one rank. Device memory is
// host memory (as in the fake driver); windows are FakeNcclWindows whose LSA
// pointers the fake driver hands to the runtime's helper kernel.
#include "FakeNccl.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include <nccl_device/core.h>

#include "../fakedriver/FakeCuda.h"

namespace {
FakeNcclState g_state;
struct FakeComm {
  int nranks, rank;
};

bool failing(const char *call) { return g_state.failCall == call; }
int lsaSize(const FakeComm *c) { return g_state.lsaSize < 0 ? c->nranks : g_state.lsaSize; }
} // namespace

#define FAKE_NCCL_FAIL(name)                                                                       \
  if (failing(name))                                                                               \
  return g_state.failResult

extern "C" {

FakeNcclState *fake_nccl_state() { return &g_state; }

ncclResult_t ncclGetVersion(int *v) {
  *v = g_state.version;
  return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t r) {
  return r == ncclSystemError ? "unhandled system error (run with NCCL_DEBUG=INFO for details)"
                              : "fake nccl error";
}
const char *ncclGetLastError(ncclComm_t) { return g_state.lastError.c_str(); }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  FAKE_NCCL_FAIL("ncclGetUniqueId");
  ++g_state.uniqueIds;
  for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; ++i)
    id->internal[i] = char(i * 7 + g_state.uniqueIds);
  return ncclSuccess;
}
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
  const char *nvls = std::getenv("NCCL_NVLS_ENABLE");
  g_state.nvlsEnableAtInit = nvls ? nvls : "<unset>";
  FAKE_NCCL_FAIL("ncclCommInitRank");
  ++g_state.inits;
  g_state.initNranks = nranks;
  g_state.initRank = rank;
  g_state.initId.assign(id.internal, id.internal + NCCL_UNIQUE_ID_BYTES);
  *comm = reinterpret_cast<ncclComm_t>(new FakeComm{nranks, rank});
  return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  ++g_state.destroys;
  delete reinterpret_cast<FakeComm *>(comm);
  return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
ncclResult_t ncclCommCount(const ncclComm_t comm, int *n) {
  *n = reinterpret_cast<const FakeComm *>(comm)->nranks;
  return ncclSuccess;
}
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *r) {
  *r = reinterpret_cast<const FakeComm *>(comm)->rank;
  return ncclSuccess;
}
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *d) {
  *d = g_state.reportedDevice >= 0 ? g_state.reportedDevice
                                   : reinterpret_cast<const FakeComm *>(comm)->rank;
  return ncclSuccess;
}
ncclResult_t ncclMemAlloc(void **p, size_t n) {
  FAKE_NCCL_FAIL("ncclMemAlloc");
  ++g_state.allocs;
  *p = std::calloc(1, n);
  return ncclSuccess;
}
ncclResult_t ncclMemFree(void *p) {
  ++g_state.frees;
  std::free(p);
  return ncclSuccess;
}
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buf, size_t n, ncclWindow_t *win,
                                    int flags) {
  FAKE_NCCL_FAIL("ncclCommWindowRegister");
  ++g_state.registers;
  g_state.windowFlags.push_back(flags);
  g_state.registeredBytes.push_back(n);
  if (g_state.nullWindow) {
    *win = nullptr;
    return ncclSuccess;
  }
  auto *c = reinterpret_cast<FakeComm *>(comm);
  auto *w = new FakeNcclWindow{};
  w->magic = kFakeNcclWindowMagic;
  // LSA rank i's part "lives" 4 GiB * (i - mine) away, as flat peer mappings do.
  int mine = c->rank % lsaSize(c);
  for (int i = 0; i < lsaSize(c) && i < 64; ++i)
    w->lsaPointers[i] = reinterpret_cast<unsigned long long>(buf) +
                        (unsigned long long)(long long)(i - mine) * (1ull << 32);
  w->lsaPointers[mine] += (unsigned long long)g_state.selfPointerDelta;
  if (g_state.nullPeer >= 0 && g_state.nullPeer < 64)
    w->lsaPointers[g_state.nullPeer] = 0;
  *win = reinterpret_cast<ncclWindow_t>(w);
  return ncclSuccess;
}
ncclResult_t ncclCommWindowDeregister(ncclComm_t, ncclWindow_t win) {
  ++g_state.deregisters;
  delete reinterpret_cast<FakeNcclWindow *>(win);
  return ncclSuccess;
}
ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t type,
                           ncclComm_t comm, cudaStream_t) {
  FAKE_NCCL_FAIL("ncclAllGather");
  if (type != ncclUint64)
    return ncclInvalidArgument;
  auto *c = reinterpret_cast<FakeComm *>(comm);
  auto *out = static_cast<unsigned long long *>(recv);
  for (int q = 0; q < c->nranks; ++q) {
    std::memcpy(out + size_t(q) * count, send, count * 8);
    if (g_state.gathers == g_state.mismatchGather && q == g_state.mismatchRank)
      for (size_t i = 0; i < count; ++i)
        out[size_t(q) * count + i] ^= g_state.mismatchXor;
  }
  ++g_state.gathers;
  return ncclSuccess;
}
ncclTeam_t ncclTeamWorld(ncclComm_t comm) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  return ncclTeam_t{c->nranks, c->rank, 1};
}
ncclTeam_t ncclTeamLsa(ncclComm_t comm) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  return ncclTeam_t{lsaSize(c), c->rank % lsaSize(c), 1};
}
int ncclTeamRankToLsa(ncclComm_t comm, ncclTeam_t team, int rank) {
  auto *c = reinterpret_cast<FakeComm *>(comm);
  return c->rank % lsaSize(c) + (rank - team.rank) * team.stride;
}

} // extern "C"
