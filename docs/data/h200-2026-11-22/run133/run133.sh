#!/usr/bin/env bash
# Run 133: scripts/gpu-check on main after the final review (tc-04's max pass renamed, round_up
# moved; no change to what the kernels compute).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin133; mkdir -p $D; tar xJf dist/run133.tar.xz -C $D; W=/tmp/r133; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run133.tgz -C /tmp r133
