#!/usr/bin/env python3
"""Charts of a sgemm-bench CSV: the ladder at one size, and TFLOPS against size.

    python3 scripts/plot.py results.csv --out plots/

writes ladder-<M>x<N>x<K>.png (TFLOPS of every kernel beside cuBLAS, ladder order, each bar
annotated with its ratio to cuBLAS SGEMM measured in the same run) and, when the CSV holds more
than one size, sweep.png (one line per kernel, cuBLAS in bold). Each chart names the device,
date, CUDA and driver versions of the run. Needs matplotlib (pip install matplotlib).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

CUBLAS = ("cublas-sgemm", "cublas-tf32")
# Colours by math; cuBLAS in greys so the ladder stands out against it.
COLOURS = {"cublas-sgemm": "#222222", "cublas-tf32": "#8c8c8c",
           "fp32": "#1f77b4", "tf32x3": "#2ca02c", "tf32": "#ff7f0e"}
# Lines of the sweep: the ladder of each math in shades of its colour, in ladder order.
SHADES = {"fp32": "Blues", "tf32x3": "Greens", "tf32": "Oranges"}
CONFIG = ("layout", "op_a", "op_b", "alpha", "beta")


def load(path: Path, device: str | None) -> list[dict]:
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    missing = {"device", "date", "kernel", "math", "m", "n", "k", "tflops", "status"} - set(
        rows[0] if rows else {})
    if not rows or missing:
        sys.exit(f"plot.py: {path} is not a sgemm-bench CSV (missing: {sorted(missing)})")
    devices = sorted({r["device"] for r in rows})
    if device:
        rows = [r for r in rows if r["device"] == device]
    elif len(devices) > 1:
        sys.exit(f"plot.py: the CSV holds several devices, choose one with --device: {devices}")
    if not rows:
        sys.exit(f"plot.py: no rows for device {device!r}; the CSV has {devices}")
    for r in rows:
        r["size"] = (int(r["m"]), int(r["n"]), int(r["k"]))
        r["tflops"] = float(r["tflops"]) if r["tflops"] else None
    # One configuration per chart: the one measured most often (the bench default, usually).
    config = Counter(tuple(r[c] for c in CONFIG) for r in rows).most_common(1)[0][0]
    return [r for r in rows if tuple(r[c] for c in CONFIG) == config and r["tflops"]]


def size_name(size: tuple[int, int, int]) -> str:
    return "x".join(map(str, size))


def subtitle(rows: list[dict]) -> str:
    def values(column: str) -> str:
        return ", ".join(sorted({r.get(column) or "?" for r in rows}))
    first = rows[0]
    config = (f"{first['layout']} {first['op_a']}{first['op_b']}, "
              f"alpha {first['alpha']}, beta {first['beta']}")
    return (f"{values('device')}, SM clock {values('sm_clock_mhz')} MHz | {values('date')} | "
            f"CUDA {values('cuda')}, driver {values('driver')} | {config}")


def colour(row: dict) -> str:
    return COLOURS.get(row["kernel"], COLOURS.get(row["math"], "#7f7f7f"))


def ladder_chart(plt, rows: list[dict], size: tuple[int, int, int], out: Path) -> Path:
    at_size = [r for r in rows if r["size"] == size]
    # cuBLAS first, then the kernels in the order the bench ran them: the registry's ladder order.
    bars = [r for name in CUBLAS for r in at_size if r["kernel"] == name]
    bars += [r for r in at_size if r["kernel"] not in CUBLAS]
    baseline = next((r["tflops"] for r in bars if r["kernel"] == "cublas-sgemm"), None)

    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.38 * len(bars)))
    y = range(len(bars))
    drawn = ax.barh(y, [r["tflops"] for r in bars], color=[colour(r) for r in bars],
                    edgecolor="white")
    for bar, r in zip(drawn, bars):
        if r["status"] != "PASS":  # a wrong result's speed means nothing: hatch it
            bar.set_hatch("//")
    ax.set_yticks(list(y), [r["kernel"] for r in bars])
    ax.invert_yaxis()
    if baseline:
        ax.axvline(baseline, color=COLOURS["cublas-sgemm"], linestyle="--", linewidth=1)
    right = max(r["tflops"] for r in bars)
    for i, r in enumerate(bars):
        ratio = r.get("ratio_cublas") or (f"{r['tflops'] / baseline:.2f}" if baseline else "")
        label = f"{r['tflops']:.1f}"
        if ratio and r["kernel"] != "cublas-sgemm":
            label += f"  ({float(ratio):.2f}x cuBLAS)"
        if r["status"] != "PASS":
            label += f"  {r['status']}"
        ax.text(r["tflops"] + 0.01 * right, i, label, va="center", fontsize=8)
    ax.set_xlim(0, right * 1.3)
    ax.set_xlabel("TFLOPS (2MNK / median time)")
    fig.suptitle(f"SGEMM ladder against cuBLAS, M x N x K = {size_name(size)}", fontweight="bold")
    ax.set_title(subtitle(at_size), fontsize=8)
    legend = [(k, COLOURS[k]) for k in ("fp32", "tf32x3", "tf32")
              if any(r["math"] == k and r["kernel"] not in CUBLAS for r in bars)]
    if legend:
        ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=c) for _, c in legend],
                  labels=[k for k, _ in legend], loc="upper left", bbox_to_anchor=(1.01, 1),
                  fontsize=8, title="math")
    fig.tight_layout()
    path = out / f"ladder-{size_name(size)}.png"
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path


def sweep_chart(plt, rows: list[dict], out: Path) -> Path:
    sizes = sorted({r["size"] for r in rows}, key=lambda s: (s[0] * s[1] * s[2], s))
    square = all(m == n == k for m, n, k in sizes)
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    kernels = [k for k in CUBLAS if k in kernels] + [k for k in kernels if k not in CUBLAS]
    math = {r["kernel"]: r["math"] for r in rows}

    fig, ax = plt.subplots(figsize=(11, 6))
    for kernel in kernels:
        points = {r["size"]: r["tflops"] for r in rows if r["kernel"] == kernel}
        x = [i for i, s in enumerate(sizes) if s in points]
        y = [points[sizes[i]] for i in x]
        if kernel in CUBLAS:
            style = dict(color=COLOURS[kernel], linewidth=3, marker="o", zorder=3)
        else:
            family = [k for k in kernels if k not in CUBLAS and math[k] == math[kernel]]
            shade = 0.4 + 0.55 * family.index(kernel) / max(1, len(family) - 1)
            style = dict(color=plt.get_cmap(SHADES.get(math[kernel], "Greys"))(shade),
                         linewidth=1.2, marker=".")
        ax.plot(x, y, label=kernel, **style)
    ax.set_xticks(range(len(sizes)),
                  [str(s[0]) if square else size_name(s) for s in sizes],
                  rotation=0 if square else 30, ha="center" if square else "right")
    ax.set_xlabel("M = N = K" if square else "M x N x K")
    ax.set_ylabel("TFLOPS (2MNK / median time)")
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    fig.suptitle("SGEMM TFLOPS against size, cuBLAS in bold", fontweight="bold")
    ax.set_title(subtitle(rows), fontsize=8)
    fig.tight_layout()
    path = out / "sweep.png"
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path


def parse_size(text: str) -> tuple[int, int, int]:
    parts = text.lower().split("x")
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected MxNxK or N, got {text!r}")
    return tuple(int(p) for p in parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="sgemm-bench --csv output")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the PNGs")
    parser.add_argument("--size", type=parse_size,
                        help="size of the ladder chart, MxNxK or N (default: the size with the "
                             "most kernels measured; on a tie 4096^3, else the largest)")
    parser.add_argument("--device", help="the device to plot when the CSV holds several")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py needs matplotlib: pip install matplotlib")

    rows = load(args.csv, args.device)
    if not rows:
        sys.exit(f"plot.py: no timed rows in {args.csv}")
    sizes = Counter(r["size"] for r in rows)
    headline = (4096, 4096, 4096)  # the bench's default problem
    size = args.size or max(sizes, key=lambda s: (sizes[s], s == headline, s[0] * s[1] * s[2]))
    if size not in sizes:
        sys.exit(f"plot.py: no rows of size {size_name(size)}; the CSV has "
                 f"{', '.join(size_name(s) for s in sorted(sizes))}")
    args.out.mkdir(parents=True, exist_ok=True)
    print(ladder_chart(plt, rows, size, args.out))
    if len(sizes) > 1:
        print(sweep_chart(plt, rows, args.out))


if __name__ == "__main__":
    main()
