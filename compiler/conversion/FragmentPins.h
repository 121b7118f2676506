//===- FragmentPins.h - fragments live across a wgmma issue ------*- C++ -*-===//
//
// Run by convert-tile-to-llvm on the tile IR (after convert-scf-to-cf) before
// its patterns; implemented in MmaToNVVM.cpp with the lowering of what it
// marks (docs/lowering.md, "Fragments live across a wgmma issue"):
//  - at a tile.wgmma_fence with no wgmma group pending, every fragment
//    variable that may be read after it is reloaded with a `tile.pin` load
//    (an empty asm after the load ties its registers) and stored back, so
//    that the code computing it stays before the wgmmas;
//  - an mma on zeros whose product is stored to a fragment variable takes
//    the variable's old value as its (tied, unread: scale-d = 0)
//    accumulator, `tile.overwrites`: the product goes into its registers.
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_FRAGMENTPINS_H
#define TILEC_CONVERSION_FRAGMENTPINS_H

namespace mlir {
class Operation;
namespace tile {
void pinFragmentsLiveAcrossWgmma(Operation *root);
} // namespace tile
} // namespace mlir

#endif
