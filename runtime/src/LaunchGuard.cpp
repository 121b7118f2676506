//===- LaunchGuard.cpp - what every launch checks first -------------------===//
#include "LaunchGuard.h"

#include "Provenance.h"

#include <cstdio>
#include <cstring>

namespace tile::detail {
namespace {

[[noreturn]] void refuse(const KernelState &k, int code, const std::string &why) {
  throw Error::withMessage("Kernel::launch", code, k.name, "kernel '" + k.name + "': " + why);
}

std::string list(const std::vector<std::string> &items) {
  std::string s;
  for (const std::string &i : items)
    s += "\n  - " + i;
  return s;
}

} // namespace

std::vector<std::string> skippedChecksOf(const KernelState &k) {
  if (k.info)
    return {};
  std::vector<std::string> skipped = {
      "argument kinds: only sizes are compared, so a float passed for an i32 is not caught",
      "raw pointer arguments: a CUdeviceptr cannot be told from a 64-bit integer "
      "(DeviceBuffer arguments are still checked)",
      "dynamic shared memory: cfg.sharedBytes is used as given (0 when unset)"};
  if (!k.facts.found)
    skipped.push_back("the block shape against the kernel's .reqntid: a cubin's PTX directives "
                      "are not visible");
  return skipped;
}

std::string skippedChecksNote(const KernelState &k) {
  const std::vector<std::string> skipped = skippedChecksOf(k);
  if (skipped.empty())
    return {};
  return "the kernel has no kernel info (ModuleOptions::withoutKernelInfo), so these checks "
         "were skipped:" +
         list(skipped);
}

CUstream admitLaunch(KernelState &k, const LaunchConfig &cfg, std::shared_ptr<StreamState> &hold) {
  const ModuleState &m = *k.module;
  const ContextState &ctx = *m.ctx;
  if (!k.info) {
    if (!m.withoutInfo)
      refuse(k, CUDA_ERROR_INVALID_VALUE,
             "the kernel has no kernel info, so its launches cannot be checked:" +
                 list(skippedChecksOf(k)) +
                 "\nLoad the module with Module::fromFiles (the .info.json tilec --emit=info "
                 "writes beside the PTX) or with a ModuleInfo; or, to launch without these "
                 "checks, load it with ModuleOptions::withoutKernelInfo = true");
    std::lock_guard<std::mutex> lock(k.mu);
    if (m.reportSkipped && !k.skippedReported)
      std::fprintf(stderr, "tilec runtime: kernel '%s' launches without kernel info; %s\n",
                   k.name.c_str(), skippedChecksNote(k).c_str());
    k.skippedReported = true;
  }

  // The calling thread's context: the driver answers CUDA_ERROR_INVALID_CONTEXT
  // without one and CUDA_ERROR_INVALID_HANDLE for a kernel of another context.
  CUcontext current = nullptr;
  TILE_CU_K(k.name, cuCtxGetCurrent, &current);
  if (current != ctx.ctx)
    refuse(k, current ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_CONTEXT,
           "the kernel is loaded in " + describeContext(ctx.ctx) + " but the calling thread has " +
               (current ? describeContext(current) + " current"
                        : std::string("no current context (a thread that never made a "
                                      "tile::Context current)")) +
               ": call makeCurrent() on device " + std::to_string(ctx.ordinal) +
               "'s Context on this thread first");

  const StreamRef &ref = cfg.stream;
  if (ref.owned()) {
    hold = ref.owner().lock();
    if (!hold)
      refuse(k, CUDA_ERROR_INVALID_HANDLE,
             "cfg.stream names a tile::Stream that has been destroyed or moved from: a launch "
             "config holds a view of its stream, so keep the tile::Stream alive (and unmoved) "
             "while launching on it");
    if (hold->ctx && hold->ctx->ctx != ctx.ctx)
      refuse(k, CUDA_ERROR_INVALID_HANDLE,
             "cfg.stream belongs to " + describeContext(hold->ctx->ctx) +
                 " but the kernel is loaded in " + describeContext(ctx.ctx) +
                 ": create the stream with that Context (tile::Stream(ctx))");
    return hold->stream;
  }
  if (ref.raw() && driver().api.cuStreamGetCtx) {
    // A stream the runtime does not own: its context, when the driver knows it.
    CUcontext owner = nullptr;
    const CUresult r = driver().api.cuStreamGetCtx(ref.raw(), &owner);
    if (r != CUDA_SUCCESS)
      throw Error("cuStreamGetCtx", r, k.name,
                  "cfg.stream is not a stream the driver knows (destroyed?); the launch was not "
                  "made");
    if (owner && owner != ctx.ctx)
      refuse(k, CUDA_ERROR_INVALID_HANDLE,
             "cfg.stream belongs to " + describeContext(owner) + " but the kernel is loaded in " +
                 describeContext(ctx.ctx));
  }
  return ref.raw();
}

void checkPointerArguments(const KernelState &k, const LaunchConfig &cfg, void *const *args,
                           const size_t *sizes, const ArgDesc *descs, size_t count,
                           const bool *known) {
  const ContextState &ctx = *k.module->ctx;
  for (size_t i = 0; i < count; ++i) {
    const KernelParamInfo *p =
        k.info && i < k.info->params.size() ? &k.info->params[i] : nullptr;
    const bool buffer = descs && descs[i].kind == ArgDesc::Kind::DeviceBuffer;
    const bool tensor = descs && descs[i].kind == ArgDesc::Kind::Tensor;
    if (tensor)
      continue; // checked where it is bound (TensorArgs.cpp)
    if (!(buffer || (p && p->isPointer && !p->isHidden())) || sizes[i] != sizeof(CUdeviceptr))
      continue;
    CUdeviceptr value = 0;
    std::memcpy(&value, args[i], sizeof value);
    std::string why = pointerProblem(ctx, value, cfg.checkPointers && !(known && known[i]));
    if (why.empty() && p && p->addressAlign > 1 && value % p->addressAlign != 0)
      why = "is " + hexAddress(value) + ", not a multiple of " + std::to_string(p->addressAlign) +
            " bytes: the kernel's loads and stores through it need that alignment (an "
            "ld/st of N bytes needs an N-byte aligned address, PTX ISA 6.4.1; a vector access "
            "at an index the compiler knows to be a multiple of the vector's length puts the "
            "requirement on the pointer itself) and would trap with "
            "CUDA_ERROR_MISALIGNED_ADDRESS: pass an aligned address (a slice of an array "
            "starting at an element index that is a multiple of " +
            std::to_string(p->addressAlign / scalarBytes(p->scalar)) + ")";
    if (why.empty())
      continue;
    if (buffer && !value)
      why += " (an empty DeviceBuffer: moved from, or of 0 elements)";
    refuse(k, CUDA_ERROR_INVALID_VALUE,
           "argument " + std::to_string(i) +
               (p ? " ('" + p->name + "', " + p->typeName() + ")" : std::string(" (a DeviceBuffer)")) +
               " " + why);
  }
}

} // namespace tile::detail
