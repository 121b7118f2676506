// Links against the runtime taken through add_subdirectory and uses the driver-free
// parts (launch checks, argument checks) plus deviceCount(), which never throws.
#include <tile/runtime.h>

#include <cstdio>

int main() {
  tile::LaunchConfig cfg;
  cfg.grid = tile::Dim3(4);
  cfg.block = tile::Dim3(1024, 2);
  std::string launch = tile::checkLaunch("k", cfg, tile::LaunchLimits{});
  size_t sizes[] = {4};
  std::string args = tile::checkArguments("k", sizes, 1, {{0, 8, "k_param_0"}});
  if (launch.empty() || args.empty()) {
    std::printf("runtime_consumer: checks did not fire\n");
    return 1;
  }
  std::printf("runtime_consumer: %d CUDA device(s); %s; %s\n", tile::deviceCount(), launch.c_str(),
              args.c_str());
  return 0;
}
