//===- PeerMaps.cpp - per-peer tensor map arrays of a symmetric tensor -----===//
//
// `copy_async(peer(A, d)[...], tile)` is a TMA copy through rank d's map of A:
// the kernel indexes `A$peer_maps`, an array of world 128-byte CUtensorMaps in
// global memory (64-byte aligned, as cp.async.bulk.tensor requires of a
// tensor-map operand in .global; PTX ISA "Tensor-map"), entry r the same box,
// swizzle and extents over rank r's part. Encoding world maps and uploading
// them at every launch would cost world driver calls and a copy per launch:
// the array is made once per (allocation, map of the own part) and kept with
// the allocation.
//===----------------------------------------------------------------------===//
#include "PeerBinding.h"
#include "RuntimeState.h"
#include "tile/runtime.h"

namespace tile::detail {

PeerMapCache::~PeerMapCache() {
  for (auto &[desc, ptr] : arrays_)
    memFree(ctx_, ptr);
}

size_t PeerMapCache::uploads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return arrays_.size();
}

CUdeviceptr PeerMapCache::arrayFor(const TensorMapDesc &own, const std::vector<CUdeviceptr> &peers,
                                   int rank, const std::string &kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = arrays_.find(own);
  if (it != arrays_.end())
    return it->second;
  const CUdeviceptr offset = own.address - peers[size_t(rank)];
  std::vector<TensorMap> maps(peers.size());
  for (size_t r = 0; r < peers.size(); ++r) {
    TensorMapDesc d = own;
    d.address = peers[r] + offset;
    std::string why = checkTensorMap(d);
    if (!why.empty())
      throw Error::withMessage("Kernel::launch", CUDA_ERROR_INVALID_VALUE, kernel,
                               "kernel '" + kernel + "': the tensor map of rank " +
                                   std::to_string(r) + "'s part, " + describeTensorMap(d) + ": " +
                                   why);
    maps[r] = TensorMap::encode(d, kernel);
  }
  const size_t bytes = maps.size() * TensorMap::size();
  CUdeviceptr p = memAlloc(ctx_, bytes); // cuMemAlloc: 256-byte aligned, each map 64-byte
  try {
    ScopedContext current(ctx_.get());
    copyHtoD(p, maps.data(), bytes);
    // A copy from pageable memory may return before its DMA lands; the kernel
    // that reads the maps may run on another (non-blocking) stream.
    check(TILE_CU_RAW(cuStreamSynchronize, nullptr), "cuStreamSynchronize", kernel);
  } catch (...) {
    memFree(ctx_, p);
    throw;
  }
  arrays_.emplace(own, p);
  return p;
}

} // namespace tile::detail
