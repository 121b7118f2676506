// Helpers the samples' host programs, benchmarks and GPU tests share: reading
// a file, the cluster size a kernel was compiled for (from its kernel info,
// which tilec writes beside the PTX), where the PTX lives.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

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

} // namespace sample
