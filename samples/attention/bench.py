#!/usr/bin/env python3
"""The attention benchmark: the .tile kernel (through the tilec Python package)
against PyTorch's SDPA with the cuDNN backend and with the flash backend (FA2),
and FlexAttention (torch.compile(flex_attention), Triton-generated), in one
process on one GPU.

    TILEC_PTX_DIR=DIR python3 samples/attention/bench.py [--out attention.md]
        [--plot attention.png] [--json attention.json] [--seqs 1024,...,16384]
        [--dims 64,128,256] [--dtypes f16,bf16] [--batch 4] [--heads 16]
        [--runs 5] [--warmup 2] [--causal 0,1] [--no-flex] [--no-flash] [--ab]
    python3 samples/attention/bench.py --from-json a.json,b.json [--out ...] [--plot ...]

--from-json measures nothing: it writes the table and the plot of the rows of
earlier runs' --json files, in order (one page from runs split to fit a job's
time; each file's device, torch version, runs and warm-ups are stated).

Shapes: B x H x S x D (Q, K and V alike), causal and not. TFLOP/s = 4 * the
unmasked query-key pairs * D / time (the causal count is S (S + 1) / 2 per
head), CUDA-event median of --runs after --warmup. FlexAttention is
torch.compile(flex_attention) as a user gets it (automatic dynamic shapes:
the first length of a dtype x D x causal compiles a kernel for that shape,
the next one a dynamic-shape kernel that the longer ones share); every shape
is compiled and run once before anything is timed. Every tilec result is
checked against cuDNN's (relative Frobenius error of O, on the timed run's
output) before its time is reported. The PTX is DIR/attention_<dtype>.ptx
(the instances of samples/attention/CMakeLists.txt); the instance of each
shape is the host program's choice (consumer_warpgroups, the rule of
attention_common.h), its consumer warpgroups in the table's `WGS` column
(`P`: the persistent kernel, attention_persistent, on a grid of one CTA per
SM). --ab also times every other instance of each point (WGS x persistent or
not, each checked the same way) and adds a table of them; a variant ending in
`b`, `c` or `d` (w2b, w2pc) is that instance from the PTX of directory
TILEC_PTX_DIR_B, _C or _D (PTX of other compilers timed against this one's).
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

import torch
import torch.nn.functional as F

try:
    import tilec
except ImportError:  # the build tree
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "build", "python"))
    import tilec

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def time_ms(fn, warmup, runs):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for a, b in zip(starts, stops):
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in zip(starts, stops))


def consumer_warpgroups(d, causal, seq_q):
    """The instance's consumer warpgroups (WGS): attn::consumerWarpgroups of
    attention_common.h (which says why), compiled into the tilec extension."""
    return tilec._tilec._attention_rule(d, causal, seq_q)["wgs"]


def persistent_kernel(d, causal, seq_q):
    """Whether the host runs attention_persistent: attn::persistentKernel of
    attention_common.h, which says why."""
    return tilec._tilec._attention_rule(d, causal, seq_q)["persistent"]


def compiled_warpgroups(d):
    """The consumer warpgroups the PTX has instances of (CMakeLists.txt)."""
    return (3, 2) if d == 64 else (2,)


def keys_per_stage(d, causal):
    """Keys per ring stage of `attention`: attn::keysPerStage of
    attention_common.h, which says why."""
    return tilec._tilec._attention_rule(d, causal, 1)["keys_per_stage"]


def cta_order(d, causal, wgs, seq_q):
    """The CTA order (ORD) of the `attention` instance the host runs:
    attn::ctaOrder of attention_common.h, which says why."""
    return tilec._tilec._attention_rule(d, causal, seq_q, wgs)["cta_order"]


def tilec_fn(mod, d, causal, wgs, persistent, q, k, v, o, lse, s, scale, sms, rg=None):
    """The launch of one instance (attn::launchTile): a grid of one CTA per
    query block and head, or, persistent, at most `sms` CTAs. rg: the schedule
    of `attention`, (keys per stage or None: the host's, CTA order)."""
    b, h = q.shape[0], q.shape[1]
    if persistent:
        kern = mod.kernel("attention_persistent", D=d, CAUSAL=int(causal), WGS=wgs)
    else:
        kb, order = rg
        kb = kb or keys_per_stage(d, causal)
        kern = mod.kernel("attention", D=d, CAUSAL=int(causal), WGS=wgs, KB=kb, ORD=order)
    block_m = 64 * wgs
    m_blocks = (s + block_m - 1) // block_m
    q2, k2, v2 = (t.view(-1, d) for t in (q, k, v))
    sl2 = scale * math.log2(math.e)
    if persistent:
        grid = (min(m_blocks * h * b, sms), 1, 1)
        return lambda: kern[grid](q2, k2, v2, o, lse, s, s, h, 1, b, sl2)
    grid = (m_blocks, h, b)
    return lambda: kern[grid](q2, k2, v2, o, lse, s, s, h, 1, sl2)


def parse_variant(v):
    """'w2' (attention, WGS 2), 'w2p' (attention_persistent, one CTA per SM),
    'w2pt' (attention_persistent on a grid of one CTA per tile, its tile order
    then the hardware's), 'w3o1' (attention, WGS 3, CTA order 1), 'w2k192'
    (attention, 192 keys per ring stage; k left out: the host's, o: order 0):
    (wgs, persistent, grid of tiles, (keys or None, order))."""
    m = re.fullmatch(r"w([23])(?:k(\d+))?(?:o(\d))?(p|pt)?[bcd]?", v)
    if not m or (m.group(4) and (m.group(2) or m.group(3))):
        raise ValueError(f"--variants: '{v}' is not w2, w3, w2p, w3p, w2pt, w3pt or w2k<N>o<N>")
    kb = int(m.group(2)) if m.group(2) else None
    order = int(m.group(3)) if m.group(3) else 0
    return int(m.group(1)), bool(m.group(4)), m.group(4) == "pt", (kb, order)


def flops(b, h, s, d, causal):
    pairs = s * (s + 1) / 2 if causal else s * s
    return 4.0 * b * h * pairs * d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seqs", default="1024,2048,4096,8192,16384")
    ap.add_argument("--dims", default="64,128,256")
    ap.add_argument("--dtypes", default="f16,bf16")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", default="attention.md")
    ap.add_argument("--plot", default="attention.png")
    ap.add_argument("--json", default="attention.json")
    ap.add_argument("--from-json", default="")
    ap.add_argument("--causal", default="0,1", help="causal settings: 0, 1 or 0,1")
    ap.add_argument("--no-flex", action="store_true", help="leave FlexAttention out")
    ap.add_argument("--no-flash", action="store_true", help="leave SDPA's flash backend out")
    ap.add_argument("--ab", action="store_true",
                    help="also time every tilec instance of each point (WGS x persistent)")
    ap.add_argument("--variants", default="",
                    help="with --ab: the instances to time, e.g. w2,w2p,w2ps,w2pt (parse_variant)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="with --ab: time the instances this many times, interleaved (the median kept)")
    args = ap.parse_args()
    if args.from_json:
        runs = []
        for path in args.from_json.split(","):
            with open(path) as fh:
                runs.append(json.load(fh))
        return render([r for run in runs for r in run["rows"]], runs, args)
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    # Every (dtype, D, causal, seq) point is a new compilation of flex_attention;
    # past dynamo's recompile limit (8 by default) torch.compile silently runs
    # it eagerly (the scores materialised: ~10x slower, out of memory at 16k),
    # which would time something that is not FlexAttention.
    for limit in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                  "accumulated_cache_size_limit"):  # the names differ across torch versions
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 1024)
    flex = torch.compile(flex_attention)
    points = [(dname, d, causal, s) for dname in args.dtypes.split(",")
              for d in map(int, args.dims.split(","))
              for causal in (c == "1" for c in args.causal.split(","))
              for s in map(int, args.seqs.split(","))]
    # FlexAttention's compilations first, every shape once (in the order timed,
    # so the dynamic-shape kernels are the ones automatic dynamic makes), so
    # that no timing follows a compilation.
    masks = {}
    for dname, d, causal, s in ([] if args.no_flex else points):
        try:
            q, k, v = (torch.randn(args.batch, args.heads, s, d, device="cuda",
                                   dtype=DTYPES[dname]) for _ in range(3))
            if (causal, s) not in masks:
                masks[(causal, s)] = (create_block_mask(lambda bb, hh, qi, ki: qi >= ki, None,
                                                        None, s, s) if causal else None)
            flex(q, k, v, block_mask=masks[(causal, s)])
            del q, k, v
        except Exception as e:  # reported (and skipped) at the timing
            print(f"flex warm-up {dname} D={d} causal={causal} seq={s}: {e}", flush=True)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    ptx_dir = os.environ.get("TILEC_PTX_DIR", ".")
    dev = torch.cuda.get_device_name()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = []
    # Written after every point, so a run stopped by a time limit keeps what it measured.
    meta = {"device": dev, "torch": torch.__version__, "runs": args.runs, "warmup": args.warmup,
            "batch": args.batch, "heads": args.heads, "rows": rows}
    for dname in args.dtypes.split(","):
        dt = DTYPES[dname]
        ptx = os.path.join(ptx_dir, f"attention_{dname}.ptx")
        mod = tilec.load(ptx) if os.path.exists(ptx) else None
        mods = {x: tilec.load(os.path.join(os.environ[f"TILEC_PTX_DIR_{x.upper()}"],
                                           f"attention_{dname}.ptx"))
                for x in "bcd" if os.environ.get(f"TILEC_PTX_DIR_{x.upper()}")}
        for d in map(int, args.dims.split(",")):
            for causal in (c == "1" for c in args.causal.split(",")):
                for s in map(int, args.seqs.split(",")):
                    wgs = consumer_warpgroups(d, causal, s)
                    pers = persistent_kernel(d, causal, s)
                    b, h = args.batch, args.heads
                    torch.manual_seed(0)
                    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dt) for _ in range(3))
                    scale = 1.0 / math.sqrt(d)
                    row = {"dtype": dname, "D": d, "causal": causal, "seq": s, "B": b, "H": h,
                           "tilec_wgs": wgs, "tilec_persistent": pers}
                    fl = flops(b, h, s, d, causal)
                    ref = None
                    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                          ("flash", SDPBackend.FLASH_ATTENTION)):
                        if name == "flash" and args.no_flash:
                            row[name] = None
                            continue
                        try:
                            with sdpa_kernel(backend):
                                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                out = fn()
                                row[name] = fl / (time_ms(fn, args.warmup, args.runs) * 1e-3) / 1e12
                                if ref is None:
                                    ref = out.float()
                        except Exception as e:  # a backend that does not take the shape
                            row[name] = None
                            row[name + "_note"] = str(e).splitlines()[0][:120]
                    try:
                        if args.no_flex:
                            raise RuntimeError("not measured (--no-flex)")
                        bm = masks.get((causal, s)) if (causal, s) in masks else (
                            create_block_mask(lambda bb, hh, qi, ki: qi >= ki, None, None, s, s)
                            if causal else None)
                        fn = lambda: flex(q, k, v, block_mask=bm)
                        fn()
                        row["flex"] = fl / (time_ms(fn, args.warmup, args.runs) * 1e-3) / 1e12
                    except Exception as e:
                        row["flex"] = None
                        row["flex_note"] = str(e).splitlines()[0][:120]
                    if mod is not None:
                        if ref is None:
                            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                                 is_causal=causal)
                        order = 0 if pers else cta_order(d, causal, wgs, s)
                        row["tilec_order"] = order
                        host = f"w{wgs}{'o1' if order else ''}{'p' if pers else ''}"
                        variants = [host]
                        if args.ab:
                            variants += [x for x in (args.variants.split(",") if args.variants else
                                                     [f"w{w}{p}" for w in compiled_warpgroups(d)
                                                      for p in ("", "p")])
                                         if x != host and parse_variant(x)[0] in compiled_warpgroups(d)]
                        times = {x: [] for x in variants}
                        for _ in range(args.repeat if args.ab else 1):
                            for var in variants:
                                w, p, t, rg = parse_variant(var)
                                # Query rows per CTA: 64 per consumer warpgroup; LSE rows
                                # padded to whole CTAs.
                                block_m = 64 * w
                                o = torch.empty_like(q)
                                lse = torch.empty(b, h, (s + block_m - 1) // block_m * block_m,
                                                  device="cuda", dtype=torch.float32)
                                fn = tilec_fn(mods.get(var[-1], mod), d, causal, w,
                                              p, q, k, v, o, lse, s, scale,
                                              1 << 30 if t else sms, rg)
                                ms = time_ms(fn, args.warmup, args.runs)
                                err = ((o.float() - ref).norm() / ref.norm()).item()
                                ok = math.isfinite(err) and err < (3e-3 if dname == "f16" else 2e-2)
                                times[var].append(fl / (ms * 1e-3) / 1e12 if ok else None)
                                if var == host:
                                    row["tilec_err"] = err
                                if not ok:
                                    row[("tilec" if var == host else "tilec_" + var) + "_note"] = (
                                        f"wrong result (rel. error {err:.2e})")
                        for var, tf in times.items():
                            tf = None if None in tf else statistics.median(tf)
                            if var == host:
                                row["tilec"] = tf
                            if args.ab:
                                row["tilec_" + var] = tf
                    else:
                        row["tilec"] = None
                        row["tilec_note"] = "not built"
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    with open(args.json, "w") as fh:
                        json.dump(meta, fh, indent=1)
                    del q, k, v
                    torch.cuda.empty_cache()

    render(rows, [meta], args)


