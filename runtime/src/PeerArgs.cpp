//===- PeerArgs.cpp - symmetric tensor and semaphore arguments ------------===//
//
// A `symmetric tensor` parameter is this rank's part of a symmetric allocation
// (its map and hidden extents, as any tensor) plus, when the kernel addresses
// peers, `A$peers` (the device table of every rank's address) and
// `A$peer_maps` (the device array of every rank's tensor map). A `semaphore[S]`
// parameter is this rank's counters (u64) plus `sem$peers`, `sem$epoch` and,
// for a named S, `sem$count`; `$rank` and `$world` come from the communicator.
// The host passes SymmetricBuffer::symmetricTensor(...) and tile::Semaphores,
// whose PeerBinding (PeerBinding.h) carries all of it. Every check here names
// the kernel, the argument and the rule.
//===----------------------------------------------------------------------===//
#include "PeerArgs.h"

#include <limits>

#include "tile/error.h"

namespace tile::detail {

namespace {

[[noreturn]] void fail(const KernelInfo &k, const std::string &what) {
  throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, k.name,
                           "kernel '" + k.name + "': " + what);
}

std::string label(const KernelInfo &k, size_t i) {
  return "argument " + std::to_string(i) + " ('" + k.params[i].name + "', " +
         k.params[i].typeName() + ")";
}

bool isSymmetric(const KernelParamInfo &p) { return p.tensor && p.tensor->symmetric; }

const char *kindName(HiddenPeerInfo::Kind kind) {
  switch (kind) {
  case HiddenPeerInfo::Kind::PeerPointers:
    return "peer pointer table";
  case HiddenPeerInfo::Kind::PeerMaps:
    return "peer tensor maps";
  case HiddenPeerInfo::Kind::SemaphorePeers:
    return "semaphore peer table";
  case HiddenPeerInfo::Kind::SemaphoreEpoch:
    return "semaphore epoch";
  case HiddenPeerInfo::Kind::SemaphoreCount:
    return "semaphore count";
  case HiddenPeerInfo::Kind::DeviceRank:
    return "device rank";
  case HiddenPeerInfo::Kind::DeviceCount:
    return "device count";
  }
  return "peer parameter";
}

bool needsSemaphore(HiddenPeerInfo::Kind kind) {
  return kind == HiddenPeerInfo::Kind::SemaphorePeers ||
         kind == HiddenPeerInfo::Kind::SemaphoreEpoch ||
         kind == HiddenPeerInfo::Kind::SemaphoreCount;
}
bool needsSymmetric(HiddenPeerInfo::Kind kind) {
  return kind == HiddenPeerInfo::Kind::PeerPointers || kind == HiddenPeerInfo::Kind::PeerMaps;
}

// The binding argument i must carry for its parameter, or an error saying
// what to pass instead.
const PeerBinding &requireBinding(const KernelInfo &k, size_t i, const Tensor &t) {
  const KernelParamInfo &p = k.params[i];
  const PeerBinding *b = t.peerBinding().get();
  if (p.semaphore) {
    if (!b || b->kind != PeerBinding::Kind::Semaphores)
      fail(k, label(k, i) + " is given " + t.describe() +
                  ": a semaphore parameter takes a tile::Semaphores (its counters live in "
                  "symmetric memory, with every rank's address and the launch epoch)");
    return *b;
  }
  if (!b || b->kind != PeerBinding::Kind::SymmetricTensor)
    fail(k, label(k, i) + " is given " + t.describe() +
                ": a symmetric tensor parameter takes SymmetricBuffer::symmetricTensor(...) "
                "(this rank's part of a symmetric buffer, which carries every rank's address)");
  return *b;
}

const Tensor &tensorArg(void **args, size_t i) { return *static_cast<const Tensor *>(args[i]); }

} // namespace

bool isPeerParam(const KernelParamInfo &p) {
  return p.semaphore.has_value() || p.peer.has_value() || isSymmetric(p);
}

