"""tilec from Python, measured against the C++ host in the same run.

    python3 python/examples/bench.py [--gemm-bin build/bin/gemm] [--launch-bench build/bin/launch_bench]

1. GEMM device time: samples/gemm's kernel (f16, B K-major, BN = 256, cluster
   2 with multicast) at 4096^3, launched from Python on torch tensors: the
   median of 30 CUDA-event-timed launches after 10 warm-up launches, every
   run queued before one synchronisation, as the C++ host (`gemm --bench`,
   samples/common/event_timing.cuh) times it. The C++ host runs before and after the
   Python measurement in the same run; the ratio is Python / mean(C++).
2. Launch overhead: a host-bound loop of 20,000 launches of a trivial kernel
   (safety.tile's `touch`: one store) on one stream, the stream synchronised
   before and after, best of 5 rounds, per launch: tilec from Python on a
   torch tensor, beside a trivial @triton.jit kernel and torch's `add_` on a
   one-element tensor, and the C++ runtime's launch (tests/gpu/launch_bench).
3. tilec.ops.linear with a bias (bf16, the bias in the GEMM's epilogue) beside
   torch.nn.functional.linear (cuBLAS, its own bias epilogue) at LLM shapes, in
   the same run and timed the same way (event_median); also tilec without the
   bias, so the line shows what the fused bias costs; and linear + bias + GELU
   (tilec.ops.linear(..., activation="gelu"), fused in the epilogue) beside
   F.gelu(F.linear(...)) (torch's two kernels). --linear-only runs this part
   alone.
4. Host time per call (--overhead): tilec.ops.matmul and torch.matmul on a
   tiny problem (f16 64x256x256, a kernel shorter than a call) in a loop of
   2,000 calls between two synchronisations, best of 5 rounds, and the
   stages of one tilec call measured alone the same way. --overhead-only runs
   this part alone (with any build of the package: the before/after of a
   change is two runs of it in one process each)."""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _samples import sample_module  # noqa: E402
from gemm import gemm_module  # noqa: E402

LAUNCHES, ROUNDS = 20000, 5


def host_loop(launch, launches=LAUNCHES, rounds=ROUNDS):
    best = float("inf")
    for _ in range(rounds):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(launches):
            launch()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t) / launches)
    return best * 1e6


def event_median(launch, warmup=10, runs=30):
    """As the C++ host times (samples/common/event_timing.cuh): each run between
    two events, every run queued before one synchronisation, so the host's
    launch cost stays out of the GPU times; the median."""
    for _ in range(warmup):
        launch()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(runs)]
    for s, e in events:
        s.record()
        launch()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in events)


def cpp_gemm_us(gemm_bin):
    cmd = [gemm_bin, "--bench", "--shapes", "4096x4096x4096", "--dtypes", "f16", "--bmajor", "k",
           "--bn", "256", "--multicast", "on", "--runs", "30", "--warmup", "10"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"; tilec persistent BN 256, cluster 2[^:]*: ([0-9.]+) us", out)
    if not m:
        raise RuntimeError("gemm --bench printed no time of the persistent BN 256 cluster 2 "
                           "kernel:\n" + out[-2000:])
    return float(m.group(1))


