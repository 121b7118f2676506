#!/usr/bin/env python3
"""TFLOP/s and the speed ratio per shape for the tilec GEMM and cuBLAS.

    python3 samples/gemm/plot.py gemm_bench.csv [-o gemm_tflops.png]

Reads the CSV that `gemm --bench --csv FILE` writes (one line per shape,
dtype, B major and implementation: m,n,k,dtype,bmajor,impl,median_us,tflops;
a `# floor_tflops,<value>` line) and draws two panels per dtype: TFLOP/s of
cuBLAS and of tilec (the kernel the host chose per shape; a log scale, since
decode shapes are bandwidth-bound) over the shapes ordered by their FLOP
count, with the physical floor (the dense tensor-core peak) as a dashed line;
below it tilec's speed over cuBLAS's per shape (cuBLAS time / tilec time) with
the 1.0 and 0.9 lines. Runs where matplotlib is (the GPU machine: PyTorch's
environment); without matplotlib it says so and exits 0, drawing nothing.
"""
import argparse
import csv
import sys


def read(path):
    rows, floor = [], None
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("# floor_tflops,"):
                floor = float(line.split(",", 1)[1])
        f.seek(0)
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            r["m"], r["n"], r["k"] = int(r["m"]), int(r["n"]), int(r["k"])
            r["tflops"] = float(r["tflops"])
            r["median_us"] = float(r["median_us"])
            rows.append(r)
    return rows, floor


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--out", default="gemm_tflops.png")
    args = ap.parse_args()
    rows, floor = read(args.csv)
    if not rows:
        print(f"plot.py: no measurements in {args.csv}: nothing to draw")
        return 1
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed here: no plot drawn "
              "(the table in the bench output has the same numbers)")
        return 0

    dtypes = sorted({r["dtype"] for r in rows})
    fig, axes = plt.subplots(2, len(dtypes), figsize=(9 * len(dtypes), 9), squeeze=False)
    styles = {"cuBLAS": ("k", "o"), "tilec": ("tab:blue", "s")}
    for col, dtype in enumerate(dtypes):
        ax = axes[0][col]
        sel = [r for r in rows if r["dtype"] == dtype]
        shapes = sorted({(r["m"], r["n"], r["k"]) for r in sel}, key=lambda s: (s[0] * s[1] * s[2], s))
        labels = [f"{m}x{n}x{k}" for m, n, k in shapes]
        for impl in ["cuBLAS", "tilec"]:
            for bmajor in sorted({r["bmajor"] for r in sel}):
                pts = {(r["m"], r["n"], r["k"]): r["tflops"] for r in sel
                       if r["impl"] == impl and r["bmajor"] == bmajor}
                if not pts:
                    continue
                xs = [i for i, s in enumerate(shapes) if s in pts]
                ys = [pts[shapes[i]] for i in xs]
                color, marker = styles.get(impl, ("gray", "x"))
                label = impl + (f" (B {bmajor}-major)" if len({r["bmajor"] for r in sel}) > 1 else "")
                ax.plot(xs, ys, marker=marker, color=color,
                        linestyle="-" if bmajor == "k" else ":", label=label)
        if floor:
            ax.axhline(floor, color="red", linestyle="--", linewidth=1,
                       label=f"floor {floor:.0f} TFLOP/s (dense peak)")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(labels, rotation=90, fontsize=6)
        ax.set_ylabel("TFLOP/s")
        ax.set_yscale("log")
        ax.set_title(f"GEMM {dtype}, f32 accumulation")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        # The ratio per shape (K-major B first when both were run).
        rax = axes[1][col]
        by = {}
        for r in sel:
            by.setdefault((r["m"], r["n"], r["k"], r["bmajor"]), {})[r["impl"]] = r["median_us"]
        xs, ys = [], []
        for i, s in enumerate(shapes):
            for bmajor in ("k", "mn"):
                t = by.get(s + (bmajor,), {})
                if "cuBLAS" in t and "tilec" in t:
                    xs.append(i)
                    ys.append(t["cuBLAS"] / t["tilec"])
                    break
        rax.bar(xs, ys, color=["tab:blue" if y >= 0.9 else "tab:red" for y in ys])
        rax.axhline(1.0, color="k", linewidth=1)
        rax.axhline(0.9, color="red", linestyle="--", linewidth=1, label="0.9")
        rax.set_xticks(range(len(shapes)))
        rax.set_xticklabels(labels, rotation=90, fontsize=6)
        rax.set_xlabel("M x N x K")
        rax.set_ylabel("x cuBLAS (cuBLAS time / tilec time)")
        rax.grid(True, alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot.py: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
