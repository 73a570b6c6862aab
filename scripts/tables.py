#!/usr/bin/env python3
"""Regenerates the measured tables of README.md and docs/ladder.md from the committed CSVs.

  docs/data/bench-4096.csv   `sgemm-bench --cublas-tf32 --csv` at 4096^3 (scripts/gpu-check writes it)
  docs/data/suite.csv        `sgemm-bench --suite --csv`
  docs/data/batched.csv      `sgemm-bench --batched --csv` (scripts/gpu-check writes it)
  docs/data/conv-suite.csv   `sgemm-bench --conv-suite --csv`

Between the markers <!-- table:NAME --> and <!-- /table -->, and <!-- now:SLUG --> and
<!-- /now -->, the text is replaced; everything else is left as it is.

  python3 scripts/tables.py            rewrite the files
  python3 scripts/tables.py --check    exit 1 if a file is not what the CSVs make it (CI runs this)
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "docs/data/bench-4096.csv"
SUITE = ROOT / "docs/data/suite.csv"
BATCHED = ROOT / "docs/data/batched.csv"
CONV = ROOT / "docs/data/conv-suite.csv"
FILES = [ROOT / "README.md", ROOT / "docs/ladder.md"]

MATH = {"fp32": "Fp32", "tf32x3": "3xTF32", "tf32": "Tf32"}


def read(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def ratio_to(row: dict, rows: list[dict], baseline: str) -> float | None:
    base = next((r for r in rows if r["kernel"] == baseline), None)
    if not base or float(row["ms_median"]) <= 0:
        return None
    return float(base["ms_median"]) / float(row["ms_median"])


def measured_on(rows: list[dict]) -> str:
    r = rows[0]
    return f"{r['device']}, {r['date']}, CUDA {r['cuda']}"


def now_line(row: dict, rows: list[dict]) -> str:
    text = (f"**Now:** {float(row['tflops']):.1f} TFLOPS, "
            f"{float(row['ratio_cublas']):.3f}x cuBLAS SGEMM")
    if row["math"] == "tf32":
        text += f", {ratio_to(row, rows, 'cublas-tf32'):.3f}x cuBLAS TF32"
    return (text + f", relative error {float(row['rel_fro_err']):.1e} "
            f"(4096³ row-major NN; {measured_on(rows)}).")


def ladder_table(rows: list[dict]) -> str:
    out = [f"Measured at 4096³, row-major NN, alpha 1, beta 0 on {measured_on(rows)}: the median of "
           "20 timed calls, ratios to cuBLAS in the same run; %peak against the peak of the "
           "units the kernel runs on.", "",
           "| kernel | math | ms | TFLOPS | x cuBLAS SGEMM | x cuBLAS TF32 | %peak | rel. error |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"].startswith("SKIP"):
            reason = r["status"].split(": ", 1)[-1].rstrip(")")
            out.append(f"| `{r['kernel']}` | {MATH[r['math']]} | declines: {reason} | | | | | |")
            continue
        tf32 = ratio_to(r, rows, "cublas-tf32") if r["math"] == "tf32" else None
        out.append(f"| `{r['kernel']}` | {MATH[r['math']]} | {float(r['ms_median']):.3f} | "
                   f"{float(r['tflops']):.1f} | {float(r['ratio_cublas']):.3f} | "
                   f"{'' if tf32 is None else f'{tf32:.3f}'} | {float(r['pct_peak']):.1f} | "
                   f"{float(r['rel_fro_err']):.1e} |")
    return "\n".join(out)


def readme_table(rows: list[dict]) -> str:
    keep = ["cublas-sgemm", "auto-fp32", "simt-13-tma", "auto-tf32x3", "tc-04-wgmma-f16-tf32x3",
            "cublas-tf32", "auto-tf32", "tc-04-wgmma-f16-tf32"]
    by = {r["kernel"]: r for r in rows}
    out = [f"4096³, row-major NN, {measured_on(rows)}; ratios to cuBLAS measured in the same run "
           "([all rungs](docs/ladder.md#summary)):", "",
           "| | math | TFLOPS | x cuBLAS SGEMM | x cuBLAS TF32 | rel. error |",
           "|---|---|---|---|---|---|"]
    for k in keep:
        if k not in by:
            continue
        r = by[k]
        tf32 = ratio_to(r, rows, "cublas-tf32") if r["math"] == "tf32" else None
        out.append(f"| `{k}` | {MATH[r['math']]} | {float(r['tflops']):.1f} | "
                   f"{float(r['ratio_cublas']):.3f} | {'' if tf32 is None else f'{tf32:.3f}'} | "
                   f"{float(r['rel_fro_err']):.1e} |")
    return "\n".join(out)


def suite_table(rows: list[dict]) -> str:
    by = defaultdict(list)
    for r in rows:
        by[r["math"]].append(r)
    out = [f"`sgemm-bench --suite` ({len(rows) // max(len(by), 1)} calls: squares, the seed's "
           f"K = 1024, small M, skinny, long k, odd sizes, every layout, nn.Linear, tiny; "
           f"{rows[0]['device']}, {rows[0]['date']}): `auto` against cuBLAS, the median of "
           "per-pair ratios per call.", "",
           "| math | against | geometric mean | worst | worst call |", "|---|---|---|---|---|"]
    against = {"fp32": "SGEMM", "tf32x3": "SGEMM", "tf32": "TF32"}
    for m in ["fp32", "tf32x3", "tf32"]:
        rs = by.get(m)
        if not rs:
            continue
        ratios = [float(r["ratio_median"]) for r in rs]
        worst = min(rs, key=lambda r: float(r["ratio_median"]))
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        call = f"{worst['layout']} {worst['op_a']}{worst['op_b']} {worst['m']}x{worst['n']}x{worst['k']}"
        out.append(f"| {MATH[m]} | cuBLAS {against[m]} | {geo:.3f} | "
                   f"{float(worst['ratio_median']):.3f} | {call} |")
    return "\n".join(out)


def means_table(rows: list[dict], ratio: str, describe, against: dict[str, str]) -> list[str]:
    """Rows of | math | against | geometric mean | worst | worst call |, auto's rows only."""
    by = defaultdict(list)
    for r in rows:
        if r.get("run", "auto") == "auto" and float(r[ratio]) > 0:
            by[r["math"]].append(r)
    out = ["| math | against | geometric mean | worst | worst call |", "|---|---|---|---|---|"]
    for m in ["fp32", "tf32x3", "tf32"]:
        rs = by.get(m)
        if not rs:
            continue
        worst = min(rs, key=lambda r: float(r[ratio]))
        geo = math.exp(sum(math.log(float(r[ratio])) for r in rs) / len(rs))
        out.append(f"| {MATH[m]} | {against[m]} | {geo:.3f} | {float(worst[ratio]):.3f} | "
                   f"{describe(worst)} |")
    return out


