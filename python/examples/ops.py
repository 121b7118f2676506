"""tilec.ops from PyTorch: attention, matmul and scaled_mm on torch tensors,
each checked against torch and timed beside it in the same process.

    python3 python/examples/ops.py [--runs 20]

Times are CUDA-event medians of --runs calls after 3 warm-ups, Python call
included on both sides; `x torch` = torch's time / tilec's. The reference:
F.scaled_dot_product_attention (torch's default backend choice), torch.matmul
(cuBLAS), torch._scaled_mm (cuBLASLt). Then the host time of a call: tiny
problems (their kernels shorter than a call) in a loop of --host-calls calls
between two synchronisations, best of 5 rounds, µs per call."""

import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F

import tilec.ops


def time_ms(fn, runs):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(runs)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ev)


def host_us(fn, calls):
    """Host µs per call of a loop that the host bounds (best of 5 rounds)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    best = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return best


def host_rows(calls):
    """(name, tilec µs, torch µs) per call of tiny problems."""
    a, w = torch.randn(64, 256, device="cuda").half(), torch.randn(256, 256, device="cuda").half()
    x, wf = torch.randn(16, 256, device="cuda"), torch.randn(256, 256, device="cuda")
    a8, b8 = x.to(torch.float8_e4m3fn), wf.to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    q = torch.randn(1, 2, 64, 64, device="cuda").half()
    return [
        ("matmul f16 64x256x256", host_us(lambda: tilec.ops.matmul(a, w.t()), calls),
         host_us(lambda: a @ w.t(), calls)),
        ("scaled_mm e4m3 16x256x256",
         host_us(lambda: tilec.ops.scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16), calls),
         host_us(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                          out_dtype=torch.bfloat16), calls)),
        ("attention f16 1x2x64x64", host_us(lambda: tilec.ops.attention(q, q, q), calls),
         host_us(lambda: F.scaled_dot_product_attention(q, q, q), calls)),
    ]


def rel(x, ref):
    return ((x.float() - ref.float()).norm() / ref.float().norm()).item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--host-calls", type=int, default=2000)
    args = p.parse_args()
    torch.manual_seed(0)
    rows = []

    for dtype, d, causal, s in [(torch.bfloat16, 128, True, 4096), (torch.float16, 64, False, 2048),
                                (torch.bfloat16, 256, False, 1024)]:
        q, k, v = (torch.randn(4, 16, s, d, device="cuda", dtype=dtype) for _ in range(3))
        o = tilec.ops.attention(q, k, v, causal=causal)
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        t = time_ms(lambda: tilec.ops.attention(q, k, v, causal=causal), args.runs)
        r = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), args.runs)
        plan = tilec.ops.plan_attention(q, k, v, causal=causal)
        rows.append((f"attention {str(dtype)[6:]} 4x16x{s}x{d}{' causal' if causal else ''}",
                     t, r, rel(o, ref), plan["define"]))

    for dtype, (m, n, kk) in [(torch.float16, (4096, 4096, 4096)), (torch.bfloat16, (77, 3072, 5120)),
                              (torch.float16, (1000, 3000, 5000))]:
        a = torch.randn(m, kk, device="cuda", dtype=dtype)
        w = torch.randn(n, kk, device="cuda", dtype=dtype)
        c = tilec.ops.matmul(a, w.t())
        ref = a @ w.t()
        t = time_ms(lambda: tilec.ops.matmul(a, w.t()), args.runs)
        r = time_ms(lambda: a @ w.t(), args.runs)
        rows.append((f"matmul {str(dtype)[6:]} {m}x{n}x{kk}", t, r, rel(c, ref),
                     tilec.ops.plan_matmul(a, w.t())["describe"]))

    for m, n, kk in [(4096, 4096, 4096), (16, 4096, 4096), (200, 4096, 4096)]:
        x, wf = torch.randn(m, kk, device="cuda"), torch.randn(n, kk, device="cuda")
        fmax = torch.finfo(torch.float8_e4m3fn).max
        sa, sb = (x.abs().max() / fmax).float(), (wf.abs().max() / fmax).float()
        a8, b8 = (x / sa).to(torch.float8_e4m3fn), (wf / sb).to(torch.float8_e4m3fn).t()
        c = tilec.ops.scaled_mm(a8, b8, sa, sb, out_dtype=torch.bfloat16)
        ref = torch._scaled_mm(a8, b8, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        t = time_ms(lambda: tilec.ops.scaled_mm(a8, b8, sa, sb, out_dtype=torch.bfloat16), args.runs)
        r = time_ms(lambda: torch._scaled_mm(a8, b8, scale_a=sa, scale_b=sb,
                                             out_dtype=torch.bfloat16), args.runs)
        rows.append((f"scaled_mm e4m3 {m}x{n}x{kk}", t, r, rel(c, ref),
                     tilec.ops.plan_scaled_mm(a8, b8, sa, sb)["describe"]))

    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| op | tilec ms | torch ms | x torch | rel. error vs torch | instance |")
    print("|---|---|---|---|---|---|")
    ok = True
    for name, t, r, err, inst in rows:
        print(f"| {name} | {t:.4f} | {r:.4f} | {r / t:.3f} | {err:.2e} | {inst} |")
        ok = ok and math.isfinite(err) and err < 2e-2
    print()
    print("| host time per call (tiny problem) | tilec µs | torch µs |")
    print("|---|---|---|")
    for name, t, r in host_rows(args.host_calls):
        print(f"| {name} | {t:.1f} | {r:.1f} |")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
