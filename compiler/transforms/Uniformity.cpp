//===- Uniformity.cpp - over which threads values and control are the same -===//
#include "Uniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;
using ::tile::uniformity::join;
using ::tile::uniformity::PerThread;
using ::tile::uniformity::PerWarp;
using ::tile::uniformity::PerWarpgroup;
using ::tile::uniformity::Source;
using ::tile::uniformity::Uniform;

namespace {
Level sourceLevel(Source s) { return ::tile::uniformity::levelOf(s); }

/// The slot a tile.load/tile.store accesses when its pointer is a
/// tile.local_var itself.
LocalVarOp slotOf(Value ptr) { return ptr.getDefiningOp<LocalVarOp>(); }

bool isSReg(Value v, SpecialReg reg) {
  auto sreg = v.getDefiningOp<SRegOp>();
  return sreg && sreg.getReg() == reg;
}

bool isProduct(Value v, SpecialReg a, SpecialReg b) {
  auto mul = v.getDefiningOp<arith::MulIOp>();
  return mul && ((isSReg(mul.getLhs(), a) && isSReg(mul.getRhs(), b)) ||
                 (isSReg(mul.getLhs(), b) && isSReg(mul.getRhs(), a)));
}

/// a + b in either order, with pred(a) and sreg b.
template <typename Pred> bool isSumWith(Value v, SpecialReg reg, Pred pred) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  return (isSReg(add.getRhs(), reg) && pred(add.getLhs())) ||
         (isSReg(add.getLhs(), reg) && pred(add.getRhs()));
}

/// The thread's linear index in its CTA (MLIRGen's linearThread):
/// (%tid.z * %ntid.y + %tid.y) * %ntid.x + %tid.x, or %tid.x alone where the
/// kernel's bounds prove a one-dimensional block. Warps are formed from
/// consecutive linear indices (CUDA programming guide, "SIMT Architecture"),
/// so its quotient by 32 is the same in every lane of a warp; %tid.x / 32 of
/// a 48 x 2 block is not.
bool isLinearThreadIndex(Value v, bool oneDimBlock) {
  if (isSReg(v, SpecialReg::tid_x))
    return oneDimBlock;
  return isSumWith(v, SpecialReg::tid_x, [](Value rowsTimesX) {
    auto mul = rowsTimesX.getDefiningOp<arith::MulIOp>();
    if (!mul)
      return false;
    auto isRows = [](Value z) {
      return isSumWith(z, SpecialReg::tid_y,
                       [](Value zy) { return isProduct(zy, SpecialReg::tid_z, SpecialReg::ntid_y); });
    };
    return (isSReg(mul.getRhs(), SpecialReg::ntid_x) && isRows(mul.getLhs())) ||
           (isSReg(mul.getLhs(), SpecialReg::ntid_x) && isRows(mul.getRhs()));
  });
}

/// The level of linear-index / divisor (shift: divisor = 1 << amount): the
/// warp index for multiples of 32, the warpgroup index for multiples of 128.
/// The index is below 1024 (PTX ISA "Special Registers": %ntid), never
/// negative, so the signed forms (`thread_id() / 32` of an i32) are the same.
std::optional<Level> threadIndexQuotient(Operation *op, bool oneDimBlock) {
  APInt c;
  std::optional<int64_t> divisor;
  if (isa<arith::DivUIOp, arith::DivSIOp>(op)) {
    if (isLinearThreadIndex(op->getOperand(0), oneDimBlock) &&
        matchPattern(op->getOperand(1), m_ConstantInt(&c)) && !c.isNegative())
      divisor = c.getZExtValue();
  } else if (isa<arith::ShRUIOp, arith::ShRSIOp>(op)) {
    if (isLinearThreadIndex(op->getOperand(0), oneDimBlock) &&
        matchPattern(op->getOperand(1), m_ConstantInt(&c)) && c.getZExtValue() < 31)
      divisor = int64_t(1) << c.getZExtValue();
  }
  if (!divisor || *divisor <= 0)
    return std::nullopt;
  if (*divisor % 128 == 0)
    return sourceLevel(Source::WarpgroupIndex);
  if (*divisor % 32 == 0)
    return sourceLevel(Source::WarpIndex);
  return std::nullopt;
}

