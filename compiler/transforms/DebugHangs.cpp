//===- DebugHangs.cpp - bounded mbarrier waits that report hangs -----------===//
//
// A wait whose phase never completes (a lost arrive, expect_tx bytes that
// never arrive, a wait on the wrong parity) spins forever and the launch just
// hangs. With tilec --debug-hangs each mbarrier wait becomes a loop of single
// try_wait probes bounded by %globaltimer (nanoseconds, PTX ISA 10.24); on
// timeout it prints the source location, the mbarrier, the CTA and thread and
// the parity it waited for, then executes `trap` so the launch fails. In a
// kernel with mma the report is not printed by the kernel but written to the
// runtime's hang record, which the runtime prints (tile/hang_record.h).
// Cluster barriers (barrier.cluster.wait) are single blocking instructions
// that cannot be bounded this way.
//===----------------------------------------------------------------------===//
#include "tilec/DebugHangsBounds.h"
#include "tilec/Passes.h"
#include "tile/Dialect/Hint.h"
#include "tilec/SourceLoc.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDEBUGHANGS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

std::string describe(Location loc) {
  if (auto file = sourceFileLoc(loc)) // inside an inlined fn: the position in it
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  return "unknown location";
}

struct DebugHangsPass : mlir::tile::impl::TileDebugHangsBase<DebugHangsPass> {
  using Base::Base;

  /// In a kernel with mma the reports go to the runtime's hang record:
  /// vprintf, like any call, would make ptxas serialise every wgmma (C7510).
  bool hostRecord = false;

  void markHostRecord(HangTrapOp trap) const {
    if (hostRecord)
      trap->getContext()->getLoadedDialect<TileDialect>()->getHostRecordAttrHelper().setAttr(
          trap, UnitAttr::get(trap->getContext()));
  }

  void runOnOperation() override {
    // The bounds tilec's --debug-hangs and tile::compile take: 0 would report
    // every wait that does not complete at its first probe as a hang.
    if (timeoutMs == 0 || timeoutMs > ::tile::kMaxDebugHangsMs) {
      getOperation().emitError("tile-debug-hangs: timeout-ms ")
          << std::to_string(timeoutMs) << " is outside 1 .. "
          << std::to_string(::tile::kMaxDebugHangsMs)
          << " (milliseconds, as tilec --debug-hangs=MS)";
      return signalPassFailure();
    }
    getOperation().walk([&](Operation *op) {
      if (isa<MmaOp, MmaRegAOp>(op))
        hostRecord = true;
    });
    SmallVector<MBarrierWaitOp> waits;
    getOperation().walk([&](MBarrierWaitOp op) { waits.push_back(op); });
    SmallVector<SemWaitOp> semWaits; // semaphore waits
    getOperation().walk([&](SemWaitOp op) { semWaits.push_back(op); });
    for (SemWaitOp wait : semWaits)
      boundSemaphore(wait);
    // The user asked for hang reports; say so when this kernel can give none
    // rather than let a silent hang look like a clean bill.
    if (waits.empty() && semWaits.empty()) {
      InFlightDiagnostic warning = getOperation().emitWarning()
                                   << "kernel '" << getOperation().getSymName()
                                   << "' has no mbarrier wait for --debug-hangs to bound";
      attachHint(warning, "only mbarrier waits are bounded; a hang at sync_threads() or "
                          "cluster_sync() is not reported");
    }
    for (MBarrierWaitOp wait : waits) {
      if (!wait.getParity()) {
        wait.emitOpError("run tile-mbarrier-phases before tile-debug-hangs");
        return signalPassFailure();
      }
      bound(wait);
    }
  }

