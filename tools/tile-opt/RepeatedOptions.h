//===- RepeatedOptions.h - tile-opt's options given twice -----------------===//
#ifndef TILE_OPT_REPEATEDOPTIONS_H
#define TILE_OPT_REPEATEDOPTIONS_H

namespace tile::opt {

/// False, after an error naming both spellings, when the command line gives
/// one option two different values: a pass's or pipeline's option twice in
/// one list (`tile-anchor-mma-waits{anchor=last anchor=reduce}`, also inside
/// `--pass-pipeline` and `--tile-pipeline='...'`), or `-o` or
/// `--pass-pipeline` (`-p`) twice. The same value twice is accepted, as tilec
/// accepts `-O2 -O2`. Call after the pass registrations (pass names decide
/// which `--name=...` arguments are option lists).
bool rejectRepeatedOptions(int argc, char **argv);

/// False, after an error, when `-o` or `--pass-pipeline` (`-p`) is followed
/// by a word that is itself an option (`-o --tile-lower-rings`), which
/// llvm::cl would take as the value; tilec refuses the same.
bool rejectOptionLikeValues(int argc, char **argv);

} // namespace tile::opt

#endif
