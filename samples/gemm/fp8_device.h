// The device side that gemm --fp8's modes share (fp8.cpp, fp8_small.cpp):
// the fp8 PTX and its kernels, the device copies of a quantised problem, the
// cuBLASLt reference (per-tensor scaled fp8 matmul) and one checked launch.
#pragma once

#include "fp8.h"

#include "../common/event_timing.cuh"

#include <cublasLt.h>

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace gemm::fp8 {

#define FP8_LT_CHECK(call)                                                                         \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                              \
      throw std::runtime_error(std::string(#call) + " failed: " + cublasGetStatusName(st_));       \
  } while (0)

inline bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// ---------------------------------------------------------------- the .tile kernels
struct Kernels {
  tile::Module module; // gemm_fp8.ptx: the persistent kernels (gemm_fp8.tile)
  tile::Module small;  // gemm_fp8_small.ptx: the small-M kernels (gemm_fp8_small.tile)
  std::string ptx;     // gemm_fp8.ptx's path
  tile::Kernel get(const std::string &name, int64_t bn, Format f) const {
    return module.kernel(name, {{"BN", bn}}, {{"T", formatName(f)}});
  }
  // gemm_fp8_block_n256 has no BN parameter (its tile is two B blocks wide).
  tile::Kernel getFixed(const std::string &name, Format f) const {
    return module.kernel(name, {}, {{"T", formatName(f)}});
  }
};

// Device copies of one quantised problem.
struct Device {
  tile::DeviceBuffer<uint8_t> a, b;
  tile::DeviceBuffer<float> sa, sb;
  tile::DeviceBuffer<uint16_t> c;
  explicit Device(const Quantized &q)
      : a(q.a.size()), b(q.b.size()), sa(q.sa.size()), sb(q.sb.size()), c(size_t(q.m * q.n)) {
    a.copyFrom(q.a);
    b.copyFrom(q.b);
    sa.copyFrom(q.sa);
    sb.copyFrom(q.sb);
  }
};

inline tile::TensorElement element(Format f) {
  return f == Format::E4M3 ? tile::TensorElement::E4M3 : tile::TensorElement::E5M2;
}

// ---------------------------------------------------------------- cuBLASLt
// Row-major C [M, N] = sa * sb * A [M, K] * B [N, K]^T as column-major
// cuBLASLt: C^T [N, M] = (B stored K x N, op T) * (A stored K x M, op N), the
// "TN" layout fp8 matmuls require; Lt's A scale is our B's, its B scale ours A's.
class Lt {
public:
  Lt() {
    FP8_LT_CHECK(cublasLtCreate(&h_));
    SAMPLE_CUDA_CHECK(cudaMalloc(&ws_, kWorkspace));
  }
  ~Lt() {
    cudaFree(ws_);
    cublasLtDestroy(h_);
  }
  // Plans (once per shape) and returns the launch. fastAccum: cuBLASLt's
  // CUBLASLT_MATMUL_DESC_FAST_ACCUM (the tensor core's fp8 accumulation over
  // all of K, no periodic promotion: the per-tensor kernel's numerics).
  std::function<void()> plan(const Quantized &q, Device &d, bool fastAccum = false) {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    FP8_LT_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    FP8_LT_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    FP8_LT_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof nop));
    const int8_t fast = fastAccum ? 1 : 0;
    FP8_LT_CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    const void *sa = reinterpret_cast<const void *>(d.sb.ptr()); // Lt's A is our B
    const void *sb = reinterpret_cast<const void *>(d.sa.ptr());
    FP8_LT_CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
    FP8_LT_CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
    const cudaDataType f8 = q.format == Format::E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2;
    FP8_LT_CHECK(cublasLtMatrixLayoutCreate(&la, f8, uint64_t(q.kp), uint64_t(q.n), q.kp));
    FP8_LT_CHECK(cublasLtMatrixLayoutCreate(&lb, f8, uint64_t(q.kp), uint64_t(q.m), q.kp));
    FP8_LT_CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, uint64_t(q.n), uint64_t(q.m), q.n));
    FP8_LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const size_t ws = kWorkspace;
    FP8_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    FP8_LT_CHECK(cublasLtMatmulAlgoGetHeuristic(h_, op, la, lb, lc, lc, pref, 1, &heur, &found));
    cublasLtMatmulPreferenceDestroy(pref);
    if (!found)
      throw std::runtime_error("cuBLASLt has no fp8 algorithm for this shape");
    descs_.push_back({op, la, lb, lc});
    const cublasLtMatmulAlgo_t algo = heur.algo;
    void *wsp = ws_;
    cublasLtHandle_t h = h_;
    return [=, &d] {
      const float alpha = 1.0f, beta = 0.0f;
      FP8_LT_CHECK(cublasLtMatmul(
          h, op, &alpha, reinterpret_cast<const void *>(d.b.ptr()), la,
          reinterpret_cast<const void *>(d.a.ptr()), lb, &beta, reinterpret_cast<void *>(d.c.ptr()),
          lc, reinterpret_cast<void *>(d.c.ptr()), lc, &algo, wsp, kWorkspace, nullptr));
    };
  }
  void release() {
    for (auto &x : descs_) {
      cublasLtMatmulDescDestroy(x.op);
      cublasLtMatrixLayoutDestroy(x.a);
      cublasLtMatrixLayoutDestroy(x.b);
      cublasLtMatrixLayoutDestroy(x.c);
    }
    descs_.clear();
  }
  int version() const { return int(cublasLtGetVersion()); }

