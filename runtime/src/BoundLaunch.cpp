//===- BoundLaunch.cpp - a launch bound once, relaunched with new addresses -===//
//
// A binding that launches one kernel many times with arguments of the same
// kinds, dtypes, extents and strides (tilec.ops: its calls are keyed by them)
// pays for launchDescribed's argument work once: Kernel::bind makes every
// check and encodes the maps; BoundLaunch::launch then redoes only what an
// address decides (its memory, a pointer's alignment, a map's address rule
// and encoding) and launches. The memory query (cuPointerGetAttributes, the
// driver's allocation lookup) is skipped for an address the binding's
// previous launches already had at that parameter (kRecentAddresses of
// them): a caller that relaunches with the arrays it holds (tilec.ops: the
// same operands, an output alternating between two buffers of torch's
// allocator) asks the driver nothing per launch; a new address is queried.
//===----------------------------------------------------------------------===//
#include "LaunchGuard.h"
#include "Provenance.h"
#include "RuntimeState.h"
#include "TensorArgs.h"
#include "tile/runtime.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace tile {

struct BoundLaunch::State {
  Kernel kernel;
  LaunchConfig cfg;                 // sharedBytes resolved
  std::vector<ArgDesc> descs;       // the declared parameters'
  std::vector<size_t> sizes;        // the declared parameters'
  std::vector<uint64_t> values;     // each declared non-tensor argument's bytes
  std::vector<void *> declaredArgs; // into values (nullptr for a tensor)
  detail::BoundArguments bound;     // the driver's list, when the kernel has tensors
  std::vector<void *> *driverArgs = &declaredArgs;
  static constexpr size_t kRecentAddresses = 2;
  struct Address {
    size_t param;
    // The addresses whose memory the driver confirmed here, the most
    // recently launched first (0: none): their query is not repeated.
    std::array<CUdeviceptr, kRecentAddresses> known{};
    size_t value = 0;                  // pointer: its slot in values
    std::optional<Tensor> tensor;      // tensor: as last launched
    std::optional<TensorMapDesc> desc; // its map's, when the parameter has a TMA box
    TensorMap *map = nullptr;          // in bound.maps
  };
  std::vector<Address> addresses;
  std::mutex mu; // one launch at a time rewrites the addresses
};

namespace {
[[noreturn]] void refuse(const std::string &kernel, const std::string &message,
                         const char *call = "Kernel::launch") {
  throw Error::withMessage(call, CUDA_ERROR_INVALID_VALUE, kernel, message);
}
TensorShape shapeOf(const std::vector<int64_t> &v) { return TensorShape(v.begin(), v.end()); }
} // namespace

BoundLaunch Kernel::bind(const LaunchConfig &cfg, void **args, const ArgDesc *descs,
                         size_t argCount) {
  detail::KernelState &s = detail::require(state_, "Kernel::bind", "Kernel");
  auto st = std::make_shared<BoundLaunch::State>();
  st->kernel = *this;
  st->descs.assign(descs, descs + argCount);
  st->sizes.resize(argCount);
  size_t slots = 0;
  for (size_t i = 0; i < argCount; ++i) {
    st->sizes[i] = descs[i].size;
    if (descs[i].kind != ArgDesc::Kind::Tensor)
      slots += (descs[i].size + 7) / 8;
  }
  // The scalars and pointers, copied: the caller's storage is gone after bind.
  st->values.assign(slots, 0);
  st->declaredArgs.assign(argCount, nullptr);
  for (size_t i = 0, at = 0; i < argCount; ++i) {
    if (descs[i].kind == ArgDesc::Kind::Tensor)
      continue;
    std::memcpy(&st->values[at], args[i], descs[i].size);
    st->declaredArgs[i] = &st->values[at];
    at += (descs[i].size + 7) / 8;
  }
  const bool tensors = s.info && detail::hasTensorParams(*s.info);
  if (s.info) {
    const std::string msg = checkArgumentKinds(*s.info, descs, argCount);
    if (!msg.empty())
      refuse(s.name, msg);
  }
  detail::checkPointerArguments(s, cfg, st->declaredArgs.data(), st->sizes.data(), descs, argCount);
  if (tensors) {
    for (const KernelParamInfo &p : s.info->params)
      if (p.semaphore || (p.tensor && p.tensor->symmetric) || p.peer)
        refuse(s.name,
               "kernel '" + s.name +
                   "': a launch with symmetric tensor or semaphore parameters cannot be bound "
                   "(each launch checks its ranks' agreement): launch it with launchDescribed",
               "Kernel::bind");
    for (size_t i = 0; i < argCount; ++i)
      if (descs[i].kind == ArgDesc::Kind::Tensor)
        st->declaredArgs[i] = args[i]; // the caller's tile::Tensor, read by the binder
    detail::bindTensorArguments(*s.info, st->declaredArgs.data(), st->sizes.data(), descs, argCount,
                                /*encode=*/true, st->bound, s.module->ctx.get(), cfg.checkPointers);
    for (size_t i = 0; i < argCount; ++i) {
      if (descs[i].kind == ArgDesc::Kind::Tensor) {
        st->declaredArgs[i] = nullptr;
        continue;
      }
      st->bound.args[i] = st->declaredArgs[i]; // the copies, not the caller's storage
    }
    if (s.paramsKnown)
      validateArguments(s.name, st->bound.sizes.data(), st->bound.sizes.size(), s.params);
    st->driverArgs = &st->bound.args;
  } else {
    for (size_t i = 0; i < argCount; ++i)
      if (descs[i].kind == ArgDesc::Kind::Tensor)
        refuse(s.name, "kernel '" + s.name + "': argument " + std::to_string(i) +
                           " is a tile::Tensor but the kernel has no tensor parameter");
    if (s.paramsKnown)
      validateArguments(s.name, st->sizes.data(), argCount, s.params);
  }
  st->cfg = resolve(cfg, st->driverArgs->data());
  for (size_t i = 0, at = 0; i < argCount; ++i) {
    const bool tensor = descs[i].kind == ArgDesc::Kind::Tensor;
    const KernelParamInfo *p = s.info && i < s.info->params.size() ? &s.info->params[i] : nullptr;
    if (!tensor && !(p && p->isPointer) && descs[i].kind != ArgDesc::Kind::DeviceBuffer) {
      at += (descs[i].size + 7) / 8;
      continue;
    }
    BoundLaunch::State::Address a;
    a.param = i;
    if (tensor) {
      const Tensor &t = *static_cast<const Tensor *>(args[i]);
      if (cfg.checkPointers)
        a.known[0] = t.address(); // bindTensorArguments queried it
      a.tensor = t;
      a.map = static_cast<TensorMap *>(st->bound.args[i]);
      const TensorParamInfo &ti = *p->tensor;
      if (!ti.box.empty())
        a.desc = detail::tensorMapDescOf(ti, t.element(), t);
    } else {
      a.value = at;
      if (cfg.checkPointers)
        a.known[0] = st->values[at]; // checkPointerArguments queried it
      at += (descs[i].size + 7) / 8;
    }
    st->addresses.push_back(std::move(a));
  }
  BoundLaunch b;
  b.state_ = std::move(st);
  return b;
}

