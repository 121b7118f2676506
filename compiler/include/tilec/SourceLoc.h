//===- SourceLoc.h - source positions of ops, through inlined calls -*- C++ -*-===//
//
// MLIRGen gives every op a FileLineColLoc; an op of an inlined function body
// (`fn`) gets CallSiteLoc(position in the function, NameLoc(function, call
// site)), so a diagnostic points into the function and names the call.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SOURCELOC_H
#define TILEC_SOURCELOC_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tile {

/// The source position an op's location names (inside an inlined function:
/// the position in the function), or null.
inline FileLineColLoc sourceFileLoc(Location loc) {
  while (true) {
    if (auto site = dyn_cast<CallSiteLoc>(loc))
      loc = site.getCallee();
    else if (auto name = dyn_cast<NameLoc>(loc))
      loc = name.getChildLoc();
    else
      return dyn_cast<FileLineColLoc>(loc);
  }
}

/// The NameLoc MLIRGen wraps each position of an instance of a kernel with
/// compile-time parameters in: the prefix, then the instance's PTX name (a
/// function's name, the other NameLoc, never holds a space).
inline std::string instanceLocName(llvm::StringRef kernel) {
  return ("tile.instance " + kernel).str();
}

/// The PTX name of the kernel instance an op's location belongs to, or empty.
inline llvm::StringRef instanceOf(Location loc) {
  llvm::StringRef found;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l)) {
      llvm::StringRef n = name.getName().getValue();
      if (n.consume_front("tile.instance ")) {
        found = n;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

/// A call an op was inlined through: where, and the function's name (empty
/// when the location does not carry it).
struct InlinedCallSite {
  FileLineColLoc site;
  llvm::StringRef callee;
};

/// The call sites an op was inlined through, innermost first.
inline llvm::SmallVector<InlinedCallSite> inlinedCallSites(Location loc) {
  llvm::SmallVector<InlinedCallSite> sites;
  // CallSiteLoc(position in g, NameLoc(g, CallSiteLoc(call of g in f,
  // NameLoc(f, call of f)))).
  while (auto site = dyn_cast<CallSiteLoc>(loc)) {
    loc = site.getCaller();
    llvm::StringRef callee;
    if (auto name = dyn_cast<NameLoc>(loc)) {
      callee = name.getName().getValue();
      loc = name.getChildLoc();
    }
    if (auto caller = sourceFileLoc(loc))
      sites.push_back({caller, callee});
  }
  return sites;
}

} // namespace mlir::tile

#endif
