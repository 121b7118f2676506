#!/usr/bin/env python3
"""Prebuilds the GEMM instances tilec.ops.linear picks for given shapes and
activations, for a machine without tilec (a GPU host that runs PTX only).

    tools/scripts/ops_ptx.py OUTDIR [--sms 132] [--tilec build/bin/tilec]
        bf16:4096x4096x4096:gelu f16:16x4096x4096:silu ...

Each SPEC is dtype:MxNxK:activation (activation none, relu, gelu, gelu_tanh
or silu; the weight [N, K] row-major, as nn.Linear stores it). The plan of
each (tilec.ops.plan_linear's rule, for a device of --sms SMs) names the
instance, its source and the PTX file the samples' build writes; the
instances of one PTX file are compiled together into OUTDIR/<that name>
(+ .info.json). Point TILEC_OPS_PTX_DIR at OUTDIR: tilec.ops looks there
first and takes every other instance from the next folder
(_ops_kernels.ptx_dirs)."""

import argparse
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODES = {"none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("specs", nargs="+", help="dtype:MxNxK:activation")
    p.add_argument("--sms", type=int, default=132, help="the device's SM count (H100/H200: 132)")
    p.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    args = p.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    from tilec import _tilec

    groups = defaultdict(set)  # (source, ptx, cluster option) -> defines
    for spec in args.specs:
        try:
            dtype, shape, act = spec.split(":")
            m, n, k = (int(v) for v in shape.split("x"))
            code = CODES[act]
        except (ValueError, KeyError):
            p.error(f"'{spec}' is not dtype:MxNxK:activation (activation one of "
                    f"{', '.join(CODES)})")
        plan = _tilec._gemm_plan(dtype, m, n, k, True, args.sms, code)
        groups[(plan["source"], plan["ptx"], plan["cluster_option"])].add(plan["define"])
    os.makedirs(args.outdir, exist_ok=True)
    status = 0
    for (source, ptx, cluster), defines in sorted(groups.items(), key=str):
        flags = [a for d in sorted(defines) for a in ("-D", d)]
        if cluster is not None:
            flags.append(f"--cluster={cluster}")
        out = os.path.join(args.outdir, ptx)
        src = os.path.join(ROOT, source)
        # The PTX and the kernel info in two processes at once.
        runs = [subprocess.Popen([args.tilec, src, "-o", target] + emit + flags)
                for target, emit in ((out, []),
                                     (out[:-len(".ptx")] + ".info.json", ["--emit=info"]))]
        for r in runs:
            status = status or r.wait()
        print(f"{ptx}: {', '.join(sorted(defines))}")
    return status


if __name__ == "__main__":
    sys.exit(main())
