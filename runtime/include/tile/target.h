// tile/target.h - the target facts tilec and its runtime rely on, each written once.
//
// Plain C++17 with no dependency, so that the compiler (driver, verifiers, CLI)
// and the runtime can share it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace tile::target {

/// A PTX target tilec emits code for.
struct Arch {
  const char *name;  // PTX `.target` and ptxas -arch (e.g. "sm_90a")
  int smVersion;     // compute capability x 10 (90 for 9.0)
  /// The "a" targets: arch-specific features (wgmma, setmaxnreg) that run only
  /// on exactly this compute capability (PTX ISA 9.x "Target ISA notes").
  bool archSpecific;
};

/// The targets tilec accepts, the default first. Every kernel may use clusters,
/// distributed shared memory (mapa, ld/st/atom on .shared::cluster),
/// mbarrier transaction counts (expect_tx, try_wait, .release/.acquire
/// qualifiers) and st.async: each needs sm_90 and PTX ISA 8.0. None of them
/// needs the arch-specific sm_90a; wgmma and setmaxnreg will, and will be
/// checked per operation against Arch::archSpecific.
inline constexpr Arch kSupportedArchs[] = {
    {"sm_90a", 90, true},
    {"sm_90", 90, false},
};
inline constexpr const char *kDefaultArch = kSupportedArchs[0].name;
/// The lowest compute capability with clusters, DSMEM, mbarrier transaction
/// counts and st.async (PTX ISA 8.0 requires sm_90 for each).
inline constexpr int kMinSmVersion = 90;

/// PTX ISA version of the emitted `.version`: 8.6 is the oldest that carries
/// every sm_90 feature tilec emits.
inline constexpr int kPtxIsaMajor = 8;
inline constexpr int kPtxIsaMinor = 6;
/// The NVPTX subtarget feature that selects that version ("+ptx86").
inline std::string ptxIsaFeature() {
  return "+ptx" + std::to_string(kPtxIsaMajor) + std::to_string(kPtxIsaMinor);
}

//===- Execution limits of sm_90 (CUDA programming guide, "Compute
//     Capabilities", table "Technical Specifications per Compute Capability").

/// Threads per warp.
inline constexpr int kWarpSize = 32;
/// Threads per CTA (the product of .maxntid / the block dimensions).
inline constexpr int kMaxThreadsPerBlock = 1024;
/// Resident CTAs per SM (the largest useful .minnctapersm) and resident
/// threads per SM.
inline constexpr int kMaxBlocksPerSM = 32;
inline constexpr int kMaxThreadsPerSM = 2048;
/// Largest block dimension in x, y, z.
inline constexpr int kMaxBlockDims[3] = {kMaxThreadsPerBlock, kMaxThreadsPerBlock, 64};
/// Largest grid dimension in x, y, z.
inline constexpr unsigned kMaxGridDims[3] = {2147483647u, 65535u, 65535u};
/// CTAs per cluster: 8 portable, 16 with a non-portable launch (CUDA
/// programming guide, "Thread Block Clusters"; PTX .reqnctapercluster).
inline constexpr int kMaxPortableClusterSize = 8;
inline constexpr int kMaxClusterSize = 16;

//===- Shared memory.

/// Shared memory per CTA with the opt-in attribute on sm_90: 227 KB.
inline constexpr int64_t kMaxSharedBytesPerBlock = 227 * 1024;
/// Dynamic shared memory a launch may use without raising
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: 48 KB.
inline constexpr int64_t kSharedBytesWithoutOptIn = 48 * 1024;
/// An mbarrier object is 8 bytes, 8-byte aligned, in shared memory (PTX ISA
/// 9.7.13.15.1 "Size and alignment of mbarrier object").
inline constexpr int kMBarrierBytes = 8;
inline constexpr int kMBarrierAlign = 8;
/// Largest arrival count of an mbarrier phase and largest pending
/// transaction count: both 2^20 - 1 (PTX ISA 9.7.13.15.1, "Contents of the
/// mbarrier object").
inline constexpr int64_t kMaxMBarrierArrivals = (1 << 20) - 1;
inline constexpr int64_t kMaxMBarrierTxBytes = (1 << 20) - 1;

//===- NVVM / NVPTX address spaces (LLVM's NVPTX "Address Spaces" table;
//     MLIR's NVVM::NVVMMemorySpace has the same numbers, asserted where the
//     lowering includes both).
inline constexpr unsigned kGenericAddressSpace = 0;
inline constexpr unsigned kGlobalAddressSpace = 1;
inline constexpr unsigned kSharedAddressSpace = 3;
inline constexpr unsigned kConstantAddressSpace = 4;
inline constexpr unsigned kLocalAddressSpace = 5;
/// .shared::cluster: a CTA's own or a peer's shared memory (mapa results).
inline constexpr unsigned kSharedClusterAddressSpace = 7;

/// The supported target called `name`, or nullptr.
inline const Arch *findArch(std::string_view name) {
  for (const Arch &arch : kSupportedArchs)
    if (name == arch.name)
      return &arch;
  return nullptr;
}

/// "sm_90a, sm_90": for hints.
inline std::string supportedArchList() {
  std::string list;
  for (const Arch &arch : kSupportedArchs) {
    if (!list.empty())
      list += ", ";
    list += arch.name;
  }
  return list;
}

/// Why `name` is not a target tilec serves: an error line and a hint, both
/// without the leading "error: "/"hint: ". Empty when `name` is supported.
inline std::pair<std::string, std::string> unsupportedArchReason(std::string_view name) {
  if (findArch(name))
    return {};
  std::string quoted = "'" + std::string(name) + "'";
  std::string hint = "tilec targets " + supportedArchList() + " (the default is " +
                     kDefaultArch + ")";
  if (name.empty())
    return {"empty target architecture", hint};
  // sm_NN / sm_NNa / sm_NNf below sm_90: a real GPU that lacks what tile kernels use.
  int version = 0;
  size_t digits = 0;
  if (name.substr(0, 3) == "sm_") {
    while (3 + digits < name.size() && name[3 + digits] >= '0' && name[3 + digits] <= '9' &&
           digits < 4)
      version = version * 10 + (name[3 + digits++] - '0');
  }
  if (digits > 0 && version < kMinSmVersion)
    return {"target architecture " + quoted +
                " is not supported: thread-block clusters, distributed shared memory, "
                "mbarrier transaction counts, st.async and fence.proxy.async need sm_90 or newer",
            hint};
  // Newer GPUs have these features, but other limits (shared memory per CTA,
  // cluster sizes) than the Hopper ones tilec checks kernels against.
  if (digits > 0)
    return {"target architecture " + quoted +
                " is not supported: tilec checks kernels against Hopper's (sm_90) limits only",
            hint};
  return {"unknown target architecture " + quoted, hint};
}

}  // namespace tile::target
