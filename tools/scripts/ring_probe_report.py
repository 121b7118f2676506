#!/usr/bin/env python3
"""Where the all-gather ring's time goes, from its probe build's stamps.

Input: the CSV `ring_gemm --check --probes FILE` wrote (one file per rank,
"rank,cta,event,slot,ns"; a trailing column D when several runs are
concatenated, as tools/scripts' GPU runs do; without it D is the number of
ranks in the file), events as in ring_probes.py.
Per D and step (the kernel's units in step order: cluster cl's j-th unit is
u = cl + j * clusters, step u // units_per_step), over all ranks and CTAs:
the time the consumers' main loops end (median and max: the step's end), the
producers' semaphore waits (how long a step's units wait for their rows), and
for the forwarding units the bulk wait before the epilogue (the last forwarded
stages crossing the link) and the signal time. Times in microseconds after
each rank's first `start` stamp.

  ring_probe_report.py probes.csv [--units-per-step 64] [--clusters 66]
"""
import argparse
import collections
import csv
import statistics

EV = ["start", "wait_begin", "wait_end", "main_end", "epi_wait_in", "epi_wait_out", "signal",
      "exit_begin"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--units-per-step", type=int, default=64)
    ap.add_argument("--clusters", type=int, default=66)
    ap.add_argument("--cluster-size", type=int, default=2)
    a = ap.parse_args()
    stamps = collections.defaultdict(dict)  # (D, rank, cta, ev) -> {slot: us}
    for row in csv.reader(open(a.csv)):
        if not row or row[0] == "rank":
            continue
        d = int(row[5]) if len(row) > 5 else 0  # 0: no D column (one run)
        rank, cta, ev, slot, ns = (int(x) for x in row[:5])
        stamps[(d, rank, cta, ev)][slot] = ns / 1000.0
    # One run without a D column: D is the number of ranks that wrote stamps.
    if 0 in {k[0] for k in stamps}:
        ranks = len({k[1] for k in stamps if k[0] == 0})
        stamps = collections.defaultdict(
            dict, {((ranks if k[0] == 0 else k[0]),) + k[1:]: v for k, v in stamps.items()})
    for d in sorted({k[0] for k in stamps}):
        print(f"## D = {d}")
        steps = max(d, 1)
        per = collections.defaultdict(list)  # (metric, step) -> values
        for (dd, rank, cta, ev), slots in stamps.items():
            if dd != d:
                continue
            cl = cta // a.cluster_size
            units = [cl + j * a.clusters for j in range(16)]
            unit_steps = [u // a.units_per_step for u in units if u < a.units_per_step * steps]
            if ev == 3:  # main_end: every unit
                for j, t in slots.items():
                    if j < len(unit_steps):
                        per[("main_end", unit_steps[j])].append(t)
            elif ev in (1, 2):  # waits: units of step > 0 only
                later = [s for s in unit_steps if s > 0]
                for j, t in slots.items():
                    if j < len(later):
                        per[(EV[ev], later[j])].append(t)
            elif ev == 7:
                per[("exit_begin", 0)].extend(slots.values())
        waits = collections.defaultdict(list)
        for (dd, rank, cta, ev), slots in stamps.items():
            if dd == d and ev == 1:
                ends = stamps.get((d, rank, cta, 2), {})
                cl = cta // a.cluster_size
                later = [s for s in ((cl + j * a.clusters) // a.units_per_step for j in range(16)
                                     if cl + j * a.clusters < a.units_per_step * steps) if s > 0]
                for j, t in slots.items():
                    if j in ends and j < len(later):
                        waits[later[j]].append(ends[j] - t)
        fwd_tail, fwd_sig = [], []
        for (dd, rank, cta, ev), slots in stamps.items():
            if dd == d and ev == 4:
                outs = stamps.get((d, rank, cta, 5), {})
                for j, t in slots.items():
                    if j in outs:
                        fwd_tail.append(outs[j] - t)
            if dd == d and ev == 6:
                mains = stamps.get((d, rank, cta, 3), {})
                fwd_sig.extend(t - mains[j] for j, t in slots.items() if j in mains)

        def st(v):
            if not v:
                return "-"
            return f"{statistics.median(v):.1f} (max {max(v):.1f}, n {len(v)})"

        print("| step | main loops end, us (median, max) | wait for the rows begins | "
              "wait ends | wait length |")
        print("|---|---|---|---|---|")
        for s in range(steps):
            print(f"| {s} | {st(per[('main_end', s)])} | {st(per[('wait_begin', s)])} | "
                  f"{st(per[('wait_end', s)])} | {st(waits[s])} |")
        print(f"\n- forwarding units: bulk wait before the epilogue (the last forwarded stages "
              f"crossing the link) {st(fwd_tail)} us; signal after the main loop ends {st(fwd_sig)} us")
        print(f"- exit protocol begins: {st(per[('exit_begin', 0)])} us\n")


if __name__ == "__main__":
    main()