size_t BoundLaunch::addressCount() const {
  return detail::require(state_, "BoundLaunch::addressCount", "BoundLaunch").addresses.size();
}

void BoundLaunch::launch(const CUdeviceptr *addresses, size_t count, StreamRef stream) {
  State &st = detail::require(state_, "BoundLaunch::launch", "BoundLaunch");
  detail::KernelState &s = *st.kernel.state_;
  if (count != st.addresses.size())
    refuse(s.name, "kernel '" + s.name + "': " + std::to_string(count) +
                       " addresses given to a bound launch of " +
                       std::to_string(st.addresses.size()) + " pointer and tensor parameters");
  std::lock_guard<std::mutex> lock(st.mu);
  LaunchConfig cfg = st.cfg;
  cfg.stream = stream;
  std::shared_ptr<detail::StreamState> hold;
  const CUstream raw = detail::admitLaunch(s, cfg, hold);
  const auto known = [&](size_t j) {
    const auto &k = st.addresses[j].known;
    return cfg.checkPointers && addresses[j] &&
           std::find(k.begin(), k.end(), addresses[j]) != k.end();
  };
  // Null and alignment are checked at every launch; the memory only when a
  // pointer's address is new here.
  const std::unique_ptr<bool[]> knownArgs(new bool[st.descs.size()]());
  for (size_t j = 0; j < count; ++j)
    if (!st.addresses[j].tensor) {
      st.values[st.addresses[j].value] = addresses[j];
      knownArgs[st.addresses[j].param] = known(j);
    }
  detail::checkPointerArguments(s, cfg, st.declaredArgs.data(), st.sizes.data(), st.descs.data(),
                                st.descs.size(), knownArgs.get());
  // Every tensor checked before any map changes: a refused launch leaves the
  // bound maps as the last launch had them.
  std::vector<std::optional<Tensor>> moved(count);
  for (size_t j = 0; j < count; ++j) {
    State::Address &a = st.addresses[j];
    if (!a.tensor)
      continue;
    const Tensor *t = &*a.tensor;
    const auto label = [&] {
      return "kernel '" + s.name + "': " + detail::argLabel(*s.info, a.param);
    };
    if (addresses[j] != t->address()) {
      moved[j].emplace(addresses[j], t->element(), shapeOf(t->extents()), shapeOf(t->strides()));
      t = &*moved[j];
      if (a.desc) {
        TensorMapDesc d = *a.desc;
        d.address = addresses[j];
        const std::string why = checkTensorMap(d);
        if (!why.empty())
          refuse(s.name, label() + ": " + describeTensorMap(d) + ": " + why);
      }
    }
    const std::string why =
        detail::tensorMemoryProblem(*s.module->ctx, *t, cfg.checkPointers && !known(j));
    if (!why.empty())
      refuse(s.name, label() + " " + why);
  }
  // Every address passed its checks: each is now the newest of its
  // parameter's known ones (a new one drops the least recently launched).
  for (size_t j = 0; j < count && cfg.checkPointers; ++j) {
    auto &k = st.addresses[j].known;
    auto at = std::find(k.begin(), k.end(), addresses[j]);
    if (at == k.end()) {
      at = k.end() - 1;
      *at = addresses[j];
    }
    std::rotate(k.begin(), at, at + 1);
  }
  for (size_t j = 0; j < count; ++j) {
    State::Address &a = st.addresses[j];
    if (!moved[j])
      continue;
    if (a.desc) {
      a.desc->address = addresses[j];
      *a.map = detail::cachedTensorMap(*a.desc, s.name);
    }
    a.tensor = std::move(moved[j]);
  }
  st.kernel.launchNow(cfg, st.driverArgs->data(), raw);
}

} // namespace tile
