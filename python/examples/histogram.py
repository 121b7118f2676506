"""The DSMEM cluster histogram (samples/histogram/histogram.tile) on a torch
tensor, checked against torch.bincount.

    python3 python/examples/histogram.py [--n 16777216 --bins 1024]"""

import argparse

import torch

from _samples import sample_module


def histogram(values, nbins, block=512):
    """Counts of `values` (torch.int32, CUDA) in nbins bins; out-of-range
    values go to the edge bins (the kernel clamps)."""
    kern = sample_module("samples/histogram/histogram.tile", "histogram.ptx").histogram
    bins = torch.zeros(nbins, dtype=torch.int32, device=values.device)
    cluster = kern.cluster[0]
    clusters = kern.max_active_clusters(block=block, shared=(nbins + cluster - 1) // cluster * 4,
                                        device=values.device.index or 0)
    # Dynamic shared memory comes from the kernel info's rule for these arguments.
    kern[clusters * cluster](bins, values, values.numel(), nbins, block=block)
    return bins


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--bins", type=int, default=1024)
    args = p.parse_args()
    torch.manual_seed(0)
    x = torch.randint(-10, args.bins + 10, (args.n,), dtype=torch.int32, device="cuda")
    got = histogram(x, args.bins)
    ref = torch.bincount(x.clamp(0, args.bins - 1).long(), minlength=args.bins).int()
    ok = torch.equal(got, ref)
    print(f"histogram n={args.n} bins={args.bins}: {'PASS' if ok else 'FAIL'} vs torch.bincount")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
