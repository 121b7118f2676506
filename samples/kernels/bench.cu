// kernels_bench: every samples/kernels .tile kernel (PTX through the tilec
// runtime) side by side with its nvcc twin (kernels_ref.cuh), one process, one
// output buffer per kernel that both write (poisoned before each).
//
//   default:  correctness at the check sizes: tile, twin (and cuBLAS for the
//             SGEMMs) each checked against the CPU reference
//   --bench:  the bench sizes (SGEMMs 4096^3, 2^26 elements, 8192^2 matrices):
//             checked, then the median of --runs (>= 20) CUDA-event-timed runs
//             after --warmup, the speed ratio tile/nvcc (= nvcc ms / tile ms),
//             and cuBLAS SGEMM as the ceiling (CUBLAS_DEFAULT_MATH, no TF32, and
//             CUBLAS_PEDANTIC_MATH), plus the lines of .tile vs CUDA per kernel.
//
//   kernels_bench [--bench] [--kernel all|NAME,...] [--size small|check|bench]
//                 [--runs 20] [--warmup 3] [--seed S] [--out FILE] [--src DIR]
//
// A .tile kernel whose PTX the build does not make yet (see the ready list in
// samples/kernels/CMakeLists.txt) shows as "waiting"; its twin still runs.
// Exit 0 when everything that ran matched, 1 otherwise, 77 without a device.
#include "../common/cuda_check.cuh"
#include "../common/event_timing.cuh"
#include "kernels_common.h"
#include "kernels_ref.cuh"

#include <cublas_v2.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Args {
  bool bench = false;
  std::vector<std::string> kernels;
  kern::Size size = kern::Size::Check;
  bool sizeGiven = false;
  int runs = 20, warmup = 3;
  uint64_t seed = 0;
  bool seedGiven = false;
  std::string out, src;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "kernels_bench: %s\n"
               "usage: kernels_bench [--bench] [--kernel all|NAME,...] [--size small|check|bench]\n"
               "                     [--runs R] [--warmup W] [--seed S] [--out FILE] [--src DIR]\n",
               msg);
  std::exit(2);
}

Args parse(int argc, char **argv) {
  Args a;
  if (const char *s = std::getenv("TILEC_GPU_TEST_SMALL"))
    if (std::string(s) == "1")
      a.size = kern::Size::Small;
  sample::ArgReader args(argc, argv, usage, {"--kernel"});
  while (args.next()) {
    const std::string &f = args.flag();
    if (f == "--bench")
      a.bench = true;
    else if (f == "--kernel") {
      for (const std::string &k : args.listValue())
        if (k != "all")
          a.kernels.push_back(k);
    } else if (f == "--size") {
      std::string s = args.value();
      a.sizeGiven = true;
      if (s == "small")
        a.size = kern::Size::Small;
      else if (s == "check")
        a.size = kern::Size::Check;
      else if (s == "bench")
        a.size = kern::Size::Bench;
      else
        usage(("bad --size " + s).c_str());
    } else if (f == "--runs")
      a.runs = static_cast<int>(args.intValue());
    else if (f == "--warmup")
      a.warmup = static_cast<int>(args.intValue());
    else if (f == "--seed") {
      a.seed = static_cast<uint64_t>(args.intValue());
      a.seedGiven = true;
    } else if (f == "--out")
      a.out = args.value();
    else if (f == "--src")
      a.src = args.value();
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      usage(("unknown argument '" + f + "'").c_str());
  }
  if (a.bench && !a.sizeGiven)
    a.size = kern::Size::Bench;
  if (a.runs < 1 || a.warmup < 0)
    usage("--runs must be >= 1, --warmup >= 0");
  return a;
}

template <class T> T *dev(const tile::DeviceBuffer<T> &b) { return reinterpret_cast<T *>(b.ptr()); }

