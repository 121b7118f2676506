//===- CheckDivergence.cpp - collectives and barriers under divergent control -===//
//
// The divergence diagnostics, worded from the one uniformity analysis
// (Uniformity.h) that also decides the sync lowering, so a barrier this pass
// accepts is the one tile-sync-semantics proves uniform. Each construct's
// rule (what control it tolerates) is the rules table of tilec/Uniformity.h;
// its source name and wording are the table `constructOf` below.
//
//  - Barriers (warnings): `sync_threads()` waits for every thread of the CTA
//    (in a role: of the role), `cluster_sync()`/`cluster_arrive()`/
//    `cluster_wait()` for every thread of the cluster (PTX ISA 9.7.13.1 bar,
//    9.7.13.3 barrier.cluster). Threads that skip one deadlock (or silently
//    desynchronise) the others. Such a cluster barrier does not count for
//    the DSMEM lifetime rule, and such a CTA barrier is emitted as the
//    non-aligned `barrier.sync` (tile-sync-semantics: the same analysis).
//  - elect_one() and the warp collectives with the full-warp mask (warnings;
//    elect.sync and shfl/vote/redux/match/bar.warp.sync need every lane of the
//    membermask), row_max/row_sum (errors: their quad exchange is a full-mask
//    shfl.sync, PTX ISA 9.7.9.9) and fragment stores into shared tiles
//    through stmatrix (errors: stmatrix.sync.aligned), mma (errors:
//    wgmma.*.sync.aligned runs in the whole warpgroup, PTX ISA 9.7.15.5).
//    A fragment store to global memory is per thread: no rule.
//  - Turns (errors): each warpgroup of a role waits for the previous one's
//    pass, so a turn must be passed equally often by every warpgroup.
//  - Ring accesses (errors): every thread of the role (of the CTA, outside
//    roles) keeps its own stage and phase of the ring and advances them at
//    each produce/consume; each consumer warp (or warpgroup) releases the
//    stage for its threads. A thread that skips one (a per-thread loop bound,
//    a `continue` or `break` under a thread-dependent condition) waits on
//    the wrong stage's barrier, with the wrong parity, from then on: it reads
//    a stage the producer may be refilling, or hangs. A produce of a role
//    that runs in one elected thread (`elected`) has one cursor: no rule.
//  - Multicast box origins (errors): the analysis again, with uniformity
//    taken over the CTAs of a multicast group (UniformityScope): each CTA of
//    the group loads 1/C of one box and multicasts it to the others.
//
// Inside a role, control is measured from the role's entry (a role is
// entered by whole warpgroups; its sync_threads() is the role's barrier).
// The note of each diagnostic points at the decision that makes the control
// divergent: the condition, the loop bound, or for code after a return,
// break or continue that some threads take, the condition they took it
// under (UniformityAnalysis::controlDivergence).
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "Uniformity.h"

#include "tile/Dialect/Hint.h"
#include "tilec/SourceLoc.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <set>
#include <string>

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKDIVERGENCE
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
namespace u = ::tile::uniformity;