/// `lin < 32k` or `lin - 32c < 32k` (and `>=`; `<= 32k - 1`, `> 32k - 1`;
/// signed or unsigned), lin the linear thread index: a range of whole warps
/// (the first warp of a role is `tid - first * 128 <u 32`, a warp-per-row
/// guard `thread_id() < 64`), so the test is the same in every lane of a
/// warp. Warps are consecutive linear indices (see isLinearThreadIndex): the
/// 32 values of a warp's lanes lie in one aligned block of 32, before and
/// after the subtraction (wrapping around, or negative, alike), and the
/// bound is a block's edge.
std::optional<Level> warpRangeTest(Operation *op, bool oneDimBlock) {
  auto cmp = dyn_cast<arith::CmpIOp>(op);
  if (!cmp)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  P p = cmp.getPredicate();
  if (p == P::eq || p == P::ne)
    return std::nullopt;
  // The first value past the bound: k for `< k` and `>= k`, k + 1 for
  // `<= k` and `> k`.
  const int64_t past = (p == P::ule || p == P::sle || p == P::ugt || p == P::sgt) ? 1 : 0;
  auto multipleOf32 = [](Value v, int64_t plus) {
    APInt c;
    // Modulo the width, which a multiple of 32 divides: the unsigned and
    // the signed reading of the bound alike.
    return matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() >= 5 &&
           (c + plus).countr_zero() >= 5;
  };
  Value lhs = cmp.getLhs();
  if (auto sub = lhs.getDefiningOp<arith::SubIOp>(); sub && multipleOf32(sub.getRhs(), 0))
    lhs = sub.getLhs();
  if (!isLinearThreadIndex(lhs, oneDimBlock) || !multipleOf32(cmp.getRhs(), past))
    return std::nullopt;
  return sourceLevel(Source::WarpIndex);
}

Level sregLevel(SpecialReg reg) {
  switch (reg) {
  case SpecialReg::tid_x:
  case SpecialReg::tid_y:
  case SpecialReg::tid_z:
  case SpecialReg::laneid:
    return sourceLevel(Source::ThreadIndex);
  case SpecialReg::ctaid_x:
  case SpecialReg::ctaid_y:
  case SpecialReg::ctaid_z:
  case SpecialReg::cluster_ctarank:
  case SpecialReg::cluster_ctaid_x:
  case SpecialReg::cluster_ctaid_y:
  case SpecialReg::cluster_ctaid_z:
    return sourceLevel(Source::CtaPosition);
  default:
    return sourceLevel(Source::GridShape); // dims, counts, the cluster id
  }
}

/// The role an op runs in (its innermost tile.role), or null.
Operation *roleOf(Operation *op) { return op->getParentOfType<RoleOp>(); }

/// sreg's axis for the block id and the position in the cluster, or -1.
int ctaAxis(SpecialReg reg) {
  switch (reg) {
  case SpecialReg::ctaid_x:
  case SpecialReg::cluster_ctaid_x:
    return 0;
  case SpecialReg::ctaid_y:
  case SpecialReg::cluster_ctaid_y:
    return 1;
  case SpecialReg::ctaid_z:
  case SpecialReg::cluster_ctaid_z:
    return 2;
  default:
    return -1;
  }
}

/// v with integer casts looked through.
Value throughCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtUIOp, arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp,
             arith::IndexCastUIOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// v as a constant, the cluster's extents (a static cluster) folded in:
/// cluster_size(), cluster_dim(a) and arithmetic on them and literals.
std::optional<int64_t> clusterConstant(Value v, const int64_t dims[3], int depth = 0) {
  v = throughCasts(v);
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getBitWidth() == 1 ? int64_t(c.getZExtValue()) : c.getSExtValue();
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return std::nullopt;
  // MLIRGen's division guards its divisor (select(d == 0 || ..., 1, d)) and
  // result: with a constant divisor the guards fold.
  auto fold = [&](Value x) { return clusterConstant(x, dims, depth + 1); };
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::optional<int64_t> cond = fold(select.getCondition());
    if (!cond)
      return std::nullopt;
    return fold(*cond ? select.getTrueValue() : select.getFalseValue());
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    std::optional<int64_t> a = fold(cmp.getLhs()), b = fold(cmp.getRhs());
    if (!a || !b)
      return std::nullopt;
    if (cmp.getPredicate() == arith::CmpIPredicate::eq)
      return int64_t(*a == *b);
    if (cmp.getPredicate() == arith::CmpIPredicate::ne)
      return int64_t(*a != *b);
    return std::nullopt;
  }
  if (isa<arith::AndIOp, arith::OrIOp>(def) && def->getResult(0).getType().isInteger(1)) {
    std::optional<int64_t> a = fold(def->getOperand(0)), b = fold(def->getOperand(1));
    bool isAnd = isa<arith::AndIOp>(def);
    // One known side decides: false for and, true for or.
    for (std::optional<int64_t> side : {a, b})
      if (side && bool(*side) != isAnd)
        return int64_t(!isAnd);
    if (!a || !b)
      return std::nullopt;
    return int64_t(isAnd ? (*a && *b) : (*a || *b));
  }
  if (auto sreg = dyn_cast<SRegOp>(def)) {
    switch (sreg.getReg()) {
    case SpecialReg::cluster_nctarank:
      return dims[0] * dims[1] * dims[2];
    case SpecialReg::cluster_nctaid_x:
      return dims[0];
    case SpecialReg::cluster_nctaid_y:
      return dims[1];
    case SpecialReg::cluster_nctaid_z:
      return dims[2];
    default:
      return std::nullopt;
    }
  }
  if (!isa<arith::AddIOp, arith::MulIOp, arith::SubIOp, arith::ShLIOp>(def))
    return std::nullopt;
  std::optional<int64_t> a = clusterConstant(def->getOperand(0), dims, depth + 1);
  std::optional<int64_t> b = clusterConstant(def->getOperand(1), dims, depth + 1);
  if (!a || !b || *a < 0 || *b < 0 || *a > (1 << 20) || *b > (1 << 20))
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *a + *b;
  if (isa<arith::MulIOp>(def))
    return *a * *b;
  if (isa<arith::SubIOp>(def))
    return *a - *b;
  return *b < 30 ? std::optional<int64_t>(*a << *b) : std::nullopt;
}

bool isFullMask(Value mask) {
  APInt c;
  return matchPattern(mask, m_ConstantInt(&c)) && c.isAllOnes();
}
} // namespace

UniformityAnalysis::UniformityAnalysis(KernelOp kernel, const UniformityScope &scope)
    : scope_(scope) {
  // .reqntid/.maxntid X, 1, 1: %tid.x is the linear thread index.
  for (DenseI32ArrayAttr bound : {kernel.getReqThreadsAttr(), kernel.getMaxThreadsAttr()})
    if (bound && bound.size() == 3 && bound[1] == 1 && bound[2] == 1)
      oneDimBlock_ = true;
  // A slot whose address only ever reaches tile.load/tile.store as their
  // pointer holds what was stored to it; any other use (an escaping
  // pointer) leaves it unknown, so its loads are per-thread.
  auto *dialect = kernel->getContext()->getLoadedDialect<TileDialect>();
  kernel.walk([&](LocalVarOp var) {
    bool isPrivate = llvm::all_of(var->getUses(), [](OpOperand &use) {
      if (auto load = dyn_cast<LoadOp>(use.getOwner()))
        return use.get() == load.getPtr();
      if (auto store = dyn_cast<StoreOp>(use.getOwner()))
        return use.get() == store.getPtr() && use.get() != store.getValue();
      return false;
    });
    if (isPrivate) {
      privateSlots_.insert(var);
      for (Operation *user : var->getUsers())
        if (isa<StoreOp>(user))
          slotStores_[var].push_back(user);
    }
    if (dialect->getExitFlagAttrHelper().isAttrPresent(var))
      exitFlags_.insert(var);
  });
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) { order_[op] = order_.size(); });
  for (BlockArgument param : kernel.getBody().getArguments())
    values_[param] = {sourceLevel(Source::Param), nullptr};
  // Monotone over five levels from "uniform": it settles. Huge generated
  // kernels past the limit get the conservative answer.
  constexpr int kMaxPasses = 64;
  for (int pass = 0;; ++pass) {
    bool changed = false;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) { changed |= visit(op); });
    if (!changed)
      break;
    if (pass == kMaxPasses) {
      gaveUp_ = true;
      break;
    }
  }
  settled_ = true;
}

