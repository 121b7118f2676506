//===- TensorArgs.cpp - tile::Tensor arguments bound to tensor parameters --===//
//
// A `tensor<T>[...]` parameter is a 128-byte CUtensorMap in the kernel's
// parameter space and each extent name it declares is a hidden i32 parameter
// (tile/kernel_info.h). The host passes a tile::Tensor; this file checks it
// against what the kernel was compiled for and builds the argument list the
// driver sees: maps in 64-byte aligned storage, hidden extents appended.
//===----------------------------------------------------------------------===//
#include "TensorArgs.h"

#include "Provenance.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "tile/error.h"

namespace tile::detail {

namespace {

[[noreturn]] void fail(const KernelInfo &k, const std::string &what) {
  throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, k.name,
                           "kernel '" + k.name + "': " + what);
}


// The hidden parameter's source: a tensor parameter and one of its dimensions;
// a kernel info that says otherwise is refused rather than read out of bounds.
const TensorParamInfo &hiddenSource(const KernelInfo &k, size_t p) {
  const HiddenExtentInfo &h = *k.params[p].hidden;
  if (h.tensorParam < 0 || static_cast<size_t>(h.tensorParam) >= k.params.size() ||
      !k.params[h.tensorParam].tensor || k.params[h.tensorParam].hidden ||
      h.dim >= k.params[h.tensorParam].tensor->extents.size())
    fail(k, "hidden parameter " + std::to_string(p) + " ('" + k.params[p].name +
                "') names tensor parameter " + std::to_string(h.tensorParam) + " dimension " +
                std::to_string(h.dim) + ", which the kernel info does not have");
  return *k.params[h.tensorParam].tensor;
}

} // namespace

std::string argLabel(const KernelInfo &k, size_t i) {
  return "tensor argument " + std::to_string(i) + " ('" + k.params[i].name + "', " +
         k.params[i].typeName() + ")";
}

TensorMapDesc tensorMapDescOf(const TensorParamInfo &ti, TensorElement element, const Tensor &t) {
  TensorMapDesc desc;
  desc.element = element;
  desc.address = t.address();
  desc.extents = t.extents();
  desc.strides = t.strides();
  desc.box.assign(ti.box.begin(), ti.box.end());
  desc.swizzle = ti.swizzle;
  desc.l2Promotion = ti.l2Promotion;
  desc.oobZeroFill = ti.oobZeroFill;
  return desc;
}

bool hasTensorParams(const KernelInfo &kernel) {
  for (const KernelParamInfo &p : kernel.params)
    if (p.tensor || p.hidden || isPeerParam(p))
      return true;
  return false;
}

