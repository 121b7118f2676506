// hang_probe: launches tests/gpu/hang.tile (compiled with tilec --debug-hangs)
// on 2 CTAs (one cluster of 2) x 32 threads and reports what happened.
//
//   hang_probe --ptx FILE --expect BYTES
//
// Exit 0: the kernel completed and wrote {1, 2, 3, 4} for both CTAs (printed:
//         "hang_probe: CTA b values: 1 2 3 4").
// Exit 3: the launch or the synchronisation failed (the --debug-hangs trap);
//         the exception text is printed. The kernel's printf report goes to
//         stdout when the driver flushes it at the synchronisation.
// Exit 1: the kernel completed with wrong values. Exit 2: bad arguments or an
//         unreadable PTX file. Exit 77: no CUDA device.
#include "tile/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  std::string ptxPath;
  int expect = 16;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--ptx")
      ptxPath = argv[i + 1];
    else if (flag == "--expect")
      expect = std::atoi(argv[i + 1]);
  }
  if (ptxPath.empty()) {
    std::fprintf(stderr, "usage: hang_probe --ptx FILE --expect BYTES\n");
    return 2;
  }
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  std::ifstream in(ptxPath);
  if (!in) {
    std::fprintf(stderr, "hang_probe: cannot open '%s'\n", ptxPath.c_str());
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    tile::Context ctx(0);
    tile::Module module = tile::Module::fromPtx(ctx, text.str(), tile::ModuleOptions::launchWithoutInfo());
    tile::Kernel kernel = module.kernel("hang");
    tile::DeviceBuffer<int32_t> out(8);
    out.fillBytes(0xA5);
    tile::LaunchConfig cfg;
    cfg.grid = tile::Dim3(2);
    cfg.block = tile::Dim3(32);
    cfg.cluster = tile::Dim3(2);
    kernel.launch(cfg, out.ptr(), static_cast<int32_t>(expect));
    ctx.synchronize();
    std::vector<int32_t> got = out.toHost();
    std::fflush(stdout);
    bool exact = true;
    for (int b = 0; b < 2; ++b) {
      std::printf("hang_probe: CTA %d values:", b);
      for (int k = 0; k < 4; ++k)
        std::printf(" %d", got[b * 4 + k]);
      std::printf("\n");
      for (int k = 0; k < 4; ++k)
        if (got[b * 4 + k] != k + 1) {
          std::printf("hang_probe: CTA %d value %d is %d, expected %d\n", b, k, got[b * 4 + k],
                      k + 1);
          exact = false;
        }
    }
    if (!exact)
      return 1;
    std::printf("hang_probe: completed, values exact (expect = %d)\n", expect);
    return 0;
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::printf("hang_probe: launch failed: %s\n", e.what());
    return 3;
  }
}