UniformityAnalysis::Fact UniformityAnalysis::factOf(Value v) const {
  if (gaveUp_)
    return {PerThread, nullptr};
  auto it = values_.find(v);
  if (it != values_.end())
    return it->second;
  return {settled_ ? PerThread : Uniform, nullptr}; // not reached yet in this pass: bottom
}

Level UniformityAnalysis::levelOf(Value v) const { return factOf(v).level; }

bool UniformityAnalysis::raise(Fact &known, Fact f) {
  // The reason changes only with the level: the fixpoint settles.
  if (f.level <= known.level)
    return false;
  known = f;
  return true;
}

bool UniformityAnalysis::update(Value v, Fact f) {
  auto [it, inserted] = values_.try_emplace(v, f);
  if (inserted)
    return true;
  return raise(it->second, f);
}

Value UniformityAnalysis::decidingValue(Operation *op) const {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return ifOp.getCondition();
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return loop.getConditionOp().getCondition();
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // The most divergent bound (the end first: the source's `a .. b`).
    Value best = loop.getUpperBound();
    for (Value bound : {loop.getLowerBound(), loop.getStep()})
      if (decidingLevel(bound) > decidingLevel(best))
        best = bound;
    return best;
  }
  return nullptr;
}

Level UniformityAnalysis::decisionLevel(Operation *op) const {
  if (isa<scf::IfOp, scf::ForOp>(op))
    return decidingLevel(decidingValue(op));
  // Both regions: after the first test, only the threads that continued run
  // them.
  if (isa<scf::WhileOp>(op))
    return decidingLevel(decidingValue(op));
  // A role is entered by whole warpgroups; the CTA's other roles skip it. A
  // produce block runs in one elected thread of the role, a consume block in
  // all of them. In a multicast group the same warpgroups and the same
  // elected thread run them in every CTA.
  if (isa<RoleOp>(op))
    return scope_.overMulticastGroup() ? Uniform : sourceLevel(Source::WarpgroupIndex);
  if (isa<RingProduceOp>(op))
    return scope_.overMulticastGroup() ? Uniform : sourceLevel(Source::ElectedLane);
  if (isa<RingConsumeOp, KernelOp>(op))
    return Uniform;
  return PerThread;
}

LocationAttr UniformityAnalysis::decisionLocation(Operation *op) const {
  Value v = decidingValue(op);
  if (!v)
    return op->getLoc();
  if (LocationAttr why = factOf(v).why)
    return why;
  if (Operation *def = v.getDefiningOp())
    return def->getLoc();
  return op->getLoc();
}

Divergence UniformityAnalysis::controlDivergence(Operation *op, Operation *stopAt) const {
  SmallVector<Operation *> decisions;
  for (Operation *parent = op->getParentOp(); parent && parent != stopAt && !isa<KernelOp>(parent);
       parent = parent->getParentOp())
    decisions.push_back(parent);
  // Outermost first: an inner decision only as divergent adds nothing (the
  // note points at the decision that split the threads first).
  Divergence d;
  for (Operation *decision : llvm::reverse(decisions)) {
    Level l = decisionLevel(decision);
    if (l > d.level)
      d = {l, decision, decisionLocation(decision)};
  }
  return d;
}