namespace {

/// The decision reads a value loaded from memory (not a `var`'s slot, not
/// read-only data) at an address as uniform as the construct needs: a
/// porter's `if m0 < offsets[g]` around an mma or a barrier. Such a load is
/// divergent even though every thread reads one address. From global
/// memory, `cache = nc` says nothing writes it (Uniformity.cpp), which the
/// hint offers; shared memory takes no `cache =` (memory.md), so a value
/// broadcast through a shared array (one thread writes it, every thread
/// reads it after a barrier) gets a hint that says so instead.
enum class LoadedFrom { None, Global, Shared };

LoadedFrom decidedByMemoryLoad(Operation *decision, const UniformityAnalysis &uniformity,
                               u::Level tolerated) {
  if (!decision)
    return LoadedFrom::None;
  SmallVector<Value> work(decision->getOperands().begin(), decision->getOperands().end());
  llvm::SmallPtrSet<Operation *, 32> seen;
  LoadedFrom found = LoadedFrom::None;
  while (!work.empty() && seen.size() < 256) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (auto arg = dyn_cast<BlockArgument>(v); arg && !isa<KernelOp>(arg.getOwner()->getParentOp()))
      def = arg.getOwner()->getParentOp(); // a loop's carried value: what enters and what it yields
    if (!def || !seen.insert(def).second)
      continue;
    if (auto load = dyn_cast<LoadOp>(def)) {
      Operation *slot = load.getPtr().getDefiningOp();
      if (isa_and_nonnull<LocalVarOp>(slot)) {
        // A `var` (or the flag of an early `return`): what its stores put
        // there, and the decisions they run under (`if p[b] == -1 { return }`
        // decides the code after it through the exit flag).
        for (Operation *user : slot->getResult(0).getUsers()) {
          auto store = dyn_cast<StoreOp>(user);
          if (!store || store.getPtr() != slot->getResult(0))
            continue;
          work.push_back(store.getValue());
          for (Operation *p = store->getParentOp(); p && !isa<KernelOp>(p); p = p->getParentOp())
            if (isa<scf::IfOp>(p))
              work.push_back(cast<scf::IfOp>(p).getCondition());
        }
        continue;
      }
      if (load.getCache() != CacheOp::nc &&
          uniformity.levelOf(load.getPtr()) <= tolerated) {
        if (cast<PtrType>(load.getPtr().getType()).getSpace() == AddressSpace::global)
          return LoadedFrom::Global;
        found = LoadedFrom::Shared;
      }
      continue;
    }
    work.append(def->getOperands().begin(), def->getOperands().end());
    // A result of an op with regions (the scf.if of a lazy `&&` / `||` or of
    // `c ? a : b`, a loop's result) is also what its regions yield: the load
    // in `z > 0 && offsets[e] > 0` decides through the yield.
    for (Region &region : def->getRegions())
      for (Block &block : region)
        if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
          work.append(block.back().getOperands().begin(), block.back().getOperands().end());
  }
  return found;
}

constexpr const char *kReadOnlyHint =
    "; a value every thread loads from one address is uniform when it is read-only data: "
    "`load(p[i], cache = nc)`";
constexpr const char *kSharedLoadHint =
    "; a value read from shared memory is not known to be the same in every thread (another "
    "thread may write it between the barrier and the read), and shared memory takes no "
    "`cache = nc`: decide on values every thread computes (block ids, parameters, loop "
    "counters), or on `load(p[i], cache = nc)` of global data nothing writes";

const char *loadHint(LoadedFrom from) {
  switch (from) {
  case LoadedFrom::Global:
    return kReadOnlyHint;
  case LoadedFrom::Shared:
    return kSharedLoadHint;
  case LoadedFrom::None:
    break;
  }
  return "";
}

/// What a construct needs of the control that reaches it.
enum class Rule {
  CtaBarrier,     // sync_threads(), a role's barrier
  RoleTmaStore,   // a TMA store of a whole role: it waits at the role's barrier
  ClusterBarrier, // cluster_sync/arrive/wait
  ElectOne,       // elect.sync
  WarpCollective, // shfl/vote/redux/match/sync_warp with the full mask
  QuadExchange,   // row_max/row_sum: full-mask shfl.sync
  WarpAligned,    // stmatrix.sync.aligned: a warp's collective
  Warpgroup,      // mma: wgmma.*.sync.aligned
  Turn,           // a role's turn
  RingAccess,     // produce / consume: per-thread stage and phase
};

/// A construct of the source: its rule and how the source names it.
struct Construct {
  Rule rule;
  std::string name;
  /// The .sync.aligned instruction of a WarpAligned construct.
  const char *instruction = "";
  /// A WarpCollective that takes `mask =` (an f32 redux reduces the whole
  /// warp and takes none).
  bool takesMask = true;
};

bool isFullMask(Value mask) {
  APInt c;
  return matchPattern(mask, m_ConstantInt(&c)) && c.isAllOnes();
}

