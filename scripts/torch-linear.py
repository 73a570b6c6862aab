#!/usr/bin/env python3
"""nn.Linear's product on sgemm against PyTorch's own, in one process.

    PYTHONPATH=build/release/python python3 scripts/torch-linear.py [--csv FILE] [--pairs N]

For each shape (M rows of x, N outputs, K inputs), y = x w^T with x (M x K) and w (N x K)
row-major: PyTorch's torch.nn.functional.linear with TF32 off (cuBLAS SGEMM) against
sgemm.torch.Linear's forward in Fp32 math. Each side runs a block of back-to-back calls between
two CUDA events, as a model's forward would; the blocks alternate, and the ratio reported is the
median of the per-pair ratios (PyTorch's time / sgemm's), which is robust to clock drift. The
error of each side is its largest |y - y64| / max|y64| against a float64 product.
"""

import argparse
import csv
import statistics
import sys

import torch

import sgemm.torch

SHAPES = [(16, 11008, 4096), (128, 4096, 4096), (2048, 4096, 4096), (4096, 11008, 4096)]


def block_ms(fn, calls):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / calls


def error(y, y64):
    return ((y.double() - y64).abs().max() / y64.abs().max()).item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", help="write the rows to this file")
    parser.add_argument("--pairs", type=int, default=15, help="timed pairs per shape")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch-linear: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    rows = []
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, TF32 off")
    print(f"{'M x N x K':>20} {'torch ms':>9} {'sgemm ms':>9} {'ratio':>6} {'torch err':>10} "
          f"{'sgemm err':>10}")
    for m, n, k in SHAPES:
        x = torch.randn(m, k, device="cuda")
        linear = torch.nn.Linear(k, n, bias=False, device="cuda")
        ours = sgemm.torch.Linear.from_linear(linear)
        with torch.no_grad():
            theirs_fn = lambda: torch.nn.functional.linear(x, linear.weight)
            ours_fn = lambda: ours(x)
            y64 = x.double() @ linear.weight.double().t()
            theirs_err, ours_err = error(theirs_fn(), y64), error(ours_fn(), y64)
            # Blocks of at least ~2 ms, so that the events' resolution and launch gaps do not count.
            calls = max(1, int(2.0 / max(block_ms(theirs_fn, 3), 1e-3)))
            for _ in range(2):  # warm-up
                block_ms(theirs_fn, calls), block_ms(ours_fn, calls)
            times = [(block_ms(theirs_fn, calls), block_ms(ours_fn, calls))
                     for _ in range(args.pairs)]
        ratio = statistics.median(t / o for t, o in times)
        theirs_ms = statistics.median(t for t, _ in times)
        ours_ms = statistics.median(o for _, o in times)
        rows.append(dict(m=m, n=n, k=k, torch_ms=theirs_ms, sgemm_ms=ours_ms, ratio=ratio,
                         torch_err=theirs_err, sgemm_err=ours_err))
        print(f"{f'{m} x {n} x {k}':>20} {theirs_ms:9.4f} {ours_ms:9.4f} {ratio:6.3f} "
              f"{theirs_err:10.3e} {ours_err:10.3e}")
    print(f"geomean {statistics.geometric_mean(r['ratio'] for r in rows):.4f}, "
          f"worst {min(r['ratio'] for r in rows):.4f}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
