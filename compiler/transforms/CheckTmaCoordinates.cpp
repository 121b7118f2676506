//===- CheckTmaCoordinates.cpp - TMA boxes start on 16-byte boundaries ----===//
//
// A tensor copy (cp.async.bulk.tensor load or store, cp.async.bulk.prefetch
// .tensor) whose box starts in its innermost dimension at a coordinate that
// is not a multiple of 16 bytes of the element traps: the kernel dies with
// an illegal instruction and the context is lost (kTmaBoxStartAlign). The
// coordinate is a run-time value, so the runtime cannot refuse the launch;
// this pass reports what the arithmetic that computes the coordinate shows
// on the folded IR (unrolled loop variables are constants): an error where
// the start is known to be off a boundary, a warning where it cannot be
// shown to be on one (once per source position: an unrolled copy is one
// statement).
//
//===----------------------------------------------------------------------===//
#include "KnownBits.h"
#include "tilec/Passes.h"
#include "tilec/Target/TargetFacts.h"

#include "tile/Dialect/Hint.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKTMACOORDINATES
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
namespace target = ::tile::target;

namespace {

struct CheckTmaCoordinatesPass
    : mlir::tile::impl::TileCheckTmaCoordinatesBase<CheckTmaCoordinatesPass> {
  void runOnOperation() override {
    markAllAnalysesPreserved(); // reports only
    bool failedAny = false;
    llvm::DenseSet<const void *> reported;
    getOperation().walk([&](Operation *op) {
      Value map;
      ValueRange coords;
      if (auto load = dyn_cast<TmaLoadOp>(op))
        map = load.getMap(), coords = load.getCoords();
      else if (auto store = dyn_cast<TmaStoreOp>(op))
        map = store.getMap(), coords = store.getCoords();
      else if (auto prefetch = dyn_cast<TmaPrefetchOp>(op))
        map = prefetch.getMap(), coords = prefetch.getCoords();
      if (!map || coords.empty())
        return;
      const int64_t bytes = scalarByteWidth(cast<TensorMapType>(map.getType()).getElementType());
      if (bytes <= 0 || target::kTmaBoxStartAlign % bytes != 0)
        return;
      const int64_t multiple = target::kTmaBoxStartAlign / bytes; // elements
      const unsigned bits = llvm::Log2_64(multiple);
      Value inner = coords.back();
      if (multiple == 1 || knownZeroBits(inner) >= bits)
        return;
      if (!reported.insert(op->getLoc().getAsOpaquePointer()).second)
        return;
      const std::string what = isa<TmaStoreOp>(op) ? "store" : isa<TmaLoadOp>(op) ? "load"
                                                                                  : "prefetch";
      const std::string rule = "a TMA " + what + " whose box does not start on a " +
                               std::to_string(target::kTmaBoxStartAlign) +
                               "-byte boundary in its innermost dimension traps (illegal "
                               "instruction) and loses the context";
      if (std::optional<uint64_t> r = knownLowBits(inner, bits); r && *r != 0) {
        InFlightDiagnostic d = op->emitError()
                               << "the innermost coordinate of this box is " << *r
                               << " more than a multiple of " << multiple << " elements ("
                               << target::kTmaBoxStartAlign << " bytes of the tensor's "
                               << bytes << "-byte elements): " << rule;
        attachHint(d, "start the box at a multiple of " + Twine(multiple) +
                          " elements; for data at an unaligned position, copy the aligned "
                          "box around it and index into the tile");
        failedAny = true;
        return;
      }
      InFlightDiagnostic d = op->emitWarning()
                             << "the innermost coordinate of this box is not known to be a "
                                "multiple of "
                             << multiple << " elements (" << target::kTmaBoxStartAlign
                             << " bytes of the tensor's " << bytes << "-byte elements): " << rule;
      attachHint(d, "compute it as a visible multiple, e.g. `k * " + Twine(multiple) +
                        "` or `(i / " + Twine(multiple) + ") * " + Twine(multiple) +
                        "`, or read unaligned data with plain loads");
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
