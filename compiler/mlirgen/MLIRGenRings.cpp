//===- MLIRGenRings.cpp - pipeline rings: stages, phases, releases ---------===//
//
// A ring is S copies of each member tile (one shared allocation per member,
// aligned and laid out like a copy_async tile) plus S full and S empty
// mbarriers, initialised with the other mbarriers on kernel entry:
//   full[s]:  1 arrival (the producer's arrive.expect_tx) + the stage's bytes;
//   empty[s]: one arrival per consumer warp of every CTA that writes into
//             this CTA's slot (the multicast group; 1 CTA without multicast).
// Stage index and phase bit are per-thread slots per (ring, role, side)
// (mem2reg turns them into loop-carried registers). produce waits
// empty[stage] at parity phase ^ 1 (fresh barriers have completed the phase
// of parity 1, so the first S produces pass: PTX ISA 9.7.13.15.16), then
// arrive.expect_tx(full[stage], bytes) and the copies on full[stage];
// consume waits full[stage] at parity phase, runs the body, then each warp
// orders its lanes' reads with bar.warp.sync and lane q releases empty[stage]
// of the q-th CTA of its multicast group (mbarrier.arrive.release.cluster
// through mapa; a local release without multicast). A producer finally waits
// for its last S stages to be released, so no CTA leaves while peers may
// still multicast into it.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "tilec/Target/TargetFacts.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

namespace target = ::tile::target;

/// A compiler-owned synchronisation that publishes shared memory only (read
/// by tile-place-bulk-waits: it needs no TMA store's global completion).
void mlir::tile::mlirgen::markSharedOnlySync(Operation *op) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSharedOnlyAttrHelper().setAttr(
      op, UnitAttr::get(op->getContext()));
}

/// Why the compiler issued op (listed by `tilec --explain-sync`).
static void explain(Operation *op, const Twine &why) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSyncAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), why.str()));
}

/// What --debug-hangs reports for a ring wait: the barrier's name (`r.full`),
/// that its index is the ring's stage (tile.hang_stage), and a note
/// (tile.hang_note) saying what completes its phase and which mismatch of
/// produces and consumes leaves the wait hanging.
static void nameWait(Operation *op, const Twine &name, const Twine &note) {
  op->getContext()->getLoadedDialect<TileDialect>()->getNameAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), name.str()));
  op->setAttr("tile.hang_note", StringAttr::get(op->getContext(), note.str()));
  op->setAttr("tile.hang_stage", UnitAttr::get(op->getContext()));
}

void MLIRGenImpl::genRingStorage(const fe::RingStmt &r) {
  Location l = loc(r.loc);
  RingValues v;
  for (const fe::RingMember &m : r.members) {
    Type elem = scalarType(m.elem.type.scalar);
    auto ptrType = PtrType::get(builder.getContext(), elem, AddressSpace::shared);
    auto alloc = SharedAllocOp::create(builder, loc(m.loc), ptrType, Value(),
                                       builder.getI64IntegerAttr(m.strideElems * r.stages));
    alloc.setAlignmentAttr(builder.getI64IntegerAttr(m.stage->alignBytes));
    v.tiles.push_back(alloc);
  }
  auto barType = PtrType::get(builder.getContext(), builder.getI64Type(), AddressSpace::shared);
  v.full = SharedAllocOp::create(builder, l, barType, Value(), builder.getI64IntegerAttr(r.stages));
  v.empty =
      SharedAllocOp::create(builder, l, barType, Value(), builder.getI64IntegerAttr(r.stages));
  ringValues[&r] = v;
}

void MLIRGenImpl::genRingInits() {
  Type i32 = builder.getI32Type();
  for (const fe::RingStmt *r : kernelAST->rings) {
    // A ring never produced or consumed (Sema warns) has no consumer warps:
    // its empty barriers would get arrival count 0, which mbarrier.init
    // does not take (PTX ISA: count in 1 .. 2^20 - 1). Nothing waits on or
    // arrives at its barriers, so they stay uninitialised.
    if (!r->firstProduce && !r->firstConsume)
      continue;
    Location l = loc(r->loc);
    const RingValues &v = ringValues[r];
    Value one = intConst(l, i32, 1);
    Value releases = intConst(l, i32, (int64_t)r->consumerWarps * r->groupSize);
    for (int64_t s = 0; s < r->stages; ++s) {
      Value idx = intConst(l, i32, s);
      MBarrierInitOp::create(builder, l,
                             PtrAddOp::create(builder, l, v.full.getType(), v.full, idx), one);
      MBarrierInitOp::create(
          builder, l, PtrAddOp::create(builder, l, v.empty.getType(), v.empty, idx), releases);
    }
  }
}