/// The one table from ops to the source constructs they come from.
/// sync_threads, or the reducing form a barrier's reduction comes from.
std::string barrierName(std::optional<BarrierReduction> reduction) {
  if (!reduction)
    return "sync_threads";
  return *reduction == BarrierReduction::popc
             ? "sync_threads_count"
             : ("sync_threads_" + stringifyBarrierReduction(*reduction)).str();
}

/// The source name of the ring a produce / consume block accesses.
std::string ringName(Operation *op) {
  Value ring = isa<RingProduceOp>(op) ? cast<RingProduceOp>(op).getRing()
                                      : cast<RingConsumeOp>(op).getRing();
  if (auto def = ring.getDefiningOp<RingOp>())
    return def.getRingName().str();
  return "?";
}

std::optional<Construct> constructOf(Operation *op) {
  auto *dialect = op->getContext()->getLoadedDialect<TileDialect>();
  if (auto barrier = dyn_cast<BarrierOp>(op))
    return Construct{Rule::CtaBarrier, barrierName(barrier.getReduction())};
  if (auto named = dyn_cast<NamedBarrierOp>(op))
    // A role's TMA store brackets its copy with the role's barrier, which
    // publishes shared memory only (MLIRGen marks it tile.shared_only).
    return dialect->getSharedOnlyAttrHelper().isAttrPresent(op)
               ? Construct{Rule::RoleTmaStore, "copy_async"}
               : Construct{Rule::CtaBarrier, barrierName(named.getReduction())};
  if (isa<ClusterSyncOp>(op))
    return Construct{Rule::ClusterBarrier, "cluster_sync"};
  if (isa<ClusterArriveOp>(op))
    return Construct{Rule::ClusterBarrier, "cluster_arrive"};
  if (isa<ClusterWaitOp>(op))
    return Construct{Rule::ClusterBarrier, "cluster_wait"};
  if (isa<ElectOneOp>(op))
    return Construct{Rule::ElectOne, "elect_one"};
  if (auto shfl = dyn_cast<ShflOp>(op)) {
    if (!isFullMask(shfl.getMask()))
      return std::nullopt;
    switch (shfl.getKind()) {
    case ShflKind::up:
      return Construct{Rule::WarpCollective, "shfl_up"};
    case ShflKind::down:
      return Construct{Rule::WarpCollective, "shfl_down"};
    case ShflKind::bfly:
      return Construct{Rule::WarpCollective, "shfl_xor"};
    case ShflKind::idx:
      return Construct{Rule::WarpCollective, "shfl_idx"};
    }
  }
  if (auto vote = dyn_cast<VoteOp>(op)) {
    if (!isFullMask(vote.getMask()))
      return std::nullopt;
    return Construct{Rule::WarpCollective, "vote_" + stringifyVoteKind(vote.getKind()).str()};
  }
  if (auto redux = dyn_cast<ReduxOp>(op)) {
    if (!isFullMask(redux.getMask()))
      return std::nullopt;
    std::string kind = stringifyReduxKind(redux.getKind()).str();
    if (!kind.empty() && kind.back() == '_') // and_, or_, xor_
      kind.pop_back();
    Construct c{Rule::WarpCollective, "redux_" + kind};
    c.takesMask = !isa<FloatType>(redux.getValue().getType());
    return c;
  }
  if (auto match = dyn_cast<MatchOp>(op)) {
    if (!isFullMask(match.getMask()))
      return std::nullopt;
    return Construct{Rule::WarpCollective, "match_" + stringifyMatchKind(match.getKind()).str()};
  }
  if (auto sync = dyn_cast<SyncWarpOp>(op)) {
    if (!isFullMask(sync.getMask()))
      return std::nullopt;
    return Construct{Rule::WarpCollective, "sync_warp"};
  }
  if (auto reduce = dyn_cast<FragReduceOp>(op))
    return Construct{Rule::QuadExchange,
                     reduce.getKind() == FragReduceKind::max ? "row_max" : "row_sum"};
  if (isa<MmaOp, MmaRegAOp>(op))
    return Construct{Rule::Warpgroup, "mma"};
  // A fragment store to global memory is each thread's own st.global of
  // its registers: no other thread takes part. One into a shared tile
  // through stmatrix is a warp's collective (PTX ISA stmatrix: the
  // mandatory .sync.aligned means every lane of the warp executes the same
  // instruction); its st.shared form is per thread again. load_frag from a
  // tile through ldmatrix (.sync.aligned as well) likewise.
  if (auto store = dyn_cast<FragStoreTileOp>(op); store && store.usesStMatrix())
    return Construct{Rule::WarpAligned, "a fragment store to shared memory (stmatrix)",
                     "stmatrix"};
  if (auto load = dyn_cast<FragLoadTileOp>(op); load && load.usesLdMatrix())
    return Construct{Rule::WarpAligned, "load_frag from a shared tile (ldmatrix)", "ldmatrix"};
  if (auto produce = dyn_cast<RingProduceOp>(op); produce && !produce.getElected())
    return Construct{Rule::RingAccess, "produce"};
  if (isa<RingConsumeOp>(op))
    return Construct{Rule::RingAccess, "consume"};
  // A turn's wait on the previous warpgroup's pass. The hand-overs at the
  // role's entry and end (rank 0, MLIRGen's) are the compiler's own.
  if (auto wait = dyn_cast<TurnWaitOp>(op)) {
    APInt rank;
    if (!matchPattern(wait.getWarpgroup(), m_ConstantInt(&rank)))
      return Construct{Rule::Turn, "turn"};
  }
  return std::nullopt;
}

