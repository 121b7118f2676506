//===- CheckLocalArrays.cpp - local arrays: bounds and register promotion -===//
//
// `local<T>[N]` (docs/reference/statements.md "Register arrays") lives in registers only
// when LLVM's SROA can split its alloca, i.e. when every access is at a
// constant offset. After canonicalization the loop variables of fully
// unrolled loops are constants, so each tile.ptr_add on the array's base is
// either a constant (checked against N: out of bounds would silently touch
// another variable of the thread) or the reason the array stays in local
// memory (one warning per array, at that index).
//
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"
#include "tile/Dialect/Hint.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKLOCALARRAYS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct CheckLocalArraysPass : tile::impl::TileCheckLocalArraysBase<CheckLocalArraysPass> {
  void runOnOperation() override {
    markAllAnalysesPreserved(); // reports only
    bool failedAny = false;
    getOperation().walk([&](LocalArrayOp array) {
      bool warned = false;
      int64_t n = array.getCount();
      for (Operation *user : array->getUsers()) {
        auto add = dyn_cast<PtrAddOp>(user);
        if (!add || add.getBase() != array.getResult())
          continue;
        APInt offset;
        if (matchPattern(add.getOffset(), m_ConstantInt(&offset))) {
          int64_t i = offset.getSExtValue();
          if (i < 0 || i >= n) {
            InFlightDiagnostic d = add.emitError()
                                   << "index " << i << " is out of bounds for local array '"
                                   << array.getName() << "' of " << n << " elements";
            attachHint(d, "valid indices are 0 .. " + Twine(n - 1));
            failedAny = true;
          }
          continue;
        }
        if (warned)
          continue;
        warned = true;
        // The declaration's own zeroing, a loop above 256 elements
        // (MLIRGenAbstr.cpp): the size, not an index the program wrote.
        if (add->getLoc() == array->getLoc() && isa<BlockArgument>(add.getOffset())) {
          InFlightDiagnostic d = array.emitWarning()
                                 << "local array '" << array.getName() << "' of " << n
                                 << " elements is kept in local memory: an array of more than "
                                    "256 elements never lives in registers";
          attachHint(d, "use arrays of at most 256 elements (a thread has at most 255 "
                        "registers) for data that should stay in registers");
          continue;
        }
        InFlightDiagnostic d = add.emitWarning()
                               << "local array '" << array.getName()
                               << "' is kept in local memory: this index is not a compile-time "
                                  "constant";
        attachHint(d, "index it with constants and the variables of fully unrolled loops "
                      "(`for i in 0 .. N unroll`) to keep it in registers");
      }
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
