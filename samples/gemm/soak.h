// soak.h - one kernel launched back to back for a while, with the SM clock
// and board power sampled while it runs (gemm --fp8 --alternate --soak-ms).
//
// Why: at its power limit an H100/H200 lowers the SM clock under sustained
// fp8 tensor work, so two kernels' time ratio mixes how much they do per
// clock with how much power they draw per unit of work. A soak separates the
// two: time per launch, the mean SM clock and the mean power while it runs
// (samples of the first 300 ms, the clock settling, are dropped), and the
// share of samples with the software power cap active (NVML's clock event
// reason 0x4). NVML is opened with dlopen (libnvidia-ml.so.1, part of the
// driver), so nothing links against it; without it the clock columns are 0.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <array>
#include <chrono>
#include <functional>

namespace gemm::soak {

struct Result {
  double usPerLaunch = 0;
  double mhz = 0;      // mean SM clock
  double watts = 0;    // mean board power
  double powerCap = 0; // share of samples with the software power cap active
};

class Nvml {
public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib_)
      return;
    auto init = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    auto byPci =
        reinterpret_cast<int (*)(const char *, void **)>(dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ = reinterpret_cast<int (*)(void *, int, unsigned *)>(dlsym(lib_, "nvmlDeviceGetClockInfo"));
    power_ = reinterpret_cast<int (*)(void *, unsigned *)>(dlsym(lib_, "nvmlDeviceGetPowerUsage"));
    reasons_ = reinterpret_cast<int (*)(void *, unsigned long long *)>(
        dlsym(lib_, "nvmlDeviceGetCurrentClocksEventReasons"));
    char bus[32] = {};
    int dev = 0;
    // NVML numbers the GPUs its own way: find the CUDA device by PCI bus id.
    if (!init || !byPci || !clock_ || !power_ || init() != 0 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess || byPci(bus, &dev_) != 0)
      dev_ = nullptr;
  }
  bool ok() const { return dev_ != nullptr; }
  // {SM MHz, board W, power cap active}
  std::array<double, 3> sample() const {
    unsigned mhz = 0, mw = 0;
    unsigned long long why = 0;
    clock_(dev_, 1 /* NVML_CLOCK_SM */, &mhz);
    power_(dev_, &mw);
    if (reasons_)
      reasons_(dev_, &why);
    return {double(mhz), mw * 1e-3, (why & 0x4ull) ? 1.0 : 0.0};
  }

private:
  void *lib_ = nullptr;
  void *dev_ = nullptr;
  int (*clock_)(void *, int, unsigned *) = nullptr;
  int (*power_)(void *, unsigned *) = nullptr;
  int (*reasons_)(void *, unsigned long long *) = nullptr;
};

// Launches `launch` back to back for `ms` milliseconds, at most 4 launches
// queued (an event per launch paces the host, so each sample falls while
// the kernel runs and the window ends with the queue).
inline Result run(const Nvml &nvml, const std::function<void()> &launch, int ms) {
  constexpr int kQueued = 4;
  std::array<cudaEvent_t, kQueued> ev{};
  for (cudaEvent_t &e : ev)
    cudaEventCreate(&e);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  double sum[3] = {0, 0, 0};
  int samples = 0;
  long launches = 0;
  cudaEventRecord(start);
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (elapsed >= ms)
      break;
    if (launches >= kQueued)
      cudaEventSynchronize(ev[launches % kQueued]);
    launch();
    cudaEventRecord(ev[launches % kQueued]);
    ++launches;
    if (nvml.ok() && elapsed > 300) {
      const std::array<double, 3> s = nvml.sample();
      for (int i = 0; i < 3; ++i)
        sum[i] += s[i];
      ++samples;
    }
  }
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float total = 0;
  cudaEventElapsedTime(&total, start, stop);
  for (cudaEvent_t &e : ev)
    cudaEventDestroy(e);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  Result r;
  r.usPerLaunch = launches ? total * 1e3 / double(launches) : 0;
  if (samples) {
    r.mhz = sum[0] / samples;
    r.watts = sum[1] / samples;
    r.powerCap = sum[2] / samples;
  }
  return r;
}

} // namespace gemm::soak
