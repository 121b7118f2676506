//===- fuzz_mutate.h - deterministic mutations of .tile sources -*- C++ -*-===//
//
// Shared by the replay drivers (fixed seeds, so a ctest sees the same inputs
// on every run) and the libFuzzer custom mutator. Two kinds of mutation:
// byte-level (flips, truncations, splices) that probe the lexer and parser,
// and token-level ones that keep the text mostly well-formed (swap a type, a
// number for a boundary value, a statement for another) so that many
// mutants pass the checker and reach MLIRGen, the passes, LLVM and ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FUZZ_MUTATE_H
#define TILEC_FUZZ_MUTATE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tile::fuzz {

struct Rng { // xorshift64*: deterministic across platforms
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

/// One byte-level edit of `s`: `others` gives splice partners (may be empty).
void mutateBytes(std::string &s, const std::vector<std::string> &others, Rng &r);

/// One token-level edit of `s`: replace, delete, duplicate or move tokens and
/// lines, swap in boundary numbers, types, memory orders, statements.
void mutateTokens(std::string &s, const std::vector<std::string> &others, Rng &r);

/// A mutant of a random member of `pool`: 1-4 edits (mostly one), mostly
/// token-level; `partners` are the cross-over sources.
std::string mutate(const std::vector<std::string> &pool, const std::vector<std::string> &partners,
                   Rng &r);
inline std::string mutate(const std::vector<std::string> &seeds, Rng &r) {
  return mutate(seeds, seeds, r);
}

/// A kernel header followed by random tokens (the frontend's worst case).
std::string tokenSoup(Rng &r);

/// Reads `path` (a file, or every *.tile below a folder, sorted) into `seeds`.
void collectSeeds(const std::string &path, std::vector<std::string> &seeds);

/// Built-in seeds, so a driver is useful even without files.
std::vector<std::string> builtinSeeds();

} // namespace tile::fuzz

#endif
