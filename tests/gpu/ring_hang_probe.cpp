// ring_hang_probe: launches tests/gpu/ring_hang.tile (compiled with tilec
// --debug-hangs) on 2 CTAs of 256 threads with the given produce and consume
// counts, and reports what happened. With --mma, tests/gpu/ring_hang_mma.tile
// (one CTA of 384 threads, A and B all ones: C = 64 * consumes), whose
// report comes from the runtime's hang record in the synchronisation's error.
//
//   ring_hang_probe --ptx FILE --produces P --consumes C [--mma 1]
//
// Exit 0: the kernel completed with the right sums (P == C). Exit 3: the
// launch or the synchronisation failed (the --debug-hangs trap); the kernel's
// printf report goes to stdout when the driver flushes it. Exit 1: wrong
// sums. Exit 2: bad arguments or an unreadable PTX file. Exit 77: no CUDA
// device.
#include "tile/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  std::string ptxPath;
  int produces = 4, consumes = 4;
  bool mma = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--ptx")
      ptxPath = argv[i + 1];
    else if (flag == "--produces")
      produces = std::atoi(argv[i + 1]);
    else if (flag == "--consumes")
      consumes = std::atoi(argv[i + 1]);
    else if (flag == "--mma")
      mma = std::atoi(argv[i + 1]) != 0;
  }
  if (ptxPath.empty()) {
    std::fprintf(stderr, "usage: ring_hang_probe --ptx FILE --produces P --consumes C\n");
    return 2;
  }
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  if (mma) {
    try {
      tile::Context ctx(0);
      tile::Module module = tile::Module::fromFiles(ctx, ptxPath);
      tile::Kernel kernel = module.kernel("ring_hang_mma");
      const int64_t M = 128, N = 64, K = 128;
      const uint16_t one = 0x3C00; // f16 1.0
      tile::DeviceBuffer<uint16_t> dA(size_t(M * K)), dB(size_t(N * K));
      dA.copyFrom(std::vector<uint16_t>(size_t(M * K), one));
      dB.copyFrom(std::vector<uint16_t>(size_t(N * K), one));
      tile::DeviceBuffer<float> c(size_t(M * N));
      c.fillBytes(0);
      tile::LaunchConfig cfg;
      cfg.grid = tile::Dim3(1);
      cfg.block = tile::Dim3(384);
      kernel.launch(cfg, tile::Tensor(dA.ptr(), tile::TensorElement::F16, {M, K}),
                    tile::Tensor(dB.ptr(), tile::TensorElement::F16, {N, K}), c.ptr(),
                    static_cast<int32_t>(produces), static_cast<int32_t>(consumes));
      ctx.synchronize();
      size_t bad = 0;
      for (float v : c.toHost())
        bad += v != float(64 * consumes);
      if (bad) {
        std::printf("ring_hang_probe: %zu wrong elements of C\n", bad);
        return 1;
      }
      std::printf("ring_hang_probe: completed, C exact (produces = consumes = %d)\n", consumes);
      return 0;
    } catch (const std::exception &e) {
      std::printf("ring_hang_probe: launch failed: %s\n", e.what());
      return 3;
    }
  }
  const int32_t K = 64, N = 32, ctas = 2;
  std::vector<int32_t> a(K * N);
  for (int32_t i = 0; i < K * N; ++i)
    a[i] = i;
  try {
    tile::Context ctx(0);
    // The kernel info beside the PTX (ring_hang_debug.info.json) checks the launch.
    tile::Module module = tile::Module::fromFiles(ctx, ptxPath);
    tile::Kernel kernel = module.kernel("ring_hang");
    tile::DeviceBuffer<int32_t> dA(a.size()), out(size_t(ctas) * 128);
    dA.copyFrom(a);
    out.fillBytes(0xA5);
    tile::LaunchConfig cfg;
    cfg.grid = tile::Dim3(ctas);
    cfg.block = tile::Dim3(256);
    kernel.launch(cfg, tile::Tensor(dA, {K, N}), out.ptr(), static_cast<int32_t>(produces),
                  static_cast<int32_t>(consumes));
    ctx.synchronize();
    std::vector<int32_t> got = out.toHost();
    std::fflush(stdout);
    size_t bad = 0;
    for (int32_t b = 0; b < ctas; ++b)
      for (int32_t t = 0; t < 128; ++t) {
        int32_t want = 0;
        for (int32_t k = 0; k < consumes; ++k)
          want += a[size_t((k * 8) % K + t % 8) * N + t % 32];
        bad += got[size_t(b) * 128 + t] != want;
      }
    if (bad) {
      std::printf("ring_hang_probe: %zu wrong sums\n", bad);
      return 1;
    }
    std::printf("ring_hang_probe: completed, sums exact (produces = consumes = %d)\n", consumes);
    return 0;
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::printf("ring_hang_probe: launch failed: %s\n", e.what());
    return 3;
  }
}
