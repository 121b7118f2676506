//===- LowerRings.cpp - rings -> shared tiles, mbarriers, stage and phase ---===//
//
// A ring (tile.ring) becomes one shared allocation per member tile (S copies)
// plus S full and S empty mbarriers:
//   full[s]:  1 arrival (the producer's arrive.expect_tx) + the stage's bytes;
//   empty[s]: one arrival per consumer warp of every CTA that writes into
//             this CTA's slot (the multicast group; 1 CTA without multicast).
// Each cursor (one side of a ring in one role) gets its stage index and
// phase bit as thread-local slots, zeroed on entry (SROA makes them
// loop-carried registers). An access takes the cursor's stage, then
// advances it: stage += 1; at S, stage = 0 and phase ^= 1.
//  - produce waits empty[stage] at parity phase ^ 1 (fresh barriers have
//    completed the phase of parity 1, so the first S produces pass: PTX ISA
//    9.7.13.15.16), then arrive.expect_tx(full[stage], bytes), then the body
//    (its copies complete on full[stage]); in one elected thread.
//  - consume waits full[stage] at parity phase (every thread), runs the body,
//    then each warp orders its lanes' reads with bar.warp.sync and lane q
//    releases empty[stage] of the q-th CTA of its multicast group
//    (mbarrier.arrive.release.cluster through mapa; a local release without
//    multicast).
//  - the producer's tail waits for its last S stages to be released, so no
//    CTA leaves while peers may still multicast into it.
// Orders and scopes are the ones these handshakes need; tile-sync-semantics
// keeps them (it decides only what is left open).
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "tilec/Target/ClusterGeometry.h"

#include "tilec/Target/TargetFacts.h"

#include <set>

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERRINGS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace target = ::tile::target;

namespace {

/// Why the compiler issued op (listed by `tilec --explain-sync`).
void explain(Operation *op, const Twine &why) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSyncAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), why.str()));
}

/// A synchronisation that publishes shared memory only (read by
/// tile-place-bulk-waits: it needs no TMA store's global completion).
void markSharedOnly(Operation *op) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSharedOnlyAttrHelper().setAttr(
      op, UnitAttr::get(op->getContext()));
}

/// What --debug-hangs reports for a ring wait: the barrier's name (`r.full`),
/// that its index is the ring's stage (tile.hang_stage), and a note
/// (tile.hang_note) saying what completes its phase and which mismatch of
/// produces and consumes leaves the wait hanging.
void nameWait(Operation *op, const Twine &name, const Twine &note) {
  TileDialect *tile = op->getContext()->getLoadedDialect<TileDialect>();
  tile->getNameAttrHelper().setAttr(op, StringAttr::get(op->getContext(), name.str()));
  tile->getHangNoteAttrHelper().setAttr(op, StringAttr::get(op->getContext(), note.str()));
  tile->getHangStageAttrHelper().setAttr(op, UnitAttr::get(op->getContext()));
}

struct Storage {
  SmallVector<Value> tiles;
  Value full, empty;
};

struct Cursor {
  Value stage, phase;
};

struct RingLowering {
  KernelOp kernel;
  OpBuilder b;
  llvm::DenseMap<Operation *, Storage> storage; // per tile.ring
  llvm::DenseMap<Operation *, Cursor> cursors;  // per tile.ring_cursor

  explicit RingLowering(KernelOp kernel) : kernel(kernel), b(kernel.getContext()) {}

  Type i32() { return b.getI32Type(); }
  Value c32(Location l, int64_t v) { return arith::ConstantIntOp::create(b, l, i32(), v); }
  Value sreg(Location l, SpecialReg r) { return SRegOp::create(b, l, i32(), r); }
  Value load(Location l, Value ptr) {
    auto type = cast<PtrType>(ptr.getType());
    return LoadOp::create(b, l, type.getElementType(), ptr, MemoryOrder::weak,
                          defaultScopeFor(type.getSpace()));
  }
  void store(Location l, Value value, Value ptr) {
    auto type = cast<PtrType>(ptr.getType());
    StoreOp::create(b, l, value, ptr, MemoryOrder::weak, defaultScopeFor(type.getSpace()));
  }
  Value at(Location l, Value base, Value index) {
    return PtrAddOp::create(b, l, base.getType(), base, index);
  }

