//===- MLIRGenMma.cpp - fragments, mma and the wgmma group placement -------===//
//
// The wgmma fence/commit/wait rule (PTX ISA 9.7.15.6 wgmma.fence /
// commit_group / wait_group):
//  - zeros<T>[M, N] is tile.frag_zeros; mma(a, b, acc) one tile.mma whose
//    operands are the tiles' bases, the first row (and, of a column view,
//    the first column) of each view and the tile layouts (the descriptors are computed in the
//    lowering), or, with a a 16-bit fragment, one tile.mma_reg_a (A in registers), after a
//    wgmma.fence that orders the writes of A's registers before it.
//  - An mma in a consume block whose result the block reads, or whose A
//    fragment variable the block assigns (Sema's `waitAfter`), is followed
//    by commit_group + wait_group 0, and the next mma of the block by a
//    wgmma.fence.
//  - Outside a consume block an mma is complete when the statement ends:
//    wgmma.fence, the mma, commit_group, wait_group 0.
//  - In a turn's body, tile-place-mma-waits moves those waits (past the
//    hand-over; mmas left in flight as groups of their own, wait_group n).
//  - In `consume r as s inflight(n)`: wgmma.fence at the top of the block
//    (before its first mma, after any earlier non-wgmma write of the
//    accumulator), commit_group at its end (tile-place-mma-waits drops it
//    when every mma of the block is committed already), then wait_group n.
//    With n = 0 the stage is released as before. With n > 0 the stage
//    consumed n blocks earlier is released instead (its group has retired:
//    at most n newer groups are pending), counted by a per-(ring, role) slot
//    of unreleased stages; after the innermost loop around the consume,
//    wait_group 0 and the unreleased stages are released oldest first (the
//    drain).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"
#include "tile/Dialect/MmaSignedness.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

/// Why the compiler issued op (listed by `tilec --explain-sync`).
static void explain(Operation *op, const Twine &why) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSyncAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), why.str()));
}

Value MLIRGenImpl::genMmaCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  if (e.builtin == fe::Builtin::Zeros)
    return FragZerosOp::create(builder, l, valueType(e.type));
  Type i32 = builder.getI32Type();
  // A view's first row (0 for the whole tile) and first column (none for
  // the whole tile): block index times the view's extent.
  auto first = [&](const fe::ExprAST *block, int64_t extent) {
    Value index = castInt(l, genExpr(*block), i32);
    Value count = intConst(l, i32, extent);
    return arith::MulIOp::create(builder, l, index, count).getResult();
  };
  auto operand = [&](const fe::CallExpr::MmaOperand &op) {
    Value row = op.rowBlock ? first(op.rowBlock, op.viewRows) : intConst(l, i32, 0);
    Value col = op.colBlock ? first(op.colBlock, op.viewCols) : Value();
    return std::make_tuple(arrays[op.tile].base, row, col);
  };
  auto [b, bRow, bCol] = operand(e.mma.b);
  Value aFrag, a, aRow, aCol;
  if (e.mma.a.inRegisters)
    aFrag = genExpr(*e.args[0]);
  else
    std::tie(a, aRow, aCol) = operand(e.mma.a);
  Value acc = genExpr(*e.args[2]);
  if (!e.mma.inConsume)
    explain(WgmmaFenceOp::create(builder, l),
            "wgmma.fence.sync.aligned: the accumulator's registers and the operand tiles are "
            "ordered before this mma");
  else if (aFrag || mmaFenceDue_)
    explain(WgmmaFenceOp::create(builder, l),
            aFrag ? "wgmma.fence.sync.aligned: A's registers, written in this consume block, are "
                    "ordered before the mma that reads them (PTX ISA 9.7.15.6.1)"
                  : "wgmma.fence.sync.aligned: registers were accessed since this consume "
                    "block's last wait (PTX ISA 9.7.15.6.1)");
  mmaFenceDue_ = false;
  // K-major: the tile's inner dimension is K (a as written, b transposed).
  Value result =
      aFrag ? MmaRegAOp::create(builder, l, acc.getType(), acc, aFrag, b, bRow, bCol,
                                tileLayout(*e.mma.b.tile), builder.getBoolAttr(e.mma.b.transposed))
                  .getResult()
            : MmaOp::create(builder, l, acc.getType(), acc, a, aRow, aCol, b, bRow, bCol,
                            tileLayout(*e.mma.a.tile), tileLayout(*e.mma.b.tile),
                            builder.getBoolAttr(!e.mma.a.transposed),
                            builder.getBoolAttr(e.mma.b.transposed),
                            builder.getI64IntegerAttr(e.mma.k))
                  .getResult();
  // i8 is signless in MLIR: a u8 tile is read as wgmma's .u8 (MmaSignedness.h).
  if (!aFrag)
    for (auto [side, name] :
         {std::pair{&e.mma.a, kMmaAUnsignedAttr}, {&e.mma.b, kMmaBUnsignedAttr}})
      if (side->tile->elem.type.scalar == fe::ScalarKind::U8)
        result.getDefiningOp()->setAttr(name, builder.getUnitAttr());
  if (!e.mma.inConsume) {
    explain(WgmmaCommitOp::create(builder, l),
            "wgmma.commit_group.sync.aligned: the mma outside a consume block is its own group");
    explain(WgmmaWaitOp::create(builder, l, 0),
            "wgmma.wait_group.sync.aligned 0: the mma outside a consume block completes before "
            "the next statement");
  } else if (e.mma.waitAfter) {
    // Sema (MmaResultReads): the result is read, or A's variable assigned,
    // before the block ends; a wgmma's registers may be accessed only after
    // a wait covering it.
    explain(WgmmaCommitOp::create(builder, l),
            e.mma.waitForA ? "wgmma.commit_group.sync.aligned: this mma's register operand A is "
                             "assigned in the consume block"
                           : "wgmma.commit_group.sync.aligned: this mma's result is read in the "
                             "consume block");
    explain(WgmmaWaitOp::create(builder, l, 0),
            e.mma.waitForA
                ? "wgmma.wait_group.sync.aligned 0: before this consume block assigns the "
                  "variable this mma reads as A (PTX ISA 9.7.15.5: A's registers may not "
                  "change until the group completes; assign it after the block to keep the "
                  "mma in flight until the block's wait)"
                : "wgmma.wait_group.sync.aligned 0: before this consume block reads the mma's "
                  "result (PTX ISA 9.7.15.5)");
    mmaFenceDue_ = true;
  }
  return result;
}

