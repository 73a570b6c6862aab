#!/usr/bin/env bash
# Run 150: the twenty-second session's final bench check on main's binaries (8b5885b; kernels as
# 9f2cc6a's): three --cooldown-ms 1000 tables of #4's 4096³ and 8192³ (rung 13 against cuBLAS
# SGEMM); #4's other shapes; the square sweep (1024..16384) of the leading kernels with cuBLAS
# TF32, for docs/img/sweep.png. scripts/gpu-check on the same binaries is run 151.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin150; mkdir -p $D; tar xJf dist/run150.tar.xz -C $D; W=/tmp/r150; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2 3; do
  timeout 100 $B --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-cool1000-$i.txt 2>&1
  echo "cool1000-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-cool1000-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
timeout 150 $B --kernels simt-13-tma --shapes 2048x2048x2048,16384x16384x16384,2048x2048x1024,4096x4096x1024,8192x8192x1024,16384x16384x1024 > $W/bench-issue4-shapes.txt 2>&1
echo "issue4 shapes rc=$?"; grep -E '^([0-9]|cublas|simt-13)' $W/bench-issue4-shapes.txt | awk '{print $1, $2, $3, $4, $5, $7}'
timeout 330 $B --kernels 'simt-1*,cute-02*,tc-*' --sweep square --cublas-tf32 --csv $W/sweep-square.csv > $W/sweep-square.txt 2>&1
echo "sweep rc=$?"; grep -E '^[a-z]' $W/sweep-square.txt | awk '{print $1, $4, $5, $6, $7, $11}'
tar czf $OUT/run150.tgz -C /tmp r150
