// Shared by the fake-NCCL tests (FakeDistributedTest, FakePeerTest): the fake
// libnccl.so.2's control surface, and a clean fake driver + fake NCCL.
#pragma once

#include "FakeDriverSupport.h"
#include "fakenccl/FakeNccl.h"

inline FakeNcclState &fakeNccl() {
  void *h = dlopen("libnccl.so.2", RTLD_NOW);
  REQUIRE(h != nullptr);
  auto get = reinterpret_cast<FakeNcclState *(*)()>(dlsym(h, "fake_nccl_state"));
  if (!get)
    FAIL("libnccl.so.2 is the real NCCL, not the fake: run through ctest (LD_LIBRARY_PATH)");
  return *get();
}

/// The fake driver reset with `devices` devices, and the fake NCCL reset.
inline void resetFakeDriverAndNccl(int devices = 2) {
  reset();
  fake().deviceCount = devices;
  fakeNccl() = FakeNcclState{};
}
