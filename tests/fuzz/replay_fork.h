//===- replay_fork.h - run fuzz inputs in child processes -------*- C++ -*-===//
//
// One child per input (up to N at a time), each with a time limit; a child
// that crashes, hangs, trips a sanitizer or reports a harness finding is
// classified from its stderr and counted, and the run goes on.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FUZZ_REPLAY_FORK_H
#define TILEC_FUZZ_REPLAY_FORK_H

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tile::fuzz {

/// What a failed child's stderr says: the class ("ptxas-rejection",
/// "asan-heap-use-after-free", "ubsan", "timeout", "crash-SIGSEGV", ...) and
/// a deduplication key (the class plus the top stack frame or the message).
struct Classification {
  std::string kind, key;
};
Classification classifyFailure(const std::string &log, int waitStatus);

/// Greedily removes lines, then tokens, from `input` while `stillFails` (the
/// same finding) holds; returns the smallest input found.
std::string minimizeInput(const std::string &input,
                          const std::function<bool(const std::string &)> &stillFails);

class ForkRunner {
public:
  /// `run` returns true when the input was accepted (compiled to PTX).
  using RunFn = std::function<bool(const std::string &)>;

  ForkRunner(unsigned timeoutSeconds, unsigned jobs, std::string saveDir);
  void warmUp(const std::function<void()> &fn) { fn(); }
  void submit(const std::string &input, const RunFn &run);
  /// Accepted inputs since the last call, in submission order (call after
  /// finish() for a result that does not depend on --jobs).
  std::vector<std::string> takeAccepted();
  void finish();
  /// Runs one input synchronously in a child (not counted): its finding, or
  /// an empty kind when it was accepted or cleanly rejected.
  Classification runOnce(const std::string &input, const RunFn &run);
  /// Prints the counts and every distinct finding; true when none.
  bool printSummary(std::FILE *out) const;

private:
  struct Child {
    std::string input, logPath;
    unsigned long index;
  };
  struct Finding {
    Classification what;
    unsigned long count = 0;
    std::string input, log, savedAs;
  };
  void reapOne();
  pid_t spawn(const std::string &input, const RunFn &run, std::string &logPath);
  void record(const Child &child, int status);

  unsigned timeout_, jobs_;
  std::string saveDir_;
  std::map<pid_t, Child> running_;
  std::map<std::string, Finding> findings_;       // by key
  std::map<unsigned long, std::string> accepted_; // by submission index
  unsigned long submitted_ = 0;
  unsigned long runs_ = 0, acceptedCount_ = 0, rejected_ = 0, failed_ = 0;
};

} // namespace tile::fuzz

#endif
