//===- TargetFacts.h - the target facts only the compiler needs -*- C++ -*-===//
//
// PTX targets, wgmma shapes and fragment layout, setmaxnreg ranges, mbarrier
// limits, named barriers, TMA shared-memory alignment and the NVPTX address
// spaces: what tilec checks kernels against and lowers with, and a host never
// needs. Header-only, plain C++17 with no dependency (the MLIR-free frontend
// includes it). The facts a host needs too (launch limits, tensor-map rules)
// are the runtime's, in tile/target.h, included here: each fact is written
// once.
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_TARGETFACTS_H
#define TILEC_TARGET_TARGETFACTS_H

#include "tile/target.h"

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

//===- Warps (CUDA programming guide, "Compute Capabilities").

/// Threads per warp.
inline constexpr int kWarpSize = 32;
/// Resident threads per SM.
inline constexpr int kMaxThreadsPerSM = 2048;

//===- mbarriers.

/// An mbarrier object is 8 bytes, 8-byte aligned, in shared memory (PTX ISA
/// 9.7.13.15.1 "Size and alignment of mbarrier object").
inline constexpr int kMBarrierBytes = 8;
inline constexpr int kMBarrierAlign = 8;
/// Largest pending transaction count: 2^20 - 1 (PTX ISA 9.7.13.15.1,
/// "Contents of the mbarrier object"); the arrival count's limit,
/// kMaxMBarrierArrivals, is the host's too (tile/target.h).
inline constexpr int64_t kMaxMBarrierTxBytes = (1 << 20) - 1;

//===- Warpgroups and registers (warp roles).

/// Threads per warpgroup: the unit of setmaxnreg and wgmma (PTX ISA
/// 9.7.17.1 "Warpgroup"; 9.7.19.x setmaxnreg).
inline constexpr int kWarpgroupSize = 4 * kWarpSize;
/// 32-bit registers per SM (and the most one CTA can hold): 64 K.
inline constexpr int64_t kRegistersPerSM = 65536;
/// setmaxnreg's register count: a multiple of 8 in 24..256 (PTX ISA
/// "setmaxnreg": "imm-reg-count ... in the range 24 to 256 (both inclusive)
/// ... multiple of 8").
inline constexpr int kMinSetMaxNReg = 24;
inline constexpr int kMaxSetMaxNReg = 256;
inline constexpr int kRegisterGranule = 8;

//===- wgmma: shapes and the accumulator fragment layout.

/// One wgmma.mma_async computes a 64 x N x 16 block for 16-bit operands
/// (PTX ISA 9.7.15.5 "wgmma.mma_async": shapes .m64nNk16 for .f16/.bf16).
inline constexpr int kWgmmaM = 64;
inline constexpr int kWgmmaK16Bit = 16;
/// .e4m3/.e5m2 operands (any mix of the two): .m64nNk32, the same 32 bytes
/// of K per instruction; both operands K-major (the transpose immediates
/// exist for .f16/.bf16 only; PTX ISA 9.7.15.5 "wgmma.mma_async").
inline constexpr int kWgmmaK8Bit = 32;
/// K of one wgmma for operands of `elemBytes`-byte elements.
constexpr int wgmmaK(int64_t elemBytes) { return elemBytes == 1 ? kWgmmaK8Bit : kWgmmaK16Bit; }
/// N of .m64nNk16: a multiple of 8 in 8..256.
inline constexpr int kWgmmaMinN = 8;
inline constexpr int kWgmmaMaxN = 256;
inline constexpr int kWgmmaNStep = 8;
/// wgmma.wait_group N: at most this many groups may stay pending in the
/// compiler's placement (the ring's stages bound it further).
inline constexpr int kWgmmaMaxInflight = 7;

/// Elements of an M x N accumulator fragment held by each of the 128 threads
/// of the warpgroup (PTX ISA 9.7.15.5.1 "Matrix fragments for
/// wgmma.mma_async.m64nNk16", D: N/2 elements per thread per 64-row block).
constexpr int64_t wgmmaFragmentElements(int64_t m, int64_t n) { return m * n / kWarpgroupSize; }

/// Row and column of element `e` (0 .. wgmmaFragmentElements - 1) held by
/// thread `t` (0..127, the thread's index in its warpgroup) of an M x N
/// fragment: per 64-row block b (M = 128: block 0 then block 1), warp w = t/32
/// owns rows 16w .. 16w+15; with lane l = t % 32 and i = e % (N/2):
///   row = 64b + 16w + l/4 + 8 * ((i % 4) / 2),  col = 8 * (i / 4) + 2 * (l % 4) + i % 2.
/// 16-bit fragments pack elements 2k and 2k+1 (two adjacent columns) into
/// 32-bit register k.
struct FragmentCoord {
  int64_t row, col;
};
constexpr FragmentCoord wgmmaFragmentCoord(int64_t n, int64_t e, int64_t t) {
  int64_t perBlock = n / 2;
  int64_t b = e / perBlock, i = e % perBlock;
  int64_t w = t / kWarpSize, l = t % kWarpSize;
  return {kWgmmaM * b + 16 * w + l / 4 + 8 * ((i % 4) / 2), 8 * (i / 4) + 2 * (l % 4) + i % 2};
}

