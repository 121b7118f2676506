//===- Communicator.cpp - NCCL communicators and in-process peer groups ---===//
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "DistributedState.h"
#include "Nccl.h"

namespace tile {
namespace detail {

void throwRankError(const std::string &call, int code, int rank, const std::string &message) {
  throw DistributedError(
      Error::withMessage(call, code, {}, message + " [rank " + std::to_string(rank) + "]"), rank);
}

CommState::~CommState() {
  // Buffers hold their communicator, so none is left here. A failed destroy
  // cannot be reported from a destructor.
  if (comm) {
    const Nccl &n = nccl();
    if (n.api.ncclCommDestroy)
      n.api.ncclCommDestroy(comm);
  }
}

namespace {

std::string describe(const std::vector<uint64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// rank 0 writes a fresh id to `path` (refusing a file left by an earlier run,
// which the others could have read already); the others wait for it.
std::vector<unsigned char> idFromFile(const Bootstrap &b) {
  if (b.rank == 0) {
    std::string hex = uniqueIdToHex(newNcclUniqueId());
    std::string tmp = b.idFile + ".tmp." + std::to_string(getpid());
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << hex << "\n";
      if (!out)
        throwRankError("Bootstrap", CUDA_ERROR_FILE_NOT_FOUND, 0,
                       "cannot write the NCCL unique id to '" + tmp + "'");
    }
    // link() fails when the name exists: an id file is never silently replaced.
    if (link(tmp.c_str(), b.idFile.c_str()) != 0) {
      int err = errno;
      unlink(tmp.c_str());
      throwRankError(
          "Bootstrap", CUDA_ERROR_INVALID_VALUE, 0,
          "TILEC_NCCL_ID_FILE '" + b.idFile + "': " + std::strerror(err) +
              (err == EEXIST ? " (left by an earlier run? remove it before starting)" : ""));
    }
    unlink(tmp.c_str());
    return uniqueIdFromHex(hex);
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(int64_t(b.timeoutSeconds * 1000));
  for (;;) {
    std::ifstream in(b.idFile);
    std::string hex;
    if (in >> hex && hex.size() == 256)
      return uniqueIdFromHex(hex);
    if (std::chrono::steady_clock::now() > deadline)
      throwRankError("Bootstrap", CUDA_ERROR_TIMEOUT, b.rank,
                     "no NCCL unique id appeared in TILEC_NCCL_ID_FILE '" + b.idFile + "' within " +
                         std::to_string(int(b.timeoutSeconds)) + " s (rank 0 writes it)");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

} // namespace
} // namespace detail

std::vector<unsigned char> newNcclUniqueId() {
  ncclUniqueId id;
  TILE_NCCL(-1, nullptr, ncclGetUniqueId, &id);
  return std::vector<unsigned char>(id.internal, id.internal + sizeof id.internal);
}

Communicator Communicator::fromEnvironment() { return fromBootstrap(bootstrapFromEnvironment()); }

Communicator Communicator::fromBootstrap(const Bootstrap &b) {
  using namespace detail;
  // NVLink SHARP would create multicast objects (cuMulticastCreate), which can
  // take a shared host's GPUs out of service: always off, unless the user opts in
  // with TILEC_ALLOW_NVLS=1 (then NCCL_NVLS_ENABLE is left as it is).
  if (const char *allow = std::getenv("TILEC_ALLOW_NVLS"); !allow || std::string(allow) != "1")
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/1);
  auto s = std::make_shared<CommState>();
  s->mode = CommMode::Nccl;
  s->rank = b.rank;
  s->size = b.worldSize;
  s->device = b.device;
  withRank(b.rank, [&] { s->ctx.emplace(b.device); });
  std::vector<unsigned char> bytes =
      b.uniqueIdHex.empty() ? idFromFile(b) : uniqueIdFromHex(b.uniqueIdHex);
  ncclUniqueId id;
  std::memcpy(id.internal, bytes.data(), sizeof id.internal);
  s->ctx->makeCurrent(); // NCCL uses the current device's primary context
  TILE_NCCL(b.rank, nullptr, ncclCommInitRank, &s->comm, b.worldSize, id, b.rank);
  int rank = -1, count = -1, device = -1;
  TILE_NCCL(b.rank, s->comm, ncclCommUserRank, s->comm, &rank);
  TILE_NCCL(b.rank, s->comm, ncclCommCount, s->comm, &count);
  TILE_NCCL(b.rank, s->comm, ncclCommCuDevice, s->comm, &device);
  if (rank != b.rank || count != b.worldSize || device != b.device)
    throwRankError("ncclCommInitRank", CUDA_ERROR_INVALID_VALUE, b.rank,
                   "the communicator reports rank " + std::to_string(rank) + " of " +
                       std::to_string(count) + " on device " + std::to_string(device) +
                       " but rank " + std::to_string(b.rank) + " of " +
                       std::to_string(b.worldSize) + " on device " + std::to_string(b.device) +
                       " was asked for");
  return Communicator(std::move(s));
}

std::vector<Communicator> Communicator::local(const std::vector<int> &devices) {
  using namespace detail;
  if (devices.empty())
    throw Error::withMessage("Communicator::local", CUDA_ERROR_INVALID_VALUE, {},
                             "Communicator::local: no devices given");
  auto group = std::make_shared<GroupState>();
  group->size = int(devices.size());
  group->devices = devices;
  group->allocs.resize(devices.size());
  group->uniform.resize(devices.size());
  std::vector<Communicator> comms;
  for (size_t r = 0; r < devices.size(); ++r) {
    for (size_t q = 0; q < r; ++q)
      if (devices[q] == devices[r])
        throwRankError("Communicator::local", CUDA_ERROR_INVALID_DEVICE, int(r),
                       "Communicator::local: device " + std::to_string(devices[r]) +
                           " is given for rank " + std::to_string(q) + " and rank " +
                           std::to_string(r));
    auto s = std::make_shared<CommState>();
    s->mode = CommMode::InProcess;
    s->rank = int(r);
    s->size = int(devices.size());
    s->device = devices[r];
    s->group = group;
    withRank(int(r), [&] { s->ctx.emplace(devices[r]); });
    group->contexts.push_back(s->ctx->state());
    comms.push_back(Communicator(std::move(s)));
  }
  // Peer access both ways between every pair: each context may then address
  // the others' allocations directly (unified addressing).
  for (size_t r = 0; r < comms.size(); ++r)
    for (size_t q = 0; q < comms.size(); ++q) {
      if (q == r)
        continue;
      CommState &a = *comms[r].state(), &b = *comms[q].state();
      withRank(int(r), [&] {
        int can = 0;
        TILE_CU(cuDeviceCanAccessPeer, &can, a.ctx->rawDevice(), b.ctx->rawDevice());
        if (!can)
          throwRankError("cuDeviceCanAccessPeer", CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, int(r),
                         "rank " + std::to_string(q) + " (device " + std::to_string(b.device) +
                             ") is not a load/store peer of rank " + std::to_string(r) +
                             " (device " + std::to_string(a.device) +
                             "): no peer access between the GPUs (no NVLink or PCIe P2P)");
        a.ctx->makeCurrent();
        CUresult res = TILE_CU_RAW(cuCtxEnablePeerAccess, b.ctx->raw(), 0);
        if (res != CUDA_SUCCESS && res != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
          throw Error("cuCtxEnablePeerAccess", res, {},
                      "device " + std::to_string(a.device) + " -> device " +
                          std::to_string(b.device));
        detail::notePeerAccess(a.ctx->raw(), b.ctx->raw());
      });
    }
  comms.front().state()->ctx->makeCurrent();
  return comms;
}

int Communicator::rank() const { return state_->rank; }
int Communicator::size() const { return state_->size; }
int Communicator::device() const { return state_->device; }
CommMode Communicator::mode() const { return state_->mode; }
Context &Communicator::context() const { return *state_->ctx; }
void *Communicator::ncclComm() const { return state_->comm; }

void Communicator::barrier() const {
  using namespace detail;
  CommState &s = *state_;
  if (s.mode == CommMode::InProcess) {
    for (size_t r = 0; r < s.group->contexts.size(); ++r)
      if (auto ctx = s.group->contexts[r].lock())
        withRank(int(r), [&] {
          ScopedContext current(ctx.get());
          checkAfterKernels(TILE_CU_RAW(cuCtxSynchronize), "cuCtxSynchronize",
                            /*synchronizing=*/true, Scope::AnyStream);
        });
    return;
  }
  withRank(s.rank, [&] { s.ctx->synchronize(); });
  checkUniform("barrier", {}); // its all-gather waits for every rank's synchronize
}

void Communicator::checkUniform(const std::string &what,
                                const std::vector<uint64_t> &values) const {
  using namespace detail;
  CommState &s = *state_;
  auto mismatch = [&](int other, const std::vector<uint64_t> &theirs) {
    throwRankError("Communicator::checkUniform", CUDA_ERROR_INVALID_VALUE, s.rank,
                   what + " differs across ranks: rank " + std::to_string(other) + " has " +
                       describe(theirs) + " but rank " + std::to_string(s.rank) + " has " +
                       describe(values));
  };
  auto outOfStep = [&](int other, const std::string &theirs) {
    throwRankError("Communicator::checkUniform", CUDA_ERROR_INVALID_VALUE, s.rank,
                   "rank " + std::to_string(other) + " checked " + theirs + " where rank " +
                       std::to_string(s.rank) + " checks '" + what +
                       "': the ranks' calls are out of step");
  };
  if (s.mode == CommMode::InProcess) {
    GroupState &g = *s.group;
    std::lock_guard<std::mutex> lock(g.mu);
    size_t k = g.uniform[s.rank].size();
    for (int q = 0; q < g.size; ++q)
      if (q != s.rank && g.uniform[q].size() > k) {
        const auto &[theirWhat, theirs] = g.uniform[q][k];
        if (theirWhat != what || theirs.size() != values.size())
          outOfStep(q, "'" + theirWhat + "' (" + std::to_string(theirs.size()) + " values)");
        if (theirs != values)
          mismatch(q, theirs);
      }
    g.uniform[s.rank].emplace_back(what, values);
    return;
  }
  // Two all-gathers: first (hash of `what`, count), so that ranks that disagree on
  // the number of values never enter a collective of different sizes.
  withRank(s.rank, [&] {
    auto gather = [&](const std::vector<uint64_t> &mine) {
      size_t n = mine.size();
      s.ctx->makeCurrent();
      DeviceBuffer<uint64_t> send(*s.ctx, n), recv(*s.ctx, n * size_t(s.size));
      send.copyFrom(mine);
      s.ctx->makeCurrent();
      TILE_NCCL(s.rank, s.comm, ncclAllGather, reinterpret_cast<const void *>(send.ptr()),
                reinterpret_cast<void *>(recv.ptr()), n, ncclUint64, s.comm, nullptr);
      s.ctx->synchronize();
      return recv.toHost();
    };
    std::vector<uint64_t> header = {fnv1a64(what), values.size()};
    std::vector<uint64_t> all = gather(header);
    for (int q = 0; q < s.size; ++q)
      if (all[2 * q] != header[0] || all[2 * q + 1] != header[1])
        outOfStep(q, "something else (" + std::to_string(all[2 * q + 1]) + " values)");
    if (values.empty())
      return;
    all = gather(values);
    for (int q = 0; q < s.size; ++q) {
      std::vector<uint64_t> theirs(all.begin() + std::ptrdiff_t(q * values.size()),
                                   all.begin() + std::ptrdiff_t((q + 1) * values.size()));
      if (theirs != values)
        mismatch(q, theirs);
    }
  });
}

void Communicator::checkUniformLaunch(const std::string &kernel, const LaunchConfig &cfg) const {
  checkUniform("the launch configuration of kernel '" + kernel +
                   "' (grid x y z, block x y z, cluster x y z, dynamic shared bytes)",
               {cfg.grid.x, cfg.grid.y, cfg.grid.z, cfg.block.x, cfg.block.y, cfg.block.z,
                cfg.cluster.x, cfg.cluster.y, cfg.cluster.z,
                cfg.sharedBytes ? uint64_t(*cfg.sharedBytes) : UINT64_MAX});
}

} // namespace tile
