// Helpers shared by the frontend unit tests.
#ifndef TILEC_TESTS_FRONTEND_TESTUTIL_H
#define TILEC_TESTS_FRONTEND_TESTUTIL_H

#include "tilec/frontend/Frontend.h"

#include <sstream>
#include <string>

namespace fe = tile::frontend;

struct Compiled {
  fe::DiagnosticEngine diags;
  std::unique_ptr<fe::ModuleAST> module;
  bool ok = false;
  std::string rendered() const {
    std::ostringstream os;
    diags.print(os);
    return os.str();
  }
  /// First error's message ("" when none).
  std::string firstError() const {
    for (const auto &d : diags.diagnostics())
      if (d.kind == fe::Diagnostic::Error)
        return d.message;
    return "";
  }
  const fe::Diagnostic *first() const {
    for (const auto &d : diags.diagnostics())
      if (d.kind == fe::Diagnostic::Error)
        return &d;
    return nullptr;
  }
  std::string dump() const {
    std::ostringstream os;
    if (module)
      fe::dumpAST(*module, os);
    return os.str();
  }
};

/// Parses and (when parsing succeeded) checks `src` as file "t.tile".
inline std::unique_ptr<Compiled> compile(const std::string &src,
                                         const fe::CheckOptions &opts = {}) {
  auto c = std::make_unique<Compiled>();
  c->module = fe::parseSource("t.tile", src, c->diags);
  c->ok = c->module && fe::checkModule(*c->module, c->diags, opts);
  return c;
}

/// Wraps statements in a kernel with a few handy parameters.
inline std::string inKernel(const std::string &body, const std::string &attrs = "") {
  return "kernel k(p: ptr<i32, global>, f: ptr<f32, global>, n: i32, m: i64) " + attrs + " {\n" +
         body + "\n}\n";
}

#endif
