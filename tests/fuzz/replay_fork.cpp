//===- replay_fork.cpp - run fuzz inputs in child processes ----------------===//
#include "replay_fork.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tile::fuzz {
namespace {
// A child's exit status: accepted (compiled, ptxas passed) or rejected with
// good diagnostics. Anything else is a finding.
constexpr int kExitAccepted = 0, kExitRejected = 3;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "signal" + std::to_string(sig);
  }
}

/// Digits and temporary paths vary between instances of one bug.
std::string normalize(std::string s) {
  if (s.size() > 300)
    s.resize(300); // before the regexes: libstdc++'s recurse per character
  s = std::regex_replace(s, std::regex(R"(/\S*/tilec-fuzz-\w+\.ptx)"), "X.ptx");
  s = std::regex_replace(s, std::regex(R"(\d+)"), "N");
  s = std::regex_replace(s, std::regex(R"(0xN\w*)"), "0xN");
  return s;
}

/// The first stack frame that is not the sanitizer, libc's abort or the
/// harness: where the bug is.
std::string topFrame(const std::string &log) {
  static const std::regex frame(R"(#\d+\s+0x[0-9a-fA-F]+\s+(?:in\s+)?(.+?)(?:\s+/|\s+\(|$))");
  static const char *const skip[] = {"__asan",
                                     "__ubsan",
                                     "__sanitizer",
                                     "__interceptor",
                                     "abort",
                                     "raise",
                                     "__GI_",
                                     "gsignal",
                                     "__libc",
                                     "__pthread",
                                     "tile::fuzz::reportFinding",
                                     "llvm::sys::",
                                     "SignalHandler",
                                     "__restore_rt",
                                     "pthread_kill",
                                     "___interceptor",
                                     "llvm::report_fatal_error",
                                     "llvm::llvm_unreachable_internal",
                                     "__assert",
                                     "std::__replacement_assert",
                                     "<unknown module>"};
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '#' || line.size() > 2000)
      continue;
    std::smatch m;
    if (!std::regex_search(line, m, frame))
      continue;
    std::string fn = m[1];
    bool skipped = fn.empty() || fn[0] == '(';
    for (const char *s : skip)
      skipped |= fn.find(s) != std::string::npos;
    if (!skipped)
      return fn.size() > 160 ? fn.substr(0, 160) : fn;
  }
  return "";
}

std::string lineAfter(const std::string &log, const std::string &marker) {
  size_t at = log.find(marker);
  if (at == std::string::npos)
    return "";
  size_t end = log.find('\n', at);
  return log.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

uint32_t fnv1a(const std::string &s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s)
    h = (h ^ c) * 16777619u;
  return h;
}
} // namespace

Classification classifyFailure(const std::string &log, int status) {
  Classification c;
  std::string finding = lineAfter(log, "tilec-fuzz: FINDING ");
  if (!finding.empty()) {
    std::string rest = finding.substr(std::strlen("tilec-fuzz: FINDING "));
    c.kind = rest.substr(0, rest.find(':'));
    bool detailed = c.kind == "ptxas-rejection" || c.kind == "emit-mismatch";
    if (!detailed) {
      c.key = c.kind + ": " + normalize(rest.substr(c.kind.size() + 2));
      return c;
    }
    // What makes instances distinct: ptxas's first error, or the first
    // offending diagnostic line.
    std::string detail;
    std::istringstream in(log.substr(log.find(finding) + finding.size()));
    std::string line;
    while (std::getline(in, line)) {
      bool ptxasError =
          c.kind == "ptxas-rejection" &&
          (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos ||
           line.find("died of signal") != std::string::npos);
      bool diagLine = c.kind != "ptxas-rejection" && !line.empty() && line.rfind("---", 0) != 0;
      if (ptxasError || diagLine) {
        detail = line;
        break;
      }
    }
    c.key = c.kind + ": " + normalize(detail);
    return c;
  }
  std::string frame = topFrame(log);
  std::string asan = lineAfter(log, "ERROR: AddressSanitizer: ");
  std::string ubsan = lineAfter(log, "runtime error: ");
  std::string llvm = lineAfter(log, "LLVM ERROR: ");
  if (!asan.empty()) {
    std::string what = asan.substr(std::strlen("ERROR: AddressSanitizer: "));
    c.kind = "asan-" + what.substr(0, what.find(' '));
  } else if (log.find("ERROR: LeakSanitizer") != std::string::npos) {
    c.kind = "leak";
  } else if (!ubsan.empty()) {
    c.kind = "ubsan";
    c.key = "ubsan: " + normalize(ubsan) + " @ " + frame;
    return c;
  } else if (!llvm.empty()) {
    c.kind = "llvm-fatal-error";
    c.key = c.kind + ": " + normalize(llvm);
    return c;
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    c.kind = "timeout";
  } else if (WIFSIGNALED(status)) {
    c.kind = "crash-" + signalName(WTERMSIG(status));
  } else {
    c.kind = "crash-exit-" + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  std::string lastLine;
  if (frame.empty()) {
    // No stack: the last line of the log says the most (an assertion, ...).
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty())
        lastLine = line;
  }
  c.key = c.kind + " @ " + (frame.empty() ? normalize(lastLine) : frame);
  return c;
}