std::vector<std::optional<uint64_t>> peerHiddenValues(const KernelInfo &k, void **args,
                                                      const ArgDesc *descs, size_t count,
                                                      PeerLaunch &launch) {
  const size_t n = k.params.size();
  std::vector<std::optional<uint64_t>> values(n);
  // Every symmetric tensor and semaphore argument: the right kind of object,
  // all of one communicator, no semaphore array twice.
  size_t groupFrom = 0;
  std::vector<std::pair<const SemaphoreState *, size_t>> semaphores;
  for (size_t i = 0; i < count && i < n; ++i) {
    const KernelParamInfo &p = k.params[i];
    if (p.tensor && !p.tensor->symmetric && descs[i].kind == ArgDesc::Kind::Tensor) {
      const Tensor &t = tensorArg(args, i);
      if (t.peerBinding() && t.peerBinding()->kind == PeerBinding::Kind::Semaphores)
        fail(k, label(k, i) + " is given " + t.describe() +
                    ": a tile::Semaphores goes to a semaphore[S] parameter");
    }
    if (!p.semaphore && !isSymmetric(p))
      continue;
    if (descs[i].kind != ArgDesc::Kind::Tensor)
      fail(k, label(k, i) + " is not given a " +
                  (p.semaphore ? "tile::Semaphores" : "symmetric tile::Tensor"));
    const Tensor &t = tensorArg(args, i);
    const PeerBinding &b = requireBinding(k, i, t);
    if (!launch.group) {
      launch.group = t.peerBinding();
      groupFrom = i;
    } else if (launch.group->group != b.group) {
      fail(k, label(k, i) + " belongs to another communicator than " + label(k, groupFrom) +
                  ": the symmetric tensors and semaphores of a launch must come from one "
                  "communicator (their peers are its ranks)");
    }
    if (p.semaphore) {
      for (const auto &[state, from] : semaphores)
        if (state == b.semaphores.get())
          fail(k, "one tile::Semaphores is given for " + label(k, from) + " and " + label(k, i) +
                      ": each semaphore parameter needs its own array (the exit protocol "
                      "resets it)");
      semaphores.emplace_back(b.semaphores.get(), i);
      if (k.exitSemaphore >= 0 && size_t(k.exitSemaphore) == i)
        launch.exitSemaphore = b.semaphores;
    }
  }
  if (k.exitSemaphore >= 0 &&
      (size_t(k.exitSemaphore) >= n || !k.params[size_t(k.exitSemaphore)].semaphore))
    fail(k, "the exit semaphore is parameter " + std::to_string(k.exitSemaphore) +
                ", which is not a semaphore parameter (the kernel info is malformed)");

  for (size_t h = 0; h < n; ++h) {
    if (!k.params[h].peer)
      continue;
    const HiddenPeerInfo &info = *k.params[h].peer;
    const std::string hidden = "hidden parameter " + std::to_string(h) + " ('" + k.params[h].name +
                               "', the " + kindName(info.kind) + ")";
    if (h < count)
      fail(k, hidden + " is listed before a declared parameter (the kernel info is malformed)");
    if (info.kind == HiddenPeerInfo::Kind::DeviceRank ||
        info.kind == HiddenPeerInfo::Kind::DeviceCount) {
      if (!launch.group)
        fail(k, hidden + ": the kernel has no symmetric tensor or semaphore argument to take "
                         "the communicator from (the kernel info is malformed)");
      values[h] = uint64_t(info.kind == HiddenPeerInfo::Kind::DeviceRank ? launch.group->rank
                                                                         : launch.group->world);
      continue;
    }
    const int src = info.param;
    if (src < 0 || size_t(src) >= count ||
        (needsSemaphore(info.kind) && !k.params[size_t(src)].semaphore) ||
        (needsSymmetric(info.kind) && !isSymmetric(k.params[size_t(src)])))
      fail(k, hidden + " names parameter " + std::to_string(src) + ", which is not a " +
                  (needsSemaphore(info.kind) ? "semaphore" : "symmetric tensor") +
                  " parameter (the kernel info is malformed)");
    const PeerBinding &b = *tensorArg(args, size_t(src)).peerBinding();
    switch (info.kind) {
    case HiddenPeerInfo::Kind::PeerPointers:
    case HiddenPeerInfo::Kind::SemaphorePeers:
      values[h] = b.peerTable;
      break;
    case HiddenPeerInfo::Kind::SemaphoreEpoch: {
      std::lock_guard<std::mutex> lock(b.semaphores->mu);
      // The exit protocol of this launch waits for epoch * (world - 1) exit
      // signals: this launch is number epoch + 1 on the array.
      values[h] = b.semaphores->epoch + (launch.exitSemaphore == b.semaphores ? 1 : 0);
      break;
    }
    case HiddenPeerInfo::Kind::SemaphoreCount:
      values[h] = b.semaphores->count;
      break;
    default: // PeerMaps: bound with the tensor maps (peerMapArray)
      break;
    }
  }
  return values;
}

