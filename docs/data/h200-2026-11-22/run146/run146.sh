#!/usr/bin/env bash
# Run 146: scripts/gpu-check as committed in 68ace14 (sanitizer logs with each test's start; a
# step past its limit names its test) on run 144's binaries (main's kernels); then the same with a
# 3 s sanitizer limit and --quick, to see a timed-out step name its test.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin146; mkdir -p $D; tar xJf dist/run144.tar.xz -C $D; W=/tmp/r146; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 480 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas-sgemm|simt-13|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
GPU_CHECK_SANITIZER_TIMEOUT=3 timeout 200 scripts/gpu-check --bin $D/final --out $W/gc-limit3 --quick > $W/gpu-check-limit3.out 2>&1
echo "gpu-check with a 3 s sanitizer limit rc=$? (must fail)"; grep -E "sanitizer" $W/gc-limit3/summary.txt
tar czf $OUT/run146.tgz -C /tmp r146
