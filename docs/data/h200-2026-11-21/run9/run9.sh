#!/usr/bin/env bash
# Run 9: scripts/gpu-check after the review clean-up (shared aligned16 and device cache; the
# tuner on the bench's timer), and --tune through the new timer.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run9/sgemm-bench; W=/tmp/r9; mkdir -p $W
GPU_CHECK_KERNEL_TIMEOUT=45 GPU_CHECK_SANITIZER_TIMEOUT=150 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run9 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -vE "^FP32" $W/gc/bench-4096.txt
SGEMM_TUNING_CACHE=$W/tuning.tsv timeout 120 $B --tune --reps 10 --warmup 1 > $W/tune.txt 2>&1; echo "tune rc=$?"; cat $W/tuning.tsv
tar czf $OUT/run9.tgz -C /tmp r9