/// In a multicast-group scope: the block id or the position in the cluster
/// along an axis the group does not vary in, or `block_id(a) / D` with D a
/// multiple of the cluster's extent along a (block_id(a) = cluster_id(a) * X
/// + block_in_cluster(a) with 0 <= block_in_cluster(a) < X, so the quotient
/// is cluster_id(a) / (D / X), the same in every CTA of the cluster: the GEMM
/// samples' `block_id() / cluster_size()`), is the same in every CTA of the
/// group.
std::optional<Level> UniformityAnalysis::groupLevel(Operation *op) const {
  if (!scope_.overMulticastGroup())
    return std::nullopt;
  if (auto sreg = dyn_cast<SRegOp>(op)) {
    int a = ctaAxis(sreg.getReg());
    if (a < 0)
      return std::nullopt;
    return scope_.varies(a) ? sourceLevel(Source::CtaPosition) : Uniform;
  }
  // A guard of MLIRGen's division that folds: the value it selects.
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    std::optional<int64_t> cond = clusterConstant(select.getCondition(), scope_.clusterDims);
    if (!cond)
      return std::nullopt;
    return levelOf(*cond ? select.getTrueValue() : select.getFalseValue());
  }
  if (!isa<arith::DivUIOp, arith::DivSIOp, arith::ShRUIOp, arith::ShRSIOp>(op))
    return std::nullopt;
  auto sreg = throughCasts(op->getOperand(0)).getDefiningOp<SRegOp>();
  if (!sreg || sreg.getReg() < SpecialReg::ctaid_x || sreg.getReg() > SpecialReg::ctaid_z)
    return std::nullopt;
  int a = ctaAxis(sreg.getReg());
  std::optional<int64_t> d = clusterConstant(op->getOperand(1), scope_.clusterDims);
  bool shift = isa<arith::ShRUIOp, arith::ShRSIOp>(op);
  if (!d || *d < 0 || (shift && *d > 30))
    return std::nullopt;
  int64_t divisor = shift ? int64_t(1) << *d : *d;
  if (divisor > 0 && scope_.clusterDims[a] > 0 && divisor % scope_.clusterDims[a] == 0)
    return Uniform;
  return std::nullopt;
}

Level UniformityAnalysis::decidingLevel(Value v) const {
  if (!scope_.overMulticastGroup())
    return levelOf(v);
  return symmetricLevel(v, 0);
}

/// A condition's level in a multicast-group scope: thread, lane, warp and
/// warpgroup positions and elect_one() select the same threads in every CTA
/// of the group (looked through pure arithmetic and short-circuit ifs).
Level UniformityAnalysis::symmetricLevel(Value v, int depth) const {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return levelOf(v);
  if (auto sreg = dyn_cast<SRegOp>(def))
    if (sregLevel(sreg.getReg()) == sourceLevel(Source::ThreadIndex))
      return Uniform;
  if (isa<WarpgroupIdOp, ElectOneOp>(def) || threadIndexQuotient(def, oneDimBlock_) ||
      warpRangeTest(def, oneDimBlock_))
    return Uniform;
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    unsigned i = cast<OpResult>(v).getResultNumber();
    Level l = symmetricLevel(ifOp.getCondition(), depth + 1);
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
      if (!region->empty())
        l = join(l, symmetricLevel(region->front().getTerminator()->getOperand(i), depth + 1));
    return l;
  }
  if (isa_and_nonnull<arith::ArithDialect>(def->getDialect()) && !groupLevel(def)) {
    Level l = Uniform;
    for (Value operand : def->getOperands())
      l = join(l, symmetricLevel(operand, depth + 1));
    return l;
  }
  return levelOf(v);
}

bool UniformityAnalysis::mayPrecede(Operation *store, Operation *load) const {
  if (order_.lookup(store) < order_.lookup(load))
    return true;
  for (Operation *loop = store->getParentOp(); loop; loop = loop->getParentOp())
    if (isa<scf::ForOp, scf::WhileOp>(loop) && loop->isAncestor(load))
      return true;
  return false;
}

