//===- nearest_names.h - what a lookup by name offers instead ---*- C++ -*-===//
//
// A lookup by name that fails (a kernel, a parameter, a compile-time
// argument, an option, a dtype) says what exists and which of it is nearest
// to what was asked: "did you mean 'BN'?".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace tile {

// The Levenshtein distance of two byte strings, one row at a time. Inline:
// the compiler's frontend, which links no runtime library, suggests names
// with it too.
inline size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The names of `known` near `name`, nearest first (at most `count`): those
// within an edit distance of about a third of the longer name (at least 1,
// case ignored), or that contain it or are contained in it (3 letters or more).
std::vector<std::string> nearestNames(const std::string &name,
                                      const std::vector<std::string> &known, size_t count = 3);

// "; did you mean 'a' or 'b'?" for nearestNames(name, known), or "" when none is near.
std::string didYouMean(const std::string &name, const std::vector<std::string> &known);

// "'a', 'b', 'c'" ("none" when empty): the names a lookup could have found.
std::string quotedList(const std::vector<std::string> &names);

} // namespace tile