struct CheckDivergencePass : mlir::tile::impl::TileCheckDivergenceBase<CheckDivergencePass> {
  void runOnOperation() override {
    markAllAnalysesPreserved(); // only reads
    reported.clear();
    failed = false;
    KernelOp kernel = getOperation();
    auto &uniformity = getAnalysis<UniformityAnalysis>();
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (std::optional<Construct> c = constructOf(op))
        judge(op, *c, uniformity);
    });
    checkMulticastOrigins(kernel);
    if (failed)
      signalPassFailure();
  }

  /// Reports op when the control that reaches it is more divergent than its
  /// construct tolerates.
  void judge(Operation *op, const Construct &c, const UniformityAnalysis &uniformity) {
    auto role = op->getParentOfType<RoleOp>();
    Divergence control = uniformity.controlDivergence(op, role);
    // The level a loaded value's address may have for the value to decide
    // the construct, were the data read-only (the hint's `cache = nc`).
    u::Level tolerated = c.rule == Rule::Warpgroup ? u::kWarpgroupCollectiveMax
                         : c.rule == Rule::WarpCollective || c.rule == Rule::ElectOne ||
                                 c.rule == Rule::QuadExchange || c.rule == Rule::WarpAligned
                             ? u::kWarpCollectiveMax
                         : c.rule == Rule::ClusterBarrier ? u::kClusterBarrierMax
                                                          : u::kCtaBarrierMax;
    const char *loaded = loadHint(decidedByMemoryLoad(control.decision, uniformity, tolerated));
    auto report = [&](bool error, const Twine &message, const Twine &hint, const Twine &note) {
      // One source construct may be several ops (a role's TMA store: the
      // barrier before and after its copy, the elected thread that issues
      // it): one diagnostic, the first.
      if (!reported.insert(op->getLoc().getAsOpaquePointer()).second)
        return;
      InFlightDiagnostic d = error ? op->emitError(message) : op->emitWarning(message);
      attachHint(d, hint);
      d.attachNote(Location(control.where)) << note;
      failed |= error;
    };
    switch (c.rule) {
    case Rule::ElectOne:
      if (control.level <= u::kWarpCollectiveMax)
        return;
      return report(false,
                    "elect_one() in control flow that lanes of a warp may take differently: "
                    "elect.sync needs every lane of the warp (the lanes that skip it hang or "
                    "make the result undefined)",
                    Twine("call it where the whole warp is converged, e.g. under `if warp_id() "
                          "== 0` or at the top of a role") +
                        loaded,
                    "this decision differs between lanes");
    case Rule::WarpCollective:
      if (control.level <= u::kWarpCollectiveMax)
        return;
      return report(
          false,
          c.name + "() with the full-warp mask in control flow that lanes of a warp "
                   "may take differently: lanes that do not reach it leave it "
                   "undefined or hanging",
          (c.takesMask ? Twine("move it where every lane of the warp reaches it, or pass the "
                               "lanes that do: `let m = vote_ballot(cond)` before the branch, "
                               "then `mask = m`")
                       : Twine("move it where every lane of the warp reaches it (an f32 " + c.name +
                               " reduces the whole warp and takes no mask): reduce `select(cond, "
                               "x, identity)` there instead")) +
              loaded,
          "this decision differs between lanes");
    case Rule::QuadExchange:
      if (control.level <= u::kWarpCollectiveMax)
        return;
      return report(true,
                    "'" + c.name +
                        "' in control flow that lanes of a warp may take differently: its "
                        "quad exchange (shfl.sync) needs every lane of the warp",
                    Twine("reduce where the whole warpgroup runs (outside conditions on thread "
                          "or lane ids), then select the result") +
                        loaded,
                    "this decision differs between lanes");
    case Rule::WarpAligned:
      if (control.level <= u::kWarpCollectiveMax)
        return;
      return report(true,
                    c.name + " in control flow that lanes of a warp may take differently: " +
                        c.instruction + " is .sync.aligned, every lane of the warp executes it",
                    Twine("put it where the whole warp runs (outside conditions on thread or "
                          "lane ids); a fragment store to or load from global memory (`row_stride "
                          "= ld`) is per thread and may be conditional") +
                        loaded,
                    "this decision differs between lanes");
    case Rule::Warpgroup:
      if (control.level <= u::kWarpgroupCollectiveMax)
        return;
      return report(true,
                    c.name + " in control flow that threads of a warpgroup may take "
                             "differently: wgmma runs in all 128 threads of the warpgroup together",
                    Twine("put the condition outside the warpgroup (a role, a loop bound the "
                          "whole warpgroup shares, `if warpgroup_rank() == 0`), not on thread or "
                          "warp ids") +
                        loaded,
                    "this decision differs within a warpgroup");
    case Rule::Turn:
      if (control.level <= u::kCtaBarrierMax)
        return;
      return report(true,
                    "turn in role '" + role.getRoleName() +
                        "' in control flow that its warpgroups may take differently: each "
                        "warpgroup waits for the previous one's pass, so every warpgroup must "
                        "pass every turn equally often",
                    "move the turn where the whole role reaches it (conditions and loop bounds "
                    "the same in all its warpgroups), and branch inside its body",
                    "this decision differs between the role's threads");
    case Rule::RingAccess: {
      if (control.level <= u::kCtaBarrierMax)
        return;
      std::string ring = ringName(op);
      std::string whose = role ? "threads of role '" + role.getRoleName().str() + "'"
                               : std::string("threads of the block");
      return report(true,
                    "a " + c.name + " block of ring '" + ring + "' in control flow that the " +
                        whose +
                        " may take differently: each thread advances its own stage and phase "
                        "at every " + c.name +
                        ", so a thread that skips one waits on the wrong stage from then on "
                        "(it may use a stage that is still in use, or hang)",
                    Twine("let every ") + (role ? "thread of the role" : "thread of the block") +
                        " reach it equally often: loop bounds and `if ... { continue }` on "
                        "values they share (block ids, parameters, loop counters), or put the "
                        "condition inside the block" +
                        loaded,
                    "this decision differs between threads");
    }
    case Rule::CtaBarrier:
    case Rule::RoleTmaStore: {
      if (control.level <= u::kCtaBarrierMax)
        return;
      if (role) {
        int64_t threads = cast<NamedBarrierOp>(op).getNumThreads();
        return report(false,
                      c.name + "() in role '" + role.getRoleName() +
                          "' in control flow that its threads may take differently: " +
                          (c.rule == Rule::RoleTmaStore
                               ? "a TMA store of the whole role waits at the role's barrier over "
                               : "it is the role's barrier over ") +
                          Twine(threads) +
                          " threads, and threads that do not reach it deadlock the others",
                      Twine("move it where every thread of the role reaches it") + loaded,
                      "this decision differs between threads");
      }
      std::string between = control.level > u::PerCta ? "threads" : "CTAs";
      return report(false,
                    c.name + "() in control flow that " + between +
                        " of the block may take differently: threads that do not reach it "
                        "deadlock the others",
                    Twine("move it where every thread of the block reaches it; here it is the "
                          "non-aligned barrier.sync") +
                        loaded,
                    "this decision differs between " + between);
    }
    case Rule::ClusterBarrier: {
      if (control.level <= u::kClusterBarrierMax)
        return;
      std::string between = control.level > u::PerCta ? "threads" : "CTAs";
      return report(false,
                    c.name + "() in control flow that " + between +
                        " of the cluster may take differently: threads that do not reach it "
                        "deadlock or desynchronise the cluster",
                    Twine("move it where every thread of every CTA reaches it; here it does "
                          "not count as the cluster barrier that keeps peers' shared memory "
                          "alive") +
                        loaded,
                    "this decision differs between " + between);
    }
    }
  }

  /// Every multicast copy's box: the same in every CTA of its multicast
  /// group (uniformity over the group's CTAs, one analysis per axis used).
  void checkMulticastOrigins(KernelOp kernel) {
    std::optional<ArrayRef<int32_t>> dims = kernel.getClusterDims();
    if (!dims || dims->size() != 3)
      return;
    std::set<int> axes;
    kernel.walk([&](TmaLoadOp copy) {
      if (std::optional<uint32_t> axis = copy.getMulticastAxis())
        axes.insert(int(*axis));
    });
    for (int axis : axes) {
      UniformityScope group;
      group.multicastAxis = axis;
      for (int a = 0; a < 3; ++a)
        group.clusterDims[a] = (*dims)[a];
      UniformityAnalysis inGroup(kernel, group);
      kernel.walk([&](TmaLoadOp copy) {
        if (copy.getMulticastAxis() == std::optional<uint32_t>(axis))
          checkOrigin(copy, inGroup);
      });
    }
  }

  void checkOrigin(TmaLoadOp copy, const UniformityAnalysis &group) {
    static const char *axisNames[] = {"x", "y", "z", "all"};
    int axis = group.scope().multicastAxis;
    std::string name = axisNames[axis];
    for (auto [i, coord] : llvm::enumerate(copy.getCoords())) {
      u::Level l = group.levelOf(coord);
      if (l == u::Uniform)
        continue;
      std::string why =
          l == u::PerCta
              ? "it depends on the CTA's position " + (axis == 3 ? "in the cluster" : "along " + name)
              : std::string("it is a per-thread value (a thread id, a loaded value, or a variable "
                            "assigned under such control)");
      // At the coordinate's value (a `let` is where it is computed), and at
      // the copy it is the box of.
      Operation *def = coord.getDefiningOp();
      Location at = def ? def->getLoc() : copy.getLoc();
      InFlightDiagnostic d =
          emitError(at) << "coordinate " << i << " of the box of this multicast copy_async "
                        << "(multicast = " << name
                        << ") may differ between the CTAs of its multicast group: " << why;
      attachHint(d, "every CTA of the group must name the same box: each loads 1/C of it and "
                    "multicasts it to the others; build the origin from cluster_id(), the "
                    "position along another cluster axis, loop counters and parameters");
      // A value computed on another line (a `let`): name the copy too.
      FileLineColLoc where = sourceFileLoc(at), copyAt = sourceFileLoc(copy.getLoc());
      if (where && copyAt && where.getLine() != copyAt.getLine())
        d.attachNote(copy.getLoc()) << "the multicast copy_async whose box it is";
      failed = true;
      return;
    }
  }

  std::set<const void *> reported;
  bool failed = false;
};

} // namespace
