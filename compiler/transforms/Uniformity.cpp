//===- Uniformity.cpp - over which threads values and control are the same -===//
#include "Uniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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
std::optional<Level> threadIndexQuotient(Operation *op, bool oneDimBlock) {
  APInt c;
  std::optional<int64_t> divisor;
  if (auto div = dyn_cast<arith::DivUIOp>(op)) {
    if (isLinearThreadIndex(div.getLhs(), oneDimBlock) && matchPattern(div.getRhs(), m_ConstantInt(&c)))
      divisor = c.getZExtValue();
  } else if (auto shr = dyn_cast<arith::ShRUIOp>(op)) {
    if (isLinearThreadIndex(shr.getLhs(), oneDimBlock) && matchPattern(shr.getRhs(), m_ConstantInt(&c)) &&
        c.getZExtValue() < 31)
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

bool isFullMask(Value mask) {
  APInt c;
  return matchPattern(mask, m_ConstantInt(&c)) && c.isAllOnes();
}
} // namespace

UniformityAnalysis::UniformityAnalysis(KernelOp kernel) {
  // .reqntid/.maxntid X, 1, 1: %tid.x is the linear thread index.
  for (DenseI32ArrayAttr bound : {kernel.getReqThreadsAttr(), kernel.getMaxThreadsAttr()})
    if (bound && bound.size() == 3 && bound[1] == 1 && bound[2] == 1)
      oneDimBlock_ = true;
  // A slot whose address only ever reaches tile.load/tile.store as their
  // pointer holds what was stored to it; any other use (an escaping
  // pointer) leaves it unknown, so its loads are per-thread.
  kernel.walk([&](LocalVarOp var) {
    bool isPrivate = llvm::all_of(var->getUses(), [](OpOperand &use) {
      if (auto load = dyn_cast<LoadOp>(use.getOwner()))
        return use.get() == load.getPtr();
      if (auto store = dyn_cast<StoreOp>(use.getOwner()))
        return use.get() == store.getPtr() && use.get() != store.getValue();
      return false;
    });
    if (isPrivate)
      slots_[var] = Uniform;
  });
  for (BlockArgument param : kernel.getBody().getArguments())
    values_[param] = sourceLevel(Source::Param);
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

Level UniformityAnalysis::levelOf(Value v) const {
  if (gaveUp_)
    return PerThread;
  auto it = values_.find(v);
  if (it != values_.end())
    return it->second;
  return settled_ ? PerThread : Uniform; // not reached yet in this pass: bottom
}

bool UniformityAnalysis::update(Value v, Level l) {
  auto [it, inserted] = values_.try_emplace(v, l);
  if (inserted)
    return true;
  if (l <= it->second)
    return false;
  it->second = l;
  return true;
}

Level UniformityAnalysis::decisionLevel(Operation *op) const {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return levelOf(ifOp.getCondition());
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return join(join(levelOf(loop.getLowerBound()), levelOf(loop.getUpperBound())),
                levelOf(loop.getStep()));
  // Both regions: after the first test, only the threads that continued run
  // them.
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return levelOf(loop.getConditionOp().getCondition());
  // A role is entered by whole warpgroups; the CTA's other roles skip it.
  if (isa<RoleOp>(op))
    return sourceLevel(Source::WarpgroupIndex);
  if (isa<KernelOp>(op))
    return Uniform;
  return PerThread;
}

Level UniformityAnalysis::controlLevel(Operation *op, Operation *stopAt) const {
  Level l = Uniform;
  for (Operation *parent = op->getParentOp(); parent && parent != stopAt && !isa<KernelOp>(parent);
       parent = parent->getParentOp())
    l = join(l, decisionLevel(parent));
  return l;
}

Level UniformityAnalysis::transfer(Operation *op, unsigned i) const {
  if (auto sreg = dyn_cast<SRegOp>(op))
    return sregLevel(sreg.getReg());
  if (isa<WarpgroupIdOp>(op))
    return sourceLevel(Source::WarpgroupIndex);
  if (isa<ElectOneOp>(op))
    return sourceLevel(Source::ElectedLane);
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (LocalVarOp slot = slotOf(load.getPtr()); slot && slots_.count(slot))
      return slots_.lookup(slot);
    return sourceLevel(Source::MemoryLoad);
  }
  if (auto vote = dyn_cast<VoteOp>(op))
    return isFullMask(vote.getMask()) ? sourceLevel(Source::WarpVote) : PerThread;
  if (auto redux = dyn_cast<ReduxOp>(op))
    return isFullMask(redux.getMask()) ? sourceLevel(Source::WarpVote) : PerThread;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    Level l = levelOf(ifOp.getCondition());
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
      if (!region->empty())
        l = join(l, levelOf(region->front().getTerminator()->getOperand(i)));
    return l;
  }
  // Threads that leave a loop at different iterations keep different values.
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return join(levelOf(loop.getRegionIterArgs()[i]), decisionLevel(op));
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return join(levelOf(loop.getConditionOp().getArgs()[i]), decisionLevel(op));
  if (std::optional<Level> quotient = threadIndexQuotient(op, oneDimBlock_))
    return *quotient;
  // Pure functions of their operands: arithmetic, and the pointer arithmetic
  // of shared arrays (the same addresses in every thread).
  if (isa_and_nonnull<arith::ArithDialect>(op->getDialect()) ||
      isa<PtrAddOp, MapaOp, TileElementOp, SharedAllocOp>(op)) {
    Level l = sourceLevel(Source::Constant);
    for (Value operand : op->getOperands())
      l = join(l, levelOf(operand));
    return l;
  }
  return sourceLevel(Source::Unknown); // atomics, other loads, region results
}

bool UniformityAnalysis::visit(Operation *op) {
  bool changed = false;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    changed |= update(op->getResult(i), transfer(op, i));
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (LocalVarOp slot = slotOf(store.getPtr()); slot && slots_.count(slot)) {
      // A slot holds what any store put there, under whatever control.
      Level l = join(levelOf(store.getValue()), controlLevel(op));
      Level &known = slots_[slot];
      if (l > known) {
        known = l;
        changed = true;
      }
    }
    return changed;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    changed |= update(loop.getInductionVar(), decisionLevel(op));
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [arg, init, next] :
         llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs(), yield.getOperands()))
      changed |= update(arg, join(levelOf(init), levelOf(next)));
    return changed;
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    auto yield = loop.getYieldOp();
    for (auto [arg, init, next] :
         llvm::zip(loop.getBeforeArguments(), loop.getInits(), yield.getOperands()))
      changed |= update(arg, join(levelOf(init), levelOf(next)));
    for (auto [arg, passed] : llvm::zip(loop.getAfterArguments(), loop.getConditionOp().getArgs()))
      changed |= update(arg, levelOf(passed));
    return changed;
  }
  if (isa<KernelOp>(op))
    return changed;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        changed |= update(arg, sourceLevel(Source::Unknown));
  return changed;
}
