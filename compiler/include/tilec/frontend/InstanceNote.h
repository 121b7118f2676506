//===- InstanceNote.h - the note naming a kernel instance -------*- C++ -*-===//
//
// A diagnostic in an instance of a kernel with compile-time parameters names
// the instance. Sema's diagnostics and those of the IR passes (the driver,
// through the instance's locations: tilec/SourceLoc.h) share the wording.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_INSTANCENOTE_H
#define TILEC_FRONTEND_INSTANCENOTE_H

#include "tilec/frontend/AST.h"

#include <optional>
#include <string>
#include <utility>

namespace tile::frontend {

/// `in the instance k<T = i32, BN = 64> of kernel 'k' (from -D T=i32)` and
/// where it points (the first type parameter, else the kernel's name);
/// nullopt for a kernel that is no instance.
std::optional<std::pair<Location, std::string>> instanceNote(const KernelAST &k);

} // namespace tile::frontend

#endif
