#!/usr/bin/env bash
# Run 183: main's rung 13 in RowMajor NN (A K-major: 154 three-read FFMAs per k-loop after the
# reorder) against RowMajor TN (A M-major: 33), same loop length (1096), idle tables of 4096³ and
# 8192³, three passes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin183; mkdir -p $D; tar xJf dist/run183.tar.xz -C $D; W=/tmp/r183; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2 3; do
  timeout 150 $D/main/sgemm-bench --kernels 'simt-13*' --ops NN,TN --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$i.txt 2>&1
  echo "pass $i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$i.txt | awk '{print $1, $4, $5, $7, $NF}' | tr '\n' ' ')"
done
tar czf $OUT/run183.tgz -C /tmp r183
