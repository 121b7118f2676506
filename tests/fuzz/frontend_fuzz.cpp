//===- frontend_fuzz.cpp - libFuzzer entry: the frontend never crashes -----===//
//
// Parses and checks arbitrary bytes, renders every diagnostic and dumps the
// AST. Any crash, sanitizer report or hang is a bug: bad input must only ever
// produce diagnostics.
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/Frontend.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace tile::frontend;
  std::string text(reinterpret_cast<const char *>(data), size);
  DiagnosticEngine diags;
  auto module = parseSource("fuzz.tile", text, diags);
  if (module) {
    CheckOptions opts;
    // Exercise the --cluster override path on some inputs.
    if (size % 3 == 0)
      opts.clusterOverride = std::array<int, 3>{int(size % 5), 2, 1};
    bool ok = checkModule(*module, diags, opts);
    std::ostringstream dump;
    dumpAST(*module, dump);
    if (ok && diags.hasErrors())
      __builtin_trap(); // checkModule must agree with the engine
  }
  std::ostringstream out;
  diags.print(out);
  return 0;
}