ForkRunner::ForkRunner(unsigned timeoutSeconds, unsigned jobs, std::string saveDir)
    : timeout_(timeoutSeconds), jobs_(jobs), saveDir_(std::move(saveDir)) {
  if (!saveDir_.empty())
    mkdir(saveDir_.c_str(), 0755);
}

pid_t ForkRunner::spawn(const std::string &input, const RunFn &run, std::string &logPath) {
  const char *tmp = std::getenv("TMPDIR");
  logPath = std::string(tmp && *tmp ? tmp : "/tmp") + "/tilec-replay-XXXXXX";
  int fd = mkstemp(logPath.data());
  if (fd < 0) {
    std::perror("fuzz replay: mkstemp");
    std::exit(2);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("fuzz replay: fork");
    std::exit(2);
  }
  if (pid == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    alarm(timeout_);
    bool accepted = run(input);
    std::fflush(stdout);
    std::fflush(stderr);
    // _exit: no leak check or static destructors per child; the sanitizer
    // lit run (tools/scripts/sanitize.sh) covers leaks.
    _exit(accepted ? kExitAccepted : kExitRejected);
  }
  close(fd);
  return pid;
}

void ForkRunner::submit(const std::string &input, const RunFn &run) {
  while (running_.size() >= jobs_)
    reapOne();
  std::string logPath;
  pid_t pid = spawn(input, run, logPath);
  running_[pid] = {input, logPath, submitted_++};
}

Classification ForkRunner::runOnce(const std::string &input, const RunFn &run) {
  finish();
  std::string logPath;
  pid_t pid = spawn(input, run, logPath);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string log = readFile(logPath);
  unlink(logPath.c_str());
  bool sanitizerText =
      log.find("Sanitizer") != std::string::npos || log.find("runtime error:") != std::string::npos;
  if (WIFEXITED(status) && !sanitizerText &&
      (WEXITSTATUS(status) == kExitAccepted || WEXITSTATUS(status) == kExitRejected))
    return {};
  return classifyFailure(log, status);
}

namespace {
/// ddmin-style: remove chunks of `parts` (halving the chunk size) while the
/// joined result still fails.
std::vector<std::string> shrink(std::vector<std::string> parts, const std::string &separator,
                                const std::function<bool(const std::string &)> &stillFails) {
  auto join = [&](const std::vector<std::string> &p) {
    std::string s;
    for (const std::string &x : p)
      s += x + separator;
    return s;
  };
  for (size_t chunk = std::max<size_t>(1, parts.size() / 2);; chunk /= 2) {
    for (size_t i = 0; i < parts.size();) {
      std::vector<std::string> candidate(parts.begin(), parts.begin() + long(i));
      candidate.insert(candidate.end(), parts.begin() + long(std::min(parts.size(), i + chunk)),
                       parts.end());
      if (stillFails(join(candidate)))
        parts = std::move(candidate);
      else
        i += chunk;
    }
    if (chunk == 1)
      break;
  }
  return parts;
}
} // namespace

std::string minimizeInput(const std::string &input,
                          const std::function<bool(const std::string &)> &stillFails) {
  std::vector<std::string> lines;
  std::istringstream in(input);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  lines = shrink(lines, "\n", stillFails);
  std::string text;
  for (const std::string &l : lines)
    text += l + "\n";
  // Then the words of each line, keeping the line structure readable.
  auto joinAll = [](const std::vector<std::string> &ls) {
    std::string t;
    for (const std::string &l : ls)
      t += l + "\n";
    return t;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> words;
    std::istringstream ws(lines[i]);
    for (std::string w; ws >> w;)
      words.push_back(w);
    if (words.size() < 2)
      continue;
    words = shrink(words, " ", [&](const std::string &candidate) {
      std::vector<std::string> trial = lines;
      trial[i] = candidate;
      return stillFails(joinAll(trial));
    });
    std::string line;
    for (const std::string &w : words)
      line += (line.empty() ? "" : " ") + w;
    std::vector<std::string> trial = lines;
    trial[i] = line;
    if (stillFails(joinAll(trial)))
      lines = trial;
  }
  std::string out = joinAll(lines);
  return stillFails(out) ? out : text;
}

