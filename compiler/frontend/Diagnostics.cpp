//===- Diagnostics.cpp - error reporting with caret lines ------------------===//
#include "tilec/frontend/Diagnostics.h"

#include <sstream>

namespace tile::frontend {

void DiagnosticEngine::add(Diagnostic d) {
  if (truncated_)
    return;
  if (d.kind == Diagnostic::Error) {
    if (numErrors_ == kMaxErrors) {
      truncated_ = true;
      diags_.push_back({Diagnostic::Note, d.loc, "too many errors; stopping", "", {}});
      return;
    }
    ++numErrors_;
  }
  if (d.kind == Diagnostic::Note && !diags_.empty() && diags_.back().kind != Diagnostic::Note) {
    diags_.back().notes.push_back(std::move(d));
    return;
  }
  diags_.push_back(std::move(d));
}

void DiagnosticEngine::error(const Location &loc, std::string message, std::string hint) {
  add({Diagnostic::Error, loc, std::move(message), std::move(hint), {}});
}
void DiagnosticEngine::warning(const Location &loc, std::string message, std::string hint) {
  add({Diagnostic::Warning, loc, std::move(message), std::move(hint), {}});
}
void DiagnosticEngine::note(const Location &loc, std::string message, std::string hint) {
  add({Diagnostic::Note, loc, std::move(message), std::move(hint), {}});
}
void DiagnosticEngine::report(Diagnostic d) { add(std::move(d)); }

void DiagnosticEngine::addSource(const std::string &file, const std::string &text) {
  sources_[file] = text;
}

/// Returns line `line` (1-based) of `text` without its newline, or false.
static bool sourceLine(const std::string &text, int line, std::string &out) {
  if (line < 1)
    return false;
  size_t start = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos)
      return false;
    start = nl + 1;
  }
  size_t end = text.find('\n', start);
  out = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!out.empty() && out.back() == '\r')
    out.pop_back();
  return true;
}

std::string DiagnosticEngine::render(const Diagnostic &d) const {
  static const char *kinds[] = {"error", "warning", "note"};
  std::ostringstream os;
  if (!d.loc.file.empty())
    os << d.loc.file << ":";
  if (d.loc.line > 0)
    os << d.loc.line << ":" << d.loc.col << ":";
  if (!d.loc.file.empty() || d.loc.line > 0)
    os << " ";
  else if (!tool_.empty())
    os << tool_ << ": ";
  os << kinds[d.kind] << ": " << d.message << "\n";
  auto it = sources_.find(d.loc.file);
  std::string line;
  if (it != sources_.end() && sourceLine(it->second, d.loc.line, line)) {
    os << line << "\n";
    // Copy tabs so the caret lines up however the terminal expands them.
    std::string pad;
    for (int i = 0; i + 1 < d.loc.col; ++i)
      pad += (i < (int)line.size() && line[i] == '\t') ? '\t' : ' ';
    os << pad << "^\n";
  }
  if (!d.hint.empty())
    os << "hint: " << d.hint << "\n";
  for (const Diagnostic &note : d.notes)
    os << render(note);
  return os.str();
}

void DiagnosticEngine::print(std::ostream &os) const {
  for (const Diagnostic &d : diags_)
    os << render(d);
}

} // namespace tile::frontend
