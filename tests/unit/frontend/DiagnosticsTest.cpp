#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tile::frontend;

TEST_CASE("diagnostics: rendering with source line, caret and hint", "[diag]") {
  DiagnosticEngine d;
  d.addSource("a.tile", "line one\n  let x = y\nlast");
  d.error({"a.tile", 2, 11}, "unknown name 'y'", "declare it");
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() == "a.tile:2:11: error: unknown name 'y'\n"
                    "  let x = y\n"
                    "          ^\n"
                    "hint: declare it\n");
  CHECK(d.hasErrors());
  CHECK(d.numErrors() == 1);
}

TEST_CASE("diagnostics: tabs are kept so the caret lines up", "[diag]") {
  DiagnosticEngine d;
  d.addSource("a.tile", "\t\tx = 1\r\n");
  d.error({"a.tile", 1, 3}, "m");
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() == "a.tile:1:3: error: m\n\t\tx = 1\n\t\t^\n");
}

TEST_CASE("diagnostics: warnings, notes, unknown source, no hint", "[diag]") {
  DiagnosticEngine d;
  d.warning({"b.tile", 4, 2}, "w", "h");
  d.note({"b.tile", 1, 1}, "n");
  CHECK_FALSE(d.hasErrors());
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() == "b.tile:4:2: warning: w\nhint: h\nb.tile:1:1: note: n\n");
}

TEST_CASE("diagnostics: notes belong to the diagnostic before them", "[diag]") {
  DiagnosticEngine d;
  d.addSource("a.tile", "let x = 1\nlet x = 2\n");
  d.error({"a.tile", 2, 5}, "redefinition of 'x'", "rename one");
  d.note({"a.tile", 1, 5}, "previous definition of 'x' is here");
  // A whole diagnostic with its hint and notes, as tilec builds one from an
  // MLIR diagnostic: the same rendering.
  Diagnostic w;
  w.kind = Diagnostic::Warning;
  w.loc = {"a.tile", 1, 1};
  w.message = "w";
  w.hint = "h";
  w.notes.push_back({Diagnostic::Note, {"a.tile", 2, 1}, "inlined from the call here", "", {}});
  d.report(w);
  REQUIRE(d.diagnostics().size() == 2);
  REQUIRE(d.diagnostics()[0].notes.size() == 1);
  CHECK(d.diagnostics()[0].notes[0].message == "previous definition of 'x' is here");
  CHECK(d.diagnostics()[0].hint == "rename one");
  REQUIRE(d.diagnostics()[1].notes.size() == 1);
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() == "a.tile:2:5: error: redefinition of 'x'\n"
                    "let x = 2\n"
                    "    ^\n"
                    "hint: rename one\n"
                    "a.tile:1:5: note: previous definition of 'x' is here\n"
                    "let x = 1\n"
                    "    ^\n"
                    "a.tile:1:1: warning: w\n"
                    "let x = 1\n"
                    "^\n"
                    "hint: h\n"
                    "a.tile:2:1: note: inlined from the call here\n"
                    "let x = 2\n"
                    "^\n");
}

TEST_CASE("diagnostics: a location past the end of the source still renders", "[diag]") {
  DiagnosticEngine d;
  d.addSource("c.tile", "ab");
  d.error({"c.tile", 1, 3}, "at eol");
  d.error({"c.tile", 9, 1}, "no such line");
  std::ostringstream os;
  d.print(os);
  CHECK(os.str() == "c.tile:1:3: error: at eol\nab\n  ^\nc.tile:9:1: error: no such line\n");
}

TEST_CASE("diagnostics: the error count is capped", "[diag]") {
  DiagnosticEngine d;
  for (int i = 0; i < 100; ++i)
    d.error({"x", 1, 1}, "e" + std::to_string(i));
  CHECK(d.numErrors() == DiagnosticEngine::kMaxErrors);
  CHECK(d.diagnostics().back().message == "too many errors; stopping");
  CHECK(d.diagnostics().size() == DiagnosticEngine::kMaxErrors + 1);
}

TEST_CASE("diagnostics: end-to-end rendering of a sema error", "[diag]") {
  auto c = compile("kernel k(a: i32, b: i64) {\n  let s = a + b\n}\n");
  CHECK(c->rendered() == "t.tile:2:13: error: mismatched operand types i32 and i64 for '+'\n"
                         "  let s = a + b\n"
                         "            ^\n"
                         "hint: convert one side with `as`, e.g. `... as i64`\n");
}

TEST_CASE("diagnostics: without a location, the tool names itself", "[diag]") {
  DiagnosticEngine d;
  d.error({}, "unknown target architecture 'sm_1'", "use sm_90a");
  d.warning({}, "w");
  CHECK(d.render(d.diagnostics()[0]) ==
        "error: unknown target architecture 'sm_1'\nhint: use sm_90a\n");
  d.setToolName("tilec");
  CHECK(d.render(d.diagnostics()[0]) ==
        "tilec: error: unknown target architecture 'sm_1'\nhint: use sm_90a\n");
  CHECK(d.render(d.diagnostics()[1]) == "tilec: warning: w\n");
  // A located diagnostic is unchanged by the tool name.
  d.error({"a.tile", 1, 2}, "m");
  CHECK(d.render(d.diagnostics()[2]) == "a.tile:1:2: error: m\n");
}
