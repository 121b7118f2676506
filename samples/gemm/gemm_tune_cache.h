// samples/gemm: the text cache of --tune's winners (one line per shape,
// read by --check / --bench with --tune-cache) and the choice for a shape:
// the cache's winner, else the rule table (gemm_choice.h).
#pragma once

#include "gemm_choice.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gemm {

// ---------------------------------------------------------------- tune cache
// One line per tuned shape:
//   f16 k 128x4096x4096 splitk 128 1 4 6 0 12.41
//   dtype bmajor MxNxK variant BN cluster splits stages MT median_us
// (MT: the skinny kernel's tile rows, 0 for the others; a line without it,
// the older form, reads as MT 0; the skinny kernel's two-dimensional
// cluster is written CLxCY, e.g. 2x4).
// '#' starts a comment. Written by --tune, read by --check / --bench
// (--tune-cache FILE); a cache belongs to the device it was measured on.
inline std::string cacheKey(const Problem &p) {
  return std::string(dtypeName(p.dtype)) + " " + bmajorName(p.bmajor) + " " + p.shape();
}
struct CacheEntry {
  Choice choice;
  double us = 0;
};
inline std::string clusterField(const Choice &c) {
  if (c.dsm) // gemm_skinny_dsm: kKS or kKSxCY
    return "k" + std::to_string(c.splits) + (c.clusterY > 1 ? "x" + std::to_string(c.clusterY) : "");
  return std::to_string(c.cluster) + (c.clusterY > 1 ? "x" + std::to_string(c.clusterY) : "");
}
inline std::string cacheLine(const Problem &p, const CacheEntry &e) {
  char us[32];
  std::snprintf(us, sizeof us, "%.2f", e.us);
  return cacheKey(p) + " " + variantName(e.choice.variant) + " " + std::to_string(e.choice.bn) +
         " " + clusterField(e.choice) + " " + std::to_string(e.choice.splits) + " " +
         std::to_string(e.choice.stages) + " " + std::to_string(e.choice.mt) + " " + us;
}
// Parses one line; false for a comment, a blank line or a malformed one
// (`error` says what was wrong with a malformed line).
inline bool parseCacheLine(const std::string &line, std::string &key, CacheEntry &e,
                           std::string &error) {
  error.clear();
  const size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos || line[first] == '#')
    return false;
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string w; in >> w;)
    f.push_back(w);
  const char *expected = "expected 'dtype bmajor MxNxK variant BN cluster splits stages MT us'";
  if (f.size() != 9 && f.size() != 10) {
    error = expected;
    return false;
  }
  const std::string &dtype = f[0], &bmajor = f[1], &shape = f[2], &variant = f[3];
  long long bn = 0, cluster = 0, clusterY = 1, splits = 0, stages = 0, mt = 0;
  double us = 0;
  auto integer = [](const std::string &w, long long &v) {
    char *end = nullptr;
    v = std::strtoll(w.c_str(), &end, 10);
    return !w.empty() && *end == 0;
  };
  char *usEnd = nullptr;
  us = std::strtod(f.back().c_str(), &usEnd);
  std::string clusterWord = f[5];
  long long ks = 0; // gemm_skinny_dsm: the cluster word kKS[xCY]
  if (!clusterWord.empty() && clusterWord[0] == 'k') {
    const size_t x = clusterWord.find('x');
    if (variant != "skinny" ||
        !integer(clusterWord.substr(1, x == std::string::npos ? std::string::npos : x - 1), ks) ||
        ks < 2) {
      error = "a cluster kKS[xCY] is the skinny kernel's K splits in one cluster, KS >= 2";
      return false;
    }
    clusterWord = "1" + (x == std::string::npos ? std::string() : clusterWord.substr(x));
  }
  if (const size_t x = clusterWord.find('x'); x != std::string::npos) {
    if (!integer(clusterWord.substr(x + 1), clusterY) || variant != "skinny" ||
        (clusterY != 2 && clusterY != 4)) {
      error = "a cluster CLxCY (2-D) is the skinny kernel's, CY 2 or 4";
      return false;
    }
    clusterWord.resize(x);
  }
  if (!integer(f[4], bn) || !integer(clusterWord, cluster) || !integer(f[6], splits) ||
      !integer(f[7], stages) || (f.size() == 10 && !integer(f[8], mt)) || *usEnd != 0) {
    error = expected;
    return false;
  }
  if ((dtype != "f16" && dtype != "bf16") || (bmajor != "k" && bmajor != "mn") ||
      (variant != "persistent" && variant != "splitk" && variant != "skinny") ||
      (bn != 64 && bn != 128 && bn != 192 && bn != 200 && bn != 224 && bn != 256) ||
      (cluster != 1 && cluster != 2 && cluster != 4) || splits < 1 || splits > 8) {
    error = "a value out of range (dtype f16|bf16, bmajor k|mn, variant "
            "persistent|splitk|skinny, BN 64|128|192|200|224|256, cluster 1|2|4, splits 1..8)";
    return false;
  }
  if ((bn == 200) != (cluster == 4) || (bn == 200 && (variant != "persistent" || bmajor != "k"))) {
    error = "BN 200 is the persistent kernel's in clusters of four (cluster 4), with B K-major";
    return false;
  }
  if ((bn == 192 || bn == 224) && (variant != "persistent" || bmajor != "k")) {
    error = "BN 192 and 224 are the persistent kernel's with B K-major (gemm only)";
    return false;
  }
  if (variant == "skinny") {
    if (!skinnyInstance(mt, int(stages), bn, int(cluster), int(clusterY), int(ks)) ||
        bmajor != "k" || (ks && splits != ks)) {
      error = "the skinny kernel takes B K-major and a compiled (MT, stages, BN, cluster) "
              "instance";
      return false;
    }
  } else if (mt != 0 && !(variant == "persistent" && mt == kTileM64 && m64Compiled(bn) &&
                          bmajor == "k")) {
    error = "MT is the skinny kernel's, or 64 for the persistent kernel's 64-row tiles (BN 128 "
            "or 256, B K-major); 0 for the others";
    return false;
  }
  if (variant == "splitk" &&
      !splitKInstance(bn, int(stages), bmajor == "k" ? BMajor::K : BMajor::MN)) {
    error = "split-K runs at BN 128 with 6 stages, or (B K-major) at BN 64 with 8 stages or "
            "4 (two CTAs per SM)";
    return false;
  }
  if (bn == 64 && variant == "persistent") {
    error = "BN 64 is split-K's and the skinny kernel's";
    return false;
  }
  if (variant == "persistent" &&
      (splits != 1 ||
       stages != persistentStages(bn, bmajor == "k" ? BMajor::K : BMajor::MN,
                                  mt ? mt : kTileM))) {
    error = "the persistent kernel has 1 split and the stages of its BN (K-major B: 4 at BN 256 "
            "and 224, 5 at 192, 6 at 128, 9 with 64-row tiles; MN-major: 4)";
    return false;
  }
  key = dtype + " " + bmajor + " " + shape;
  e.choice.variant = variant == "splitk"   ? Variant::SplitK
                     : variant == "skinny" ? Variant::Skinny
                                           : Variant::Persistent;
  e.choice.mt = mt;
  e.choice.bn = bn;
  e.choice.cluster = int(cluster);
  e.choice.clusterY = int(clusterY);
  e.choice.dsm = ks > 0;
  e.choice.splits = int(splits);
  e.choice.stages = int(stages);
  e.us = us;
  return true;
}

