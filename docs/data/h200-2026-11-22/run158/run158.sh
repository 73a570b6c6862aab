#!/usr/bin/env bash
# Run 158: the session's last check, on main with tc-03 taking Tf32 calls with k >= 16384:
# auto's Tf32 choices for run 157's calls on this GPU, then scripts/gpu-check.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin158; mkdir -p $D; tar xJf dist/run158.tar.xz -C $D; W=/tmp/r158; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S="512x512x512 1024x1024x1024 2048x2048x2048 128x128x65536 256x256x16384 1024x1024x16384
2048x2048x16384 4096x4096x16384 4096x1024x32768 8192x8192x8192 16384x16384x16384"
$D/final/auto_probe --math tf32 $(for s in $S; do echo row NN $s col NN $s; done) | tee $W/auto-tf32.txt
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run158.tgz -C /tmp r158
