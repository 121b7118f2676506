#!/usr/bin/env python3
"""Reduces `gemm --check ... --probes FILE` stamps (tools/scripts/gemm_probes.py).

Per launch, every time is in microseconds after the launch's earliest stamp.
Prints, over the CTAs of all launches: when each event first fires (median,
10th and 90th percentile, max) and the phases of a CTA (setup -> start ->
first_full -> main_end -> counted -> store -> exit; its first work unit),
median and max; then the median over launches of the last CTA's exit.

  gemm_probe_report.py FILE.csv
"""
import statistics
import sys
from collections import defaultdict

NAMES = ["setup", "start", "first_full", "main_end", "counted", "store", "exit"]


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def main():
    stamps = defaultdict(dict)  # (launch, cta) -> {(event, slot): us}
    for line in open(sys.argv[1]):
        f = line.strip().split(",")
        if len(f) != 5:
            continue
        launch, cta, ev, slot, ns = map(int, f)
        stamps[(launch, cta)][(ev, slot)] = ns / 1000.0
    if not stamps:
        sys.exit("gemm_probe_report: no stamps")
    launches = sorted({l for l, _ in stamps})
    ctas = len({c for _, c in stamps})
    print(f"{len(launches)} launches, {ctas} CTAs with stamps")
    print("event         median    p10    p90    max   (us after the launch's first stamp)")
    for e, name in enumerate(NAMES):
        v = [s[(e, 0)] for s in stamps.values() if (e, 0) in s]
        if v:
            print(f"{name:12s} {statistics.median(v):7.2f} {pct(v, .1):6.2f} {pct(v, .9):6.2f} "
                  f"{max(v):6.2f}   ({len(v)} CTAs)")
    print("phase (first unit)          median    max")
    present = [e for e in range(len(NAMES)) if any((e, 0) in s for s in stamps.values())]
    for a, b in zip(present, present[1:]):
        v = [s[(b, 0)] - s[(a, 0)] for s in stamps.values() if (a, 0) in s and (b, 0) in s]
        if v:
            print(f"{NAMES[a]:>10s} -> {NAMES[b]:10s} {statistics.median(v):7.2f} {max(v):7.2f}")
    units = [s for s in stamps.values() if (3, 1) in s]
    if units:
        v = [s[(3, 1)] - s[(3, 0)] for s in units]
        print(f"main_end of unit 2 - unit 1: median {statistics.median(v):.2f} ({len(v)} CTAs)")
    ends = []
    for l in launches:
        ex = [s[(6, 0)] for (ll, _), s in stamps.items() if ll == l and (6, 0) in s]
        if ex:
            ends.append(max(ex))
    if ends:
        print(f"last exit per launch: median {statistics.median(ends):.2f} us, "
              f"min {min(ends):.2f}, max {max(ends):.2f}")


if __name__ == "__main__":
    main()
