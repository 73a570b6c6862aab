#!/usr/bin/env bash
# Run 117: scripts/gpu-check on the session's last binaries (5ee880e: the bench prints ratios with
# four decimals; kernels as 65ab5e0's), then one --cooldown-ms 1000 table of the issue shapes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin117; mkdir -p $D; tar xJf dist/run117.tar.xz -C $D; W=/tmp/r117; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 480 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
timeout 100 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --cooldown-ms 1000 > $W/bench-cool1000.txt 2>&1
echo "cool1000 rc=$? $(grep -E '^(cublas|simt-13|tc-03)' $W/bench-cool1000.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
tar czf $OUT/run117.tgz -C /tmp r117
