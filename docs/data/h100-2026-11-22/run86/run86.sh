#!/usr/bin/env bash
# Run 86: scripts/gpu-check (default time limits) on the tenth session's final main (a6e6cae):
# the whole-tile and tail launches now go through launch_with_tail (host code only; the device
# code is 3a42649's).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin86; mkdir -p $D; tar xJf dist/run86.tar.xz -C $D; W=/tmp/r86; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 560 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run86.tgz -C /tmp r86