MLIRGenImpl::RingState &MLIRGenImpl::ringState(const fe::RingStmt &r, bool producer) {
  auto key = std::make_tuple(&r, currentRole, producer);
  auto it = ringStates.find(key);
  if (it != ringStates.end())
    return it->second;
  Location l = loc(r.loc);
  Type i32 = builder.getI32Type();
  RingState st;
  st.stage = newSlot(l, i32);
  st.phase = newSlot(l, i32);
  {
    // Zero both at the start of the kernel (before any control flow).
    OpBuilder::InsertionGuard g(builder);
    Operation *a = st.stage.getDefiningOp(), *b = st.phase.getDefiningOp();
    builder.setInsertionPointAfter(a->isBeforeInBlock(b) ? b : a);
    Value zero = intConst(l, i32, 0);
    storeWeak(l, zero, st.stage);
    storeWeak(l, zero, st.phase);
  }
  return ringStates[key] = st;
}

/// stage += 1; at S: stage = 0, phase ^= 1.
void MLIRGenImpl::advanceRing(Location l, const fe::RingStmt &r, RingState &st) {
  Type i32 = builder.getI32Type();
  Value stage = loadWeak(l, st.stage);
  Value phase = loadWeak(l, st.phase);
  Value next = arith::AddIOp::create(builder, l, stage, intConst(l, i32, 1));
  Value wrap =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, next, intConst(l, i32, r.stages));
  storeWeak(l, arith::SelectOp::create(builder, l, wrap, intConst(l, i32, 0), next), st.stage);
  Value flipped = arith::XOrIOp::create(builder, l, phase, intConst(l, i32, 1));
  storeWeak(l, arith::SelectOp::create(builder, l, wrap, flipped, phase), st.phase);
}

/// The producer's wait for a free slot: empty[stage] at parity phase ^ 1.
/// The --debug-hangs note of a wait on ring r's empty barrier: a produce's
/// wait for a release, or (tail) the producer's exit wait.
static std::string emptyWaitNote(const fe::RingStmt &r, bool tail) {
  return ("ring '" + r.decl->name + "' empty barrier of the stage; its phase completes with " +
          Twine(r.consumerWarps * r.groupSize) + " consumer warp releases; " +
          (tail ? "the producer's exit waits for every stage it filled to be released: a ring "
                  "produced more times than consumed hangs here"
                : "a produce waits here for the consumers to release the stage's previous fill"))
      .str();
}

void MLIRGenImpl::genRingEmptyWait(Location l, const fe::RingStmt &r, Value emptyPtr, Value phase,
                                   const Twine &why) {
  Type i32 = builder.getI32Type();
  Value parity = arith::XOrIOp::create(builder, l, phase, intConst(l, i32, 1));
  bool peers = r.groupSize > 1;
  // Peers release our slot with release.cluster arrives: acquire at cluster
  // scope pairs with them (PTX ISA 8.x memory model, release/acquire patterns).
  auto wait = MBarrierWaitOp::create(
      builder, l, emptyPtr, parity,
      MemoryOrderAttr::get(builder.getContext(), MemoryOrder::acquire),
      MemoryScopeAttr::get(builder.getContext(), peers ? MemoryScope::cluster : MemoryScope::cta));
  explain(wait, why);
  nameWait(wait, r.decl->name + ".empty", emptyWaitNote(r, /*tail=*/false));
}