def gemm_bench(gemm_bin, results):
    mod = gemm_module()
    kern = mod.kernel("gemm", BN=256, ACT=0)
    m = n = k = 4096
    torch.manual_seed(0)
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(n, k, dtype=torch.float16, device="cuda")
    c = torch.empty(m, n, dtype=torch.float16, device="cuda")
    cluster = kern.cluster[0]
    clusters = min(kern.max_active_clusters(), (m // (128 * cluster)) * (n // 256))
    launcher = kern[clusters * cluster]
    cpp = [cpp_gemm_us(gemm_bin)] if gemm_bin else []
    py = event_median(lambda: launcher(a, b, c, c, 0))  # bias_n = 0: no bias
    if gemm_bin:
        cpp.append(cpp_gemm_us(gemm_bin))
    ref = torch.matmul(a.float(), b.float().t())
    err = ((c.float() - ref).norm() / ref.norm()).item()
    results["gemm"] = dict(python_us=py, cpp_us=cpp, clusters=clusters, rel_error=err)
    line = f"GEMM 4096^3 f16 (BN 256, cluster 2, {clusters} clusters): Python {py:.1f} us"
    if cpp:
        ratio = py / (sum(cpp) / len(cpp))
        results["gemm"]["ratio"] = ratio
        line += (f", C++ host {' / '.join(f'{x:.1f}' for x in cpp)} us (before / after): "
                 f"Python / C++ = {ratio:.4f} ({'within' if abs(ratio - 1) <= 0.02 else 'OUTSIDE'}"
                 f" 2%)")
    line += f"; rel. error vs torch.matmul {err:.2e}"
    print(line, flush=True)


def launch_bench(launch_bench_bin, results):
    kern = sample_module("tests/gpu/safety.tile", "safety.ptx").touch
    t = torch.zeros(1, dtype=torch.int32, device="cuda")
    r = {}
    launcher = kern[1]
    r["tilec"] = host_loop(lambda: launcher(t, 1))
    r["tilec kernel[1](...)"] = host_loop(lambda: kern[1](t, 1))
    r["tilec check_pointers=False"] = host_loop(lambda: launcher(t, 1, check_pointers=False))
    stream = torch.cuda.current_stream().cuda_stream
    r["tilec stream= given"] = host_loop(lambda: launcher(t, 1, stream=stream))
    r["torch add_"] = host_loop(lambda: t.add_(1))
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def touch(out, value):
            tl.store(out, value)

        touch[(1,)](t, 1)
        r["triton"] = host_loop(lambda: touch[(1,)](t, 1))
    except Exception as e:  # no Triton: say so, invent nothing
        r["triton"] = None
        print(f"triton: not measured ({type(e).__name__}: {e})")
    if launch_bench_bin:
        out = subprocess.run([launch_bench_bin, "--launches", str(LAUNCHES), "--rounds", "7"],
                             capture_output=True, text=True,
                             env=dict(os.environ)).stdout
        line = next((x for x in out.splitlines() if x.startswith("launch_bench:")), out.strip())
        r["C++ launch_bench"] = line
        m = re.search(r"checked ([0-9.]+) us", line)
        if m:
            r["C++ checked"] = float(m.group(1))
    results["launch_us"] = r
    torch.cuda.synchronize()
    print(f"launch overhead, {LAUNCHES} launches, best of {ROUNDS}, per launch on "
          f"{torch.cuda.get_device_name()}:")
    for name, v in r.items():
        print(f"  {name:28s} {v:.2f} us" if isinstance(v, float) else f"  {name:28s} {v}")
    ok = r["tilec"] <= 10.0
    print(f"tilec launch from Python: {r['tilec']:.2f} us ({'meets' if ok else 'MISSES'} the "
          f"10 us bar)", flush=True)


LINEAR_SHAPES = [(4096, 4096, 4096), (16, 4096, 4096), (2048, 11008, 4096)]  # M, N, K
GELU_SHAPES = [(4096, 4096, 4096), (16, 4096, 4096)]
HOST_CALLS = 2000


def linear_operands(m, n, k):
    """x [M, K], w [N, K] and a bias [N] (bf16, the same seed every run)."""
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(m, k, device="cuda", generator=g).bfloat16()
    w = torch.randn(n, k, device="cuda", generator=g).bfloat16()
    b = (torch.randn(n, device="cuda", generator=g) * 8).bfloat16()
    return x, w, b


def compared(ours, theirs, variant, ref):
    """(relative error of ours() against ref, then the event medians of
    ours, theirs and a variant of ours), in one run."""
    err = ((ours().float() - ref).norm() / ref.norm()).item()
    return err, event_median(ours), event_median(theirs), event_median(variant)


def linear_bench(results):
    import torch.nn.functional as F
    import tilec.ops
    rows = []
    for m, n, k in LINEAR_SHAPES:
        x, w, b = linear_operands(m, n, k)
        err, ours, torch_us, no_bias = compared(
            lambda: tilec.ops.linear(x, w, b), lambda: F.linear(x, w, b),
            lambda: tilec.ops.linear(x, w), F.linear(x.float(), w.float(), b.float()))
        plan = tilec.ops.plan_linear(x, w, b)["describe"]
        r = dict(shape=[m, n, k], tilec_us=ours, torch_us=torch_us, tilec_no_bias_us=no_bias,
                 ratio=torch_us / ours, rel_error=err, kernel=plan)
        rows.append(r)
        print(f"linear+bias bf16 M={m} N={n} K={k}: tilec {ours:.1f} us, torch F.linear "
              f"{torch_us:.1f} us: tilec at {r['ratio']:.2f} x torch's speed (without the bias "
              f"{no_bias:.1f} us; rel. error vs f32 {err:.1e}; {plan})", flush=True)
    results["linear"] = rows
    rows = []
    for m, n, k in GELU_SHAPES:
        x, w, b = linear_operands(m, n, k)
        err, ours, torch_us, bias_only = compared(
            lambda: tilec.ops.linear(x, w, b, activation="gelu"),
            lambda: F.gelu(F.linear(x, w, b)), lambda: tilec.ops.linear(x, w, b),
            F.gelu(F.linear(x.float(), w.float(), b.float())))
        plan = tilec.ops.plan_linear(x, w, b, activation="gelu")["describe"]
        r = dict(shape=[m, n, k], tilec_us=ours, torch_us=torch_us, tilec_bias_only_us=bias_only,
                 ratio=torch_us / ours, rel_error=err, kernel=plan)
        rows.append(r)
        print(f"linear+bias+gelu bf16 M={m} N={n} K={k}: tilec {ours:.1f} us, torch "
              f"F.gelu(F.linear) {torch_us:.1f} us: tilec at {r['ratio']:.2f} x torch's speed "
              f"(bias only {bias_only:.1f} us; rel. error vs f32 {err:.1e}; {plan})", flush=True)
    results["linear_gelu"] = rows


def overhead_bench(results, label):
    """Host µs per call of tilec.ops.matmul and torch.matmul on a tiny
    problem, and the stages of a tilec call alone."""
    import tilec.ops
    a = torch.randn(64, 256, device="cuda").half()
    w = torch.randn(256, 256, device="cuda").half()
    bt = w.t()
    c = tilec.ops.matmul(a, bt)
    err = ((c.float() - a.float() @ bt.float()).norm() / (a.float() @ bt.float()).norm()).item()
    r = {"label": label, "rel_error": err,
         "tilec.ops.matmul": host_loop(lambda: tilec.ops.matmul(a, bt), HOST_CALLS),
         "torch.matmul": host_loop(lambda: torch.matmul(a, bt), HOST_CALLS)}
    # The stages, each in a loop of its own (what the call adds up).
    key = (a.shape, a.stride(), a.dtype, a.device, bt.shape, bt.stride(), bt.dtype, bt.device)
    r["stage: key"] = host_loop(lambda: (a.shape, a.stride(), a.dtype, a.device, bt.shape,
                                         bt.stride(), bt.dtype, bt.device), HOST_CALLS)
    r["stage: new_empty"] = host_loop(lambda: a.new_empty((64, 256)), HOST_CALLS)
    run = getattr(tilec.ops, "_matmul_calls", {}).get(key)
    cells = {n: x.cell_contents for n, x in
             zip(run.__code__.co_freevars, run.__closure__ or ())} if run else {}
    launch = cells.get("launch")
    if launch is not None and run.__code__.co_argcount >= 3:  # run(a, b, bias, c=None)
        unused = cells.get("unused")  # the split kernel's W and flags, one split
        args = (a, bt, c, unused, unused, c) if unused is not None else None
        if args:
            r["stage: bound launch"] = host_loop(lambda: launch(*args), HOST_CALLS)
        r["stage: the key's function"] = host_loop(lambda: run(a, bt, None), HOST_CALLS)
    results.setdefault("overhead", []).append(r)
    print(f"per call ({label}), f16 64x256x256 on {torch.cuda.get_device_name()}, "
          f"{HOST_CALLS} calls, best of {ROUNDS}: tilec.ops.matmul "
          f"{r['tilec.ops.matmul']:.2f} us, torch.matmul {r['torch.matmul']:.2f} us "
          f"(tilec / torch = {r['tilec.ops.matmul'] / r['torch.matmul']:.2f}; rel. error "
          f"{err:.1e})", flush=True)
    for name, v in r.items():
        if name.startswith("stage"):
            print(f"  {name:28s} {v:.2f} us")


def load_bench(results):
    """What a compile-cache hit costs on a fresh Module: reading the PTX and
    kernel info and loading the module (the driver's JIT cache warm)."""
    import tilec
    from _samples import ROOT
    ptx_dir = os.environ.get("TILEC_PTX_DIR")
    path = os.path.join(ptx_dir, "gemm_f16_mc.ptx") if ptx_dir else None
    if not path or not os.path.exists(path):
        return
    tilec.load(path)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        tilec.load(path)
        times.append((time.perf_counter() - t) * 1e3)
    results["load_ms"] = statistics.median(times)
    print(f"tilec.load of the GEMM module (4 kernels), JIT cache warm: "
          f"{results['load_ms']:.2f} ms (median of 5)", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gemm-bin", default=None)
    p.add_argument("--launch-bench", default=None)
    p.add_argument("--json", default=None)
    p.add_argument("--skip-gemm", action="store_true")
    p.add_argument("--linear-only", action="store_true")
    p.add_argument("--overhead-only", default=None, metavar="LABEL",
                   help="only the host time per call, its lines labelled LABEL")
    args = p.parse_args()
    results = {"device": torch.cuda.get_device_name()}
    if args.overhead_only:
        overhead_bench(results, args.overhead_only)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        return
    linear_bench(results)
    if args.linear_only:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        return
    launch_bench(args.launch_bench, results)
    overhead_bench(results, "this build")
    load_bench(results)
    if not args.skip_gemm:
        gemm_bench(args.gemm_bin, results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
