//===- MLIRGenRings.cpp - pipeline rings -> tile.ring ops ------------------===//
//
// `let r = pipeline[S] { ... }` becomes a tile.ring (its stages, member
// tiles, multicast axis, consumer warps), initialised by tile.ring_init with
// the other mbarriers on kernel entry; each `produce`/`consume` a
// tile.ring_produce/tile.ring_consume on the cursor of its side in its role,
// whose block arguments are the stage's tiles (and full mbarrier or stage
// index). tile-lower-rings assigns every access its stage and phase and
// emits the waits, arrivals and releases.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "tilec/Target/TargetFacts.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

/// A compiler-owned synchronisation that publishes shared memory only (read
/// by tile-place-bulk-waits: it needs no TMA store's global completion).
void mlir::tile::mlirgen::markSharedOnlySync(Operation *op) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSharedOnlyAttrHelper().setAttr(
      op, UnitAttr::get(op->getContext()));
}

void MLIRGenImpl::genRingStorage(const fe::RingStmt &r) {
  SmallVector<Attribute> types;
  SmallVector<int64_t> strides, alignments;
  for (const fe::RingMember &m : r.members) {
    types.push_back(TypeAttr::get(scalarType(m.elem.type.scalar)));
    strides.push_back(m.strideElems);
    alignments.push_back(m.stage->alignBytes);
  }
  auto ring = RingOp::create(builder, loc(r.loc), RingType::get(builder.getContext()), r.decl->name,
                             r.stages, builder.getArrayAttr(types), strides, alignments,
                             /*tx_bytes=*/std::max<int64_t>(r.txBytes, 0), r.consumerWarps,
                             r.multicastAxis >= 0 ? builder.getI32IntegerAttr(r.multicastAxis)
                                                  : IntegerAttr(),
                             r.releasedPerWarpgroup, r.storedByTma);
  ringOps[&r] = ring;
}

void MLIRGenImpl::genRingInits() {
  for (const fe::RingStmt *r : kernelAST->rings)
    RingInitOp::create(builder, loc(r->loc), ringOps[r]);
}

Value MLIRGenImpl::ringCursor(const fe::RingStmt &r, bool producer) {
  Value &cursor = ringCursors[std::make_tuple(&r, currentRole, producer)];
  if (!cursor) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    cursor = RingCursorOp::create(builder, loc(r.loc), RingCursorType::get(builder.getContext()),
                                  producer);
  }
  return cursor;
}

void MLIRGenImpl::genRingAccess(const fe::RingAccessStmt &s) {
  Location l = loc(s.loc);
  const fe::RingStmt &r = *s.ring;
  Type i32 = builder.getI32Type();
  Value ring = ringOps[&r];
  Value cursor = ringCursor(r, s.isProduce());
  // The body's arguments: the stage's full mbarrier (produce) or index
  // (consume), then the stage's tile of each member.
  SmallVector<Type> argTypes;
  argTypes.push_back(s.isProduce() ? Type(PtrType::get(builder.getContext(), builder.getI64Type(),
                                                       AddressSpace::shared))
                                   : i32);
  for (const fe::RingMember &m : r.members)
    argTypes.push_back(
        PtrType::get(builder.getContext(), scalarType(m.elem.type.scalar), AddressSpace::shared));
  SmallVector<Location> argLocs(argTypes.size(), l);
  Region *body = s.isProduce()
                     ? &RingProduceOp::create(builder, l, ring, cursor, inElectedThread).getBody()
                     : &RingConsumeOp::create(
                            builder, l, ring, cursor, s.issuesMma ? s.inflight : 0,
                            // No generic read of the slot: its reads (wgmma,
                            // a TMA store's, or none at all) are complete
                            // before the release, which is then relaxed.
                            !s.readsStageGenerically,
                            s.anchorMode < 0 ? StringAttr()
                                             : builder.getStringAttr(
                                                   s.anchorMode == 0   ? "none"
                                                   : s.anchorMode == 1 ? "reduce"
                                                                       : "last"))
                            .getBody();
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.createBlock(body, {}, argTypes, argLocs);
  // `s.NAME` is this stage's tile while the block is emitted.
  for (size_t i = 0; i < r.members.size(); ++i) {
    ArrayInfo info;
    info.base = block->getArgument(i + 1);
    info.count = intConst(l, i32, *r.members[i].stage->constantCount);
    arrays[r.members[i].stage.get()] = info;
  }
  if (s.isProduce()) {
    Value outer = producingFull;
    producingFull = block->getArgument(0);
    genBlock(s.body, 0);
    producingFull = outer;
    return;
  }
  // Leading `if ... { copy_async(...) }` statements (forwarding the stage,
  // ring_gemm) come before the wgmma.fence, so no divergent branch separates
  // the warpgroup's wgmma instructions (ptxas would serialise them, C7520).
  size_t first = s.issuesMma ? leadingTmaStoreIfs(s.body) : 0;
  for (size_t i = 0; i < first; ++i)
    genStmt(*s.body[i]);
  if (s.issuesMma) // MLIRGenMma.cpp: wgmma.fence before the block's first mma
    genMmaConsumeStart(s);
  genBlock(s.body, first);
  if (s.issuesMma) // commit + wait; with inflight(n) the delayed release
    genMmaConsumeEnd(s, block->getArgument(0));
}

void MLIRGenImpl::genRingTails(Location l) {
  for (const fe::RingStmt *r : kernelAST->rings) {
    auto it = ringCursors.find(std::make_tuple(r, currentRole, true));
    if (it != ringCursors.end())
      RingTailOp::create(builder, l, ringOps[r], it->second, inElectedThread);
  }
}
