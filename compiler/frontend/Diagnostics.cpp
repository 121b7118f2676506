//===- Diagnostics.cpp - error reporting with caret lines ------------------===//
#include "tilec/frontend/Diagnostics.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <unordered_set>

namespace tile::frontend {

// The names are interned once per process: a compile sees one or a few
// files, and the python module may compile on several threads at once.
FileName::FileName(const std::string &name) {
  if (name.empty())
    return;
  static std::mutex mutex;
  static auto *names = new std::unordered_set<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  name_ = &*names->insert(name).first;
}

const std::string &FileName::str() const {
  static const std::string none;
  return name_ ? *name_ : none;
}

void DiagnosticEngine::add(Diagnostic d) {
  if (truncated_)
    return;
  if (d.kind == Diagnostic::Error) {
    if (shownErrors_ == kMaxErrors) {
      truncated_ = true;
      diags_.push_back({Diagnostic::Note, d.loc, "too many errors; stopping", "", {}});
      return;
    }
    ++numErrors_;
    ++shownErrors_;
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

std::string DiagnosticEngine::identity(const Diagnostic &d, size_t notes) {
  std::ostringstream os;
  auto place = [&](const Diagnostic &x) {
    os << x.kind << '\0' << x.loc.file << '\0' << x.loc.line << ':' << x.loc.col << '\0'
       << x.message << '\0' << x.hint << '\0';
  };
  place(d);
  for (size_t i = 0; i < notes && i < d.notes.size(); ++i)
    place(d.notes[i]);
  return os.str();
}

void DiagnosticEngine::closeCopy(size_t from, const Diagnostic &context,
                                 std::set<std::string> &seen) {
  size_t out = std::min(from, diags_.size());
  for (size_t i = out; i < diags_.size(); ++i) {
    Diagnostic &d = diags_[i];
    if (d.kind != Diagnostic::Note) { // a note standing alone ("too many errors") is no finding
      if (!seen.insert(identity(d, d.notes.size())).second) {
        if (d.kind == Diagnostic::Error)
          --shownErrors_;
        continue;
      }
      d.notes.push_back(context);
    }
    if (out != i)
      diags_[out] = std::move(d);
    ++out;
  }
  diags_.resize(out);
}

void DiagnosticEngine::addSource(const std::string &file, const std::string &text) {
  sources_[file] = text;
}

/// Returns line `line` (1-based) of `text` without its line end, or false.
/// Lines end as the lexer ends them: "\n", "\r\n" or a lone "\r"; a UTF-8
/// byte-order mark before line 1 is not part of it (the lexer skips it).
static bool sourceLine(const std::string &text, int line, std::string &out) {
  if (line < 1)
    return false;
  size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  auto lineEnd = [&](size_t from) { return text.find_first_of("\r\n", from); };
  for (int l = 1; l < line; ++l) {
    size_t end = lineEnd(start);
    if (end == std::string::npos)
      return false;
    start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  size_t end = lineEnd(start);
  out = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  return true;
}

/// The bytes of the UTF-8 character starting at `s[i]`: 1 for ASCII, 0 for
/// a byte that starts no valid sequence (shown as one `?`).
static size_t utf8Length(const std::string &s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80)
    return 1;
  size_t length = b >= 0xC2 && b <= 0xDF   ? 2
                  : b >= 0xE0 && b <= 0xEF ? 3
                  : b >= 0xF0 && b <= 0xF4 ? 4
                                           : 0;
  if (i + length > s.size())
    return 0;
  for (size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
      return 0;
  return length;
}

/// The columns a terminal gives the UTF-8 character starting at `s[i]`
/// (`length` its bytes): 0 for combining marks and zero-width characters, 2
/// for East Asian wide ones and emoji, else 1.
static int displayWidth(const std::string &s, size_t i, size_t &length) {
  auto b0 = static_cast<unsigned char>(s[i]);
  length = utf8Length(s, i);
  if (length <= 1)
    return (length = 1), 1;
  uint32_t cp = b0 & (0x7F >> length);
  for (size_t k = 1; k < length; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  if ((cp >= 0x300 && cp <= 0x36F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0xFEFF ||
      (cp >= 0xFE00 && cp <= 0xFE0F))
    return 0;
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1FAFF) ||
      (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

/// `text` as a terminal can show it in one line of the width the caret line
/// assumes: form feed and vertical tab (whitespace to the lexer) become a
/// space, other control characters and bytes that are not UTF-8 a `?`
/// (a terminal would move the cursor or print nothing for them).
static std::string printable(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b == '\t' || (b >= 0x20 && b < 0x7F)) {
      out += text[i++];
      continue;
    }
    if (b == '\f' || b == '\v') {
      out += ' ';
      ++i;
      continue;
    }
    size_t length = b < 0x80 ? 0 : utf8Length(text, i); // (a control character: 0)
    if (length == 0) {
      out += '?';
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

/// The shown source line and the caret line under byte column `col`: tabs
/// are copied into the caret line and every other character becomes as many
/// spaces as the terminal gives it, so the caret lines up after non-ASCII
/// text in comments too. A line longer than kMaxShownBytes is cut to a
/// window around the column, with "..." where text was left out.
static void caretLines(const std::string &line, int col, std::string &shown, std::string &caret) {
  constexpr size_t kMaxShownBytes = 200, kBefore = 80;
  size_t at = col > 0 ? static_cast<size_t>(col - 1) : 0;
  size_t begin = 0, end = line.size();
  if (line.size() > kMaxShownBytes) {
    begin = std::min(at > kBefore ? at - kBefore : 0, line.size());
    end = std::min(line.size(), begin + kMaxShownBytes - 40);
    auto continuation = [&](size_t i) {
      return i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
    };
    while (begin > 0 && continuation(begin))
      --begin;
    while (continuation(end))
      ++end;
  }
  shown = (begin > 0 ? "..." : "") + printable(line.substr(begin, end - begin)) +
          (end < line.size() ? "..." : "");
  caret = begin > 0 ? "   " : "";
  for (size_t i = begin; i < at && i < line.size();) {
    size_t length = 1;
    if (line[i] == '\t')
      caret += '\t';
    else
      caret.append(static_cast<size_t>(displayWidth(line, i, length)), ' ');
    i += length;
  }
  if (at > line.size()) // past the end (end of file after the last character)
    caret.append(at - line.size(), ' ');
  caret += '^';
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
    std::string shown, caret;
    caretLines(line, d.loc.col, shown, caret);
    os << shown << "\n" << caret << "\n";
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