UniformityAnalysis::Fact UniformityAnalysis::loadFact(LoadOp load, Operation *slot) const {
  // A slot is private to its thread: a load in a role sees the stores of its
  // own role (control measured from the role's entry) and those outside
  // every role; a load outside the roles sees every store. An exit flag is
  // read where MLIRGen guards what follows a return, break or continue: only
  // the stores that may run before the load set it there (a return later in
  // the kernel does not make an earlier loop divergent). A `var` is as
  // divergent as every value stored to it anywhere (the language's rule).
  bool exitFlag = exitFlags_.count(slot);
  Operation *role = roleOf(load);
  if (!exitFlag) { // every store counts: the joins visit() keeps
    Level l = role ? join(slotJoins_.lookup({slot, role}), slotJoins_.lookup({slot, nullptr}))
                   : slotAbsoluteJoin_.lookup(slot);
    return {l, nullptr};
  }
  Fact f;
  for (Operation *store : slotStores_.lookup(slot)) {
    Operation *storeRole = roleOf(store);
    if (role && storeRole && storeRole != role)
      continue;
    if (exitFlag && !mayPrecede(store, load))
      continue;
    auto it = stores_.find(store);
    if (it == stores_.end())
      continue; // not reached yet in this pass: bottom
    Fact g = role && storeRole == role ? it->second.inRole : it->second.absolute;
    if (g.level > f.level)
      f = g;
  }
  return f; // an exit flag's reason: the decision that set it
}

UniformityAnalysis::Fact UniformityAnalysis::transfer(Operation *op, unsigned i) const {
  if (std::optional<Level> group = groupLevel(op))
    return {*group, nullptr};
  if (auto sreg = dyn_cast<SRegOp>(op))
    return {sregLevel(sreg.getReg()), nullptr};
  if (isa<WarpgroupIdOp>(op))
    return {sourceLevel(Source::WarpgroupIndex), nullptr};
  if (isa<ElectOneOp>(op))
    return {sourceLevel(Source::ElectedLane), nullptr};
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (LocalVarOp slot = slotOf(load.getPtr()); slot && privateSlots_.count(slot))
      return loadFact(load, slot);
    // Read-only data (`cache = nc`: nothing writes it while the kernel runs,
    // the user's promise, docs/reference/memory.md) holds one value per
    // address: the load is as uniform as its address.
    if (load.getCache() == CacheOp::nc) {
      Fact address = factOf(load.getPtr());
      return {::tile::uniformity::join(address.level, sourceLevel(Source::ReadOnlyLoad)),
              address.why};
    }
    return {sourceLevel(Source::MemoryLoad), nullptr};
  }
  // barrier.red gives every participating thread the same result: the
  // CTA's threads (tile.barrier) or the role's (tile.named_barrier).
  if (isa<BarrierOp>(op))
    return {sourceLevel(Source::CtaBarrierReduction), nullptr};
  if (isa<NamedBarrierOp>(op))
    return {sourceLevel(Source::RoleBarrierReduction), nullptr};
  if (auto vote = dyn_cast<VoteOp>(op))
    return {isFullMask(vote.getMask()) ? sourceLevel(Source::WarpVote) : PerThread, nullptr};
  if (auto redux = dyn_cast<ReduxOp>(op))
    return {isFullMask(redux.getMask()) ? sourceLevel(Source::WarpVote) : PerThread, nullptr};
  // match.all over the full warp is the mask or 0 in every lane alike.
  if (auto match = dyn_cast<MatchOp>(op))
    return {match.getKind() == MatchKind::all && isFullMask(match.getMask())
                ? sourceLevel(Source::WarpVote)
                : PerThread,
            nullptr};
  // shfl.sync.idx over the whole warp (width 32, the full mask) reads one
  // lane's value in every lane when every lane names the same source lane
  // (PTX ISA 9.7.8.6: with width 32 the source is b[4:0], always in range):
  // CUDA's broadcast `__shfl_sync(~0u, v, 0)`.
  if (auto shfl = dyn_cast<ShflOp>(op)) {
    APInt width;
    if (shfl.getKind() == ShflKind::idx && isFullMask(shfl.getMask()) &&
        matchPattern(shfl.getWidth(), m_ConstantInt(&width)) && width == 32) {
      Fact lane = factOf(shfl.getLane());
      return {join(lane.level, sourceLevel(Source::WarpVote)), lane.why};
    }
    return {PerThread, nullptr};
  }
  // The join of the operands (or of the yielded values); the reason of the
  // first most divergent one that carries an exit flag's reason.
  auto joinFacts = [&](ArrayRef<Value> values, Level floor) {
    Fact f{floor, nullptr};
    for (Value v : values) {
      Fact g = factOf(v);
      if (g.level > f.level)
        f = g;
      else if (g.level == f.level && !f.why)
        f.why = g.why;
    }
    return f;
  };
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    SmallVector<Value> from{ifOp.getCondition()};
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
      if (!region->empty())
        from.push_back(region->front().getTerminator()->getOperand(i));
    return joinFacts(from, Uniform);
  }
  // Threads that leave a loop at different iterations keep different values.
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return joinFacts({loop.getRegionIterArgs()[i], decidingValue(op)}, decisionLevel(op));
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return joinFacts({loop.getConditionOp().getArgs()[i], decidingValue(op)}, decisionLevel(op));
  if (std::optional<Level> quotient = threadIndexQuotient(op, oneDimBlock_))
    return {*quotient, nullptr};
  if (std::optional<Level> warps = warpRangeTest(op, oneDimBlock_))
    return {*warps, nullptr};
  // Pure functions of their operands: arithmetic, the pointer arithmetic
  // of shared arrays (the same addresses in every thread), and the building
  // and reading of vectors (a `{k, 0}` of uniform k has uniform lanes).
  if (isa_and_nonnull<arith::ArithDialect>(op->getDialect()) ||
      isa<PtrAddOp, MapaOp, TileElementOp, SharedAllocOp>(op) ||
      isa<LLVM::PoisonOp, LLVM::UndefOp, LLVM::InsertElementOp, LLVM::ExtractElementOp>(op))
    return joinFacts(llvm::to_vector(op->getOperands()), sourceLevel(Source::Constant));
  return {sourceLevel(Source::Unknown), nullptr}; // atomics, other loads, region results
}