  /// The bounded spin both waits become: a loop that probes (`probe` gives
  /// "still pending") and, once `timeoutMs` has passed since the first probe,
  /// runs `report` (a tile.hang_trap); `backoffNs` > 0 sleeps between probes.
  void emitBoundedSpin(OpBuilder &b, Location loc, function_ref<Value(OpBuilder &)> probe,
                       function_ref<void(OpBuilder &)> report, int32_t backoffNs) {
    auto i64 = b.getI64Type();
    Value start = GlobalTimerOp::create(b, loc, i64);
    Value limit = arith::ConstantOp::create(
        b, loc, i64, b.getI64IntegerAttr(static_cast<int64_t>(timeoutMs) * 1000000));
    auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    OpBuilder::InsertionGuard g(b);
    b.createBlock(&loop.getBefore());
    Value pending = probe(b);
    auto check = scf::IfOp::create(b, loc, pending, /*withElseRegion=*/false);
    b.setInsertionPoint(check.thenBlock()->getTerminator());
    Value elapsed = arith::SubIOp::create(b, loc, GlobalTimerOp::create(b, loc, i64), start);
    Value late = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, elapsed, limit);
    auto timedOut = scf::IfOp::create(b, loc, late, /*withElseRegion=*/false);
    b.setInsertionPoint(timedOut.thenBlock()->getTerminator());
    report(b);
    if (backoffNs > 0) {
      b.setInsertionPointAfter(timedOut);
      Value ns = arith::ConstantIntOp::create(b, loc, b.getI32Type(), backoffNs);
      NanosleepOp::create(b, loc, ns);
    }
    b.setInsertionPointAfter(check);
    scf::ConditionOp::create(b, loc, pending, ValueRange{});
    b.createBlock(&loop.getAfter());
    scf::YieldOp::create(b, loc);
  }

  /// The CTA and thread that timed out, printf arguments after the others.
  static void appendWhere(OpBuilder &b, Location loc, SmallVectorImpl<Value> &args) {
    for (SpecialReg r : {SpecialReg::ctaid_x, SpecialReg::ctaid_y, SpecialReg::ctaid_z,
                         SpecialReg::tid_x, SpecialReg::tid_y, SpecialReg::tid_z})
      args.push_back(SRegOp::create(b, loc, b.getI32Type(), r));
  }

  /// A semaphore wait as a loop of ld.acquire.sys probes with
  /// backoff, bounded like an mbarrier wait; the report names the device,
  /// the counter, the value waited for and the value seen (and, for the exit
  /// protocol's wait, that it is one: tile.hang_note).
  void boundSemaphore(SemWaitOp wait) {
    Location loc = wait.getLoc();
    OpBuilder b(wait);
    std::string note;
    TileDialect *tile = wait->getContext()->getLoadedDialect<TileDialect>();
    if (StringAttr text = tile->getHangNoteAttrHelper().getAttr(wait))
      note = " (" + escapePrintfText(text.getValue()) + ")";
    Value seen;
    emitBoundedSpin(
        b, loc,
        [&](OpBuilder &b) {
          seen = LoadOp::create(b, loc, b.getI64Type(), wait.getCounter(), MemoryOrder::acquire,
                                MemoryScope::sys);
          return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, seen, wait.getValue());
        },
        [&](OpBuilder &b) {
          std::string message = "tilec: hang: device %d: wait(" +
                                escapePrintfText(wait.getSemaphore()) + "[%d], %llu)" + note +
                                " at " + escapePrintfText(describe(loc)) +
                                ": counter is %llu (timed out after " + std::to_string(timeoutMs) +
                                " ms in CTA (%d, %d, %d), thread (%d, %d, %d))\n";
          SmallVector<Value> args{wait.getRank(), wait.getIndex(), wait.getValue(), seen};
          appendWhere(b, loc, args);
          markHostRecord(HangTrapOp::create(b, loc, b.getStringAttr(message), args));
        },
        /*backoffNs=*/32);
    // What the unbounded form ends with (PeerToNVVM.cpp): TMA loads after the
    // wait see what the peer published.
    FenceProxyAsyncGlobalOp::create(b, loc);
    wait.erase();
  }

  void bound(MBarrierWaitOp wait) {
    Location loc = wait.getLoc();
    OpBuilder b(wait);
    emitBoundedSpin(
        b, loc,
        [&](OpBuilder &b) {
          Value done =
              MBarrierTryWaitOp::create(b, loc, b.getI1Type(), wait.getMbar(), wait.getParity(),
                                        wait.getOrderAttr(), wait.getScopeAttr());
          return arith::XOrIOp::create(
              b, loc, done, arith::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true)));
        },
        [&](OpBuilder &b) {
          std::string name;
          TileDialect *tile = wait->getContext()->getLoadedDialect<TileDialect>();
          if (StringAttr attr = tile->getNameAttrHelper().getAttr(wait))
            name = " '" + escapePrintfText(attr.getValue()) + "'";
          // An element of an mbarrier array (a ring's stage): say which.
          auto element = wait.getMbar().getDefiningOp<PtrAddOp>();
          // Ring waits say which ring, what completes the phase (MLIRGenRings.cpp).
          std::string note;
          if (StringAttr text = tile->getHangNoteAttrHelper().getAttr(wait))
            note = " (" + escapePrintfText(text.getValue()) + ")";
          // A ring's barriers are indexed by the stage: say so.
          const char *index =
              tile->getHangStageAttrHelper().isAttrPresent(wait) ? " of stage %d" : " [index %d]";
          std::string message = "tilec --debug-hangs: " + escapePrintfText(describe(loc)) +
                                ": wait on mbarrier" + name + (element ? index : "") + note +
                                " timed out after " + std::to_string(timeoutMs) +
                                " ms in CTA (%d, %d, %d), thread (%d, %d, %d), waiting for phase "
                                "parity %d\n";
          SmallVector<Value> args;
          if (element) {
            Value index = element.getOffset();
            unsigned width = index.getType().getIntOrFloatBitWidth();
            if (width > 32)
              index = arith::TruncIOp::create(b, loc, b.getI32Type(), index);
            else if (width < 32)
              index = arith::ExtUIOp::create(b, loc, b.getI32Type(), index);
            args.push_back(index);
          }
          appendWhere(b, loc, args);
          args.push_back(wait.getParity());
          markHostRecord(HangTrapOp::create(b, loc, b.getStringAttr(message), args));
        },
        /*backoffNs=*/0);
    wait.erase();
  }
};

} // namespace
