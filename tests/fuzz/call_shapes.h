//===- call_shapes.h - every builtin called in every argument shape -*- C++ -*-===//
//
// A builtin's checker may rely on the syntax that normally builds its call
// (`zeros<T>[M, N]` fills a type argument and exactly two operands). Call
// syntax reaches the same checker with any arity, named arguments and
// operands of any kind, so each builtin is called here with none, one of each
// kind, too many, named ones, as a statement and as a value, in a plain
// kernel and inside a consumer's `consume` body. Every input must be compiled
// or rejected with diagnostics, never crash.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FUZZ_CALL_SHAPES_H
#define TILEC_FUZZ_CALL_SHAPES_H

#include <string>
#include <vector>

namespace tile::fuzz {

/// The call-shape inputs for every name in tile::frontend::builtinNameList().
std::vector<std::string> builtinCallShapes();

} // namespace tile::fuzz

#endif