def render(rows, runs, args):
    """The markdown table (args.out) and the plot (args.plot) of rows measured
    by the runs described in `runs` (their --json contents)."""
    def f(x):
        return "-" if x is None else f"{x:.0f}"

    def ratio(a, b):
        return "-" if a is None or not b else f"{a / b:.2f}"

    how = "; ".join(sorted({f"B = {m.get('batch')}, H = {m.get('heads')}, {m.get('device')}, torch "
                            f"{m.get('torch')}, CUDA-event median of {m.get('runs')} runs after "
                            f"{m.get('warmup')} warm-up runs" for m in runs}))
    lines = [f"Attention forward, {how} ({len(runs)} run(s) of this program); TFLOP/s = 4 * "
             "unmasked pairs * D / time. cuDNN and flash: torch SDPA with that backend; flex: "
             "torch.compile(flex_attention). tilec results checked against cuDNN's output; WGS: "
             "the consumer warpgroups of the tilec instance (64 query rows each; P: the "
             "persistent kernel; o1: CTA order 1, block rank by rank over every head).", "",
             "| dtype | D | causal | seq | WGS | tilec | cuDNN | flash (FA2) | flex | tilec / cuDNN | "
             "tilec / flex |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dtype']} | {r['D']} | {'yes' if r['causal'] else 'no'} | {r['seq']} | "
                     f"{r.get('tilec_wgs', '-')}{' P' if r.get('tilec_persistent') else ''}"
                     f"{' o1' if r.get('tilec_order') else ''} | {f(r['tilec'])} | {f(r['cudnn'])} | {f(r['flash'])} | "
                     f"{f(r['flex'])} | "
                     f"{ratio(r['tilec'], r['cudnn'])} | {ratio(r['tilec'], r['flex'])} |")
    ab = sorted({k for r in rows for k in r if k.startswith("tilec_w") and k != "tilec_wgs"
                 and not k.endswith("_note")})
    if ab:  # --ab: every instance timed (parse_variant), TFLOP/s and its ratio to cuDNN
        lines += ["", "| dtype | D | causal | seq | cuDNN | " +
                  " | ".join(k[6:] for k in ab) + " |",
                  "|---|---|---|---|---|" + "---|" * len(ab)]
        for r in rows:
            lines.append(f"| {r['dtype']} | {r['D']} | {'yes' if r['causal'] else 'no'} | "
                         f"{r['seq']} | {f(r['cudnn'])} | " +
                         " | ".join("-" if r.get(k) is None else
                                    f"{r[k]:.0f} ({ratio(r[k], r['cudnn'])})" for k in ab) + " |")
    notes = sorted({f"{k}: {v}" for r in rows for k, v in r.items() if k.endswith("_note")})
    lines += [""] + [f"- {n}" for n in notes]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.out, "w") as fh:
        fh.write(text)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        panels = sorted({(r["dtype"], r["D"], r["causal"]) for r in rows})
        fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.2), squeeze=False)
        for ax, (dn, d, c) in zip(axes[0], panels):
            sel = [r for r in rows if (r["dtype"], r["D"], r["causal"]) == (dn, d, c)]
            for key in ("tilec", "cudnn", "flash", "flex"):
                pts = [(r["seq"], r[key]) for r in sel if r[key] is not None]
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=key)
            ax.set_xscale("log", base=2)
            ax.set_title(f"{dn} D={d} {'causal' if c else 'full'}", fontsize=8)
            ax.set_xlabel("seq")
        axes[0][0].set_ylabel("TFLOP/s")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=90)
    except Exception as e:  # no matplotlib on the machine: the table alone
        print("no plot:", e)


if __name__ == "__main__":
    main()
