// Shared by the fake-driver tests: access to the fake libcuda.so.1's control surface.
#pragma once

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include "fakedriver/FakeCuda.h"
#include "tile/runtime.h"

inline void *fakeDriverHandle() {
  REQUIRE(tile::driverAvailable());
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  return h;
}

inline FakeState &fake() {
  auto get = reinterpret_cast<FakeState *(*)()>(dlsym(fakeDriverHandle(), "fake_cuda_state"));
  if (!get)
    FAIL("libcuda.so.1 is the real driver, not the fake: run through ctest (LD_LIBRARY_PATH)");
  return *get();
}

// Whether the loaded fake defines cuFuncGetParamInfo (the CUDA 12.4+ one) or plays
// an older driver.
inline bool fakeHasParamInfo() {
  auto has = reinterpret_cast<int (*)()>(dlsym(fakeDriverHandle(), "fake_cuda_has_param_info"));
  REQUIRE(has != nullptr);
  return has() != 0;
}

inline void reset() {
  FakeState &s = fake();
  s = FakeState{};
}