void MLIRGenImpl::genRingAccess(const fe::RingAccessStmt &s) {
  Location l = loc(s.loc);
  const fe::RingStmt &r = *s.ring;
  const RingValues &v = ringValues[&r];
  Type i32 = builder.getI32Type();
  RingState &st = ringState(r, s.isProduce());
  Value stage = loadWeak(l, st.stage);
  Value phase = loadWeak(l, st.phase);
  Value fullPtr = PtrAddOp::create(builder, l, v.full.getType(), v.full, stage);
  Value emptyPtr = PtrAddOp::create(builder, l, v.empty.getType(), v.empty, stage);
  // `s.NAME` is this stage's tile while the block is emitted.
  for (size_t i = 0; i < r.members.size(); ++i) {
    const fe::RingMember &m = r.members[i];
    Value offset = arith::MulIOp::create(builder, l, stage, intConst(l, i32, m.strideElems));
    ArrayInfo info;
    info.base = PtrAddOp::create(builder, l, v.tiles[i].getType(), v.tiles[i], offset);
    info.count = intConst(l, i32, *m.stage->constantCount);
    arrays[m.stage.get()] = info;
  }
  if (s.isProduce()) {
    genInElectedThread(l, [&] {
      genRingEmptyWait(l, r, emptyPtr, phase,
                       "mbarrier.try_wait.parity (phase ^ 1) on ring '" + r.decl->name +
                           "' empty[stage]: the consumers released the slot (the first " +
                           Twine(r.stages) + " produces pass at once)");
      auto arrive =
          MBarrierArriveOp::create(builder, l, fullPtr, intConst(l, i32, r.txBytes),
                                   MemoryOrderAttr::get(builder.getContext(), MemoryOrder::release),
                                   MemoryScopeAttr::get(builder.getContext(), MemoryScope::cta));
      explain(arrive, "mbarrier.arrive.expect_tx " + Twine(r.txBytes) + " bytes on ring '" +
                          r.decl->name + "' full[stage]: every byte landing in this CTA" +
                          (r.groupSize > 1 ? " (with the slices " + Twine(r.groupSize - 1) +
                                                 " multicast peers deliver)"
                                           : Twine("")) +
                          ", before the copies");
      Value outer = producingFull;
      producingFull = fullPtr;
      genBlock(s.body, 0);
      producingFull = outer;
    });
    advanceRing(l, r, st);
    return;
  }
  // consume: every thread waits for the stage's bytes.
  auto wait = MBarrierWaitOp::create(
      builder, l, fullPtr, phase, MemoryOrderAttr::get(builder.getContext(), MemoryOrder::acquire),
      MemoryScopeAttr::get(builder.getContext(), MemoryScope::cta));
  explain(wait, "mbarrier.try_wait.parity (phase) on ring '" + r.decl->name +
                    "' full[stage]: the stage's " + Twine(r.txBytes) + " bytes have landed");
  nameWait(wait, r.decl->name + ".full",
           "ring '" + r.decl->name + "' full barrier of the stage; its phase completes with " +
               Twine(r.txBytes) +
               " bytes and the producer's arrival; a consume with no matching produce hangs "
               "here");
  // Issue #10: leading `if ... { copy_async(...) }` statements (forwarding
  // the stage, ring_gemm) come before the wgmma.fence, so no divergent
  // branch separates the warpgroup's wgmma instructions (ptxas would
  // serialise them, C7520).
  size_t first = s.issuesMma ? leadingTmaStoreIfs(s.body) : 0;
  for (size_t i = 0; i < first; ++i)
    genStmt(*s.body[i]);
  if (s.issuesMma) // issue #9 (MLIRGenMma.cpp): wgmma.fence before the block's first mma
    genMmaConsumeStart(s);
  genBlock(s.body, first);
  Location end = loc(s.loc);
  if (s.issuesMma && genMmaConsumeEnd(s, stage)) { // the release is delayed by inflight(n)
    advanceRing(end, r, st);
    return;
  }
  genRingRelease(end, s, emptyPtr);
  advanceRing(end, r, st);
}

