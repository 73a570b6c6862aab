#!/usr/bin/env bash
# Run 54: scripts/gpu-check on the final main after the review's harness tidy-up (fill_kernel
# tests is_valid once; test code only, kernels as in run 48).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin54; mkdir -p $D; tar xJf dist/run54.tar.xz -C $D; W=/tmp/r54; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep "accuracy\] tc-03" $W/gc/gpu-tests-api.log
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7}'
tar czf $OUT/run54.tgz -C /tmp r54
