// safety_test: the runtime's safety checks against the real driver. Every
// mistake runs in its own process (this program re-executed with --case
// NAME, so a crash or a sticky CUDA error cannot hide another case's
// outcome): the mistake must throw a tile::Error whose text names what was
// expected and given, and the kernel must not have run (its output buffer,
// filled with 0x5a bytes, is untouched after a synchronisation). Two correct
// programs must pass. Kernels: tests/gpu/safety.tile (safety.ptx and
// safety.info.json in the PTX directory).
//
//   safety_test [--ptx-dir DIR]          all cases; exit 0, 1 (a case failed)
//                                        or 77 ("SKIP: no CUDA device")
//   safety_test --case NAME [--ptx-dir DIR]
#include "tile/runtime.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string g_ptxDir;

std::string ptxPath() { return g_ptxDir + "/safety.ptx"; }

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}
std::string replaced(std::string s, const std::string &from, const std::string &to) {
  const size_t at = s.find(from);
  if (at == std::string::npos) {
    std::printf("  (test setup: '%s' not found)\n", from.c_str());
    std::exit(1);
  }
  return s.replace(at, from.size(), to);
}
std::string tempPath(const std::string &name) {
  return "/tmp/tilec_safety_" + std::to_string(getpid()) + "_" + name;
}

constexpr unsigned char kUntouched = 0x5a;
constexpr size_t kOut = 4 * 1024;

// One mistake: `mistake` must throw a tile::Error containing every string of
// `expected`; then nothing may have written `out`.
int expectRefused(tile::Context &ctx, tile::DeviceBuffer<int32_t> &out,
                  const std::vector<std::string> &expected, const std::function<void()> &mistake) {
  std::string text;
  try {
    mistake();
    std::printf("  no error was raised\n");
    return 1;
  } catch (const tile::Error &e) {
    text = e.what();
  }
  std::printf("  error: %s\n", text.c_str());
  int bad = 0;
  for (const std::string &want : expected)
    if (text.find(want) == std::string::npos) {
      std::printf("  MISSING in the error: '%s'\n", want.c_str());
      bad = 1;
    }
  ctx.synchronize();
  std::vector<int32_t> host = out.toHost();
  const unsigned char *bytes = reinterpret_cast<const unsigned char *>(host.data());
  for (size_t i = 0; i < host.size() * sizeof(int32_t); ++i)
    if (bytes[i] != kUntouched) {
      std::printf("  the kernel ran: output byte %zu is 0x%02x\n", i, bytes[i]);
      return 1;
    }
  return bad;
}

tile::LaunchConfig fillConfig(unsigned threads = 1024) {
  tile::LaunchConfig c;
  c.grid = tile::Dim3(2);
  c.block = tile::Dim3(threads);
  return c;
}

