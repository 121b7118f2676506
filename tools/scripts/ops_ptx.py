#!/usr/bin/env python3
"""Prebuilds the GEMM instances tilec.ops.linear picks for given shapes and
activations, for a machine without tilec (a GPU host that runs PTX only).

    tools/scripts/ops_ptx.py OUTDIR [--sms 132] [--tilec build/bin/tilec]
        bf16:4096x4096x4096:gelu f16:16x4096x4096:silu ...
    tools/scripts/ops_ptx.py OUTDIR --all [--sms 132] [--list]

Each SPEC is dtype:MxNxK:activation (activation none, relu, gelu, gelu_tanh
or silu; the weight [N, K] row-major, as nn.Linear stores it). --all stands
for every instance linear can pick with an activation: each activation but
none (the samples' build compiles ACT = 0) at each shape of a grid (M, N
from 1 to 65536, ragged ones included, and K from 16 to 32768), in float16
and bfloat16. The rule table picks from a few instances (20 per dtype and
activation on 132 SMs); the grid reaches each of them (a sweep of 2.6
million shapes finds no other). The plan of each (tilec.ops.plan_linear's
rule, for a device of --sms SMs) names the instance, its source and the PTX
file the samples' build writes; the instances of one PTX file are compiled
together into OUTDIR/<that name> (+ .info.json). Point TILEC_OPS_PTX_DIR at
OUTDIR: tilec.ops looks there first and takes every other instance from the
next folder (_ops_kernels.ptx_dirs)."""

import argparse
import itertools
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODES = {"none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}
# --all's grid: powers of two, their neighbours and the ragged sizes the
# rule table treats apart (a last partial tile, clusters of BN 200 over N =
# 3000 or 5000, decode's M below 16).
GRID_MN = sorted({1, 2, 3, 5, 8, 16, 17, 24, 32, 33, 40, 48, 56, 64, 65, 77, 80, 96, 100, 112,
                  120, 128, 136, 144, 160, 176, 192, 200, 224, 240, 256, 264, 300, 320, 384, 448,
                  512, 600, 640, 768, 896, 1000, 1024, 1152, 1280, 1536, 1792, 2000, 2048, 2304,
                  2560, 3000, 3072, 3584, 4096, 5000, 5120, 6144, 7168, 8192, 10240, 12288,
                  14336, 16384, 20480, 28672, 32768, 65536})
GRID_K = (16, 64, 128, 256, 512, 1024, 2048, 4096, 5000, 8192, 14336, 32768)


def all_specs():
    for dtype, act in itertools.product(("f16", "bf16"), [a for a in CODES if a != "none"]):
        for m, n, k in itertools.product(GRID_MN, GRID_MN, GRID_K):
            yield dtype, m, n, k, act


def parse(p, spec):
    try:
        dtype, shape, act = spec.split(":")
        m, n, k = (int(v) for v in shape.split("x"))
        CODES[act]
    except (ValueError, KeyError):
        p.error(f"'{spec}' is not dtype:MxNxK:activation (activation one of {', '.join(CODES)})")
    return dtype, m, n, k, act


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("specs", nargs="*", help="dtype:MxNxK:activation")
    p.add_argument("--all", action="store_true",
                   help="every instance linear can pick with an activation")
    p.add_argument("--sms", type=int, default=132, help="the device's SM count (H100/H200: 132)")
    p.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    p.add_argument("--list", action="store_true",
                   help="print each PTX file's instances, compile nothing")
    args = p.parse_args()
    if not args.specs and not args.all:
        p.error("give SPECs or --all")
    sys.path.append(os.path.join(ROOT, "build", "python"))  # after $PYTHONPATH's
    from tilec import _tilec

    specs = itertools.chain((parse(p, s) for s in args.specs), all_specs() if args.all else ())
    groups = defaultdict(set)  # (source, ptx, cluster option) -> defines
    for dtype, m, n, k, act in specs:
        plan = _tilec._gemm_plan(dtype, m, n, k, True, args.sms, CODES[act])
        groups[(plan["source"], plan["ptx"], plan["cluster_option"])].add(plan["define"])
    if args.list:
        for (source, ptx, cluster), defines in sorted(groups.items(), key=str):
            print(f"{ptx}: {'; '.join(sorted(defines))}")
        return 0
    os.makedirs(args.outdir, exist_ok=True)
    status = 0
    for (source, ptx, cluster), defines in sorted(groups.items(), key=str):
        flags = [a for d in sorted(defines) for a in ("-D", d)]
        if cluster is not None:
            flags.append(f"--cluster={cluster}")
        out = os.path.join(args.outdir, ptx)
        src = os.path.join(ROOT, source)
        # The PTX and the kernel info in two processes at once; the warnings
        # (the source's other kernels have no instance here) are expected.
        # The PTX run's ptxas check of the wgmma (tilec's default) covers
        # the same module: the info run skips it (the same info, half the
        # time).
        runs = [subprocess.Popen([args.tilec, src, "-o", target] + emit + flags,
                                 stderr=subprocess.PIPE, text=True)
                for target, emit in ((out, []),
                                     (out[:-len(".ptx")] + ".info.json",
                                      ["--emit=info", "--no-wgmma-check"]))]
        for r in runs:
            err = r.communicate()[1]
            if r.returncode:
                sys.stderr.write(err)
                status = status or r.returncode
        print(f"{ptx}: {len(defines)} instances")
    return status


if __name__ == "__main__":
    sys.exit(main())
