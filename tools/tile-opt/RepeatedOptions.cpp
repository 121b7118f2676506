//===- RepeatedOptions.cpp - tile-opt's options given twice ---------------===//
//
// llvm::cl and MLIR's pass-option parser keep the last of two values given
// to one option silently: `tile-anchor-mma-waits{anchor=last anchor=reduce}`
// runs with `reduce`, `-o a.mlir -o b.mlir` writes only b.mlir. tilec
// rejects such a command line (tools/tilec, checkRepeatedOptions); so does
// tile-opt, from the command line's text: tile-opt's options are MLIR's
// and LLVM's objects, which the sanitizer build cannot inspect (LLVM has no
// RTTI for UBSan's vptr check), and pass options are text until a pass
// manager parses them.
//===----------------------------------------------------------------------===//
#include "RepeatedOptions.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using llvm::StringRef;

namespace {

struct Conflict {
  std::string first, second, option;
};

/// The end of the quoted or braced run that starts at `text[pos]` (one past
/// its closing character), as MLIR's option parser skips it; npos when it
/// is not closed.
size_t skipGroup(StringRef text, size_t pos) {
  char open = text[pos];
  if (open == '\'' || open == '"') {
    size_t close = text.find(open, pos + 1);
    return close == StringRef::npos ? close : close + 1;
  }
  int depth = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    if (text[i] == '\'' || text[i] == '"') {
      i = skipGroup(text, i);
      if (i == StringRef::npos)
        return i;
      --i;
    } else if (text[i] == '{') {
      ++depth;
    } else if (text[i] == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return StringRef::npos;
}

std::optional<Conflict> checkPipeline(StringRef text);

/// One option list (`anchor=last check-only`): the first key given two
/// different values (a bare key is `true`), then the lists nested in values.
std::optional<Conflict> checkOptionList(StringRef list, StringRef owner) {
  llvm::SmallVector<std::pair<StringRef, StringRef>, 4> seen; // key=value as written, value
  llvm::SmallVector<StringRef, 4> values;
  StringRef rest = list.ltrim();
  while (!rest.empty()) {
    size_t end = 0;
    while (end < rest.size() && rest[end] != ' ') {
      char c = rest[end];
      if (c == '\'' || c == '"' || c == '{') {
        end = skipGroup(rest, end);
        if (end == StringRef::npos)
          return std::nullopt; // MLIR's parser reports the unbalanced text
      } else {
        ++end;
      }
    }
    StringRef item = rest.take_front(end);
    rest = rest.drop_front(end).ltrim();
    auto [key, value] = item.split('=');
    bool bare = !item.contains('=');
    // MLIR reads `'last'`, `"last"` and `{last}` as `last`.
    StringRef shown = bare ? StringRef("true") : value;
    if (shown.size() >= 2 && ((shown.front() == '\'' || shown.front() == '"')
                                  ? shown.back() == shown.front()
                                  : shown.front() == '{' && shown.back() == '}'))
      shown = shown.drop_front().drop_back();
    for (auto &[earlierItem, earlierValue] : seen)
      if (earlierItem.split('=').first == key && earlierValue != shown)
        return Conflict{earlierItem.str(), item.str(), (owner + "'s option " + key).str()};
    seen.push_back({item, shown});
    if (!bare)
      values.push_back(value);
  }
  for (StringRef value : values)
    if (std::optional<Conflict> c = checkPipeline(value))
      return c;
  return std::nullopt;
}

/// Every `name{options}` of a pass pipeline's text (`builtin.module(
/// tile.kernel(tile-anchor-mma-waits{anchor=last}))`), nested ones included.
std::optional<Conflict> checkPipeline(StringRef text) {
  size_t nameStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == ')' || c == ',' || c == ' ') {
      nameStart = i + 1;
    } else if (c == '\'' || c == '"') {
      i = skipGroup(text, i);
      if (i == StringRef::npos)
        return std::nullopt;
      --i;
    } else if (c == '{') {
      size_t end = skipGroup(text, i);
      if (end == StringRef::npos)
        return std::nullopt;
      StringRef name = text.slice(nameStart, i).trim();
      if (std::optional<Conflict> conflict = checkOptionList(text.slice(i + 1, end - 1), name))
        return conflict;
      i = end - 1;
    }
  }
  return std::nullopt;
}

bool isPassOrPipeline(StringRef name) {
  return mlir::PassInfo::lookup(name) || mlir::PassPipelineInfo::lookup(name);
}

bool report(const Conflict &c, StringRef what) {
  llvm::errs() << "tile-opt: error: '" << c.first << "' and '" << c.second << "' give "
               << c.option << " two values\n"
               << "hint: give " << what
               << " once (tile-opt does not take the last one silently)\n";
  return false;
}

} // namespace

bool tile::opt::rejectRepeatedOptions(int argc, char **argv) {
  // tile-opt's single-value options that take a value, as (name, spelling, value).
  struct Given {
    StringRef name;
    std::string spelling;
    StringRef value;
  };
  llvm::SmallVector<Given, 4> given;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (!arg.starts_with("-"))
      continue;
    StringRef body = arg.drop_front(arg.starts_with("--") ? 2 : 1);
    auto [name, value] = body.split('=');
    bool joined = body.contains('=');
    if (name == "p")
      name = "pass-pipeline";
    if (name == "o" || name == "pass-pipeline") {
      if (!joined) {
        if (i + 1 >= argc)
          continue; // llvm::cl reports the missing value
        value = argv[++i];
      }
      given.push_back({name, joined ? arg.str() : (arg + " " + value).str(), value});
      if (name == "pass-pipeline")
        if (std::optional<Conflict> c = checkPipeline(value))
          return report(*c, "each option");
      continue;
    }
    // `--tile-anchor-mma-waits='anchor=last'`: each occurrence adds a pass
    // (two are two passes); its own list may not repeat a key.
    if (joined && isPassOrPipeline(name))
      if (std::optional<Conflict> c = checkOptionList(value, name))
        return report(*c, "each option");
  }
  for (size_t i = 0; i < given.size(); ++i)
    for (size_t j = i + 1; j < given.size(); ++j)
      if (given[i].name == given[j].name && given[i].value != given[j].value) {
        std::string dashed = given[i].name == "o" ? "-o" : "--pass-pipeline";
        return report({given[i].spelling, given[j].spelling, dashed}, dashed);
      }
  return true;
}

bool tile::opt::rejectOptionLikeValues(int argc, char **argv) {
  // tile-opt's options that take the next word as their value (`-o FILE`,
  // `-p PIPELINE`): llvm::cl would take `-o --tile-lower-rings x.mlir` as the
  // output file "--tile-lower-rings" and run no pass. As tilec does, a value
  // that starts with '-' is written joined (`-o=-x`); a lone `-` is stdout.
  for (int i = 1; i + 1 < argc; ++i) {
    StringRef arg = argv[i], next = argv[i + 1];
    if (arg == "--")
      break;
    StringRef name = arg.drop_front(arg.starts_with("--") ? 2 : 1);
    if (!arg.starts_with("-") || next.size() < 2 || !next.starts_with("-") ||
        (name != "o" && name != "p" && name != "pass-pipeline"))
      continue;
    StringRef what = name == "o" ? "filename" : "pass pipeline";
    llvm::errs() << "tile-opt: error: '" << arg << "' needs a value (<" << what
                 << ">) next, found the option '" << next << "'\n"
                 << "hint: write the value right after " << arg << " (`" << arg << " <" << what
                 << ">`); a value that starts with '-' is written joined: `" << arg << "="
                 << next << "`\n";
    return false;
  }
  return true;
}
