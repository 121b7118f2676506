// The one place the runtime asks NCCL's device API for peers' addresses: for a
// symmetric window, ncclGetLsaPointer(window, 0, lsaRank) for lsaRank in
// [first, first + count). Compiled to PTX at build time against the toolkit's
// nccl_device.h (the window's layout is NCCL's business: only its public
// device function reads it), embedded in the runtime and JIT-loaded on first
// use. The runtime refuses a libnccl whose version differs from the headers'.
#include <nccl_device.h>

extern "C" __global__ void tile_nccl_lsa_pointers(ncclWindow_t window, int first, int count,
                                                  unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    out[i] = reinterpret_cast<unsigned long long>(ncclGetLsaPointer(window, 0, first + i));
}
