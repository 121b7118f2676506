//===- PlaceMmaWaits.cpp - a turn's wgmma waits and a consume block's end ---===//
//
// MLIRGen emits every mma with its default group (tile/mma.md): outside a
// consume block, or when its consume block reads its result (Sema's
// `waitAfter`), wgmma.commit_group + wait_group 0 right after it; otherwise
// nothing, and the consume block closes with commit_group + wait_group n.
// This pass decides where those waits go in a turn (`tile.turn_wait` ...
// `tile.turn_pass`), and what a consume block's end keeps (PTX ISA
// 9.7.15.6 / 9.7.15.7 wgmma.commit_group / wait_group):
//  - Deferral. The wait_group 0 of an mma that is a statement of the turn's
//    body by itself (`x = mma(...)`: the mma, its commit, the store of its
//    result to a variable) moves to the end of that statement and on: the
//    next warpgroup's mmas are issued behind this one's instead of after its
//    completion (FlashAttention-3 hands over right after issuing). It stops
//    before the next operation that is not an mma left in flight (below), or
//    goes after the hand-over (tile.turn_pass) when nothing else comes.
//  - In flight. A later mma of the body that its consume block leaves
//    uncommitted (no wait after it: the block touches its accumulator and
//    register A only after its own wait) and whose computation reads no
//    register of the deferred mma (its result, or a variable it was stored
//    to: as accumulator, as A, as target, or anywhere in the operands) is
//    committed as a group of its own after its statement, and the wait
//    becomes wait_group n, n those groups: they run on under what follows
//    until the block's wait (FlashAttention-3's one turn: S = Q K^T and
//    O += P V issued together, the softmax of S under P V). Such an mma may
//    be the one statement of each branch of an `if` (`if j > 0 { o = mma(p,
//    s.v, o) }`): it is committed in each branch (an empty group where a
//    branch has no mma, so the count stays exact). A commit_group after the
//    `if` would follow the merge of its paths (with and without wgmmas, or
//    two with): ptxas cannot close the group on a branch's last wgmma there
//    and issues a dummy wgmma (HGMMA.64x8x16, advisory C7519) on every path,
//    the newest group, which `wait_group n` then leaves pending in place of
//    the mma it meant to.
//  - A turn whose body may leave early (sets a `returned`, `broke` or
//    `continued` flag, tile.exit_flag, of a function, loop or kernel around
//    the turn) keeps every wait where it is.
//  - A consume block's end (inflight 0): its commit_group goes when every mma
//    of the block is committed already (each its own group, in a turn). An
//    empty group is not free: ptxas issues a dummy wgmma (HGMMA.64x8x16) for
//    it in every iteration, queued on the tensor cores behind the wgmmas
//    already issued there (the other warpgroups' too), and the wait waits
//    for it. A consume nested in another whose last wgmma operation is a
//    turn's wait_group n > 0 also drops its wait_group 0: every group but
//    the n newest has retired, and those n read other rings' stages, which
//    the enclosing blocks wait for at their ends (FlashAttention-3's K and
//    V: S = Q K^T retired, the K stage is released; P V runs on until V's
//    block ends). With inflight(n > 0) the end stays: the delayed release
//    counts this block's group.
// Where a closing wait_group 0 stays when a turn left groups in flight:
// tile-anchor-mma-waits, which runs next.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLACEMMAWAITS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isMma(Operation *op) { return isa<MmaOp, MmaRegAOp>(op); }

Value accOf(Operation *mma) {
  if (auto m = dyn_cast<MmaOp>(mma))
    return m.getAcc();
  return cast<MmaRegAOp>(mma).getAcc();
}

/// A thread's own variable (tile.local_var), or null.
Operation *slotOf(Value ptr) { return ptr.getDefiningOp<LocalVarOp>(); }

/// The turn body's registers the deferred mma has in flight: its result and
/// the variables it was stored to.
struct Pending {
  SmallPtrSet<Value, 4> values;
  SmallPtrSet<Operation *, 4> slots;
  bool reads(Operation *op) const {
    if (auto load = dyn_cast<LoadOp>(op))
      if (Operation *slot = slotOf(load.getPtr()); slot && slots.count(slot))
        return true;
    return llvm::any_of(op->getOperands(), [&](Value v) { return values.count(v); });
  }
};

/// An mma statement the consume block leaves in flight: its operations run
/// from `begin` to `end`; `mmas` are its mma ops (one per branch of an `if`).
struct InFlight {
  Operation *end = nullptr;
  SmallVector<Operation *, 2> mmas;
};

/// Computes an mma's operands: no side effect but a read of a thread's own
/// variable, and the wgmma.fence before the mma.
bool isOperandOp(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isa<WgmmaFenceOp>(op) || isMemoryEffectFree(op))
    return true;
  auto load = dyn_cast<LoadOp>(op);
  return load && slotOf(load.getPtr());
}

