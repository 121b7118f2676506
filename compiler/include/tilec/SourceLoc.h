//===- SourceLoc.h - source positions of ops, through inlined calls -*- C++ -*-===//
//
// MLIRGen gives every op a FileLineColLoc; an op of an inlined function body
// (`fn`) gets CallSiteLoc(position in the function, call site), so
// a diagnostic points into the function and can name the call.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SOURCELOC_H
#define TILEC_SOURCELOC_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tile {

/// The source position an op's location names (inside an inlined function:
/// the position in the function), or null.
inline FileLineColLoc sourceFileLoc(Location loc) {
  while (auto site = dyn_cast<CallSiteLoc>(loc))
    loc = site.getCallee();
  return dyn_cast<FileLineColLoc>(loc);
}

/// The call sites an op was inlined through, innermost first.
inline llvm::SmallVector<FileLineColLoc> inlinedCallSites(Location loc) {
  llvm::SmallVector<FileLineColLoc> sites;
  // CallSiteLoc(position in g, CallSiteLoc(call of g in f, call of f)).
  while (auto site = dyn_cast<CallSiteLoc>(loc)) {
    if (auto caller = sourceFileLoc(site.getCaller()))
      sites.push_back(caller);
    loc = site.getCaller();
  }
  return sites;
}

} // namespace mlir::tile

#endif
