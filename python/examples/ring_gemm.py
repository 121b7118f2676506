"""The ring all-gather GEMM (samples/ring_gemm/ring_gemm.tile) from PyTorch on
several GPUs: one process per GPU started by torchrun, tilec's NCCL
communicator bootstrapped from the torch.distributed process group.

    torchrun --nproc-per-node 2 python/examples/ring_gemm.py [--ms 1024 --n 1024 --k 1024]

Rank r holds shard r of A ([MS, K]) and its own B_r ([N, K], K-major) and
computes C_r = gather(A) @ B_r.T ([D*MS, N]); the kernel forwards the shards
around the ring through symmetric memory while it multiplies. Checked on every
rank against torch.matmul of the gathered A."""

import argparse
import os

import torch
import torch.distributed as dist

import tilec
import tilec.distributed
from _samples import sample_module


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ms", type=int, default=1024)
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--k", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank, world = dist.get_rank(), dist.get_world_size()
    comm = tilec.distributed.init()  # tilec's NCCL communicator over the same ranks

    ms, n, k = args.ms, args.n, args.k
    mg = world * ms
    gen = torch.Generator(device="cuda").manual_seed(0)
    a_full = torch.randn(mg, k, dtype=torch.float16, device="cuda", generator=gen)
    gen_b = torch.Generator(device="cuda").manual_seed(100 + rank)
    b = torch.randn(n, k, dtype=torch.float16, device="cuda", generator=gen_b)

    kern = sample_module("samples/ring_gemm/ring_gemm.tile", "ring_gemm_f16.ptx",
                         defines={"T": "f16", "BN": 256}).kernel("ring_gemm", BN=256)
    cluster = kern.cluster[0]
    a_sym = comm.symmetric((mg, k), torch.float16)    # this rank's part of the symmetric A
    sem = comm.semaphores(world * (ms // 128))        # one counter per 128-row block
    a_view = tilec.distributed.as_torch(a_sym)
    c = torch.empty(mg, n, dtype=torch.float16, device="cuda")
    units = world * (ms // (128 * cluster)) * (n // 256)
    clusters = min(kern.max_active_clusters(device=local_rank), units)
    ref = torch.matmul(a_full.float(), b.float().t())
    ok = True
    for it in range(args.repeat):
        a_view.fill_(float("nan"))                      # rows the ring must fill
        a_view[rank * ms:(rank + 1) * ms] = a_full[rank * ms:(rank + 1) * ms]
        c.fill_(float("nan"))
        torch.cuda.synchronize()
        dist.barrier()
        kern[clusters * cluster](a_sym, b, c, sem)      # the current torch stream
        torch.cuda.synchronize()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        gathered_ok = torch.equal(a_view, a_full)
        ok = ok and err < 2e-3 and gathered_ok
    print(f"rank {rank}/{world}: ring_gemm MS={ms} N={n} K={k}, {clusters} clusters, "
          f"{args.repeat} launches: rel. error {err:.2e}, gathered A "
          f"{'exact' if gathered_ok else 'WRONG'}: {'PASS' if ok else 'FAIL'}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