/// Whether every result of `ops` is used only by `ops` or inside `user`.
bool usedOnlyWithin(ArrayRef<Operation *> ops, Operation *user) {
  SmallPtrSet<Operation *, 8> set(ops.begin(), ops.end());
  for (Operation *op : ops)
    for (Operation *u : op->getUsers())
      if (!set.count(u) && u != user && !user->isAncestor(u))
        return false;
  return true;
}

/// The statement starting at `from` (before `stop`), when it is an mma its
/// consume block leaves in flight that reads nothing `pending` holds: its
/// operand computations, the mma (no commit_group after it), and the store
/// of its result to a variable not pending (or no use of it: a `let`).
/// `needStore`: a branch of an `if`, which holds an assignment.
std::optional<InFlight> mmaStatement(Operation *from, Operation *stop, const Pending &pending,
                                     bool needStore) {
  SmallVector<Operation *, 8> run;
  Operation *op = from;
  for (; op && op != stop && !isMma(op) && !isa<scf::IfOp>(op); op = op->getNextNode()) {
    if (!isOperandOp(op) || pending.reads(op))
      return std::nullopt;
    run.push_back(op);
  }
  if (!op || op == stop || pending.reads(op))
    return std::nullopt;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    // `if c { x = mma(...) } [else { y = mma(...) }]`: one such statement in
    // each branch, nothing else.
    if (ifOp.getNumResults() != 0 || needStore || !usedOnlyWithin(run, ifOp))
      return std::nullopt;
    InFlight s;
    s.end = ifOp;
    for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
      if (r != &ifOp.getThenRegion() &&
          (r->empty() || r->front().getOperations().size() == 1))
        continue; // no else, or an empty one
      Block &b = r->front();
      std::optional<InFlight> inner =
          mmaStatement(&b.front(), b.getTerminator(), pending, /*needStore=*/true);
      if (!inner || inner->end->getNextNode() != b.getTerminator())
        return std::nullopt;
      s.mmas.append(inner->mmas);
    }
    return s;
  }
  // No commit_group after it: the consume block's end commits it.
  if (isa_and_nonnull<WgmmaCommitOp>(op->getNextNode()))
    return std::nullopt;
  // Its accumulator and register A: zeros, a variable not pending, or a
  // value computed before the statement (a `let`), not an expression.
  SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
  auto notPending = [&](Value v) {
    if (pending.values.count(v))
      return false;
    Operation *def = v.getDefiningOp();
    if (!def || !inRun.count(def))
      return true;
    if (isa<FragZerosOp>(def))
      return true;
    auto load = dyn_cast<LoadOp>(def);
    return load && slotOf(load.getPtr());
  };
  if (!notPending(accOf(op)))
    return std::nullopt;
  if (auto regA = dyn_cast<MmaRegAOp>(op); regA && !notPending(regA.getA()))
    return std::nullopt;
  if (!usedOnlyWithin(run, op))
    return std::nullopt;
  InFlight s;
  s.mmas.push_back(op);
  s.end = op;
  Value result = op->getResult(0);
  if (result.use_empty())
    return needStore ? std::nullopt : std::optional<InFlight>(s);
  auto store = dyn_cast_or_null<StoreOp>(op->getNextNode());
  if (!result.hasOneUse() || !store || store.getValue() != result)
    return std::nullopt;
  Operation *slot = slotOf(store.getPtr());
  if (!slot || pending.slots.count(slot))
    return std::nullopt;
  s.end = store;
  return s;
}

/// Whether the operations from `from` up to the hand-over only compute its
/// operands (the next warpgroup's rank).
bool onlyHandOver(Operation *from, Operation *pass, const Pending &pending) {
  SmallVector<Operation *, 8> run;
  for (Operation *op = from; op != pass; op = op->getNextNode()) {
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op) || pending.reads(op))
      return false;
    run.push_back(op);
  }
  return usedOnlyWithin(run, pass);
}

/// Whether the turn's body sets an exit flag that it does not clear itself
/// (an inner loop's `broke`/`continued`, an inlined function's `returned`
/// are cleared where the loop or call starts, inside the body).
bool mayLeaveEarly(Operation *wait, Operation *pass) {
  auto *dialect = wait->getContext()->getLoadedDialect<TileDialect>();
  SmallPtrSet<Operation *, 4> set, cleared;
  for (Operation *op = wait->getNextNode(); op != pass; op = op->getNextNode())
    op->walk([&](StoreOp store) {
      Operation *slot = slotOf(store.getPtr());
      if (!slot || !dialect->getExitFlagAttrHelper().isAttrPresent(slot))
        return;
      if (matchPattern(store.getValue(), m_Zero()))
        cleared.insert(slot);
      else
        set.insert(slot);
    });
  return llvm::any_of(set, [&](Operation *slot) { return !cleared.count(slot); });
}