def batched_table(rows: list[dict]) -> str:
    calls = len({(r["batch"], r["m"], r["n"], r["k"], r["op_a"], r["op_b"]) for r in rows})
    head = [f"`sgemm-bench --batched` ({calls} strided batches: attention scores and outputs, "
            f"projections, many 16³ and 64³ products, large matrices, a shared weight; "
            f"{rows[0]['device']}, {rows[0]['date']}): `gemm_strided_batched`'s `auto` against "
            "`cublasGemmStridedBatchedEx` in the same math, the median of per-pair ratios.", ""]
    against = {"fp32": "cuBLAS FP32", "tf32x3": "cuBLAS FP32", "tf32": "cuBLAS TF32"}
    describe = lambda r: f"{r['batch']} x [{r['op_a']}{r['op_b']} {r['m']}x{r['n']}x{r['k']}]"
    return "\n".join(head + means_table(rows, "ratio_median", describe, against))


def conv_table(rows: list[dict]) -> str:
    layers = len({r["layer"] for r in rows})
    head = [f"`sgemm-bench --conv-suite` ({layers} ResNet-50 convolutions at batch 32 and 64, "
            f"NHWC; {rows[0]['device']}, cuDNN {rows[0]['cudnn']}, {rows[0]['date']}): `conv2d`'s "
            "`auto` against cuDNN's fastest algorithm in the same math, the median of per-pair "
            "ratios.", ""]
    against = {"fp32": "cuDNN FP32 (FMA)", "tf32x3": "cuDNN FP32 (FMA)", "tf32": "cuDNN TF32"}
    describe = lambda r: f"{r['layer']} N = {r['n']}"
    return "\n".join(head + means_table(rows, "ratio_median", describe, against))


def render(text: str, bench: list[dict], suite: list[dict] | None,
           batched: list[dict] | None = None, conv: list[dict] | None = None) -> str:
    tables = {"ladder": lambda: ladder_table(bench), "readme": lambda: readme_table(bench)}
    if suite:
        tables["suite"] = lambda: suite_table(suite)
    if batched:
        tables["batched"] = lambda: batched_table(batched)
    if conv:
        tables["conv"] = lambda: conv_table(conv)
    by_kernel = {r["kernel"]: r for r in bench}

    def table(m: re.Match) -> str:
        name = m.group(1)
        if name not in tables:
            return m.group(0)
        return f"<!-- table:{name} -->\n{tables[name]()}\n<!-- /table -->"

    def now(m: re.Match) -> str:
        slug = m.group(1)
        if slug not in by_kernel:
            return f"<!-- now:{slug} -->(not in {BENCH.name})<!-- /now -->"
        return f"<!-- now:{slug} -->{now_line(by_kernel[slug], bench)}<!-- /now -->"

    text = re.sub(r"<!-- table:([\w-]+) -->.*?<!-- /table -->", table, text, flags=re.S)
    return re.sub(r"<!-- now:([\w-]+) -->.*?<!-- /now -->", now, text, flags=re.S)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 when stale")
    args = parser.parse_args()
    bench = read(BENCH)
    suite = read(SUITE) if SUITE.exists() else None
    batched = read(BATCHED) if BATCHED.exists() else None
    conv = read(CONV) if CONV.exists() else None
    stale = []
    for path in FILES:
        old = path.read_text()
        new = render(old, bench, suite, batched, conv)
        if new != old:
            stale.append(path)
            if not args.check:
                path.write_text(new)
    if args.check and stale:
        print("stale tables (run scripts/tables.py):", *[str(p.relative_to(ROOT)) for p in stale],
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
