#!/usr/bin/env bash
# Run 29: scripts/gpu-check on the final main of the fourth session (run 28's code plus auto's
# Tf32 choice for k >= 16384).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
W=/tmp/r29; mkdir -p $W
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run29 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/gc/bench-4096.txt
tar czf $OUT/run29.tgz -C /tmp r29
