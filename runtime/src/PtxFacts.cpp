//===- PtxFacts.cpp - what a PTX text pins, read without the driver -------===//
#include "PtxFacts.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace tile::detail {
namespace {

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

} // namespace

std::string blankComments(const std::string &ptx, bool *open) {
  std::string s = ptx;
  if (open)
    *open = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') { // a string (.file "name"): skip to its end
      for (++i; i < s.size() && s[i] != '"' && s[i] != '\n'; ++i)
        if (s[i] == '\\')
          ++i;
      continue;
    }
    if (i + 1 >= s.size() || s[i] != '/')
      continue;
    if (s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n')
        s[i++] = ' ';
    } else if (s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string::npos && open)
        *open = true;
      end = end == std::string::npos ? s.size() : end + 2;
      for (; i < end; ++i)
        if (s[i] != '\n')
          s[i] = ' ';
      --i;
    }
  }
  return s;
}

namespace {

size_t skipSpace(const std::string &s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    ++i;
  return i;
}

// "x[, y[, z]]" at i: up to three unsigned numbers, the missing ones 1.
std::array<unsigned, 3> readDims(const std::string &s, size_t i) {
  std::array<unsigned, 3> d{1, 1, 1};
  for (int k = 0; k < 3; ++k) {
    i = skipSpace(s, i);
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
      break;
    char *end = nullptr;
    d[k] = static_cast<unsigned>(std::strtoul(s.c_str() + i, &end, 10));
    i = static_cast<size_t>(end - s.c_str());
    i = skipSpace(s, i);
    if (i >= s.size() || s[i] != ',')
      break;
    ++i;
  }
  return d;
}

// Bytes of a PTX fundamental type (".u64" -> 8, ".pred" -> 1), 0 when not one.
size_t typeBytes(const std::string &t) {
  if (t == ".pred")
    return 1;
  if (t.size() < 3 || t[0] != '.' || !std::strchr("usbf", t[1]))
    return 0;
  for (size_t i = 2; i < t.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(t[i])))
      return 0;
  const int bits = std::atoi(t.c_str() + 2);
  return bits >= 8 && bits % 8 == 0 ? static_cast<size_t>(bits / 8) : 0;
}

// One ".param [.ptr [.space] [.align N]] [.align N] .type name[[count]]"
// declaration; false when not understood.
bool readParam(const std::string &decl, PtxEntryFacts::Param &out) {
  size_t elem = 0, align = 0, count = 1;
  bool ptr = false;
  std::string name;
  size_t i = 0;
  while ((i = skipSpace(decl, i)) < decl.size()) {
    size_t end = i;
    while (end < decl.size() && !std::isspace(static_cast<unsigned char>(decl[end])) &&
           decl[end] != '[')
      ++end;
    const std::string tok = decl.substr(i, end - i);
    i = end;
    if (tok == ".align") {
      i = skipSpace(decl, i);
      char *e = nullptr;
      const size_t a = std::strtoul(decl.c_str() + i, &e, 10);
      i = static_cast<size_t>(e - decl.c_str());
      if (!ptr) // after .ptr, .align is the pointee's alignment
        align = a;
    } else if (tok == ".ptr") {
      ptr = true;
    } else if (tok == ".param" || tok == ".global" || tok == ".shared" || tok == ".const" ||
               tok == ".local") {
    } else if (size_t n = typeBytes(tok)) {
      elem = n;
    } else if (!tok.empty() && tok[0] != '.') {
      name = tok;
      if (i < decl.size() && decl[i] == '[') {
        count = std::strtoul(decl.c_str() + i + 1, nullptr, 10);
        i = decl.find(']', i);
        if (i == std::string::npos)
          return false;
        ++i;
      }
    } else if (!tok.empty()) {
      return false; // a qualifier this reader does not know
    }
  }
  if (!elem || name.empty() || !count)
    return false;
  out.name = name;
  out.size = elem * count;
  out.align = align ? align : elem;
  return true;
}

