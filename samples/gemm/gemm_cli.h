// samples/gemm: the host program's parts that its two drivers share, --check
// (main.cpp) and --bench (bench.cpp): the options, the choice for a shape
// with the command line's forced parts over it, the loaded kernels and their
// launches, --tune.
#pragma once

#include "gemm_choice.h"
#include "gemm_common.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gemm::cli {

struct Options {
  bool bench = false;
  bool referenceOnly = false; // --check of cuBLAS against float64 only
  Problem problem{512, 768, 320, DType::F16, BMajor::K};
  // Forced parts of the choice (unset: the cache's or the rule's).
  std::optional<Variant> variant;
  std::optional<bool> multicast;
  int64_t bn = 0;  // 0: not forced
  int splits = 0;  // 0: not forced
  int64_t mt = 0;  // the skinny kernel's tile rows; 0: not forced
  int stages = 0;  // split-K's instance (with --bn); 0: not forced
  int clusterY = 0; // the skinny kernel's column tiles per cluster sharing A (--cluster-y);
                    // 0: not forced
  bool dsm = false; // the skinny kernel's K splits in one cluster (gemm_skinny_dsm, --dsm)
  bool tune = false;
  std::string tuneCache; // "" : none (with --tune: gemm_tune.txt)
  uint64_t seed = 20261123;
  double cpuMacs = double(1ull << 31);
  int64_t clusters = 0;
  std::string ptx;
  int skipCode = 0;
  std::string probes; // --check: a probe build's stamps to this CSV (probes.h)
  // bench
  std::vector<Problem> shapes;
  std::vector<DType> dtypes{DType::F16, DType::BF16};
  std::vector<BMajor> bmajors{BMajor::K};
  int runs = 30, warmup = 10;
  std::string out, csv;
  bool forced() const { return variant || multicast || bn || splits || mt || stages || clusterY || dsm; }
};

[[noreturn]] void usage(const char *msg);
bool fileExists(const std::string &path);
// The PTX of the persistent / split-K kernels (gemm.tile) and of the skinny
// kernel (gemm_skinny.tile): --ptx's file (or its directory), else the PTX
// directory.
std::string ptxPath(const Options &o, DType d, bool multicast, int cluster = 2);
std::string skinnyPtxPath(const Options &o, DType d);
// The choice for `p`: forced parts from the options over the cache's
// winner or the rule's pick.
Choice choiceFor(const Options &o, const Problem &p, int sms, const gemm::TuneCache *cache);
std::string fmt(const char *f, double x);
CUdeviceptr upload(tile::DeviceBuffer<uint16_t> &buf, const std::vector<uint16_t> &host);

// ---------------------------------------------------------------- running a choice
// The loaded kernels (one load and JIT per PTX file, kernel and BN) and
// split-K's workspace, shared by every launch of one dtype and device.
struct Runner {
  tile::Context &ctx;
  const Options &o;
  std::map<std::string, gemm::TileKernel> loaded;
  std::optional<gemm::SplitKWorkspace> ws;

  Runner(tile::Context &c, const Options &opts) : ctx(c), o(opts) {}

  gemm::TileKernel &kernel(const Choice &c, DType d, BMajor b) {
    const std::string ptx = c.variant == Variant::Skinny ? skinnyPtxPath(o, d)
                                                         : ptxPath(o, d, gemm::usesMulticastPtx(c),
                                                                   gemm::ptxCluster(c));
    const std::string name = gemm::kernelName(c, b);
    std::string key = ptx + "\n" + name;
    for (const auto &[param, v] : gemm::instanceArgs(c, b))
      key += " " + param + "=" + std::to_string(v);
    auto it = loaded.find(key);
    if (it == loaded.end()) {
      if (!fileExists(ptx))
        throw std::runtime_error("not built (" + ptx + ")");
      tile::TemplateArgs args = gemm::instanceArgs(c, b);
      if (c.variant == Variant::Skinny) {
        it = loaded.emplace(key, gemm::loadTileInstance(ctx, ptx, name, args, c.bn)).first;
      } else {
        args.erase(args.begin()); // BN: loadTileKernel's own (it reads the cluster)
        it = loaded.emplace(key, gemm::loadTileKernel(ctx, ptx, name, c.bn, args)).first;
        if (c.variant == Variant::Persistent)
          it->second.bm = gemm::persistentRows(c); // gemm_m64: 64-row tiles
      }
    }
    return it->second;
  }

  // A launch of choice c on p's tensors (the persistent grid computed once).
  std::function<void()> launcher(const Choice &c, const Problem &p, const gemm::Tensors &ts,
                                 std::string *what = nullptr) {
    gemm::TileKernel &k = kernel(c, p.dtype, p.bmajor);
    if (c.variant == Variant::Skinny) {
      if (!ws)
        ws.emplace();
      if (what)
        *what = k.kernel.name() + ", grid " +
                std::to_string(gemm::skinnyTiles(p, c.mt, c.bn, c.cluster, c.clusterY)) + " x " +
                std::to_string(c.splits);
      const int splits = c.splits;
      const int64_t mt = c.mt;
      return [this, &k, p, ts, mt, splits] { gemm::launchSkinny(k, p, ts, *ws, mt, splits); };
    }
    if (c.variant == Variant::SplitK) {
      if (!ws)
        ws.emplace();
      if (what)
        *what = k.kernel.name() + ", grid " + std::to_string(gemm::outputTiles(p, c.bn)) + " x " +
                std::to_string(c.splits);
      const int splits = c.splits;
      return [this, &k, p, ts, splits] { gemm::launchSplitK(k, p, ts, *ws, splits); };
    }
    const int64_t clusters = gemm::persistentClusters(k, p, ts, o.clusters);
    if (what)
      *what = k.kernel.name() + ", cluster " + std::to_string(k.cluster) + ", " +
              std::to_string(clusters) + " clusters";
    return [&k, ts, clusters] { gemm::launchTile(k, ts, clusters); };
  }
};

// --tune: every candidate timed; the fastest, with its time (the rule's
// choice's time in *ruleUs).
gemm::CacheEntry tune(Runner &run, const Problem &p, const gemm::Tensors &ts, int sms,
                      double *ruleUs);
// --tune-cache's file, when it exists (bad lines warned about and skipped).
void loadCache(const Options &o, gemm::TuneCache &cache);

int runCheck(const Options &o);
int runBench(const Options &o); // bench.cpp

} // namespace gemm::cli
