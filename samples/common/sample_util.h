// Helpers the samples' host programs, benchmarks and GPU tests share: reading
// a file, the cluster size a kernel was compiled for (from its kernel info,
// which tilec writes beside the PTX), where the PTX lives.
#pragma once

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <tile/kernel_info.h>

namespace sample {

inline std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The static cluster size a kernel was compiled for (its kernel info's fixed
// cluster, X*Y*Z), 0 when the launch chooses it.
inline int fixedClusterSize(const tile::KernelInfo &info) {
  if (info.cluster != tile::KernelInfo::Cluster::Fixed)
    return 0;
  return static_cast<int>(info.clusterDims[0] * info.clusterDims[1] * info.clusterDims[2]);
}

// Where the samples' PTX is: $TILEC_PTX_DIR, else the build's TILEC_SAMPLE_PTX_DIR.
inline std::string ptxDir() {
  if (const char *e = std::getenv("TILEC_PTX_DIR"))
    if (*e)
      return e;
#ifdef TILEC_SAMPLE_PTX_DIR
  return TILEC_SAMPLE_PTX_DIR;
#else
  return ".";
#endif
}

/// A host program's command line of `--flag value` / `--flag=value`
/// arguments. `usage` reports a mistake (and exits). A flag given twice with
/// different values is such a mistake (as in tilec: the last one is not
/// taken silently), except the `repeatable` ones, whose values add up
/// (`--shapes 64x64x64 --shapes 128x128x128`).
class ArgReader {
public:
  using Usage = void (*)(const char *);
  ArgReader(int argc, char **argv, Usage usage, std::vector<std::string> repeatable = {})
      : argc_(argc), argv_(argv), usage_(usage), repeatable_(std::move(repeatable)) {}

  /// Moves to the next argument; false at the end. flag() is then its name.
  bool next() {
    if (++i_ >= argc_)
      return false;
    flag_ = argv_[i_];
    size_t eq = flag_.find('=');
    inline_ = flag_.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_) {
      value_ = flag_.substr(eq + 1);
      flag_ = flag_.substr(0, eq);
    }
    return true;
  }
  const std::string &flag() const { return flag_; }
  /// The flag's value: after `=`, or the next argument.
  std::string value() {
    if (!inline_ && i_ + 1 >= argc_)
      usage_(("missing value for " + flag_).c_str());
    std::string v = inline_ ? value_ : argv_[++i_];
    std::string spelled = inline_ ? flag_ + "=" + v : flag_ + " " + v;
    bool repeatable = std::find(repeatable_.begin(), repeatable_.end(), flag_) != repeatable_.end();
    for (const auto &[flag, first] : given_)
      if (flag == flag_ && first.second != v && !repeatable)
        usage_(("'" + first.first + "' and '" + spelled + "' give " + flag_ +
                " two values; give it once")
                   .c_str());
    given_.push_back({flag_, {spelled, v}});
    return v;
  }
  /// value() as an integer (decimal, 0x hex or 0 octal).
  long long intValue() {
    std::string v = value();
    char *end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 0);
    if (v.empty() || *end)
      usage_(("bad value for " + flag_ + ": '" + v + "'").c_str());
    return x;
  }
  /// intValue() in [lo, hi], else the usage message "FLAG must be in lo..hi".
  long long intIn(long long lo, long long hi) {
    long long x = intValue();
    if (x < lo || x > hi)
      usage_((flag_ + " must be in " + std::to_string(lo) + ".." + std::to_string(hi)).c_str());
    return x;
  }
  /// value() split at commas, empty items dropped ("f16,bf16").
  std::vector<std::string> listValue() {
    std::vector<std::string> items;
    std::string v = value();
    for (size_t from = 0; from <= v.size();) {
      size_t comma = std::min(v.find(',', from), v.size());
      if (comma > from)
        items.push_back(v.substr(from, comma - from));
      from = comma + 1;
    }
    return items;
  }
  /// listValue() of integers, each in [lo, hi] ("1,2,4,8").
  std::vector<long long> intListIn(long long lo, long long hi) {
    std::vector<long long> out;
    for (const std::string &item : listValue()) {
      char *end = nullptr;
      long long x = std::strtoll(item.c_str(), &end, 0);
      if (*end)
        usage_(("bad value for " + flag_ + ": '" + item + "'").c_str());
      if (x < lo || x > hi)
        usage_((flag_ + " values must be in " + std::to_string(lo) + ".." + std::to_string(hi))
                   .c_str());
      out.push_back(x);
    }
    return out;
  }
  /// listValue() of `AxBxC` shapes, each extent in 1..65536 ("1024x4096x4096");
  /// `form` names the three extents in the usage message ("MxNxK").
  std::vector<std::array<long long, 3>> shapeList(const char *form) {
    std::vector<std::array<long long, 3>> out;
    for (const std::string &item : listValue()) {
      std::array<long long, 3> e{};
      char tail = 0;
      if (std::sscanf(item.c_str(), "%lldx%lldx%lld%c", &e[0], &e[1], &e[2], &tail) != 3 ||
          *std::min_element(e.begin(), e.end()) < 1 || *std::max_element(e.begin(), e.end()) > 65536)
        usage_(("bad shape '" + item + "' (" + form + ", each 1..65536)").c_str());
      out.push_back(e);
    }
    return out;
  }
  /// Ends the program with the usage message (a bad value found by the caller).
  void fail(const std::string &msg) { usage_(msg.c_str()); }

private:
  int argc_;
  char **argv_;
  Usage usage_;
  std::vector<std::string> repeatable_;
  /// Each flag's values so far: (flag, (as written, value)).
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> given_;
  int i_ = 0;
  std::string flag_, value_;
  bool inline_ = false;
};

} // namespace sample