// Where `.entry kernel` starts in the comment-free text s, npos when absent.
size_t findEntry(const std::string &s, const std::string &kernel, size_t &afterName) {
  for (size_t at = s.find(".entry"); at != std::string::npos; at = s.find(".entry", at + 1)) {
    size_t i = at + 6;
    if (i >= s.size() || !std::isspace(static_cast<unsigned char>(s[i])))
      continue;
    i = skipSpace(s, i);
    if (s.compare(i, kernel.size(), kernel) != 0)
      continue;
    i += kernel.size();
    if (i < s.size() && isIdentChar(s[i]))
      continue; // a longer name with this prefix
    afterName = i;
    return at;
  }
  return std::string::npos;
}

std::string lineCol(const std::string &s, size_t pos) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i, ++col)
    if (s[i] == '\n')
      ++line, col = 0;
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

int versionNumber(const std::string &v) { // "8.7" -> 87
  const size_t dot = v.find('.');
  if (dot == std::string::npos)
    return 0;
  return std::atoi(v.c_str()) * 10 + std::atoi(v.c_str() + dot + 1);
}

// "sm_90a" -> 90 (and the suffix in `suffix`); 0 when not an sm target.
int targetCc(const std::string &t, std::string &suffix) {
  if (t.compare(0, 3, "sm_") != 0)
    return 0;
  size_t i = 3;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
    ++i;
  suffix = t.substr(i);
  return std::atoi(t.c_str() + 3);
}

std::string ccText(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

} // namespace

PtxEntryFacts ptxEntryFacts(const std::string &ptx, const std::string &kernel) {
  PtxEntryFacts f;
  if (kernel.empty())
    return f;
  const std::string s = blankComments(ptx);
  size_t i = 0;
  if (findEntry(s, kernel, i) == std::string::npos)
    return f;
  f.found = true;
  i = skipSpace(s, i);
  if (i < s.size() && s[i] == '(') {
    const size_t close = s.find(')', i);
    if (close == std::string::npos)
      return f;
    const std::string list = s.substr(i + 1, close - i - 1);
    f.paramsParsed = true;
    for (size_t start = 0; start <= list.size();) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos)
        comma = list.size();
      const std::string decl = list.substr(start, comma - start);
      start = comma + 1;
      if (skipSpace(decl, 0) >= decl.size())
        continue;
      PtxEntryFacts::Param p;
      if (!readParam(decl, p)) {
        f.paramsParsed = false;
        f.params.clear();
        break;
      }
      f.params.push_back(p);
    }
    i = close + 1;
  }
  // The directives between the parameter list and the body.
  const size_t body = s.find('{', i);
  const std::string d = s.substr(i, body == std::string::npos ? std::string::npos : body - i);
  auto directive = [&](const char *name) -> size_t {
    const std::string n = name;
    for (size_t at = d.find(n); at != std::string::npos; at = d.find(n, at + 1))
      if (at + n.size() >= d.size() || !isIdentChar(d[at + n.size()]))
        return at + n.size();
    return std::string::npos;
  };
  if (size_t at = directive(".reqntid"); at != std::string::npos)
    f.reqntid = readDims(d, at);
  if (size_t at = directive(".maxntid"); at != std::string::npos)
    f.maxntid = readDims(d, at);
  if (size_t at = directive(".minnctapersm"); at != std::string::npos)
    f.minnctapersm = readDims(d, at)[0];
  if (size_t at = directive(".reqnctapercluster"); at != std::string::npos)
    f.reqnctapercluster = readDims(d, at);
  f.explicitCluster = directive(".explicitcluster") != std::string::npos;
  return f;
}

PtxHeader ptxHeader(const std::string &ptx) {
  PtxHeader h;
  const std::string s = blankComments(ptx);
  auto word = [&](const char *directive) -> std::string {
    const size_t at = s.find(directive);
    if (at == std::string::npos)
      return {};
    size_t i = skipSpace(s, at + std::string(directive).size());
    size_t end = i;
    while (end < s.size() && (isIdentChar(s[end]) || s[end] == '.'))
      ++end;
    return s.substr(i, end - i);
  };
  h.version = word(".version");
  h.target = word(".target");
  return h;
}

