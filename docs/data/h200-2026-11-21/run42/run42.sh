#!/usr/bin/env bash
# Run 42: scripts/gpu-check after a review refactor (not kept: see perf-notes) in which rung 10 asks the loaders whether the next
# K-tile is whole instead of repeating their test), then rungs 06-10 at 4096³ and rung 10 at
# 4004 x 4012 x 4036, twice each.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run42; B=$D/sgemm-bench; W=/tmp/r42; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
for pass in 1 2; do
  timeout 60 $B --kernels 'simt-06*,simt-07*,simt-08*,simt-09*,simt-10*' --shapes 4096x4096x4096 --reps 20 > $W/bench-4096-$pass.txt 2>&1; echo "4096 $pass rc=$?"
  timeout 30 $B --kernels 'simt-10*' --shapes 4004x4012x4036 --reps 20 > $W/bench-edge-$pass.txt 2>&1; echo "edge $pass rc=$?"
done
cat $W/gpu.txt; grep -hE "^(cublas|simt)|^[0-9]+ x" $W/bench-4096-1.txt $W/bench-edge-1.txt $W/bench-4096-2.txt $W/bench-edge-2.txt
grep -hE "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt
tar czf $OUT/run42.tgz -C /tmp r42