bool UniformityAnalysis::visit(Operation *op) {
  bool changed = false;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    changed |= update(op->getResult(i), transfer(op, i));
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (LocalVarOp slot = slotOf(store.getPtr()); slot && privateSlots_.count(slot)) {
      // A slot holds what any store put there, under whatever control: the
      // value's reason, or the control's when that is as divergent.
      Fact value = factOf(store.getValue());
      auto fact = [&](Divergence control) {
        if (control.level >= value.level && control.level > Uniform)
          return Fact{control.level, control.where};
        return value;
      };
      Operation *role = roleOf(op);
      SlotFacts &known = stores_[op];
      changed |= raise(known.inRole, fact(controlDivergence(op, role)));
      changed |= raise(known.absolute, fact(controlDivergence(op)));
      // What loads of the slot see (loadFact): the join over its stores in
      // this role (control from the role's entry), outside every role, and
      // everywhere (control from the kernel's entry). Joins of monotone
      // facts, kept as the stores rise, so a load costs O(1), not O(stores).
      auto raiseLevel = [](Level &known, Level l) { known = join(known, l); };
      Level own = role ? known.inRole.level : known.absolute.level;
      raiseLevel(slotJoins_[{slot, role}], own);
      raiseLevel(slotAbsoluteJoin_[slot], known.absolute.level);
    }
    return changed;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    changed |= update(loop.getInductionVar(), {decisionLevel(op), nullptr});
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [arg, init, next] :
         llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs(), yield.getOperands())) {
      Fact a = factOf(init), b = factOf(next);
      changed |= update(arg, b.level > a.level ? b : a);
    }
    return changed;
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    auto yield = loop.getYieldOp();
    for (auto [arg, init, next] :
         llvm::zip(loop.getBeforeArguments(), loop.getInits(), yield.getOperands())) {
      Fact a = factOf(init), b = factOf(next);
      changed |= update(arg, b.level > a.level ? b : a);
    }
    for (auto [arg, passed] : llvm::zip(loop.getAfterArguments(), loop.getConditionOp().getArgs()))
      changed |= update(arg, factOf(passed));
    return changed;
  }
  if (isa<KernelOp>(op))
    return changed;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        changed |= update(arg, {sourceLevel(Source::Unknown), nullptr});
  return changed;
}
