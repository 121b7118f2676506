//===- DebugHangsBounds.h - the bounds of a --debug-hangs wait ------------===//
//
// One definition for tile::compile (CompileOptions::debugHangsMs), tilec's
// --debug-hangs and the tile-debug-hangs pass's timeout-ms option.
//===----------------------------------------------------------------------===//
#ifndef TILEC_DEBUGHANGSBOUNDS_H
#define TILEC_DEBUGHANGSBOUNDS_H

namespace tile {

/// --debug-hangs: the bound of a wait without a value, and the longest one
/// (an hour; in nanoseconds it still fits the 64-bit %globaltimer
/// arithmetic with room to spare).
inline constexpr unsigned kDefaultDebugHangsMs = 2000;
inline constexpr unsigned kMaxDebugHangsMs = 3600000;

} // namespace tile

#endif