int runCase(const std::string &name) {
  if (tile::deviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  tile::Context ctx(0);
  tile::DeviceBuffer<int32_t> out(kOut);
  out.fillBytes(kUntouched);
  auto module = [&] { return tile::Module::fromFiles(ctx, ptxPath()); };
  const std::string fill = "kernel 'fill1024': ";

  if (name == "good_fill") { // a correct program runs
    tile::Stream s;
    tile::LaunchConfig c = fillConfig();
    c.stream = s;
    module().kernel("fill1024").launch(c, out, int32_t(7));
    s.synchronize();
    std::vector<int32_t> host = out.toHost();
    for (size_t i = 0; i < 2048; ++i)
      if (host[i] != 7 + int32_t(i % 1024)) {
        std::printf("  out[%zu] = %d, expected %d\n", i, host[i], 7 + int32_t(i % 1024));
        return 1;
      }
    return 0;
  }
  if (name == "good_tensor") {
    tile::DeviceBuffer<int32_t> a(64 * 32);
    std::vector<int32_t> host(64 * 32);
    for (size_t i = 0; i < host.size(); ++i)
      host[i] = int32_t(i % 32);
    a.copyFrom(host);
    tile::LaunchConfig c;
    c.grid = tile::Dim3(2);
    c.block = tile::Dim3(32);
    module().kernel("colsum").launch(c, tile::Tensor(a, {64, 32}), out);
    ctx.synchronize();
    std::vector<int32_t> sums = out.toHost();
    for (size_t i = 0; i < 64; ++i)
      if (sums[i] != 32 * int32_t(i % 32)) {
        std::printf("  out[%zu] = %d, expected %d\n", i, sums[i], 32 * int32_t(i % 32));
        return 1;
      }
    return 0;
  }
  if (name == "block_256_for_threads_1024")
    return expectRefused(ctx, out,
                         {fill + "block (256, 1, 1) differs from the block shape (1024, 1, 1)"},
                         [&] { module().kernel("fill1024").launch(fillConfig(256), out, 7); });
  if (name == "block_256_without_info")
    return expectRefused(
        ctx, out, {fill + "block (256, 1, 1) differs from the block shape (1024, 1, 1)"}, [&] {
          tile::Module::fromFile(ctx, ptxPath(), tile::ModuleOptions::launchWithoutInfo())
              .kernel("fill1024")
              .launch(fillConfig(256), out, 7);
        });
  if (name == "no_info_without_opt_in")
    return expectRefused(ctx, out,
                         {fill + "the kernel has no kernel info", "ModuleOptions::withoutKernelInfo"},
                         [&] {
                           tile::Module::fromFile(ctx, ptxPath())
                               .kernel("fill1024")
                               .launch(fillConfig(), out, 1.5f);
                         });
  if (name == "float_for_i32")
    return expectRefused(ctx, out, {fill + "argument 1 is a 4-byte float but parameter 1 ('value', i32)"},
                         [&] { module().kernel("fill1024").launch(fillConfig(), out, 1.5f); });
  if (name == "destroyed_stream")
    return expectRefused(ctx, out, {fill + "cfg.stream names a tile::Stream that has been destroyed"},
                         [&] {
                           tile::LaunchConfig c = fillConfig();
                           { // the config outlives the stream
                             tile::Stream s;
                             c.stream = s;
                           }
                           module().kernel("fill1024").launch(c, out, 7);
                         });
  if (name == "moved_from_stream")
    return expectRefused(ctx, out, {fill + "cfg.stream names a tile::Stream that has been destroyed or moved from"}, [&] {
      tile::Stream s;
      tile::Stream taken(std::move(s));
      tile::LaunchConfig c = fillConfig();
      c.stream = s; // the moved-from stream names no stream
      module().kernel("fill1024").launch(c, out, 7);
    });
  if (name == "null_pointer")
    return expectRefused(ctx, out, {fill + "argument 0 ('out', ptr<i32, global>) is a null pointer"},
                         [&] { module().kernel("fill1024").launch(fillConfig(), CUdeviceptr(0), 7); });
  if (name == "moved_from_buffer")
    return expectRefused(ctx, out, {"is a null pointer (an empty DeviceBuffer: moved from"}, [&] {
      tile::DeviceBuffer<int32_t> b(kOut);
      tile::DeviceBuffer<int32_t> taken(std::move(b));
      module().kernel("fill1024").launch(fillConfig(), b, 7);
    });
  if (name == "host_pointer") {
    std::vector<int32_t> host(kOut);
    // (On a system whose GPU can address pageable memory the driver may call
    // it host memory instead of no allocation: refused either way.)
    return expectRefused(ctx, out, {fill + "argument 0 ('out', ptr<i32, global>) is 0x"},
                         [&] {
                           module().kernel("fill1024").launch(fillConfig(),
                                                              CUdeviceptr(host.data()), 7);
                         });
  }
  if (name == "freed_pointer") {
    CUdeviceptr freed = 0;
    {
      tile::DeviceBuffer<int32_t> b(kOut);
      freed = b.ptr();
    }
    return expectRefused(ctx, out, {"an address the driver knows no allocation at"},
                         [&] { module().kernel("fill1024").launch(fillConfig(), freed, 7); });
  }
  if (name == "tensor_over_freed_buffer")
    return expectRefused(ctx, out, {"kernel 'colsum': tensor argument 0 ('A', tensor<i32>[M, 32])",
                                    "a view of a DeviceBuffer that has been freed"},
                         [&] {
                           auto a = std::make_unique<tile::DeviceBuffer<int32_t>>(64 * 32);
                           tile::Tensor t(*a, {64, 32});
                           a.reset();
                           tile::LaunchConfig c;
                           c.grid = tile::Dim3(2);
                           c.block = tile::Dim3(32);
                           module().kernel("colsum").launch(c, t, out);
                         });
  if (name == "tensor_larger_than_allocation")
    return expectRefused(ctx, out, {"kernel 'colsum': tensor argument 0 ('A', tensor<i32>[M, 32])",
                                    "which spans 16384 bytes", "the allocation there is 8192 bytes",
                                    "read past its allocation"},
                         [&] {
                           tile::DeviceBuffer<int32_t> a(64 * 32);
                           tile::Tensor t(a.ptr(), tile::TensorElement::I32, {128, 32});
                           tile::LaunchConfig c;
                           c.grid = tile::Dim3(2);
                           c.block = tile::Dim3(32);
                           module().kernel("colsum").launch(c, t, out);
                         });
  if (name == "info_of_another_build") {
    const std::string info = tempPath("other.info.json");
    writeFile(info, replaced(readFile(g_ptxDir + "/safety.info.json"), "\"threads\": [1024, 1, 1]",
                             "\"threads\": [256, 1, 1]"));
    return expectRefused(ctx, out,
                         {fill + "the kernel info's threads are (256, 1, 1) but the PTX's .reqntid "
                                 "is (1024, 1, 1)",
                          "does not belong to this PTX"},
                         [&] { tile::Module::fromFiles(ctx, ptxPath(), info); });
  }
  if (name == "info_fingerprint") {
    const std::string ptx = tempPath("edited.ptx"), info = tempPath("edited.info.json");
    writeFile(ptx, readFile(ptxPath()) + "// edited after tilec wrote it\n");
    writeFile(info, readFile(g_ptxDir + "/safety.info.json"));
    return expectRefused(ctx, out, {"the kernel info was written for PTX with fingerprint",
                                    "but this PTX's fingerprint is"},
                         [&] { tile::Module::fromFiles(ctx, ptx, info); });
  }
  if (name == "truncated_ptx") {
    const std::string ptx = readFile(ptxPath());
    return expectRefused(ctx, out, {"Module::fromPtx: the PTX is truncated: it ends at line"},
                         [&] { tile::Module::fromPtx(ctx, ptx.substr(0, ptx.size() / 2)); });
  }
  if (name == "newer_target")
    return expectRefused(ctx, out, {"the PTX targets sm_120a", "but the device is sm_"}, [&] {
      tile::Module::fromPtx(ctx, replaced(readFile(ptxPath()), ".target sm_90a", ".target sm_120a"));
    });
  if (name == "newer_ptx_isa") {
    if (std::getenv("TILEC_GPU_TEST_SMALL")) {
      // Under compute-sanitizer (gpu_run.sh sets this): the driver's refusal
      // is an API error the sanitizers count.
      std::printf("  not run under the sanitizers\n");
      return 0;
    }
    std::string ptx = readFile(ptxPath());
    const size_t v = ptx.find(".version ");
    const size_t end = ptx.find('\n', v);
    ptx.replace(v, end - v, ".version 9.9");
    return expectRefused(ctx, out, {"the PTX is .version 9.9 but this driver", "JIT-compiles PTX ISA"},
                         [&] { tile::Module::fromPtx(ctx, ptx); });
  }
  if (name == "thread_without_context") {
    tile::Kernel k = module().kernel("fill1024");
    return expectRefused(ctx, out, {fill + "the kernel is loaded in device 0's primary context",
                                    "the calling thread has no current context"},
                         [&] {
                           std::string text;
                           std::thread t([&] {
                             try {
                               k.launch(fillConfig(), out, 7);
                             } catch (const tile::Error &e) {
                               text = e.what();
                             }
                           });
                           t.join();
                           if (!text.empty())
                             throw tile::Error::withMessage("Kernel::launch", 1, "fill1024", text);
                         });
  }
  std::printf("  unknown case '%s'\n", name.c_str());
  return 2;
}

const char *const kCases[] = {"good_fill",
                              "good_tensor",
                              "block_256_for_threads_1024",
                              "block_256_without_info",
                              "no_info_without_opt_in",
                              "float_for_i32",
                              "destroyed_stream",
                              "moved_from_stream",
                              "null_pointer",
                              "moved_from_buffer",
                              "host_pointer",
                              "freed_pointer",
                              "tensor_over_freed_buffer",
                              "tensor_larger_than_allocation",
                              "info_of_another_build",
                              "info_fingerprint",
                              "truncated_ptx",
                              "newer_target",
                              "newer_ptx_isa",
                              "thread_without_context"};

} // namespace

int main(int argc, char **argv) {
  g_ptxDir = std::getenv("TILEC_PTX_DIR") ? std::getenv("TILEC_PTX_DIR") : TILEC_SAMPLE_PTX_DIR;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--case"))
      only = argv[i + 1];
    else if (!std::strcmp(argv[i], "--ptx-dir"))
      g_ptxDir = argv[i + 1];
  }
  if (!only.empty()) {
    try {
      return runCase(only);
    } catch (const std::exception &e) {
      std::printf("  unexpected exception: %s\n", e.what());
      return 1;
    }
  }
  // The parent touches no CUDA state: each case is a fresh process.
  int failed = 0, passed = 0;
  for (const char *c : kCases) {
    std::printf("case %s\n", c);
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/proc/self/exe", argv[0], "--case", c, "--ptx-dir", g_ptxDir.c_str(),
            static_cast<char *>(nullptr));
      std::_Exit(2);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc == 77) { // no device: every case would say so
      std::printf("SKIP: no CUDA device\n");
      return 77;
    }
    std::printf("%s %s (exit %d)\n", rc == 0 ? "PASS" : "FAIL", c, rc);
    (rc == 0 ? passed : failed)++;
  }
  std::printf("safety_test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
