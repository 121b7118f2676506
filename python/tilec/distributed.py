"""Multi-GPU: tilec's NCCL communicator bootstrapped from torch.distributed.

    import torch, torch.distributed as dist, tilec.distributed
    dist.init_process_group("nccl"); torch.cuda.set_device(local_rank)
    comm = tilec.distributed.init()               # one tilec Communicator per rank
    A = comm.symmetric((M, K), torch.float16)     # for `symmetric tensor<f16>[M, K]`
    sem = comm.semaphores(8)                      # for `semaphore[S]`

Every rank must make the same collective calls in the same order
(init, symmetric, semaphores), as with torch.distributed.
"""

import os

from . import _tilec
from ._errors import Error


def init(group=None, device=None):
    """A tilec Communicator over the ranks of a torch.distributed process group
    (default: the world): rank 0 of the group makes an NCCL unique id and
    broadcasts it through the group (torch.distributed.broadcast_object_list);
    every rank then joins tilec's NCCL communicator on `device` (default:
    torch's current device)."""
    if not getattr(_tilec, "has_nccl", False):
        raise Error("tilec was built without NCCL (nccl.h not found): no multi-GPU support")
    import torch
    import torch.distributed as dist
    if not dist.is_initialized():
        raise Error("tilec.distributed.init: call torch.distributed.init_process_group first")
    rank = dist.get_rank(group)
    world = dist.get_world_size(group)
    box = [_tilec.new_unique_id() if rank == 0 else None]
    src = 0 if group is None else dist.get_global_rank(group, 0)
    dist.broadcast_object_list(box, src=src, group=group)
    if device is None:
        device = torch.cuda.current_device()
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    return _tilec.Communicator.from_bootstrap(rank, world, local_rank, device, box[0])


def as_torch(array):
    """A torch view (no copy) of a tilec SymmetricTensor or DeviceArray."""
    import torch

    class _View:
        def __init__(self, cai):
            self.__cuda_array_interface__ = cai

    cai = dict(array.__cuda_array_interface__)
    bf16 = array.dtype == "bf16"
    if bf16:
        cai["typestr"] = "<i2"
    t = torch.as_tensor(_View(cai), device=f"cuda:{array.device}")
    return t.view(torch.bfloat16) if bf16 else t
