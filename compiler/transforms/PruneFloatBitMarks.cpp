//===- PruneFloatBitMarks.cpp - NaN-bit marks where a folder could act ----===//
//
// A NaN computed on the GPU has the GPU's bits; one the folders compute has
// LLVM's (docs/reference/operators.md, "NaN bits"). EmitPTX gives every
// NaN constant left after optimisation the GPU's bits, but two kinds of
// value must not be folded before it does, and MLIRGen marks both where the
// source has them (tilec/Target/NaNBits.h):
//  - a float whose bits an operation moves instead of computing a new NaN
//    (a bitcast to an integer, a conversion between float types) is read
//    through a `tilec.float_bits.<type>` call, which no folder looks into;
//  - a float the program spelled as bits (`bitcast<f32>(k)`) is pinned by
//    `llvm.arithmetic.fence`, which EmitPTX's canonicalisation leaves alone.
// A mark matters only where a folder can make the marked value a NaN
// constant: a constant expression. Everywhere else it would cost a call
// and hide the value from later folds, so this pass removes it. It runs
// first, on the IR as MLIRGen made it (the marked operation right after
// its mark), so the decision sees the source's own expression.
//===----------------------------------------------------------------------===//
#include "tilec/Passes.h"
#include "tilec/Target/NaNBits.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPRUNEFLOATBITMARKS
#include "tilec/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether the folders may turn `x` into a constant: every leaf of its
/// expression is a constant or, with `locals`, a load of a thread's own
/// variable or local array (which LLVM promotes to registers, so a constant
/// stored there folds through it), every operation on the way pure. A value
/// that depends on memory others write, a parameter or a special register
/// is left to the GPU's own instructions. Bounded: an expression deeper
/// than `budget` operations counts as computed at run time.
bool foldsToConstant(Value x, bool locals, unsigned &budget) {
  Operation *op = x.getDefiningOp();
  if (!op || budget == 0)
    return false;
  --budget;
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  if (auto load = dyn_cast<LoadOp>(op))
    return locals && cast<PtrType>(load.getPtr().getType()).getSpace() == AddressSpace::local;
  if (op->getNumRegions() != 0 || !isPure(op))
    return false;
  return llvm::all_of(op->getOperands(),
                      [&](Value v) { return foldsToConstant(v, locals, budget); });
}

bool mayFoldToConstant(Value x, bool locals) {
  unsigned budget = 256;
  return foldsToConstant(x, locals, budget);
}

/// A read mark (`tilec.float_bits.<type>(x)`) stays where `x` may fold to
/// a NaN constant. A bitcast reads through the thread's own variables too:
/// its integer result is no NaN EmitPTX could recognise; a conversion's NaN
/// result it can, so conversions of register arrays keep their folds.
bool readMarkMatters(LLVM::CallOp mark) {
  Value x = mark.getOperand(0);
  APFloat c(0.0f);
  if (matchPattern(x, m_ConstantFloat(&c)) && !c.isNaN())
    return false;
  bool bitcast = llvm::any_of(mark->getUsers(), [](Operation *u) { return isa<arith::BitcastOp>(u); });
  return mayFoldToConstant(x, bitcast);
}

/// A pin after `bitcast<float>(bits)` stays where `bits` may fold to a
/// constant other than a known non-NaN pattern. A pin on anything else (a
/// `nan` literal's constant) is what the program spelled and stays.
bool pinMatters(Value pinned) {
  auto cast = pinned.getDefiningOp<arith::BitcastOp>();
  if (!cast)
    return true;
  Value bits = cast.getIn();
  auto ft = dyn_cast<FloatType>(pinned.getType());
  APInt k;
  if (ft && matchPattern(bits, m_ConstantInt(&k)) && !APFloat(ft.getFloatSemantics(), k).isNaN())
    return false;
  return mayFoldToConstant(bits, /*locals=*/true);
}

struct PruneFloatBitMarks : mlir::tile::impl::TilePruneFloatBitMarksBase<PruneFloatBitMarks> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringRef prefix = ::tile::target::kFloatBitsFunctionPrefix;
    // In program order, each mark removed at once: a mark inside a marked
    // value's expression is decided first, as MLIRGen built them (a kept
    // mark is opaque to the expressions around it, a removed one is not).
    module.walk([&](Operation *op) {
      bool unneeded = false;
      if (auto call = dyn_cast<LLVM::CallOp>(op)) {
        auto callee = call.getCallee();
        unneeded = callee && callee->starts_with(prefix) && call.getNumOperands() == 1 &&
                   !readMarkMatters(call);
      } else if (auto fence = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
        unneeded = fence.getIntrin() == "llvm.arithmetic.fence" && fence.getNumOperands() == 1 &&
                   !pinMatters(fence.getOperand(0));
      }
      if (unneeded) {
        op->getResult(0).replaceAllUsesWith(op->getOperand(0));
        op->erase();
      }
    });
    // A mark function nothing calls any more.
    for (auto fn : llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>()))
      if (fn.getName().starts_with(prefix) && fn.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(fn, module))
        fn.erase();
  }
};

} // namespace