void ForkRunner::reapOne() {
  int status = 0;
  pid_t pid;
  do
    pid = waitpid(-1, &status, 0);
  while (pid < 0 && errno == EINTR);
  auto it = running_.find(pid);
  if (pid < 0 || it == running_.end())
    return;
  Child child = std::move(it->second);
  running_.erase(it);
  record(child, status);
  unlink(child.logPath.c_str());
}

void ForkRunner::record(const Child &child, int status) {
  ++runs_;
  std::string log = readFile(child.logPath);
  bool sanitizerText =
      log.find("Sanitizer") != std::string::npos || log.find("runtime error:") != std::string::npos;
  if (WIFEXITED(status) && !sanitizerText) {
    if (WEXITSTATUS(status) == kExitAccepted) {
      ++acceptedCount_;
      accepted_[child.index] = child.input;
      return;
    }
    if (WEXITSTATUS(status) == kExitRejected) {
      ++rejected_;
      return;
    }
  }
  ++failed_;
  Classification what = classifyFailure(log, status);
  Finding &f = findings_[what.key];
  ++f.count;
  if (f.count > 1 && f.input.size() <= child.input.size())
    return;
  f.what = what;
  f.input = child.input;
  f.log = log;
  if (saveDir_.empty())
    return;
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(what.key));
  f.savedAs = saveDir_ + "/" + what.kind + "-" + hash + ".tile";
  std::ofstream(f.savedAs, std::ios::binary) << child.input;
  std::ofstream(saveDir_ + "/" + what.kind + "-" + hash + ".log", std::ios::binary)
      << what.key << "\n\n"
      << log;
}

std::vector<std::string> ForkRunner::takeAccepted() {
  std::vector<std::string> out;
  for (auto &[index, input] : accepted_)
    out.push_back(std::move(input));
  accepted_.clear();
  return out;
}

void ForkRunner::finish() {
  while (!running_.empty())
    reapOne();
}

bool ForkRunner::printSummary(std::FILE *out) const {
  std::map<std::string, std::pair<unsigned long, unsigned long>> byKind; // runs, distinct
  for (const auto &[key, f] : findings_) {
    byKind[f.what.kind].first += f.count;
    ++byKind[f.what.kind].second;
  }
  auto countOf = [&](const std::string &prefix) {
    unsigned long n = 0;
    for (const auto &[kind, c] : byKind)
      if (kind.rfind(prefix, 0) == 0)
        n += c.first;
    return n;
  };
  unsigned long sanitizer = countOf("asan-") + countOf("ubsan") + countOf("leak");
  unsigned long crashes = countOf("crash-") + countOf("llvm-fatal-error");
  unsigned long diags = countOf("diagnostic-") + countOf("error-without-diagnostic");
  unsigned long miscompiles = countOf("undefined-behaviour") + countOf("symbol-clash");
  std::fprintf(out,
               "fuzz summary: %lu inputs run, %lu accepted (ptxas-checked), %lu rejected, "
               "%lu crashes, %lu sanitizer reports, %lu ptxas rejections, %lu timeouts, "
               "%lu diagnostic-rule breaks, %lu miscompiles (UB in IR, symbol clashes), %lu other; "
               "%zu distinct findings\n",
               runs_, acceptedCount_, rejected_, crashes, sanitizer, countOf("ptxas-rejection"),
               countOf("timeout"), diags, miscompiles,
               failed_ - crashes - sanitizer - countOf("ptxas-rejection") - countOf("timeout") -
                   diags - miscompiles,
               findings_.size());
  for (const auto &[kind, c] : byKind)
    std::fprintf(out, "  %-32s %6lu inputs, %4lu distinct\n", kind.c_str(), c.first, c.second);
  for (const auto &[key, f] : findings_) {
    std::fprintf(out, "\n=== %s (%lu inputs)%s%s\n", key.c_str(), f.count,
                 f.savedAs.empty() ? "" : "; smallest saved as ", f.savedAs.c_str());
    std::string input = f.input.size() > 1500 ? f.input.substr(0, 1500) + "\n[...]" : f.input;
    std::fprintf(out, "--- input ---\n%s\n", input.c_str());
    std::string log = f.log.size() > 3000 ? f.log.substr(0, 3000) + "\n[...]" : f.log;
    std::fprintf(out, "--- stderr ---\n%s\n", log.c_str());
  }
  return findings_.empty();
}

} // namespace tile::fuzz
