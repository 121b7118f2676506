// tilec embedding sample: compile a kernel from a string with tile::compile, then,
// when a CUDA device is present, load the PTX with the runtime, launch and check.
#include <tile/runtime.h>
#include <tilec/Compiler.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

static const char *kSource = R"(
// c[i] = a[i] * s + b[i]
kernel saxpy(a: ptr<f32, global>, b: ptr<f32, global>, c: ptr<f32, global>, s: f32, n: i32) threads(256) {
  for i in grid_range(n) {
    c[i] = a[i] * s + b[i]
  }
}
)";

int main() {
  tile::CompileOptions options;
  options.fileName = "saxpy.tile";
  tile::CompileResult result = tile::compile(kSource, options);
  if (!result.ok) {
    std::fprintf(stderr, "compile failed:\n%s\n", result.diagnostics.c_str());
    return 1;
  }
  std::printf("compiled saxpy.tile: %zu bytes of PTX for %s\n", result.output.size(),
              options.arch.c_str());

  if (tile::deviceCount() == 0) {
    std::printf("no CUDA device: compiled only\n");
    return 0;
  }

  try {
    tile::Context ctx;
    std::printf("device: %s (%s)\n", ctx.name().c_str(), ctx.arch().c_str());
    // With the kernel info tile::compile returns, so that the launch is
    // checked (argument kinds, pointers, block shape) against this kernel.
    tile::ModuleInfo info;
    info.arch = options.arch;
    info.kernels = result.kernels;
    tile::Module module = tile::Module::fromPtx(ctx, result.output, info);
    tile::Kernel saxpy = module.kernel("saxpy");

    const int n = 1 << 20;
    const float s = 2.5f;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      a[i] = static_cast<float>(i % 1000) * 0.5f;
      b[i] = static_cast<float>(i % 7) - 3.0f;
    }
    tile::DeviceBuffer<float> da(n), db(n), dc(n);
    da.copyFrom(a);
    db.copyFrom(b);
    dc.fillBytes(0);

    tile::LaunchConfig cfg;
    cfg.block = tile::Dim3(256);
    cfg.grid = tile::Dim3(static_cast<unsigned>(2 * ctx.smCount()));
    saxpy.launch(cfg, da, db, dc, s, n);
    ctx.synchronize();

    std::vector<float> c = dc.toHost();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      float want = a[i] * s + b[i];
      if (std::fabs(c[i] - want) > 1e-5f * std::fabs(want) + 1e-5f) {
        if (bad < 5)
          std::fprintf(stderr, "c[%d] = %g, expected %g\n", i, c[i], want);
        ++bad;
      }
    }
    if (bad) {
      std::fprintf(stderr, "FAILED: %d of %d wrong\n", bad, n);
      return 1;
    }
    std::printf("saxpy on %d elements: OK%s\n", n,
                module.loadedFromCache() ? " (cubin from cache)" : "");
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "tilec runtime error: %s\n", e.what());
    return 1;
  }
  return 0;
}
