#!/usr/bin/env bash
# Run 167: rung 13 with its k-loop FFMAs reordered in SASS for the operand-reuse cache
# (perf-notes, "FFMAs reordered in SASS"). orig/ is main's sgemm-bench (code of 870c2bd);
# snake/ the same executables with seven rung-13 kernels' k-loops permuted (checked by script
# and cuobjdump). Rung 13's case matrices on the patched tests, then idle tables, alternated.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin167; mkdir -p $D; tar xJf dist/run167.tar.xz -C $D; W=/tmp/r167; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/snake/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-snake.txt 2>&1
echo "snake case matrices rc=$?"; grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $W/tests-snake.txt | tail -3
for i in 1 2 3; do for v in orig snake; do
  timeout 120 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,4096x4096x1024 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
tar czf $OUT/run167.tgz -C /tmp r167
