//===- choice.cpp - the samples' instance choice, for tilec.ops ------------===//
//
// tilec.ops (python/tilec/ops.py) runs the attention and GEMM samples'
// kernels on torch tensors and picks the instance of each call the way the
// samples' C++ hosts do. The rule tables live once, in the hosts' headers
// (samples/attention/attention_common.h: attn::persistentKernel,
// consumerWarpgroups, keysPerStage, ctaOrder; samples/gemm/gemm_choice.h:
// gemm::ruleChoice; samples/gemm/fp8.h and fp8_small.h: the per-tensor fp8
// kernel and smallChoice); this file compiles them into the extension and
// returns each choice as a plan: the source, the kernel and its compile-time
// arguments, the PTX file the sample's build writes, the grid (or, for a
// persistent kernel, its work units: the grid then depends on the occupancy,
// which Python asks the kernel) and the workspace. No device is touched.
//===----------------------------------------------------------------------===//
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "../../samples/attention/attention_common.h"
#include "../../samples/gemm/fp8.h"
#include "../../samples/gemm/fp8_small.h"
#include "../../samples/gemm/gemm_choice.h"

#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace tilec_py {
namespace {

using Args = std::vector<std::pair<std::string, int64_t>>;

py::dict plan(const std::string &source, const std::string &ptx, const std::string &kernel,
              const std::string &type, const Args &args) {
  py::dict d;
  d["source"] = source;
  d["ptx"] = ptx;
  d["kernel"] = kernel;
  d["T"] = type;
  py::list names;
  std::string define = kernel + "<" + type;
  for (const auto &[name, value] : args) {
    names.append(py::make_tuple(name, value));
    define += ", " + (name == "CAUSAL" ? std::string(value ? "true" : "false")
                                       : std::to_string(value));
  }
  d["args"] = names;
  d["define"] = define + ">"; // tilec -D 'kernel<T, ...>': this instance alone
  d["cluster_option"] = py::none();
  d["persistent_units"] = 0;
  d["rows"] = 0;
  d["grid"] = py::make_tuple(1, 1, 1);
  d["workspace_floats"] = 0;
  d["flags"] = 0;
  d["splits"] = py::none();
  return d;
}

py::tuple grid3(int64_t x, int64_t y = 1, int64_t z = 1) { return py::make_tuple(x, y, z); }

// attention: the instance and grid attention_common.h's host runs (main.cpp).
py::dict attentionPlan(const std::string &dtype, int64_t dim, bool causal, int64_t seqQ,
                       int64_t heads, int64_t batch, int sms) {
  const bool persistent = attn::persistentKernel(dim, causal, seqQ);
  const int64_t wgs = attn::consumerWarpgroups(dim, causal, seqQ);
  const int64_t blockM = 64 * wgs, blocks = (seqQ + blockM - 1) / blockM;
  const std::string ptx = "attention_" + dtype + ".ptx";
  py::dict d;
  if (persistent) {
    d = plan("samples/attention/attention.tile", ptx, "attention_persistent", dtype,
             {{"D", dim}, {"CAUSAL", causal}, {"WGS", wgs}});
    d["grid"] = grid3(std::min<int64_t>(blocks * heads * batch, sms));
  } else {
    d = plan("samples/attention/attention.tile", ptx, "attention", dtype,
             {{"D", dim},
              {"CAUSAL", causal},
              {"WGS", wgs},
              {"KB", attn::keysPerStage(dim, causal)},
              {"ORD", attn::ctaOrder(dim, causal, wgs, seqQ)}});
    d["grid"] = grid3(blocks, heads, batch);
  }
  d["persistent"] = persistent;
  d["block_m"] = blockM;
  d["threads"] = 128 * (wgs + 1);
  return d;
}

// f16 / bf16 GEMM: gemm::ruleChoice (gemm_choice.h), as `gemm --check` and
// `--bench` run a shape that the tune cache does not hold.
// `activation`: the epilogue's ACT (gemm.tile: 0 none, 1 relu, 2 gelu, 3
// gelu_tanh, 4 silu), the last compile-time parameter of every GEMM kernel.
py::dict gemmPlan(const std::string &dtype, int64_t m, int64_t n, int64_t k, bool bKMajor,
                  int sms, int64_t activation) {
  using namespace gemm;
  Problem p{m, n, k, dtype == "bf16" ? DType::BF16 : DType::F16,
            bKMajor ? BMajor::K : BMajor::MN};
  const Choice c = ruleChoice(p, sms);
  const bool skinny = c.variant == Variant::Skinny;
  const std::string ptx = skinny ? skinnyPtxName(p.dtype)
                                 : ptxName(p.dtype, usesMulticastPtx(c), ptxCluster(c));
  Args args = instanceArgs(c, p.bmajor);
  args.emplace_back("ACT", activation);
  py::dict d = plan(skinny ? "samples/gemm/gemm_skinny.tile" : "samples/gemm/gemm.tile", ptx,
                    kernelName(c, p.bmajor), dtype, args);
  // The PTX's cluster: gemm.tile as written (2), --cluster=1 (_nomc), 4 (_mc4).
  if (!skinny && !usesMulticastPtx(c))
    d["cluster_option"] = 1;
  else if (!skinny && ptxCluster(c) == 4)
    d["cluster_option"] = 4;
  d["variant"] = variantName(c.variant);
  d["why"] = c.why;
  d["describe"] = describe(c);
  d["splits"] = c.splits;
  if (c.variant == Variant::Persistent) {
    d["rows"] = persistentRows(c);
    d["persistent_units"] = persistentUnits(p, c.bn, c.cluster, persistentRows(c));
    return d;
  }
  int64_t tiles = 0;
  if (c.variant == Variant::SplitK) { // launchSplitK
    const int64_t cl = std::max(1, c.cluster);
    tiles = ceilDiv(m, kTileM) * ceilDiv(ceilDiv(n, c.bn), cl) * cl;
    d["grid"] = grid3(tiles, c.splits);
    d["workspace_floats"] = c.splits > 1 ? int64_t(c.splits) * tiles * kTileM * c.bn : 1;
  } else if (c.dsm) { // launchSkinny, gemm_skinny_dsm
    const int64_t cy = std::max(1, c.clusterY);
    d["grid"] = grid3(ceilDiv(m, c.mt) * c.splits, ceilDiv(n, c.bn * cy) * cy);
    d["workspace_floats"] = 1;
    tiles = 1;
  } else { // launchSkinny
    const int64_t cl = std::max(1, c.cluster), cy = std::max(1, c.clusterY);
    const int64_t rows = ceilDiv(m, c.mt * cl) * cl, cols = ceilDiv(n, c.bn * cy) * cy;
    tiles = rows * cols;
    d["grid"] = cy > 1 ? grid3(rows, cols, c.splits) : grid3(tiles, c.splits);
    d["workspace_floats"] = c.splits > 1 ? int64_t(c.splits) * tiles * c.mt * c.bn : 1;
  }
  d["flags"] = tiles;
  return d;
}

// Per-tensor (or per-row/column) fp8 with bf16 C: fp8_small.h's smallChoice
// at M <= 256, else the persistent kernel at BN 256 (fp8.h tensorKernel;
// `gemm --fp8`'s default BN); per row/column gemm_fp8_rowcol at BN 256.
py::dict fp8Plan(const std::string &format, int64_t m, int64_t n, int64_t k, bool rowcol,
                 int sms) {
  using namespace gemm::fp8;
  // The persistent kernels and the small-M ones are separate modules.
  const std::string src = "samples/gemm/gemm_fp8.tile", ptx = "gemm_fp8.ptx";
  const std::string smallSrc = "samples/gemm/gemm_fp8_small.tile", smallPtx = "gemm_fp8_small.ptx";
  auto persistent = [&](const std::string &kernel, int64_t bn, const std::string &why) {
    py::dict d = plan(src, ptx, kernel, format, {{"BN", bn}});
    d["variant"] = "persistent";
    d["rows"] = 128;
    d["persistent_units"] = ((m + 255) / 256) * ((n + bn - 1) / bn);
    d["why"] = why;
    d["describe"] = kernel + " BN " + std::to_string(bn) + ", cluster 2";
    return d;
  };
  if (rowcol)
    return persistent("gemm_fp8_rowcol", 256, "per-row/column scales: gemm_fp8_rowcol");
  const SmallChoice c = smallChoice(m, n, k, sms);
  if (c.instance.mt) {
    const SmallInstance &i = c.instance;
    py::dict d = plan(smallSrc, smallPtx, "gemm_fp8_skinny_dsm", format,
                      {{"MT", i.mt}, {"S", i.stages}, {"BW", i.bw}, {"KS", i.ks}, {"CY", i.cy},
                       {"CL", i.cl}});
    d["grid"] = grid3(i.ks, smallColTiles(n, i), smallRowTiles(m, i));
    d["variant"] = "skinny";
    d["why"] = c.why;
    d["describe"] = describe(c);
    return d;
  }
  if (c.tile.tn) {
    const TileInstance &i = c.tile;
    py::dict d = i.ks == 1 ? plan(smallSrc, smallPtx, "gemm_fp8_tile", format,
                                  {{"TN", i.tn}, {"S", i.stages}, {"CN", i.cn}, {"CM", i.cm}})
                           : plan(smallSrc, smallPtx, "gemm_fp8_tile_k2", format,
                                  {{"TN", i.tn}, {"S", i.stages}});
    d["grid"] = i.ks == 1 ? grid3(tileColTiles(n, i), tileRowTiles(m, i))
                          : grid3(i.ks, tileColTiles(n, i), tileRowTiles(m, i));
    d["variant"] = "tile";
    d["why"] = c.why;
    d["describe"] = describe(c);
    return d;
  }
  const int64_t bn = c.persistentBn ? c.persistentBn : 256;
  return persistent(tensorKernel(bn), bn,
                    c.persistentBn ? c.why : "M > 256: the persistent kernel at BN 256");
}

} // namespace

