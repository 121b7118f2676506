// The compiler/runtime contract, checked where it is made rather than at
// every load: for every sample and GPU-test kernel the build compiled
// (TILEC_SAMPLE_PTX_DIR, the sample_ptx target), the kernel info tilec derived
// from the final tile IR agrees with the PTX entry it generated from the same
// IR: the .param list (count, sizes, alignments), the block shape and launch
// bounds (.reqntid, .maxntid, .minnctapersm), the cluster directives
// (.reqnctapercluster, .explicitcluster) and the static shared memory (the
// entry's .shared variables, laid out in allocation order). The runtime's
// load-time comparison (Kernel.cpp, checkedInfo) is then a guard against
// files of different builds, not what keeps the two in step.
#include <catch2/catch.hpp>

#include "PtxFacts.h"
#include "tile/kernel_info.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The body of `.entry kernel` (between its braces), comments blanked.
std::string entryBody(const std::string &ptx, const std::string &kernel) {
  const std::string s = tile::detail::blankComments(ptx);
  std::string name; // '$' (template instances) is a regex character
  for (char c : kernel)
    name += std::string(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? "" : "\\") + c;
  std::smatch m;
  const std::regex entry("\\.entry\\s+" + name + "\\s*\\(");
  if (!std::regex_search(s, m, entry))
    return "";
  size_t open = s.find('{', static_cast<size_t>(m.position(0)));
  if (open == std::string::npos)
    return "";
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    depth += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
    if (depth == 0)
      return s.substr(open + 1, i - open - 1);
  }
  return "";
}

/// The static shared memory of an entry: its `.shared .align A .bN name[C]`
/// variables (tile$smem$<kernel>$<index>), laid out by index at their
/// alignments, as the kernel info's staticSharedBytes counts them.
size_t ptxStaticSharedBytes(const std::string &body) {
  const std::regex var(
      "\\.shared\\s+\\.align\\s+(\\d+)\\s+\\.[bsuf](\\d+)\\s+[^\\s\\[]*\\$(\\d+)\\[(\\d+)\\]");
  std::map<int, std::pair<size_t, size_t>> byIndex; // index -> (align, bytes)
  for (std::sregex_iterator it(body.begin(), body.end(), var), end; it != end; ++it) {
    const std::smatch &m = *it;
    byIndex[std::stoi(m[3])] = {std::stoul(m[1]), std::stoul(m[2]) / 8 * std::stoul(m[4])};
  }
  size_t bytes = 0;
  for (const auto &[index, v] : byIndex)
    bytes = (bytes + v.first - 1) / v.first * v.first + v.second;
  return bytes;
}

} // namespace

#ifdef TILEC_SAMPLE_PTX_DIR
TEST_CASE("contract: every compiled kernel's info agrees with its PTX entry", "[contract]") {
  namespace fs = std::filesystem;
  if (!fs::is_directory(TILEC_SAMPLE_PTX_DIR)) {
    WARN("no sample PTX (build the sample_ptx target): nothing checked");
    return;
  }
  int kernels = 0;
  for (const auto &file : fs::directory_iterator(TILEC_SAMPLE_PTX_DIR)) {
    const fs::path ptxPath = file.path();
    fs::path infoPath = ptxPath;
    infoPath.replace_extension(".info.json");
    if (ptxPath.extension() != ".ptx" || !fs::exists(infoPath))
      continue;
    const std::string ptx = readFile(ptxPath);
    const tile::ModuleInfo info = tile::moduleInfoFromJson(readFile(infoPath));
    CHECK(info.ptxHash == tile::ptxFingerprint(ptx));
    for (const tile::KernelInfo &k : info.kernels) {
      INFO(ptxPath.filename().string() << ": kernel " << k.name);
      const tile::detail::PtxEntryFacts f = tile::detail::ptxEntryFacts(ptx, k.name);
      REQUIRE(f.found);
      REQUIRE(f.paramsParsed);
      REQUIRE(f.params.size() == k.params.size());
      for (size_t i = 0; i < k.params.size(); ++i) {
        INFO("parameter " << i << " (" << k.params[i].name << ")");
        CHECK(f.params[i].size == k.params[i].size);
        CHECK(f.params[i].align == k.params[i].align);
      }
      CHECK(f.reqntid == k.threads);
      if (k.maxThreads)
        CHECK(f.maxntid == std::array<unsigned, 3>{*k.maxThreads, 1, 1});
      if (k.minBlocks)
        CHECK(f.minnctapersm == k.minBlocks);
      // Otherwise only a kernel with warp roles has launch bounds, those its
      // register reallocation needs (RoleToNVVM.cpp, setRoleLaunchBounds):
      // .maxntid unless it has .reqntid, .minnctapersm 1.
      if (!k.maxThreads && f.maxntid)
        CHECK_FALSE(f.reqntid);
      if (!k.minBlocks && f.minnctapersm)
        CHECK(*f.minnctapersm == 1u);
      const std::string body = entryBody(ptx, k.name);
      REQUIRE_FALSE(body.empty());
      switch (k.cluster) {
      case tile::KernelInfo::Cluster::None:
        CHECK_FALSE(f.reqnctapercluster);
        CHECK_FALSE(f.explicitCluster);
        break;
      case tile::KernelInfo::Cluster::Fixed:
        CHECK(f.reqnctapercluster == k.clusterDims);
        break;
      case tile::KernelInfo::Cluster::Launch:
        CHECK_FALSE(f.reqnctapercluster);
        CHECK(f.explicitCluster);
        break;
      }
      CHECK(ptxStaticSharedBytes(body) == k.staticSharedBytes);
      // Dynamic arrays live in the module's one extern .shared window.
      if (!k.dynamicShared.empty())
        CHECK(body.find("tile$dynamic_smem") != std::string::npos);
      ++kernels;
    }
  }
  CHECK(kernels > 0);
  WARN(kernels << " kernels' info checked against their PTX entries");
}
#endif
