// The control surface of the fake libnccl.so.2 used by the distributed tests
// (FakeDistributedTest.cpp): one process plays one rank; what the other ranks
// would contribute is simulated by the knobs.
#pragma once

#include <nccl.h>

#include <string>
#include <vector>

struct FakeNcclState {
  // Knobs.
  int version = 22809;  // ncclGetVersion
  std::string failCall; // this entry point answers failResult...
  ncclResult_t failResult = ncclSystemError;
  std::string lastError;          // ...and ncclGetLastError says this
  int lsaSize = -1;               // ranks in this rank's LSA team (-1: all of them)
  bool nullWindow = false;        // ncclCommWindowRegister "succeeds" with a null window
  int nullPeer = -1;              // this LSA rank's pointer in the window is 0
  long long selfPointerDelta = 0; // added to this rank's own pointer in the window
  int reportedDevice = -1;        // ncclCommCuDevice (-1: the rank)
  // ncclAllGather number `mismatchGather` (0-based) gives rank mismatchRank's
  // slot every value xor mismatchXor: that rank "passed" something else.
  int mismatchGather = -1, mismatchRank = 1;
  unsigned long long mismatchXor = 0;
  // Records.
  int uniqueIds = 0, inits = 0, destroys = 0, initNranks = 0, initRank = -1;
  std::vector<unsigned char> initId;
  int allocs = 0, frees = 0, registers = 0, deregisters = 0, gathers = 0;
  std::vector<int> windowFlags;
  std::vector<size_t> registeredBytes;
  std::string nvlsEnableAtInit; // NCCL_NVLS_ENABLE when ncclCommInitRank ran ("<unset>")
};

extern "C" FakeNcclState *fake_nccl_state();