private:
  static constexpr size_t kWorkspace = 32u << 20;
  struct Descs {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
  };
  cublasLtHandle_t h_ = nullptr;
  void *ws_ = nullptr;
  std::vector<Descs> descs_;
};

inline std::string kernelsPath() { return sample::ptxDir() + "/gemm_fp8.ptx"; }
inline std::string smallKernelsPath() { return sample::ptxDir() + "/gemm_fp8_small.ptx"; }

/// The fp8 modules of directory `dir`: its gemm_fp8.ptx, and its
/// gemm_fp8_small.ptx where it has one, else the PTX directory's (a
/// --variants directory may carry gemm_fp8.ptx alone).
inline Kernels loadKernels(tile::Context &ctx, const std::string &dir) {
  const std::string ptx = dir + "/gemm_fp8.ptx";
  const std::string small =
      fileExists(dir + "/gemm_fp8_small.ptx") ? dir + "/gemm_fp8_small.ptx" : smallKernelsPath();
  return Kernels{tile::Module::fromFiles(ctx, ptx), tile::Module::fromFiles(ctx, small), ptx};
}

inline std::vector<uint16_t> runOnce(const std::function<void()> &launch, Device &d) {
  d.c.fillBytes(0xff); // NaN in bf16: an element never written fails
  launch();
  SAMPLE_CUDA_CHECK(cudaGetLastError());
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  return d.c.toHost();
}

/// Whether a CUDA device and the fp8 PTX are there (else the run SKIPs with
/// the reason printed); device 0 is current and its context made.
inline bool deviceAndKernels() {
  int devices = 0;
  if (tile::deviceCount() == 0 || cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: compiled only\n");
    return false;
  }
  if (!fileExists(kernelsPath()) || !fileExists(smallKernelsPath())) {
    std::printf("no fp8 PTX at %s or %s: samples/gemm/gemm_fp8.tile or gemm_fp8_small.tile is "
                "not built\n",
                kernelsPath().c_str(), smallKernelsPath().c_str());
    return false;
  }
  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr));
  return true;
}

struct Options;
struct SmallInstance;
struct TileInstance;
struct SmallChoice;
/// The per-tensor kernels of fp8.cpp for fp8_small.cpp: the persistent
/// kernel at BN 256 or 128, or (bn 0) gemm_fp8_skinny at its split-K pick.
std::function<void()> tensorLaunch(const Kernels &ks, const Quantized &q, Device &d, int64_t bn,
                                   int sms);
/// gemm_fp8_skinny_dsm at instance i (fp8_small.cpp).
std::function<void()> smallLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                    const SmallInstance &i);
/// gemm_fp8_tile at instance i (fp8_small.cpp).
std::function<void()> tileLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                   const TileInstance &i);
/// The host's small-M choice c (fp8_small.h smallChoice): its instance of
/// gemm_fp8_skinny_dsm or gemm_fp8_tile, or the persistent kernel.
std::function<void()> smallChoiceLauncher(const Kernels &ks, const Quantized &q, Device &d,
                                          const SmallChoice &c, int sms);
/// --check at M <= 256 (per tensor): the host's small-M choice, launched
/// twice, and with --all-small every --small candidate, against `want`
/// (float64 of the dequantised inputs at `rows`).
void checkSmall(const Options &o, const Kernels &ks, const Quantized &q, Device &d,
                const std::vector<int64_t> &rows, const std::vector<double> &want, int sms,
                bool &ok);
/// gemm --fp8 --small (fp8_small.cpp).
int runSmall(const Options &o);

} // namespace gemm::fp8
