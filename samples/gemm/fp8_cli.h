// gemm --fp8's command line (fp8.cpp): its options, the usage message and
// the parser (the flags are listed in fp8.cpp's header comment).
#pragma once

#include "fp8.h"

#include "../common/sample_util.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gemm::fp8 {

struct Options {
  bool bench = false;
  int64_t m = 512, n = 768, k = 1024;
  Format format = Format::E4M3;
  std::vector<Scaling> scalings{Scaling::Tensor, Scaling::RowCol, Scaling::Block};
  bool outliers = false;
  uint64_t seed = 20261128;
  int64_t bn = 256;
  double cpuMacs = double(1ull << 31);
  int skipCode = 0;
  std::vector<std::array<int64_t, 3>> shapes;
  int runs = 30, warmup = 10;
  std::string out;
  // --alternate: rounds of every candidate in turn after heating the GPU;
  // more PTX directories whose kernels are timed beside the committed ones.
  bool alternate = false;
  bool small = false; // --small: the per-tensor kernels at small M (fp8_small.cpp)
  bool allSmall = false; // --check --all-small: every --small candidate too
  int rounds = 15;
  int heatMs = 2000;
  std::vector<std::string> variants;
  // --kernels: the .tile kernels timed from the committed PTX (the per-tensor
  // BN256 kernel, fp8.h tensorKernel(256), the reference of every x tensor
  // ratio, always; plain256: gemm_fp8 itself at BN 256; dfr256: gemm_fp8_dfr);
  // --variant-kernels: those timed from each variant directory (default: the same).
  std::vector<std::string> kernels{"tensor256", "block256", "skinny"};
  std::vector<std::string> variantKernels;
  int soakMs = 0; // --soak-ms: then each candidate alone (soak.h)
};

[[noreturn]] inline void usage(const char *msg) {
  std::fprintf(stderr,
               "gemm --fp8: %s\n"
               "usage: gemm --fp8 [--check] [--m M] [--n N] [--k K] [--format e4m3|e5m2]\n"
               "            [--scaling tensor|rowcol|block|all] [--outliers] [--seed S]\n"
               "            [--bn 256|128] [--cpu-macs X] [--skip-code C] [--all-small]\n"
               "       gemm --fp8 --bench [--shapes MxNxK,...] [--runs R] [--warmup W] "
               "[--out FILE.md]\n"
               "       gemm --fp8 --small [--shapes MxNxK,...] [--rounds R] [--runs N] "
               "[--heat-ms T] [--out FILE.md]\n"
               "       gemm --fp8 --alternate [--shapes MxNxK,...] [--rounds R] [--runs N] "
               "[--heat-ms T] [--variants DIR,...] [--soak-ms T] [--out FILE.md]\n"
               "            [--kernels K,...] [--variant-kernels K,...] (K: tensor256, tensor128, "
               "block256, block128, skinny, plain256, dfr256)\n",
               msg);
  std::exit(2);
}

inline Options parse(int argc, char **argv) {
  Options o;
  sample::ArgReader r(argc, argv, usage, {"--shapes"});
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--fp8" || f == "--check")
      continue;
    if (f == "--bench")
      o.bench = true;
    else if (f == "--alternate")
      o.alternate = true;
    else if (f == "--small")
      o.small = true;
    else if (f == "--all-small")
      o.allSmall = true;
    else if (f == "--rounds")
      o.rounds = int(r.intIn(1, 1000));
    else if (f == "--heat-ms")
      o.heatMs = int(r.intIn(0, 60000));
    else if (f == "--variants")
      o.variants = r.listValue();
    else if (f == "--kernels" || f == "--variant-kernels") {
      std::vector<std::string> ks = r.listValue();
      for (const std::string &k : ks)
        if (k != "tensor256" && k != "tensor128" && k != "block256" && k != "block128" &&
            k != "skinny" && k != "plain256" && k != "dfr256")
          usage(("unknown kernel '" + k +
                 "' (tensor256, tensor128, block256, block128, skinny, plain256, dfr256)")
                    .c_str());
      (f == "--kernels" ? o.kernels : o.variantKernels) = ks;
    } else if (f == "--soak-ms")
      o.soakMs = int(r.intIn(0, 60000));
    else if (f == "--m")
      o.m = r.intIn(1, 65536);
    else if (f == "--n")
      o.n = r.intIn(1, 65536);
    else if (f == "--k")
      o.k = r.intIn(1, 65536);
    else if (f == "--format") {
      const std::string v = r.value();
      if (v != "e4m3" && v != "e5m2")
        usage("--format is e4m3 or e5m2");
      o.format = v == "e4m3" ? Format::E4M3 : Format::E5M2;
    } else if (f == "--scaling") {
      const std::string v = r.value();
      if (v == "tensor")
        o.scalings = {Scaling::Tensor};
      else if (v == "rowcol")
        o.scalings = {Scaling::RowCol};
      else if (v == "block")
        o.scalings = {Scaling::Block};
      else if (v != "all")
        usage("--scaling is tensor, rowcol, block or all");
    } else if (f == "--outliers")
      o.outliers = true;
    else if (f == "--seed")
      o.seed = uint64_t(r.intValue());
    else if (f == "--bn") {
      o.bn = r.intValue();
      if (o.bn != 128 && o.bn != 256)
        usage("--bn is 128 or 256");
    } else if (f == "--cpu-macs")
      o.cpuMacs = double(r.intValue());
    else if (f == "--skip-code")
      o.skipCode = int(r.intValue());
    else if (f == "--shapes") {
      for (const auto &[m, n, k] : r.shapeList("MxNxK"))
        o.shapes.push_back({m, n, k});
    } else if (f == "--runs")
      o.runs = int(r.intValue());
    else if (f == "--warmup")
      o.warmup = int(r.intValue());
    else if (f == "--out")
      o.out = r.value();
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (o.variantKernels.empty())
    o.variantKernels = o.kernels;
  if (o.shapes.empty() && o.small)
    for (int64_t m : {1, 16, 64, 77, 128, 256})
      for (auto [n, k] : {std::array<int64_t, 2>{4096, 4096}, {14336, 4096}, {4096, 14336},
                          {8192, 8192}})
        o.shapes.push_back({m, n, k});
  if (o.shapes.empty() && o.alternate)
    o.shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};
  if (o.shapes.empty())
    o.shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 2048},
                {4096, 14336, 4096}, {4096, 4096, 14336}, {16384, 4096, 4096},
                {4000, 4000, 4000}, {128, 4096, 4096}};
  return o;
}

} // namespace gemm::fp8
