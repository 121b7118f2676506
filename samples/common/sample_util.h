// Helpers the samples' host programs, benchmarks and GPU tests share: reading
// a PTX file, the cluster size it was compiled for, where the PTX lives.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sample {

inline std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The static cluster size a PTX kernel was compiled for (.reqnctapercluster
// X, Y, Z -> X*Y*Z), 0 when the PTX does not fix one.
inline int ptxClusterSize(const std::string& ptx) {
  size_t p = ptx.find(".reqnctapercluster");
  if (p == std::string::npos) return 0;
  p += sizeof(".reqnctapercluster") - 1;
  int prod = 1, dims = 0;
  while (dims < 3) {
    while (p < ptx.size() && (ptx[p] == ' ' || ptx[p] == '\t' || ptx[p] == ',')) ++p;
    if (p >= ptx.size() || ptx[p] < '0' || ptx[p] > '9') break;
    prod *= std::atoi(ptx.c_str() + p);
    ++dims;
    while (p < ptx.size() && ptx[p] >= '0' && ptx[p] <= '9') ++p;
  }
  return dims ? prod : 0;
}

// Where the samples' PTX is: $TILEC_PTX_DIR, else the build's TILEC_SAMPLE_PTX_DIR.
inline std::string ptxDir() {
  if (const char* e = std::getenv("TILEC_PTX_DIR"))
    if (*e) return e;
#ifdef TILEC_SAMPLE_PTX_DIR
  return TILEC_SAMPLE_PTX_DIR;
#else
  return ".";
#endif
}

}  // namespace sample
