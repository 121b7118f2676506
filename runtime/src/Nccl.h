//===- Nccl.h - libnccl.so.2 loaded with dlopen (internal) ------*- C++ -*-===//
//
// The distributed layer reaches NCCL only through this table, as the rest of the
// runtime reaches the driver through Driver.h: nothing links against NCCL (a
// build without it still links), and the unit tests put a fake libnccl.so.2 on
// LD_LIBRARY_PATH. Only the host API of nccl.h is used; peers' addresses come
// from NCCL's device API (ncclGetLsaPointer) in a helper kernel compiled from
// nccl_device.h at build time (NcclLsaHelper.cu).
//===----------------------------------------------------------------------===//
#pragma once

#include <nccl.h>
#include <nccl_device/core.h> // ncclTeam_t and the host team functions

#include <string>

#include "tile/distributed.h"

namespace tile::detail {

// clang-format off
#define TILE_NCCL_FUNCTIONS(X)                                                         \
  X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommDestroy)         \
  X(ncclCommAbort) X(ncclCommCount) X(ncclCommCuDevice) X(ncclCommUserRank)           \
  X(ncclGetErrorString) X(ncclGetLastError) X(ncclMemAlloc) X(ncclMemFree)            \
  X(ncclCommWindowRegister) X(ncclCommWindowDeregister) X(ncclAllGather)
// clang-format on

// The team functions are overloaded in nccl_device/core.h (a host C function
// and an inline C++ one on ncclDevComm): their host types are spelled out.
using NcclTeamFn = ncclTeam_t (*)(ncclComm_t);
using NcclTeamRankToLsaFn = int (*)(ncclComm_t, ncclTeam_t, int);
#define TILE_NCCL_TYPED_FUNCTIONS(X)                                                               \
  X(ncclTeamWorld, NcclTeamFn) X(ncclTeamLsa, NcclTeamFn) X(ncclTeamRankToLsa, NcclTeamRankToLsaFn)

struct NcclApi {
#define TILE_DECLARE_NCCL_FN(fn) decltype(&::fn) fn = nullptr;
  TILE_NCCL_FUNCTIONS(TILE_DECLARE_NCCL_FN)
#undef TILE_DECLARE_NCCL_FN
#define TILE_DECLARE_TYPED_NCCL_FN(fn, type) type fn = nullptr;
  TILE_NCCL_TYPED_FUNCTIONS(TILE_DECLARE_TYPED_NCCL_FN)
#undef TILE_DECLARE_TYPED_NCCL_FN
};

struct Nccl {
  void *handle = nullptr;
  std::string path;      // the library that was loaded
  std::string loadError; // why none could be loaded
  std::string missing;   // entry points the library lacks (", "-separated)
  int version = 0;       // ncclGetVersion
  NcclApi api;
};

// The places tried, in order: $TILEC_NCCL_LIBRARY, "libnccl.so.2" (the loader's
// search path), then the toolkit's copy found at build time.
Nccl loadNccl(const std::vector<std::string> &candidates);
std::vector<std::string> ncclCandidates();
// Loaded once (thread-safe); never throws.
const Nccl &nccl();

// "ncclInvalidArgument" for 4, "ncclResult 42" when unknown.
std::string ncclResultName(int result);

// Throws a DistributedError naming `call`, NCCL's error string, its last error
// text for `comm` (when given) and the rank.
[[noreturn]] void throwNccl(const char *call, ncclResult_t r, int rank, ncclComm_t comm);

// " [rank R]", or "" before a rank is known (the launcher's ncclGetUniqueId).
inline std::string rankSuffix(int rank) {
  return rank < 0 ? std::string() : " [rank " + std::to_string(rank) + "]";
}

template <class F> F ncclFn(F NcclApi::*member, const char *call, int rank) {
  const Nccl &n = nccl();
  if (!n.handle)
    throw DistributedError(Error::withMessage(call, CUDA_ERROR_NOT_FOUND, {},
                                              std::string(call) + " failed: NCCL is missing (" +
                                                  n.loadError + ")" + rankSuffix(rank)),
                           rank);
  F f = n.api.*member;
  if (!f)
    throw DistributedError(
        Error::withMessage(call, CUDA_ERROR_NOT_SUPPORTED, {},
                           std::string(call) + " failed: " + n.path +
                               " does not provide this entry point (NCCL 2.28 or newer "
                               "is needed)" +
                               rankSuffix(rank)),
        rank);
  return f;
}

} // namespace tile::detail

// TILE_NCCL(rank, comm, ncclFn, args...): calls through the table and throws a
// DistributedError naming the call and the rank when the result is not ncclSuccess.
#define TILE_NCCL(rank, comm, fn, ...)                                                             \
  do {                                                                                             \
    ncclResult_t tile_nccl_r =                                                                     \
        ::tile::detail::ncclFn(&::tile::detail::NcclApi::fn, #fn, rank)(__VA_ARGS__);              \
    if (tile_nccl_r != ncclSuccess)                                                                \
      ::tile::detail::throwNccl(#fn, tile_nccl_r, rank, comm);                                     \
  } while (0)
