//===- fuzz_findings.cpp - ptxas and diagnostic checks for fuzz targets ----===//
#include "fuzz_findings.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

#ifndef TILEC_PTXAS_PATH
#define TILEC_PTXAS_PATH "/usr/local/cuda/bin/ptxas"
#endif
#ifndef TILEC_TILE_OPT_PATH
#define TILEC_TILE_OPT_PATH ""
#endif

namespace tile::fuzz {

void reportFinding(const std::string &kind, const std::string &summary, const std::string &detail) {
  std::fprintf(stderr, "tilec-fuzz: FINDING %s: %s\n%s\n", kind.c_str(), summary.c_str(),
               detail.c_str());
  std::fflush(stderr);
  std::abort();
}

namespace {
std::string tempDir() {
  const char *t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
} // namespace

namespace {
/// Runs `tool ARGS... FILE` on `input` written to a temporary FILE.
ToolResult runTool(const std::string &tool, std::vector<std::string> args, const std::string &input,
                   const char *suffix) {
  ToolResult result;
  if (access(tool.c_str(), X_OK) != 0)
    return result;
  int suffixLen = int(std::strlen(suffix));
  std::string inPath = tempDir() + "/tilec-fuzz-XXXXXX" + suffix;
  std::string logPath = tempDir() + "/tilec-fuzz-XXXXXX.log";
  int inFd = mkstemps(inPath.data(), suffixLen);
  int logFd = mkstemps(logPath.data(), 4);
  if (inFd < 0 || logFd < 0)
    reportFinding("harness", "cannot create temporary files in " + tempDir(), std::strerror(errno));
  if (write(inFd, input.data(), input.size()) != ssize_t(input.size()))
    reportFinding("harness", "cannot write " + inPath, std::strerror(errno));
  close(inFd);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, logFd, 1);
  posix_spawn_file_actions_adddup2(&actions, logFd, 2);
  args.insert(args.begin(), tool);
  args.push_back(inPath);
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, tool.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(logFd);
  if (rc != 0)
    reportFinding("harness", "cannot run " + tool, std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.ran = true;
  result.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  result.log = readFile(logPath);
  if (WIFSIGNALED(status)) // ptxas itself crashes on some PTX: still tilec's finding
    result.log += "\n" + tool + " died of signal " + std::to_string(WTERMSIG(status)) + "\n";
  unlink(inPath.c_str());
  unlink(logPath.c_str());
  return result;
}

std::string toolPath(const char *envName, const char *builtIn) {
  const char *env = std::getenv(envName);
  return env && *env ? env : builtIn;
}
} // namespace

ToolResult runPtxas(const std::string &ptx, const std::string &arch) {
  return runTool(toolPath("TILEC_PTXAS", TILEC_PTXAS_PATH), {"-arch=" + arch, "-o", "/dev/null"},
                 ptx, ".ptx");
}

ToolResult runTileOptRoundTrip(const std::string &mlir) {
  return runTool(toolPath("TILEC_TILE_OPT", TILEC_TILE_OPT_PATH),
                 {"--verify-roundtrip", "-o", "/dev/null"}, mlir, ".mlir");
}

namespace {
/// Parses a diagnostic's first line "[FILE:][LINE:COL:] KIND: MSG" (no regex:
/// libstdc++'s recurses per character and overflows on long source lines).
bool parseHeader(const std::string &line, std::string &file, long &lineNo, long &col,
                 std::string &kind) {
  for (const char *k : {"error: ", "warning: ", "note: "}) {
    size_t at = line.find(k);
    if (at == std::string::npos || (at != 0 && line[at - 1] != ' '))
      continue;
    kind = std::string(k, std::strlen(k) - 2);
    std::string where = at ? line.substr(0, at - 1) : "";
    if (where.find_first_of(" \t") != std::string::npos)
      continue; // a source line that happens to contain "error: "
    file.clear();
    lineNo = col = 0;
    if (where.empty())
      return true;
    if (where.back() != ':')
      continue;
    where.pop_back();
    // FILE:LINE:COL or FILE: the last two fields are numbers when present.
    size_t c2 = where.rfind(':');
    size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : where.rfind(':', c2 - 1);
    auto isNumber = [](const std::string &t) {
      return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
    };
    if (c1 != std::string::npos && isNumber(where.substr(c1 + 1, c2 - c1 - 1)) &&
        isNumber(where.substr(c2 + 1))) {
      file = where.substr(0, c1);
      lineNo = std::atol(where.substr(c1 + 1, c2 - c1 - 1).c_str());
      col = std::atol(where.substr(c2 + 1).c_str());
    } else {
      file = where;
    }
    return true;
  }
  return false;
}
} // namespace

std::string diagnosticRuleBroken(const std::string &diagnostics, const std::string &fileName,
                                 std::string *offending) {
  // Each diagnostic is its header, then (when it has a location) the source
  // line and the caret line, then an optional "hint: " line. Reading it in
  // that order matters: the source line may itself look like a header.
  std::istringstream in(diagnostics);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::string file, kind;
  long lineNo = 0, col = 0;
  bool anyError = false;
  for (size_t i = 0; i < lines.size();) {
    if (!parseHeader(lines[i], file, lineNo, col, kind)) {
      ++i; // continuation of a multi-line message
      continue;
    }
    bool error = kind == "error";
    anyError |= error;
    if (offending)
      *offending = lines[i];
    ++i;
    if (error && (file != fileName || lineNo <= 0 || col <= 0))
      return "diagnostic-without-location";
    if (lineNo > 0) {
      size_t caretLine = i + 1;
      bool caret = caretLine < lines.size() &&
                   lines[caretLine].find_first_not_of(" \t") != std::string::npos &&
                   lines[caretLine][lines[caretLine].find_first_not_of(" \t")] == '^';
      if (!caret) {
        if (error)
          return "diagnostic-without-caret";
      } else {
        i = caretLine + 1;
      }
    }
    bool hint = i < lines.size() && lines[i].rfind("hint: ", 0) == 0 && lines[i].size() > 6;
    if (hint)
      ++i;
    else if (error)
      return "diagnostic-without-hint";
  }
  if (offending)
    *offending = diagnostics.substr(0, diagnostics.find('\n'));
  return anyError ? "" : "error-without-diagnostic";
}

} // namespace tile::fuzz
