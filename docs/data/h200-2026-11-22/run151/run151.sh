#!/usr/bin/env bash
# Run 151: scripts/gpu-check on run 150's binaries (main 8b5885b; kernels as 9f2cc6a's).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin151; mkdir -p $D; tar xJf dist/run150.tar.xz -C $D; W=/tmp/r151; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 540 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run151.tgz -C /tmp r151
