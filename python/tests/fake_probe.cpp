// A C face of the fake libcuda.so.1's control surface (tests/unit/runtime/
// fakedriver/FakeCuda.h) for the Python tests, which reach it with ctypes:
// the fake's FakeState is a C++ struct, this library reads and sets it.
#include <dlfcn.h>

#include <cstdint>
#include <cstring>

#include "fakedriver/FakeCuda.h"

namespace {
FakeState *state() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return nullptr;
  auto get = reinterpret_cast<FakeState *(*)()>(dlsym(h, "fake_cuda_state"));
  return get ? get() : nullptr;
}
const FakeLaunch *last() {
  FakeState *s = state();
  return s && !s->launches.empty() ? &s->launches.back() : nullptr;
}
} // namespace

extern "C" {
// 1 when libcuda.so.1 is the fake (0: the real driver or none).
int probe_is_fake() { return state() != nullptr; }
void probe_reset() {
  if (FakeState *s = state())
    *s = FakeState{};
}
int probe_launch_count() { return state() ? int(state()->launches.size()) : -1; }
void probe_clear_launches() {
  if (FakeState *s = state())
    s->launches.clear();
}
// The last launch's kernel name into buf (NUL-terminated); 0 when there is none.
int probe_last_kernel(char *buf, size_t size) {
  const FakeLaunch *l = last();
  if (!l || size == 0)
    return 0;
  std::strncpy(buf, l->kernel.c_str(), size - 1);
  buf[size - 1] = 0;
  return 1;
}
// grid, block, cluster (3 each), shared bytes, has-cluster flag.
int probe_last_config(unsigned *out11, uint64_t *stream) {
  const FakeLaunch *l = last();
  if (!l)
    return 0;
  for (int i = 0; i < 3; ++i) {
    out11[i] = l->grid[i];
    out11[3 + i] = l->block[i];
    out11[6 + i] = l->cluster[i];
  }
  out11[9] = l->sharedBytes;
  out11[10] = l->hasCluster;
  *stream = reinterpret_cast<uint64_t>(l->stream);
  return 1;
}
// Record the first n kernel parameters of each launch, sizes[i] bytes each.
void probe_record_args(const size_t *sizes, size_t n) {
  if (FakeState *s = state())
    s->argSizes.assign(sizes, sizes + n);
}
// Bytes of recorded parameter i of the last launch into out; their count, or -1.
long probe_last_arg(size_t i, unsigned char *out, size_t size) {
  const FakeLaunch *l = last();
  if (!l || i >= l->args.size())
    return -1;
  const auto &a = l->args[i];
  std::memcpy(out, a.data(), a.size() < size ? a.size() : size);
  return long(a.size());
}
void probe_set_launch_result(int r) {
  if (FakeState *s = state())
    s->launchResult = static_cast<CUresult>(r);
}
int probe_encode_count() { return state() ? int(state()->encodes.size()) : -1; }
// The address cuTensorMapEncodeTiled call i encoded (0 past the last).
unsigned long long probe_encode_address(int i) {
  FakeState *s = state();
  return s && i >= 0 && size_t(i) < s->encodes.size() ? s->encodes[size_t(i)].address : 0;
}
// Devices 0..n-1 (cuDeviceGetCount's answer; at most 8).
void probe_set_device_count(int n) {
  if (FakeState *s = state())
    s->deviceCount = n;
}
int probe_pointer_queries() { return state() ? state()->pointerQueries : -1; }
int probe_module_loads() { return state() ? state()->moduleLoads : -1; }
int probe_links() { return state() ? state()->links : -1; }
}