/// Where a block leaves the mmas it issued, seen from its end back: an mma
/// that may be uncommitted (Open), a commit_group after every mma on every
/// path (Done), or neither mma nor commit_group (None).
enum class MmaCommit { None, Done, Open };

/// The state before `end` (null: the block's end). An mma also counts in a
/// nested `if` or loop; a commit_group in a nested region only in an `if`
/// whose branches both end committed (the turn's `if` of an mma commits in
/// each branch), not in a loop, which may not run.
MmaCommit mmaCommitState(Block &block, Operation *end = nullptr) {
  auto it = end ? end->getIterator() : block.end();
  while (it != block.begin()) {
    Operation &op = *--it;
    if (isa<WgmmaCommitOp>(op))
      return MmaCommit::Done;
    if (auto consume = dyn_cast<RingConsumeOp>(op)) { // nested: as its block ends
      MmaCommit inner = consume.getBody().empty() ? MmaCommit::None
                                                  : mmaCommitState(consume.getBody().front());
      if (inner != MmaCommit::None)
        return inner;
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      MmaCommit t = mmaCommitState(*ifOp.thenBlock());
      MmaCommit e = ifOp.elseBlock() ? mmaCommitState(*ifOp.elseBlock()) : MmaCommit::None;
      if (t == MmaCommit::Open || e == MmaCommit::Open)
        return MmaCommit::Open;
      if (t == MmaCommit::Done && e == MmaCommit::Done)
        return MmaCommit::Done;
      continue; // one branch may commit nothing: the ops before decide
    }
    if (op.walk([](Operation *inner) {
            return isMma(inner) ? WalkResult::interrupt() : WalkResult::advance();
          }).wasInterrupted())
      return MmaCommit::Open;
  }
  return MmaCommit::None;
}

bool isWgmmaOrConsume(Operation *op) {
  return isa<MmaOp, MmaRegAOp, WgmmaCommitOp, WgmmaWaitOp, WgmmaFenceOp, RingConsumeOp>(op);
}

/// Whether mma `mma` reads a stage tile of `ring` (a tile argument of a
/// consume of that ring).
bool mmaReadsRing(Operation *mma, Value ring) {
  auto stageOfRing = [&](Value tile) {
    auto arg = dyn_cast<BlockArgument>(tile);
    auto consume = arg ? dyn_cast<RingConsumeOp>(arg.getOwner()->getParentOp()) : nullptr;
    return consume && consume.getRing() == ring;
  };
  if (auto m = dyn_cast<MmaOp>(mma))
    return stageOfRing(m.getA()) || stageOfRing(m.getB());
  return stageOfRing(cast<MmaRegAOp>(mma).getB());
}

struct PlaceMmaWaitsPass : public mlir::tile::impl::TilePlaceMmaWaitsBase<PlaceMmaWaitsPass> {
  using TilePlaceMmaWaitsBase::TilePlaceMmaWaitsBase;

  /// The waits this pass left with groups in flight, and those groups' mmas.
  DenseMap<Operation *, SmallVector<Operation *, 2>> inFlightWaits;

  void commitInFlight(OpBuilder &b, Location l) {
    sync::setReason(
        WgmmaCommitOp::create(b, l),
        "wgmma.commit_group.sync.aligned: this mma, which its consume block leaves in flight, "
        "is its own group (an empty one when an `if` skipped it), so the turn's earlier mma "
        "is waited for without it");
  }

