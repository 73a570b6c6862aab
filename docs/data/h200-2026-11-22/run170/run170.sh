#!/usr/bin/env bash
# Run 170: the reorder with its scoreboard waits moved to the first FFMA that needs the loads
# (scripts/ffma_reorder.py's sink_waits): sink/ built from main d5892ab with that change; rung
# 13's case matrices on its tests, then idle tables alternating main/ (run 168's binaries) and sink/.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin170; mkdir -p $D; tar xJf dist/run170.tar.xz -C $D; W=/tmp/r170; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/sink/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-sink.txt 2>&1
echo "sink case matrices rc=$?"; grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $W/tests-sink.txt | tail -3
for i in 1 2 3; do for v in main sink; do
  timeout 120 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,4096x4096x1024 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
tar czf $OUT/run170.tgz --exclude='*.ncu-rep' -C /tmp r170