  /// The thread's index in the block (linearised as x + X * (y + Y * z)).
  Value linearThread(Location l) {
    Value tid = sreg(l, SpecialReg::tid_x), ntid = sreg(l, SpecialReg::ntid_x);
    auto req = kernel.getReqThreads();
    if (req && req->size() == 3 && (*req)[1] == 1 && (*req)[2] == 1)
      return tid;
    Value ny = sreg(l, SpecialReg::ntid_y);
    sreg(l, SpecialReg::ntid_z);
    Value ty = sreg(l, SpecialReg::tid_y), tz = sreg(l, SpecialReg::tid_z);
    Value z = arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, tz, ny), ty);
    return arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, z, ntid), tid);
  }

  /// Runs `body` in one thread of the first warp of the role around `op`
  /// (of the CTA outside roles): elect.sync needs the whole warp, so the
  /// warp is chosen first.
  void inElectedThread(Operation *op, Location l, function_ref<void()> body) {
    Value inFirstWarp;
    if (auto role = op->getParentOfType<RoleOp>()) {
      Value tid = sreg(l, SpecialReg::tid_x);
      Value rel = arith::SubIOp::create(
          b, l, tid, c32(l, int64_t(role.getFirstWarpgroup()) * target::kWarpgroupSize));
      inFirstWarp =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, rel, c32(l, target::kWarpSize));
    } else {
      Value thread = linearThread(l);
      inFirstWarp =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, thread, c32(l, target::kWarpSize));
    }
    auto warp = scf::IfOp::create(b, l, inFirstWarp, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(warp.thenBlock()->getTerminator());
    auto lane = scf::IfOp::create(b, l, ElectOneOp::create(b, l, b.getI1Type()),
                                  /*withElseRegion=*/false);
    b.setInsertionPoint(lane.thenBlock()->getTerminator());
    body();
  }

  void lowerRing(RingOp r) {
    b.setInsertionPoint(r);
    Location l = r.getLoc();
    Storage s;
    for (auto [type, stride, align] :
         llvm::zip(r.getMemberTypes(), r.getMemberStrides(), r.getMemberAlignments())) {
      auto ptr =
          PtrType::get(b.getContext(), cast<TypeAttr>(type).getValue(), AddressSpace::shared);
      auto alloc =
          SharedAllocOp::create(b, l, ptr, Value(), b.getI64IntegerAttr(stride * r.getStages()));
      alloc.setAlignmentAttr(b.getI64IntegerAttr(align));
      s.tiles.push_back(alloc);
    }
    auto bar = PtrType::get(b.getContext(), b.getI64Type(), AddressSpace::shared);
    s.full = SharedAllocOp::create(b, l, bar, Value(), b.getI64IntegerAttr(r.getStages()));
    s.empty = SharedAllocOp::create(b, l, bar, Value(), b.getI64IntegerAttr(r.getStages()));
    storage[r] = s;
  }

  /// Whether some produce or consume uses the ring.
  static bool accessed(RingOp r) {
    return llvm::any_of(r->getUsers(),
                        [](Operation *user) { return isa<RingProduceOp, RingConsumeOp>(user); });
  }

  void lowerInit(RingInitOp op) {
    RingOp r = op.getRing().getDefiningOp<RingOp>();
    // A ring never produced or consumed has no consumer warps: its empty
    // barriers would get arrival count 0, which mbarrier.init does not take
    // (PTX ISA: count in 1 .. 2^20 - 1). Nothing waits on or arrives at its
    // barriers, so they stay uninitialised.
    if (!accessed(r))
      return;
    b.setInsertionPoint(op);
    Location l = r.getLoc();
    const Storage &s = storage[r];
    Value one = c32(l, 1);
    Value releases = c32(l, r.getReleaseCount());
    for (int64_t i = 0, n = r.getStages(); i < n; ++i) {
      Value idx = c32(l, i);
      MBarrierInitOp::create(b, l, at(l, s.full, idx), one);
      MBarrierInitOp::create(b, l, at(l, s.empty, idx), releases);
    }
  }

  void lowerCursor(RingCursorOp op) {
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    auto slot = PtrType::get(b.getContext(), i32(), AddressSpace::local);
    Cursor c;
    c.phase = LocalVarOp::create(b, l, slot);
    c.stage = LocalVarOp::create(b, l, slot);
    Value zero = c32(l, 0);
    store(l, zero, c.stage);
    store(l, zero, c.phase);
    cursors[op] = c;
  }

  /// stage += 1; at S: stage = 0, phase ^= 1.
  void advance(Location l, RingOp r, const Cursor &c) {
    Value stage = load(l, c.stage);
    Value phase = load(l, c.phase);
    Value next = arith::AddIOp::create(b, l, stage, c32(l, 1));
    Value wrap = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, next, c32(l, r.getStages()));
    store(l, arith::SelectOp::create(b, l, wrap, c32(l, 0), next), c.stage);
    Value flipped = arith::XOrIOp::create(b, l, phase, c32(l, 1));
    store(l, arith::SelectOp::create(b, l, wrap, flipped, phase), c.phase);
  }

  /// The --debug-hangs note of a wait on ring r's empty barrier: a produce's
  /// wait for a release, or (tail) the producer's exit wait.
  static std::string emptyWaitNote(RingOp r, bool tail) {
    return ("ring '" + r.getRingName() + "' empty barrier of the stage; its phase completes with " +
            Twine(r.getReleaseCount()) + " consumer warp releases; " +
            (tail ? "the producer's exit waits for every stage it filled to be released: a ring "
                    "produced more times than consumed hangs here"
                  : "a produce waits here for the consumers to release the stage's previous fill"))
        .str();
  }

  /// The producer's wait for a free slot: empty[stage] at parity phase ^ 1.
  MBarrierWaitOp emptyWait(Location l, RingOp r, Value emptyPtr, Value phase, const Twine &why) {
    Value parity = arith::XOrIOp::create(b, l, phase, c32(l, 1));
    bool peers = r.getGroupSize() > 1;
    // Peers release our slot with release.cluster arrives: acquire at cluster
    // scope pairs with them (PTX ISA 8.x memory model, release/acquire patterns).
    auto wait = MBarrierWaitOp::create(
        b, l, emptyPtr, parity, MemoryOrderAttr::get(b.getContext(), MemoryOrder::acquire),
        MemoryScopeAttr::get(b.getContext(), peers ? MemoryScope::cluster : MemoryScope::cta));
    explain(wait, why);
    nameWait(wait, r.getRingName() + ".empty", emptyWaitNote(r, /*tail=*/false));
    return wait;
  }

  /// The stage's slot pointers, then the body's ops moved to the insertion
  /// point with its arguments replaced by `first` and those pointers.
  SmallVector<Value> slotPointers(Location l, RingOp r, Value stage) {
    SmallVector<Value> slots;
    for (auto [tile, stride] : llvm::zip(storage[r].tiles, r.getMemberStrides()))
      slots.push_back(at(l, tile, arith::MulIOp::create(b, l, stage, c32(l, stride))));
    return slots;
  }
  void inlineBody(Block &body, Value first, ArrayRef<Value> slots) {
    body.getArgument(0).replaceAllUsesWith(first);
    for (auto [arg, slot] : llvm::zip(body.getArguments().drop_front(), slots))
      arg.replaceAllUsesWith(slot);
    Block *dest = b.getInsertionBlock();
    dest->getOperations().splice(b.getInsertionPoint(), body.getOperations());
  }

  void lowerProduce(RingProduceOp op) {
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    RingOp r = op.getRing().getDefiningOp<RingOp>();
    const Cursor &c = cursors[op.getCursor().getDefiningOp()];
    const Storage &s = storage[r];
    Value stage = load(l, c.stage);
    Value phase = load(l, c.phase);
    Value fullPtr = at(l, s.full, stage);
    Value emptyPtr = at(l, s.empty, stage);
    SmallVector<Value> slots = slotPointers(l, r, stage);
    StringRef name = r.getRingName();
    auto body = [&] {
      emptyWait(l, r, emptyPtr, phase,
                "mbarrier.try_wait.parity (phase ^ 1) on ring '" + name +
                    "' empty[stage]: the consumers released the slot (the first " +
                    Twine(r.getStages()) + " produces pass at once)");
      auto arrive =
          MBarrierArriveOp::create(b, l, fullPtr, c32(l, r.getTxBytes()),
                                   MemoryOrderAttr::get(b.getContext(), MemoryOrder::release),
                                   MemoryScopeAttr::get(b.getContext(), MemoryScope::cta));
      // The peers delivering slices: group - 1 per multicast axis of the
      // copies (a ring multicasting along x and y releases to the whole
      // cluster, but only its row and column write into this CTA).
      int64_t peers = 0;
      if (r.getGroupSize() > 1) {
        std::array<int64_t, 3> shape = *kernel.getStaticClusterShape();
        std::set<uint32_t> axes;
        op.getBody().walk([&](TmaLoadOp copy) {
          if (std::optional<uint32_t> axis = copy.getMulticastAxis())
            axes.insert(*axis);
        });
        for (uint32_t axis : axes)
          peers += ::tile::cluster::groupSize(shape, int(axis)) - 1;
      }
      explain(arrive,
              "mbarrier.arrive.expect_tx " + Twine(r.getTxBytes()) + " bytes on ring '" + name +
                  "' full[stage]: every byte landing in this CTA" +
                  (peers > 0 ? " (with the slices " + Twine(peers) + " multicast peers deliver)"
                             : Twine("")) +
                  ", before the copies");
      inlineBody(op.getBody().front(), fullPtr, slots);
    };
    if (op.getElected())
      body();
    else
      inElectedThread(op, l, body);
    advance(l, r, c);
    op.erase();
  }

  LogicalResult lowerConsume(RingConsumeOp op) {
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    RingOp r = op.getRing().getDefiningOp<RingOp>();
    const Cursor &c = cursors[op.getCursor().getDefiningOp()];
    const Storage &s = storage[r];
    Value stage = load(l, c.stage);
    Value phase = load(l, c.phase);
    Value fullPtr = at(l, s.full, stage);
    Value emptyPtr = at(l, s.empty, stage);
    SmallVector<Value> slots = slotPointers(l, r, stage);
    StringRef name = r.getRingName();
    // Every thread waits for the stage's bytes.
    auto wait = MBarrierWaitOp::create(b, l, fullPtr, phase,
                                       MemoryOrderAttr::get(b.getContext(), MemoryOrder::acquire),
                                       MemoryScopeAttr::get(b.getContext(), MemoryScope::cta));
    explain(wait, "mbarrier.try_wait.parity (phase) on ring '" + name +
                      "' full[stage]: the stage's " + Twine(r.getTxBytes()) + " bytes have landed");
    nameWait(wait, name + ".full",
             "ring '" + name + "' full barrier of the stage; its phase completes with " +
                 Twine(r.getTxBytes()) +
                 " bytes and the producer's arrival; a consume with no matching produce hangs "
                 "here");
    inlineBody(op.getBody().front(), stage, slots);
    // With inflight(n) the body released an earlier stage (tile.ring_release).
    if (op.getInflight() == 0 && failed(release(op, r, emptyPtr, op.getMmaOnlyReads())))
      return failure();
    advance(l, r, c);
    op.erase();
    return success();
  }

  /// Every warp of the consuming role releases the stage at `emptyPtr`: after
  /// bar.warp.sync, lane q < G arrives on the q-th multicast peer's barrier.
  /// The arrive is a release (the warp's generic reads of the slot happen
  /// before a peer's TMA overwrites it), except when every read of the slot
  /// is a wgmma read: wgmma.wait_group has retired those reads (PTX ISA
  /// 9.7.15.7: the group's shared-memory accesses are complete) before the
  /// arrive in program order, so nothing is left for a release to order and
  /// the arrive is relaxed.
  LogicalResult release(Operation *op, RingOp r, Value emptyPtr, bool mmaOnlyReads) {
    Location end = op->getLoc();
    StringRef name = r.getRingName();
    const MemoryOrder order = mmaOnlyReads ? MemoryOrder::relaxed : MemoryOrder::release;
    const char *orderName = mmaOnlyReads ? "relaxed" : "release";
    int64_t groupSize = r.getGroupSize();
    Value lane = sreg(end, SpecialReg::laneid);
    Value group = c32(end, groupSize);
    Value releasing = arith::CmpIOp::create(b, end, arith::CmpIPredicate::ult, lane, group);
    if (r.getReleasePerWarpgroup() && r.getStoredByTma()) {
      // A thread of this warp may have forwarded the slot with a TMA store;
      // its wait_group.read (tile-place-bulk-waits, before this shared-only
      // bar.warp.sync) precedes every lane's release.
      auto sync = SyncWarpOp::create(b, end, c32(end, -1));
      explain(sync, "bar.warp.sync: a TMA store's read of ring '" + name +
                        "' stage (by a lane of this warp) precedes the stage's release");
      markSharedOnly(sync);
    }
    if (r.getReleasePerWarpgroup()) {
      // Only wgmma read the slots (retired by the warpgroup's wait_group): the
      // first warp of each consumer warpgroup releases for all four.
      auto role = op->getParentOfType<RoleOp>();
      if (!role)
        return op->emitOpError("releases per warpgroup outside a role"), failure();
      Value first = c32(end, int64_t(role.getFirstWarpgroup()) * target::kWarpgroupSize);
      Value tid = arith::SubIOp::create(b, end, sreg(end, SpecialReg::tid_x), first);
      Value warp = arith::DivUIOp::create(b, end, tid, c32(end, target::kWarpSize));
      Value inGroup = arith::RemUIOp::create(b, end, warp,
                                             c32(end, target::kWarpgroupSize / target::kWarpSize));
      Value leader = arith::CmpIOp::create(b, end, arith::CmpIPredicate::eq, inGroup, c32(end, 0));
      releasing = arith::AndIOp::create(b, end, leader, releasing);
    } else {
      // The lanes' generic reads of the slot are ordered before the release
      // (bar.warp.sync orders the memory of the participating lanes, PTX ISA
      // 9.7.13.3; the arrive is a release).
      auto sync = SyncWarpOp::create(b, end, c32(end, -1));
      explain(sync,
              "bar.warp.sync: the warp's reads of ring '" + name + "' stage precede its release");
      markSharedOnly(sync);
    }
    auto ifOp = scf::IfOp::create(b, end, releasing, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    MBarrierArriveOp arrive;
    if (groupSize > 1) {
      // Lane q releases the slot of the q-th CTA of the multicast group
      // (ClusterGeometry.h: rank - pos * stride + q * stride).
      int axis = *r.getMulticastAxis();
      Value targetRank;
      if (axis == ::tile::cluster::kAllAxes) {
        targetRank = lane;
      } else {
        std::array<int64_t, 3> shape = *kernel.getStaticClusterShape();
        int64_t stride = ::tile::cluster::groupStride(shape, axis);
        SpecialReg posReg = axis == 0   ? SpecialReg::cluster_ctaid_x
                            : axis == 1 ? SpecialReg::cluster_ctaid_y
                                        : SpecialReg::cluster_ctaid_z;
        Value rank = sreg(end, SpecialReg::cluster_ctarank);
        Value pos = sreg(end, posReg);
        Value delta = arith::SubIOp::create(b, end, lane, pos);
        if (stride != 1)
          delta = arith::MulIOp::create(b, end, delta, c32(end, stride));
        targetRank = arith::AddIOp::create(b, end, rank, delta);
      }
      auto type = PtrType::get(b.getContext(), b.getI64Type(), AddressSpace::cluster);
      Value remote = MapaOp::create(b, end, type, emptyPtr, targetRank);
      arrive = MBarrierArriveOp::create(b, end, remote, Value(),
                                        MemoryOrderAttr::get(b.getContext(), order),
                                        MemoryScopeAttr::get(b.getContext(), MemoryScope::cluster));
      explain(arrive, "mbarrier.arrive." + Twine(orderName) + ".cluster on ring '" + name +
                          "' empty[stage] of multicast peer (lane q -> q-th CTA of the group of " +
                          Twine(groupSize) + "): the slot may be refilled");
    } else {
      arrive = MBarrierArriveOp::create(b, end, emptyPtr, Value(),
                                        MemoryOrderAttr::get(b.getContext(), order),
                                        MemoryScopeAttr::get(b.getContext(), MemoryScope::cta));
      explain(arrive, "mbarrier.arrive." + Twine(orderName) + " (lane 0 of each warp) on ring '" +
                          name + "' empty[stage]: the slot may be refilled");
    }
    markSharedOnly(arrive);
    return success();
  }

  /// The stage consumed `back` blocks before `stage`: (stage + S - back) mod S.
  LogicalResult lowerRelease(RingReleaseOp op) {
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    RingOp r = op.getRing().getDefiningOp<RingOp>();
    Value back = arith::AddIOp::create(b, l, op.getStage(), c32(l, r.getStages() - op.getBack()));
    Value wrapped = arith::RemUIOp::create(b, l, back, c32(l, r.getStages()));
    if (failed(release(op, r, at(l, storage[r].empty, wrapped), op.getMmaOnlyReads())))
      return failure();
    op.erase();
    return success();
  }

  /// Stages (stage + S - count + j) mod S for j = 0 .. count-1, oldest first.
  LogicalResult lowerDrain(RingDrainOp op) {
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    RingOp r = op.getRing().getDefiningOp<RingOp>();
    Value count = op.getCount();
    Value stage = load(l, cursors[op.getCursor().getDefiningOp()].stage);
    Value first = c32(l, 0), step = c32(l, 1);
    auto loop = scf::ForOp::create(b, l, first, count, step);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value back = arith::SubIOp::create(
          b, l, arith::AddIOp::create(b, l, stage, c32(l, r.getStages())), count);
      Value slot = arith::AddIOp::create(b, l, back, loop.getInductionVar());
      Value idx = arith::RemUIOp::create(b, l, slot, c32(l, r.getStages()));
      if (failed(release(op, r, at(l, storage[r].empty, idx), op.getMmaOnlyReads())))
        return failure();
    }
    op.erase();
    return success();
  }

  void lowerTail(RingTailOp op) {
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    RingOp r = op.getRing().getDefiningOp<RingOp>();
    const Cursor &c = cursors[op.getCursor().getDefiningOp()];
    Value empty = storage[r].empty;
    // Every stage released: no peer multicasts into or arrives on this CTA
    // after it leaves.
    auto body = [&] {
      Value first = c32(l, 0), stages = c32(l, r.getStages()), step = c32(l, 1);
      auto loop = scf::ForOp::create(b, l, first, stages, step);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value stage = load(l, c.stage);
      Value phase = load(l, c.phase);
      MBarrierWaitOp wait = emptyWait(l, r, at(l, empty, stage), phase,
                                      "producer tail: wait for ring '" + r.getRingName() +
                                          "' empty[stage] of the last " + Twine(r.getStages()) +
                                          " stages, so no peer still writes into or arrives on "
                                          "this CTA");
      nameWait(wait, r.getRingName() + ".empty", emptyWaitNote(r, /*tail=*/true));
      advance(l, r, c);
    };
    if (op.getElected())
      body();
    else
      inElectedThread(op, l, body);
    op.erase();
  }

  LogicalResult run() {
    SmallVector<Operation *> decls, ops;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<RingOp, RingCursorOp>(op))
        decls.push_back(op);
      else if (isa<RingInitOp, RingProduceOp, RingConsumeOp, RingReleaseOp, RingDrainOp,
                   RingTailOp>(op))
        ops.push_back(op);
    });
    // Declarations and cursors dominate the accesses; each access is lowered
    // in program order (a body's ops move out before the ops inside them are
    // lowered).
    for (Operation *op : decls) {
      if (auto r = dyn_cast<RingOp>(op))
        lowerRing(r);
      else
        lowerCursor(cast<RingCursorOp>(op));
    }
    for (Operation *op : ops) {
      LogicalResult ok = success();
      if (auto i = dyn_cast<RingInitOp>(op))
        lowerInit(i), i.erase();
      else if (auto p = dyn_cast<RingProduceOp>(op))
        lowerProduce(p);
      else if (auto c = dyn_cast<RingConsumeOp>(op))
        ok = lowerConsume(c);
      else if (auto rel = dyn_cast<RingReleaseOp>(op))
        ok = lowerRelease(rel);
      else if (auto d = dyn_cast<RingDrainOp>(op))
        ok = lowerDrain(d);
      else if (auto t = dyn_cast<RingTailOp>(op))
        lowerTail(t);
      if (failed(ok))
        return failure();
    }
    // Every use was an access, now lowered.
    for (Operation *op : llvm::reverse(decls)) {
      if (!op->use_empty())
        return op->emitOpError("is used by '")
               << (*op->getUsers().begin())->getName() << "', which is not a ring access";
      op->erase();
    }
    return success();
  }
};

struct LowerRingsPass : mlir::tile::impl::TileLowerRingsBase<LowerRingsPass> {
  void runOnOperation() override {
    if (failed(RingLowering(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace
