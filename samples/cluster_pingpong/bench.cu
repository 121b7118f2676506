// pingpong_bench: the .tile cluster ping-pong (PTX through the tilec runtime)
// side by side with hand-written CUDA C++ in one process, all at 128 CTAs x 32
// threads, clusters of 8:
//   tile       - pingpong.ptx (tilec), launched through the tilec runtime
//   hand-tuned - relaxed arrive.expect_tx + st.async + acquire.cluster parity
//                wait + relaxed cluster barrier (pingpong_ref.cuh)
//   standard   - cuda::barrier + barrier_arrive_tx + cuda::ptx::st_async +
//                cluster.sync()
//   plain      - generic DSMEM stores + two cluster.sync() per iteration
//   floor      - barrier.cluster.arrive.relaxed + wait only, same iterations
//
// First every kernel runs once at each --check-iters count (default 1,2,37,1000)
// and its output is checked exactly. Then --warmup launches of each, then --runs
// rounds, each timing every kernel once with CUDA events (kernels interleaved
// so clock or thermal drift hits all alike); `out` is poisoned (0xA5 bytes,
// untimed) before and checked exactly (untimed) after every timed launch. Times
// are medians. Prints a markdown table (also to --out FILE).
//
//   pingpong_bench [--iters 10000] [--runs 15] [--warmup 3] [--check-iters 1,2,37,1000]
//                  [--ptx-dir DIR] [--no-tile] [--out FILE]
//
// --no-tile runs only the CUDA kernels (before tilec can compile pingpong.tile).
// Exit status 0 only when every launch of every kernel was exact (and the tile
// kernel ran, unless --no-tile).
#include "pingpong_common.h"
#include "pingpong_ref.cuh"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Args {
  int iters = pingpong::kDefaultIters;
  int runs = 15, warmup = 3;
  std::vector<int> checkIters{1, 2, 37, 1000};
  std::string ptxDir, out;
  bool noTile = false;
};

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "pingpong_bench: %s\nusage: pingpong_bench [--iters N] [--runs R] [--warmup W]\n"
               "  [--check-iters 1,2,37,1000] [--ptx-dir DIR] [--no-tile] [--out FILE]\n",
               msg);
  std::exit(2);
}

Args parse(int argc, char **argv) {
  Args a;
  sample::ArgReader r(argc, argv, usage);
  while (r.next()) {
    const std::string &f = r.flag();
    if (f == "--iters")
      a.iters = static_cast<int>(r.intIn(1, 2000000));
    else if (f == "--runs")
      a.runs = static_cast<int>(r.intIn(1, 100000));
    else if (f == "--warmup")
      a.warmup = static_cast<int>(r.intIn(0, 100000));
    else if (f == "--check-iters") {
      a.checkIters.clear();
      for (long long c : r.intListIn(0, 2000000))
        a.checkIters.push_back(static_cast<int>(c));
    } else if (f == "--ptx-dir")
      a.ptxDir = r.value();
    else if (f == "--no-tile")
      a.noTile = true;
    else if (f == "--out")
      a.out = r.value();
    else if (f == "-h" || f == "--help")
      usage("help");
    else
      r.fail("unknown argument '" + f + "'");
  }
  return a;
}

constexpr size_t kGuard = 64; // ints after the output that no kernel may touch

// The floor kernel's output: out[b] = iters for every CTA b, the rest untouched.
std::string checkFloor(const std::vector<int32_t> &got, int iters) {
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i) {
    const int32_t w = i < pingpong::kGrid ? iters : pingpong::kPoison;
    if (got[i] == w)
      continue;
    if (bad++ == 0)
      first = "out[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", want " +
              std::to_string(w);
  }
  if (!bad)
    return {};
  return std::to_string(bad) + " of " + std::to_string(got.size()) +
         " ints differ; first: " + first;
}

struct Entry {
  std::string name;
  bool floor = false;              // checked with checkFloor
  std::function<void(int)> launch; // launch(iters) on the legacy default stream
  std::string unavailable;         // why it cannot run ("" = runs)
  std::vector<float> ms;
  std::string problems; // "" = every checked launch exact
  int checked = 0;      // launches checked
};