void bindChoices(py::module_ &m) {
  m.def("_attention_plan", &attentionPlan, py::arg("dtype"), py::arg("dim"), py::arg("causal"),
        py::arg("seq_q"), py::arg("heads"), py::arg("batch"), py::arg("sms"));
  // The attention rule's parts, for samples/attention/bench.py's forced instances.
  m.def("_attention_rule", [](int64_t dim, bool causal, int64_t seqQ, int64_t wgs) {
    py::dict d;
    d["wgs"] = attn::consumerWarpgroups(dim, causal, seqQ);
    d["persistent"] = attn::persistentKernel(dim, causal, seqQ);
    d["keys_per_stage"] = attn::keysPerStage(dim, causal);
    d["cta_order"] =
        attn::ctaOrder(dim, causal, wgs ? wgs : attn::consumerWarpgroups(dim, causal, seqQ), seqQ);
    return d;
  }, py::arg("dim"), py::arg("causal"), py::arg("seq_q"), py::arg("wgs") = 0);
  m.def("_gemm_plan", &gemmPlan, py::arg("dtype"), py::arg("m"), py::arg("n"), py::arg("k"),
        py::arg("b_k_major"), py::arg("sms"), py::arg("activation") = 0);
  m.def("_fp8_plan", &fp8Plan, py::arg("format"), py::arg("m"), py::arg("n"), py::arg("k"),
        py::arg("rowcol"), py::arg("sms"));
  m.def("_gemm_alignment_problem", [](int64_t m, int64_t n, int64_t k, bool bKMajor) {
    gemm::Problem p{m, n, k, gemm::DType::F16, bKMajor ? gemm::BMajor::K : gemm::BMajor::MN};
    return gemm::alignmentProblem(p);
  });
}

} // namespace tilec_py
