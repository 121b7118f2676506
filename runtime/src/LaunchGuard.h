//===- LaunchGuard.h - what every launch checks first (internal) -*- C++ -*-===//
//
// The checks of a launch that concern where it runs rather than its shape:
// the kernel info (or the explicit opt-out of it), the calling thread's
// current context, the stream (alive, of the kernel's context), and the
// pointer and tensor arguments' memory (Provenance.h). Each failure names the
// kernel and what was expected and given, where the driver would answer
// CUDA_ERROR_INVALID_HANDLE / INVALID_CONTEXT, or fault after the launch.
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "RuntimeState.h"

namespace tile::detail {

/// The checks a kernel without info cannot make (empty with info).
std::vector<std::string> skippedChecksOf(const KernelState &k);

/// Admits a launch of `k` with `cfg`: throws unless the kernel has info or its
/// module opted out (then the skipped checks are reported once, to stderr),
/// unless the thread's current context is the kernel's, and unless cfg.stream
/// is alive and of that context. Returns the CUstream to launch on; `hold`
/// keeps a tile::Stream's state alive until the launch returns.
CUstream admitLaunch(KernelState &k, const LaunchConfig &cfg, std::shared_ptr<StreamState> &hold);

/// Checks every pointer and tensor argument (not null; with
/// cfg.checkPointers, device memory of the kernel's context and a tensor
/// inside its allocation; a tensor's DeviceBuffer still allocated). A pointer
/// argument is a DeviceBuffer, or with kernel info any argument for a
/// ptr<T, global> parameter.
/// `known[i]` (when given) marks an argument whose memory was queried at an
/// earlier launch with this address: not asked of the driver again.
void checkPointerArguments(const KernelState &k, const LaunchConfig &cfg, void *const *args,
                           const size_t *sizes, const ArgDesc *descs, size_t count,
                           const bool *known = nullptr);

/// Appended to a driver error of a launch of a kernel without info.
std::string skippedChecksNote(const KernelState &k);

} // namespace tile::detail
