#!/usr/bin/env bash
# Run 6: scripts/gpu-check on the code of that moment, and 8192^3 for rungs 04 and up.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run6/sgemm-bench; W=/tmp/r6; mkdir -p $W
GPU_CHECK_KERNEL_TIMEOUT=45 GPU_CHECK_SANITIZER_TIMEOUT=150 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run6 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out; grep -E "^\[accuracy\]" $W/gpu-check.out
grep -vE "^FP32" $W/gc/bench-4096.txt
timeout 120 $B 8192 8192 8192 --kernels 'simt-04*,simt-05*,simt-06*,simt-07*,simt-08*,simt-09*,simt-1*,cute-*,tc-*' --cublas-tf32 --reps 10 --warmup 1 --csv $W/bench-8192.csv > $W/bench-8192.txt 2>$W/bench-8192.err; echo "8192 rc=$?"; grep -vE "^device|^FP32" $W/bench-8192.txt
tar czf $OUT/run6.tgz -C /tmp r6
