//===- Diagnostics.h - source locations and error reporting -----*- C++ -*-===//
//
// Every diagnostic carries a severity, a 1-based file:line:col, a message, a
// hint and its notes (the other places it explains itself with). print()
// renders them compiler-style with the offending source line and a caret
// under the column, so users see exactly what is wrong and how to fix it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_DIAGNOSTICS_H
#define TILEC_FRONTEND_DIAGNOSTICS_H

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tile::frontend {

/// A source file's name, shared: every Location of one file points at one
/// interned copy of the name (a file of a million tokens holds the name once,
/// not once per token and AST node). Reads as a `const std::string &`.
class FileName {
public:
  FileName() = default;
  FileName(const std::string &name);
  FileName(const char *name) : FileName(std::string(name)) {}

  const std::string &str() const;
  operator const std::string &() const { return str(); }
  bool empty() const { return str().empty(); }
  friend bool operator==(const FileName &a, const FileName &b) { return a.str() == b.str(); }
  friend bool operator==(const FileName &a, const std::string &b) { return a.str() == b; }
  friend bool operator==(const FileName &a, const char *b) { return a.str() == b; }
  friend std::ostream &operator<<(std::ostream &os, const FileName &f) { return os << f.str(); }

private:
  const std::string *name_ = nullptr; // interned, lives as long as the program
};

struct Location {
  FileName file;
  int line = 0, col = 0; // 1-based; 0 = unknown
};

struct Diagnostic {
  enum Kind { Error, Warning, Note } kind = Error;
  Location loc;
  std::string message, hint;
  /// Notes (kind Note) rendered after the diagnostic and its hint: "the
  /// previous definition is here", the calls an inlined function came from.
  std::vector<Diagnostic> notes;
};

class DiagnosticEngine {
public:
  /// Errors beyond this many are dropped (one final note says so) so that a
  /// pathological input cannot flood the output.
  static constexpr size_t kMaxErrors = 20;

  void error(const Location &loc, std::string message, std::string hint = "");
  void warning(const Location &loc, std::string message, std::string hint = "");
  /// A note belongs to the error or warning reported just before it (it is
  /// added to that diagnostic's notes); without one it stands alone.
  void note(const Location &loc, std::string message, std::string hint = "");
  /// Adds a whole diagnostic, with its hint and notes.
  void report(Diagnostic d);

  /// Errors found so far, a repeat that closeCopy() dropped included: a
  /// checker compares it before and after a step to learn whether the step
  /// found an error, shown or not.
  bool hasErrors() const { return numErrors_ > 0; }
  size_t numErrors() const { return numErrors_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }

  /// Code checked once per copy (a function at each call it is inlined at,
  /// a kernel once per instance of its compile-time parameters) reports
  /// what it finds per copy. The diagnostics added since `from` (an earlier
  /// diagnostics().size()) are one copy's: each gets `context` (the call or
  /// the instance) as a note; one that an earlier copy of the same code
  /// reported already (same kind, place, message, hint and notes: `seen`,
  /// one set per code) is dropped. So an error that does not depend on the
  /// copy is shown once, and one that does once per distinct wording, each
  /// naming the copy it was found in.
  void closeCopy(size_t from, const Diagnostic &context, std::set<std::string> &seen);
  /// The identity closeCopy() compares diagnostics by: kind, place, message,
  /// hint and notes (with their places), not the context notes it adds.
  static std::string identity(const Diagnostic &d, size_t notes);

  /// The program that reports: a diagnostic without a file or line (an
  /// option, an internal failure) renders as "TOOL: error: MSG", the way
  /// command-line tools name themselves. Empty (the default): "error: MSG".
  void setToolName(std::string tool) { tool_ = std::move(tool); }

  /// Registers source text so print() can show the offending line.
  void addSource(const std::string &file, const std::string &text);
  /// "FILE:LINE:COL: error: MSG\n<src line>\n<spaces>^\nhint: HINT\n" per
  /// diagnostic (source/caret lines only when the source is known, hint line
  /// only when non-empty), each followed by its notes, rendered the same way.
  void print(std::ostream &os) const;
  /// Renders one diagnostic the same way print() does.
  std::string render(const Diagnostic &d) const;

private:
  void add(Diagnostic d);
  std::vector<Diagnostic> diags_;
  std::map<std::string, std::string> sources_;
  std::string tool_;
  size_t numErrors_ = 0;
  size_t shownErrors_ = 0; // numErrors_ less the dropped repeats: what kMaxErrors bounds
  bool truncated_ = false;
};

} // namespace tile::frontend

#endif
