//===- Uniformity.h - over which threads a value or a decision is the same -*- C++ -*-===//
//
// The one table of uniformity rules: the sources of each level and what each
// construct tolerates. The IR's uniformity analysis
// (compiler/transforms/Uniformity.h) applies it, following loop-carried
// values (a `var`, an iteration argument) to a fixpoint; its readers are the
// divergence diagnostics (tile-check-divergence) and the sync lowering (an
// `.aligned` barrier, a cluster barrier that counts for the DSMEM lifetime
// rule), so a barrier the checker accepts is the one the lowering proves
// uniform. Plain C++17.
//===----------------------------------------------------------------------===//
#ifndef TILEC_UNIFORMITY_H
#define TILEC_UNIFORMITY_H

namespace tile::uniformity {

/// Over which threads a value is the same, ordered: more is more divergent.
/// Each level is the same in every thread of the groups of the levels above
/// it (a per-CTA value is the same in every lane of a warp).
enum Level : int {
  Uniform = 0,      // every thread of every CTA of the grid (cluster)
  PerCta = 1,       // differs only between CTAs
  PerWarpgroup = 2, // the same in the 128 threads of a warpgroup
  PerWarp = 3,      // the same in the 32 lanes of a warp
  PerThread = 4,    // may differ between any two threads
};

inline Level join(Level a, Level b) { return a > b ? a : b; }

inline const char *levelName(Level l) {
  switch (l) {
  case Uniform:
    return "uniform";
  case PerCta:
    return "per-cta";
  case PerWarpgroup:
    return "per-warpgroup";
  case PerWarp:
    return "per-warp";
  case PerThread:
    return "per-thread";
  }
  return "per-thread";
}

/// Where a value comes from, for the sources that are not an operation on
/// other values (those join their operands' levels).
enum class Source {
  Constant,        // literals
  Param,           // kernel parameters, shared arrays, mbarriers
  GridShape,       // block/grid/cluster dims, cluster id, device rank/count
  CtaPosition,     // block id, cluster rank, block in cluster, h.local
  WarpgroupIndex,  // linear thread id / 128 (warpgroup_rank())
  WarpIndex,       // linear thread id / 32 (warp_id())
  WarpVote,        // vote/redux/match.all, a shfl.idx broadcast: the same in every lane
  CtaBarrierReduction,  // sync_threads_count/and/or: the same in every thread of the CTA
  RoleBarrierReduction, // the same inside a role: every thread of the role's warpgroups
  ThreadIndex,     // thread id, lane id, a role's thread id
  ElectedLane,     // elect_one(): true in one lane
  ReadOnlyLoad,    // a `cache = nc` load: as uniform as its address
  MemoryLoad,      // a load from memory other threads see (or a local array)
  Atomic,          // an atomic's old value
  Unknown,         // anything else: assumed to differ per thread
};

constexpr Level levelOf(Source s) {
  switch (s) {
  case Source::Constant:
  case Source::Param:
  case Source::GridShape:
  case Source::ReadOnlyLoad: // no level of its own: its address's
    return Uniform;
  case Source::CtaPosition:
  case Source::CtaBarrierReduction:
    return PerCta;
  case Source::WarpgroupIndex:
  case Source::RoleBarrierReduction:
    return PerWarpgroup;
  case Source::WarpIndex:
  case Source::WarpVote:
    return PerWarp;
  case Source::ThreadIndex:
  case Source::ElectedLane:
  case Source::MemoryLoad:
  case Source::Atomic:
  case Source::Unknown:
    return PerThread;
  }
  return PerThread;
}

/// The most divergent control each construct tolerates.
///
/// `bar.sync`/`barrier.cluster.*` with `.aligned`: every thread of a warp
/// executes the same barrier instruction (PTX ISA 9.7.13.1, 9.7.13.3), so
/// control may differ between warps, not within one.
inline constexpr Level kAlignedMax = PerWarp;
/// elect.sync and the full-mask warp collectives (shfl/vote/redux/match,
/// bar.warp.sync): every lane of the warp takes part (PTX ISA 9.7.13.4,
/// 9.7.8.x).
inline constexpr Level kWarpCollectiveMax = PerWarp;
/// wgmma.*.sync.aligned: every thread of the warpgroup (PTX ISA 9.7.15.5).
inline constexpr Level kWarpgroupCollectiveMax = PerWarpgroup;
/// A CTA barrier (bar.sync 0, a role's named barrier): every thread the
/// barrier counts reaches it; only the CTAs may differ.
inline constexpr Level kCtaBarrierMax = PerCta;
/// A cluster barrier: every thread of every CTA of the cluster reaches it;
/// only then does it keep peers' shared memory alive (DSMEM lifetime).
inline constexpr Level kClusterBarrierMax = Uniform;

} // namespace tile::uniformity

#endif