// The nvcc twin of each case, with the launch shape of its .tile kernel.
void runTwin(kern::Case &c) {
  const std::string n = c.name();
  if (n == "vector_add") {
    auto &k = static_cast<kern::VectorAdd &>(c);
    kref::vectorAdd<<<k.blocks(), 256>>>(dev(k.c), dev(k.a), dev(k.b), k.n);
  } else if (n == "reduce") {
    auto &k = static_cast<kern::Reduce &>(c);
    kref::reduceSum<<<k.blocks(k.smCount), 256>>>(dev(k.out), dev(k.in), k.n);
  } else if (n == "transpose") {
    auto &k = static_cast<kern::Transpose &>(c);
    tile::Dim3 g = k.gridDim();
    kref::transpose<<<dim3(g.x, g.y), dim3(32, 8)>>>(dev(k.out), dev(k.in), k.rows, k.cols);
  } else if (n == "sgemm_smem" || n == "sgemm_2d") {
    auto &k = static_cast<kern::Sgemm &>(c);
    tile::Dim3 g = k.gridDim();
    auto kernel = n == "sgemm_smem" ? kref::sgemmSmem : kref::sgemm2d;
    kernel<<<dim3(g.x, g.y), k.threads()>>>(dev(k.c), dev(k.a), dev(k.b), k.M, k.N, k.K);
  } else if (n == "softmax") {
    auto &k = static_cast<kern::Softmax &>(c);
    kref::softmax<<<k.rows, 256>>>(dev(k.out), dev(k.in), k.cols);
  } else if (n == "merge_states") {
    auto &k = static_cast<kern::MergeStates &>(c);
    kref::mergeStates<<<k.rows, 128>>>(dev(k.out), dev(k.lseOut), dev(k.o), dev(k.lse), k.splits,
                                       k.rows);
  } else if (n == "scan") {
    auto &k = static_cast<kern::Scan &>(c);
    k.run(
        [](CUdeviceptr o, CUdeviceptr i, CUdeviceptr s, int32_t m, unsigned blocks) {
          kref::scanBlock<<<blocks, 1024>>>(reinterpret_cast<int *>(o),
                                            reinterpret_cast<const int *>(i),
                                            reinterpret_cast<int *>(s), m);
        },
        [](CUdeviceptr o, CUdeviceptr carries, int32_t m, unsigned blocks) {
          kref::addCarry<<<blocks, 1024>>>(reinterpret_cast<int *>(o),
                                           reinterpret_cast<const int *>(carries), m);
        });
  } else if (n == "scan_lookback") {
    auto &k = static_cast<kern::ScanLookback &>(c);
    kref::scanLookback<<<k.tiles(), 1024>>>(
        dev(k.out), dev(k.in), reinterpret_cast<long long *>(k.status.ptr()), dev(k.counter), k.n);
  } else if (n == "stencil5") {
    auto &k = static_cast<kern::Stencil &>(c);
    tile::Dim3 g = k.gridDim();
    kref::stencil5<<<dim3(g.x, g.y), dim3(32, 8)>>>(dev(k.out), dev(k.in), k.rows, k.cols);
  } else {
    throw std::runtime_error("no twin for " + n);
  }
  SAMPLE_CUDA_CHECK(cudaGetLastError());
}

#define CUBLAS_CHECK(call)                                                                         \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      std::fprintf(stderr, "%s:%d: %s failed: status %d\n", __FILE__, __LINE__, #call, int(st_));  \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// Row-major C = A * B through column-major cuBLAS: C^T = B^T * A^T.
void runCublas(cublasHandle_t h, kern::Sgemm &k) {
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, k.N, k.M, k.K, &one, dev(k.b), k.N,
                           dev(k.a), k.K, &zero, dev(k.c), k.N));
}

// Median of `runs` launches timed with CUDA events on the legacy default stream
// (which the tilec runtime's launches use too), all queued before one
// synchronisation so the host's launch cost stays out of the GPU times.
kern::Timing timeCuda(const std::function<void()> &before, const std::function<void()> &launch,
                      int warmup, int runs) {
  sample::EventTiming e = sample::timeWithEvents(before, launch, warmup, runs);
  kern::Timing t;
  t.median = e.median;
  t.min = e.min;
  return t;
}

// Non-blank lines that are not only a comment: of a whole .tile file, or of the
// `// ---- NAME.tile` section of kernels_ref.cuh. -1 when the file is missing.
int codeLines(const std::string &path, const std::string &section = "") {
  std::ifstream f(path);
  if (!f)
    return -1;
  int n = 0;
  bool in = section.empty();
  for (std::string line; std::getline(f, line);) {
    size_t p = line.find_first_not_of(" \t");
    std::string t = p == std::string::npos ? "" : line.substr(p);
    if (!section.empty() && t.rfind("// ---- ", 0) == 0) {
      const std::string marker = "// ---- " + section;
      in = t.rfind(marker, 0) == 0 && (t.size() == marker.size() || t[marker.size()] == ' ');
      continue;
    }
    if (in && !t.empty() && t.rfind("//", 0) != 0 && t != "} // namespace kref")
      ++n;
  }
  return n;
}

std::string fmtMs(double ms) {
  if (ms < 0)
    return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", ms);
  return b;
}

struct Result {
  std::string status = "not run"; // "ok", "MISMATCH ...", "waiting", error text
  kern::Timing t;
  bool ok() const { return status == "ok"; }
  bool ran() const { return status != "waiting" && status != "not run"; }
};

struct Row {
  std::string name, shape, tolerance;
  Result tile, twin, cublas, cublasPedantic;
  bool isGemm = false;
  int tileLines = -1, cudaLines = -1;
  const kern::Case *c = nullptr;
};

