//===- NearestNames.h - the builtin names nearest to an unknown one -*- C++ -*-===//
//
// For the hint of an unknown function: a few names near the one written,
// from the one table of builtins (AST.cpp) and the file's functions, instead
// of every builtin.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_NEARESTNAMES_H
#define TILEC_FRONTEND_NEARESTNAMES_H

#include <cstddef>
#include <string>
#include <vector>

namespace tile::frontend {

/// The `count` names nearest to `name` (edit distance, then the longer
/// shared prefix, then alphabetical) among the builtins and `more`.
std::vector<std::string> nearestNames(const std::string &name,
                                      const std::vector<std::string> &more, size_t count);
/// The `count` names of `names` nearest to `name` in the same order, those
/// at most `maxDistance` edits away.
std::vector<std::string> nearestAmong(const std::string &name,
                                      const std::vector<std::string> &names, size_t count,
                                      size_t maxDistance);

} // namespace tile::frontend

#endif
