// launch_bench: the host cost of the runtime's per-launch checks. A trivial
// kernel (safety.tile's `touch`: one store per block, 1 block of 32 threads)
// is launched N times in a row on one stream, in the same process, three ways:
//   checked    Kernel::launch with the defaults (argument kinds, context and
//              stream, pointer provenance through cuPointerGetAttributes)
//   no-ptr     the same with LaunchConfig::checkPointers = false
//   raw        cuLaunchKernelEx through Kernel::launchUnchecked (a packed
//              array: no argument or pointer check; the config check is cached)
// Each is timed on the host (std::chrono, the stream synchronised before and
// after), best of R rounds; the result is one line:
//   launch_bench: checked 2.41 us, no-ptr 1.98 us, raw 1.80 us per launch;
//   pointer checks 0.43 us, all checks 0.61 us (N launches, best of R, <device>)
//
//   launch_bench [--launches N] [--rounds R] [--ptx-dir DIR]
// Exit 77 ("SKIP: no CUDA device") without a device. TILEC_GPU_TEST_SMALL=1
// (the sanitizer runs): 200 launches, 2 rounds.
#include "tile/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

int main(int argc, char **argv) {
  const bool small = std::getenv("TILEC_GPU_TEST_SMALL") != nullptr;
  int launches = small ? 200 : 20000, rounds = small ? 2 : 7;
  std::string dir = std::getenv("TILEC_PTX_DIR") ? std::getenv("TILEC_PTX_DIR") : TILEC_SAMPLE_PTX_DIR;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--launches"))
      launches = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds"))
      rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--ptx-dir"))
      dir = argv[i + 1];
  }
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  try {
    tile::Context ctx(0);
    tile::Module mod = tile::Module::fromFiles(ctx, dir + "/safety.ptx");
    tile::Kernel k = mod.kernel("touch");
    tile::DeviceBuffer<int32_t> out(1);
    tile::Stream stream;
    tile::LaunchConfig cfg;
    cfg.grid = tile::Dim3(1);
    cfg.block = tile::Dim3(32);
    cfg.stream = stream;
    tile::LaunchConfig noPtr = cfg;
    noPtr.checkPointers = false;
    CUdeviceptr p = out.ptr();
    int32_t value = 1;
    void *packed[] = {&p, &value};

    auto time = [&](const std::function<void()> &launch) {
      double best = 1e30;
      for (int r = 0; r < rounds; ++r) {
        stream.synchronize();
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < launches; ++i)
          launch();
        stream.synchronize();
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
      }
      return best;
    };
    // Warm-up: JIT, the configuration cache, the stream.
    for (int i = 0; i < 100; ++i)
      k.launch(cfg, out, int32_t(i));
    stream.synchronize();
    // Interleaved rounds would favour none; each variant gets its best of R.
    const double checked = time([&] { k.launch(cfg, out, value); });
    const double withoutPtr = time([&] { k.launch(noPtr, out, value); });
    const double raw = time([&] { k.launchUnchecked(cfg, packed); });
    std::vector<int32_t> v = out.toHost();
    if (v[0] != value) {
      std::printf("launch_bench: PROBLEM: the kernel wrote %d, expected %d\n", v[0], value);
      return 1;
    }
    std::printf("launch_bench: checked %.2f us, no-ptr %.2f us, raw %.2f us per launch; pointer "
                "checks %.2f us, all checks %.2f us (%d launches, best of %d, %s)\n",
                checked, withoutPtr, raw, checked - withoutPtr, checked - raw, launches, rounds,
                ctx.name().c_str());
    return 0;
  } catch (const std::exception &e) {
    std::printf("launch_bench: PROBLEM: %s\n", e.what());
    return 1;
  }
}