/// Row and column of byte `byte` (0..3) of register `reg` (0..3) of the 8-bit
/// register operand A of one .m64nNk32 wgmma, held by thread `t` (0..127)
/// (PTX ISA 9.7.15.5.1 "Matrix fragments for wgmma.mma_async.m64nNk32", A:
/// the mma.m16n8k32 A fragment of each warp's 16 rows):
///   row = 16w + l/4 + 8 * (reg % 2),  col = 16 * (reg / 2) + 4 * (l % 4) + byte.
constexpr FragmentCoord wgmmaRegisterA8BitCoord(int64_t reg, int64_t byte, int64_t t) {
  int64_t w = t / kWarpSize, l = t % kWarpSize;
  return {16 * w + l / 4 + 8 * (reg % 2), 16 * (reg / 2) + 4 * (l % 4) + byte};
}

/// Shared-memory matrix descriptor of wgmma (PTX ISA 9.7.15.5.1.2 "Matrix
/// Descriptor Format"): bits 0-13 start address >> 4, 16-29 leading dimension
/// byte offset >> 4, 32-45 stride dimension byte offset >> 4, 49-51 base
/// offset, 62-63 swizzle mode (0 none, 1 128B, 2 64B, 3 32B).
inline constexpr int kWgmmaDescLboShift = 16;
inline constexpr int kWgmmaDescSboShift = 32;
inline constexpr int kWgmmaDescSwizzleShift = 62;
constexpr int64_t wgmmaSwizzleMode(int64_t swizzleBytes) {
  return swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : swizzleBytes == 32 ? 3 : 0;
}

/// Named barriers per CTA: ids 0..15; id 0 is the CTA-wide `bar.sync 0`
/// (PTX ISA 9.7.13.1 bar/barrier).
inline constexpr int kNumNamedBarriers = 16;
/// The first named barrier of the roles' `turn` blocks: ids 1..8 are the
/// roles' own barriers (at most 8 roles of one warpgroup at 1024 threads),
/// so the turns of all roles share ids 9..15.
inline constexpr int kFirstTurnBarrier = 9;

/// Registers per thread ptxas gives every thread of a kernel with `.maxntid T`
/// (or `.reqntid T`) and `.minnctapersm N` at entry: the SM's registers
/// spread over N x T threads, rounded down to the allocation granule (measured
/// with ptxas 13.0: 384 -> 168, 512 -> 128, 640 -> 96, 1024 -> 64; 256 x 3 -> 80). The
/// setmaxnreg pool of the CTA is this times T: a role's `.inc` waits until
/// others' `.dec` released enough, so the roles' total must fit in it.
inline constexpr int64_t entryRegistersPerThread(int64_t threads, int64_t minBlocks = 1) {
  // min_blocks(N) CTAs share the SM's registers: each gets 1/N of them.
  int64_t r = threads > 0 && minBlocks > 0 ? kRegistersPerSM / (threads * minBlocks) : 0;
  r = r / kRegisterGranule * kRegisterGranule;
  return r > kMaxSetMaxNReg ? kMaxSetMaxNReg : r;
}

//===- TMA destinations in shared memory (PTX ISA "Tensor Map").

/// Shared-memory alignment a TMA destination needs: 128 bytes, and 1024 for
/// the 128B swizzle (the swizzle pattern repeats every 8 rows of 128 bytes).
inline constexpr int64_t kTmaSharedAlign = 128;
inline constexpr int64_t kTmaSharedAlign128BSwizzle = 1024;
/// Swizzle atoms are 8 rows of the swizzle span (32, 64 or 128 bytes),
/// permuted in 16-byte chunks; 128 bytes is the widest span.
inline constexpr int kTmaSwizzleRows = 8;
inline constexpr int kTmaSwizzleChunk = 16;
inline constexpr int kTmaMaxSwizzleBytes = 128;
/// A box's start in its innermost dimension (coordinate x element bytes)
/// must be a multiple of 16 bytes: cp.async.bulk.tensor loads and stores
/// and cp.async.bulk.prefetch.tensor otherwise trap with an illegal
/// instruction (measured on an H200, driver 580: f32 boxes of 4, 32 and 256
/// elements at coordinates 1, 2 and -1 trap, at 0, 4, 8 and -4 do not; in
/// 2-D too). The PTX ISA does not state the rule.
inline constexpr int64_t kTmaBoxStartAlign = 16;

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

} // namespace tile::target

#endif