// The untimed step before each timed run, asynchronous on the legacy stream so
// the host stays ahead of the GPU (the runtime's synchronous memset would put
// the next launch's host latency inside its timed interval).
void beforeRunAsync(kern::Case &c) {
  if (auto *r = dynamic_cast<kern::Reduce *>(&c)) {
    SAMPLE_CUDA_CHECK(cudaMemsetAsync(dev(r->out), 0, sizeof(int32_t), 0));
  } else if (auto *l = dynamic_cast<kern::ScanLookback *>(&c)) {
    SAMPLE_CUDA_CHECK(cudaMemsetAsync(dev(l->status), 0, l->status.bytes(), 0));
    SAMPLE_CUDA_CHECK(cudaMemsetAsync(dev(l->counter), 0, sizeof(int32_t), 0));
  } else
    c.beforeRun();
}

// Poison, run once, check; then (bench) time and check the timed runs' output.
Result measure(kern::Case &c, const std::function<void()> &launch, const Args &a) {
  Result r;
  try {
    c.poison();
    c.beforeRun();
    launch();
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    std::string d = c.check();
    if (d.empty() && a.bench) {
      c.poison();
      r.t = timeCuda([&] { beforeRunAsync(c); }, launch, a.warmup, a.runs);
      d = c.check();
    }
    r.status = d.empty() ? "ok" : "MISMATCH: " + d;
  } catch (const std::exception &e) {
    r.status = std::string("error: ") + e.what();
    cudaDeviceSynchronize();
  }
  return r;
}

} // namespace

