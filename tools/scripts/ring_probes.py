#!/usr/bin/env python3
"""Opt-in timing probes for the all-gather ring GEMM's PTX (samples/ring_gemm).

Inserts %globaltimer probes at fixed points of a ring kernel's PTX and a
module-level array `ring_probe` the host reads back (`ring_gemm --probes FILE`,
cuModuleGetGlobal): per CTA and event, a u64 counter followed by MAXJ
timestamps (ns), one per time the event fired in that CTA (its k-th unit,
k < MAXJ; later ones overwrite the last slot). The probe build is a separate
PTX: the kernel the samples ship stays as tilec wrote it.

Events (anchors in tilec's PTX for this kernel; the script fails loudly
when one is missing, and another kernel's PTX would put them elsewhere):
  0 start         after the kernel's first bar.sync 0 (thread 0)
  1 wait_begin    before the producer's first semaphore wait (thread 0)
  2 wait_end      after that wait and its proxy fence (thread 0)
  3 main_end      after the consumer's wgmma.wait_group 0 that ends a k loop (thread 128)
  4 epi_wait_in   before the consumer's first cp.async.bulk.wait_group 0 after it (thread 128)
  5 epi_wait_out  after the barrier that follows that wait (thread 128)
  6 signal        after the consumer's first red.release (a signal; thread of the signal)
  7 exit_begin    before the exit protocol's bar.sync 0 (thread 0)

  ring_probes.py IN.ptx OUT.ptx
"""
import sys

from ptx_probes import Probes

NEV = 8
MAXJ = 16
NCTA = 132


def main():
    src, dst = sys.argv[1], sys.argv[2]
    lines = open(src).read().split("\n")
    probes = Probes("ring_probe", "ring", NEV, MAXJ, NCTA)
    at = probes.at

    def find(pred, start=0, what=""):
        for i in range(start, len(lines)):
            if pred(lines[i]):
                return i
        sys.exit(f"ring_probes: no {what} in {src}")

    entry = find(lambda l: l.startswith(".visible .entry"), 0, ".entry")
    bar0 = find(lambda l: l.strip() == "bar.sync \t0;", entry, "first bar.sync 0")
    at(bar0, 0, 0, False)
    acq = find(lambda l: "ld.acquire.sys.global.u64" in l, bar0, "semaphore wait")
    begin = max(i for i in range(bar0, acq) if "// begin inline asm" in lines[i])
    at(begin, 1, 0, True)
    end = find(lambda l: "// end inline asm" in l, acq, "end of the wait")
    at(end, 2, 0, False)
    wg0 = find(lambda l: "wgmma.wait_group.sync.aligned \t0;" in l, end, "wgmma.wait_group 0")
    at(wg0, 3, 128, False)
    bw = find(lambda l: "cp.async.bulk.wait_group \t0;" in l, wg0, "bulk wait_group 0")
    at(bw, 4, 128, True)
    bs = find(lambda l: l.strip().startswith("bar.sync"), bw, "barrier after the bulk wait")
    at(bs, 5, 128, False)
    red = find(lambda l: "red.release.sys.global.add.u64" in l, bs, "signal")
    rend = find(lambda l: "// end inline asm" in l, red, "end of the signal")
    # The thread that signals: thread_id() == 128 in ring_gemm.
    at(rend, 6, 128, False)
    # The exit protocol: the last bar.sync 0 of the function.
    last0 = max(i for i in range(len(lines)) if lines[i].strip() == "bar.sync \t0;")
    at(last0, 7, 0, True)

    probes.write(lines, entry, dst)
    print(f"ring_probes: {probes.count} probes into {dst}")


if __name__ == "__main__":
    main()
