"""C = A @ B on the tensor cores with samples/gemm/gemm.tile, from PyTorch.

    python3 python/examples/gemm.py [--m 4096 --n 4096 --k 4096]

A [M, K] and B [K, N] are torch.float16 CUDA tensors; the kernel `gemm` takes
B K-major (stored [N, K], i.e. B.T contiguous) and is persistent: the grid is
as many clusters as fit on the GPU. Checked against torch.matmul."""

import argparse

import torch

from _samples import sample_module

_module = None


def gemm_module():
    global _module
    if _module is None:
        _module = sample_module("samples/gemm/gemm.tile", "gemm_f16_mc.ptx",
                                defines={"T": ["f16"], "BN": [256, 128],
                                         "gemm_splitk.BN": [128], "gemm_splitk.S": [6],
                                         "gemm_splitk.NB": [1], "gemm_splitk_bmn.BN": [128],
                                         "ACT": [0]})  # no activation (tilec.ops.linear's)
    return _module


def matmul(a, b_nk, bn=256, out=None):
    """a [M, K] @ b_nk.T, with b_nk [N, K] (K-major B), all torch.float16."""
    m, k = a.shape
    n = b_nk.shape[0]
    kern = gemm_module().kernel("gemm", BN=bn, ACT=0)
    cluster = kern.cluster[0]
    if m % (128 * cluster) or n % bn or k % 64:
        raise ValueError(f"M must be a multiple of {128 * cluster}, N of {bn}, K of 64")
    c = torch.empty(m, n, dtype=torch.float16, device=a.device) if out is None else out
    units = (m // (128 * cluster)) * (n // bn)
    clusters = min(kern.max_active_clusters(device=a.device.index or 0), units)
    # The trailing (bias, bias_n) is the fused column bias (tilec.ops.linear's):
    # bias_n = 0 adds none and never reads the pointer (any device address).
    kern[clusters * cluster](a, b_nk, c, c, 0)  # the current torch stream
    return c


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--m", type=int, default=4096)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--k", type=int, default=4096)
    args = p.parse_args()
    torch.manual_seed(0)
    a = torch.randn(args.m, args.k, dtype=torch.float16, device="cuda")
    b = torch.randn(args.k, args.n, dtype=torch.float16, device="cuda")
    c = matmul(a, b.t().contiguous())
    ref = torch.matmul(a.float(), b.float())
    err = ((c.float() - ref).norm() / ref.norm()).item()
    print(f"gemm {args.m}x{args.n}x{args.k} f16: rel. Frobenius error vs torch.matmul "
          f"{err:.2e} ({'PASS' if err < 2e-3 else 'FAIL'})")
    return 0 if err < 2e-3 else 1


if __name__ == "__main__":
    raise SystemExit(main())
