// Shared by the fake-driver tests: access to the fake libcuda.so.1's control surface.
#pragma once

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <functional>
#include <string>

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

/// Module options that keep the on-disk cubin cache out of a test.
inline tile::ModuleOptions noCache() {
  tile::ModuleOptions o;
  o.useCache = false;
  return o;
}

/// The text of what `f` throws, or "no error".
inline std::string errorText(const std::function<void()> &f) {
  try {
    f();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "no error";
}