/// Every warp of the consuming role releases the stage at `emptyPtr`: after
/// bar.warp.sync, lane q < G arrives on the q-th multicast peer's barrier.
/// The arrive is a release (the warp's generic reads of the slot happen
/// before a peer's TMA overwrites it), except when every read of the slot
/// is a wgmma read: wgmma.wait_group has retired those reads (PTX ISA
/// 9.7.15.7: the group's shared-memory accesses are complete) before the
/// arrive in program order, so nothing is left for a release to order and
/// the arrive is relaxed (a cluster-scope release per warp and stage is what
/// the multicast handshake costs, docs/perf/tma_multicast.md).
void MLIRGenImpl::genRingRelease(Location end, const fe::RingAccessStmt &s, Value emptyPtr) {
  const fe::RingStmt &r = *s.ring;
  const MemoryOrder order = s.slotReadOnlyByMma() ? MemoryOrder::relaxed : MemoryOrder::release;
  const char *orderName = s.slotReadOnlyByMma() ? "relaxed" : "release";
  Type i32 = builder.getI32Type();
  Value lane = sreg(end, SpecialReg::laneid);
  Value group = intConst(end, i32, r.groupSize);
  Value releasing = arith::CmpIOp::create(builder, end, arith::CmpIPredicate::ult, lane, group);
  if (r.releasedPerWarpgroup && r.storedByTma) {
    // Issue #10: a thread of this warp may have forwarded the slot with a
    // TMA store; its wait_group.read (tile-place-bulk-waits, before this
    // shared-only bar.warp.sync) precedes every lane's release.
    auto sync = SyncWarpOp::create(builder, end, intConst(end, i32, -1));
    explain(sync, "bar.warp.sync: a TMA store's read of ring '" + r.decl->name +
                      "' stage (by a lane of this warp) precedes the stage's release");
    markSharedOnlySync(sync);
  }
  if (r.releasedPerWarpgroup) {
    // Only wgmma read the slots (retired by the warpgroup's wait_group): the
    // first warp of each consumer warpgroup releases for all four.
    Value warp = arith::DivUIOp::create(builder, end, roleLinearThread(end).first,
                                        intConst(end, i32, target::kWarpSize));
    Value inGroup = arith::RemUIOp::create(
        builder, end, warp, intConst(end, i32, target::kWarpgroupSize / target::kWarpSize));
    Value first = arith::CmpIOp::create(builder, end, arith::CmpIPredicate::eq, inGroup,
                                        intConst(end, i32, 0));
    releasing = arith::AndIOp::create(builder, end, first, releasing);
  } else {
    // Rule 5: the lanes' generic reads of the slot are ordered before the
    // release (bar.warp.sync orders the memory of the participating lanes,
    // PTX ISA 9.7.13.3; the arrive is a release).
    auto sync = SyncWarpOp::create(builder, end, intConst(end, i32, -1));
    explain(sync, "bar.warp.sync: the warp's reads of ring '" + r.decl->name +
                      "' stage precede its release");
    markSharedOnlySync(sync);
  }
  auto ifOp = scf::IfOp::create(builder, end, releasing, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    MBarrierArriveOp arrive;
    if (r.groupSize > 1) {
      // Lane q releases the slot of the q-th CTA of the multicast group: the
      // CTAs along the axis share every coordinate but that axis's, so their
      // ranks are rank - pos * stride + q * stride (rank = x + y * X + z * X * Y).
      const auto &cd = kernelAST->cluster.dims;
      Value target;
      if (r.multicastAxis == 3) {
        target = lane;
      } else {
        int64_t stride = r.multicastAxis == 0 ? 1 : r.multicastAxis == 1 ? cd[0] : cd[0] * cd[1];
        SpecialReg posReg = r.multicastAxis == 0   ? SpecialReg::cluster_ctaid_x
                            : r.multicastAxis == 1 ? SpecialReg::cluster_ctaid_y
                                                   : SpecialReg::cluster_ctaid_z;
        Value rank = sreg(end, SpecialReg::cluster_ctarank);
        Value pos = sreg(end, posReg);
        Value delta = arith::SubIOp::create(builder, end, lane, pos);
        if (stride != 1)
          delta = arith::MulIOp::create(builder, end, delta, intConst(end, i32, stride));
        target = arith::AddIOp::create(builder, end, rank, delta);
      }
      auto type = PtrType::get(builder.getContext(), builder.getI64Type(), AddressSpace::cluster);
      Value remote = MapaOp::create(builder, end, type, emptyPtr, target);
      arrive = MBarrierArriveOp::create(
          builder, end, remote, Value(), MemoryOrderAttr::get(builder.getContext(), order),
          MemoryScopeAttr::get(builder.getContext(), MemoryScope::cluster));
      explain(arrive, "mbarrier.arrive." + Twine(orderName) + ".cluster on ring '" + r.decl->name +
                          "' empty[stage] of multicast peer (lane q -> q-th CTA of the group of " +
                          Twine(r.groupSize) + "): the slot may be refilled");
    } else {
      arrive = MBarrierArriveOp::create(
          builder, end, emptyPtr, Value(), MemoryOrderAttr::get(builder.getContext(), order),
          MemoryScopeAttr::get(builder.getContext(), MemoryScope::cta));
      explain(arrive, "mbarrier.arrive." + Twine(orderName) + " (lane 0 of each warp) on ring '" +
                          r.decl->name + "' empty[stage]: the slot may be refilled");
    }
    markSharedOnlySync(arrive);
  }
}

void MLIRGenImpl::genRingTails(Location l) {
  for (const fe::RingStmt *r : kernelAST->rings) {
    auto it = ringStates.find(std::make_tuple(r, currentRole, true));
    if (it == ringStates.end())
      continue;
    RingState &st = it->second;
    const RingValues &v = ringValues[r];
    Type i32 = builder.getI32Type();
    // Every stage released: no peer multicasts into or arrives on this CTA
    // after it leaves (ASYNC-DESIGN rule 3).
    genInElectedThread(l, [&] {
      auto loop = scf::ForOp::create(builder, l, intConst(l, i32, 0), intConst(l, i32, r->stages),
                                     intConst(l, i32, 1));
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPoint(loop.getBody()->getTerminator());
      Value stage = loadWeak(l, st.stage);
      Value phase = loadWeak(l, st.phase);
      Value emptyPtr = PtrAddOp::create(builder, l, v.empty.getType(), v.empty, stage);
      genRingEmptyWait(l, *r, emptyPtr, phase,
                       "producer tail: wait for ring '" + r->decl->name +
                           "' empty[stage] of the last " + Twine(r->stages) +
                           " stages, so no peer still writes into or arrives on this CTA");
      // The wait just emitted: its hang report names the exit wait.
      if (builder.getInsertionPoint() != builder.getInsertionBlock()->begin())
        if (auto wait = dyn_cast<MBarrierWaitOp>(&*std::prev(builder.getInsertionPoint())))
          nameWait(wait, r->decl->name + ".empty", emptyWaitNote(*r, /*tail=*/true));
      advanceRing(l, *r, st);
    });
  }
}