void MLIRGenImpl::genMmaConsumeStart(const fe::RingAccessStmt &s) {
  mmaFenceDue_ = false;
  if (!s.mmaInBody)
    return; // its mmas are in nested consume blocks, each fenced at its top
  explain(WgmmaFenceOp::create(builder, loc(s.loc)),
          "wgmma.fence.sync.aligned: before the first mma of the consume of ring '" +
              s.ring->decl->name + "' (orders earlier accumulator writes before wgmma)");
}

bool MLIRGenImpl::genMmaConsumeEnd(const fe::RingAccessStmt &s, Value stage) {
  Location l = loc(s.loc);
  const fe::RingStmt &r = *s.ring;
  Type i32 = builder.getI32Type();
  // tile-place-mma-waits drops this commit_group when every mma of the
  // block is committed already, and where a closing wait_group 0 stays when
  // a turn left groups in flight is tile-anchor-mma-waits'.
  explain(WgmmaCommitOp::create(builder, l),
          "wgmma.commit_group.sync.aligned: the mma of this consume of ring '" + r.decl->name +
              "' form one group");
  explain(WgmmaWaitOp::create(builder, l, s.inflight),
          "wgmma.wait_group.sync.aligned " + Twine(s.inflight) + ": at most " + Twine(s.inflight) +
              " groups stay in flight (consume inflight(" + Twine(s.inflight) + "))");
  if (s.inflight == 0)
    return false;
  auto key = std::make_pair(&r, currentRole);
  Value &pending = mmaPending[key];
  if (!pending) {
    pending = newSlot(l, i32);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPointAfter(pending.getDefiningOp());
    storeWeak(l, intConst(l, i32, 0), pending);
  }
  mmaDrains.emplace(s.drainLoop, &s);
  Value count = loadWeak(l, pending);
  Value full = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, count,
                                     intConst(l, i32, s.inflight));
  auto ifOp = scf::IfOp::create(builder, l, full, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    // n groups are pending: the stage consumed n blocks ago has retired.
    RingReleaseOp::create(builder, l, ringOps[&r], ringCursor(r, /*producer=*/false), stage,
                          s.inflight, s.slotReadOnlyByMma());
    builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    storeWeak(l, arith::AddIOp::create(builder, l, count, intConst(l, i32, 1)), pending);
  }
  if (!s.drainLoop)
    genMmaDrains(s); // not in a loop: drained right after the block
  return true;
}

void MLIRGenImpl::genMmaDrains(const fe::StmtAST &loop) {
  auto [first, last] = mmaDrains.equal_range(&loop);
  if (first == last)
    return;
  SmallVector<const fe::RingAccessStmt *> consumes;
  for (auto it = first; it != last; ++it)
    consumes.push_back(it->second);
  mmaDrains.erase(first, last);
  Type i32 = builder.getI32Type();
  for (const fe::RingAccessStmt *s : consumes) {
    const fe::RingStmt &r = *s->ring;
    Location l = loc(s->loc);
    explain(WgmmaWaitOp::create(builder, l, 0),
            "wgmma.wait_group.sync.aligned 0: drain of the consume of ring '" + r.decl->name +
                "' (every group retired; the accumulators may be read)");
    Value pending = mmaPending[std::make_pair(&r, currentRole)];
    // Release the pending stages, oldest first (tile-lower-rings).
    Value cursor = ringCursor(r, /*producer=*/false);
    RingDrainOp::create(builder, l, ringOps[&r], cursor, loadWeak(l, pending),
                        s->slotReadOnlyByMma());
    storeWeak(l, intConst(l, i32, 0), pending);
  }
}