void bindTensorArguments(const KernelInfo &k, void **args, const size_t *sizes,
                         const ArgDesc *descs, size_t count, bool encode, BoundArguments &out,
                         const ContextState *ctx, bool query) {
  const size_t n = k.params.size();
  out.args.assign(n, nullptr);
  out.sizes.assign(n, 0);
  out.maps.clear();
  out.hidden.clear();
  size_t tensors = 0;
  for (const KernelParamInfo &p : k.params)
    tensors += p.tensor ? 1 : 0;
  out.maps.reserve(tensors); // no reallocation: args point into these
  out.hidden.reserve(n);
  out.wide.reserve(n);
  out.peer = PeerLaunch{};
  // Symmetric tensors, semaphores and the hidden parameters that come from
  // them (PeerArgs.cpp); the per-peer map arrays come after the maps below.
  const std::vector<std::optional<uint64_t>> peerValues =
      peerHiddenValues(k, args, descs, count, out.peer);

  // Hidden parameters first: a tensor's named extents are checked against them.
  std::vector<int64_t> hiddenValue(n, 0);
  std::vector<size_t> hiddenFrom(n, 0); // the argument each hidden value came from
  for (size_t p = 0; p < n; ++p) {
    if (k.params[p].peer) {
      if (!peerValues[p])
        continue; // the per-peer maps, bound below
      const HiddenPeerInfo::Kind kind = k.params[p].peer->kind;
      if (kind == HiddenPeerInfo::Kind::DeviceRank || kind == HiddenPeerInfo::Kind::DeviceCount ||
          kind == HiddenPeerInfo::Kind::SemaphoreCount) {
        // i32 in the kernel; a semaphore count may also be a tensor extent's name.
        hiddenValue[p] = int64_t(*peerValues[p]);
        hiddenFrom[p] = size_t(std::max(k.params[p].peer->param, 0));
        out.hidden.push_back(static_cast<int32_t>(*peerValues[p]));
        out.args[p] = &out.hidden.back();
        out.sizes[p] = sizeof(int32_t);
      } else {
        out.wide.push_back(*peerValues[p]);
        out.args[p] = &out.wide.back();
        out.sizes[p] = sizeof(uint64_t);
      }
      continue;
    }
    if (!k.params[p].hidden)
      continue;
    if (p < count)
      fail(k, "hidden parameter " + std::to_string(p) + " ('" + k.params[p].name +
                  "') is listed before a declared parameter (the kernel info is malformed)");
    hiddenSource(k, p);
    const HiddenExtentInfo &h = *k.params[p].hidden;
    const size_t src = static_cast<size_t>(h.tensorParam);
    if (src >= count || descs[src].kind != ArgDesc::Kind::Tensor)
      fail(k, "hidden parameter '" + k.params[p].name + "' comes from parameter " +
                  std::to_string(src) + ", which has no tile::Tensor argument");
    const Tensor &t = *static_cast<const Tensor *>(args[src]);
    if (h.dim >= t.rank())
      fail(k, argLabel(k, src) + " is given " + t.describe() + ", of rank " +
                  std::to_string(t.rank()) + ", but the kernel's tensor has rank " +
                  std::to_string(k.params[src].tensor->extents.size()));
    const int64_t v = t.extents()[h.dim];
    if (v > std::numeric_limits<int32_t>::max())
      fail(k, argLabel(k, src) + ": extent " + std::to_string(h.dim) + " ('" + k.params[p].name +
                  "') is " + std::to_string(v) +
                  ", above 2^31 - 1: the kernel receives it as an i32 (TMA coordinates are "
                  "32-bit signed)");
    hiddenValue[p] = v;
    hiddenFrom[p] = src;
    out.hidden.push_back(static_cast<int32_t>(v));
    out.args[p] = &out.hidden.back();
    out.sizes[p] = sizeof(int32_t);
  }

  // Every hidden value known so far: a named semaphore count is checked
  // against it (a tensor extent of the same name, or another array's count).
  std::vector<std::optional<uint64_t>> known = peerValues;
  for (size_t p = 0; p < n; ++p)
    if (k.params[p].hidden)
      known[p] = static_cast<uint64_t>(hiddenValue[p]);

  std::vector<std::pair<TensorMap *, TensorMapDesc>> toEncode;
  std::vector<std::optional<TensorMapDesc>> ownMaps(n); // symmetric tensors' own maps
  for (size_t i = 0; i < count; ++i) {
    const KernelParamInfo &p = k.params[i];
    if (p.semaphore) {
      out.wide.push_back(semaphoreArgument(k, i, *static_cast<const Tensor *>(args[i]), known));
      out.args[i] = &out.wide.back();
      out.sizes[i] = sizeof(uint64_t);
      continue;
    }
    if (!p.tensor) {
      out.args[i] = args[i];
      out.sizes[i] = sizes[i];
      continue;
    }
    const TensorParamInfo &ti = *p.tensor;
    const Tensor &t = *static_cast<const Tensor *>(args[i]);
    // Built only for a refusal: a launch that passes pays for no message.
    const auto label = [&] { return argLabel(k, i); };
    if (ti.symmetric) // (a tile::Semaphores for a plain tensor: refused by peerHiddenValues)
      checkSymmetricArgument(k, i, t, out.peer);
    auto element = tensorElementOf(ti.element);
    if (!element)
      fail(k, label() + ": TMA cannot move elements of type " + scalarTypeName(ti.element));
    if (!t.holds(*element))
      fail(k, label() + " is given " + t.describe() + ": its elements are " +
                  tensorElementName(t.element()) + ", not " + tensorElementName(*element));
    if (t.rank() != ti.extents.size())
      fail(k, label() + " is given " + t.describe() + " of rank " + std::to_string(t.rank()) +
                  ", but the parameter has rank " + std::to_string(ti.extents.size()));
    std::string why = t.check();
    if (!why.empty())
      fail(k, label() + " is given " + t.describe() + ": " + why);
    for (size_t d = 0; d < ti.extents.size(); ++d) {
      const TensorParamInfo::Extent &e = ti.extents[d];
      const int64_t given = t.extents()[d];
      if (e.literal && given != *e.literal)
        fail(k, label() + " is given " + t.describe() + ": extent " + std::to_string(d) + " is " +
                    std::to_string(given) + " but the kernel declares " +
                    std::to_string(*e.literal));
      if (e.literal)
        continue;
      if (e.hiddenParam < 0 || static_cast<size_t>(e.hiddenParam) >= n ||
          !(k.params[e.hiddenParam].hidden ||
            (k.params[e.hiddenParam].peer &&
             k.params[e.hiddenParam].peer->kind == HiddenPeerInfo::Kind::SemaphoreCount)))
        fail(k, label() + ": extent '" + e.name +
                    "' has no hidden parameter in the kernel info (the kernel info is malformed)");
      const size_t hp = static_cast<size_t>(e.hiddenParam);
      if (given != hiddenValue[hp]) {
        const size_t from = hiddenFrom[hp];
        fail(k, "extent '" + e.name + "' is " + std::to_string(given) + " in " + label() +
                    " (dimension " + std::to_string(d) + ") but " +
                    std::to_string(hiddenValue[hp]) + " in " + argLabel(k, from) + " (dimension " +
                    std::to_string(k.params[hp].hidden ? k.params[hp].hidden->dim : 0) +
                    "): tensors that share an extent name must agree on it");
      }
    }
    if (ctx && !ti.symmetric) {
      why = tensorMemoryProblem(*ctx, t, query);
      if (!why.empty())
        fail(k, label() + " " + why);
    }
    out.maps.emplace_back();
    out.args[i] = &out.maps.back();
    out.sizes[i] = TensorMap::size();
    if (encode && !ti.box.empty()) {
      TensorMapDesc desc = tensorMapDescOf(ti, *element, t);
      why = checkTensorMap(desc);
      if (!why.empty())
        fail(k, label() + ": " + describeTensorMap(desc) + ": " + why);
      if (ti.symmetric)
        ownMaps[i] = desc;
      toEncode.emplace_back(&out.maps.back(), std::move(desc));
    }
  }
  // Only once every argument passed its checks: a launch that fails leaves no
  // encodings behind.
  for (auto &[map, desc] : toEncode)
    *map = cachedTensorMap(desc, k.name);
  // Every rank's map of a symmetric tensor the kernel copies to or from peers
  // with (peer(A, d) in copy_async): a device array, made once per allocation
  // and map (PeerMaps.cpp).
  for (size_t p = 0; p < n; ++p) {
    if (!k.params[p].peer || k.params[p].peer->kind != HiddenPeerInfo::Kind::PeerMaps)
      continue;
    const size_t src = static_cast<size_t>(k.params[p].peer->param); // checked by peerHiddenValues
    uint64_t array = 0;
    if (encode) {
      if (!ownMaps[src])
        fail(k, "hidden parameter " + std::to_string(p) + " ('" + k.params[p].name +
                    "') needs the tensor map of " + argLabel(k, src) +
                    ", which has no TMA box (the kernel info is malformed)");
      array = peerMapArray(k, src, *static_cast<const Tensor *>(args[src]), *ownMaps[src]);
    }
    out.wide.push_back(array);
    out.args[p] = &out.wide.back();
    out.sizes[p] = sizeof(uint64_t);
  }
}

} // namespace tile::detail