int main(int argc, char **argv) {
  Args a = parse(argc, argv);
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  std::string src = a.src;
#ifdef KERNELS_SOURCE_DIR
  if (src.empty())
    src = KERNELS_SOURCE_DIR;
#endif

  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // the primary context, which the tilec runtime retains too
  tile::Context ctx(0);
  cudaDeviceProp prop;
  SAMPLE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int rtVersion = 0;
  SAMPLE_CUDA_CHECK(cudaRuntimeGetVersion(&rtVersion));
  cublasHandle_t blas;
  CUBLAS_CHECK(cublasCreate(&blas));
  std::printf("device: %s (%d SMs), driver %d, runtime %d; sizes: %s; ptx dir: %s\n", prop.name,
              prop.multiProcessorCount, ctx.driverVersion(), rtVersion, kern::sizeName(a.size),
              sample::ptxDir().c_str());

  std::vector<Row> rows;
  bool allOk = true;
  auto cases = kern::allCases();
  for (const std::string &k : a.kernels) {
    bool known = false;
    for (auto &c : cases)
      known |= k == c->name();
    if (!known)
      usage(("unknown kernel '" + k + "'").c_str());
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    kern::Case &c = *cases[i];
    bool wanted = a.kernels.empty();
    for (const std::string &k : a.kernels)
      wanted |= k == c.name();
    if (!wanted)
      continue;
    if (auto *r = dynamic_cast<kern::Reduce *>(&c))
      r->smCount = prop.multiProcessorCount;
    const uint64_t seed = a.seedGiven ? a.seed + i : kern::freshSeed();
    c.setup(a.size, seed);
    Row row;
    row.name = c.name();
    row.shape = c.shape();
    row.tolerance = c.tolerance();
    row.c = &c;
    row.tileLines = codeLines(src + "/" + row.name + ".tile");
    row.cudaLines = codeLines(src + "/kernels_ref.cuh", row.name + ".tile");
    std::printf("%s (%s, seed %llu):\n", row.name.c_str(), row.shape.c_str(),
                static_cast<unsigned long long>(seed));

    const std::string ptx = kern::ptxPath(c.name());
    if (!kern::fileExists(ptx) && !kern::isReady(c.name())) {
      row.tile.status = "waiting";
    } else {
      try {
        c.load(ctx);
        row.tile = measure(
            c, [&] { c.runTile(); }, a);
      } catch (const std::exception &e) {
        row.tile.status = std::string("error: ") + e.what();
      }
    }
    row.twin = measure(
        c, [&] { runTwin(c); }, a);
    if (auto *g = dynamic_cast<kern::Sgemm *>(&c)) {
      row.isGemm = true;
      CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH)); // FP32 FMA, no TF32
      row.cublas = measure(
          c, [&] { runCublas(blas, *g); }, a);
      CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH));
      row.cublasPedantic = measure(
          c, [&] { runCublas(blas, *g); }, a);
    }
    auto show = [&](const char *who, const Result &r) {
      if (!r.ran() && r.status == "not run")
        return;
      std::printf("  %-16s %s", who, r.status.c_str());
      if (r.t.median > 0)
        std::printf(", median %s ms (min %s), %s", fmtMs(r.t.median).c_str(),
                    fmtMs(r.t.min).c_str(), kern::rate(c, r.t.median).c_str());
      std::printf("\n");
    };
    show("tile", row.tile);
    show("nvcc", row.twin);
    if (row.isGemm) {
      show("cuBLAS", row.cublas);
      show("cuBLAS pedantic", row.cublasPedantic);
    }
    for (const Result *r : {&row.tile, &row.twin, &row.cublas, &row.cublasPedantic})
      if (r->ran() && !r->ok())
        allOk = false;
    std::fflush(stdout);
    rows.push_back(row);
  }

  // ---- the table
  std::ostringstream md;
  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  md << "## samples/kernels: .tile vs nvcc" << (a.bench ? "" : " (correctness only)") << "\n\n"
     << "- date: " << date << "\n- device: " << prop.name << " (" << prop.multiProcessorCount
     << " SMs), driver " << ctx.driverVersion() << ", CUDA runtime " << rtVersion << "\n"
     << "- command: `" << command << "`\n"
     << "- sizes: " << kern::sizeName(a.size)
     << "; tile = samples/kernels/*.tile via tilec PTX + "
        "tilec runtime; nvcc = kernels_ref.cuh (-gencode arch=compute_90a,code=sm_90a)\n";
  if (a.bench)
    md << "- median of " << a.runs << " CUDA-event-timed runs after " << a.warmup
       << " warm-up runs; speed = nvcc ms / tile ms (> 1: the .tile kernel is faster); cuBLAS "
          "cublasSgemm, CUBLAS_DEFAULT_MATH (FP32, no TF32) and CUBLAS_PEDANTIC_MATH\n";
  md << "- every output checked against a CPU reference (tolerance column) before and after "
        "timing; lines = non-blank, non-comment lines of the .tile file / of its twin's section "
        "in kernels_ref.cuh\n\n"
     << "| kernel | shape | tile ms | nvcc ms | speed tile/nvcc | tile rate | nvcc rate | .tile "
        "lines | CUDA lines | tolerance | checked |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row &r : rows) {
    char ratio[32] = "-";
    if (r.tile.t.median > 0 && r.twin.t.median > 0)
      std::snprintf(ratio, sizeof ratio, "%.3f", r.twin.t.median / r.tile.t.median);
    std::string checked = r.tile.status == "waiting" ? "tile waiting; nvcc " : "";
    checked += (!r.tile.ran() || r.tile.ok()) && r.twin.ok() ? "yes" : "NO";
    md << "| " << r.name << " | " << r.shape << " | "
       << (r.tile.status == "waiting" ? std::string("waiting") : fmtMs(r.tile.t.median)) << " | "
       << fmtMs(r.twin.t.median) << " | " << ratio << " | " << kern::rate(*r.c, r.tile.t.median)
       << " | " << kern::rate(*r.c, r.twin.t.median) << " | " << r.tileLines << " | " << r.cudaLines
       << " | " << r.tolerance << " | " << checked << " |\n";
    if (r.isGemm) {
      md << "| " << r.name << ": cuBLAS | " << r.shape << " | | " << fmtMs(r.cublas.t.median)
         << " | | | " << kern::rate(*r.c, r.cublas.t.median) << " | | | " << r.tolerance << " | "
         << (r.cublas.ok() ? "yes" : "NO") << " |\n";
      md << "| " << r.name << ": cuBLAS pedantic | " << r.shape << " | | "
         << fmtMs(r.cublasPedantic.t.median) << " | | | "
         << kern::rate(*r.c, r.cublasPedantic.t.median) << " | | | " << r.tolerance << " | "
         << (r.cublasPedantic.ok() ? "yes" : "NO") << " |\n";
    }
  }
  md << "\n";
  for (const Row &r : rows)
    for (const auto &p : {std::make_pair("tile", &r.tile), std::make_pair("nvcc", &r.twin),
                          std::make_pair("cuBLAS", &r.cublas),
                          std::make_pair("cuBLAS pedantic", &r.cublasPedantic)})
      if (p.second->ran() && !p.second->ok())
        md << "- PROBLEM " << r.name << " " << p.first << ": " << p.second->status << "\n";
  for (const Row &r : rows)
    if (r.tile.status == "waiting")
      md << "- WAITING " << r.name << ": not in the ready list of samples/kernels/CMakeLists.txt\n";

  std::printf("\n%s", md.str().c_str());
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << md.str();
    if (!f) {
      std::fprintf(stderr, "kernels_bench: cannot write %s\n", a.out.c_str());
      allOk = false;
    }
  }
  CUBLAS_CHECK(cublasDestroy(blas));
  return allOk ? 0 : 1;
}
