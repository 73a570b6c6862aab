#!/usr/bin/env bash
# Run 40: scripts/gpu-check with its case-matrix loop mended (every earlier run's loop matched no
# test: gtest lists "Shapes/<kernel>", the filter wanted "<kernel>"), on a76ab5c's binaries;
# then rung 10 of main (41e7a7b) and a76ab5c alternating at 4004 x 4012 x 4036 (ld % 4 == 0,
# edges in M, N and K).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run39; W=/tmp/r40; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 500 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 30 $D/$b --kernels 'simt-10*' --shapes 4004x4012x4036 --reps 20 > $W/bench-$i-$b.txt 2>&1; echo "$i $b rc=$?"
  grep -hE "^(cublas|simt)" $W/bench-$i-$b.txt
done
cat $W/gpu.txt
tar czf $OUT/run40.tgz -C /tmp r40