struct TuneCache {
  std::map<std::string, CacheEntry> entries;
  std::vector<std::string> problems; // "FILE:LINE: why" for lines that were skipped

  void load(const std::string &path) {
    std::ifstream f(path);
    std::string line, key, error;
    int n = 0;
    while (std::getline(f, line)) {
      ++n;
      CacheEntry e;
      if (parseCacheLine(line, key, e, error))
        entries[key] = e;
      else if (!error.empty())
        problems.push_back(path + ":" + std::to_string(n) + ": " + error);
    }
  }
  bool save(const std::string &path) const {
    std::ofstream f(path);
    f << "# gemm --tune cache: dtype bmajor MxNxK variant BN cluster splits stages MT "
         "median_us\n";
    for (const auto &[key, e] : entries) {
      // key is "dtype bmajor shape": rebuild the line from it.
      char us[32];
      std::snprintf(us, sizeof us, "%.2f", e.us);
      f << key << " " << variantName(e.choice.variant) << " " << e.choice.bn << " "
        << clusterField(e.choice) << " " << e.choice.splits << " " << e.choice.stages << " "
        << e.choice.mt << " " << us << "\n";
    }
    return bool(f);
  }
  const CacheEntry *find(const Problem &p) const {
    auto it = entries.find(cacheKey(p));
    return it == entries.end() ? nullptr : &it->second;
  }
};

// The choice for a shape: the cache's winner when it has one, else the rule.
inline Choice chooseFor(const Problem &p, int sms, const TuneCache *cache) {
  if (cache)
    if (const CacheEntry *e = cache->find(p)) {
      Choice c = e->choice;
      char us[32];
      std::snprintf(us, sizeof us, "%.2f", e->us);
      c.why = std::string("tuned (cache: ") + us + " us)";
      return c;
    }
  return ruleChoice(p, sms);
}

} // namespace gemm