std::string ptxTruncation(const std::string &ptx) {
  bool openComment = false;
  const std::string s = blankComments(ptx, &openComment);
  const size_t end = ptx.size();
  const std::string where = "it ends at " + lineCol(ptx, end);
  if (openComment)
    return where + ", inside a /* comment";
  // Braces and the parameter list's parentheses, remembering where the
  // outermost open one started and the entry it belongs to.
  int depth = 0, parens = 0;
  size_t openedAt = 0;
  std::string entry;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"' && s[i] != '\n'; ++i)
        if (s[i] == '\\')
          ++i;
      if (i >= s.size())
        return where + ", inside a string";
      continue;
    }
    if (c == '(' && depth == 0 && parens++ == 0)
      openedAt = i;
    else if (c == ')' && depth == 0 && parens > 0)
      --parens;
    else if (c == '{' && depth++ == 0)
      openedAt = i;
    else if (c == '}' && depth > 0)
      --depth;
    if (depth == 0 && parens == 0 && s.compare(i, 6, ".entry") == 0 &&
        (i + 6 < s.size() && std::isspace(static_cast<unsigned char>(s[i + 6])))) {
      size_t b = skipSpace(s, i + 6), e = b;
      while (e < s.size() && isIdentChar(s[e]))
        ++e;
      entry = s.substr(b, e - b);
    }
  }
  const std::string of = entry.empty() ? "" : " of entry '" + entry + "'";
  if (parens > 0)
    return where + ", inside the parameter list" + of + " opened at " + lineCol(ptx, openedAt);
  if (depth > 0)
    return where + ", inside the body" + of + " opened at " + lineCol(ptx, openedAt) + " (" +
           std::to_string(depth) + " brace(s) left open)";
  return {};
}

namespace {
constexpr int kNewestKnownDriver = 13000;
} // namespace

int maxPtxIsaForDriver(int driverVersion) {
  // CUDA release -> the PTX ISA version it introduced (PTX ISA, "Release
  // Notes"); a driver JIT-compiles PTX up to its release's version.
  static const int table[][2] = {
      {11000, 70}, {11010, 71}, {11020, 72}, {11030, 73}, {11040, 74}, {11050, 75},
      {11060, 76}, {11070, 77}, {11080, 78}, {12000, 80}, {12010, 81}, {12020, 82},
      {12030, 83}, {12040, 84}, {12050, 85}, {12060, 85}, {12080, 87}, {12090, 88},
      {13000, 90}};
  int best = 0;
  for (const auto &row : table)
    if (driverVersion >= row[0])
      best = row[1];
  return best;
}

std::string ptxTargetMismatch(const PtxHeader &h, int cc) {
  std::string suffix;
  const int want = targetCc(h.target, suffix);
  if (!want || !cc)
    return {};
  if (want > cc)
    return "the PTX targets " + h.target + " (compute capability " + ccText(want) +
           ") but the device is sm_" + std::to_string(cc) + " (compute capability " + ccText(cc) +
           "): PTX runs only on its target or newer; compile it with --arch=sm_" +
           std::to_string(cc) + (cc >= 90 ? "a" : "");
  if (!suffix.empty() && want != cc) // sm_90a, sm_100f: arch-specific code
    return "the PTX targets " + h.target + ", whose arch-specific instructions run only on "
           "compute capability " + ccText(want) + ", but the device is sm_" + std::to_string(cc) +
           " (compute capability " + ccText(cc) + "); compile it with --arch=sm_" +
           std::to_string(cc) + (cc >= 90 ? "a" : "");
  return {};
}

std::string ptxHeaderMismatch(const PtxHeader &h, int cc, int driverVersion) {
  std::string why = ptxTargetMismatch(h, cc);
  const int have = versionNumber(h.version), max = maxPtxIsaForDriver(driverVersion);
  if (have && max && have > max) {
    // A release newer than the table: its own ISA version is not known here.
    const bool newer = driverVersion > kNewestKnownDriver;
    const std::string v = std::to_string(max / 10) + "." + std::to_string(max % 10) +
                          (newer ? " or a little newer (a release this runtime does not know)"
                                 : "");
    why += std::string(why.empty() ? "" : "; ") + "the PTX is .version " + h.version +
           " but this driver (" + std::to_string(driverVersion) + ", CUDA " +
           std::to_string(driverVersion / 1000) + "." + std::to_string(driverVersion % 1000 / 10) +
           ") JIT-compiles PTX ISA up to " + v +
           ": update the driver, or compile with a toolchain whose PTX ISA it knows";
  }
  return why;
}

} // namespace tile::detail