std::string fmt(double x, const char *f = "%.3f") {
  if (x < 0)
    return "n/a";
  char b[48];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

double median(std::vector<float> v) {
  if (v.empty())
    return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

  SAMPLE_CUDA_CHECK(cudaSetDevice(0));
  SAMPLE_CUDA_CHECK(cudaFree(nullptr)); // create the primary context the tilec runtime retains too
  tile::Context ctx(0);
  cudaDeviceProp prop;
  SAMPLE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int rtVersion = 0;
  SAMPLE_CUDA_CHECK(cudaRuntimeGetVersion(&rtVersion));
  const std::string ptxPath = pingpong::ptxPath(a.ptxDir);

  int maxIters = a.iters;
  for (int c : a.checkIters)
    maxIters = std::max(maxIters, c);
  const size_t cap = pingpong::outCount(maxIters) + kGuard;
  int *dOut = nullptr;
  SAMPLE_CUDA_CHECK(cudaMalloc(&dOut, cap * sizeof(int32_t)));
  const CUdeviceptr tOut = reinterpret_cast<CUdeviceptr>(dOut);

  // ---- the kernels
  std::vector<Entry> kernels;
  std::unique_ptr<pingpong::TilePingPong> tilePP;
  {
    Entry e;
    e.name = "tile (pingpong.tile via tilec + runtime)";
    if (a.noTile) {
      e.unavailable = "--no-tile";
    } else {
      try {
        tilePP.reset(new pingpong::TilePingPong(ctx, ptxPath)); // JIT (or cache) before any timing
        if (tilePP->ptxCluster() != 0 &&
            tilePP->ptxCluster() != static_cast<int>(pingpong::kCluster))
          throw std::runtime_error(ptxPath + " is compiled for cluster " +
                                   std::to_string(tilePP->ptxCluster()));
        e.launch = [&](int iters) { tilePP->launch(tOut, iters); };
      } catch (const std::exception &ex) {
        e.unavailable = ex.what();
        std::fprintf(stderr, "tile: %s\n", ex.what());
      }
    }
    kernels.push_back(std::move(e));
  }
  const pingpong_ref::Kernel refs[] = {pingpong_ref::Kernel::HandTuned,
                                       pingpong_ref::Kernel::Standard, pingpong_ref::Kernel::Plain,
                                       pingpong_ref::Kernel::Floor};
  const size_t handTuned = kernels.size(); // index of the hand-tuned entry: the ratio's base
  for (pingpong_ref::Kernel k : refs) {
    Entry e;
    e.name = std::string(k == pingpong_ref::Kernel::Floor ? "floor: " : "CUDA ") +
             pingpong_ref::kernelName(k);
    e.floor = k == pingpong_ref::Kernel::Floor;
    e.launch = [k, dOut](int iters) {
      SAMPLE_CUDA_CHECK(pingpong_ref::launch(k, dOut, iters, pingpong::kGrid, pingpong::kThreads,
                                             pingpong::kCluster, 0));
    };
    kernels.push_back(std::move(e));
  }

  auto poison = [&] {
    SAMPLE_CUDA_CHECK(cudaMemset(dOut, pingpong::kPoisonByte, cap * sizeof(int32_t)));
  };
  // Checks the output of the launch just made with `iters` iterations.
  auto check = [&](Entry &e, int iters, const std::string &when) {
    SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    const size_t n = (e.floor ? pingpong::kGrid : pingpong::outCount(iters)) + kGuard;
    std::vector<int32_t> got(n);
    SAMPLE_CUDA_CHECK(cudaMemcpy(got.data(), dOut, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    std::string d = e.floor ? checkFloor(got, iters) : pingpong::checkOutput(got, iters);
    ++e.checked;
    if (!d.empty() && e.problems.size() < 2000)
      e.problems += " " + when + ": " + d + ";";
  };
  // Runs e.launch, turning a runtime exception into a problem (the entry stops running).
  auto tryLaunch = [&](Entry &e, int iters) -> bool {
    try {
      e.launch(iters);
      SAMPLE_CUDA_CHECK(cudaGetLastError());
      return true;
    } catch (const std::exception &ex) {
      e.problems += std::string(" launch: ") + ex.what() + ";";
      e.unavailable = ex.what();
      SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
      return false;
    }
  };

  // ---- exactness at the check counts
  for (int iters : a.checkIters) {
    for (Entry &e : kernels) {
      if (!e.unavailable.empty())
        continue;
      poison();
      if (tryLaunch(e, iters))
        check(e, iters, "iters " + std::to_string(iters));
    }
  }

  // ---- timing: warm-ups, then interleaved rounds, every run checked
  for (int w = 0; w < a.warmup; ++w)
    for (Entry &e : kernels)
      if (e.unavailable.empty())
        tryLaunch(e, a.iters);
  SAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  SAMPLE_CUDA_CHECK(cudaEventCreate(&start));
  SAMPLE_CUDA_CHECK(cudaEventCreate(&stop));
  for (int r = 0; r < a.runs; ++r) {
    for (Entry &e : kernels) {
      if (!e.unavailable.empty())
        continue;
      poison();
      SAMPLE_CUDA_CHECK(cudaEventRecord(start, 0));
      if (!tryLaunch(e, a.iters))
        continue;
      SAMPLE_CUDA_CHECK(cudaEventRecord(stop, 0));
      SAMPLE_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      SAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      e.ms.push_back(ms);
      check(e, a.iters, "timed run " + std::to_string(r));
    }
  }
  SAMPLE_CUDA_CHECK(cudaEventDestroy(start));
  SAMPLE_CUDA_CHECK(cudaEventDestroy(stop));

  // ---- the table
  bool allOk = true;
  for (const Entry &e : kernels)
    if (!e.problems.empty() || (!e.unavailable.empty() && e.unavailable != "--no-tile"))
      allOk = false;
  const double base = median(kernels[handTuned].ms);

  std::ostringstream md;
  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::string checkList;
  for (int c : a.checkIters)
    checkList += (checkList.empty() ? "" : ",") + std::to_string(c);
  md << "## Cluster ping-pong: " << pingpong::kGrid << " CTAs x " << pingpong::kThreads
     << " threads, cluster " << pingpong::kCluster << ", " << a.iters << " iterations\n\n"
     << "- date: " << date << "\n- device: " << prop.name << " (" << prop.multiProcessorCount
     << " SMs), driver " << ctx.driverVersion() << ", CUDA runtime " << rtVersion << "\n"
     << "- command: `" << command << "`\n"
     << "- median of " << a.runs << " CUDA-event-timed runs after " << a.warmup
     << " warm-up runs (kernels interleaved per round); out poisoned (0xA5) before and every int "
        "checked after "
        "each timed run; also checked at iters "
     << checkList << "\n"
     << "- tile = " << ptxPath << " via the tilec runtime; CUDA = pingpong_ref.cuh (nvcc, sm_90a); "
     << "ns/iteration = ms / iterations (one exchange + one cluster barrier per iteration)\n\n"
     << "| kernel | ms | ns/iteration | vs hand-tuned | min ms | exact |\n"
     << "|---|---|---|---|---|---|\n";
  for (const Entry &e : kernels) {
    const double med = median(e.ms);
    double mn = -1;
    if (!e.ms.empty())
      mn = *std::min_element(e.ms.begin(), e.ms.end());
    const double nsIter = med > 0 ? med * 1e6 / a.iters : -1;
    const double ratio = med > 0 && base > 0 ? med / base : -1;
    std::string exact;
    if (!e.unavailable.empty() && e.checked == 0)
      exact = "not run";
    else
      exact = e.problems.empty() ? "yes (" + std::to_string(e.checked) + " launches)" : "NO";
    md << "| " << e.name << " | " << fmt(med) << " | " << fmt(nsIter, "%.1f") << " | "
       << fmt(ratio, "%.2f") << " | " << fmt(mn) << " | " << exact << " |\n";
  }
  md << "\n";
  for (const Entry &e : kernels) {
    if (!e.unavailable.empty())
      md << "- NOT RUN " << e.name << ": " << e.unavailable << "\n";
    if (!e.problems.empty())
      md << "- PROBLEM " << e.name << ":" << e.problems << "\n";
  }

  std::printf("\n%s", md.str().c_str());
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << md.str();
    if (!f)
      std::fprintf(stderr, "pingpong_bench: cannot write %s\n", a.out.c_str()), allOk = false;
  }
  SAMPLE_CUDA_CHECK(cudaFree(dOut));
  return allOk ? 0 : 1;
}
