//===- MBarrierPhases.cpp - parity from loop-carried phase bits ------------===//
//
// mbarrier.try_wait.parity P waits for the completion of the phase whose
// parity is P (PTX ISA 9.7.13.15.16). A thread that waits on every phase of an
// mbarrier in order can therefore keep one bit per mbarrier: wait with it,
// then flip it. The bits live in a thread-local slot (a mask for an mbarrier
// array, at most 64 entries), which SROA turns into loop-carried registers.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"

#include "SyncAnalysis.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEMBARRIERPHASES
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::sync;

namespace {

struct MBarrierPhasesPass : tile::impl::TileMBarrierPhasesBase<MBarrierPhasesPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    llvm::DenseMap<Operation *, Value> phaseBits;
    WalkResult r = kernel.walk([&](MBarrierWaitOp wait) {
      if (wait.getParity())
        return WalkResult::advance();
      SharedAllocOp alloc = rootAlloc(wait.getMbar());
      std::optional<int64_t> count = alloc ? alloc.getStaticCount() : std::nullopt;
      if (!count || *count > 64) {
        wait.emitOpError("phase tracking needs an mbarrier from a static allocation of at most 64");
        return WalkResult::interrupt();
      }
      OpBuilder b(wait);
      Location loc = wait.getLoc();
      IntegerType bitsType = b.getIntegerType(*count <= 32 ? 32 : 64);
      Value &slot = phaseBits[alloc];
      if (!slot) {
        OpBuilder entry(&kernel.getBody().front(), kernel.getBody().front().begin());
        slot = LocalVarOp::create(entry, alloc.getLoc(),
                                  PtrType::get(b.getContext(), bitsType, AddressSpace::local));
        Value zero = arith::ConstantIntOp::create(entry, alloc.getLoc(), bitsType, 0);
        StoreOp::create(entry, alloc.getLoc(), zero, slot, MemoryOrder::weak, MemoryScope::cta);
      }
      Value index = arith::ConstantIntOp::create(b, loc, bitsType, 0);
      if (auto add = wait.getMbar().getDefiningOp<PtrAddOp>()) {
        index = add.getOffset();
        unsigned width = index.getType().getIntOrFloatBitWidth();
        if (width < bitsType.getIntOrFloatBitWidth())
          index = arith::ExtUIOp::create(b, loc, bitsType, index);
        else if (width > bitsType.getIntOrFloatBitWidth())
          index = arith::TruncIOp::create(b, loc, bitsType, index);
        // An out-of-bounds run-time index must not make the shifts below
        // poison (shift amount >= width); valid indices are < the array
        // size <= the width, which the mask keeps unchanged.
        index = arith::AndIOp::create(
            b, loc, index, arith::ConstantIntOp::create(b, loc, bitsType, bitsType.getWidth() - 1));
      }
      Value bits = LoadOp::create(b, loc, bitsType, slot, MemoryOrder::weak, MemoryScope::cta);
      Value one = arith::ConstantIntOp::create(b, loc, bitsType, 1);
      Value bit = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, index), one);
      if (bitsType != b.getI32Type())
        bit = arith::TruncIOp::create(b, loc, b.getI32Type(), bit);
      wait.getParityMutable().assign(bit);
      b.setInsertionPointAfter(wait);
      Value flipped =
          arith::XOrIOp::create(b, loc, bits, arith::ShLIOp::create(b, loc, one, index));
      StoreOp::create(b, loc, flipped, slot, MemoryOrder::weak, MemoryScope::cta);
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
