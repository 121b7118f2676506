#!/usr/bin/env python3
"""Opt-in timing probes for samples/gemm's PTX (the persistent, split-K and
skinny kernels).

Inserts %globaltimer probes at fixed points of every kernel entry of a gemm
PTX and a module-level array `gemm_probe` the host reads back (`gemm --check
... --probes FILE`, cuModuleGetGlobal): per CTA (linear over the grid: x +
X * (y + Y * z)) and event, a u64 counter followed by MAXJ timestamps (ns),
one per time the event fired in that CTA (its j-th work unit, j < MAXJ;
later ones overwrite the last slot). The probe build is a separate PTX: the
kernels the sample ships stay as tilec wrote them. Only one kernel of the
module may run between the host's zeroing and its read (one array).

Events (anchors in tilec's PTX for these kernels; an entry without an
anchor gets no probe for that event):
  0 setup        before the kernel's first bar.sync 0 (thread 0): barriers initialised
  1 start        after that bar.sync 0 (thread 0)
  2 first_full   before the consumer's first wgmma.fence (thread 128): the first
                 stage has arrived
  3 main_end     after the consumer's wgmma.wait_group 0 (thread 128): a k loop done
  4 counted      after the first atom.acq_rel.gpu (thread 128): a split's partial
                 written and counted
  5 store        before the first TMA store to global (thread 128): the epilogue's
                 first slice is in shared memory
  6 exit         before the entry's last ret (thread 128)

  gemm_probes.py IN.ptx OUT.ptx
"""
import sys

from ptx_probes import Probes

NEV = 7
MAXJ = 4
NCTA = 1024


def main():
    src, dst = sys.argv[1], sys.argv[2]
    lines = open(src).read().split("\n")
    probes = Probes("gemm_probe", "gemm", NEV, MAXJ, NCTA)
    at = probes.at

    entries = [i for i, l in enumerate(lines) if l.startswith(".visible .entry")]
    if not entries:
        sys.exit(f"gemm_probes: no .entry in {src}")
    bounds = entries[1:] + [len(lines)]
    for e, end in zip(entries, bounds):
        def first(pred, start=e):
            for i in range(start, end):
                if pred(lines[i].strip()):
                    return i
            return None

        bar0 = first(lambda l: l == "bar.sync \t0;")
        if bar0 is not None:
            at(bar0, 0, 0, True)
            at(bar0, 1, 0, False)
        fence = first(lambda l: l == "wgmma.fence.sync.aligned;")
        if fence is not None:
            at(fence, 2, 128, True)
        for i in range(e, end):
            if lines[i].strip() == "wgmma.wait_group.sync.aligned \t0;":
                at(i, 3, 128, False)
        atom = first(lambda l: l.startswith("atom.acq_rel.gpu"))
        if atom is not None:
            at(atom, 4, 128, False)
        store = first(lambda l: l.startswith("cp.async.bulk.tensor") and ".global.shared::cta" in l)
        if store is not None:
            at(store, 5, 128, True)
        rets = [i for i in range(e, end) if lines[i].strip() == "ret;"]
        if rets:
            at(rets[-1], 6, 128, True)

    probes.write(lines, entries[0], dst)
    print(f"gemm_probes: {probes.count} probes in {len(entries)} entries into {dst}")


if __name__ == "__main__":
    main()
