"""Forward + backward of tilec.ops.linear and tilec.ops.matmul beside torch's
(cuBLAS), and what the backward's choices cost.

    python3 python/examples/bench_grad.py [--json FILE]

Each line times, on one GPU and in one process, bf16, as bench.py does
(event_median: each run between two CUDA events, every run queued before
one synchronisation, the median of 30 after 10 warm-ups): the forward and
torch.autograd.grad of all inputs with a fixed random upstream gradient,
tilec against the same call of torch's. The breakdown lines time the pieces
the backward chooses between: the fused linear+bias+gelu (no grad), the GEMM
alone (the pre-activation z; also what recomputing z in the backward would
cost), torch's gelu on z (the forward's second pass under autograd), and the
transposed copy of dz that dW's GEMM reads."""

import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import event_median  # noqa: E402

import tilec.ops as ops  # noqa: E402

LINEAR = [(4096, 4096, 4096, None), (4096, 4096, 4096, "gelu"), (8192, 4096, 1024, None),
          (16, 4096, 4096, None), (1000, 3000, 512, "relu")]  # M, N, K, activation
MATMUL = [((4096, 4096), (4096, 4096)), ((8, 512, 128), (8, 128, 512)),
          ((2048, 1000), (1000, 4096))]


def randn(*shape, seed, scale=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(*shape, device="cuda", generator=g) * scale).bfloat16()


def step(f, inputs, dy):
    """One forward and the gradients of every input."""
    def run():
        return torch.autograd.grad(f(*inputs), inputs, dy)
    return run


def rel(x, ref):
    return ((x.float() - ref.float()).norm() / ref.float().norm()).item()


def act_of(activation):
    return {None: lambda t: t, "relu": F.relu, "gelu": F.gelu}[activation]


def linear_rows(results):
    rows = []
    for m, n, k, act in LINEAR:
        x = randn(m, k, seed=1).requires_grad_()
        w = randn(n, k, seed=2, scale=k ** -0.5).requires_grad_()
        b = randn(n, seed=3).requires_grad_()
        dy = randn(m, n, seed=4)
        ours = step(lambda x, w, b: ops.linear(x, w, b, activation=act), (x, w, b), dy)
        theirs = step(lambda x, w, b: act_of(act)(F.linear(x, w, b)), (x, w, b), dy)
        errs = [rel(g, r) for g, r in zip(ours(), theirs())]
        t_ours, t_torch = event_median(ours), event_median(theirs)
        r = dict(op="linear", shape=[m, n, k], activation=act, tilec_us=t_ours,
                 torch_us=t_torch, ratio=t_torch / t_ours, rel_vs_torch=errs)
        rows.append(r)
        print(f"linear fwd+bwd bf16 {m}x{n}x{k} {act or 'no act'}: tilec {t_ours:.1f} us, "
              f"torch {t_torch:.1f} us ({r['ratio']:.2f} x torch's speed); grads vs torch's "
              f"dx {errs[0]:.1e} dw {errs[1]:.1e} db {errs[2]:.1e}", flush=True)
        if act == "gelu":
            with torch.no_grad():
                z = ops.linear(x, w, b)
                dz = randn(m, n, seed=5)
                pieces = dict(
                    fused_us=event_median(lambda: ops.linear(x, w, b, activation="gelu")),
                    gemm_us=event_median(lambda: ops.linear(x, w, b)),
                    torch_gelu_us=event_median(lambda: F.gelu(z)),
                    transpose_us=event_median(lambda: dz.t().contiguous()))
            r["pieces"] = pieces
            print(f"  pieces: fused linear+gelu {pieces['fused_us']:.1f} us, GEMM alone (z; a "
                  f"recompute) {pieces['gemm_us']:.1f} us, torch gelu(z) "
                  f"{pieces['torch_gelu_us']:.1f} us, dz transposed copy "
                  f"{pieces['transpose_us']:.1f} us", flush=True)
    results["linear"] = rows


def matmul_rows(results):
    rows = []
    for sa, sb in MATMUL:
        a = randn(*sa, seed=6).requires_grad_()
        b = randn(*sb, seed=7, scale=sb[-2] ** -0.5).requires_grad_()
        dc = randn(*torch.broadcast_shapes(sa[:-2], sb[:-2]), sa[-2], sb[-1], seed=8)
        ours = step(ops.matmul, (a, b), dc)
        theirs = step(torch.matmul, (a, b), dc)
        errs = [rel(g, r) for g, r in zip(ours(), theirs())]
        t_ours, t_torch = event_median(ours), event_median(theirs)
        r = dict(op="matmul", a=list(sa), b=list(sb), tilec_us=t_ours, torch_us=t_torch,
                 ratio=t_torch / t_ours, rel_vs_torch=errs)
        rows.append(r)
        print(f"matmul fwd+bwd bf16 {list(sa)} @ {list(sb)}: tilec {t_ours:.1f} us, torch "
              f"{t_torch:.1f} us ({r['ratio']:.2f} x torch's speed); grads vs torch's "
              f"da {errs[0]:.1e} db {errs[1]:.1e}", flush=True)
    results["matmul"] = rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--json", default=None)
    args = p.parse_args()
    results = {"device": torch.cuda.get_device_name()}
    linear_rows(results)
    matmul_rows(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