uint64_t semaphoreArgument(const KernelInfo &k, size_t i, const Tensor &t,
                           const std::vector<std::optional<uint64_t>> &hidden) {
  const PeerBinding &b = requireBinding(k, i, t);
  const TensorParamInfo::Extent &c = k.params[i].semaphore->count;
  const uint64_t count = b.semaphores->count;
  if (c.literal && uint64_t(*c.literal) != count)
    fail(k, label(k, i) + " is given " + t.describe() + ": the kernel declares " +
                std::to_string(*c.literal) + " counters but the array has " +
                std::to_string(count));
  if (!c.literal) {
    if (c.hiddenParam < 0 || size_t(c.hiddenParam) >= k.params.size())
      fail(k, label(k, i) + ": count '" + c.name +
                  "' has no hidden parameter in the kernel info (the kernel info is malformed)");
    const std::optional<uint64_t> &v = hidden[size_t(c.hiddenParam)];
    // The count's parameter is filled from this array or another's (or is a
    // tensor extent of the same name, which TensorArgs.cpp checks).
    if (v && *v != count)
      fail(k, label(k, i) + " is given " + t.describe() + ": '" + c.name + "' is " +
                  std::to_string(*v) + " from another argument but this array has " +
                  std::to_string(count) + " counters");
  }
  return b.peers[size_t(b.rank)];
}

void checkSymmetricArgument(const KernelInfo &k, size_t i, const Tensor &t, PeerLaunch &launch) {
  const PeerBinding &b = requireBinding(k, i, t);
  // The kernel addresses a peer's element (r, c) at peers[d] + (r * C + c) *
  // size: only a dense row-major part from the allocation's start means that.
  if (!t.strides().empty() || t.address() != b.peers[size_t(b.rank)])
    fail(k, label(k, i) + " is given " + t.describe() +
                ": a symmetric tensor must be the dense row-major start of its buffer "
                "(SymmetricBuffer::symmetricTensor)");
  launch.symmetricExtents.emplace_back(k.params[i].name, t.extents());
}

uint64_t peerMapArray(const KernelInfo &k, size_t param, const Tensor &t,
                      const TensorMapDesc &own) {
  const PeerBinding &b = *t.peerBinding();
  (void)param;
  return b.maps->arrayFor(own, b.peers, b.rank, k.name);
}

void commitPeerLaunch(const PeerLaunch &launch) {
  if (!launch.exitSemaphore)
    return;
  std::lock_guard<std::mutex> lock(launch.exitSemaphore->mu);
  ++launch.exitSemaphore->epoch;
}

std::vector<uint64_t> uniformExtents(const PeerLaunch &launch) {
  std::vector<uint64_t> v;
  for (const auto &[name, extents] : launch.symmetricExtents) {
    v.push_back(extents.size());
    for (int64_t e : extents)
      v.push_back(uint64_t(e));
  }
  return v;
}

} // namespace tile::detail