  /// The turn's mma statements from `wait` (the turn_wait) to `pass`.
  void placeTurn(TurnWaitOp turnWait, TurnPassOp pass) {
    Operation *op = turnWait->getNextNode();
    while (op != pass) {
      auto commit = dyn_cast_or_null<WgmmaCommitOp>(op->getNextNode());
      auto wait = commit ? dyn_cast_or_null<WgmmaWaitOp>(commit->getNextNode()) : nullptr;
      if (!isMma(op) || !wait || wait.getPending() != 0 || wait.getAfter()) {
        op = op->getNextNode();
        continue;
      }
      // The statement ends with the store of the result to a variable (or
      // at the commit: a `let`, or an expression that reads the result,
      // which the wait then stays before).
      Pending pending;
      pending.values.insert(op->getResult(0));
      Operation *end = commit;
      if (auto store = dyn_cast_or_null<StoreOp>(wait->getNextNode());
          store && store.getValue() == op->getResult(0) && slotOf(store.getPtr())) {
        end = store;
        pending.slots.insert(slotOf(store.getPtr()));
      }
      wait->remove();
      int64_t newer = 0;
      SmallVector<Operation *, 2> mmas;
      Operation *next = end->getNextNode();
      while (next != pass) {
        std::optional<InFlight> s = mmaStatement(next, pass, pending, /*needStore=*/false);
        if (!s)
          break;
        OpBuilder b(s->end->getContext());
        if (auto ifOp = dyn_cast<scf::IfOp>(s->end)) {
          if (ifOp.getElseRegion().empty()) {
            Block *e = new Block();
            ifOp.getElseRegion().push_back(e);
            b.setInsertionPointToEnd(e);
            scf::YieldOp::create(b, ifOp.getLoc());
          }
          for (Block *branch : {ifOp.thenBlock(), ifOp.elseBlock()}) {
            b.setInsertionPoint(branch->getTerminator());
            commitInFlight(b, ifOp.getLoc());
          }
        } else {
          b.setInsertionPointAfter(s->end);
          commitInFlight(b, s->end->getLoc());
          s->end = s->end->getNextNode();
        }
        ++newer;
        mmas.append(s->mmas);
        next = s->end->getNextNode();
      }
      // Before the next statement, or after the hand-over when nothing
      // but its operands comes.
      Block *body = pass->getBlock();
      Operation *before = onlyHandOver(next, pass, pending) ? pass->getNextNode() : next;
      body->getOperations().insert(before ? before->getIterator() : body->end(), wait);
      wait->setLoc(before == next ? next->getLoc() : pass->getLoc());
      wait.setPending(newer);
      if (newer == 0) {
        sync::setReason(wait, "wgmma.wait_group.sync.aligned 0: the mma of the turn's statement "
                              "completes before the next statement reads registers (PTX ISA "
                              "9.7.15.5); after the hand-over when it was the turn's last "
                              "statement, so the next warpgroup issues behind it");
      } else {
        inFlightWaits[wait] = mmas;
        sync::setReason(wait, "wgmma.wait_group.sync.aligned " + std::to_string(newer) +
                                  ": the turn's mma whose result is read completes; the " +
                                  std::to_string(newer) +
                                  " newer group(s), mmas whose registers the consume block does "
                                  "not touch before its end, stay in flight until the block's "
                                  "wait (PTX ISA 9.7.15.7: wait_group N leaves the N most "
                                  "recent groups pending)");
      }
      op = before == next ? wait.getOperation() : pass.getOperation();
    }
  }

  /// A consume block's closing commit_group + wait_group 0 (MLIRGen's).
  void placeConsumeEnd(RingConsumeOp consume) {
    if (consume.getInflight() != 0 || consume.getBody().empty())
      return;
    Block &body = consume.getBody().front();
    auto wait = body.empty() ? nullptr : dyn_cast<WgmmaWaitOp>(body.back());
    auto commit = wait ? dyn_cast_or_null<WgmmaCommitOp>(wait->getPrevNode()) : nullptr;
    if (!commit || wait.getPending() != 0 || mmaCommitState(body, commit) == MmaCommit::Open)
      return;
    commit.erase();
    if (!consume->getParentOfType<RingConsumeOp>() && !consume->getParentOfType<RingProduceOp>())
      return;
    // The block's last wgmma operation is a turn's wait_group n > 0 whose
    // groups read other rings' stages: the enclosing blocks wait for them.
    Operation *last = nullptr;
    for (auto it = wait->getIterator(); it != body.begin() && !last;) {
      Operation &op = *--it;
      if (op.walk([](Operation *x) {
              return isWgmmaOrConsume(x) ? WalkResult::interrupt() : WalkResult::advance();
            }).wasInterrupted())
        last = &op;
    }
    auto found = last ? inFlightWaits.find(last) : inFlightWaits.end();
    if (found == inFlightWaits.end() ||
        llvm::any_of(found->second, [&](Operation *m) { return mmaReadsRing(m, consume.getRing()); }))
      return;
    wait.erase();
  }

  void runOnOperation() override {
    SmallVector<std::pair<TurnWaitOp, TurnPassOp>> turns;
    getOperation().walk([&](TurnWaitOp turnWait) {
      // The body's hand-over: the next turn_pass of the block (a role's
      // last take-over, a turn_wait alone in its block, has none).
      for (Operation *op = turnWait->getNextNode(); op; op = op->getNextNode())
        if (auto pass = dyn_cast<TurnPassOp>(op)) {
          turns.push_back({turnWait, pass});
          break;
        }
    });
    for (auto [turnWait, pass] : turns)
      if (!mayLeaveEarly(turnWait, pass))
        placeTurn(turnWait, pass);
    // Nested blocks first, as MLIRGen ends them.
    getOperation().walk([&](RingConsumeOp consume) { placeConsumeEnd(consume); });
    inFlightWaits.clear();
  }
};

} // namespace
